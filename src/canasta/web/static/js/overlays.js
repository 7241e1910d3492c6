// Modal layers: end of hand, end of match, pass-and-play handoff.
import { S } from "./store.js";
import { t, ratingKindName } from "./i18n.js";
import { seatName, sideName, teamName, watching } from "./table.js";
import { cardEl, cardLabel, isWildFace, rankLabel } from "./cards.js";
import { h } from "./dom.js";
import { focusKey, focusFirst, focusFirstInPlace, tabbables } from "./focus.js";
import { fairnessLine, replayLink } from "./replay-links.js";

const overlay = () => document.getElementById("overlay");

export function overlayKind() { return document.body.dataset.overlay || null; }

// Where focus goes back to when the dialogs close (a selector: the page is redrawn meanwhile).
let opener = null;
let returnTo = null;
// A dialog opened from inside another (the stats from the end of a match): the control that
// opened it, focused again when that other dialog comes back.
let underneath = null;

/** The page behind a dialog can be neither reached nor read while it is open. */
function setInert(on) {
  for (const el of [document.getElementById("app"), document.getElementById("btn-peek-back")]) {
    if (el) el.inert = on;
  }
}

export function closeOverlay(only) {
  if (only && overlayKind() !== only) return;
  delete document.body.dataset.overlay;
  const o = overlay();
  if (!o.hidden) { returnTo = opener; opener = null; }
  o.hidden = true;
  o.innerHTML = "";
  o.className = "overlay";
  delete o.dataset.kind;
  setInert(false);
}

/** A dialog about to open from a control the redraw replaces: focus returns to ``key`` (a
 * selector, see focusKey) when it closes. */
export function rememberOpener(key) {
  if (overlay().hidden && key) opener = key;
}

/** Once the dialogs are closed and the page redrawn: the selector focus should return to. */
export function takeReturnFocus() {
  const key = returnTo;
  returnTo = null;
  underneath = null;  // the dialog under the one closed did not come back: nothing to refocus
  return key;
}

/** Tab and Shift+Tab cycle inside the open dialog. */
export function trapTab(e) {
  const o = overlay();
  if (e.key !== "Tab" || o.hidden) return;
  const items = tabbables(o);
  if (!items.length) { e.preventDefault(); return; }
  const first = items[0];
  const last = items[items.length - 1];
  const inside = o.contains(document.activeElement);
  if (e.shiftKey && (document.activeElement === first || !inside)) { e.preventDefault(); last.focus(); }
  else if (!e.shiftKey && (document.activeElement === last || !inside)) { e.preventDefault(); first.focus(); }
}

/** Fill the overlay with a dialog and return its body element. A dialog that opens takes
 * focus (its ``data-autofocus`` control, else its close button); one that is redrawn keeps
 * focus where it was. */
export function dialog(kind, title, { closable = true, onClose } = {}) {
  document.body.dataset.overlay = kind;
  const o = overlay();
  const fresh = o.hidden || o.dataset.kind !== kind;
  if (o.hidden && !opener) { opener = returnTo || focusKey(); returnTo = null; }
  const back = fresh && underneath && underneath.kind === kind ? underneath.key : null;
  if (fresh) underneath = null;
  if (!o.hidden && o.dataset.kind && o.dataset.kind !== kind && o.contains(document.activeElement)) {
    const key = focusKey();
    if (key) underneath = { kind: o.dataset.kind, key };
  }
  let keep = null;
  if (!fresh && o.contains(document.activeElement)) {
    keep = focusKey();
    if (!keep) {
      const items = tabbables(o);
      keep = items.indexOf(document.activeElement);
    }
  }
  o.hidden = false;
  setInert(true);
  o.className = "overlay";
  o.dataset.kind = kind;
  o.innerHTML = "";
  const box = document.createElement("div");
  box.className = "dialog";
  box.setAttribute("role", "dialog");
  box.setAttribute("aria-modal", "true");
  box.setAttribute("aria-labelledby", "dialog-title");
  const head = document.createElement("div");
  head.className = "dialog-head";
  const h = document.createElement("h2");
  h.id = "dialog-title";
  h.textContent = title;
  head.append(h);
  if (closable) {
    const x = document.createElement("button");
    x.type = "button";
    x.className = "close";
    x.textContent = "×";
    x.setAttribute("aria-label", t("common.close"));
    x.addEventListener("click", () => {
      closeOverlay();
      if (onClose) onClose();
      else document.dispatchEvent(new CustomEvent("overlayclosed"));
    });
    head.append(x);
  }
  box.append(head);
  const body = document.createElement("div");
  body.className = "dialog-body";
  box.append(body);
  o.append(box);
  queueMicrotask(() => {
    if (overlay().dataset.kind !== kind) return;
    if (!fresh) {
      if (typeof keep === "string" && focusFirst(keep)) return;
      if (typeof keep === "number" && keep >= 0) { const items = tabbables(box); if (items[keep]) { items[keep].focus(); return; } }
      if (box.contains(document.activeElement)) return;
    }
    // The first thing read is the dialog's name, then its close button (its first control).
    // A dialog opens at its top: scrolled to its focused buttons, a tall one on a phone
    // would hide what it says first (how the hand ended).
    focusFirstInPlace(back && box.querySelector(back), box.querySelector("[data-autofocus]"), box.querySelector(".close"), tabbables(body)[0], box);
  });
  box.tabIndex = -1;
  return body;
}

/** The scores' column heads break between words, unless the names cannot fit the dialog so:
 * then (``tight``) anywhere. Checked again when the dialog's width changes (a phone turned). */
function fitSides(table, body) {
  const fit = () => {
    table.classList.remove("tight");
    if (table.offsetWidth > body.clientWidth) table.classList.add("tight");
  };
  fit();
  if (typeof ResizeObserver === "function") new ResizeObserver(fit).observe(body);
}

export function handOverlay(ctl) {
  const v = S.view;
  const m = (S.table && S.table.match) || {};
  const matchOver = !!m.over;
  const last = m.hands && m.hands[m.hands.length - 1];
  const result = v.result || (last && (last.result || last));
  const body = dialog(matchOver ? "match" : "hand", matchOver ? t("result.match_over") : t("result.hand_over", { n: v.hand_number }), { closable: false });
  if (result) {
    const reason = document.createElement("p");
    reason.className = "reason";
    let text = t(`result.reason.${result.reason}`);
    if (result.went_out != null) text = t("result.went_out", { name: seatName(result.went_out) }) + (result.concealed ? " " + t("result.concealed") : "");
    reason.textContent = text;
    body.append(reason);
    const table = document.createElement("table");
    table.className = "breakdown";
    const sides = result.sides || [];
    const head = `<thead><tr><th scope="col"><span class="sr-only"></span></th>${sides.map((s) => `<th scope="col"></th>`).join("")}</tr></thead>`;
    table.innerHTML = head + "<tbody></tbody>";
    table.querySelector("thead .sr-only").textContent = t("result.score_item");
    // in a span that may break a long name with no break in it (a 20-letter Japanese name)
    sides.forEach((s, k) => { table.querySelectorAll("thead th")[k + 1].append(h("span", "side", sideName(s.side))); });
    const rows = [
      ["result.melds", (s) => s.melds],
      ["result.natural_canastas", (s) => s.natural_canastas],
      ["result.mixed_canastas", (s) => s.mixed_canastas],
      ["result.canasta_bonus", (s) => `+${s.canasta_bonus}`],
      ["result.red_threes", (s) => `${s.red_threes} (${s.red_three_bonus >= 0 ? "+" : ""}${s.red_three_bonus})`],
      [result.concealed ? "result.going_out_concealed" : "result.going_out", (s) => s.going_out],
      ["result.in_hand", (s) => -s.hand_penalty],
      ["result.total", (s) => s.total],
    ];
    const tbody = table.querySelector("tbody");
    for (const [key, f] of rows) {
      const tr = document.createElement("tr");
      if (key === "result.total") tr.className = "total";
      const th = document.createElement("th");
      th.scope = "row";
      th.textContent = t(key);
      tr.append(th);
      for (const s of sides) {
        const td = document.createElement("td");
        td.textContent = f(s);
        tr.append(td);
      }
      tbody.append(tr);
    }
    body.append(table);
    fitSides(table, body);
  }
  // running totals
  const scores = m.scores || v.scores;
  const totals = document.createElement("div");
  totals.className = "totals";
  const teams = [...new Set(v.teams)];
  const h3 = document.createElement("h3");
  h3.textContent = t("result.running_totals");
  totals.append(h3);
  for (const team of teams) {
    const p = document.createElement("p");
    p.innerHTML = "<span></span> <b></b>";
    p.querySelector("span").textContent = teamName(team);
    p.querySelector("b").textContent = scores[team];
    if (matchOver && (m.won || [])[team]) p.className = "winner";
    totals.append(p);
  }
  body.append(totals);
  const left = handsLeft();
  if (left) body.append(left);
  const fair = fairnessLine(S.table);
  if (fair) body.append(fair);
  const row = document.createElement("div");
  row.className = "dialog-buttons";
  const peek = button(t("result.see_table"), () => ctl.peek(), "ghost");
  peek.id = "btn-peek";
  row.append(peek);
  const on = S.table && S.table.mode === "online" ? S.table.online : null;
  if (on) {
    onlineButtons(ctl, body, row, matchOver, on);
    body.append(row);
    return;
  }
  if (watching()) {  // someone else's match: what it shows, and none of its player's controls
    if (matchOver) {
      winnerLine(body, m);
      row.append(replayLink(ctl, S.tableId));
    } else {
      body.append(h("p", { class: "muted", id: "owner-deals", text: t("result.owner_deals") }));
    }
    row.append(button(t("result.menu"), () => ctl.leaveTable()));
  } else if (matchOver) {
    winnerLine(body, m);
    const again = button(t("result.new_match"), () => ctl.send({ type: "new_match" }), "primary");
    again.id = "btn-new-match";
    again.dataset.autofocus = "";
    row.append(again);
    const stats = button(t("stats.title"), () => ctl.openStats());
    stats.id = "btn-match-stats";
    row.append(stats);
    row.append(replayLink(ctl, S.tableId));
    row.append(button(t("result.menu"), () => ctl.leaveTable()));
  } else {
    const next = button(t("result.next_hand"), () => ctl.send({ type: "next_hand" }), "primary");
    next.id = "btn-next-hand";
    next.dataset.autofocus = "";
    row.append(next);
  }
  body.append(row);
}

/** The cards left in every hand (the view shows them once the hand is over), seat by seat. */
function handsLeft() {
  const v = S.view;
  if (!v || !v.hands_left) return null;
  const box = h("section", { class: "hands-left", id: "hands-left", "aria-labelledby": "hands-left-title" });
  box.append(h("h3", { id: "hands-left-title" }, t("result.hands_left")));
  const list = h("ul", "hands-left-list");
  v.hands_left.forEach((cards, seat) => {
    const item = h("li", "hand-left");
    item.dataset.seat = seat;
    item.append(h("span", "who", seatName(seat)), " ",
      h("span", "muted", cards.length ? t("table.cards_count", { n: cards.length }) : t("result.no_cards_left")));
    if (cards.length) {
      const faces = h("span", { class: "hand-left-cards", role: "img", "aria-label": cards.map(cardLabel).join(t("cards.list_sep")) });
      for (const c of cards) faces.append(cardEl(c, { small: true, decorative: true }));
      item.append(faces);
    }
    list.append(item);
  });
  box.append(list);
  return box;
}

/** A meld opened from the table: its cards (naturals, then wilds), what kind it is and, for a
 * canasta, the bonus the view gives it. */
export function meldOverlay() {
  const v = S.view;
  const at = S.meldDetail;
  const m = v && at && (v.melds[at.side] || []).find((x) => x.rank === at.rank);
  if (!m) { closeOverlay("meld"); return; }
  const kind = m.canasta ? (m.natural ? t("meld.natural_canasta") : t("meld.mixed_canasta")) : (m.natural ? t("table.natural") : t("table.mixed"));
  const body = dialog("meld", t("meld.title", { rank: rankLabel(m.rank), side: sideName(at.side) }));
  const facts = h("dl", "meld-facts");
  const fact = (label, value) => { facts.append(h("div", null, h("dt", null, label), h("dd", null, value))); };
  fact(t("meld.cards"), String(m.cards.length));
  fact(t("meld.naturals"), String(m.naturals));
  fact(t("meld.wilds"), String(m.wilds));
  fact(t("meld.kind"), kind);
  if (m.canasta) fact(t("meld.bonus"), `+${m.bonus}`);
  body.append(facts);
  const groups = [[t("meld.natural_cards"), m.cards.filter((c) => !isWildFace(c))], [t("meld.wild_cards"), m.cards.filter(isWildFace)]];
  for (const [label, cards] of groups) {
    if (!cards.length) continue;
    body.append(h("h3", "meld-cards-head", `${label} (${cards.length})`));
    const list = h("ul", "meld-cards");
    for (const c of cards) list.append(h("li", null, cardEl(c, { small: true })));
    body.append(list);
  }
}

/** "Our side wins" (or a draw) at the top of the end-of-match dialog. */
function winnerLine(body, m) {
  const win = document.createElement("p");
  win.className = "winner-line";
  const winners = m.winners || [];
  // the server says who won (Game.won): nobody, with winners, is a draw
  const drawn = winners.length > 0 && !(m.won || []).some(Boolean);
  win.textContent = !winners.length ? "" : drawn ? t("result.draw")
    : t(winners.length > 1 ? "result.winners" : "result.winner", { name: winners.map((w) => teamName(w)).join(" & ") });
  body.insertBefore(win, body.firstChild);
}

/** The end of a hand or match at an online table: ready for the next hand, or a rematch. */
function onlineButtons(ctl, body, row, matchOver, on) {
  const me = S.table.seat;
  const m = S.table.match || {};
  const status = document.createElement("p");
  status.className = "muted online-wait";
  status.id = "online-wait";
  status.setAttribute("aria-live", "polite");
  if (S.table.status === "abandoned") {
    status.textContent = t("online.abandoned");
    body.append(status);
    row.append(button(t("online.back_to_lobby"), () => ctl.leaveTable(), "primary"));
    return;
  }
  if (matchOver) {
    winnerLine(body, m);
    const ratings = ratingChanges(on);
    if (ratings) body.append(ratings);
    const seated = on.auto.map((a, i) => a !== "left" && S.table.seats[i].kind === "human");
    const asked = on.rematch.filter((x, i) => x && seated[i]).length;
    const humans = seated.filter(Boolean).length;
    if (me != null && on.auto[me] !== "left") {
      const again = button(t("online.rematch"), () => ctl.send({ type: "rematch" }), "primary");
      again.id = "btn-rematch";
      again.dataset.autofocus = "";
      again.disabled = !!on.rematch[me] || !!on.next;
      row.append(again);
    }
    if (asked) status.textContent = t("online.rematch_waiting", { n: asked, m: humans });
  } else if (me != null) {
    const ready = !!on.ready[me];
    const next = button(ready ? t("online.waiting_others") : t("result.next_hand"), () => ctl.send({ type: "next_hand" }), "primary");
    next.id = "btn-next-hand";
    next.dataset.autofocus = "";
    next.disabled = ready;
    row.append(next);
  }
  if (!matchOver && on.deadline_ms) {
    status.textContent = t("online.next_hand_in") + " ";
    const clock = document.createElement("span");
    clock.className = "countdown plain";
    clock.dataset.deadline = on.deadline_ms;
    clock.dataset.total = 30;
    const secs = document.createElement("span");
    secs.className = "secs";
    clock.append(secs);
    status.append(clock);
  }
  body.append(status);
  row.append(button(t("online.back_to_lobby"), () => ctl.leaveTable()));
}

/** What a finished online match did to its players' ratings, as the server recorded them
 * (they arrive a moment after the match ends), or that it changed none. */
function ratingChanges(on) {
  if (!on.rated) {
    const why = on.unrated === "shared_network" ? "online.not_rated_shared" : "online.not_rated";
    return h("p", { class: "muted", id: "rating-changes" }, t(why));
  }
  const me = S.table.seat;
  // the reader's own change first, then the others by seat
  if (!on.ratings) return h("p", { class: "muted", id: "rating-changes" }, t("online.ratings_pending"));
  const rows = on.ratings.map((c, seat) => c && { seat, ...c }).filter(Boolean)
    .sort((x, y) => (y.seat === me) - (x.seat === me) || x.seat - y.seat);
  if (!rows.length) return null;
  const box = h("section", { class: "rating-changes", id: "rating-changes", "aria-labelledby": "rating-changes-title" });
  box.append(h("h3", { id: "rating-changes-title" }, t("online.ratings_title", { kind: ratingKindName(rows[0].kind) })));
  const list = h("ul", "rating-list");
  for (const r of rows) {
    const diff = r.after - r.before;
    const item = h("li", r.seat === me ? "rating-row own" : "rating-row");
    item.dataset.seat = r.seat;
    // read as a sentence ("You: from 1000 to 1049, up 49"), not as arrows and signs
    const said = t(diff > 0 ? "online.rating_up" : diff < 0 ? "online.rating_down" : "online.rating_same", { name: seatName(r.seat), before: r.before, after: r.after, n: Math.abs(diff) });
    item.append(
      h("span", "sr-only", said),
      h("span", { class: "who", "aria-hidden": "true" }, seatName(r.seat)),
      h("span", { class: "rating-move", "aria-hidden": "true" }, t("online.rating_move", { before: r.before, after: r.after })),
      h("b", { class: diff > 0 ? "rating-diff up" : diff < 0 ? "rating-diff down" : "rating-diff", "aria-hidden": "true" }, diff > 0 ? `+${diff}` : diff < 0 ? `−${-diff}` : "±0"),
    );
    list.append(item);
  }
  box.append(list);
  return box;
}

export function handoffOverlay(ctl) {
  const seat = S.table.handoff;
  const body = dialog("handoff", t("handoff.title"), { closable: false });
  const p = document.createElement("p");
  p.className = "handoff-text";
  p.textContent = t("handoff.pass_to", { name: seatName(seat) });
  body.append(p);
  const hint = document.createElement("p");
  hint.className = "muted";
  hint.textContent = t("handoff.hint");
  body.append(hint);
  const b = button(t("handoff.reveal", { name: seatName(seat) }), () => ctl.send({ type: "reveal", seat }), "primary big");
  b.id = "btn-reveal";
  b.dataset.autofocus = "";
  body.append(b);
  const menu = button(t("result.menu"), () => ctl.leaveTable(), "ghost small");
  body.append(menu);
}

export function button(label, onClick, cls = "") {
  const b = document.createElement("button");
  b.type = "button";
  b.className = "btn " + cls;
  b.textContent = label;
  b.addEventListener("click", onClick);
  return b;
}
