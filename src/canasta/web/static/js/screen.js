// What is on the screen: which page shows, drawing it again, the table's own dialogs, toasts,
// and where focus goes once the player's own action comes back. The controller (app.js) is
// bound once at start-up; the renderers receive it and its actions.
import { S } from "./store.js";
import { t, translateDom } from "./i18n.js";
import { renderTable, mySeat, watching } from "./table.js";
import { renderStart, renderSettingsPanel, openStats, openHelp, renderRules } from "./panels.js";
import { renderReplay, replayShown } from "./replay-links.js";
import { handOverlay, handoffOverlay, meldOverlay, closeOverlay, overlayKind, takeReturnFocus } from "./overlays.js";
import { focusKey, focusFirst } from "./focus.js";
import { renderOnline, chatOverlay, leaveOverlay } from "./online.js";
import { h, $ } from "./dom.js";
import { syncAddress, bindReplayRef } from "./nav.js";

bindReplayRef(replayShown);

// The tutorial's module is fetched when the tutorial first opens (not with the first page).
let tutorial = null;
function drawTutorial(root) {
  if (tutorial) { tutorial.renderTutorial(root, ctl); return; }
  if (!root.childElementCount) root.append(h("p", "muted", t("common.loading")));
  import("./tutorial.js").then((m) => { tutorial = m; if (S.screen === "tutorial") redraw(); });
}

let ctl = null;

/** Bind the controller the pages and dialogs are drawn with (once, at start-up). */
export function bindScreen(controller) { ctl = controller; }

/** Open one of the dialogs ("settings", "help", "stats", "chat", …) over the page. */
export function openOverlay(kind) { document.body.dataset.overlay = kind; redraw(); }

/** The table's own dialogs for the current state: end of hand or match, the handoff. */
export function tableOverlays() {
  const v = S.view;
  if (!v || !S.table) return;
  // (someone watching another's pass-and-play table hands nothing over)
  const handoff = S.table.handoff != null && !watching();
  if (handoff) closeOverlay("hand");
  if (handoff) openOverlay("handoff");
  else if (v.phase === "over" || (S.table.match && S.table.match.over)) {
    if (overlayKind() !== "settings" && !S.peek) openOverlay(S.table.match && S.table.match.over ? "match" : "hand");
  } else if (["hand", "match", "handoff"].includes(overlayKind())) closeOverlay();
}

export function show(screen) {
  const back = screen === "table" && S.screen !== "table";
  const changed = S.screen !== screen;
  S.screen = screen;
  for (const id of ["start", "table", "rules", "tutorial", "online", "replay"]) $(`#${id}`).hidden = id !== screen;
  document.body.dataset.screen = screen;
  if (back) tableOverlays();
  redraw();
  if (changed) window.scrollTo(0, 0);  // a new screen starts at its top, not where the last one was
  // A new screen: focus its heading unless something on it already took focus.
  if (!overlayKind() && (document.activeElement === document.body || !document.activeElement)) {
    const head = document.querySelector(`#${screen} h1`);
    if (head && !pendingFocus) { head.tabIndex = -1; head.focus({ preventScroll: true }); }
  }
}

// ---- focus after the player's own action ---------------------------------------------------

// Where focus should go once the table shows the result of the player's own action
// ("hand": the first card; "fresh": the card just drawn; "next": the next free card).
let pendingFocus = null;
let lastStaged = [];  // hand indexes of the group staged last: focus moves on past them

/** Ask for focus to move to ``want`` once a state newer than version ``after`` is drawn
 * (``"now"``: at the next redraw). */
export function focusAfterAction(want, after = S.msg ? S.msg.version : -1) { pendingFocus = { want, after }; }

/** The action was refused, or overtaken: focus stays where it is. */
export function dropFocusRequest() { pendingFocus = null; }

/** The group just staged: focus moves on to the first free card after it. */
export function noteStaged(idx) { lastStaged = idx; focusAfterAction("next", "now"); }

function handTarget(want) {
  const free = [...document.querySelectorAll("#hand .card:not(.planned)")];
  if (want === "fresh") return document.querySelector("#hand .card.fresh") || free[0] || document.querySelector("#hand");
  if (want === "next" && lastStaged.length) {
    // the first free card after the last of the staged cards, in the order the hand is shown
    const all = [...document.querySelectorAll("#hand .card")];
    const at = Math.max(...all.map((el, k) => (lastStaged.includes(Number(el.dataset.i)) ? k : -1)));
    const after = all.slice(at + 1).find((el) => !el.classList.contains("planned"));
    return after || free[0] || document.querySelector("#btn-meld:not([disabled])") || document.querySelector("#hand");
  }
  return free[0] || document.querySelector("#hand");
}

// ---- drawing -------------------------------------------------------------------------------

/** On a phone's table (its bottom bar shown, no dialog open): the table's buttons and the top
 * of that bar, else null. */
function phoneButtons() {
  if (S.screen !== "table" || overlayKind()) return null;
  const bar = document.querySelector(".table-nav");
  const row = document.querySelector("#table .buttons");
  if (!bar || !row || !bar.getClientRects().length) return null;
  return { row: row.getBoundingClientRect(), barTop: bar.getBoundingClientRect().top };
}

/** Whether every table button is above a phone's bottom bar (its top on the screen). */
function buttonsInSight(p) {
  return p !== null && p.row.height > 0 && p.row.top >= 0 && p.row.bottom <= p.barTop + 1;
}

// On a phone the table's buttons in sight stay in sight when the table above them grows (a
// staged plan's count and the server's word on it arrive after the plan, a card's flight
// ends): the page scrolls by the growth. Whether they were in sight is known from the last
// scroll, redraw or growth, with the scroll position then: once the player scrolled since,
// the page follows the player, not the buttons. A desktop has no bottom bar: nothing moves.
let shownAt = null;  // scrollY when the buttons were last seen in sight, else null
function keepButtonsInSight() {
  const p = phoneButtons();
  if (p === null) return;
  if (shownAt === window.scrollY && !buttonsInSight(p) && p.row.top >= 0) {
    window.scrollBy(0, p.row.bottom - p.barTop + 4);
  }
  shownAt = buttonsInSight(phoneButtons()) ? window.scrollY : null;
}
window.addEventListener("scroll", () => {
  const p = phoneButtons();
  if (p !== null) shownAt = buttonsInSight(p) ? window.scrollY : null;
}, { passive: true });
if (typeof ResizeObserver === "function") {
  const watch = new ResizeObserver(() => keepButtonsInSight());
  const table = document.getElementById("table");
  if (table) watch.observe(table);
}

export function redraw() {
  const key = focusKey();
  redrawInner();
  syncAddress();
  keepButtonsInSight();
  if (overlayKind()) return;  // an open dialog keeps its own focus
  const back = takeReturnFocus();
  if (pendingFocus && (pendingFocus.after === "now" || (S.msg && S.msg.version > pendingFocus.after))) {
    const want = pendingFocus.want;
    pendingFocus = null;
    if (S.screen === "table" && focusFirst(handTarget(want))) {
      // a staged plan makes the table taller: keep Meld in sight, clear of a phone's bottom bar
      if (want === "next") { const row = document.querySelector("#table .buttons"); if (row) row.scrollIntoView({ block: "nearest" }); }
      return;
    }
  }
  if (back && focusFirst(back)) return;
  if (back !== null && S.screen === "table" && focusFirst(handTarget("hand"))) return;
  if (key) focusFirst(key);
}

function redrawInner() {
  document.body.classList.toggle("four-colour-all", !!S.prefs.fourColour);
  translateDom();
  document.title = t("app.title");
  renderScorebar();
  if (S.screen === "start") renderStart($("#start"), ctl);
  else if (S.screen === "table") renderTable($("#table"), ctl.actions);
  else if (S.screen === "rules") renderRules($("#rules"), ctl);
  else if (S.screen === "tutorial") drawTutorial($("#tutorial"));
  else if (S.screen === "online") renderOnline($("#online"), ctl);
  else if (S.screen === "replay") renderReplay($("#replay"), ctl);
  const peekBtn = $("#btn-peek-back");
  if (peekBtn) peekBtn.remove();
  if (S.peek && S.screen === "table" && S.view && (S.view.phase === "over" || (S.table && S.table.match && S.table.match.over)) && !overlayKind()) {
    // Looking at the final table: a button brings the scores back.
    // In the row of the table's buttons (not floating over them, where it covered Pause).
    const b = h("button", { type: "button", id: "btn-peek-back", class: "btn primary peek-back" }, t("result.back_to_scores"));
    b.addEventListener("click", (e) => { e.stopPropagation(); S.peek = false; redraw(); });
    const row = document.querySelector("#table .buttons");
    if (row) row.prepend(b); else document.body.append(b);
  } else if (!overlayKind() && S.screen === "table" && S.view && S.table) {
    // The end-of-hand and handoff screens come back after a panel opened over them closes.
    if (S.table.handoff != null && !watching()) document.body.dataset.overlay = "handoff";
    else if (S.table.match && S.table.match.over) document.body.dataset.overlay = "match";
    else if (S.view.phase === "over") document.body.dataset.overlay = "hand";
  }
  const kind = overlayKind();
  if (kind === "settings") renderSettingsPanel(ctl);
  else if (kind === "hand" || kind === "match") handOverlay(ctl);
  else if (kind === "handoff") handoffOverlay(ctl);
  else if (kind === "help") openHelp(ctl);
  else if (kind === "stats") openStats(ctl, false);
  else if (kind === "chat") chatOverlay(ctl);
  else if (kind === "leave") leaveOverlay(ctl);
  else if (kind === "meld") meldOverlay(ctl);
}

function renderScorebar() {
  const bar = $("#scorebar");
  bar.innerHTML = "";
  if (S.screen !== "table" || !S.view || !S.table) return;
  const v = S.view;
  const m = S.table.match || {};
  const scores = m.scores || v.scores;
  const teams = [...new Set(v.teams)];
  const myTeam = v.teams[mySeat()];
  for (const team of teams) {
    bar.append(h("span", "score" + (team === myTeam ? " own" : ""),
      h("span", "who", ctl.teamName(team)), " ", h("b", null, String(scores[team]))));
  }
  const target = m.target || v.settings.target;
  const n = m.hand_number || v.hand_number;
  bar.append(h("span", "meta", target === "one_hand" ? t("score.one_hand", { n }) : t("score.hand_target", { n, target })));
}

export function toast(text, kind = "") {
  const el = $("#toast");
  el.textContent = text;
  el.className = "toast show " + kind;
  keepClearOfActions(el);
  clearTimeout(toast.timer);
  toast.timer = setTimeout(() => { el.className = "toast"; }, 3200);
}

/** Take down a warning toast still showing (what it warned of has since gone right). */
export function clearBadToast() {
  const el = $("#toast");
  if (!el.classList.contains("bad")) return;
  clearTimeout(toast.timer);
  el.className = "toast";
}

/** A toast never covers the table's action buttons: it reads under the header (app.css), and
 * moves below or above the buttons where, scrolled, they would be under it. */
function keepClearOfActions(el) {
  el.style.top = "";
  const row = S.screen === "table" ? document.querySelector("#table .buttons") : null;
  if (!row) return;
  const b = row.getBoundingClientRect();
  const top = el.offsetTop;  // where it comes to rest (offsets ignore the sliding transform)
  const height = el.offsetHeight;
  if (top + height <= b.top || top >= b.bottom) return;
  if (b.bottom + 8 + height <= window.innerHeight) el.style.top = `${b.bottom + 8}px`;
  else if (b.top - 8 - height >= 0) el.style.top = `${b.top - 8 - height}px`;
}
