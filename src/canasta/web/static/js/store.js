// The client's small amount of state: preferences, the current table message, selection and plan.

function readJson(key, fallback) {
  try {
    const v = JSON.parse(localStorage.getItem(key));
    return v == null ? fallback : v;
  } catch { return fallback; }
}

// The server issues this browser's identity (an HttpOnly session cookie the page never sees).
// A browser of the previous release kept a profile id of its own: it is handed over once.
export function legacyProfile() {
  try { return localStorage.getItem("canasta.profile"); } catch { return null; }
}

export function forgetLegacyProfile() {
  try { localStorage.removeItem("canasta.profile"); } catch { /* ignore */ }
}

const DEFAULT_PREFS = {
  lang: (navigator.language || "en").toLowerCase().startsWith("ja") ? "ja" : "en",
  sound: false,
  speed: "normal",
  fourColour: false,
  sort: "rank",
  shortcuts: true,        // single-character keys (D, T, F, X, U, S, M, ?); WCAG 2.1.4
  mode: "computer4",
  difficulty: "normal",
  preset: "classic",
  target: 5000,
  rules: {},
};

export const S = {
  account: null,          // {id, kind, name} from POST /api/session
  prefs: { ...DEFAULT_PREFS, ...readJson("canasta.prefs", {}) },
  presets: null,          // name -> settings JSON, from /api/presets
  tableId: null,
  sock: null,
  msg: null,              // last "state" message
  view: null,
  table: null,
  selection: new Set(),   // indexes into view.hand
  handCursor: null,       // the hand card that is the hand's one Tab stop (index into view.hand)
  plan: [],               // [{rank, idx: [indexes into view.hand]}]
  validation: null,
  validationFor: null,
  finishing: null,     // {groups, card}: the discard the server says finishes the staged melds
  notice: "",             // suggestion / hint text shown in the plan bar
  suggested: false,       // the notice is a suggestion's reason (shown with its label and note)
  softSelection: false,   // the selection is a suggested discard: a tap elsewhere replaces it
  confirmTake: false,
  screen: "start",
  peek: false,            // the end-of-hand scores are hidden to look at the table
  logOpen: null,          // the move log unfolded (null: the screen's default)
  meldDetail: null,       // {side, rank}: the meld whose cards the meld dialog lists
  connection: "closed",
};

export function savePrefs() {
  try { localStorage.setItem("canasta.prefs", JSON.stringify(S.prefs)); } catch { /* ignore */ }
}

/** Remember the match this browser plays, described for the start page's "Continue"
 * (``{table, mode, team}``), or forget it (null). Only a seated player's match is remembered.
 * The id keeps its own key (``canasta.table``); what it is goes beside it. */
export function rememberTable(entry) {
  try {
    if (entry) {
      localStorage.setItem("canasta.table", entry.table);
      localStorage.setItem("canasta.table.about", JSON.stringify({ table: entry.table, mode: entry.mode, team: entry.team }));
    } else {
      localStorage.removeItem("canasta.table");
      localStorage.removeItem("canasta.table.about");
    }
  } catch { /* ignore */ }
}

/** Forget the remembered match if it is this table (another table watched leaves it alone). */
export function forgetTable(id) {
  const last = lastTable();
  if (last && last.table === id) rememberTable(null);
  else if (!last) rememberTable(null);  // an id an older page kept, not described: dropped
}

/** The remembered match, or null. A bare id an older page kept says neither whose match it
 * is nor what it is: it is not offered. */
export function lastTable() {
  let id = null;
  try { id = localStorage.getItem("canasta.table"); } catch { return null; }
  const about = readJson("canasta.table.about", null);
  const described = about && typeof about === "object" && about.table === id && typeof about.mode === "string";
  return id && described ? about : null;
}
