// Step-by-step tutorial with example layouts. The layouts and the counts shown are fixed
// teaching examples (written out by hand), not computed by rules in the browser.
import { t, raw } from "./i18n.js";
import { cardEl, rankLabel, cardName, cardShort } from "./cards.js";
import { meldChip, rankFromKey } from "./table.js";
import { announce, focusFirst } from "./focus.js";
import { h } from "./dom.js";

const STEPS = [
  { // opening with two melds
    hand: ["KC", "KD", "KS", "8H", "8S", "2C", "5D", "9H", "JS", "4C"],
    pile: { top: "6H", size: 4, frozen: true },
    ours: [], theirs: [],
    minimum: 50,
    after: {
      ours: [
        { rank: "K", cards: ["KC", "KD", "KS"], naturals: 3, wilds: 0, canasta: false, natural: true },
        { rank: "8", cards: ["8H", "8S", "2C"], naturals: 2, wilds: 1, canasta: false, natural: false },
      ],
    },
    tasks: [
      { select: [0, 1, 2], target: "rank:K", count: 30 },
      { select: [3, 4, 5], target: "rank:8", count: 70 },
      { select: [], target: "meld" },
    ],
  },
  { // taking a frozen pile
    hand: ["9C", "9D", "2H", "QS", "QH", "7C", "5S", "AH"],
    pile: { top: "9S", size: 9, frozen: true, under: "2D" },
    ours: [{ rank: "K", cards: ["KH", "KS", "KD", "KC"], naturals: 4, wilds: 0, canasta: false, natural: true }],
    theirs: [{ rank: "J", cards: ["JH", "JS", "JC"], naturals: 3, wilds: 0, canasta: false, natural: true }],
    after: {
      pile: { top: null, size: 0, frozen: false },
      ours: [
        { rank: "K", cards: ["KH", "KS", "KD", "KC"], naturals: 4, wilds: 0, canasta: false, natural: true },
        { rank: "9", cards: ["9C", "9D", "9S"], naturals: 3, wilds: 0, canasta: false, natural: true },
      ],
      hand: ["2H", "QS", "QH", "7C", "5S", "AH", "2D", "6C", "6D", "JD", "4H", "KH", "8C", "TC"],
    },
    tasks: [
      { select: [0, 1], target: "pile" },
    ],
  },
  { // going out
    hand: ["5C", "5H", "5S", "TD"],
    pile: { top: "7D", size: 3, frozen: false },
    ours: [
      { rank: "A", cards: ["AH", "AS", "AD", "AC", "AH", "AS", "AD"], naturals: 7, wilds: 0, canasta: true, natural: true, bonus: 500 },
      { rank: "Q", cards: ["QH", "QS", "2C"], naturals: 2, wilds: 1, canasta: false, natural: false },
    ],
    theirs: [],
    after: {
      pile: { top: "TD", size: 4, frozen: false },
      ours: [
        { rank: "A", cards: ["AH", "AS", "AD", "AC", "AH", "AS", "AD"], naturals: 7, wilds: 0, canasta: true, natural: true, bonus: 500 },
        { rank: "Q", cards: ["QH", "QS", "2C"], naturals: 2, wilds: 1, canasta: false, natural: false },
        { rank: "5", cards: ["5C", "5H", "5S"], naturals: 3, wilds: 0, canasta: false, natural: true },
      ],
      hand: [],
    },
    tasks: [
      { select: [0, 1, 2], target: "rank:5" },
      { select: [3], target: "pile" },
    ],
  },
];

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


export function renderTutorial(root, ctl) {
  root.innerHTML = "";
  const texts = raw("tutorial.steps") || [];
  const step = STEPS[stepIndex];
  const text = texts[stepIndex] || {};
  const back = h("button", "btn ghost", t("common.back"));
  back.type = "button";
  back.addEventListener("click", () => ctl.show("start"));
  root.append(back);
  root.append(h("h1", null, t("tutorial.title")));
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
  const shown = done ? { ...step, ...(step.after || {}), tasks: step.tasks } : step;
  const board = h("div", "tut-board");

  const melds = (list, label, ours) => {
    const area = h("div", "melds " + (ours ? "ours" : "theirs"));
    area.append(h("div", "melds-head", label));
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
  const pileInfo = shown.pile;
  const pile = h("button", "pile-slot pile" + (pileInfo.frozen ? " frozen" : ""));
  pile.type = "button";
  pile.id = "tut-pile";
  if (pileInfo.under) {
    const under = cardEl(pileInfo.under, { small: true, decorative: true });
    under.classList.add("under");
    pile.append(under);
  }
  pile.append(pileInfo.top ? cardEl(pileInfo.top, { decorative: true }) : h("div", "card empty-slot"));
  pile.append(h("span", "slot-label", t("table.pile_n", { n: pileInfo.size })));
  pile.setAttribute("aria-label", [
    pileInfo.top ? `${cardShort(pileInfo.top)} ${t("table.pile_n", { n: pileInfo.size })}` : t("table.pile_n", { n: pileInfo.size }),
    pileInfo.top ? t("table.pile_top", { card: cardName(pileInfo.top) }) : "",
    pileInfo.frozen ? t("table.frozen") : "",
  ].filter(Boolean).join(t("cards.sep")));
  if (!done && task.target === "pile" && selected.size === task.select.length) pile.classList.add("can", "pulse");
  pile.addEventListener("click", () => attempt("pile"));
  centre.append(pile);
  const info = h("div", "pile-info");
  info.append(h("div", "tag " + (pileInfo.frozen ? "ice" : "ok"), pileInfo.frozen ? `❄ ${t("table.frozen")}` : t("table.not_frozen")));
  if (step.minimum) {
    const last = [...step.tasks.slice(0, taskIndex)].reverse().find((x) => x.count != null);
    info.append(h("div", "tag count" + (last && last.count >= step.minimum ? " ok" : ""), t("plan.count", { count: last ? last.count : 0, minimum: step.minimum })));
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
  hand.setAttribute("aria-label", t("table.your_hand", { n: hand.childElementCount }));
  const usedIdx = new Set(staged.flatMap((g) => g.idx));
  if (done && shown.hand) {
    for (const c of shown.hand) hand.append(cardEl(c, { tag: "button" }));
  }
  (done && shown.hand ? [] : step.hand).forEach((c, i) => {
    if (usedIdx.has(i)) return;
    const el = cardEl(c, { tag: "button" });
    el.dataset.i = i;
    el.setAttribute("aria-pressed", selected.has(i) ? "true" : "false");
    if (selected.has(i)) el.classList.add("selected");
    if (!done && task.select.includes(i) && !selected.has(i)) el.classList.add("hint");
    el.addEventListener("click", () => {
      if (done) return;
      if (selected.has(i)) selected.delete(i); else selected.add(i);
      // The last card the task wants: focus moves on to where the cards go.
      focusNext = task.select.length === selected.size && task.select.every((k) => selected.has(k));
      ctl.redraw();
    });
    el.addEventListener("keydown", (e) => {
      // A rank's key stages the selection there, as at the table.
      const rank = e.shiftKey || e.ctrlKey || e.metaKey || e.altKey ? null : rankFromKey(e.key);
      if (rank && !done && selected.size) { e.preventDefault(); attempt(`rank:${rank}`); }
    });
    hand.append(el);
  });
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
  again.id = "tut-again";
  root.append(row);
  if (focusNext) {
    focusNext = false;
    // What the task asks for next: a highlighted card, the rank, Meld or the pile, else onwards.
    queueMicrotask(() => focusFirst(root.querySelector(".hand .card.hint"), root.querySelector(".rank-chip.pulse"),
      root.querySelector("#tut-meld"), root.querySelector("#tut-pile.pulse"), root.querySelector("#tut-next"),
      root.querySelector("#tut-finish"), root.querySelector(".hand .card")));
  }

  function attempt(target) {
    if (done) return;
    const want = new Set(task.select);
    const ok = target === task.target && want.size === selected.size && [...want].every((i) => selected.has(i));
    if (!ok) { ctl.toast(t("tutorial.try_again")); return; }
    if (target.startsWith("rank:")) staged.push({ rank: target.slice(5), idx: [...selected], cards: [...selected].map((i) => step.hand[i]) });
    if (target === "pile" || target === "meld") {
      for (const i of selected) staged.push({ rank: "", idx: [i], cards: [] });
    }
    selected = new Set();
    taskIndex += 1;
    focusNext = true;
    ctl.redraw();
  }
}
