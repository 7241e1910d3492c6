// Drawing the table from a SeatView and handling the player's planning. The server decides
// what is legal: this module only shows the view, stages plans and asks the server.
import { S } from "./store.js";
import { t } from "./i18n.js";
import { isOnline, onlineName, seatMarks, countdown, autoBanner, watchLine } from "./online.js";
import { cardEl, backEl, sortCards, rankOf, rankLabel, meldRanks, cardName, cardShort, cardLabel, cardList } from "./cards.js";
import { h, $ } from "./dom.js";
import { refusalText } from "./reasons.js";


// The move log (movelog.js) loads when a table first opens (session.js), not with the page.
let movelog = null;
/** Load what only a table needs; the table is drawn once it is here. */
export function loadTableParts() {
  return movelog ? Promise.resolve() : import("./movelog.js").then((m) => { movelog = m; });
}

/** Layout only: from this many melds in an area, the chips shrink to fit. */
const CROWDED_MELDS = 7;

// ---- who is who -------------------------------------------------------------------------

export function mySeat() {
  const v = S.view;
  if (!v) return 0;
  if (v.seat != null) return v.seat;
  if (S.table && S.table.seat != null) return S.table.seat;
  return S.table && (S.table.mode === "computer" || S.table.mode === "online") ? 0 : v.turn;
}

/** The reader only watches (the server's ``table.watching``): an online match they are not
 * seated at, or another browser's table, pass-and-play's included (whose own player has no
 * seat between hand-offs, but is not watching). */
export function watching() {
  return !!S.table && S.table.watching === true;
}

/** A seat's name; ``inHand``: as in this hand (three players: a partner named so, R14). */
export function seatName(seat, inHand = true) {
  const v = S.view;
  const n = v ? v.hand_counts.length : 4;
  const mode = S.table ? S.table.mode : "computer";
  if (mode === "local") return t("seat.player", { n: seat + 1 });
  if (mode === "online" && S.table.seats) return onlineName(seat);
  if (watching()) return t("seat.player", { n: seat + 1 });  // nobody here is "You"
  const me = 0;
  if (seat === me) return t("seat.you");
  if (n === 2) return t("seat.computer");
  if (n === 4 && seat === 2) return t("seat.partner");
  if (n === 4) return seat === 1 ? t("seat.left") : t("seat.right");
  // three players (R14): the one who did not take the pile first is my partner for the hand
  if (inHand && v && v.sides[seat] === v.sides[me]) return seat === 1 ? t("seat.partner_left") : t("seat.partner_right");
  return seat === 1 ? t("seat.left") : t("seat.right");
}

/** Other seats in drawing order: left, across, right. */
function otherSeats() {
  const n = S.view.hand_counts.length;
  const me = mySeat();
  const out = [];
  // a spectator sees every seat's badge (nobody's hand)
  const first = watching() ? 0 : 1;
  for (let k = first; k < n; k++) out.push((me + k) % n);
  return out;
}

/** Seats named together: online, the reader's own seat first ("You & Di"), then by seat
 * (pass-and-play's "Player 1 & Player 3" keeps seat order whoever holds the device). */
function namesOf(seats) {
  const online = S.table && S.table.mode === "online";
  const me = online && !watching() ? mySeat() : -1;
  return [...seats].sort((a, b) => (b === me) - (a === me) || a - b).map((s) => seatName(s)).join(" & ");
}

export function sideName(side) {
  const v = S.view;
  const seats = v.sides.map((s, i) => (s === side ? i : -1)).filter((i) => i >= 0);
  const mine = v.sides[mySeat()] === side;
  if (S.table && S.table.mode === "computer" && !watching()) {
    if (mine) return seats.length > 1 ? t("side.us") : t("seat.you");
    return seats.length > 1 ? t("side.them") : namesOf(seats);
  }
  return namesOf(seats);
}

/** A match score's owner; ``inHand``: named as in this hand (the score bar, during play). */
export function teamName(team, inHand = false) {
  const v = S.view;
  const seats = v.teams.map((x, i) => (x === team ? i : -1)).filter((i) => i >= 0);
  if (S.table && S.table.mode === "computer" && !watching()) {
    const mine = seats.includes(0);
    if (seats.length > 1) return mine ? t("side.us") : t("side.them");
    return seatName(seats[0], inHand);  // (at the end: a match's player, not a hand's partner)
  }
  return namesOf(seats);
}

// ---- plan helpers -----------------------------------------------------------------------

export function plannedIdx() {
  const out = new Set();
  for (const g of S.plan) for (const i of g.idx) out.add(i);
  return out;
}

export function planGroups() {
  const hand = S.view.hand || [];
  return S.plan.map((g) => ({ rank: g.rank, cards: g.idx.map((i) => hand[i]) }));
}

/** The action the current plan stands for (take in the draw phase, meld in the play phase). */
export function planAction(discardIdx = null) {
  const v = S.view;
  const groups = planGroups();
  if (v.phase === "draw") {
    const top = v.pile.top;
    const topRank = top ? rankOf(top) : null;
    if (topRank && !groups.some((g) => g.rank === topRank)) groups.unshift({ rank: topRank, cards: [] });
    return { type: "take", groups };
  }
  const a = { type: "meld", groups };
  if (discardIdx != null) a.discard = v.hand[discardIdx];
  return a;
}

/** The hand index of the going-out discard: the one selected card outside the plan that the
 * server's live validation names as finishing the staged melds (R10.1; melds and that
 * discard then go as one action), else null. */
export function goOutDiscardIdx() {
  const v = S.view;
  if (!v || v.phase !== "play" || !S.plan.length || !v.hand || !S.finishing) return null;
  const planned = plannedIdx();
  const free = [...S.selection].filter((i) => !planned.has(i));
  if (free.length !== 1 || S.finishing.groups !== JSON.stringify(planGroups())) return null;
  return v.hand[free[0]] === S.finishing.card ? free[0] : null;
}

/** Does the server's live validation say the staged plan is illegal? */
export function planRefused() { return !!(S.plan.length && S.validation && S.validation.legal === false); }

/** Ranks the current selection can be staged on: those every selected card may go to (the
 * view lists each hand card's, R5.1), in the table's order. */
export function selectionTargets() {
  return targetsOf([...S.selection]);
}

/** The ranks all of the hand cards at ``idx`` may be staged on (none for no cards). */
export function targetsOf(idx) {
  const each = S.view.hand_targets || [];
  if (!idx.length) return [];
  return idx.map((i) => each[i] || []).reduce((acc, ranks) => acc.filter((r) => ranks.includes(r)));
}

export function remapIndexes(oldHand, newHand, idx) {
  const used = new Set();
  const out = [];
  for (const i of idx) {
    const card = oldHand[i];
    const j = newHand.findIndex((c, k) => c === card && !used.has(k));
    if (j < 0) return null;
    used.add(j);
    out.push(j);
  }
  return out;
}

function legalOf(type) { return (S.view.legal || []).filter((a) => a.type === type); }
/** Online: auto-play, or an abandoned match. */
function computerActs() {
  const tb = S.table;
  if (!tb || tb.mode !== "online" || !tb.online) return false;
  return tb.status === "abandoned" || (mySeat() != null && !!tb.online.auto[mySeat()]);
}
function myTurn() {
  const v = S.view;
  return v && v.hand != null && v.turn === mySeat() && v.phase !== "over" && !(S.table && S.table.handoff != null) && !computerActs();
}
export function canAct(type) { return myTurn() && legalOf(type).length > 0; }

// ---- drawing ----------------------------------------------------------------------------

let ctlSend = () => {};
/** How the table's own controls (the auto-play banner) send a message to the table. */
export function setSender(fn) { ctlSend = fn; }
let ctlLeave = () => {};
export function setLeaver(fn) { ctlLeave = fn; }

export function renderTable(root, actions) {
  const v = S.view;
  root.innerHTML = "";
  delete root.dataset.phase;
  delete root.dataset.myTurn;
  if (!v) {
    root.append(h("p", "loading", t("table.connecting")));
    return;
  }
  root.classList.toggle("four-colour", !!S.prefs.fourColour);
  root.dataset.phase = v.phase;
  root.dataset.myTurn = myTurn() ? "yes" : "no";
  root.dataset.version = S.msg ? S.msg.version : "";
  const me = mySeat();
  const mySide = v.sides[me];
  const myTeam = v.teams[me];
  root.append(h("h1", "sr-only", t("table.heading")));

  // other seats
  const seats = h("section", "seats");
  seats.setAttribute("aria-label", t("table.players"));
  for (const s of otherSeats()) seats.append(seatBadge(s));
  root.append(seats);

  // melds of the other sides, then the centre and the move log, then ours
  const board = h("section", { class: "board", id: "board" });
  const sides = [...new Set(v.sides)];
  board.style.setProperty("--sides", sides.length);
  for (const side of sides.filter((x) => x !== mySide)) board.append(meldArea(side, false, actions));
  const column = h("div", "side-col");
  column.style.setProperty("--rows", `1 / span ${sides.length}`);
  column.append(centre(actions));
  if (movelog) column.append(movelog.moveLog(seatName));
  board.append(column);
  board.append(meldArea(mySide, true, actions));
  root.append(board);

  // my seat: status, plan, targets, hand, buttons
  const mine = h("section", { class: "mine", id: "mine" });
  mine.setAttribute("aria-label", t("table.your_area"));
  mine.append(statusLine(me));
  mine.append(planBar(actions, mySide, myTeam));
  mine.append(targetRow(actions, mySide));
  mine.append(handRow(actions));
  mine.append(buttonRow(actions));
  root.append(mine);
  root.append(tableNav());
  layoutHand();
  if (movelog) movelog.scrollLog();
}

/** Small screens: two buttons that move between the played melds and the hand with its plan
 * (seed 000's "Played melds" and "Hand / plan"). */
function tableNav() {
  const nav = h("nav", { class: "table-nav", "aria-label": t("table.nav") });
  const go = (id, target, focus, label) => {
    const b = h("button", { type: "button", class: "btn", id }, label);
    b.addEventListener("click", (e) => {
      e.stopPropagation();
      const el = document.querySelector(target);
      if (!el) return;
      // just under the sticky header
      const head = document.querySelector("header");
      const top = el.getBoundingClientRect().top + window.scrollY - (head ? head.offsetHeight : 0) - 4;
      window.scrollTo({ top: Math.max(0, top) });
      const to = el.querySelector(focus);
      if (to) {
        if (to.tabIndex < 0 && to.tagName === "H2") to.tabIndex = -1;
        to.focus({ preventScroll: true });
      }
    });
    return b;
  };
  nav.append(go("btn-nav-melds", "#board", "h2", t("table.nav_melds")),
    go("btn-nav-hand", "#mine", "#hand .card[tabindex='0'], #hand", t("table.nav_hand")));
  return nav;
}

/** The hand's cards in even rows: as many per row as fit with every card's visible strip at
 * least a fingertip wide (44 CSS px), the rows as equal as they can be (15 cards: 8 + 7). */
export function layoutHand() {
  const hand = document.getElementById("hand");
  if (!hand) return;
  const cards = hand.querySelectorAll(".card");
  if (!cards.length) return;
  const cw = cards[0].offsetWidth || 44;
  const step = Math.max(44, Math.round(cw * 0.7));
  // the room there is: the hand's row, less what the last card shows past its strip
  const room = (hand.parentElement ? hand.parentElement.clientWidth : hand.clientWidth) - (cw - step);
  const fit = Math.max(1, Math.floor(room / step));
  const rows = Math.ceil(cards.length / fit);
  hand.style.setProperty("--step", `${step}px`);
  hand.style.setProperty("--cols", String(Math.ceil(cards.length / rows)));
}
window.addEventListener("resize", () => layoutHand());

function seatBadge(seat) {
  const v = S.view;
  const b = h("div", "seat");
  b.dataset.seat = seat;
  if (v.turn === seat && v.phase !== "over") b.classList.add("active");
  if (v.sides[seat] === v.sides[mySeat()]) b.classList.add("ally");
  const name = h("div", "seat-name");
  name.append(h("span", "seat-label", seatName(seat)));
  const info = S.table && S.table.seats && S.table.seats[seat];
  if (info && info.kind === "computer" && info.level && !(isOnline() && S.table.online.auto[seat] === "left")) name.append(h("small", "level", t(`difficulty.${info.level}`)));
  for (const mark of seatMarks(seat)) name.append(mark);
  const clock = countdown(seat);
  if (clock) name.append(clock);
  b.append(name);
  const count = v.hand_counts[seat];
  const fan = h("div", "fan");
  for (let i = 0; i < Math.min(count, 8); i++) fan.append(backEl(true));
  b.append(fan);
  const c = h("div", "seat-count", t("table.cards_count", { n: count }));
  b.append(c);
  const last = movelog && movelog.lastPhraseOf(seat);
  if (last) b.append(h("div", "seat-last", last));
  const r3 = v.red_threes[seat] || [];
  if (r3.length) {
    const rt = h("div", "seat-r3");
    for (const card of r3) rt.append(cardEl(card, { small: true }));
    b.append(rt);
  }
  const playing = v.turn === seat && v.phase !== "over" ? t("table.seat_playing") : "";
  b.setAttribute("aria-label", `${seatName(seat)}: ${t("table.cards_count", { n: count })}${playing}` +
    (last ? t("cards.sep") + t("log.last", { what: last }) : ""));
  b.setAttribute("role", "group");
  return b;
}

function meldArea(side, mine, actions) {
  const v = S.view;
  const area = h("div", "melds " + (mine ? "ours" : "theirs"));
  area.dataset.side = side;
  area.id = mine ? "our-melds" : `melds-${side}`;
  const head = h("div", "melds-head");
  head.append(h("h2", "side-name", sideName(side)));
  const opened = v.opened[side];
  head.append(h("span", "tag " + (opened ? "ok" : "muted"), opened ? t("table.opened") : t("table.not_opened")));
  if (v.canastas[side]) head.append(h("span", "tag gold", t("table.canastas_n", { n: v.canastas[side] })));
  const r3 = [];
  v.sides.forEach((s, seat) => { if (s === side) r3.push(...(v.red_threes[seat] || [])); });
  const r3box = h("span", "r3");
  if (!r3.length) r3box.classList.add("none");
  r3box.append(h("span", "r3-label", t("table.red_threes", { n: r3.length })));
  for (const card of r3) r3box.append(cardEl(card, { small: true }));
  head.append(r3box);
  area.append(head);
  const list = h("div", "meld-list");
  const targets = mine ? selectionTargets() : [];
  const melds = v.melds[side] || [];
  if (!melds.length) list.append(h("span", "empty", t("table.no_melds")));
  if (melds.length >= CROWDED_MELDS) area.dataset.many = "";
  for (const m of melds) {
    const chip = meldChip(m, { interactive: true });
    const b = chip.querySelector("button.meld-meta");
    if (mine && S.selection.size) {
      // cards are selected: our meld is where they go
      if (targets.includes(m.rank)) {
        chip.classList.add("target");
        b.setAttribute("aria-label", b.getAttribute("aria-label") + t("cards.sep") + t("table.meld_stage_here"));
      } else b.setAttribute("aria-disabled", "true");
      chip.addEventListener("click", (e) => { e.stopPropagation(); actions.stage(m.rank); });
    } else {
      // nothing selected (or another side's meld): the meld opens to show its cards
      b.setAttribute("aria-haspopup", "dialog");
      b.setAttribute("aria-label", b.getAttribute("aria-label") + t("cards.sep") + t("table.meld_open"));
      chip.addEventListener("click", (e) => { e.stopPropagation(); actions.openMeld(side, m.rank); });
    }
    list.append(chip);
  }
  area.append(list);
  return area;
}

/** A meld as a chip: an image named like its visible label, or (ours) a chip whose label part
 * is a button to stage onto; the fanned faces are decoration either way. */
export function meldChip(m, { interactive = false } = {}) {
  const chip = h("div", "meld");
  chip.dataset.rank = m.rank;
  const n = m.cards.length;
  if (m.canasta) chip.classList.add("canasta", m.natural ? "natural" : "mixed");
  const face = h("div", "meld-face");
  face.setAttribute("aria-hidden", "true");
  const shown = m.cards.filter((c) => rankOf(c) === m.rank);
  const first = shown[0] || m.cards[0];
  const stack = Math.min(n, 4);
  for (let i = 0; i < stack; i++) {
    const c = cardEl(i === stack - 1 ? first : (m.cards[i] || first), { small: true, decorative: true });
    c.style.setProperty("--i", i);
    face.append(c);
  }
  chip.append(face);
  const meta = h(interactive ? "button" : "div", "meld-meta");
  if (interactive) { meta.type = "button"; meta.dataset.rank = m.rank; }
  meta.append(h("b", "meld-rank", rankLabel(m.rank)));
  meta.append(h("span", "meld-count", t("table.meld_count", { n })));
  meta.append(h("span", "meld-type " + (m.natural ? "nat" : "mix"), m.natural ? t("table.natural") : t("table.mixed")));
  if (m.wilds) meta.append(h("span", "meld-wilds", t("table.wilds_n", { n: m.wilds })));
  if (m.canasta) meta.append(h("span", "bonus", t("table.canasta_bonus", { n: m.bonus })));
  // Spaces between the grid items, so the label reads as words ("8 ×4 Mixed"), not "8×4Mixed".
  for (const part of [...meta.children].slice(1)) meta.insertBefore(document.createTextNode(" "), part);
  chip.append(meta);
  // The name reads the visible label in order, then what it means.
  const parts = [`${rankLabel(m.rank)} ${t("table.meld_count", { n })}`, m.natural ? t("table.natural") : t("table.mixed")];
  if (m.wilds) parts.push(t("table.wilds_n", { n: m.wilds }));
  if (m.canasta) parts.push(t("table.canasta_bonus", { n: m.bonus }));
  parts.push(t("table.meld_aria", { rank: rankLabel(m.rank), n }));
  if (interactive) meta.setAttribute("aria-label", parts.join(t("cards.sep")));
  else {
    chip.setAttribute("role", "img");
    chip.setAttribute("aria-label", parts.join(t("cards.sep")));
  }
  return chip;
}

function centre(actions) {
  const v = S.view;
  const mySide = v.sides[mySeat()];
  const c = h("div", "centre");
  // stock
  const stock = h("button", "pile-slot stock");
  stock.type = "button";
  stock.id = "stock";
  stock.append(v.stock_size ? backEl() : h("div", "card empty-slot"));
  stock.append(h("span", "slot-label", t("table.stock_n", { n: v.stock_size })));
  stock.setAttribute("aria-label", t("table.stock_n", { n: v.stock_size }) + t("cards.sep") +
    (canAct("draw") ? t("table.can_draw") : t("table.cannot_draw")));
  if (canAct("draw")) stock.classList.add("can");
  stock.addEventListener("click", (e) => { e.stopPropagation(); actions.draw(); });
  c.append(stock);
  // pile
  const pile = h("button", "pile-slot pile");
  pile.type = "button";
  pile.id = "pile";
  const frozen = v.pile.frozen[mySide];
  if (v.pile.top) {
    const top = cardEl(v.pile.top, { decorative: true });
    if (v.pile.size > 1) top.classList.add("stacked");
    pile.append(top);
  } else pile.append(h("div", "card empty-slot"));
  pile.append(h("span", "slot-label", t("table.pile_n", { n: v.pile.size })));
  if (frozen) pile.classList.add("frozen");
  if (v.pile.blocked && v.pile.top) pile.classList.add("blocked");
  const sel = [...S.selection];
  let state = t("table.pile_not_now");
  if (myTurn() && v.phase === "play") state = sel.length === 1 ? t("table.pile_discard_here", { card: cardName(v.hand[sel[0]]) }) : t("table.pile_select_to_discard");
  if (myTurn() && v.phase === "play" && sel.length === 1) pile.classList.add("can");
  if (myTurn() && v.phase === "draw" && (canAct("take") || S.plan.length)) {
    pile.classList.add("can");
    state = t("table.pile_can_take");
  } else if (myTurn() && v.phase === "draw") state = t("table.pile_cannot_take");
  // The name starts with what the slot shows (its top card, then "Pile n").
  const named = [v.pile.top ? `${cardShort(v.pile.top)} ${t("table.pile_n", { n: v.pile.size })}` : t("table.pile_n", { n: v.pile.size })];
  if (v.pile.top) named.push(t("table.pile_top", { card: cardName(v.pile.top) }));
  if (frozen) named.push(t("table.frozen"));
  named.push(state);
  pile.setAttribute("aria-label", named.join(t("cards.sep")));
  pile.addEventListener("click", (e) => { e.stopPropagation(); actions.pileTap(); });
  c.append(pile);
  // info (a spectator has no side: the freeze and minimum hints speak to a side)
  const info = h("div", "pile-info");
  if (watching()) {
    if (v.pile.frozen.some(Boolean)) info.append(h("div", "tag ice", `❄ ${t("table.frozen")}`));
    c.append(info);
    return c;
  }
  if (frozen) {
    const causes = (v.pile.causes[mySide] || []).map((k) => t(`causes.${k}`)).join(", ");
    info.append(h("div", "tag ice", `❄ ${t("table.frozen")}: ${causes}`));
  } else info.append(h("div", "tag ok", t("table.not_frozen")));
  if (v.pile.blocked && v.pile.top) {
    const why = t(`table.blocked.${v.pile.blocked_reason}`);
    info.append(h("div", "tag stop", `⊘ ${why}`));
  }
  const myTeam = v.teams[mySeat()];
  if (!v.opened[mySide]) info.append(h("div", "tag", t("table.minimum", { n: v.opening_minimums[myTeam] })));
  c.append(info);
  return c;
}

function statusLine(me) {
  const v = S.view;
  const el = h("div", { class: "status", id: "status" });
  let text;
  if (S.table && S.table.status === "abandoned") text = t("status.abandoned");
  else if (v.phase === "over") text = t("status.hand_over");
  else if (S.table && S.table.paused) text = t("status.paused");
  else if (v.turn === me && v.hand != null && computerActs()) text = t("status.auto");
  else if (v.turn === me && v.hand != null) {
    if (v.phase === "draw") text = t("status.your_draw");
    else if (v.phase === "ask") text = t("status.answer");
    else {
      const answer = v.turn_state && v.turn_state.asker === me ? v.turn_state.ask : null;  // R11
      text = t(answer === "yes" ? "status.go_out_now" : answer === "no" ? "status.no_going_out" : "status.your_play");
    }
  } else text = t("status.waiting", { name: seatName(v.turn) });
  el.textContent = text;
  if (S.connection !== "open") el.append(h("span", "tag stop", t("status.reconnecting")));
  const mineTurn = v.turn === me && v.hand != null && v.phase !== "over" && !computerActs();
  if (isOnline()) {
    const clock = v.hand != null ? countdown(me) : null;
    if (clock) el.append(" ", clock);
    const watching = watchLine();
    if (watching) el.append(" ", watching);
    for (const mark of v.hand != null ? seatMarks(me).filter((m) => m.classList.contains("bubble")) : []) el.append(" ", mark);
  }
  const wrap = h("div", "status-wrap" + (mineTurn ? " mine-turn" : ""));
  const banner = autoBanner((msg) => ctlSend(msg), () => ctlLeave());
  if (banner) wrap.append(banner);
  wrap.append(el);
  const last = lastMove();
  if (last) {
    const lm = h("div", "last-move", last);
    lm.id = "last-move";
    wrap.append(lm);
  }
  return wrap;
}

/** A sentence about the latest action of the table (public information only). */
function lastMove() {
  const v = S.view;
  return moveSentence((v.history || [])[v.history.length - 1]);
}

/** A sentence for one history entry; ``detailed`` adds the cards (for the announcer). */
export function moveSentence(entry, detailed = false) {
  if (!entry) return "";
  const name = seatName(entry.seat);
  if (!entry.action) {
    // the deal's red threes, laid out at once
    return detailed && (entry.red_threes || []).length ? t("moves.red_threes", { name, cards: nameList(entry.red_threes) }) : "";
  }
  if (detailed) return detailedMove(entry, name);
  const a = entry.action;
  switch (a.type) {
    case "draw": return t("moves.draw", { name, n: entry.drawn || 1 });
    case "take": return t("moves.take", { name });
    case "meld": return a.discard ? t("moves.meld_discard", { name, card: cardName(a.discard) }) : t("moves.meld", { name });
    case "discard": return t("moves.discard", { name, card: cardName(a.card) });
    case "decline": return t("moves.decline", { name });
    case "ask": return t("moves.ask", { name });
    case "answer": return a.yes ? t("moves.yes", { name }) : t("moves.no", { name });
    default: return "";
  }
}

function detailedMove(entry, name) {
  const a = entry.action;
  const out = [];
  switch (a.type) {
    case "draw":
      if (entry.cards && entry.cards.length) out.push(t("moves.draw_cards", { name, cards: nameList(entry.cards) }));
      else out.push(t("moves.draw", { name, n: entry.drawn || 1 }));
      break;
    case "take":
      out.push(t("moves.take_cards", { name, n: (entry.taken || []).length + 1 }));
      for (const g of a.groups || []) out.push(groupSentence(g));
      break;
    case "meld":
      out.push(t("moves.meld", { name }));
      for (const g of a.groups || []) out.push(groupSentence(g));
      if (a.discard) out.push(t("moves.then_discard", { card: cardName(a.discard) }));
      break;
    case "discard": out.push(t("moves.discard", { name, card: cardName(a.card) })); break;
    default: out.push(moveSentence(entry));
  }
  if (entry.red_threes && entry.red_threes.length) out.push(t("moves.red_threes", { name, cards: nameList(entry.red_threes) }));
  return out.filter(Boolean).join(" ");
}

function groupSentence(g) {
  const cards = g.cards || [];
  return t("moves.group", { rank: rankLabel(g.rank), cards: cards.length ? nameList(cards) : t("moves.top_card") });
}

function planBar(actions, mySide, myTeam) {
  const v = S.view;
  const bar = h("div", { class: "planbar", id: "planbar" });
  const groups = h("div", "plan-groups");
  const hand = v.hand || [];
  for (const g of S.plan) {
    const box = h("div", "plan-group");
    box.dataset.rank = g.rank;
    box.setAttribute("role", "group");
    box.setAttribute("aria-label", t("plan.group_label", { rank: rankLabel(g.rank), cards: nameList(g.idx.map((i) => hand[i])) }));
    box.append(h("b", "plan-rank", rankLabel(g.rank)));
    box.lastChild.setAttribute("aria-hidden", "true");
    for (const i of g.idx) box.append(cardEl(hand[i], { small: true, decorative: true }));
    const x = h("button", "plan-x", "×");
    x.type = "button";
    x.setAttribute("aria-label", t("plan.remove", { rank: rankLabel(g.rank) }));
    x.addEventListener("click", (e) => { e.stopPropagation(); actions.unstage(g.rank); });
    box.append(x);
    groups.append(box);
  }
  if (S.plan.length) bar.append(groups);
  const info = h("div", "plan-info");
  const val = S.validation;
  if (S.plan.length && !v.opened[mySide]) {
    const minimum = val && val.minimum != null ? val.minimum : v.opening_minimums[myTeam];
    let cnt;
    if (val && val.count != null) {
      cnt = h("span", "tag count " + (val.count >= minimum ? "ok" : "short"), t("plan.count", { count: val.count, minimum }));
    } else if (val && val.legal) {
      cnt = h("span", "tag count ok", t("plan.minimum_met", { minimum }));
    } else {
      cnt = h("span", "tag count", t("plan.minimum_needed", { minimum }));
    }
    cnt.id = "plan-count";
    info.append(cnt);
  }
  if (S.plan.length && val) {
    const msg = h("span", "validation " + (val.legal ? "ok" : "bad"), val.legal ? t("plan.legal") : errorText(val));
    msg.id = "validation";
    info.append(msg);
  }
  if (S.notice) {
    const notice = h("span", { class: "notice", id: "notice" });
    if (S.suggested) {
      // a suggestion is the computer's judgement: said once, with the suggestion
      notice.append(h("b", "suggest-label", t("suggest.label")), " ",
        h("span", { id: "suggest-reason" }, S.notice), " ",
        h("small", { class: "suggest-note", id: "suggest-note" }, t("suggest.note")));
    } else notice.append(S.notice);
    info.append(notice);
  }
  if (info.childNodes.length) bar.append(info);
  if (!bar.childNodes.length) bar.classList.add("idle");
  return bar;
}

/** A refusal in words, with its numbers (see reasons.js). */
export function errorText(err) { return refusalText(err); }

function targetRow(actions, mySide) {
  const v = S.view;
  const row = h("div", { class: "targets", id: "targets" });
  const targets = selectionTargets();
  if (!targets.length || v.hand == null) {
    if (S.selection.size && selectionTargets().length === 0 && v.hand) row.append(h("span", "hint", t("plan.one_rank")));
    return row;
  }
  row.append(h("span", "hint", t("plan.tap_rank")));
  const melded = new Set((v.melds[mySide] || []).map((m) => m.rank));
  for (const r of targets) {
    const b = h("button", "rank-chip", rankLabel(r));
    b.type = "button";
    b.dataset.rank = r;
    if (melded.has(r)) b.classList.add("melded");
    b.setAttribute("aria-label", t("plan.stage_on", { rank: rankLabel(r) }));
    b.setAttribute("aria-keyshortcuts", rankKey(r));
    b.addEventListener("click", (e) => { e.stopPropagation(); actions.stage(r); });
    row.append(b);
  }
  return row;
}

function handRow(actions) {
  const v = S.view;
  const wrap = h("div", { class: "hand", id: "hand" });
  wrap.tabIndex = -1;
  // A toolbar: one Tab stop (the card last focused), arrow keys move along the hand (app.js).
  wrap.setAttribute("role", "toolbar");
  wrap.setAttribute("aria-label", t("table.your_hand", { n: v.hand ? v.hand.length : 0 }));
  if (v.hand == null) {
    wrap.append(h("p", "hidden-hand", isOnline() ? t("online.watching_hint") : t("table.hand_hidden")));
    return wrap;
  }
  const planned = plannedIdx();
  // Cards that just arrived (drawn, or taken with the pile) glow for a moment.
  const last = (v.history || [])[v.history.length - 1];
  const fresh = [];
  if (last && last.seat === mySeat() && last.action && ["draw", "take"].includes(last.action.type)) {
    fresh.push(...(last.cards || []), ...(last.taken || []));
  }
  const freshIdx = new Set();
  for (const card of fresh) {
    const j = v.hand.findIndex((c, k) => c === card && !freshIdx.has(k));
    if (j >= 0) freshIdx.add(j);
  }
  const order = sortCards(v.hand, S.prefs.sort);
  const cursor = order.some(({ i }) => i === S.handCursor) ? S.handCursor
    : (order.find(({ i }) => !planned.has(i)) || order[0] || {}).i;
  const stagedOn = new Map();
  for (const g of S.plan) for (const i of g.idx) stagedOn.set(i, g.rank);
  for (const { c, i } of order) {
    const el = cardEl(c, { tag: "button" });
    el.dataset.i = i;
    el.tabIndex = i === cursor ? 0 : -1;
    el.addEventListener("focus", () => {
      S.handCursor = i;
      for (const other of wrap.querySelectorAll(".card")) other.tabIndex = other === el ? 0 : -1;
    });
    const extra = [];
    if (freshIdx.has(i) && v.phase === "play") {
      el.classList.add("fresh");
      extra.push(t("cards.fresh"));
    }
    if (S.selection.has(i)) el.classList.add("selected");
    if (planned.has(i)) {
      el.classList.add("planned");
      el.setAttribute("aria-disabled", "true");
      extra.push(t("cards.staged_on", { rank: rankLabel(stagedOn.get(i)) }));
    }
    if (extra.length) el.setAttribute("aria-label", [cardLabel(c), ...extra].join(t("cards.sep")));
    el.setAttribute("aria-pressed", S.selection.has(i) ? "true" : "false");
    el.addEventListener("click", (e) => { e.stopPropagation(); actions.toggle(i); });
    wrap.append(el);
  }
  return wrap;
}

function btn(id, label, key, onClick, enabled, extra = "") {
  const b = h("button", "act " + extra);
  b.type = "button";
  b.id = id;
  b.append(h("span", "lbl", label));
  if (key && (S.prefs.shortcuts !== false || key === "Esc")) {
    const kbd = h("kbd", null, key === "Esc" ? t("keys.esc") : key);
    kbd.setAttribute("aria-hidden", "true");
    b.append(kbd);
    b.setAttribute("aria-keyshortcuts", key === "Esc" ? "Escape" : key);
  }
  b.disabled = !enabled;
  b.addEventListener("click", (e) => { e.stopPropagation(); onClick(); });
  return b;
}

function buttonRow(actions) {
  const v = S.view;
  const row = h("div", "buttons");
  // A spectator only watches: pause, step, undo and suggest are the owner's, and sorting
  // orders a hand they do not have.
  if (watching()) return row;
  const mine = myTurn();
  const draw = v.phase === "draw";
  const play = v.phase === "play";
  const sel = S.selection.size;
  row.append(btn("btn-draw", t("actions.draw"), "D", actions.draw, canAct("draw"), "primary"));
  row.append(btn("btn-take", t("actions.take"), "T", actions.take, mine && draw && (canAct("take") || S.plan.length > 0)));
  // While the server says the staged plan is illegal, Meld (and the discard that would go out
  // with it) waits for the plan to be fixed; the reason stands next to it.
  const refused = planRefused();
  const meld = btn("btn-meld", t("actions.meld"), "F", actions.meld, mine && play && S.plan.length > 0 && !refused, "primary");
  row.append(meld);
  if (refused && mine && play) {
    const why = h("span", { class: "why bad", id: "meld-why" }, errorText(S.validation));
    meld.setAttribute("aria-describedby", "meld-why");
    row.append(why);
  }
  const goesOut = goOutDiscardIdx() != null;
  // after a partner's yes no plain discard is legal: only going out (R11)
  // (with a refused plan staged that does not go out, Discard stays: the server refuses the
  // plan and it stays staged, tests/browser/test_suggest.py)
  row.append(btn("btn-discard", t("actions.discard"), "X", actions.discard, mine && play && sel === 1 && (goesOut ? !refused : canAct("discard"))));
  row.append(btn("btn-cancel", t("actions.cancel"), "Esc", actions.cancel, sel > 0 || S.plan.length > 0));
  for (const a of v.legal || []) {
    if (!mine) break;
    if (a.type === "ask") row.append(btn("btn-ask", t("actions.ask"), null, () => actions.send(a), true));
    if (a.type === "answer") row.append(btn(a.yes ? "btn-yes" : "btn-no", a.yes ? t("actions.yes") : t("actions.no"), null, () => actions.send(a), true, S.suggestedAnswer === a.yes ? "primary" : ""));
    if (a.type === "decline") row.append(btn("btn-decline", t("actions.decline"), null, () => actions.send(a), true));
  }
  if (isOnline()) {
    // R15: no undo online, and no suggestions against people
    row.append(btn("btn-sort", S.prefs.sort === "rank" ? t("actions.sort_suit") : t("actions.sort_rank"), "S", actions.sort, v.hand != null, "ghost"));
    if (S.table.seat != null) {
      row.append(btn("btn-chat", t("online.chat_button"), null, actions.chat, true, "ghost"));
      row.append(btn("btn-leave-match", t("online.leave_match"), null, actions.leaveMatch, !(S.table.match && S.table.match.over), "ghost"));
    }
    return row;
  }
  row.append(btn("btn-suggest", t("actions.suggest"), null, actions.suggest, mine, "ghost"));
  row.append(btn("btn-undo", t("actions.undo"), "U", actions.undo, !!(S.table && S.table.can_undo), "ghost"));
  row.append(btn("btn-sort", S.prefs.sort === "rank" ? t("actions.sort_suit") : t("actions.sort_rank"), "S", actions.sort, true, "ghost"));
  const hasComputer = S.table && S.table.seats && S.table.seats.some((s) => s.kind === "computer");
  if (hasComputer) {
    const paused = S.table.paused;
    row.append(btn("btn-pause", paused ? t("actions.resume") : t("actions.pause"), null, actions.pause, true, "ghost"));
    if (paused && S.table.mode === "computer") {
      // Continue CPU: one computer move per press while paused (the server plays it)
      const seatInfo = S.table.seats[v.turn];
      const cpuTurn = v.phase !== "over" && seatInfo && seatInfo.kind === "computer";
      row.append(btn("btn-step", t("actions.step"), null, actions.step, cpuTurn, "ghost"));
    }
  }
  return row;
}

function nameList(cards) { return cards.map(cardName).join(t("cards.list_sep")); }

/** The key that stages the selection on a rank while a hand card has focus ("0" for ten). */
export function rankKey(rank) { return rank === "T" ? "0" : rank; }

/** The rank a key press names, or null. */
export function rankFromKey(key) {
  const k = key.toUpperCase();
  if (k === "0") return "T";
  return meldRanks().includes(k) && k !== "T" ? k : null;
}
