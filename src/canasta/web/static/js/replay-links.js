// Ways into the replay page from elsewhere (the stats dialog, the end-of-hand dialogs, the
// address), and the page itself loaded only when first opened: the first load stays small.
import { t, language } from "./i18n.js";
import { api } from "./net.js";
import { h } from "./dom.js";

let page = null;  // the replay page's module (replay.js), once loaded

/** The replay page's module, loading it (and its style sheet) the first time. */
function replayPage() {
  if (page) return Promise.resolve(page);
  if (!document.querySelector('link[href="/static/css/replay.css"]')) {
    document.head.append(h("link", { rel: "stylesheet", href: "/static/css/replay.css" }));
  }
  return import("./replay.js").then((m) => { page = m; return m; });
}

/** Open the replay of a table's match (``ref`` = table id, or "table/match"); "" opens the import page. */
export function openReplay(ctl, ref) { return replayPage().then((m) => m.openReplay(ctl, ref)); }

/** Draw the replay page (it is loaded first if it was not yet). */
export function renderReplay(root, ctl) {
  if (page) page.renderReplay(root, ctl);
  else replayPage().then(() => ctl.redraw());
}

/** The record the replay page shows ("" for the page that opens a record file, or none yet). */
export function replayShown() { return page ? page.replayShown() : ""; }

/** The account's recent finished matches, each opening its replay (for the stats dialog). */
export function recentMatches(ctl) {
  const box = h("section", "recent-matches");
  box.id = "recent-matches";
  box.append(h("h3", null, t("replay.recent")));
  const list = h("ul", "recent-list");
  list.append(h("li", "muted", t("common.loading")));
  box.append(list);
  api("GET", "/api/replays").then((res) => {
    list.innerHTML = "";
    const matches = (res && res.matches) || [];
    if (!matches.length) list.append(h("li", "muted", t("replay.none")));
    for (const m of matches.slice(0, 10)) {
      const li = h("li");
      const parts = [m.preset ? t(`presets.${m.preset}`) : "", scoreLine(m.scores, m.team), new Date(m.finished_at).toLocaleDateString(language())];
      const b = h("button", "btn small ghost", `${t("replay.watch")} · ${parts.filter(Boolean).join(" · ")}`);
      b.type = "button";
      b.dataset.replay = m.replay;
      b.addEventListener("click", () => goTo(ctl, m.replay));
      li.append(b);
      list.append(li);
    }
  }).catch(() => { list.innerHTML = ""; list.append(h("li", "muted", t("replay.none"))); });
  const open = h("button", "btn small", t("replay.open_file"));
  open.type = "button";
  open.id = "btn-open-record";
  open.addEventListener("click", () => goTo(ctl, ""));
  box.append(open);
  return box;
}

/** A match's totals, "1200 (you) – 800 – 500": team is the index of the player's own
 * total as the server says (null: pass-and-play, where every total is the player's). */
export function scoreLine(scores, team) {
  if (!Array.isArray(scores)) return "";
  return scores.map((n, i) => (i === team ? t("start.score_yours", { n }) : String(n))).join(" – ");
}

/** Go to a replay's page (its address can be shared); "" is the page to open a record file. */
function goTo(ctl, ref) {
  ctl.openReplay(ref);
}

/** The end-of-match dialog's button to this table's replay. */
export function replayLink(ctl, tableId) {
  const b = h("button", "btn", t("replay.watch_match"));
  b.type = "button";
  b.id = "btn-replay";
  b.addEventListener("click", () => goTo(ctl, tableId));
  return b;
}

/** The committed deal, discreetly: a line for the table's end-of-hand dialog (null: none). */
export function fairnessLine(table) {
  const f = table && table.fairness;
  if (!f) return null;
  const d = h("details", "fairness");
  d.id = "fairness";
  d.append(h("summary", null, t("replay.fairness")));
  d.append(h("p", "mono", t("replay.commitment", { hash: f.hand_commitment })));
  if (f.hand_seed) d.append(h("p", "mono", t("replay.seed", { seed: f.hand_seed })));
  if (f.secret) d.append(h("p", "mono", t("replay.secret", { secret: f.secret })));
  return d;
}
