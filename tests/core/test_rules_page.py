"""The rules page's worked scoring example (R13) is the engine's own arithmetic.

The page (``rules.sections[…].example`` in ``<lang>.pages.json``) lists one side's hand score row
by row. Each row names the part of the score it shows (``meld:Q``, ``canasta:7``,
``red_threes``, ``going_out``, ``cards_left``); these tests play the same hand through the
engine and compare every figure the page prints, in every language, so the text cannot drift
from the scoring code.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from canasta.cards import FACE_TOKEN, VALUE
from canasta.rules import opening_minimum

from .helpers import legal, state

I18N = Path(__file__).resolve().parents[2] / "src" / "canasta" / "web" / "static" / "i18n"
LANGS = ("en", "ja")

#: The hand the page describes: side 0 (seats 0 and 2) at 2,100 before the hand; seat 0 goes out
#: (not concealed) by melding three jacks and a two and discarding the nine; seat 2 keeps an
#: ace, a nine and a four; the side has laid out two red threes.
EXAMPLE = dict(
    hands=["JC JD JH 2D 9S", "6C 6D KS", "AS 9H 4D", "TC TD 8S"],
    melds=[{"Q": "QC QC QD QD QH QH QS QS", "7": "7C 7C 7D 7H 7S JK 2C"}, {}],
    red_threes=[["3H"], [], ["3D"], []],
    turn=0,
    phase="play",
    melded=[True, False, True, False],
)
GOING_OUT = "meld J:JC,JD,JH,2D discard 9S"


def _example(lang: str) -> dict[str, Any]:
    pages = json.loads((I18N / f"{lang}.pages.json").read_text(encoding="utf-8"))
    found = [s for s in pages["rules"]["sections"] if "example" in s]
    assert len(found) == 1, f"{lang}: one worked example expected"
    return dict(found[0])


def _numbers(text: str) -> list[int]:
    """The whole numbers written in ``text`` ('2,100' is 2100)."""
    return [int(n.replace(",", "")) for n in re.findall(r"\d[\d,]*\d|\d", text)]


def _played(start: int) -> Any:
    st = state(**EXAMPLE, scores=[start, 0])
    legal(st, GOING_OUT)
    assert st.result is not None
    return st


@pytest.mark.parametrize("lang", LANGS)
def test_r13_worked_example_rows_are_the_engines_figures(lang: str) -> None:
    """R13.1 (with R5.4 canastas, R9.3 red threes, R10.1 going out): each printed row equals
    the engine's part of the score, and the rows add up to the printed hand score."""
    ex = _example(lang)["example"]
    start = _numbers(ex["after"])[0]
    st = _played(start)
    result = st.result
    assert result.reason == "went_out" and result.went_out == 0 and not result.concealed
    side = result.sides[0]
    melds = {r: m for r, m in enumerate(st.melds[0]) if m is not None}
    expected = {
        "red_threes": side.red_three_bonus,
        "going_out": side.going_out,
        "cards_left": -side.hand_penalty,
    }
    for rank, meld in melds.items():
        name = FACE_TOKEN[rank]
        expected[f"meld:{name}"] = sum(VALUE[c] for c in meld.cards)
        if meld.is_canasta:
            expected[f"canasta:{name}"] = st.settings.canasta_bonus(meld.wilds)
    printed = {row["part"]: row["points"] for row in ex["rows"]}
    assert len(printed) == len(ex["rows"]), f"{lang}: a part printed twice"
    assert printed == expected, lang
    assert sum(v for k, v in printed.items() if k.startswith("meld:")) == side.melds
    assert sum(v for k, v in printed.items() if k.startswith("canasta:")) == side.canasta_bonus
    assert ex["total"]["points"] == sum(printed.values()) == side.total == result.team_deltas[0]


@pytest.mark.parametrize("lang", LANGS)
def test_r13_r6_worked_example_running_total_and_next_minimum(lang: str) -> None:
    """R13.3 and R6.1: the sentence after the table gives the score before the hand, the hand's
    score, the new total and the opening minimum that total sets for the next hand, in that
    order; the introduction states the same starting score."""
    section = _example(lang)
    ex = section["example"]
    start = _numbers(ex["after"])[0]
    st = _played(start)
    total = st.scores[0] + st.result.team_deltas[0]
    assert _numbers(ex["after"]) == [start, ex["total"]["points"], total, opening_minimum(total)], lang
    assert opening_minimum(total) != opening_minimum(start), "the example should show the minimum change"
    assert f"{start:,}" in section["items"][0], lang


def test_both_languages_print_the_same_example() -> None:
    """One hand for both pages: the same parts in the same order, the same figures."""
    en, ja = (_example(lang)["example"] for lang in LANGS)
    assert [(r["part"], r["points"]) for r in en["rows"]] == [(r["part"], r["points"]) for r in ja["rows"]]
    assert en["total"]["points"] == ja["total"]["points"]
    assert _numbers(en["after"]) == _numbers(ja["after"])
