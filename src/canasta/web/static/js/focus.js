// Keeping the keyboard user's place: every redraw replaces the DOM, so focus is remembered as
// a selector and found again; the announcer is the one live region that speaks moves.

/** A selector that finds ``el`` (default: the focused element) again after a redraw. */
export function focusKey(el = document.activeElement) {
  if (!el || el === document.body || !el.isConnected) return null;
  if (el.id) return `#${CSS.escape(el.id)}`;
  const box = el.parentElement && el.parentElement.closest("[id]");
  const scope = box ? `#${CSS.escape(box.id)} ` : "";
  if (el.dataset && el.dataset.i != null) return `${scope}[data-i="${el.dataset.i}"]`;
  if (el.dataset && el.dataset.rank) return `${scope}.${CSS.escape([...el.classList][0])}[data-rank="${el.dataset.rank}"]`;
  if (el.dataset && el.dataset.focus) return `${scope}[data-focus="${CSS.escape(el.dataset.focus)}"]`;
  return null;
}

/** The first element matching one of ``keys`` that exists and can take focus. */
function firstFocusable(keys) {
  for (const key of keys) {
    if (!key) continue;
    const el = typeof key === "string" ? document.querySelector(key) : key;
    if (el && el.isConnected && !el.disabled && !el.closest("[inert], [hidden]")) return el;
  }
  return null;
}

/** Focus the first element matching one of ``keys`` that exists and can take focus. */
export function focusFirst(...keys) {
  const el = firstFocusable(keys);
  if (el && el !== document.activeElement) el.focus({ preventScroll: !el.closest("#overlay") && isOnScreen(el) });
  return el !== null;
}

// Whether the player's last input was a key (not a tap or a click).
let byKeyboard = false;
window.addEventListener("keydown", () => { byKeyboard = true; }, true);
window.addEventListener("pointerdown", () => { byKeyboard = false; }, true);

/** The same, without scrolling anything (a new dialog stays at its top) unless the player
 * uses the keyboard, who must see where focus went before pressing Enter. */
export function focusFirstInPlace(...keys) {
  const el = firstFocusable(keys);
  if (el && el !== document.activeElement) {
    el.focus({ preventScroll: true });
    if (byKeyboard) el.scrollIntoView({ block: "nearest" });
  }
  return el !== null;
}

function isOnScreen(el) {
  const r = el.getBoundingClientRect();
  return r.bottom > 0 && r.top < window.innerHeight;
}

export const FOCUSABLE = "button:not([disabled]), [href], input:not([disabled]), select:not([disabled]), textarea:not([disabled]), summary, [tabindex]:not([tabindex='-1'])";

/** The controls inside ``root`` that Tab can reach, in order. */
export function tabbables(root) {
  return [...root.querySelectorAll(FOCUSABLE)].filter((el) => !el.closest("[hidden], [inert]") && el.getClientRects().length);
}

// ---- the announcer -------------------------------------------------------------------------

const KEEP = 20;

/** Empty the announcer (a pass-and-play hand-off). */
export function clearAnnouncements() {
  const log = document.getElementById("announcer");
  if (log) log.replaceChildren();
}

/** Append a sentence to the one persistent live region (older lines are trimmed). */
export function announce(text) {
  if (!text) return;
  const log = document.getElementById("announcer");
  if (!log) return;
  const p = document.createElement("p");
  p.textContent = text;
  log.append(p);
  while (log.childElementCount > KEEP) log.firstElementChild.remove();
}
