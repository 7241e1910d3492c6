// Words for the server's structured reasons: a suggestion's reason and a refusal's details are
// codes with numbers (docs/protocol.md); this module only puts them into the player's language.
import { t } from "./i18n.js";
import { rankLabel, cardShort } from "./cards.js";

/** Template parameters from a reason's or refusal's data: ranks and cards as they read. */
function words(data) {
  const out = {};
  for (const [k, v] of Object.entries(data || {})) {
    if (v == null || typeof v === "object") continue;
    out[k] = v;
  }
  if (data.rank) {
    out.rank = rankLabel(data.rank);
    out.ranks = t(`cards.plural.${data.rank}`);
  }
  if (data.card) out.card = cardShort(data.card);
  if (Array.isArray(data.causes)) out.causes = data.causes.map((k) => t(`causes.${k}`)).join(t("cards.list_sep"));
  return out;
}

/** ``key`` filled with ``params``, or null when the language has no words for it (or the data
 * lacks a number it needs). */
function filled(key, params) {
  const s = t(key, params);
  if (s === key || /\{\w+\}/.test(s)) return null;
  return s;
}

/** The cards of a meld action, as on the faces: "K♥ K♦ K♠". */
function meldCards(action) {
  const cards = [];
  for (const g of (action && action.groups) || []) cards.push(...g.cards);
  if (action && action.discard) cards.push(action.discard);
  return cards.map(cardShort).join(" ");
}

/** A refusal (an error or a validation) in words, with its numbers when the server sent them. */
export function refusalText(err) {
  const details = err.details || {};
  const params = words(details);
  // a validation's own count and opening minimum (points), unless the refusal's details carry
  // theirs (a meld's least size, in cards)
  if (err.count != null && params.count == null) params.count = err.count;
  if (err.minimum != null && params.minimum == null) params.minimum = err.minimum;
  const detailed = filled(`refusals.${err.code}`, params);
  if (detailed) return detailed;
  const plain = filled(`errors.${err.code}`, params);
  if (plain) return plain;
  const online = filled(`online.errors.${err.code}`, params);
  if (online) return online;
  // A code we have no words for: English keeps the server's sentence, others a generic line.
  if (t("lang.code") === "en" && err.message) return err.message;
  return t("errors.generic");
}

/** A suggestion's one-line reason: "Draw: the pile is frozen and you hold no pair of 9s." */
export function reasonText(reason, action) {
  if (!reason || !reason.code) return t("suggest.other");
  const params = words(reason);
  params.cards = meldCards(action);
  params.n = reason.opponents != null ? reason.opponents : reason.naturals;
  if (reason.size != null) params.one = reason.size === 1;  // a pile of one card
  if (reason.code === "draw_cannot_take") {
    const why = filled(`reasons.draw_why.${reason.why}`, params);
    if (why) return why;
    return t("reasons.draw_why.other", { why: refusalText({ code: reason.why, details: reason }) });
  }
  const code = reason.code === "meld_canasta" && reason.natural === false ? "meld_canasta_mixed" : reason.code;
  return filled(`reasons.${code}`, params) || t("suggest.other");
}
