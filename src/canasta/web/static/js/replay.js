// The replay page (#replay=<table>[/<match>], or #replay= to open a record file): a match step
// by step, as one seat saw it. The server (the core) builds every step from the record; this
// module only draws the views it is sent and asks for another hand or seat.
import { S } from "./store.js";
import { t, personName } from "./i18n.js";
import { api } from "./net.js";
import { cardEl, backEl, cardName, cardShort, rankLabel } from "./cards.js";
import { meldChip } from "./table.js";
import { h } from "./dom.js";


/** What the page shows: where the replay comes from, the hand loaded and the step shown. */
const R = {
  ref: null,        // "<table>" or "<table>/<match>"; null: an imported record
  record: null,     // the imported record (kept to ask for its other hands)
  fileName: "",
  summary: null,
  hand: 1,
  seat: 0,
  reveal: false,
  steps: [],
  index: 0,
  loading: false,
  error: null,
};

let ctlRef = null;

function redraw() { if (ctlRef && S.screen === "replay") ctlRef.redraw(); }

/** Open the replay of a table's match (``ref`` = table id, or "table/match"); "" opens the import page. */
export function openReplay(ctl, ref) {
  ctlRef = ctl;
  Object.assign(R, { ref: ref || null, record: null, fileName: "", summary: null, hand: 1, seat: 0, reveal: false, steps: [], index: 0, error: null });
  ctl.show("replay");
  if (ref) load(1, 0);
}

let loads = 0;  // the latest load's number: an older answer arriving late is dropped

async function load(hand, index) {
  const mine = ++loads;
  R.loading = true;
  redraw();
  // the first request names no seat: the server shows the one the player played
  const params = `hand=${hand}${R.summary ? `&seat=${R.seat}` : ""}&reveal=${R.reveal ? 1 : 0}`;
  try {
    let res;
    if (R.record) {
      res = await postRecord(`/api/replays/import?${params}`, R.record);
    } else {
      const [table, match] = R.ref.split("/");
      res = await api("GET", `/api/replays/${encodeURIComponent(table)}?${params}${match ? `&match=${encodeURIComponent(match)}` : ""}`);
    }
    if (mine !== loads) return;  // (a seat changed, then "all hands" ticked: the later one counts)
    R.summary = res.replay;
    R.hand = res.hand;
    R.seat = res.seat;
    R.steps = res.steps;
    R.index = index < 0 ? res.steps.length - 1 : Math.min(index, res.steps.length - 1);
    R.error = null;
  } catch (e) {
    if (mine !== loads) return;
    R.error = e.code || "unavailable";
    R.errorMessage = e.message || "";
  }
  R.loading = false;
  redraw();
}

function postRecord(path, text) { return api("POST", path, text); }

/** Replay a record file the player chose or dropped (checked by the server's core). */
export async function importFile(ctl, file) {
  ctlRef = ctl;
  if (file.size > 256 * 1024) {
    Object.assign(R, { error: "body_too_large", errorMessage: "" });
    redraw();
    return;
  }
  const text = await file.text();
  Object.assign(R, { ref: null, record: text, fileName: file.name, summary: null, hand: 1, seat: 0, reveal: false, steps: [], index: 0, error: null });
  if (S.screen !== "replay") ctl.show("replay");
  await load(1, 0);
}

// ---- stepping ------------------------------------------------------------------------------

function hands() { return (R.summary && R.summary.hands) || []; }

function go(delta) {
  if (R.loading || !R.steps.length) return;
  const to = R.index + delta;
  if (to >= 0 && to < R.steps.length) { R.index = to; redraw(); return; }
  const list = hands();
  const at = list.findIndex((x) => x.number === R.hand);
  if (to < 0 && at > 0) load(list[at - 1].number, -1);
  else if (to >= R.steps.length && at >= 0 && at < list.length - 1) load(list[at + 1].number, 0);
}

function jump(index) { if (!R.loading) { R.index = Math.max(0, Math.min(index, R.steps.length - 1)); redraw(); } }

function onKey(e) {
  if (S.screen !== "replay" || document.body.dataset.overlay) return;
  if (e.ctrlKey || e.metaKey || e.altKey) return;
  const tag = (e.target && e.target.tagName) || "";
  if (["INPUT", "SELECT", "TEXTAREA"].includes(tag)) return;
  const k = e.key;
  if (k === "ArrowRight") go(1);
  else if (k === "ArrowLeft") go(-1);
  else if (k === "Home") jump(0);
  else if (k === "End") jump(R.steps.length - 1);
  else if (k === "PageDown") go(R.steps.length);  // the next hand
  else if (k === "PageUp") go(-R.index - 1);
  else return;
  e.preventDefault();
}
document.addEventListener("keydown", onKey);

/** Scroll the move list (only it: never the page) to show the current step. The page does not
 * move: on a phone the list is below the table, and scrolling it into view opened the replay
 * scrolled down, its heading under the top bar. */
function showCurrent() {
  const list = document.getElementById("replay-log");
  const li = list && list.querySelector("li.current");
  if (!li) return;
  const top = li.getBoundingClientRect().top - list.getBoundingClientRect().top - list.clientTop + list.scrollTop;
  if (top < list.scrollTop) list.scrollTop = top;
  else if (top + li.offsetHeight > list.scrollTop + list.clientHeight) list.scrollTop = top + li.offsetHeight - list.clientHeight;
}

// ---- names and sentences --------------------------------------------------------------------

// An offline table's seat names are the server's placeholders ("You", "Left", "Player 2", in
// English): its seats are numbered instead.
const OFFLINE = ["computer", "local"];

/** A seat's name: an online match's player by name ("Guest 4821", "Computer 3" in the page's
 * language); elsewhere "Player 2", "(Computer)" after a computer seat. */
function seatName(seat) {
  const s = R.summary;
  const info = s && s.seats && s.seats[seat];
  if (info && info.name && s.mode && !OFFLINE.includes(s.mode)) return personName(info.name);
  const name = t("seat.player", { n: seat + 1 });
  return info && info.kind === "computer" ? `${name} (${t("seat.computer")})` : name;
}

/** The seats of a side (or a team: ``sides`` is then the view's teams), by name. */
function sideName(sides, side) {
  return sides.map((s, seat) => (s === side ? seatName(seat) : null)).filter(Boolean).join(" & ");
}

function sentence(step) {
  if (!step.action) return t("replay.dealt", { n: R.hand, name: seatName(R.summary.hands.find((x) => x.number === R.hand)?.dealer ?? 0) });
  const a = step.action;
  const name = seatName(step.seat);
  const e = step.event || {};
  let text;
  switch (a.type) {
    case "draw":
      text = e.cards && e.cards.length ? t("moves.draw_cards", { name, cards: e.cards.map(cardName).join(t("cards.list_sep")) }) : t("moves.draw", { name, n: e.drawn || 1 });
      break;
    case "take": text = t("moves.take_cards", { name, n: (e.taken || []).length + 1 }); break;
    case "meld": text = a.discard ? t("moves.meld_discard", { name, card: cardName(a.discard) }) : t("moves.meld", { name }); break;
    case "discard": text = t("moves.discard", { name, card: cardName(a.card) }); break;
    case "decline": text = t("moves.decline", { name }); break;
    case "ask": text = t("moves.ask", { name }); break;
    case "answer": text = a.yes ? t("moves.yes", { name }) : t("moves.no", { name }); break;
    default: text = step.text || "";
  }
  if (a.groups && a.groups.length) text += " " + a.groups.map((g) => `${rankLabel(g.rank)}: ${g.cards.length ? g.cards.map(cardShort).join(" ") : t("moves.top_card")}`).join(" · ");
  if (e.red_threes && e.red_threes.length) text += " " + t("moves.red_threes", { name, cards: e.red_threes.map(cardName).join(t("cards.list_sep")) });
  return text;
}

// ---- drawing --------------------------------------------------------------------------------

export function renderReplay(root, ctl) {
  ctlRef = ctl;
  root.innerHTML = "";
  root.classList.toggle("four-colour", !!S.prefs.fourColour);
  root.append(h("h1", null, t("replay.title")));
  if (!R.ref && !R.record) { root.append(importPanel(ctl)); if (R.error) root.append(errorLine()); return; }
  if (R.error) {
    root.append(errorLine());
    root.append(importPanel(ctl));
    return;
  }
  if (!R.summary) { root.append(h("p", "muted", t("common.loading"))); return; }
  const step = R.steps[R.index];
  root.dataset.hand = R.hand;
  root.dataset.index = R.index;
  root.append(header(step));
  root.append(controls(ctl));
  const main = h("div", "replay-main");
  main.append(tableOf(step));
  main.append(moveLog());
  root.append(main);
  const live = h("p", "replay-now", sentence(step));
  live.id = "replay-now";
  live.setAttribute("aria-live", "polite");
  root.insertBefore(live, main);
  const fair = fairnessDetails();
  if (fair) root.append(fair);
  showCurrent();
}

function errorLine() {
  const key = `replay.errors.${R.error}`;
  const known = t(key) !== key;
  const p = h("p", "warn replay-error", known ? t(key) : t("replay.errors.other", { code: R.error }));
  p.id = "replay-error";
  p.setAttribute("role", "alert");
  if (!known && R.errorMessage) p.append(h("small", null, ` ${R.errorMessage}`));
  return p;
}

function header(step) {
  const s = R.summary;
  const parts = [];
  if (s.settings && s.settings.preset) parts.push(t(`presets.${s.settings.preset}`));
  if (R.fileName) parts.push(R.fileName);
  // each total named by its team's seats (a match's teams: a three-player hand's sides are
  // not its scores' owners): a player tells which one is theirs
  const teams = step && step.view && step.view.teams;
  const scores = teams ? s.scores.map((score, team) => `${sideName(teams, team)}: ${score}`).join(" – ") : s.scores.join(" – ");
  parts.push(t("replay.scores", { scores }));
  parts.push(s.over ? t("replay.over") : t("replay.unfinished"));
  return h("p", "muted replay-meta", parts.join(" · "));
}

function select(id, label, options, value, onChange) {
  const wrap = h("label", "replay-field");
  wrap.append(h("span", null, label));
  const sel = h("select");
  sel.id = id;
  for (const [v, text] of options) {
    const o = h("option", null, text);
    o.value = String(v);
    if (String(v) === String(value)) o.selected = true;
    sel.append(o);
  }
  sel.addEventListener("change", () => onChange(sel.value));
  wrap.append(sel);
  return wrap;
}

function button(id, label, aria, onClick, enabled = true) {
  const b = h("button", "btn small", label);
  b.type = "button";
  b.id = id;
  if (aria) b.setAttribute("aria-label", aria);
  b.disabled = !enabled;
  b.addEventListener("click", onClick);
  return b;
}

function controls(ctl) {
  const bar = h("div", "replay-controls");
  bar.setAttribute("role", "toolbar");
  bar.setAttribute("aria-label", t("replay.controls"));
  const list = hands();
  bar.append(select("replay-hand", t("replay.hand"), list.map((x) => [x.number, t("replay.hand_n", { n: x.number })]), R.hand,
    (v) => load(Number(v), 0)));
  const players = (R.summary && R.summary.players) || 2;
  bar.append(select("replay-seat", t("replay.seat"), [...Array(players).keys()].map((s) => [s, seatName(s)]), R.seat,
    (v) => { R.seat = Number(v); load(R.hand, R.index); }));
  const all = h("label", "replay-field check");
  const box = h("input");
  box.type = "checkbox";
  box.id = "replay-reveal";
  box.checked = R.reveal;
  box.addEventListener("change", () => { R.reveal = box.checked; load(R.hand, R.index); });
  all.append(box, h("span", null, t("replay.all_hands")));
  bar.append(all);
  const last = R.steps.length - 1;
  const at = list.findIndex((x) => x.number === R.hand);
  bar.append(button("replay-first", "«", t("replay.first"), () => jump(0), R.index > 0));
  bar.append(button("replay-back", "◀", t("replay.back"), () => go(-1), R.index > 0 || at > 0));
  const count = h("span", "replay-count", t("replay.step", { i: R.index, n: last }));
  count.id = "replay-count";
  bar.append(count);
  bar.append(button("replay-forward", "▶", t("replay.forward"), () => go(1), R.index < last || at < list.length - 1));
  bar.append(button("replay-last", "»", t("replay.last"), () => jump(last), R.index < last));
  bar.append(exportButton());
  bar.append(button("replay-open", t("replay.open_file"), null, () => pickFile(ctl)));
  return bar;
}

function exportButton() {
  const a = h("a", "btn small ghost", t("replay.export"));
  a.id = "replay-export";
  if (R.ref) {
    const [table, match] = R.ref.split("/");
    a.href = `/api/replays/${encodeURIComponent(table)}/record${match ? `?match=${encodeURIComponent(match)}` : ""}`;
    a.setAttribute("download", `canasta-${R.ref.replace("/", "-")}.json`);
  } else {
    a.href = URL.createObjectURL(new Blob([R.record], { type: "application/json" }));
    a.setAttribute("download", R.fileName || "canasta-record.json");
  }
  return a;
}

function pickFile(ctl) {
  const input = h("input");
  input.type = "file";
  input.accept = ".json,application/json";
  input.addEventListener("change", () => { if (input.files && input.files[0]) importFile(ctl, input.files[0]); });
  input.click();
}

function importPanel(ctl) {
  const zone = h("section", "card-panel replay-drop");
  zone.id = "replay-drop";
  zone.append(h("p", null, t("replay.drop_text")));
  const input = h("input");
  input.type = "file";
  input.id = "replay-file";
  input.accept = ".json,application/json";
  input.addEventListener("change", () => { if (input.files && input.files[0]) importFile(ctl, input.files[0]); });
  const label = h("label", "btn primary", t("replay.choose_file"));
  label.htmlFor = "replay-file";
  zone.append(label, input);
  zone.addEventListener("dragover", (e) => { e.preventDefault(); zone.classList.add("over"); });
  zone.addEventListener("dragleave", () => zone.classList.remove("over"));
  zone.addEventListener("drop", (e) => {
    e.preventDefault();
    zone.classList.remove("over");
    const file = e.dataTransfer && e.dataTransfer.files && e.dataTransfer.files[0];
    if (file) importFile(ctl, file);
  });
  return zone;
}

function tableOf(step) {
  const v = step.view;
  const wrap = h("section", "replay-table");
  wrap.setAttribute("aria-label", t("replay.table"));
  const n = v.hand_counts.length;
  const seats = h("div", "replay-seats");
  for (let k = 0; k < n; k++) {
    const seat = (R.seat + k) % n;
    const box = h("div", "replay-seat" + (v.turn === seat && v.phase !== "over" ? " active" : "") + (seat === R.seat ? " own" : ""));
    box.dataset.seat = seat;
    box.append(h("div", "seat-name", seatName(seat)));
    const cards = seat === R.seat ? v.hand : v.hands ? v.hands[seat] : null;
    const row = h("div", "replay-hand");
    if (cards) for (const c of cards) row.append(cardEl(c, { small: true }));
    else for (let i = 0; i < Math.min(v.hand_counts[seat], 11); i++) row.append(backEl(true));
    box.append(row);
    box.append(h("div", "seat-count", t("table.cards_count", { n: v.hand_counts[seat] })));
    const r3 = v.red_threes[seat] || [];
    if (r3.length) {
      const rt = h("div", "seat-r3");
      for (const c of r3) rt.append(cardEl(c, { small: true }));
      box.append(rt);
    }
    seats.append(box);
  }
  wrap.append(seats);
  const board = h("div", "replay-board");
  for (const side of [...new Set(v.sides)]) {
    const area = h("div", "melds");
    area.dataset.side = side;
    const head = h("div", "melds-head");
    head.append(h("h2", "side-name", sideName(v.sides, side)));
    if (v.canastas[side]) head.append(h("span", "tag gold", t("table.canastas_n", { n: v.canastas[side] })));
    area.append(head);
    const list = h("div", "meld-list");
    const melds = v.melds[side] || [];
    if (!melds.length) list.append(h("span", "empty", t("table.no_melds")));
    for (const m of melds) list.append(meldChip(m));
    area.append(list);
    board.append(area);
  }
  const centre = h("div", "centre replay-centre");
  const stock = h("div", "pile-slot stock");
  stock.append(v.stock_size ? backEl() : h("div", "card empty-slot"));
  stock.append(h("span", "slot-label", t("table.stock_n", { n: v.stock_size })));
  const pile = h("div", "pile-slot pile");
  pile.id = "replay-pile";
  pile.append(v.pile.top ? cardEl(v.pile.top) : h("div", "card empty-slot"));
  pile.append(h("span", "slot-label", t("table.pile_n", { n: v.pile.size })));
  centre.append(stock, pile);
  board.append(centre);
  wrap.append(board);
  if (v.result) {
    const totals = (v.result.sides || []).map((s) => `${s.seats.map(seatName).join(" & ")}: ${s.total}`).join(" · ");
    wrap.append(h("p", "replay-result", `${t(`result.reason.${v.result.reason}`)} ${totals}`));
  }
  return wrap;
}

function moveLog() {
  const box = h("section", "replay-log-box");
  box.append(h("h2", null, t("replay.moves")));
  const ol = h("ol", "replay-log");
  ol.id = "replay-log";
  ol.start = 0;
  R.steps.forEach((s, i) => {
    const li = h("li", i === R.index ? "current" : i > R.index ? "later" : "");
    const b = h("button", "link", sentence(s));
    b.type = "button";
    b.tabIndex = i === R.index ? 0 : -1;
    if (i === R.index) {
      b.setAttribute("aria-current", "step");
      b.dataset.focus = "current";  // focus on the current step follows it to the next one (focus.js)
    }
    b.addEventListener("click", () => jump(i));
    li.append(b);
    ol.append(li);
  });
  box.append(ol);
  return box;
}

function fairnessDetails() {
  const f = R.summary && R.summary.fairness;
  if (!f || !Array.isArray(f.hands)) return null;
  const entry = f.hands.find((x) => x.number === R.hand);
  if (!entry) return null;
  const d = h("details", "fairness");
  d.append(h("summary", null, t("replay.fairness")));
  d.append(h("p", "mono", t("replay.commitment", { hash: entry.commitment })));
  if (entry.seed) d.append(h("p", "mono", t("replay.seed", { seed: entry.seed })));
  if (f.secret) d.append(h("p", "mono", t("replay.secret", { secret: f.secret })));
  d.append(h("p", "muted", t("replay.verify_hint")));
  return d;
}

// ---- entries from elsewhere -----------------------------------------------------------------

/** The record the replay page shows ("" for the page that opens a record file). */
export function replayShown() { return R.ref || ""; }
