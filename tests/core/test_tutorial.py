"""The tutorial teaches no rule of its own: every step of ``web/static/tutorial/steps.json`` is
rebuilt as a full position, its tasks are played as one action through the engine, and every
figure the page shows (opening minimum and counts, frozen or blocked pile, the layout after the
step, the going-out bonus, the refusals it describes) must be what the engine says."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from canasta import State, action_from_text
from canasta.actions import Action, Discard, Draw, Group, Meld, TakePile
from canasta.cards import FACE, parse_card, parse_rank
from canasta.rules import opening_minimum
from canasta.view import meld_json

from .helpers import state as make_state

STEPS_FILE = Path(__file__).resolve().parents[2] / "src" / "canasta" / "web" / "static" / "tutorial" / "steps.json"
DATA = json.loads(STEPS_FILE.read_text(encoding="utf-8"))
STEPS: list[dict[str, Any]] = DATA["steps"]
OURS, THEIRS = 0, 1  # seat 0 plays; its side is 0 (classic partnerships: seats 0 and 2)


def _cards(meld: dict[str, Any]) -> list[str]:
    return list(meld["cards"])


def _position(step: dict[str, Any]) -> State:
    p = step["position"]
    return make_state(
        DATA["preset"],
        hands=[p["hand"], [], [], []],
        melds=[{m["rank"]: _cards(m) for m in p["ours"]}, {m["rank"]: _cards(m) for m in p["theirs"]}],
        pile=p["pile"]["cards"],
        red_threes=[p.get("red_threes", []), [], [], []],
        stock_top=p.get("stock", []),
        phase=p["phase"],
        turn=0,
        scores=p["scores"],
    )


def _groups(step: dict[str, Any], upto: int | None = None) -> list[Group]:
    hand = step["position"]["hand"]
    out = []
    for task in step["tasks"][:upto]:
        if task["target"].startswith("rank:"):
            cards = tuple(parse_card(hand[i]) for i in task["select"])
            out.append(Group(parse_rank(task["target"][5:]), cards))
    return out


def _action(step: dict[str, Any]) -> Action:
    """The step's tasks as the one action the page plays."""
    hand = step["position"]["hand"]
    groups = tuple(_groups(step))
    last = step["tasks"][-1]
    picked = [parse_card(hand[i]) for i in last["select"]]
    if last["target"] == "stock":
        return Draw()
    if last["target"] == "meld":
        return Meld(groups)
    assert last["target"] == "pile", last
    if step["position"]["phase"] == "draw":
        top = parse_card(step["position"]["pile"]["cards"][-1])
        return TakePile((Group(FACE[top], tuple(picked)), *groups))
    assert len(picked) == 1, "a discard is one card"
    return Meld(groups, discard=picked[0]) if groups else Discard(picked[0])


def _melds(st: State, side: int) -> list[dict[str, Any]]:
    return [meld_json(m, st.settings) for m in st.melds[side] if m is not None]


def _same_melds(shown: list[dict[str, Any]], engine: list[dict[str, Any]]) -> bool:
    def key(m: dict[str, Any]) -> tuple[Any, ...]:
        return (m["rank"], sorted(m["cards"]), m["naturals"], m["wilds"], m["canasta"], m["natural"])

    return sorted(map(key, shown)) == sorted(map(key, engine))


def _pile_claims(st: State, pile: dict[str, Any]) -> None:
    view = st.view(0).to_json()["pile"]
    assert view["cards"] == pile["cards"]
    assert view["frozen"][OURS] is pile["frozen"]
    if "frozen_for_them" in pile:
        assert view["frozen"][THEIRS] is pile["frozen_for_them"]
    top = parse_card(pile["cards"][-1]) if pile["cards"] else None
    assert st.settings.pile_blocked(top) == pile.get("blocked")


@pytest.mark.parametrize("step", STEPS, ids=[s["id"] for s in STEPS])
def test_tutorial_step_shows_what_the_engine_does(step: dict[str, Any]) -> None:
    st = _position(step)
    p = step["position"]
    _pile_claims(st, p["pile"])
    assert _same_melds(p["ours"], _melds(st, OURS)) and _same_melds(p["theirs"], _melds(st, THEIRS))
    if "minimum" in p:
        assert opening_minimum(st.scores[OURS]) == p["minimum"]
        assert not st.melded[0], "an opening minimum is shown only before the side has melded"
    for k, task in enumerate(step["tasks"]):
        if "count" in task:
            assert st.opening_count(Meld(tuple(_groups(step, k + 1)))) == task["count"], task
    for refusal in step.get("refused", []):
        problem = st.check(action_from_text(refusal["action"]))
        assert problem is not None and problem.code == refusal["code"], refusal

    st.apply(_action(step))
    after = step["after"]
    assert Counter(st.hands[0]) == Counter(parse_card(c) for c in after["hand"])
    _pile_claims(st, after["pile"])
    assert _same_melds(after["ours"], _melds(st, OURS)), _melds(st, OURS)
    assert _same_melds(after["theirs"], _melds(st, THEIRS))
    assert Counter(st.red3[0]) == Counter(parse_card(c) for c in after.get("red_threes", []))
    if "going_out" in after:
        assert st.result is not None and st.result.went_out == 0
        assert st.result.sides[OURS].going_out == after["going_out"]
        assert st.result.concealed is (after["going_out"] == 200)
        if "canasta_bonus" in after:
            assert st.result.sides[OURS].canasta_bonus == after["canasta_bonus"]
    else:
        assert st.result is None
    if "next_refused" in after:
        assert st.turn == 1 and st.phase == "draw"
        problem = st.check(action_from_text(after["next_refused"]["action"]))
        assert problem is not None and problem.code == after["next_refused"]["code"]


def test_tutorial_hand_lists_keep_the_order_the_page_shows() -> None:
    """The page shows ``after.hand`` as written: the cards kept, then the cards that arrived."""
    for step in STEPS:
        kept = [c for i, c in enumerate(step["position"]["hand"])
                if not any(i in t["select"] for t in step["tasks"])]
        assert step["after"]["hand"][: len(kept)] == kept, step["id"]


def test_every_tutorial_step_has_its_words_in_each_language() -> None:
    i18n = STEPS_FILE.parents[1] / "i18n"
    for lang in ("en", "ja"):
        texts = json.loads((i18n / f"{lang}.pages.json").read_text(encoding="utf-8"))["tutorial"]["steps"]
        assert [t["id"] for t in texts] == [s["id"] for s in STEPS], lang
        for text, step in zip(texts, STEPS, strict=True):
            assert len(text["tasks"]) == len(step["tasks"]), (lang, step["id"])
            assert text["title"] and text["intro"] and text["done"]

