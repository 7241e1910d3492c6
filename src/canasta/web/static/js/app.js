// The single-page app: start screen, table, panels. Rules live on the server; see table.js.
import { S, savePrefs, rememberTable, legacyProfile, forgetLegacyProfile } from "./store.js";
import { loadLanguages, setLanguage, t, translateDom } from "./i18n.js";
import { api, TableSocket } from "./net.js";
import { setSound, play } from "./sound.js";
import {
  renderTable, setSender, mySeat, teamName, planAction, selectionTargets, remapIndexes, plannedIdx, canAct, errorText,
  moveSentence, rankFromKey, seatName as seatNameOf,
} from "./table.js";
import { renderStart, renderSettingsPanel, openStats, openHelp, renderRules } from "./panels.js";
import { renderTutorial } from "./tutorial.js";
import { renderReplay, openReplay } from "./replay.js";
import { animateEvent } from "./animate.js";
import { handOverlay, handoffOverlay, closeOverlay, overlayKind, takeReturnFocus, trapTab } from "./overlays.js";
import { focusKey, focusFirst, announce } from "./focus.js";
import { rankOf, isWildFace } from "./cards.js";
import { initAccount } from "./account.js";
import { renderOnline, openLobby, closeLobby, onChat, noteTableClock, isOnline, chatOverlay, leaveOverlay } from "./online.js";

const $ = (sel) => document.querySelector(sel);

export const SPEEDS = { off: [0, 150], fast: [220, 350], normal: [420, 800], slow: [750, 1500] };

// ---- screens ------------------------------------------------------------------------------

/** The table's own dialogs for the current state: end of hand or match, the handoff. */
function tableOverlays() {
  const v = S.view;
  if (!v || !S.table) return;
  if (S.table.handoff != null) closeOverlay("hand");
  if (S.table.handoff != null) controller.overlay("handoff");
  else if (v.phase === "over" || (S.table.match && S.table.match.over)) {
    if (overlayKind() !== "settings" && !S.peek) controller.overlay(S.table.match && S.table.match.over ? "match" : "hand");
  } else if (["hand", "match", "handoff"].includes(overlayKind())) closeOverlay();
}

export function show(screen) {
  const back = screen === "table" && S.screen !== "table";
  S.screen = screen;
  for (const id of ["start", "table", "rules", "tutorial", "online", "replay"]) $(`#${id}`).hidden = id !== screen;
  document.body.dataset.screen = screen;
  if (back) tableOverlays();
  redraw();
  // A new screen: focus its heading unless something on it already took focus.
  if (!overlayKind() && (document.activeElement === document.body || !document.activeElement)) {
    const head = document.querySelector(`#${screen} h1`);
    if (head && !pendingFocus) { head.tabIndex = -1; head.focus({ preventScroll: true }); }
  }
}

// Where focus should go once the table shows the result of the player's own action
// ("hand": the first card; "fresh": the card just drawn; "next": the next free card).
let pendingFocus = null;
let lastStaged = [];  // hand indexes of the group staged last: focus moves on past them

/** Ask for focus to move to ``want`` once a state newer than the current one is drawn. */
function focusAfterAction(want) { pendingFocus = { want, after: S.msg ? S.msg.version : -1 }; }

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

export function redraw() {
  const key = focusKey();
  redrawInner();
  if (overlayKind()) return;  // an open dialog keeps its own focus
  const back = takeReturnFocus();
  if (pendingFocus && (pendingFocus.after === "now" || (S.msg && S.msg.version > pendingFocus.after))) {
    const want = pendingFocus.want;
    pendingFocus = null;
    if (S.screen === "table" && focusFirst(handTarget(want))) return;
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
  if (S.screen === "start") renderStart($("#start"), controller);
  else if (S.screen === "table") renderTable($("#table"), actions);
  else if (S.screen === "rules") renderRules($("#rules"), controller);
  else if (S.screen === "tutorial") renderTutorial($("#tutorial"), controller);
  else if (S.screen === "online") renderOnline($("#online"), controller);
  else if (S.screen === "replay") renderReplay($("#replay"), controller);
  const peekBtn = $("#btn-peek-back");
  if (peekBtn) peekBtn.remove();
  if (S.peek && S.screen === "table" && S.view && (S.view.phase === "over" || (S.table && S.table.match && S.table.match.over)) && !overlayKind()) {
    // Looking at the final table: a button brings the scores back.
    const b = document.createElement("button");
    b.type = "button";
    b.id = "btn-peek-back";
    b.className = "btn primary peek-back";
    b.textContent = t("result.back_to_scores");
    b.addEventListener("click", () => { S.peek = false; redraw(); });
    document.body.append(b);
  } else if (!overlayKind() && S.screen === "table" && S.view && S.table) {
    // The end-of-hand and handoff screens come back after a panel opened over them closes.
    if (S.table.handoff != null) document.body.dataset.overlay = "handoff";
    else if (S.table.match && S.table.match.over) document.body.dataset.overlay = "match";
    else if (S.view.phase === "over") document.body.dataset.overlay = "hand";
  }
  const kind = overlayKind();
  if (kind === "settings") renderSettingsPanel(controller);
  else if (kind === "hand" || kind === "match") handOverlay(controller);
  else if (kind === "handoff") handoffOverlay(controller);
  else if (kind === "help") openHelp(controller);
  else if (kind === "stats") openStats(controller, false);
  else if (kind === "chat") chatOverlay(controller);
  else if (kind === "leave") leaveOverlay(controller);
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
    const el = document.createElement("span");
    el.className = "score" + (team === myTeam ? " own" : "");
    el.innerHTML = `<span class="who"></span> <b></b>`;
    el.querySelector(".who").textContent = controller.teamName(team);
    el.querySelector("b").textContent = scores[team];
    bar.append(el);
  }
  const meta = document.createElement("span");
  meta.className = "meta";
  const target = m.target || v.settings.target;
  meta.textContent = t("score.hand_target", {
    n: m.hand_number || v.hand_number,
    target: target === "one_hand" ? t("settings.target_one_hand") : target,
  });
  bar.append(meta);
}

export function toast(text, kind = "") {
  const el = $("#toast");
  el.textContent = text;
  el.className = "toast show " + kind;
  clearTimeout(toast.timer);
  toast.timer = setTimeout(() => { el.className = "toast"; }, 3200);
}

// ---- connecting to a table ----------------------------------------------------------------

export async function openTable(id) {
  if (S.sock) S.sock.close();
  closeLobby();
  S.tableId = id;
  S.msg = S.view = S.table = null;
  S.selection.clear();
  S.plan = [];
  S.validation = null;
  S.notice = "";
  S.peek = false;
  rememberTable(id);
  closeOverlay();
  show("table");
  S.sock = new TableSocket(id, onMessage, (status) => {
    S.connection = status;
    if (status === "open") speedSent = null;
    if (S.screen === "table") redraw();
  });
}

function sendSpeed() {
  const [, delay] = SPEEDS[S.prefs.speed] || SPEEDS.normal;
  if (S.table && S.table.delay_ms === delay) return;
  speedSent = delay;
  if (S.sock) S.sock.send({ type: "settings", delay_ms: delay });
}
let speedSent = null;

function onMessage(msg) {
  if (msg.type === "state") onState(msg);
  else if (msg.type === "chat") {
    replyTo(msg);
    const line = onChat(msg);
    if (line) { announce(line); play("tick"); if (S.screen === "table" && !overlayKind()) redraw(); }
  }
  else if (msg.type === "validation") {
    replyTo(msg);
    if (S.validationFor !== JSON.stringify(planAction())) return;
    S.validation = msg;
    redraw();
  } else if (msg.type === "suggestion") { replyTo(msg); onSuggestion(msg); }
  else if (msg.type === "error") {
    const about = replyTo(msg);
    if (about === "validate" || about === "suggest") {
      // The table moved on (a new state follows) or the plan cannot even be checked.
      if (msg.code !== "stale_version" && about === "validate" && S.plan.length) {
        S.validation = { legal: false, code: msg.code, message: msg.message, count: msg.count, minimum: msg.minimum };
        redraw();
      }
      return;
    }
    if (msg.code === "stale_version") {
      // Another seat moved first: the move was made on a table that is gone, and the new
      // state is already on its way (cosmetic changes never make a move stale).
      pendingDiscard = null;
      pendingFocus = null;
      return;
    }
    if (msg.code === "table_not_found") {
      rememberTable(null);
      if (S.sock) S.sock.close();
      S.sock = null;
      toast(t("errors.table_not_found"), "bad");
      show("start");
      return;
    }
    pendingDiscard = null;
    pendingFocus = null;  // the action was refused: focus stays where it is
    play("error");
    toast(errorText(msg), "bad");
  }
}

let pendingDiscard = null;
let followRematch = null;

// Requests carry an id the server echoes in its reply (docs/protocol.md): what each reply
// answers is looked up by it, never guessed from what was sent last.
const requests = new Map();
let requestSeq = 0;

function request(kind, msg) {
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

function onState(msg) {
  const old = S.view;
  const oldVersion = S.msg ? S.msg.version : -1;
  S.msg = msg;
  S.table = msg.table || {};
  noteTableClock(msg);
  // an online match has an address of its own (another tab, a reload, a spectator's link)
  if (S.table.mode === "online" && S.table.id && location.hash !== `#table=${S.table.id}`) {
    history.replaceState(null, "", `#table=${encodeURIComponent(S.table.id)}`);
  }
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
  // Keep selection and plan when the same cards are still in hand (e.g. another seat acted).
  const sameHand = old && v.hand && old.hand && old.seat === v.seat;
  if (sameHand) {
    const sel = remapIndexes(old.hand, v.hand, [...S.selection]);
    S.selection = new Set(sel || []);
    const plan = [];
    for (const g of S.plan) {
      const idx = remapIndexes(old.hand, v.hand, g.idx);
      if (idx) plan.push({ rank: g.rank, idx });
    }
    S.plan = plan;
  } else {
    S.selection.clear();
    S.plan = [];
  }
  S.view = v;
  if (v.phase !== "over") S.peek = false;
  if (v.phase !== (old && old.phase) || v.turn !== (old && old.turn)) { S.notice = ""; S.confirmTake = false; }
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

/** Speak each new move with its cards, then "Your turn" (the announcer appends, never rebuilds). */
function announceState(old, v, msg) {
  const lines = [];
  const history = v.history || [];
  if (!old || old.hand_number !== v.hand_number) {
    if (v.hand_number) lines.push(t("announce.new_hand", { n: v.hand_number }));
  } else if (msg.change == null || msg.change === "action") {
    const seen = (old.history || []).length;
    for (const entry of history.slice(seen)) lines.push(moveSentence(entry, true));
  }
  if (S.table && S.table.handoff != null) {
    if (!old || !S.lastHandoff) lines.push(t("handoff.pass_to", { name: controller.seatName(S.table.handoff) }));
  } else if (v.phase === "over") {
    if (!old || old.phase !== "over") lines.push(t("status.hand_over"));
  } else if (v.hand != null && v.turn === mySeat() && (!old || old.turn !== v.turn || old.phase === "over" || old.seat !== v.seat || old.hand_number !== v.hand_number)) {
    lines.push(v.phase === "ask" ? t("status.answer") : t("announce.your_turn"));
  }
  S.lastHandoff = S.table && S.table.handoff != null;
  for (const line of lines) announce(line);
}

function onSuggestion(msg) {
  const a = msg.action;
  if (!a) {
    S.notice = t("suggest.none");
    redraw();
    return;
  }
  S.selection.clear();
  S.plan = [];
  const hand = S.view.hand || [];
  const used = new Set();
  const take = (card) => {
    const j = hand.findIndex((c, k) => c === card && !used.has(k));
    if (j >= 0) used.add(j);
    return j;
  };
  if (a.type === "draw") S.notice = t("suggest.draw");
  else if (a.type === "discard") {
    const j = take(a.card);
    if (j >= 0) S.selection.add(j);
    S.notice = t("suggest.discard");
  } else if (a.type === "take" || a.type === "meld") {
    for (const g of a.groups || []) {
      const idx = g.cards.map(take).filter((j) => j >= 0);
      if (idx.length) S.plan.push({ rank: g.rank, idx });
    }
    if (a.discard) {
      const j = take(a.discard);
      if (j >= 0) S.selection.add(j);
    }
    S.notice = a.type === "take" ? t("suggest.take") : a.discard ? t("suggest.go_out") : t("suggest.meld");
    validatePlan();
  } else if (a.type === "decline") S.notice = t("suggest.decline");
  else S.notice = t("suggest.other");
  redraw();
}

function version() { return S.msg ? S.msg.version : 0; }

function sendAction(action) {
  if (!S.sock) return;
  request("action", { type: "action", version: version(), action });
  if (action.type === "meld" || action.type === "take") play("meld");
  else if (action.type === "discard") play("discard");
  else play("tick");
}

let validateTimer = null;
function validatePlan() {
  clearTimeout(validateTimer);
  const v = S.view;
  if (!S.plan.length || !S.sock || !v || v.hand == null || v.turn !== mySeat() || !["draw", "play"].includes(v.phase)) {
    S.validation = null;
    return;
  }
  validateTimer = setTimeout(() => {
    const action = planAction();
    S.validationFor = JSON.stringify(action);
    request("validate", { type: "validate", version: version(), action });
  }, 60);
}

// ---- the player's actions ----------------------------------------------------------------

function clearPlan() {
  S.selection.clear();
  S.plan = [];
  S.validation = null;
  S.notice = "";
  S.confirmTake = false;
}

const actions = {
  toggle(i) {
    if (plannedIdx().has(i)) return;
    if (S.selection.has(i)) S.selection.delete(i); else S.selection.add(i);
    S.notice = "";
    redraw();
  },
  stage(rank) {
    if (!S.selection.size) return;
    const targets = selectionTargets();
    if (!targets.includes(rank) && !(rank === "3")) { toast(t("plan.wrong_rank"), "bad"); return; }
    const idx = [...S.selection];
    const g = S.plan.find((x) => x.rank === rank);
    if (g) g.idx.push(...idx); else S.plan.push({ rank, idx });
    S.selection.clear();
    S.validation = null;
    S.notice = "";
    lastStaged = idx;
    pendingFocus = { want: "next", after: "now" };
    validatePlan();
    redraw();
  },
  unstage(rank) {
    S.plan = S.plan.filter((g) => g.rank !== rank);
    S.validation = null;
    validatePlan();
    redraw();
  },
  cancel() { clearPlan(); redraw(); },
  draw() {
    if (!canAct("draw")) return;
    clearPlan();
    focusAfterAction("fresh");
    sendAction({ type: "draw" });
  },
  take() {
    const v = S.view;
    if (!v || v.phase !== "draw" || v.hand == null || v.turn !== mySeat()) return;
    // A natural selection of the top card's rank stages as the pile group.
    if (S.selection.size && v.pile.top) {
      const hand = v.hand;
      const top = rankOf(v.pile.top);
      const cards = [...S.selection].map((i) => hand[i]);
      if (cards.every((c) => isWildFace(c) || rankOf(c) === top)) actions.stage(top);
    }
    if (!S.plan.length) {
      // Nothing staged: show the server's first listed way to take the pile, to confirm.
      const legal = (v.legal || []).find((a) => a.type === "take");
      if (!legal) { toast(t("errors.no_take"), "bad"); return; }
      const onlyTop = legal.groups.length === 1 && legal.groups[0].cards.length === 0;
      if (!onlyTop) {
        onSuggestion({ action: legal });
        S.notice = t("plan.confirm_take");
        S.confirmTake = true;
        redraw();
        return;
      }
    }
    const action = planAction();
    clearPlan();
    focusAfterAction("fresh");
    sendAction(action);
  },
  pileTap() {
    const v = S.view;
    if (!v) return;
    if (v.phase === "draw") actions.take();
    else if (v.phase === "play") actions.discard();
  },
  meld() {
    const v = S.view;
    if (!v || v.phase !== "play" || !S.plan.length) return;
    // A single selected card outside the plan is the going-out discard, sent together.
    const free = [...S.selection].filter((i) => !plannedIdx().has(i));
    const planned = plannedIdx().size;
    const discardIdx = free.length === 1 && v.hand.length - planned === 1 ? free[0] : null;
    const action = planAction(discardIdx);
    clearPlan();
    focusAfterAction("hand");
    sendAction(action);
  },
  discard() {
    const v = S.view;
    if (!v || v.phase !== "play" || v.turn !== mySeat()) return;
    const sel = [...S.selection];
    if (sel.length !== 1) { toast(t("plan.select_one"), ""); return; }
    focusAfterAction("hand");
    if (S.plan.length) {
      const left = v.hand.length - plannedIdx().size;
      if (left === 1) {
        // The last card: melds and discard go together (going out).
        const action = planAction(sel[0]);
        clearPlan();
        sendAction(action);
      } else {
        // Meld the plan, then discard the selected card once the meld is on the table.
        pendingDiscard = v.hand[sel[0]];
        const action = planAction();
        clearPlan();
        sendAction(action);
      }
    } else {
      const card = v.hand[sel[0]];
      clearPlan();
      sendAction({ type: "discard", card });
    }
  },
  send(action) { clearPlan(); sendAction(action); },
  chat() { controller.overlay("chat"); },
  leaveMatch() { controller.overlay("leave"); },
  suggest() {
    if (!S.sock || isOnline()) return;
    request("suggest", { type: "suggest", version: version() });
  },
  undo() {
    if (!S.sock || isOnline()) return;
    clearPlan();
    request("undo", { type: "undo", version: version() });
  },
  sort() {
    S.prefs.sort = S.prefs.sort === "rank" ? "suit" : "rank";
    savePrefs();
    redraw();
  },
  pause() {
    if (!S.sock || !S.table) return;
    S.sock.send({ type: S.table.paused ? "resume" : "pause" });
  },
  toggleSound() {
    S.prefs.sound = !S.prefs.sound;
    setSound(S.prefs.sound);
    savePrefs();
    toast(S.prefs.sound ? t("settings.sound_on") : t("settings.sound_off"));
    if (S.prefs.sound) play("tick");
    redraw();
  },
};

// ---- controller shared with the panels ----------------------------------------------------

export const controller = {
  actions,
  show,
  redraw,
  toast,
  openTable,
  teamName: (team) => teamName(team),
  seatName: (seat) => seatNameOf(seat),
  overlay(kind) { document.body.dataset.overlay = kind; redraw(); },
  overlayKind,
  async newMatch(body) {
    try {
      const res = await api("POST", "/api/tables", body);
      pendingFocus = { want: "hand", after: -1 };  // any state of the new table
      await openTable(res.table);
    } catch (e) {
      toast(t("errors.create_failed") + (e.code ? ` (${e.code})` : ""), "bad");
    }
  },
  openStats() { document.body.dataset.overlay = "stats"; openStats(controller, true); },
  send(msg) {
    if (!S.sock) return;
    if (["reveal", "next_hand", "new_match"].includes(msg.type)) focusAfterAction("hand");
    request(msg.type, msg);
  },
  setLanguage(lang) {
    S.prefs.lang = lang;
    savePrefs();
    setLanguage(lang);
    redraw();
  },
  setPref(key, value) {
    S.prefs[key] = value;
    savePrefs();
    if (key === "sound") setSound(value);
    if (key === "speed" && S.table && S.table.mode === "computer") sendSpeed();
    redraw();
  },
  peek() { S.peek = true; closeOverlay(); takeReturnFocus(); redraw(); focusFirst("#btn-peek-back"); },
  leaveTable() {
    const online = isOnline();
    if (S.sock) S.sock.close();
    S.sock = null;
    S.view = S.table = S.msg = null;
    closeOverlay();
    if (location.hash.startsWith("#table=")) history.replaceState(null, "", location.pathname);
    if (online) controller.openOnline(); else show("start");
  },
  openOnline(code = null) {
    if (S.sock) { S.sock.close(); S.sock = null; S.view = S.table = S.msg = null; }
    closeOverlay();
    openLobby(controller, code);
    show("online");
  },
};


// ---- keyboard -----------------------------------------------------------------------------

function onKey(e) {
  if (e.key === "Tab") { trapTab(e); return; }
  if (e.ctrlKey || e.metaKey || e.altKey) return;
  const k = e.key;
  const o = overlayKind();
  // Esc closes a dialog from any of its controls, a form field included.
  // It does exactly what the dialog's × does (Settings resumes the play it paused).
  if (k === "Escape" && o && !["hand", "match", "handoff"].includes(o)) {
    e.preventDefault();
    const close = document.querySelector("#overlay .dialog-head .close");
    if (close) close.click(); else { closeOverlay(); redraw(); }
    return;
  }
  const tag = (e.target && e.target.tagName) || "";
  if (["INPUT", "SELECT", "TEXTAREA"].includes(tag)) return;
  if (k === "Escape") { if (!o) actions.cancel(); return; }
  if (overlayKind()) return;
  // Keys of the focused hand card: arrows move along the hand, a rank's key stages the
  // selection there. They act only while a card has focus, so they stay on with shortcuts off.
  const card = e.target && e.target.closest && e.target.closest("#hand .card");
  if (card && S.screen === "table") {
    if (["ArrowLeft", "ArrowRight", "Home", "End"].includes(k)) {
      const cards = [...document.querySelectorAll("#hand .card")];
      const at = cards.indexOf(card);
      const to = k === "Home" ? 0 : k === "End" ? cards.length - 1 : at + (k === "ArrowLeft" ? -1 : 1);
      if (cards[to]) { e.preventDefault(); cards[to].focus(); }
      return;
    }
    const rank = e.shiftKey ? null : rankFromKey(k);
    if (rank && S.selection.size) { e.preventDefault(); actions.stage(rank); return; }
  }
  if (S.prefs.shortcuts === false) return;  // WCAG 2.1.4: single-character shortcuts can be off
  if (k === "?") { controller.overlay("help"); return; }
  if (S.screen !== "table") return;
  const map = { d: actions.draw, t: actions.take, f: actions.meld, x: actions.discard, u: actions.undo, s: actions.sort, m: actions.toggleSound };
  const fn = map[k.toLowerCase()];
  if (fn) { e.preventDefault(); fn(); }
}

// ---- start-up -----------------------------------------------------------------------------

function routeFromHash(initial) {
  const hash = location.hash.replace("#", "");
  if (hash === "rules" || hash === "tutorial") show(hash);
  else if (hash === "online") controller.openOnline();
  else if (hash.startsWith("room=")) controller.openOnline(decodeURIComponent(hash.slice(5)).replace(/[^A-Za-z0-9]/g, "").slice(0, 6));
  else if (hash.startsWith("table=")) openTable(decodeURIComponent(hash.slice(6)));
  else if (hash.startsWith("replay=")) openReplay(controller, decodeURIComponent(hash.slice(7)));
  else if (initial) show("start");
}

async function startSession() {
  const legacy = legacyProfile();
  try {
    const res = await api("POST", "/api/session", legacy ? { legacy_profile: legacy } : {});
    S.account = res.account;
    if (legacy) forgetLegacyProfile();
  } catch { S.account = null; }
}

async function main() {
  await loadLanguages();
  setLanguage(S.prefs.lang);
  setSound(S.prefs.sound);
  await startSession();
  await initAccount(controller);  // account panel, cosmetics on <body>, #reset= links
  try { S.presets = await api("GET", "/api/presets"); } catch { S.presets = null; }
  document.addEventListener("keydown", onKey);
  setSender((msg) => controller.send(msg));
  document.addEventListener("overlayclosed", () => redraw());
  $("#btn-home").addEventListener("click", () => controller.leaveTable());
  $("#btn-rules").addEventListener("click", () => show("rules"));
  $("#btn-stats").addEventListener("click", () => controller.openStats());
  $("#btn-settings").addEventListener("click", () => controller.overlay("settings"));
  $("#btn-help").addEventListener("click", () => controller.overlay("help"));
  $("#table").addEventListener("click", () => {
    if (S.selection.size) { S.selection.clear(); redraw(); }
  });
  routeFromHash(true);
  window.addEventListener("hashchange", () => routeFromHash(false));
  document.body.classList.add("ready");
}

main();
