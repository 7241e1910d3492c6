// Step-by-step tutorial. The positions, the tasks and every figure shown (counts, minimums,
// frozen or blocked pile, the table after each step) come from /static/tutorial/steps.json,
// which tests/core/test_tutorial.py replays through the engine: the page computes nothing.
import { t, raw, loadPages, pagesLoaded } from "./i18n.js";
import { cardEl, backEl, rankLabel, cardName, cardShort } from "./cards.js";
import { meldChip, rankFromKey } from "./table.js";
import { announce, focusFirst } from "./focus.js";
import { h } from "./dom.js";

let STEPS = null;       // the steps, once loaded
let loading = null;
let stepIndex = 0;
let lastInstr = "";
let taskIndex = 0;
let selected = new Set();
let staged = [];
let focusNext = false;  // after a step of the task: focus moves on to what comes next

function reset(i) {
  focusNext = true;
  stepIndex = i;
  taskIndex = 0;
  selected = new Set();
  staged = [];
}

function load(ctl) {
  if (!loading) {
    const steps = fetch("/static/tutorial/steps.json")
      .then((res) => res.json())
      .then((data) => { STEPS = data.steps; });
    loading = Promise.all([steps, loadPages()])
      .catch(() => { loading = null; })
      .finally(() => ctl.redraw());
  }
}

export function renderTutorial(root, ctl) {
  root.innerHTML = "";
  const back = h("button", { type: "button", class: "btn ghost", onclick: () => ctl.back("start") }, t("common.back"));
  root.append(back);
  root.append(h("h1", null, t("tutorial.title")));
  if (!STEPS || !pagesLoaded()) {
    load(ctl);
    root.append(h("p", "muted", t("common.loading")));
    return;
  }
  const texts = raw("tutorial.steps") || [];
  const step = STEPS[stepIndex];
  const text = texts[stepIndex] || {};
  const nav = h("div", "tut-steps");
  STEPS.forEach((_, i) => {
    const b = h("button", "btn small" + (i === stepIndex ? " primary" : ""), `${i + 1}. ${(texts[i] || {}).title || ""}`);
    b.type = "button";
    b.dataset.focus = `step-${i}`;
    if (i === stepIndex) b.setAttribute("aria-current", "step");
    b.addEventListener("click", () => { reset(i); ctl.redraw(); });
    nav.append(b);
  });
  root.append(nav);
  root.append(h("h2", null, text.title || ""));
  root.append(h("p", "lead", text.intro || ""));

  const task = step.tasks[taskIndex];
  const done = taskIndex >= step.tasks.length;
  const pos = step.position;
  // Once every task is done the board shows the step's "after" layout, hand included.
  const shown = done ? step.after : pos;
  root.dataset.step = step.id;
  root.dataset.done = done ? "yes" : "no";
  const board = h("div", "tut-board");

  const melds = (list, label, ours) => {
    const area = h("div", "melds " + (ours ? "ours" : "theirs"));
    const head = h("div", "melds-head", label);
    const reds = ours ? shown.red_threes || pos.red_threes || [] : [];
    if (reds.length) {
      const r3 = h("span", "r3");
      r3.append(h("span", "r3-label", t("table.red_threes", { n: reds.length })));
      for (const c of reds) r3.append(cardEl(c, { small: true }));
      head.append(r3);
    }
    area.append(head);
    const l = h("div", "meld-list");
    for (const m of list) l.append(meldChip(m));
    for (const g of ours && !done ? staged.filter((x) => x.cards.length) : []) {
      const box = h("div", "plan-group");
      box.setAttribute("role", "img");
      box.setAttribute("aria-label", t("plan.group_label", { rank: rankLabel(g.rank), cards: g.cards.map(cardName).join(t("cards.list_sep")) }));
      box.append(h("b", "plan-rank", rankLabel(g.rank)));
      for (const c of g.cards) box.append(cardEl(c, { small: true, decorative: true }));
      l.append(box);
    }
    if (!l.childNodes.length) l.append(h("span", "empty", t("table.no_melds")));
    area.append(l);
    return area;
  };
  board.append(melds(shown.theirs, t("side.them"), false));
  const centre = h("div", "centre");
  if (pos.stock) {
    const stock = h("button", { type: "button", id: "tut-stock", class: "pile-slot stock", "aria-label": t("tutorial.stock") }, backEl(), h("span", "slot-label", t("tutorial.stock")));
    if (!done && task.target === "stock") stock.classList.add("can", "pulse");
    stock.addEventListener("click", () => attempt("stock"));
    centre.append(stock);
  }
  const pileInfo = shown.pile;
  const cards = pileInfo.cards;
  const top = cards.length ? cards[cards.length - 1] : null;
  const size = cards.length;
  const pile = h("button", "pile-slot pile" + (pileInfo.frozen ? " frozen" : ""));
  pile.type = "button";
  pile.id = "tut-pile";
  if (pileInfo.show_under && size > 1) {
    const under = cardEl(cards[size - 2], { small: true, decorative: true });
    under.classList.add("under");
    pile.append(under);
  }
  pile.append(top ? cardEl(top, { decorative: true }) : h("div", "card empty-slot"));
  pile.append(h("span", "slot-label", t("table.pile_n", { n: size })));
  pile.setAttribute("aria-label", [
    top ? `${cardShort(top)} ${t("table.pile_n", { n: size })}` : t("table.pile_n", { n: size }),
    top ? t("table.pile_top", { card: cardName(top) }) : "",
    pileInfo.show_under && size > 1 ? t("tutorial.under", { card: cardName(cards[size - 2]) }) : "",
    pileInfo.frozen ? t("table.frozen") : "",
  ].filter(Boolean).join(t("cards.sep")));
  if (!done && task.target === "pile" && selected.size === task.select.length) pile.classList.add("can", "pulse");
  pile.addEventListener("click", () => attempt("pile"));
  centre.append(pile);
  const info = h("div", "pile-info");
  info.append(h("div", "tag " + (pileInfo.frozen ? "ice" : "ok"), pileInfo.frozen ? `❄ ${t("table.frozen")}` : t("table.not_frozen")));
  const blocked = { pile_top_three: "table.blocked_three", pile_top_wild: "table.blocked_wild" }[pileInfo.blocked];
  if (blocked) info.append(h("div", "tag warn", t(blocked)));
  if (pos.minimum && !done) {
    const last = [...step.tasks.slice(0, taskIndex)].reverse().find((x) => x.count != null);
    info.append(h("div", "tag count" + (last && last.count >= pos.minimum ? " ok" : ""), t("plan.count", { count: last ? last.count : 0, minimum: pos.minimum })));
  }
  centre.append(info);
  board.append(centre);
  board.append(melds(shown.ours, t("side.us"), true));
  root.append(board);

  const instrText = done ? text.done : (text.tasks || [])[taskIndex] || "";
  const instr = h("p", "tut-task", instrText);
  instr.id = "tut-task";
  root.append(instr);
  if (instrText !== lastInstr) { announce(instrText); lastInstr = instrText; }

  const targets = h("div", "targets");
  if (!done && task.target.startsWith("rank:") && selected.size === task.select.length) {
    const r = task.target.slice(5);
    const chip = h("button", "rank-chip pulse", rankLabel(r));
    chip.type = "button";
    chip.dataset.rank = r;
    chip.setAttribute("aria-label", t("plan.stage_on", { rank: rankLabel(r) }));
    chip.addEventListener("click", () => attempt(task.target));
    targets.append(chip);
  }
  root.append(targets);

  const hand = h("div", "hand tut-hand");
  hand.id = "tut-hand";
  hand.setAttribute("role", "group");
  if (done) {
    for (const c of shown.hand) hand.append(cardEl(c, { tag: "button" }));
  } else {
    const usedIdx = new Set(staged.flatMap((g) => g.idx));
    pos.hand.forEach((c, i) => {
      if (usedIdx.has(i)) return;
      const el = cardEl(c, { tag: "button" });
      el.dataset.i = i;
      el.setAttribute("aria-pressed", selected.has(i) ? "true" : "false");
      if (selected.has(i)) el.classList.add("selected");
      if (task.select.includes(i) && !selected.has(i)) el.classList.add("hint");
      el.addEventListener("click", () => {
        if (selected.has(i)) selected.delete(i); else selected.add(i);
        // The last card the task wants: focus moves on to where the cards go.
        focusNext = task.select.length === selected.size && task.select.every((k) => selected.has(k));
        ctl.redraw();
      });
      el.addEventListener("keydown", (e) => {
        // A rank's key stages the selection there, as at the table.
        const rank = e.shiftKey || e.ctrlKey || e.metaKey || e.altKey ? null : rankFromKey(e.key);
        if (rank && selected.size) { e.preventDefault(); attempt(`rank:${rank}`); }
      });
      hand.append(el);
    });
  }
  hand.setAttribute("aria-label", t("table.your_hand", { n: hand.querySelectorAll(".card").length }));
  root.append(hand);

  const row = h("div", "buttons");
  if (!done && task.target === "meld") {
    const meld = h("button", "act primary pulse", t("actions.meld"));
    meld.type = "button";
    meld.id = "tut-meld";
    meld.addEventListener("click", () => attempt("meld"));
    row.append(meld);
  }
  const again = h("button", "act ghost", t("tutorial.again"));
  again.type = "button";
  again.id = "tut-again";
  again.addEventListener("click", () => { reset(stepIndex); ctl.redraw(); });
  row.append(again);
  if (stepIndex < STEPS.length - 1) {
    const next = h("button", "act" + (done ? " primary" : ""), t("tutorial.next"));
    next.type = "button";
    next.id = "tut-next";
    next.addEventListener("click", () => { reset(stepIndex + 1); ctl.redraw(); });
    row.append(next);
  } else if (done) {
    const play = h("button", "act primary", t("tutorial.finish"));
    play.type = "button";
    play.id = "tut-finish";
    play.addEventListener("click", () => { reset(0); ctl.show("start"); });
    row.append(play);
  }
  root.append(row);
  if (focusNext) {
    focusNext = false;
    // What the task asks for next: a highlighted card, the rank, Meld or the pile, else onwards.
    queueMicrotask(() => focusFirst(root.querySelector(".hand .card.hint"), root.querySelector(".rank-chip.pulse"),
      root.querySelector("#tut-meld"), root.querySelector("#tut-stock.pulse"), root.querySelector("#tut-pile.pulse"),
      root.querySelector("#tut-next"), root.querySelector("#tut-finish"), root.querySelector(".hand .card")));
  }

  function attempt(target) {
    if (done) return;
    const want = new Set(task.select);
    const ok = target === task.target && want.size === selected.size && [...want].every((i) => selected.has(i));
    if (!ok) { ctl.toast(t("tutorial.try_again")); return; }
    if (target.startsWith("rank:")) staged.push({ rank: target.slice(5), idx: [...selected], cards: [...selected].map((i) => pos.hand[i]) });
    else for (const i of selected) staged.push({ rank: "", idx: [i], cards: [] });
    selected = new Set();
    taskIndex += 1;
    focusNext = true;
    ctl.redraw();
  }
}
