// The player's plan: selecting cards, staging groups, and the table actions that send it.
// What is legal is the server's to say: it lists the legal moves and validates the plan live.
import { S, savePrefs } from "./store.js";
import { t } from "./i18n.js";
import { setSound, play } from "./sound.js";
import { mySeat, planAction, selectionTargets, plannedIdx, canAct } from "./table.js";
import { rankOf, isWildFace } from "./cards.js";
import { isOnline } from "./online.js";
import { rememberOpener } from "./overlays.js";
import { redraw, toast, focusAfterAction, noteStaged, openOverlay } from "./screen.js";
import { request, sendAction, validatePlan, version, discardAfter, onReply } from "./session.js";

export function clearPlan() {
  S.selection.clear();
  S.plan = [];
  S.validation = null;
  S.notice = "";
  S.confirmTake = false;
}

/** Stage a suggested (or listed) action as the plan, with a line saying what it is. */
export function showSuggestion(msg) {
  const a = msg.action;
  if (!a) {
    S.notice = t("suggest.none");
    redraw();
    return;
  }
  S.selection.clear();
  S.plan = [];
  const hand = S.view.hand || [];
  const used = new Set();
  const take = (card) => {
    const j = hand.findIndex((c, k) => c === card && !used.has(k));
    if (j >= 0) used.add(j);
    return j;
  };
  if (a.type === "draw") S.notice = t("suggest.draw");
  else if (a.type === "discard") {
    const j = take(a.card);
    if (j >= 0) S.selection.add(j);
    S.notice = t("suggest.discard");
  } else if (a.type === "take" || a.type === "meld") {
    for (const g of a.groups || []) {
      const idx = g.cards.map(take).filter((j) => j >= 0);
      if (idx.length) S.plan.push({ rank: g.rank, idx });
    }
    if (a.discard) {
      const j = take(a.discard);
      if (j >= 0) S.selection.add(j);
    }
    S.notice = a.type === "take" ? t("suggest.take") : a.discard ? t("suggest.go_out") : t("suggest.meld");
    validatePlan();
  } else if (a.type === "decline") S.notice = t("suggest.decline");
  else S.notice = t("suggest.other");
  redraw();
}
onReply("suggestion", showSuggestion);

export const actions = {
  toggle(i) {
    if (plannedIdx().has(i)) return;
    if (S.selection.has(i)) S.selection.delete(i); else S.selection.add(i);
    S.notice = "";
    redraw();
  },
  stage(rank) {
    if (!S.selection.size) return;
    const targets = selectionTargets();
    if (!targets.includes(rank) && !(rank === "3")) { toast(t("plan.wrong_rank"), "bad"); return; }
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
      const hand = v.hand;
      const top = rankOf(v.pile.top);
      const cards = [...S.selection].map((i) => hand[i]);
      if (cards.every((c) => isWildFace(c) || rankOf(c) === top)) actions.stage(top);
    }
    if (!S.plan.length) {
      // Nothing staged: show the server's first listed way to take the pile, to confirm.
      const legal = (v.legal || []).find((a) => a.type === "take");
      if (!legal) { toast(t("errors.no_take"), "bad"); return; }
      const onlyTop = legal.groups.length === 1 && legal.groups[0].cards.length === 0;
      if (!onlyTop) {
        showSuggestion({ action: legal });
        S.notice = t("plan.confirm_take");
        S.confirmTake = true;
        redraw();
        return;
      }
    }
    const action = planAction();
    clearPlan();
    focusAfterAction("fresh");
    sendAction(action);
  },
  pileTap() {
    const v = S.view;
    if (!v) return;
    if (v.phase === "draw") actions.take();
    else if (v.phase === "play") actions.discard();
  },
  meld() {
    const v = S.view;
    if (!v || v.phase !== "play" || !S.plan.length) return;
    // A single selected card outside the plan is the going-out discard, sent together.
    const free = [...S.selection].filter((i) => !plannedIdx().has(i));
    const planned = plannedIdx().size;
    const discardIdx = free.length === 1 && v.hand.length - planned === 1 ? free[0] : null;
    const action = planAction(discardIdx);
    clearPlan();
    focusAfterAction("hand");
    sendAction(action);
  },
  discard() {
    const v = S.view;
    if (!v || v.phase !== "play" || v.turn !== mySeat()) return;
    const sel = [...S.selection];
    if (sel.length !== 1) { toast(t("plan.select_one"), ""); return; }
    focusAfterAction("hand");
    if (S.plan.length) {
      const left = v.hand.length - plannedIdx().size;
      if (left === 1) {
        // The last card: melds and discard go together (going out).
        const action = planAction(sel[0]);
        clearPlan();
        sendAction(action);
      } else {
        // Meld the plan, then discard the selected card once the meld is on the table.
        discardAfter(v.hand[sel[0]]);
        const action = planAction();
        clearPlan();
        sendAction(action);
      }
    } else {
      const card = v.hand[sel[0]];
      clearPlan();
      sendAction({ type: "discard", card });
    }
  },
  send(action) { clearPlan(); sendAction(action); },
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
