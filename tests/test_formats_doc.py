"""Every example in docs/formats.md and docs/examples/ replays."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

from canasta import Game, action_from_json, action_from_text, action_to_json, action_to_text
from canasta.position import position_to_json, state_from_position

DOCS = Path(__file__).resolve().parents[1] / "docs"


def _json_blocks() -> list[dict]:
    text = (DOCS / "formats.md").read_text()
    blocks = re.findall(r"```json\n(.*?)```", text, re.S)
    out = []
    for b in blocks:
        data = json.loads(b)
        out.append(data)
    return out


def test_position_example_loads_round_trips_and_replays() -> None:
    positions = [b for b in _json_blocks() if b.get("format") == "canasta-position"]
    assert positions
    for data in positions:
        state = state_from_position(data)
        expected = {k: v for k, v in data.items() if k != "actions"}
        assert position_to_json(state) == expected
        for raw in data["actions"]:
            state.apply(action_from_json(raw))
        assert state.total_cards() == 108


def test_action_table_examples_round_trip() -> None:
    text = (DOCS / "formats.md").read_text()
    rows = re.findall(r"^\| `([^`]+)` \| `(\{[^`]+\})` \|", text, re.M)
    assert len(rows) >= 8
    for text_form, json_form in rows:
        data = json.loads(json_form.replace("[...]", "[]"))
        first = text_form.split(" / ")[0]
        action = action_from_text(first)
        assert action_to_text(action) == first
        if "[...]" not in json_form:
            assert action_to_json(action) == data


def test_example_record_replays_and_cli_agrees(tmp_path: Path) -> None:
    record = json.loads((DOCS / "examples" / "record.json").read_text())
    game = Game.from_record(record)
    assert game.is_over and game.scores == record["scores"]
    out = subprocess.run(
        [sys.executable, "-m", "canasta", "replay", str(DOCS / "examples" / "record.json"), "--json"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert json.loads(out.stdout)["scores"] == record["scores"]


def test_example_position_file_replays_with_cli() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "canasta", "replay", str(DOCS / "examples" / "position.json"), "--json"],
        capture_output=True,
        text=True,
    )
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["position"]["format"] == "canasta-position"


def test_cli_reports_illegal_action_and_malformed_file(tmp_path: Path) -> None:
    data = json.loads((DOCS / "examples" / "position.json").read_text())
    data["actions"] = ["draw", "draw"]
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(data))
    out = subprocess.run([sys.executable, "-m", "canasta", "replay", str(bad)], capture_output=True, text=True)
    assert out.returncode == 1
    assert "index 1" in out.stdout and "already_drew" in out.stdout
    broken = tmp_path / "broken.json"
    broken.write_text("{not json")
    out = subprocess.run([sys.executable, "-m", "canasta", "replay", str(broken)], capture_output=True, text=True)
    assert out.returncode == 2
    assert "bad_json" in out.stderr
