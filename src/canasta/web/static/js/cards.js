// Card presentation only: parsing the two-character notation and drawing faces. No rules here.
import { t } from "./i18n.js";

export const SUIT_SYMBOL = { C: "♣", D: "♦", H: "♥", S: "♠" };
const RANK_ORDER = ["3", "4", "5", "6", "7", "8", "9", "T", "J", "Q", "K", "A", "2", "JK"];
const SUIT_ORDER = ["C", "D", "H", "S"];

export function rankOf(card) { return card === "JK" ? "JK" : card[0]; }
export function suitOf(card) { return card === "JK" ? null : card[1]; }
// Which cards are wild (R1) is the server's to say (GET /api/presets, ``cards.wild``): wild
// cards are drawn with a star so they stand out in the hand.
// The meld ranks (R5.1), in table order, come the same way (``cards.meld_ranks``).
let wildCards = new Set();
let meldRankList = [];
export function setCardFacts(facts) {
  wildCards = new Set((facts && facts.wild) || []);
  meldRankList = (facts && facts.meld_ranks) || [];
}
export function isWildFace(card) { return wildCards.has(card); }
export function meldRanks() { return meldRankList; }

export function rankLabel(rank) { return rank === "T" ? "10" : rank === "JK" ? "★" : rank; }

export function cardName(card) {
  if (card === "JK") return t("cards.joker");
  return t("cards.name", { rank: t(`cards.ranks.${card[0]}`), suit: t(`cards.suits.${card[1]}`) });
}

/** What the face shows: "K♣", "10♦", "★". */
export function cardShort(card) {
  if (card === "JK") return "★";
  return rankLabel(rankOf(card)) + SUIT_SYMBOL[suitOf(card)];
}

/** The accessible name: the visible label first, then the words ("K♣, king of clubs"). */
export function cardLabel(card) {
  const parts = [t("cards.label", { short: cardShort(card), name: cardName(card) })];
  if (isWildFace(card)) parts.push(t("cards.wild"));
  return parts.join(t("cards.sep"));
}

/** A list of cards for a sentence: "K♣ king of clubs, K♦ king of diamonds". */
export function cardList(cards) {
  return cards.map(cardLabel).join(t("cards.list_sep"));
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

/** A face-up card element (button when interactive; otherwise an image named like the card,
 * or hidden from assistive technology with ``decorative`` when its container is named). */
export function cardEl(card, { tag = "div", small = false, decorative = false } = {}) {
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
  if (decorative) el.setAttribute("aria-hidden", "true");
  else {
    if (tag !== "button") el.setAttribute("role", "img");
    el.setAttribute("aria-label", cardLabel(card));
  }
  el.dataset.card = card;
  return el;
}

export function backEl(small = false) {
  const el = document.createElement("div");
  el.className = "card back" + (small ? " small" : "");
  el.setAttribute("aria-hidden", "true");
  return el;
}
