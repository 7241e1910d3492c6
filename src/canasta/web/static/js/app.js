// The single-page app's start-up: the controller the pages share, the keyboard, the address.
// The table socket lives in session.js, the player's plan in plan.js, drawing in screen.js;
// the rules live on the server (see table.js).
import { S, savePrefs, legacyProfile, forgetLegacyProfile } from "./store.js";
import { setLanguage, t } from "./i18n.js";
import { api, noteSessionMade } from "./net.js";
import { setSound } from "./sound.js";
import { setSender, setLeaver, teamName, rankFromKey, seatName } from "./table.js";
import { openStats } from "./panels.js";
import { openReplay, replayShown } from "./replay-links.js";
import { closeOverlay, overlayKind, takeReturnFocus, trapTab } from "./overlays.js";
import { focusFirst } from "./focus.js";
import { initAccount } from "./account.js";
import { openLobby, isOnline, reconnectLobby } from "./online.js";
import { $ } from "./dom.js";
import { setCardFacts } from "./cards.js";
import { bindScreen, show, redraw, toast, clearBadToast, openOverlay, focusAfterAction } from "./screen.js";
import { openTable, request, sendSpeed } from "./session.js";
import { actions } from "./plan.js";
import { following, goBack, listen, parseAddress, syncAddress } from "./nav.js";

// ---- controller shared with the panels ----------------------------------------------------

export const controller = {
  actions,
  show,
  redraw,
  toast,
  clearBadToast,
  openTable,
  teamName: (team) => teamName(team, true),  // the score bar: as in this hand
  seatName: (seat) => seatName(seat),
  overlay: openOverlay,
  overlayKind,
  async newMatch(body) {
    try {
      const res = await api("POST", "/api/tables", body);
      focusAfterAction("hand", -1);  // any state of the new table
      await openTable(res.table);
    } catch (e) {
      toast(t("errors.create_failed") + (e.code ? ` (${e.code})` : ""), "bad");
    }
  },
  openStats() { document.body.dataset.overlay = "stats"; openStats(controller, true); syncAddress(); },
  /** Back to the screen before this one (``fallback`` when the page was opened here). */
  back(fallback) { goBack(() => show(fallback)); },
  send(msg) {
    if (!S.sock) return;
    if (["reveal", "next_hand", "new_match"].includes(msg.type)) focusAfterAction("hand");
    request(msg.type, msg);
  },
  async setLanguage(lang) {
    S.prefs.lang = lang;
    savePrefs();
    await setLanguage(lang);
    redraw();
  },
  setPref(key, value) {
    S.prefs[key] = value;
    savePrefs();
    if (key === "sound") setSound(value);
    if (key === "speed" && S.table && S.table.mode === "computer") sendSpeed();
    redraw();
  },
  /** A login or logout: the sockets reconnect with the new session. */
  accountChanged() {
    if (S.sock) S.sock.reconnect();
    reconnectLobby();
  },
  peek() { S.peek = true; closeOverlay(); takeReturnFocus(); redraw(); focusFirst("#btn-peek-back"); },
  leaveTable() {
    const online = isOnline();
    if (S.sock) S.sock.close();
    S.sock = null;
    S.view = S.table = S.msg = null;
    closeOverlay();
    if (online) controller.openOnline(); else show("start");
  },
  openReplay(ref) {
    closeTable();
    closeOverlay();
    openReplay(controller, ref);
  },
  openOnline(code = null) {
    closeTable();
    closeOverlay();
    openLobby(controller, code);
    show("online");
  },
};


function closeTable() {
  if (S.sock) { S.sock.close(); S.sock = null; S.view = S.table = S.msg = null; }
}


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

/** Whether ``screen`` is the one showing (at start-up none is). */
function onScreen(screen) { return S.screen === screen && !$(`#${screen}`).hidden; }

/** Show what the address names (at start-up, and on Back and Forward). */
function route(where) {
  if (!where) return;  // an address of another module (#reset=…) or an in-page link
  if (where.screen === "table") {
    if (where.arg !== S.tableId || !S.sock) openTable(where.arg);
    else if (!onScreen("table")) show("table");
  } else if (where.screen === "online") {
    if (!onScreen("online") || where.room) controller.openOnline(where.room ? where.room.replace(/[^A-Za-z0-9]/g, "").slice(0, 6) : null);
  } else if (where.screen === "replay") {
    if (!onScreen("replay") || replayShown() !== where.arg) controller.openReplay(where.arg);
  } else {
    if (where.screen === "start" && S.sock) closeTable();
    if (!onScreen(where.screen)) { if (overlayKind() !== "stats") closeOverlay(); show(where.screen); }
  }
  const stats = overlayKind() === "stats";
  if (where.stats && !stats) controller.openStats();
  else if (!where.stats && stats) { closeOverlay(); redraw(); }
}

async function startSession() {
  const legacy = legacyProfile();
  try {
    const res = await api("POST", "/api/session", legacy ? { legacy_profile: legacy } : {});
    S.account = res.account;
    noteSessionMade(res.created);
    if (legacy) forgetLegacyProfile();
  } catch { S.account = null; }
}

async function main() {
  // The words, the session and the presets are asked for at once (each is a round trip: on a
  // phone's network they were most of the wait); the account needs the session's cookie.
  const presets = api("GET", "/api/presets").catch(() => null);
  await Promise.all([setLanguage(S.prefs.lang), startSession()]);
  setSound(S.prefs.sound);
  await initAccount(controller);  // account panel, cosmetics on <body>, #reset= links
  S.presets = await presets;
  setCardFacts(S.presets && S.presets.cards);
  document.addEventListener("keydown", onKey);
  bindScreen(controller);
  setSender((msg) => controller.send(msg));
  setLeaver(() => controller.leaveTable());
  document.addEventListener("overlayclosed", () => redraw());
  $("#btn-home").addEventListener("click", () => controller.leaveTable());
  $("#btn-rules").addEventListener("click", () => show("rules"));
  $("#btn-stats").addEventListener("click", () => controller.openStats());
  $("#btn-settings").addEventListener("click", () => controller.overlay("settings"));
  $("#btn-help").addEventListener("click", () => controller.overlay("help"));
  $("#table").addEventListener("click", () => {
    if (S.selection.size) { S.selection.clear(); redraw(); }
  });
  following(() => route(parseAddress(location.hash) || { screen: "start", arg: null, stats: false }));
  listen(route);
  document.body.classList.add("ready");
}

main();
