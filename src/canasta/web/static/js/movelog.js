// The hand's move log, and each seat's last move: words for the view's history entries (what
// each seat did, with the cards everyone saw). Presentation only: the entries are the server's.
import { S } from "./store.js";
import { t } from "./i18n.js";
import { cardShort, rankLabel, rankOf } from "./cards.js";
import { h } from "./dom.js";

const WIDE = "(min-width: 900px)";

function cards(list) { return (list || []).map(cardShort).join(" "); }

function groups(list, top = null) {
  return (list || []).map((g) => {
    // a take's group of the top card's rank holds the top card too (it went into that meld)
    const shown = top && rankOf(top) === g.rank ? [top, ...g.cards] : g.cards;
    return t("log.group", { rank: rankLabel(g.rank), cards: cards(shown) });
  }).join(t("log.group_sep"));
}

/** What one history entry says a seat did, without the seat's name (or "" for nothing). */
export function movePhrase(entry) {
  if (!entry) return "";
  const a = entry.action;
  const out = [];
  if (!a) {
    if ((entry.red_threes || []).length) out.push(t("log.red_threes", { cards: cards(entry.red_threes) }));
    return out.join(t("log.sep"));
  }
  switch (a.type) {
    case "draw":
      // the seat's own drawn cards are in its view; others' only by their number
      if ((entry.cards || []).length) out.push(t("log.draw_cards", { cards: cards(entry.cards) }));
      else if (entry.drawn || !(entry.red_threes || []).length) out.push(t("log.draw", { n: entry.drawn || 0 }));
      break;
    case "take": {
      const n = entry.pile_size != null ? entry.pile_size : (entry.taken || []).length + 1;
      out.push(entry.top ? t("log.take_top", { n, top: cardShort(entry.top) }) : t("log.take", { n }));
      out.push(t("log.meld", { groups: groups(a.groups, entry.top) }));
      break;
    }
    case "meld":
      out.push(t("log.meld", { groups: groups(a.groups) }));
      if (a.discard) out.push(t("log.discard", { card: cardShort(a.discard) }));
      break;
    case "discard": out.push(t("log.discard", { card: cardShort(a.card) })); break;
    case "decline": out.push(t("log.decline")); break;
    case "ask": out.push(t("log.ask")); break;
    case "answer": out.push(a.yes ? t("log.yes") : t("log.no")); break;
    default: break;
  }
  if ((entry.red_threes || []).length) out.push(t("log.red_threes", { cards: cards(entry.red_threes) }));
  return out.join(t("log.sep"));
}

/** The last thing ``seat`` did this hand (its latest history entry with an action). */
export function lastPhraseOf(seat) {
  const history = (S.view && S.view.history) || [];
  for (let k = history.length - 1; k >= 0; k--) {
    if (history[k].seat === seat) return movePhrase(history[k]);
  }
  return "";
}

/** The end of the hand as the log's last line ("Left went out"), or null while it is played. */
function endLine(nameOf) {
  const v = S.view;
  if (!v || v.phase !== "over" || !v.result) return null;
  const r = v.result;
  if (r.went_out != null) {
    return { seat: r.went_out, name: nameOf(r.went_out), what: r.concealed ? t("log.went_out_concealed") : t("log.went_out") };
  }
  return { seat: null, name: "", what: t(`result.reason.${r.reason}`) };
}

/** The move log: a list of the hand's moves, newest last, under a heading whose button folds
 * it; unfolded by default on wide screens, folded on phones (the choice lasts while the page
 * lives). Not a live region: the announcer speaks the moves. */
export function moveLog(nameOf) {
  const v = S.view;
  const history = v.history || [];
  const items = [];
  history.forEach((entry) => {
    const what = movePhrase(entry);
    if (what) items.push({ seat: entry.seat, name: nameOf(entry.seat), what });
  });
  const end = endLine(nameOf);
  if (end) items.push(end);
  const open = S.logOpen != null ? S.logOpen : window.matchMedia(WIDE).matches;
  const box = h("section", { class: "movelog" + (open ? " open" : ""), id: "movelog", "aria-labelledby": "movelog-title" });
  const toggle = h("button", { type: "button", class: "movelog-toggle", id: "movelog-title", "aria-expanded": open ? "true" : "false", "aria-controls": "movelog-list" },
    h("span", null, t("log.title")), " ", h("span", "tag", t("log.count", { n: items.length })));
  toggle.addEventListener("click", (e) => {
    e.stopPropagation();
    S.logOpen = toggle.getAttribute("aria-expanded") !== "true";
    toggle.setAttribute("aria-expanded", String(S.logOpen));
    box.classList.toggle("open", S.logOpen);
    list.hidden = !S.logOpen;
    if (S.logOpen) scrollLog();
  });
  box.append(h("h2", "movelog-head", toggle));
  // scrollable, so it takes focus itself (keyboard users can scroll it too)
  const list = h("ol", { class: "movelog-list", id: "movelog-list", tabindex: "0", "aria-labelledby": "movelog-title" });
  if (!open) list.hidden = true;
  if (!items.length) list.append(h("li", "muted", t("log.empty")));
  const me = v.seat;
  for (const it of items) {
    const li = h("li", "log-item" + (it.seat != null && it.seat === me ? " mine" : ""),
      it.name ? h("b", "log-who", it.name) : null, it.name ? " " : null, h("span", "log-what", it.what));
    if (it.seat != null) li.dataset.seat = it.seat;
    list.append(li);
  }
  box.append(list);
  return box;
}

/** Show the newest moves (called once the log is on the page). */
export function scrollLog() {
  const list = document.getElementById("movelog-list");
  if (list) list.scrollTop = list.scrollHeight;
}
