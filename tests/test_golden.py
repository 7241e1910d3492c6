"""Golden records: complete recorded matches replay exactly to their pinned final scores."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from canasta import Game

GOLDEN = Path(__file__).parent / "golden"
PINNED = json.loads((GOLDEN / "scores.json").read_text())


def test_at_least_twenty_golden_matches_over_several_presets() -> None:
    assert len(PINNED) >= 20
    presets = {json.loads((GOLDEN / n).read_text())["settings"]["preset"] for n in PINNED}
    assert len(presets) == 5


@pytest.mark.parametrize("name", sorted(PINNED))
def test_golden_record_replays_to_pinned_scores(name: str) -> None:
    record = json.loads((GOLDEN / name).read_text())
    game = Game.from_record(record)
    assert game.is_over
    assert game.scores == PINNED[name]["scores"]
    assert game.winners == PINNED[name]["winners"]
    assert len(game.hands) == PINNED[name]["hands"]
    # the replayed match writes back the same record
    assert game.to_record() == record
