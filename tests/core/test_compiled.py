"""The optional mypyc build (``bench/mypyc_build.py``) replays the golden records exactly.

Skipped unless ``CANASTA_COMPILED`` names a build directory::

    python bench/mypyc_build.py --out build/mypyc
    CANASTA_COMPILED=build/mypyc pytest tests/core/test_compiled.py
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

BUILD = os.environ.get("CANASTA_COMPILED")
GOLDEN = Path(__file__).resolve().parent.parent / "golden"

_SCRIPT = """
import json, sys
from pathlib import Path
import canasta.legal, canasta.moves
from canasta import Game
assert canasta.legal.__file__.endswith(".so") and canasta.moves.__file__.endswith(".so"), canasta.legal.__file__
golden = Path(sys.argv[1])
out = {}
for name in json.loads((golden / "scores.json").read_text()):
    record = json.loads((golden / name).read_text())
    game = Game.from_record(record)
    out[name] = {"scores": game.scores, "winners": game.winners, "hands": len(game.hands),
                 "same_record": game.to_record() == record}
# a view's JSON and a hand of the computer players run on the build too
from canasta import Settings
from canasta.bots import make_player
from canasta.bots.play import play_hand
game = Game(Settings.preset("classic", ask_partner=True), seed=5)
json.dumps(game.state.view(game.state.turn).to_json())
play_hand(game, [make_player(level, seed=s) for s, level in enumerate(["normal", "beginner"] * 2)])
out["bots_hand_over"] = {"over": game.state.is_over}
print(json.dumps(out))
"""


@pytest.mark.skipif(not BUILD, reason="set CANASTA_COMPILED to a mypyc build (bench/mypyc_build.py)")
def test_compiled_core_replays_golden_records_to_pinned_scores() -> None:
    assert BUILD is not None
    env = {**os.environ, "PYTHONPATH": str(Path(BUILD).resolve())}
    done = subprocess.run(
        [sys.executable, "-c", _SCRIPT, str(GOLDEN)], env=env, capture_output=True, text=True, check=True
    )
    replayed = json.loads(done.stdout)
    pinned = json.loads((GOLDEN / "scores.json").read_text())
    assert replayed.pop("bots_hand_over") == {"over": True}
    assert set(replayed) == set(pinned)
    for name, want in pinned.items():
        got = replayed[name]
        assert (got["scores"], got["winners"], got["hands"]) == (want["scores"], want["winners"], want["hands"]), name
        assert got["same_record"], name
