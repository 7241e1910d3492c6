"""``bench/changes.py`` (the event loop's CPU per change, in one process) runs end to end: its
tables are dealt, the person and the computer seats play, and nothing is refused. Its figures
are measured by running it; here the checks are that it plays and counts what it plays."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

PROBE = Path(__file__).resolve().parents[2] / "bench" / "changes.py"


def test_the_probe_plays_its_tables_and_counts_their_changes() -> None:
    done = subprocess.run(
        [sys.executable, str(PROBE), "--tables", "4", "--seconds", "3", "--bot-delay-ms", "0", "--json"],
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    figures = json.loads(done.stdout.strip().splitlines()[-1])
    assert figures["errors"] == 0, figures
    assert figures["tables"] == 4
    # the person acts on each of its turns, and the three computer seats answer each turn
    assert figures["human_actions"] >= 4, figures
    assert figures["changes"] > figures["human_actions"], figures
    assert figures["loop_us_per_change"] > 0
