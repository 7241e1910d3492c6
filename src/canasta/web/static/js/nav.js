// The address bar names what is on the screen, so that a reload lands on it again and the
// browser's Back and Forward buttons move between screens:
//   (none) start · #table=<id> · #rules · #tutorial · #online (#room=<code>) · #replay=<ref>
//   · #stats (the Stats dialog over the start screen; "&stats" after another screen's address).
// A new screen or dialog the player opened gets a history entry of its own (pushState); what
// changes in place (the table a rematch moves to) or what the page did by itself (a table that
// is gone) replaces the current one, so Back never lands on a screen that sends you forward.
import { S } from "./store.js";

/** ``{screen, arg, stats}`` named by an address (``null``: not one of the screens'). */
export function parseAddress(hash) {
  const [head, ...flags] = hash.replace(/^#/, "").split("&");
  const stats = flags.includes("stats") || head === "stats";
  const eq = head.indexOf("=");
  const key = eq < 0 ? head : head.slice(0, eq);
  const arg = eq < 0 ? null : decodeURIComponent(head.slice(eq + 1));
  if (key === "" || key === "stats") return { screen: "start", arg: null, stats };
  if (["rules", "tutorial", "online"].includes(key) && arg === null) return { screen: key, arg: null, stats };
  if (key === "room") return { screen: "online", arg: null, room: arg, stats };
  if (key === "table" && arg) return { screen: "table", arg, stats };
  if (key === "replay" && arg !== null) return { screen: "replay", arg, stats };
  return null;
}

let replayRef = () => "";
/** The replay page tells which record it shows (its address carries it). */
export function bindReplayRef(fn) { replayRef = fn; }

function current() {
  const screen = S.screen;
  const arg = screen === "table" ? S.tableId : screen === "replay" ? replayRef() || "" : null;
  return { screen, arg, stats: document.body.dataset.overlay === "stats" };
}

function addressOf(where) {
  const base = where.arg != null ? `${where.screen}=${encodeURIComponent(where.arg)}`
    : where.screen === "start" ? "" : where.screen;
  if (!where.stats) return base ? `#${base}` : "";
  return base ? `#${base}&stats` : "#stats";
}

let routing = 0;        // > 0 while the page follows the address (never writes history then)
let backPending = false;
let depth = 0;          // how many of our own entries lie behind this one

/** Run ``fn`` as the page following its address: nothing it shows is pushed. */
export function following(fn) {
  routing += 1;
  try { return fn(); } finally { routing -= 1; }
}

/** The player asked for this (a click or a key just now), not the page by itself. */
function byThePlayer() {
  const act = navigator.userActivation;
  return !act || act.isActive;
}

/** Bring the address in line with the screen (called after every redraw; cheap when equal). */
export function syncAddress() {
  if (backPending) return;
  const want = current();
  const have = parseAddress(location.hash);
  if (have && have.screen === want.screen && (have.arg ?? null) === (want.arg ?? null) && have.stats === want.stats) return;
  if (!have && want.screen === "start" && !want.stats) return;  // a link of another module (#reset=…)
  const url = addressOf(want) || location.pathname + location.search;
  const state = history.state || {};
  if (routing || !byThePlayer()) {
    history.replaceState({ canasta: true, depth: state.depth || 0 }, "", url);
    return;
  }
  const sameScreen = have && have.screen === want.screen;
  if (sameScreen && have.stats && !want.stats && state.canasta && state.depth > 0 && state.dialog) {
    // the Stats dialog the player opened closes: its history entry goes with it
    backPending = true;
    history.back();
    return;
  }
  if (sameScreen && (have.arg ?? null) !== (want.arg ?? null) && have.stats === want.stats) {
    history.replaceState({ canasta: true, depth: state.depth || 0 }, "", url);
    return;
  }
  depth = (state.depth || 0) + 1;
  history.pushState({ canasta: true, depth, dialog: want.stats && !(have && have.stats) }, "", url);
}

/** Back to the previous screen: the browser's own Back when it is one of ours. */
export function goBack(fallback) {
  const state = history.state;
  if (state && state.canasta && state.depth > 0) { history.back(); return true; }
  fallback();
  return false;
}

/** Follow the address from now on (``route`` shows what it names). */
export function listen(route) {
  window.addEventListener("popstate", () => {
    backPending = false;
    const where = parseAddress(location.hash);
    // an in-page link (the skip link's #hand) has done its work: the address names the screen again
    const inPage = !where && location.hash.length > 1 && document.getElementById(location.hash.slice(1));
    following(() => (inPage ? syncAddress() : route(where)));
  });
}
