// The player's plan: selecting cards, staging groups, and the table actions that send it.
// What is legal is the server's to say: it lists the legal moves and validates the plan live.
import { S, savePrefs } from "./store.js";
import { t } from "./i18n.js";
import { setSound, play } from "./sound.js";
import { errorText, mySeat, planAction, selectionTargets, targetsOf, plannedIdx, canAct, goOutDiscardIdx, planRefused } from "./table.js";
import { reasonText } from "./reasons.js";
import { rankOf } from "./cards.js";
import { isOnline } from "./online.js";
import { rememberOpener } from "./overlays.js";
import { redraw, toast, focusAfterAction, noteStaged, openOverlay } from "./screen.js";
import { request, sendAction, validatePlan, version, discardAfter, onReply } from "./session.js";

/** Nothing staged and no way to take the pile: ask the server why (a validation of the bare
 * take answers ``take``, the core's reason with its numbers), and say it. */
function whyNoTake() {
  const v = S.view;
  const top = v.pile.top;
  request("why_take", { type: "validate", version: version(), action: { type: "take", groups: top ? [{ rank: rankOf(top), cards: [] }] : [] } });
}
onReply("why_take", (msg) => {
  const why = msg.take || (msg.legal ? null : msg);
  toast(why ? t("errors.no_take_because", { why: errorText(why) }) : t("errors.no_take"), "bad");
});

export function clearPlan() {
  S.selection.clear();
  S.plan = [];
  S.validation = null;
  S.notice = "";
  S.suggested = false;
  S.softSelection = false;
  S.confirmTake = false;
}

/** Stage a suggested (or listed) action as the plan, with a line saying what it is and why
 * (a suggestion's reason comes from the server as a code with numbers: reasons.js words it). */
export function showSuggestion(msg) {
  const a = msg.action;
  S.suggested = false;
  S.suggestedAnswer = a && a.type === "answer" ? !!a.yes : null;  // the answer's button stands out
  if (!a) {
    S.notice = t("suggest.none");
    redraw();
    return;
  }
  S.selection.clear();
  S.softSelection = false;
  S.plan = [];
  S.validation = null;
  const hand = S.view.hand || [];
  const used = new Set();
  const take = (card) => {
    const j = hand.findIndex((c, k) => c === card && !used.has(k));
    if (j >= 0) used.add(j);
    return j;
  };
  if (a.type === "discard") {
    // selected for a tap on the pile; a tap on another card picks that one instead
    const j = take(a.card);
    if (j >= 0) { S.selection.add(j); S.softSelection = true; }
  } else if (a.type === "take" || a.type === "meld") {
    for (const g of a.groups || []) {
      const idx = g.cards.map(take).filter((j) => j >= 0);
      if (idx.length) S.plan.push({ rank: g.rank, idx });
    }
    if (a.discard) {
      const j = take(a.discard);
      if (j >= 0) S.selection.add(j);
    }
    validatePlan();
  }
  if (msg.reason) {
    S.notice = reasonText(msg.reason, a);
    S.suggested = true;
  } else if (a.type === "draw") S.notice = t("suggest.draw");
  else if (a.type === "discard") S.notice = t("suggest.discard");
  else if (a.type === "take") S.notice = t("suggest.take");
  else if (a.type === "meld") S.notice = a.discard ? t("suggest.go_out") : t("suggest.meld");
  else if (a.type === "decline") S.notice = t("suggest.decline");
  else S.notice = t("suggest.other");
  redraw();
}
onReply("suggestion", showSuggestion);

export const actions = {
  toggle(i) {
    if (plannedIdx().has(i)) return;
    if (S.softSelection && !S.selection.has(i)) S.selection.clear();
    S.softSelection = false;
    if (S.selection.has(i)) S.selection.delete(i); else S.selection.add(i);
    S.notice = "";
    S.suggested = false;
    if (S.plan.length) validatePlan();
    redraw();
  },
  stage(rank) {
    if (!S.selection.size) return;
    const targets = selectionTargets();
    if (!targets.includes(rank)) { toast(t("plan.wrong_rank"), "bad"); return; }
    const idx = [...S.selection];
    const g = S.plan.find((x) => x.rank === rank);
    if (g) g.idx.push(...idx); else S.plan.push({ rank, idx });
    S.selection.clear();
    S.validation = null;
    S.notice = "";
    noteStaged(idx);
    validatePlan();
    redraw();
  },
  unstage(rank) {
    S.plan = S.plan.filter((g) => g.rank !== rank);
    S.validation = null;
    validatePlan();
    redraw();
  },
  cancel() { clearPlan(); redraw(); },
  draw() {
    if (!canAct("draw")) return;
    clearPlan();
    focusAfterAction("fresh");
    sendAction({ type: "draw" });
  },
  take() {
    const v = S.view;
    if (!v || v.phase !== "draw" || v.hand == null || v.turn !== mySeat()) return;
    // A natural selection of the top card's rank stages as the pile group.
    if (S.selection.size && v.pile.top) {
      const top = rankOf(v.pile.top);
      if (targetsOf([...S.selection]).includes(top)) actions.stage(top);
    }
    if (!S.plan.length) {
      // Nothing staged: show the server's first listed way to take the pile, to confirm.
      const legal = (v.legal || []).find((a) => a.type === "take");
      if (!legal) { whyNoTake(); return; }
      const onlyTop = legal.groups.length === 1 && legal.groups[0].cards.length === 0;
      if (!onlyTop) {
        showSuggestion({ action: legal });
        S.notice = t("plan.confirm_take");
        S.confirmTake = true;
        redraw();
        return;
      }
    }
    // The plan stays staged until the server accepts it: a refusal leaves it to be fixed.
    focusAfterAction("fresh");
    sendAction(planAction());
  },
  pileTap() {
    const v = S.view;
    if (!v) return;
    if (v.phase === "draw") actions.take();
    else if (v.phase === "play") actions.discard();
  },
  meld() {
    const v = S.view;
    if (!v || v.phase !== "play" || !S.plan.length || planRefused()) return;
    // A single selected card outside the plan is the going-out discard, sent together.
    focusAfterAction("hand");
    sendAction(planAction(goOutDiscardIdx()));
  },
  discard() {
    const v = S.view;
    if (!v || v.phase !== "play" || v.turn !== mySeat()) return;
    const sel = [...S.selection];
    if (sel.length !== 1) { toast(t("plan.select_one"), ""); return; }
    if (S.plan.length) {
      const out = goOutDiscardIdx();
      if (out != null) {
        // The last card: melds and discard go together (going out), once the plan is legal.
        if (planRefused()) return;
        focusAfterAction("hand");
        sendAction(planAction(out));
      } else {
        // Meld the plan, then discard the selected card once the meld is on the table.
        focusAfterAction("hand");
        discardAfter(v.hand[sel[0]]);
        sendAction(planAction());
      }
    } else {
      focusAfterAction("hand");
      sendAction({ type: "discard", card: v.hand[sel[0]] });
    }
  },
  send(action) { sendAction(action); },
  chat() { openOverlay("chat"); },
  leaveMatch() { openOverlay("leave"); },
  suggest() {
    if (!S.sock || isOnline()) return;
    request("suggest", { type: "suggest", version: version() });
  },
  undo() {
    if (!S.sock || isOnline()) return;
    clearPlan();
    request("undo", { type: "undo", version: version() });
  },
  sort() {
    S.prefs.sort = S.prefs.sort === "rank" ? "suit" : "rank";
    savePrefs();
    redraw();
  },
  pause() {
    if (!S.sock || !S.table) return;
    S.sock.send({ type: S.table.paused ? "resume" : "pause" });
  },
  step() {
    if (!S.sock || !S.table || !S.table.paused) return;
    request("step", { type: "step", version: version() });
  },
  openMeld(side, rank) {
    S.meldDetail = { side, rank };
    const area = side === (S.view && S.view.sides[mySeat()]) ? "#our-melds" : `#melds-${side}`;
    rememberOpener(`${area} .meld-meta[data-rank="${rank}"]`);
    openOverlay("meld");
  },
  toggleSound() {
    S.prefs.sound = !S.prefs.sound;
    setSound(S.prefs.sound);
    savePrefs();
    toast(S.prefs.sound ? t("settings.sound_on") : t("settings.sound_off"));
    if (S.prefs.sound) play("tick");
    redraw();
  },
};
