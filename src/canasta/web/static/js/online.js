// Online play: the lobby screen (quick match, private rooms, live matches) and the online
// parts of a table (names, presence, the move timer, auto-play, quick chat). The server
// decides everything: this module draws what the lobby and table sockets send.
import { S, savePrefs, forgetTable } from "./store.js";
import { t, personName, nameDraft, RATING_KINDS, ratingKindName } from "./i18n.js";
import { api, Socket } from "./net.js";
import { button, dialog, closeOverlay } from "./overlays.js";
import { h } from "./dom.js";


export const CHAT_PHRASES = ["hello", "good_luck", "nice_canasta", "thanks", "oops", "well_played", "hurry", "gg"];
const QUICK = [["classic", "online.classic"], ["two-player", "online.two_player"]];
// The games and targets a room may have: the server's list (GET /api/presets).
const roomPresets = () => Object.keys((S.presets && S.presets.presets) || { classic: {} });
const roomTargets = () => (S.presets && S.presets.targets) || [5000];
/** The game and target last chosen (kept in the preferences), else the classic game to 5000. */
const remembered = (preset, target) => [preset || "classic", target || 5000];

// The lobby as the server last described it.
export const L = {
  sock: null,
  status: "closed",
  queue: {},
  mine: null,
  room: null,
  live: [],
  current: null,
  offset: 0,          // server clock minus ours (ms)
  pendingCode: null,  // a room code from a link, joined once the lobby answers
  moving: null,       // the host's seat picked to move
  nameOpen: false,
  drafts: {},         // text being typed, by field id (every lobby message redraws)
  ratings: null,      // the reader's ratings by kind ({rating, played}), from their profile
};


let ctl = null;
let ticker = null;

function redraw() { if (S.screen === "online" && ctl) ctl.redraw(); }

/** Open the lobby socket (once); ``code`` joins that private room when it is connected. */
export function openLobby(controller, code = null) {
  ctl = controller;
  if (code) L.pendingCode = code.toUpperCase();
  loadRatings();
  if (L.sock) {
    if (L.pendingCode && L.status === "open") joinPending();
    return;
  }
  L.sock = new Socket("/ws/lobby", onLobby, (status) => {
    L.status = status;
    redraw();
  });
  ensureTicker();
}

/** The reader's ratings (their profile's), fetched each time the lobby opens: a match just
 * played may have changed them. Without them the lobby simply does not show them. */
async function loadRatings() {
  try {
    const p = await api("GET", "/api/profile");
    L.ratings = p.ratings;
  } catch {
    return;
  }
  redraw();
}

function ensureTicker() { if (!ticker) ticker = setInterval(tick, 1000); }

export function closeLobby() {
  if (L.sock) L.sock.close();
  L.sock = null;
  L.status = "closed";
}

function send(msg) { if (L.sock) L.sock.send(msg); }
export function reconnectLobby() { if (L.sock) L.sock.reconnect(); }

function joinPending() {
  const code = L.pendingCode;
  L.pendingCode = null;
  if (code && !(L.room && L.room.code === code)) send({ type: "room_join", code });
}

function onLobby(msg) {
  if (msg.now_ms) L.offset = msg.now_ms - Date.now();
  switch (msg.type) {
    case "lobby":
      L.queue = msg.queue || {};
      L.mine = msg.mine;
      L.room = msg.room;
      L.live = msg.live || [];
      L.current = msg.current;
      joinPending();
      break;
    case "queued": L.mine = msg.mine; break;
    case "queue": L.queue = msg.queue || {}; break;
    case "live": L.live = msg.live || []; break;
    case "room":
      // a room opened or changed: an earlier refusal ("no open room has this code") is stale
      if (msg.room && !L.room) ctl.clearBadToast();
      L.room = msg.room;
      if (L.room) delete L.drafts["room-code"];
      L.moving = null;
      if (msg.closed && msg.closed !== "left") ctl.toast(t(`online.room_closed.${msg.closed}`));
      break;
    case "match":
      ctl.clearBadToast();
      L.mine = null;
      L.room = null;
      L.current = msg.table;
      ctl.openTable(msg.table);
      return;
    case "error":
      if (msg.code === "in_match" && msg.details && msg.details.table) L.current = msg.details.table;
      ctl.toast(t(`online.errors.${msg.code}`) !== `online.errors.${msg.code}` ? t(`online.errors.${msg.code}`) : msg.message, "bad");
      break;
    default: return;
  }
  redraw();
}

/** Once a second: the clocks shown (queue time, move timers) move on without a redraw. */
function tick() {
  const now = Date.now();
  for (const el of document.querySelectorAll("[data-since]")) {
    el.textContent = clock((now + L.offset - Number(el.dataset.since)) / 1000);
  }
  for (const el of document.querySelectorAll("[data-deadline]")) drawCountdown(el, now);
}

function clock(seconds) {
  const s = Math.max(0, Math.floor(seconds));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
}

// ---- the lobby screen ---------------------------------------------------------------------

export function renderOnline(root, controller) {
  ctl = controller;
  root.innerHTML = "";
  const head = h("div", "page-head");
  head.append(h("h1", null, t("online.title")));
  const back = button(t("online.back_to_menu"), () => { closeLobby(); ctl.show("start"); }, "ghost small");
  back.id = "btn-online-back";
  head.append(back);
  root.append(head);
  if (L.status !== "open") root.append(h("p", "muted", t("online.connecting")));
  root.append(namePanel());
  if (L.current) {
    const cur = h("section", "card-panel current-match");
    cur.append(h("p", null, t("online.in_match")));
    const b = button(t("online.return"), () => ctl.openTable(L.current), "primary");
    b.id = "btn-return-match";
    cur.append(b);
    root.append(cur);
  }
  if (L.room) root.append(roomPanel());
  else if (L.mine) root.append(waitingPanel());
  else {
    root.append(quickPanel());
    root.append(privatePanel());
  }
  root.append(livePanel());
}

/** A lobby panel: a card section with its id and, when given, its heading and a line about it. */
function panel(kind, id, title = null, text = null) {
  const p = h("section", { class: `card-panel ${kind}`, id });
  if (title) p.append(h("h2", null, title));
  if (text) p.append(h("p", "muted", text));
  return p;
}

function namePanel() {
  const p = panel("you", "online-you");
  const name = (S.account && S.account.name) || "";
  if (!L.nameOpen) {
    const line = h("p", "you-line");
    line.append(h("span", "muted", t("online.playing_as") + " "), h("b", "you-name", personName(name)));
    const edit = button(t("online.change_name"), () => { L.nameOpen = true; redraw(); setTimeout(() => { const i = document.getElementById("name-input"); if (i) i.focus(); }); }, "ghost small");
    edit.id = "btn-edit-name";
    line.append(" ", edit);
    p.append(line);
    if (L.ratings) p.append(ratingsLine());
    return p;
  }
  const form = h("form", "name-form");
  const [label, input] = labelled("name-input", t("online.your_name"), { maxlength: 20, ...nameDraft(name), autocomplete: "nickname" });
  const save = h("button", "btn primary small", t("common.save"));
  save.type = "submit";
  save.id = "btn-save-name";
  const cancel = button(t("common.cancel"), () => { L.nameOpen = false; delete L.drafts["name-input"]; redraw(); }, "ghost small");
  form.append(label, input, save, cancel);
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    try {
      const res = await api("PATCH", "/api/account", { name: input.value });
      S.account = res.account;
      L.nameOpen = false;
      delete L.drafts["name-input"];
      ctl.toast(t("online.name_saved"));
    } catch (err) {
      ctl.toast(t(`online.errors.${err.code}`) !== `online.errors.${err.code}` ? t(`online.errors.${err.code}`) : err.message, "bad");
    }
    redraw();
  });
  p.append(form);
  return p;
}

/** "Your ratings: Classic (4 players) 1049 · Two players 1000", and the way to the profile. */
function ratingsLine() {
  const line = h("p", { class: "you-ratings", id: "lobby-ratings" });
  line.append(h("span", "muted", t("online.your_ratings") + " "));
  RATING_KINDS.forEach((kind, i) => {
    const r = L.ratings[kind];
    if (!r) return;
    if (i) line.append(h("span", { class: "muted", "aria-hidden": "true" }, " · "));
    const item = h("span", "you-rating");
    item.dataset.kind = kind;
    item.append(h("span", null, ratingKindName(kind) + " "), h("b", null, String(r.rating)));
    line.append(item);
  });
  const profile = button(t("account.profile"), async () => { const m = await import("./account.js"); m.openProfile(); }, "ghost small");
  profile.id = "btn-lobby-profile";
  line.append(" ", profile);
  return line;
}

function choiceGroup(id, options, value, onChoose, label) {
  const g = h("div", "choices");
  g.id = id;
  g.setAttribute("role", "radiogroup");
  g.setAttribute("aria-label", label);
  for (const [key, text] of options) {
    const on = key === value;
    const b = h("button", "choice" + (on ? " on" : ""), text);
    b.type = "button";
    b.dataset.value = String(key);
    b.setAttribute("role", "radio");
    b.setAttribute("aria-checked", on ? "true" : "false");
    b.tabIndex = on ? 0 : -1;
    b.addEventListener("click", () => onChoose(key));
    b.addEventListener("keydown", (e) => {
      const step = { ArrowRight: 1, ArrowDown: 1, ArrowLeft: -1, ArrowUp: -1 }[e.key];
      if (!step) return;
      e.preventDefault();
      const keys = options.map((o) => o[0]);
      const next = keys[(keys.indexOf(key) + step + keys.length) % keys.length];
      onChoose(next);
      const el = document.querySelector(`#${id} [data-value="${next}"]`);
      if (el) el.focus();
    });
    g.append(b);
  }
  return g;
}

function quickPanel() {
  const p = panel("quick", "quick-match", t("online.quick_title"), t("online.quick_text"));
  const [preset, target] = remembered(S.prefs.onlinePreset, S.prefs.onlineTarget);
  const setPref = (k, v) => { S.prefs[k] = v; savePrefs(); redraw(); };
  p.append(choiceGroup("quick-preset", QUICK.map(([k, key]) => [k, t(key)]), preset, (v) => setPref("onlinePreset", v), t("online.game")));
  p.append(choiceGroup("quick-target", [[5000, t("online.target_5000")], [2500, t("online.target_2500")]], target, (v) => setPref("onlineTarget", v), t("online.target")));
  const waiting = L.queue[`${preset}:${target}`] || 0;
  p.append(h("p", "queue-count", t("online.waiting_now", { n: waiting })));
  const go = button(t("online.find_match"), () => send({ type: "queue_join", preset, target }), "primary big");
  go.id = "btn-find-match";
  go.disabled = L.status !== "open";
  p.append(go);
  return p;
}

function waitingPanel() {
  const p = panel("waiting", "queue-waiting", t("online.looking"));
  p.setAttribute("aria-live", "polite");
  const m = L.mine;
  const game = m.preset === "classic" ? t("online.classic") : t("online.two_player");
  p.append(h("p", null, `${game} · ${t(`online.target_${m.target}`)}`));
  const need = m.preset === "classic" ? 4 : 2;
  const count = L.queue[`${m.preset}:${m.target}`] || 1;
  const c = h("p", "queue-count");
  c.id = "queue-count";
  c.textContent = t("online.in_queue", { n: count, need });
  p.append(c);
  const since = h("span", "elapsed", clock((Date.now() + L.offset - m.joined_ms) / 1000));
  since.id = "queue-elapsed";
  since.dataset.since = m.joined_ms;
  const line = h("p", "muted");
  line.append(t("online.waited") + " ", since);
  p.append(line);
  p.append(h("div", "spinner"));
  const cancel = button(t("online.cancel_search"), () => send({ type: "queue_leave" }), "danger");
  cancel.id = "btn-cancel-search";
  p.append(cancel);
  return p;
}

function privatePanel() {
  const p = panel("private", "private-room", t("online.private_title"), t("online.private_text"));
  const [preset, target] = remembered(S.prefs.roomPreset, S.prefs.roomTarget);
  const row = h("div", "room-create");
  const presets = roomPresets().map((name) => [name, t(`presets.${name}`)]);
  const ps = selectEl("room-preset", t("online.game"), presets, preset, (v) => { S.prefs.roomPreset = v; savePrefs(); });
  const targets = roomTargets().map((value) => [value, targetLabel(value)]);
  const ts = selectEl("room-target", t("online.target"), targets, target, (v) => { S.prefs.roomTarget = v === "one_hand" ? "one_hand" : Number(v); savePrefs(); });
  // a house rule of R2 (the server's core checks it): "Partner, may I go out?"
  const ask = h("label", "check");
  const askBox = h("input");
  askBox.type = "checkbox";
  askBox.id = "room-ask";
  askBox.checked = !!S.prefs.roomAsk;
  askBox.addEventListener("change", () => { S.prefs.roomAsk = askBox.checked; savePrefs(); });
  ask.append(askBox, " ", t("online.rule_ask"));
  const create = button(t("online.create_room"), () => {
    const tv = ts.value === "one_hand" ? "one_hand" : Number(ts.value);
    const msg = { type: "room_create", preset: ps.value, target: tv };
    if (askBox.checked) msg.rules = { ask_partner: true };
    send(msg);
  }, "primary");
  create.id = "btn-create-room";
  row.append(ps, ts, ask, create);
  p.append(row);
  const join = h("form", "room-join");
  const [label, input] = labelled("room-code", t("online.room_code"), { maxlength: 6, autocomplete: "off", autocapitalize: "characters", placeholder: "ABC234" });
  const jb = h("button", "btn", t("online.join"));
  jb.type = "submit";
  jb.id = "btn-join-room";
  join.append(label, input, jb);
  join.addEventListener("submit", (e) => { e.preventDefault(); if (input.value.trim()) send({ type: "room_join", code: input.value.trim() }); });
  p.append(join);
  return p;
}

/** A text input and its label; ``attrs`` are the input's. Its text and caret outlive redraws. */
function labelled(id, text, attrs) {
  const input = h("input", { id, ...attrs });
  const d = L.drafts[id];
  if (d) { input.value = d[0]; input.setSelectionRange(d[1], d[2]); }
  const keep = () => { L.drafts[id] = [input.value, input.selectionStart, input.selectionEnd]; };
  for (const e of ["input", "keyup", "select"]) input.addEventListener(e, keep);
  return [h("label", { for: id, text }), input];
}

/** A labelled select of ``options`` ([value, text] pairs), ``chosen`` selected; ``onChange(value)``. */
function selectEl(id, label, options, chosen, onChange) {
  const s = h("select", { id, "aria-label": label });
  for (const [value, text] of options) {
    const o = h("option", null, text);
    o.value = String(value);
    o.selected = String(value) === String(chosen);
    s.append(o);
  }
  s.addEventListener("change", () => onChange(s.value));
  return s;
}

function targetLabel(value) {
  return value === "one_hand" ? t("settings.target_one_hand") : t("settings.target_points", { n: value });
}

function roomLink(code) { return `${location.origin}/#room=${code}`; }

function roomPanel() {
  const r = L.room;
  const p = panel("room", "room", t("online.room_title"));
  const codeLine = h("p", "room-code-line");
  const code = h("b", "room-code", r.code);
  code.id = "room-code-value";
  codeLine.append(t("online.room_code") + " ", code, " ");
  const copy = button(t("online.copy_link"), async () => {
    try { await navigator.clipboard.writeText(roomLink(r.code)); ctl.toast(t("online.link_copied")); } catch { ctl.toast(roomLink(r.code)); }
  }, "ghost small");
  copy.id = "btn-copy-link";
  codeLine.append(copy);
  p.append(codeLine);
  const link = h("input", "room-link");
  link.readOnly = true;
  link.value = roomLink(r.code);
  link.id = "room-link";
  link.setAttribute("aria-label", t("online.room_link"));
  p.append(link);
  const rules = r.rules && r.rules.ask_partner ? ` · ${t("online.rule_ask")}` : "";
  p.append(h("p", "muted", `${t(`presets.${r.preset}`)} · ${targetLabel(r.target)}${rules}`));
  const seats = h("ol", "room-seats" + (r.players === 4 ? " teams" : ""));
  seats.id = "room-seats";
  r.seats.forEach((s, i) => seats.append(roomSeat(r, s, i)));
  p.append(seats);
  if (r.players === 4) p.append(h("p", "muted small", t("online.partners_hint")));
  const row = h("div", "dialog-buttons");
  if (r.host) {
    const start = button(t("online.start"), () => send({ type: "room_start" }), "primary");
    start.id = "btn-room-start";
    start.disabled = !r.full;
    row.append(start);
  } else row.append(h("p", "muted", t("online.waiting_host")));
  const leave = button(t("online.leave_room"), () => send({ type: "room_leave" }), "ghost");
  leave.id = "btn-room-leave";
  row.append(leave);
  p.append(row);
  return p;
}

function roomSeat(r, s, i) {
  const li = h("li", "room-seat");
  li.dataset.seat = i;
  if (r.players === 4) li.dataset.team = String(i % 2);
  const who = h("span", "who");
  if (s == null) who.append(h("span", "muted", t("online.empty_seat")));
  else if (s.kind === "computer") who.append(t("online.computer_level", { level: t(`difficulty.${s.level}`) }));
  else {
    who.append(h("b", null, personName(s.name)));
    if (s.host) who.append(" ", h("small", "tag", t("online.host")));
    if (s.you) who.append(" ", h("small", "tag", t("online.you")));
  }
  li.append(h("span", "seat-no", t("online.seat_n", { n: i + 1 })), who);
  if (!r.host) return li;
  const tools = h("span", "tools");
  if (L.moving == null) {
    const mv = button(t("online.move"), () => { L.moving = i; redraw(); }, "ghost small");
    mv.dataset.move = i;
    tools.append(mv);
  } else if (L.moving === i) {
    const cancel = button(t("common.cancel"), () => { L.moving = null; redraw(); }, "ghost small");
    cancel.setAttribute("aria-pressed", "true");
    tools.append(cancel);
  } else {
    const here = button(t("online.swap_here"), () => { send({ type: "room_move", from: L.moving, to: i }); L.moving = null; }, "small");
    here.dataset.swap = i;
    tools.append(here);
  }
  if (s == null) {
    const level = h("select");
    level.setAttribute("aria-label", t("online.computer_level_label"));
    level.dataset.level = i;
    for (const lv of ["beginner", "normal", "expert"]) {
      const o = h("option", null, t(`difficulty.${lv}`));
      o.value = lv;
      o.selected = lv === "normal";
      level.append(o);
    }
    const add = button(t("online.add_computer"), () => send({ type: "room_bot", seat: i, level: level.value }), "small");
    add.dataset.bot = i;
    tools.append(level, add);
  } else if (!s.host) {
    const rm = button(t("online.remove"), () => send({ type: "room_clear", seat: i }), "ghost small");
    rm.dataset.clear = i;
    tools.append(rm);
  }
  li.append(tools);
  return li;
}

function livePanel() {
  const p = panel("live", "live-matches", t("online.live_title"));
  if (!L.live.length) {
    p.append(h("p", "muted", L.status === "open" ? t("online.no_live") : t("common.loading")));
    return p;
  }
  const ul = h("ul", "live-list");
  for (const m of L.live) {
    const li = h("li", "live-match");
    li.dataset.table = m.table;
    const teams = [...new Set(m.teams)];
    const names = teams.map((team) => m.names.filter((_, i) => m.teams[i] === team).map(personName).join(" & "));
    const vs = h("span", "vs");
    names.forEach((n, k) => {
      if (k) vs.append(h("span", "muted", " vs "));
      vs.append(h("b", null, n), " ", h("span", "score", String(m.scores[teams[k]])));
    });
    li.append(vs);
    const meta = h("small", "muted", [t("start.hand_n", { n: m.hand_number }), t("online.spectators", { n: m.spectators })].join(" · "));
    li.append(meta);
    const watch = button(t("online.watch"), () => ctl.openTable(m.table), "small");
    watch.dataset.watch = m.table;
    li.append(watch);
    ul.append(li);
  }
  p.append(ul);
  return p;
}

// ---- at an online table -------------------------------------------------------------------

export function isOnline() { return !!(S.table && S.table.mode === "online" && S.table.online); }

/** Server time minus ours, from the table's last state. */
let tableOffset = 0;
export function noteTableClock(msg) {
  const on = msg.table && msg.table.online;
  if (on && on.now_ms) { tableOffset = on.now_ms - Date.now(); ensureTicker(); }
}

function drawCountdown(el, now = Date.now()) {
  const left = (Number(el.dataset.deadline) - (now + tableOffset)) / 1000;
  const total = Number(el.dataset.total) || 40;
  const secs = Math.max(0, Math.ceil(left));
  const text = el.querySelector(".secs") || el;
  text.textContent = String(secs);
  el.style.setProperty("--left", String(Math.max(0, Math.min(1, left / total))));
  el.classList.toggle("low", secs <= 10);
}

/** The countdown of the seat to act (everyone sees it), or null. */
export function countdown(seat) {
  if (!isOnline()) return null;
  const on = S.table.online;
  const v = S.view;
  if (!on.deadline_ms || !v || v.phase === "over" || v.turn !== seat) return null;
  const el = h("span", "countdown");
  el.dataset.deadline = on.deadline_ms;
  el.dataset.total = on.move_seconds;
  el.setAttribute("role", "timer");
  el.setAttribute("aria-label", t("online.time_left"));
  el.append(h("span", "secs"));
  drawCountdown(el);
  return el;
}

/** Connection and auto-play marks of a seat. */
export function seatMarks(seat) {
  if (!isOnline()) return [];
  const on = S.table.online;
  const out = [];
  const info = S.table.seats[seat] || {};
  if (info.kind === "human" || on.auto[seat] === "left") {
    const dot = h("span", "presence " + (on.connected[seat] ? "on" : "off"));
    dot.setAttribute("role", "img");
    dot.setAttribute("aria-label", on.connected[seat] ? t("online.connected") : t("online.disconnected"));
    dot.title = dot.getAttribute("aria-label");
    if (on.auto[seat] !== "left") out.push(dot);
    // in words too, until the seat goes "away" (its grace period) or times out
    if (!on.connected[seat] && !on.auto[seat]) {
      const tag = h("small", "tag offline", t("online.offline"));
      tag.setAttribute("aria-hidden", "true");  // the dot's label says it to screen readers
      out.push(tag);
    }
  }
  // once the match is over nobody plays for anyone: only a seat that left still says so
  const over = S.table.status === "match_over";
  if (on.auto[seat] && (!over || on.auto[seat] === "left")) out.push(h("small", "tag auto", t(`online.auto.${on.auto[seat]}`)));
  const bubble = chatBubble(seat);
  if (bubble) out.push(bubble);
  return out;
}

/** The seat's online name ("You" for the reader's own seat). */
export function onlineName(seat) {
  const info = (S.table && S.table.seats && S.table.seats[seat]) || {};
  if (S.table.seat === seat) return t("seat.you");
  if (info.kind === "computer" && S.table.online.auto[seat] !== "left") return t("online.computer_n", { n: seat + 1 });
  return personName(info.name) || t("seat.player", { n: seat + 1 });
}

// quick chat: the bubbles shown now, and the seats muted at this table
const bubbles = new Map();   // seat -> {phrase, until}
const muted = new Set();     // `${table}:${seat}`

export function onChat(msg) {
  if (!S.table || muted.has(`${S.table.id}:${msg.seat}`)) return null;
  bubbles.set(msg.seat, { phrase: msg.phrase, until: Date.now() + 5000 });
  setTimeout(() => { if (ctl) ctl.redraw(); }, 5100);
  return `${onlineName(msg.seat)}: ${t(`online.chat.${msg.phrase}`)}`;
}

function chatBubble(seat) {
  const b = bubbles.get(seat);
  if (!b || b.until < Date.now()) return null;
  const el = h("span", "bubble", t(`online.chat.${b.phrase}`));
  el.dataset.phrase = b.phrase;
  return el;
}

export function isMuted(seat) { return !!S.table && muted.has(`${S.table.id}:${seat}`); }
export function toggleMute(seat) {
  const key = `${S.table.id}:${seat}`;
  if (muted.has(key)) muted.delete(key); else { muted.add(key); bubbles.delete(seat); }
}

/** The abandoned-match banner, or my auto-play banner, or null. */
export function autoBanner(send, leave) {
  if (!isOnline()) return null;
  if (S.table.status === "abandoned") {
    const el = h("div", "auto-banner abandoned");
    el.id = "abandoned-banner";
    el.setAttribute("role", "alert");
    el.append(h("span", null, t("online.abandoned")));
    const b = button(t("online.back_to_lobby"), () => leave(), "primary");
    b.id = "btn-abandoned-lobby";
    el.append(b);
    return el;
  }
  const me = S.table.seat;
  if (me == null || S.table.status === "match_over") return null;
  const reason = S.table.online.auto[me];
  if (!reason || reason === "left") return null;
  const el = h("div", "auto-banner");
  el.id = "auto-banner";
  el.setAttribute("role", "alert");
  el.append(h("span", null, t(`online.auto_on.${reason}`)));
  const b = button(t("online.im_back"), () => send({ type: "back" }), "primary");
  b.id = "btn-back";
  el.append(b);
  return el;
}

/** A line under the status for spectators (and the spectator count for everyone). */
export function watchLine() {
  if (!isOnline()) return null;
  const n = S.table.online.spectators;
  if (S.table.seat == null) return h("span", "tag watching", t("online.watching") + (n > 1 ? ` · ${t("online.spectators", { n })}` : ""));
  return n ? h("span", "tag", t("online.spectators", { n })) : null;
}

// ---- online dialogs -----------------------------------------------------------------------

/** Quick chat: the phrases, and muting the other players of this table. */
export function chatOverlay(controller) {
  const body = dialog("chat", t("online.chat_title"));
  const list = h("div", "phrases");
  for (const phrase of CHAT_PHRASES) {
    const b = button(t(`online.chat.${phrase}`), () => {
      controller.send({ type: "chat", phrase });
      closeOverlay();
      controller.redraw();
    }, "phrase");
    b.dataset.phrase = phrase;
    list.append(b);
  }
  body.append(list);
  const others = (S.table.seats || []).map((s, i) => i).filter((i) => i !== S.table.seat && S.table.seats[i].kind === "human");
  if (others.length) {
    body.append(h("h3", null, t("online.mute_title")));
    for (const seat of others) {
      const label = h("label", "check");
      const box = h("input");
      box.type = "checkbox";
      box.checked = isMuted(seat);
      box.dataset.mute = seat;
      box.addEventListener("change", () => { toggleMute(seat); });
      label.append(box, " ", t("online.mute", { name: onlineName(seat) }));
      body.append(label);
    }
  }
}

/** Leaving an online match: a computer takes the seat for the rest of it. */
export function leaveOverlay(controller) {
  const body = dialog("leave", t("online.leave_title"));
  body.append(h("p", null, t("online.leave_text")));
  const row = h("div", "dialog-buttons");
  const yes = button(t("online.leave_confirm"), () => {
    controller.send({ type: "leave" });
    forgetTable(S.tableId);  // the start page no longer offers it as the reader's to continue
    closeOverlay();
    setTimeout(() => controller.leaveTable(), 300);
  }, "danger");
  yes.id = "btn-leave-confirm";
  row.append(yes, button(t("common.cancel"), () => { closeOverlay(); controller.redraw(); }));
  body.append(row);
}
