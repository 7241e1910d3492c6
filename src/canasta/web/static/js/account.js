// The account panel (register, log in and out, password, email, recovery, delete), the profile
// with its rating chart, and the leaderboard. Chosen cosmetics are attributes of <body>
// (data-back, data-theme), kept in localStorage too, so every table shows them, offline too.
import { S } from "./store.js";
import { t, language, personName, nameDraft, RATING_KINDS, ratingKindName } from "./i18n.js";
import { api, onSessionLost, keepSessionInPage, sessionInPage, takeFreshSession } from "./net.js";
import { dialog, closeOverlay, button } from "./overlays.js";
import { h } from "./dom.js";

const COSMETICS_KEY = "canasta.cosmetics";
let ctl = null;
let info = null;            // GET /api/account: {account, recovery}
let note = null;            // {text, bad} shown at the top of the account panel
let formView = "main";      // which part of the panel is open


// What was typed in the panel's email and text fields: a redraw (an error shown) keeps it.
// A password survives only a redraw the person did not cause (fresh account data arriving
// while they type); after a submission it is typed again.
const kept = {};
let secrets = null;         // password fields' values during such a redraw, else null

function keepTyped(withSecrets) {
  for (const i of document.querySelectorAll("#overlay input[type=email], #overlay input[type=text]")) kept[i.id] = i.value;
  secrets = null;
  if (!withSecrets) return;
  secrets = {};
  for (const i of document.querySelectorAll("#overlay input[type=password]")) secrets[i.id] = i.value;
}

/** A labelled input: {wrap, input}. */
export function field(id, label, type = "text", extra = {}) {
  const value = extra.value ?? (type === "password" ? (secrets || {})[id] : kept[id]);
  const input = h("input", { id, name: id, type, ...extra, value });
  const wrap = h("label", { class: "field acc-field", for: id }, h("span", { class: "field-label", text: label }), input);
  return { wrap, input };
}

/** An error in words; ``own`` names this form's own text for some codes (a form that asks
 * only for the password says the password is wrong, not "the email or the password"). */
export function errorMessage(e, own = {}) {
  const key = own[e && e.code] || `account.errors.${e && e.code}`;
  const text = t(key);
  return text === key ? t("account.errors.generic", { code: (e && e.code) || "?" }) : text;
}

// ---- cosmetics on <body> ------------------------------------------------------------------

export function applyCosmetics(c) {
  const chosen = { back: (c && c.back) || "classic", theme: (c && c.theme) || "felt" };
  document.body.dataset.back = chosen.back;
  document.body.dataset.theme = chosen.theme;
  try { localStorage.setItem(COSMETICS_KEY, JSON.stringify(chosen)); } catch { /* ignore */ }
}

function cachedCosmetics() {
  try { return JSON.parse(localStorage.getItem(COSMETICS_KEY)) || null; } catch { return null; }
}

applyCosmetics(cachedCosmetics());  // before the server answers (or when it cannot)

async function loadAccount() {
  info = await api("GET", "/api/account");
  takeFreshSession();  // the session worked: a later no_session means it ended
  S.account = { ...(S.account || {}), ...info.account };
  applyCosmetics(info.account.cosmetics);
  const badge = document.getElementById("btn-account");
  if (badge) badge.dataset.kind = info.account.kind;
}

export async function refreshAccount() {
  try { await loadAccount(); } catch (e) {
    if (e.code === "no_session") await sessionEnded();
    // else offline: the cached cosmetics stay
  }
  return info;
}

/** A new guest session for this browser (after logout, or a deleted account). */
async function newGuest() {
  try { const res = await api("POST", "/api/session", {}); S.account = res.account; } catch { /* keep */ }
  await refreshAccount();
}

// ---- a session ended elsewhere ------------------------------------------------------------

// The server ends a session when its account logs out everywhere, changes or resets its
// password or is deleted, maybe in another browser: this page's requests then answer 401
// no_session and its sockets close with 4401 (docs/protocol.md). The page gets a session
// again, as on a first visit, and says so once.
let checking = null;  // that in flight: every request and socket that saw the end waits for it
let changing = 0;     // the page's own session changes in flight (log in, log out, ...)
// A browser that keeps no cookie (cookies blocked, a Secure cookie over plain http) is given a
// session by every ask and answers 401 again at once: once that is seen the page keeps its
// session itself (net.js keepSessionInPage) and asks once more. Should even that fail, the page
// stops asking for this load (it plays on as it can). Asks are at least ASK_EVERY_MS apart
// in any case, so nothing on the page can make a stream of guests.
let cookieless = false;
let lastAsked = -Infinity;
const ASK_EVERY_MS = 10_000;

/** Run ``fn``, which changes this browser's session: the 4401 closes and no_session answers
 * it causes are no news (it reconnects the sockets itself once it is done). */
async function ownChange(fn) {
  changing++;
  try { return await fn(); } finally { changing--; }
}

/** The server said this page's session ended: settled (never rejected) once the page has one
 * again, or could not get one. */
export function sessionEnded() {
  if (changing || cookieless) return Promise.resolve();
  if (!checking) {
    if (Date.now() - lastAsked < ASK_EVERY_MS) return Promise.resolve();
    lastAsked = Date.now();
    checking = sessionAgain().catch(() => { /* offline, or refused: the page goes on */ })
      .finally(() => { checking = null; });
  }
  return checking;
}

async function sessionAgain(before = S.account && S.account.id) {
  // the session this load was just given did not even reach its first request: no cookie
  // was kept, so the page keeps the next one itself (one guest fewer than asking first)
  if (!sessionInPage() && takeFreshSession()) { keepSessionInPage(); before = null; }
  // the cookie's session if another tab of this browser made one meanwhile, else a new guest
  const res = await api("POST", "/api/session", {});
  S.account = res.account;
  try { await loadAccount(); } catch (e) {
    if (e.code === "no_session" && !sessionInPage()) {
      // the session just given did not stick (no cookie kept): from now on the page keeps
      // its session itself, and asks once more for one it is given the token of
      keepSessionInPage();
      return sessionAgain(null);  // no news: the page never held a session it could keep
    }
    // even so no session: the panel shows that guest, and nothing is said or drawn again
    // (the page would only be told the same once more)
    if (e.code === "no_session") cookieless = true;
    info = { ...(info || {}), account: { email: null, pending_email: null, coins: 0, cosmetics: {}, ...res.account } };
    return;
  }
  if (!before || before === res.account.id) return;
  if (ctl) ctl.toast(res.account.kind === "guest" ? t("account.session_ended") : t("account.session_switched", { name: personName(res.account.name) }));
  // what was drawn from the account that ended is drawn again
  formView = "main";
  note = null;
  const shown = document.body.dataset.overlay;
  if (shown === "account") drawAccount();
  else if (shown === "shop" || shown === "ledger") import("./shop.js").then((m) => m.openShop());
  else if (shown === "profile" || shown === "leaderboard") openAccount();
  if (ctl && ctl.redraw) ctl.redraw();
}

// ---- start-up -----------------------------------------------------------------------------

export async function initAccount(controller) {
  ctl = controller;
  const btn = document.getElementById("btn-account");
  if (btn) btn.addEventListener("click", () => openAccount());
  const report = document.getElementById("btn-report");
  if (report) report.addEventListener("click", async () => { const m = await import("./report.js"); m.openReport(); });
  onSessionLost(sessionEnded);
  await refreshAccount();
  const fromHash = () => {
    const m = location.hash.match(/^#(reset|confirm)=([A-Za-z0-9_-]{20,100})$/);
    if (!m) return;
    // the token leaves the address bar (and the history) at once
    history.replaceState(null, "", location.pathname);
    if (m[1] === "reset") openReset(m[2]); else openConfirm(m[2]);
  };
  fromHash();
  window.addEventListener("hashchange", fromHash);
}

// ---- the account panel --------------------------------------------------------------------

export async function openAccount(view = "main") {
  formView = view;
  note = null;
  document.body.dataset.overlay = "account";
  drawAccount();
  const shown = JSON.stringify(info);
  await refreshAccount();
  if (JSON.stringify(info) !== shown) redrawKeepingInput();
}

/** Draw the panel again for news the person did not ask for: what they typed, passwords
 * too, and where the caret was stay as they were. */
function redrawKeepingInput() {
  const active = document.activeElement;
  const focused = active && active.closest && active.closest("#overlay") && active.id ? active.id : null;
  const caret = focused && typeof active.selectionStart === "number" ? [active.selectionStart, active.selectionEnd] : null;
  drawAccount(true);
  secrets = null;
  const again = focused && document.getElementById(focused);
  if (!again) return;
  again.focus();
  if (caret) try { again.setSelectionRange(caret[0], caret[1]); } catch { /* not a text field */ }
}


async function attempt(fn, okText, own = {}) {
  try {
    await fn();
    note = okText ? { text: okText, bad: false } : null;
  } catch (e) {
    note = { text: errorMessage(e, own), bad: true };
  }
  drawAccount();
}

// the forms that ask for the password and no email: a wrong one is "the password is wrong"
const PASSWORD_ONLY = { bad_credentials: "account.wrong_password" };

/** Send an address to confirm (registration, a new email): the note then asks to check the
 * mail at it (``mailKey``) when the server waits for the owner, else says ``doneKey``. */
async function attemptConfirming(path, body, emailField, mailKey, doneKey, own = {}) {
  let sent = null;
  await attempt(async () => {
    const res = await api("POST", path, body);
    sent = res.pending ? emailField.input.value.trim() : null;
    await refreshAccount();
  }, null, own);
  if (!note) note = { text: sent ? t(mailKey, { email: sent }) : t(doneKey), bad: false };
  drawAccount();
}

function form(id, fields, submitLabel, onSubmit, cls = "primary") {
  const f = h("form", { class: "acc-form", id, novalidate: true });
  for (const x of fields) f.append(x.wrap);
  const submit = h("button", { type: "submit", class: `btn ${cls}`, text: submitLabel });
  f.append(h("div", { class: "dialog-buttons" }, submit));
  f.addEventListener("submit", (e) => { e.preventDefault(); onSubmit(); });
  return f;
}

function drawAccount(passive = false) {
  if (document.body.dataset.overlay !== "account") return;
  keepTyped(passive);
  const body = dialog("account", t("account.title"));
  body.classList.add("account-panel");
  if (!info) { body.append(h("p", { class: "muted", text: t("common.loading") })); return; }
  const acc = info.account;
  if (note) body.append(h("p", { class: note.bad ? "warn acc-note" : "good acc-note", role: "status", id: note.id, text: note.text }));
  const head = h("div", { class: "acc-head" },
    h("div", {}, h("strong", { class: "acc-name", text: personName(acc.name) }), h("div", { class: "muted acc-kind", text: acc.kind === "registered" ? acc.email : t("account.guest") })),
    h("div", { class: "acc-coins", id: "acc-coins", "aria-label": t("shop.coins_label", { n: acc.coins }) }, h("span", { "aria-hidden": "true", text: "◉ " }), String(acc.coins)));
  body.append(head);
  const links = h("div", { class: "dialog-buttons acc-links" });
  const link = (id, label, fn) => { const b = button(label, fn, "ghost"); b.id = id; links.append(b); };
  link("btn-profile", t("account.profile"), () => openProfile());
  link("btn-leaderboard", t("account.leaderboard"), () => openLeaderboard());
  link("btn-shop", t("shop.title"), async () => { const m = await import("./shop.js"); m.openShop(); });
  link("btn-report-menu", t("report.title"), async () => { const m = await import("./report.js"); m.openReport({ fromTable: false }); });
  body.append(links);
  if (formView !== "forgot") nameSection(body, acc);
  if (formView === "forgot") drawForgot(body);
  else if (acc.kind === "registered") drawRegistered(body, acc);
  else drawGuest(body);
}

/** A part of the panel that opens on demand; it stays open across redraws. */
function details(body, id, title, content) {
  const d = h("details", { class: "acc-details", id }, h("summary", { text: title }), content);
  if (formView === id) d.open = true;
  d.addEventListener("toggle", () => { if (d.open) formView = id; });
  body.append(d);
}

// the name form's refusals are the lobby's (the same PATCH /api/account)
const NAME_ERRORS = { bad_name: "online.errors.bad_name", reserved_name: "online.errors.reserved_name", rate_limited: "online.errors.rate_limited" };

/** The display name (shown at online tables, in the lobby, on the leaderboard): changed here
 * as in the lobby (a guest's given name shows in an empty field: ``nameDraft``). */
function nameSection(body, acc) {
  const draft = nameDraft(acc.name);
  const name = field("name-new", t("online.your_name"), "text", {
    maxlength: 20, autocomplete: "nickname", value: kept["name-new"] ?? draft.value, placeholder: draft.placeholder,
  });
  details(body, "change-name", t("online.change_name"), form("form-name", [name], t("common.save"), () => attempt(async () => {
    const res = await api("PATCH", "/api/account", { name: name.input.value });
    S.account = { ...(S.account || {}), ...res.account };
    delete kept["name-new"];
    await refreshAccount();
  }, t("online.name_saved"), NAME_ERRORS)));
}

/** Delete my account: a registered account confirms with its password, a guest (public
 * ratings, profile and leaderboard rows too) with the button alone. */
function deleteSection(body, registered) {
  const dpw = registered ? [field("delete-password", t("account.password"), "password", { autocomplete: "current-password" })] : [];
  const del = h("div", {}, h("p", { class: "warn", text: t(registered ? "account.delete_text" : "account.delete_text_guest") }),
    form("form-delete", dpw, t("account.delete_confirm"), () => attempt(() => ownChange(async () => {
      await api("DELETE", "/api/account", registered ? { confirm: true, password: dpw[0].input.value } : { confirm: true });
      await newGuest();
      if (ctl && ctl.accountChanged) ctl.accountChanged();
    }), t("account.deleted"), PASSWORD_ONLY), "danger"));
  details(body, "delete-account", t("account.delete"), del);
}

/** A note of what was added from this browser's guest when logging in, or null. */
function mergedText(merged) {
  if (!merged) return null;
  const played = Object.values(merged).reduce((n, s) => n + (s.played || 0), 0);
  const canastas = Object.values(merged).reduce((n, s) => n + (s.canastas || 0), 0);
  return t("account.merged", { n: played, canastas });
}

function drawGuest(body) {
  body.append(h("p", { class: "muted", text: t("account.guest_text") }));
  const mode = info.registration || "open";
  body.append(h("h3", { text: t("account.register") }));
  if (mode === "unavailable") {
    body.append(h("p", { class: "warn", id: "registration-unavailable", text: t("account.registration_unavailable") }));
  } else {
    if (mode === "open") body.append(h("p", { class: "muted", id: "registration-unchecked", text: t("account.registration_unchecked") }));
    const pending = info.account.pending_email;
    if (pending) body.append(h("p", { class: "good acc-pending", id: "reg-pending", text: t("account.pending_register", { email: pending }) }));
    const email = field("reg-email", t("account.email"), "email", { autocomplete: "email", required: true });
    const pass = field("reg-password", t("account.password_new"), "password", { autocomplete: "new-password", minlength: 8, required: true });
    body.append(form("form-register", [email, pass], t("account.register"), () => attemptConfirming(
      "/api/account/register", { email: email.input.value, password: pass.input.value, lang: language() },
      email, "account.check_mail", "account.registered")));
  }
  const lemail = field("login-email", t("account.email"), "email", { autocomplete: "username", required: true });
  const lpass = field("login-password", t("account.password"), "password", { autocomplete: "current-password", required: true });
  body.append(h("h3", { text: t("account.login") }));
  body.append(form("form-login", [lemail, lpass], t("account.login"), async () => {
    let merged = null;
    await attempt(() => ownChange(async () => {
      const res = await api("POST", "/api/account/login", { email: lemail.input.value, password: lpass.input.value });
      merged = mergedText(res.merged);
      await refreshAccount();
      if (ctl && ctl.accountChanged) ctl.accountChanged();
    }), t("account.logged_in"));
    if (merged && note && !note.bad) { note = { text: `${t("account.logged_in")} ${merged}`, bad: false, id: "acc-merged" }; drawAccount(); }
  }));
  const forgot = button(t("account.forgot"), () => { formView = "forgot"; note = null; drawAccount(); }, "ghost small");
  forgot.id = "btn-forgot";
  body.append(h("div", { class: "dialog-buttons" }, forgot));
  deleteSection(body, false);
}

function drawForgot(body) {
  body.append(h("h3", { text: t("account.forgot") }));
  if (!info.recovery) {
    body.append(h("p", { class: "warn", id: "recovery-unavailable", text: t("account.recovery_unavailable") }));
  } else {
    const email = field("forgot-email", t("account.email"), "email", { autocomplete: "email", required: true });
    body.append(h("p", { class: "muted", text: t("account.forgot_text") }));
    body.append(form("form-forgot", [email], t("account.send_link"), () => attempt(async () => {
      await api("POST", "/api/account/forgot", { email: email.input.value, lang: language() });
    }, t("account.link_sent"))));
  }
  body.append(h("div", { class: "dialog-buttons" }, button(t("common.back"), () => { formView = "main"; note = null; drawAccount(); }, "ghost small")));
}

function drawRegistered(body, acc) {
  const row = h("div", { class: "dialog-buttons" });
  const logout = (id, label, path, done) => {
    const b = button(label, () => attempt(() => ownChange(async () => {
      await api("POST", path, {});
      await newGuest();
      if (ctl && ctl.accountChanged) ctl.accountChanged();
    }), done), "ghost");
    b.id = id;
    return b;
  };
  row.append(
    logout("btn-logout", t("account.logout"), "/api/account/logout", t("account.logged_out")),
    logout("btn-logout-all", t("account.logout_all"), "/api/account/logout-all", t("account.logged_out_all")));
  body.append(row);

  const cur = field("pw-current", t("account.password"), "password", { autocomplete: "current-password" });
  const nxt = field("pw-new", t("account.password_new"), "password", { autocomplete: "new-password", minlength: 8 });
  details(body, "change-password", t("account.change_password"), form("form-password", [cur, nxt], t("common.save"), () => attempt(async () => {
    await api("POST", "/api/account/password", { current: cur.input.value, password: nxt.input.value });
  }, t("account.password_changed"), PASSWORD_ONLY)));
  const em = field("email-new", t("account.email_new"), "email", { autocomplete: "email", value: acc.email || "" });
  const pw = field("email-password", t("account.password"), "password", { autocomplete: "current-password" });
  const emailForm = h("div", {});
  if (acc.pending_email) emailForm.append(h("p", { class: "good acc-pending", id: "email-pending", text: t("account.pending_email", { email: acc.pending_email }) }));
  emailForm.append(form("form-email", [em, pw], t("common.save"), () => attemptConfirming(
    "/api/account/email", { email: em.input.value, password: pw.input.value, lang: language() },
    em, "account.check_mail_email", "account.email_changed", PASSWORD_ONLY)));
  details(body, "change-email", t("account.change_email"), emailForm);
  deleteSection(body, true);
}

// ---- password reset (from the emailed link) ------------------------------------------------

function openReset(token) {
  document.body.dataset.overlay = "reset";
  const draw = (msg, bad, dead = false) => {
    const body = dialog("reset", t("account.reset_title"));
    if (msg) body.append(h("p", { class: bad ? "warn" : "good", role: "status", id: "reset-result", text: msg }));
    if (msg && !bad) return;
    if (dead) {
      // the link cannot be used any more: no form to fill in vain, the way to a new link
      const again = button(t("account.new_link"), () => openAccount("forgot"), "primary");
      again.id = "btn-reset-new-link";
      body.append(h("div", { class: "dialog-buttons" }, again));
      return;
    }
    const pass = field("reset-password", t("account.password_new"), "password", { autocomplete: "new-password", minlength: 8, "data-autofocus": true });
    body.append(form("form-reset", [pass], t("account.reset_save"), async () => {
      try {
        await ownChange(async () => {
          await api("POST", "/api/account/reset", { token, password: pass.input.value });
          await refreshAccount();
          if (ctl && ctl.accountChanged) ctl.accountChanged();
        });
        draw(t("account.reset_done"), false);
      } catch (e) { draw(errorMessage(e), true, e.code === "bad_token"); }
    }));
  };
  draw(null, false);
}

// ---- email confirmation (from the emailed link) -------------------------------------------

async function openConfirm(token) {
  document.body.dataset.overlay = "confirm";
  let body = dialog("confirm", t("account.confirm_title"));
  body.append(h("p", { class: "muted", text: t("common.loading") }));
  let msg, bad = false, here = false;
  try {
    const res = await api("POST", "/api/account/confirm", { token, lang: language() });
    here = !!res.account;
    if (here) { await refreshAccount(); if (ctl && ctl.accountChanged) ctl.accountChanged(); }
    const key = res.confirmed === "register" ? (here ? "account.confirmed_register" : "account.confirmed_register_elsewhere") : "account.confirmed_email";
    msg = t(key, { email: res.email });
  } catch (e) { msg = errorMessage(e); bad = true; }
  if (document.body.dataset.overlay !== "confirm") return;
  body = dialog("confirm", t("account.confirm_title"));
  body.append(h("p", { class: bad ? "warn" : "good", role: "status", id: "confirm-result", text: msg }));
  if (!bad && !here) {
    const b = button(t("account.login"), () => openAccount(), "primary");
    b.id = "btn-confirm-login";
    body.append(h("div", { class: "dialog-buttons" }, b));
  }
}

// ---- profile ------------------------------------------------------------------------------

/** A small SVG line chart of rating points (accessible: a title and a text summary). */
export function ratingChart(points) {
  const NS = "http://www.w3.org/2000/svg";
  const svg = document.createElementNS(NS, "svg");
  const w = 240, hgt = 70, pad = 6;
  svg.setAttribute("viewBox", `0 0 ${w} ${hgt}`);
  svg.setAttribute("class", "rating-chart");
  svg.setAttribute("role", "img");
  const values = points.map((p) => p.rating);
  const label = values.length ? t("account.chart_label", { n: values.length, first: values[0], last: values[values.length - 1] }) : t("account.chart_empty");
  svg.setAttribute("aria-label", label);
  const title = document.createElementNS(NS, "title");
  title.textContent = label;
  svg.append(title);
  if (!values.length) return svg;
  const lo = Math.min(...values) - 5, hi = Math.max(...values) + 5;
  const x = (i) => pad + (values.length === 1 ? (w - 2 * pad) / 2 : (i * (w - 2 * pad)) / (values.length - 1));
  const y = (v) => hgt - pad - ((v - lo) * (hgt - 2 * pad)) / (hi - lo);
  const line = document.createElementNS(NS, "polyline");
  line.setAttribute("points", values.map((v, i) => `${x(i).toFixed(1)},${y(v).toFixed(1)}`).join(" "));
  line.setAttribute("fill", "none");
  line.setAttribute("class", "rating-line");
  svg.append(line);
  values.forEach((v, i) => {
    const dot = document.createElementNS(NS, "circle");
    dot.setAttribute("cx", x(i).toFixed(1));
    dot.setAttribute("cy", y(v).toFixed(1));
    dot.setAttribute("r", "2.5");
    dot.setAttribute("class", "rating-dot");
    svg.append(dot);
  });
  return svg;
}


export async function openProfile(playerId = null) {
  document.body.dataset.overlay = "profile";
  let body = dialog("profile", t("account.profile"));
  body.append(h("p", { class: "muted", text: t("common.loading") }));
  let p;
  try { p = await api("GET", playerId ? `/api/players/${encodeURIComponent(playerId)}` : "/api/profile"); }
  catch (e) { body = dialog("profile", t("account.profile")); body.append(h("p", { class: "warn", text: errorMessage(e) })); return; }
  if (document.body.dataset.overlay !== "profile") return;
  body = dialog("profile", t("account.profile"));
  body.append(h("h3", { class: "profile-name", id: "profile-name", text: personName(p.name) }));
  if (playerId && p.id !== (S.account && S.account.id)) {
    const report = button(t("report.this_player"), async () => {
      const m = await import("./report.js");
      m.openReport({ player: { id: p.id, name: personName(p.name) } });
    }, "ghost small");
    report.id = "btn-report-player";
    body.append(h("div", { class: "dialog-buttons" }, report));
  }
  const grid = h("div", { class: "profile-ratings" });
  for (const kind of RATING_KINDS) {
    const r = p.ratings[kind];
    grid.append(h("section", { class: "profile-rating", "data-kind": kind },
      h("h4", { text: ratingKindName(kind) }),
      h("p", {}, h("strong", { class: "rating-value", text: String(r.rating) }), " ", h("span", { class: "muted", text: t("account.rated_matches", { n: r.played }) })),
      ratingChart(r.history)));
  }
  body.append(grid);
  for (const scope of ["online", "offline"]) {
    const s = p.stats[scope];
    body.append(h("h4", { text: t(`stats.${scope}`) }));
    const dl = h("dl", { class: "stats", "data-scope": scope });
    for (const key of ["played", "won", "best_hand", "canastas", "streak", "best_streak"]) {
      dl.append(h("div", { class: "stat", "data-stat": key }, h("dt", { text: t(`stats.${key}`) }), h("dd", { text: s[key] == null ? "—" : String(s[key]) })));
    }
    body.append(dl);
  }
  body.append(h("h4", { text: t("account.recent") }));
  if (!p.matches.length) body.append(h("p", { class: "muted", text: t("account.no_matches") }));
  const list = h("ul", { class: "recent-matches" });
  for (const m of p.matches) {
    const text = t(m.won ? "account.match_won" : "account.match_lost", { score: m.score, against: m.against });
    const when = new Date(m.at).toLocaleDateString(language());
    const a = h("a", { href: `#replay=${encodeURIComponent(m.table)}`, onclick: () => closeOverlay() }, text);
    list.append(h("li", { "data-table": m.table }, a, " ", h("span", { class: "muted", text: `${ratingKindName(m.kind)} · ${when}${m.rating != null ? ` · ${m.rating}` : ""}` })));
  }
  body.append(list);
}

export async function openLeaderboard(kind = "classic") {
  document.body.dataset.overlay = "leaderboard";
  let body = dialog("leaderboard", t("account.leaderboard"));
  const tabs = () => {
    const row = h("div", { class: "dialog-buttons lb-tabs", role: "group", "aria-label": t("account.leaderboard") });
    for (const k of RATING_KINDS) {
      const b = button(ratingKindName(k), () => openLeaderboard(k), k === kind ? "primary small" : "ghost small");
      b.setAttribute("aria-pressed", String(k === kind));
      row.append(b);
    }
    return row;
  };
  body.append(tabs(), h("p", { class: "muted", text: t("common.loading") }));
  let data;
  try { data = await api("GET", `/api/leaderboard?kind=${encodeURIComponent(kind)}`); }
  catch (e) { body.append(h("p", { class: "warn", text: errorMessage(e) })); return; }
  if (document.body.dataset.overlay !== "leaderboard") return;
  body = dialog("leaderboard", t("account.leaderboard"));
  body.append(tabs());
  if (!data.top.length) body.append(h("p", { class: "muted", text: t("account.board_empty") }));
  else {
    const table = h("table", { class: "leaderboard" },
      h("thead", {}, h("tr", {}, h("th", { scope: "col", text: "#" }), h("th", { scope: "col", text: t("account.player") }),
        h("th", { scope: "col", text: t("account.rating") }), h("th", { scope: "col", text: t("stats.played") }))));
    const tb = h("tbody");
    for (const r of data.top) {
      const name = h("button", { type: "button", class: "linkish", onclick: () => openProfile(r.id) }, personName(r.name));
      tb.append(h("tr", { class: r.you ? "you" : null }, h("td", { text: String(r.place) }), h("td", {}, name), h("td", { text: String(r.rating) }), h("td", { text: String(r.played) })));
    }
    table.append(tb);
    body.append(table);
  }
  body.append(h("p", { class: "lb-you", id: "lb-you", text: data.you ? t("account.your_place", { place: data.you.place, rating: data.you.rating }) : t("account.unrated") }));
}
