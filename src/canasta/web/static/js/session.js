// The table socket: connecting, requests and the replies that answer them (matched by the
// request id the server echoes), and each new state as it arrives.
import { S, rememberTable, forgetTable } from "./store.js";
import { t } from "./i18n.js";
import { TableSocket } from "./net.js";
import { play } from "./sound.js";
import { loadTableParts, mySeat, planAction, planGroups, goOutDiscardIdx, remapIndexes, errorText, moveSentence, seatName } from "./table.js";
import { closeOverlay, overlayKind } from "./overlays.js";
import { announce, clearAnnouncements } from "./focus.js";
import { closeLobby, onChat, noteTableClock } from "./online.js";
import { show, redraw, toast, tableOverlays, dropFocusRequest } from "./screen.js";

/** Computer move speeds: [animation ms, the server's move delay ms]. */
export const SPEEDS = { off: [0, 150], fast: [220, 350], normal: [420, 800], slow: [750, 1500] };

// Who listens to the replies the plan module handles itself (the suggestion; why the pile
// cannot be taken), by the kind of request they answer.
const listeners = { suggestion: () => {} };
export function onReply(kind, fn) { listeners[kind] = fn; }

// The move animations are fetched with the first table (the start screen does not need them).
let animations = null;
function animateEvent(...args) {
  if (animations) animations.animateEvent(...args);
}

export async function openTable(id) {
  if (!animations) import("./animate.js").then((m) => { animations = m; }, () => {});
  if (S.sock) { S.sock.close(); S.sock = null; }
  closeLobby();
  S.tableId = id;
  S.msg = S.view = S.table = null;
  S.selection.clear();
  S.plan = [];
  S.validation = null;
  S.notice = "";
  S.peek = false;
  closeOverlay();
  await loadTableParts();
  if (S.tableId !== id || S.sock) return;  // another table was opened meanwhile
  show("table");
  S.sock = new TableSocket(id, onMessage, (status) => {
    S.connection = status;
    if (status === "open") speedSent = null;
    if (S.screen === "table") redraw();
  });
}

let speedSent = null;
export function sendSpeed() {
  const [, delay] = SPEEDS[S.prefs.speed] || SPEEDS.normal;
  if (S.table && S.table.delay_ms === delay) return;
  speedSent = delay;
  if (S.sock) S.sock.send({ type: "settings", delay_ms: delay });
}

// ---- requests and replies ----------------------------------------------------------------

// Requests carry an id the server echoes in its reply (docs/protocol.md): what each reply
// answers is looked up by it, never guessed from what was sent last.
const requests = new Map();
let requestSeq = 0;

export function request(kind, msg) {
  const id = ++requestSeq;
  requests.set(id, kind);
  if (requests.size > 64) requests.delete(requests.keys().next().value);
  S.sock.send({ ...msg, request: id });
}

function replyTo(msg) {
  if (msg.request == null || !requests.has(msg.request)) return null;
  const kind = requests.get(msg.request);
  requests.delete(msg.request);
  return kind;
}

export function version() { return S.msg ? S.msg.version : 0; }

export function sendAction(action) {
  if (!S.sock) return;
  request("action", { type: "action", version: version(), action });
  if (action.type === "meld" || action.type === "take") play("meld");
  else if (action.type === "discard") play("discard");
  else play("tick");
}

// The card to discard once the melds just sent are on the table.
let pendingDiscard = null;
export function discardAfter(card) { pendingDiscard = card; }

let validateTimer = null;
/** Ask the server whether the staged plan is legal (answered live, as a validation). */
export function validatePlan() {
  clearTimeout(validateTimer);
  const v = S.view;
  if (!S.plan.length || !S.sock || !v || v.hand == null || v.turn !== mySeat() || !["draw", "play"].includes(v.phase)) {
    S.validation = null;
    return;
  }
  validateTimer = setTimeout(() => {
    if (!S.plan.length || !S.view) return;
    const action = planAction(goOutDiscardIdx());
    S.validationFor = JSON.stringify(action);
    request("validate", { type: "validate", version: version(), action });
  }, 60);
}

function onMessage(msg) {
  if (msg.type === "state") onState(msg);
  else if (msg.type === "chat") {
    replyTo(msg);
    const line = onChat(msg);
    if (line) { announce(line); play("tick"); if (S.screen === "table" && !overlayKind()) redraw(); }
  }
  else if (msg.type === "validation") {
    const about = replyTo(msg);
    if (about !== "validate" && listeners[about]) { listeners[about](msg); return; }
    if (!S.plan.length || S.validationFor !== JSON.stringify(planAction(goOutDiscardIdx()))) return;
    S.validation = msg;
    // Which discard would finish these melds (R10.1) is the server's word; once it names the
    // selected card, the plan is checked again with that discard sent along.
    S.finishing = msg.finishing ? { groups: JSON.stringify(planGroups()), card: msg.finishing } : null;
    if (JSON.stringify(planAction(goOutDiscardIdx())) !== S.validationFor) validatePlan();
    redraw();
  } else if (msg.type === "suggestion") { replyTo(msg); listeners.suggestion(msg); }
  else if (msg.type === "error") onError(msg);
}

function onError(msg) {
  const about = replyTo(msg);
  if (about === "validate" || about === "suggest" || about === "why_take") {
    // The table moved on (a new state follows) or the plan cannot even be checked.
    if (msg.code !== "stale_version" && about === "validate" && S.plan.length) {
      S.validation = { legal: false, code: msg.code, message: msg.message, details: msg.details, count: msg.count, minimum: msg.minimum };
      redraw();
    } else if (msg.code === "rate_limited" && about !== "validate") {
      toast(errorText(msg), "bad");
    }
    return;
  }
  if (msg.code === "stale_version") {
    // Another seat moved first: the move was made on a table that is gone, and the new
    // state is already on its way (cosmetic changes never make a move stale).
    pendingDiscard = null;
    dropFocusRequest();
    return;
  }
  if (msg.code === "table_not_found") {
    forgetTable(S.tableId);
    if (S.sock) S.sock.close();
    S.sock = null;
    toast(t("errors.table_not_found"), "bad");
    show("start");
    return;
  }
  pendingDiscard = null;
  dropFocusRequest();  // the action was refused: focus stays where it is
  play("error");
  toast(errorText(msg), "bad");
  if (about === "action" && S.plan.length) {
    // The plan stays staged, to be fixed: the live check says what is wrong with it.
    S.confirmTake = false;
    validatePlan();
    if (S.screen === "table") redraw();
  }
}

// ---- a new state -------------------------------------------------------------------------

let followRematch = null;

let held = { sock: null, history: [] };  // the history this page holds, and of which socket

/** The hand's whole history for a state that brings only the events past ``history_from``
 * (the server sends those to a page that keeps what it was sent), or null when this page does
 * not hold that many events of this socket's history (then it asks for the whole state). */
function wholeHistory(msg) {
  const v = msg.view;
  if (v.history_from === undefined) return v.history;
  const mine = held.sock === S.sock ? held.history : [];
  if (v.history_from > mine.length) return null;
  return mine.slice(0, v.history_from).concat(v.history);
}

/** The whole state of a message: a patch (with ``base``) put over the state held, or null. */
function wholeState(msg) {
  if (msg.base === undefined) return msg;
  const mine = held.sock === S.sock ? S.msg : null;
  if (!mine || mine.sid !== msg.base) return null;
  return { ...msg, view: { ...mine.view, ...msg.view }, table: { ...mine.table, ...msg.table } };
}

let syncAsked = false;

function onState(patch) {
  const msg = wholeState(patch);
  const history = msg && wholeHistory(msg);
  if (!history) {
    if (!syncAsked) request("sync", { type: "sync" });
    syncAsked = true;
    return;
  }
  if (patch.base === undefined) syncAsked = false;
  msg.view.history = history;
  held = { sock: S.sock, history };
  const about = replyTo(msg);
  if (about === "action") {
    // The player's own action was accepted: its plan and selection are done with.
    S.selection.clear();
    S.softSelection = false;
    S.plan = [];
    S.notice = "";
    S.suggested = false;
    S.confirmTake = false;
  }
  const old = S.view;
  const oldVersion = S.msg ? S.msg.version : -1;
  S.msg = msg;
  S.table = msg.table || {};
  if (S.table.id === S.tableId) rememberIfMine(S.table, msg.view);
  noteTableClock(msg);
  const next = S.table.online && S.table.online.next;
  if (next && S.table.id === S.tableId && followRematch !== S.tableId) {
    // everyone accepted the rematch: the new match is another table
    followRematch = S.tableId;
    toast(t("online.rematch_starting"));
    setTimeout(() => openTable(next), 600);
  }
  const [, wantDelay] = SPEEDS[S.prefs.speed] || SPEEDS.normal;
  if (S.table.delay_ms !== undefined && S.table.delay_ms !== wantDelay && speedSent !== wantDelay && S.table.mode === "computer") sendSpeed();
  const v = msg.view;
  keepPlan(old, v);
  S.view = v;
  if (v.phase !== "over") S.peek = false;
  if (v.phase !== (old && old.phase) || v.turn !== (old && old.turn)) { S.notice = ""; S.suggested = false; S.suggestedAnswer = null; S.confirmTake = false; }
  if (old && old.hand_number !== v.hand_number) play("deal");
  else if (!old) play("deal");
  S.validation = null;
  announceState(old, v, msg);
  // A page the player opened (the rules, the tutorial) stays until they leave it: the table
  // is drawn, with its dialogs, when they come back to it.
  if (S.screen === "table") { tableOverlays(); redraw(); }
  if (S.plan.length) validatePlan();
  if (pendingDiscard) {
    const card = pendingDiscard;
    pendingDiscard = null;
    if (msg.change === "action" && v.phase === "play" && v.turn === mySeat() && v.hand && v.hand.includes(card)) {
      sendAction({ type: "discard", card });
    }
  }
  if (old && msg.version > oldVersion && (msg.change == null || msg.change === "action")) {
    const last = (v.history || [])[v.history.length - 1];
    if (last && last.seat !== mySeat() && last.action) {
      const speed = (SPEEDS[S.prefs.speed] || SPEEDS.normal)[0];
      animateEvent(last, old, v, speed);
      play(last.action.type === "discard" ? "discard" : last.action.type === "meld" || last.action.type === "take" ? "meld" : "tick");
    }
  }
}

/** The start page offers "Continue" only for a match this reader plays and that is not over:
 * a table watched (``watching``), left (online: ``auto[seat]`` is "left") or over is forgotten.
 * Pass-and-play shows nobody's hand between players: the owner's match stays. */
function rememberIfMine(tb, v) {
  const seat = tb.seat;
  const over = ["match_over", "abandoned"].includes(tb.status) || !!(tb.match && tb.match.over);
  const left = seat != null && !!tb.online && Array.isArray(tb.online.auto) && tb.online.auto[seat] === "left";
  if (over || left || tb.watching) { forgetTable(tb.id); return; }
  if (seat == null) return;
  const team = tb.mode === "local" || !v || !Array.isArray(v.teams) ? null : v.teams[seat];
  rememberTable({ table: tb.id, mode: tb.mode, team: team == null ? null : team });
}

/** Keep selection and plan when the same cards are still in hand (e.g. another seat acted). */
function keepPlan(old, v) {
  const sameHand = old && v.hand && old.hand && old.seat === v.seat;
  if (!sameHand) {
    S.selection.clear();
    S.plan = [];
    return;
  }
  const sel = remapIndexes(old.hand, v.hand, [...S.selection]);
  S.selection = new Set(sel || []);
  const plan = [];
  for (const g of S.plan) {
    const idx = remapIndexes(old.hand, v.hand, g.idx);
    if (idx) plan.push({ rank: g.rank, idx });
  }
  S.plan = plan;
}

/** Speak each new move with its cards, then "Your turn" (the announcer appends, never rebuilds). */
function announceState(old, v, msg) {
  const lines = [];
  const history = v.history || [];
  if (!old || old.hand_number !== v.hand_number) {
    if (v.hand_number) lines.push(t("announce.new_hand", { n: v.hand_number }));
  } else if (msg.change == null || msg.change === "action") {
    const seen = (old.history || []).length;
    // at a hand-off, a draw without its cards
    const handingOff = S.table && S.table.handoff != null;
    for (const entry of history.slice(seen)) lines.push(moveSentence(entry, !(handingOff && entry.cards && entry.cards.length)));
    // three players (R14): the first take makes the other two partners
    const alone = new Set(v.sides).size < new Set(old.sides).size ? v.sides.findIndex((x) => v.sides.indexOf(x) === v.sides.lastIndexOf(x)) : -1;
    if (alone >= 0) {
      lines.push(alone === mySeat() ? t("announce.partners_you") : t("announce.partners", { name: seatName(alone) }));
      toast(lines[lines.length - 1]);
    }
  } else if (msg.change === "undo" && v.turn === mySeat()) {
    lines.push(t("announce.undone"));
    toast(t("announce.undone"));
  } else if (msg.change === "rated") {
    const mine = S.table && S.table.online && S.table.online.ratings && S.table.online.ratings[mySeat()];
    lines.push(mine ? t("announce.rating_mine", { before: mine.before, after: mine.after }) : t("announce.ratings"));
  }
  if (S.table && S.table.handoff != null && !S.lastHandoff) clearAnnouncements();
  if (S.table && S.table.handoff != null) {
    if (!old || !S.lastHandoff) lines.push(t("handoff.pass_to", { name: seatName(S.table.handoff) }));
  } else if (v.phase === "over") {
    const out = v.result && v.result.went_out;
    if ((!old || old.phase !== "over") && out != null) lines.push(t("result.went_out", { name: seatName(out) }));
    if (!old || old.phase !== "over") lines.push(t("status.hand_over"));
  } else if (v.hand != null && v.turn === mySeat() && (!old || old.turn !== v.turn || old.phase === "over" || old.seat !== v.seat || old.hand_number !== v.hand_number)) {
    lines.push(v.phase === "ask" ? t("status.answer") : t("announce.your_turn"));
  }
  S.lastHandoff = S.table && S.table.handoff != null;
  for (const line of lines) announce(line);
}
