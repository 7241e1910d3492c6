// Card presentation only: parsing the two-character notation and drawing faces. No rules here.
import { t } from "./i18n.js";

export const SUIT_SYMBOL = { C: "♣", D: "♦", H: "♥", S: "♠" };
const RANK_ORDER = ["3", "4", "5", "6", "7", "8", "9", "T", "J", "Q", "K", "A", "2", "JK"];
const SUIT_ORDER = ["C", "D", "H", "S"];
export const MELD_RANKS = ["A", "K", "Q", "J", "T", "9", "8", "7", "6", "5", "4"];

export function rankOf(card) { return card === "JK" ? "JK" : card[0]; }
export function suitOf(card) { return card === "JK" ? null : card[1]; }
/** Jokers and twos: shown with a star so they stand out in the hand. */
export function isWildFace(card) { return card === "JK" || card[0] === "2"; }

export function rankLabel(rank) { return rank === "T" ? "10" : rank === "JK" ? "★" : rank; }

export function cardName(card) {
  if (card === "JK") return t("cards.joker");
  return t("cards.name", { rank: t(`cards.ranks.${card[0]}`), suit: t(`cards.suits.${card[1]}`) });
}

export function sortCards(cards, mode) {
  const r = (c) => RANK_ORDER.indexOf(rankOf(c));
  const s = (c) => (c === "JK" ? 9 : SUIT_ORDER.indexOf(suitOf(c)));
  const wildLast = (c) => (isWildFace(c) ? 1 : 0);
  const items = cards.map((c, i) => ({ c, i }));
  items.sort((a, b) => mode === "suit"
    ? wildLast(a.c) - wildLast(b.c) || s(a.c) - s(b.c) || r(a.c) - r(b.c) || a.i - b.i
    : r(a.c) - r(b.c) || s(a.c) - s(b.c) || a.i - b.i);
  return items;
}

/** A face-up card element (button when interactive). */
export function cardEl(card, { tag = "div", small = false } = {}) {
  const el = document.createElement(tag);
  el.className = "card" + (small ? " small" : "");
  if (tag === "button") el.type = "button";
  const suit = suitOf(card);
  if (card === "JK") el.classList.add("joker");
  else el.classList.add(`suit-${suit}`);
  if (isWildFace(card)) el.classList.add("wild");
  const rank = rankLabel(rankOf(card));
  const sym = suit ? SUIT_SYMBOL[suit] : "";
  el.innerHTML = `<span class="corner" aria-hidden="true"><b>${rank}</b><i>${sym}</i></span>` +
    `<span class="pip" aria-hidden="true">${card === "JK" ? "★" : sym}</span>`;
  el.setAttribute("aria-label", cardName(card));
  el.dataset.card = card;
  return el;
}

export function backEl(small = false) {
  const el = document.createElement("div");
  el.className = "card back" + (small ? " small" : "");
  el.setAttribute("aria-hidden", "true");
  return el;
}
