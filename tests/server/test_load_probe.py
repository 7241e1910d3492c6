"""``bench/load.py`` (issue 12's load probe) runs end to end: against the computer, and with
online matches of several people made through private rooms (``--humans``). The figures it
prints are measured by running it; here the checks are that each kind of table is made as a
browser makes it, is played, and gives no error."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

PROBE = Path(__file__).resolve().parents[2] / "bench" / "load.py"


def _probe(*args: str) -> dict[str, object]:
    done = subprocess.run(
        [sys.executable, str(PROBE), "--seconds", "6", "--clients", "1", "--client-nice", "0", "--json", *args],
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    figures = json.loads(done.stdout.strip().splitlines()[-1])
    assert isinstance(figures, dict)
    return figures


@pytest.mark.parametrize(("humans", "tables"), [(1, 3), (2, 2), (4, 3)])
def test_the_probe_plays_each_kind_of_table_without_an_error(humans: int, tables: int) -> None:
    # a person acts about twice a second: well within a socket's message limit
    figures = _probe("--humans", str(humans), "--tables", str(tables), "--think", "0.4")
    assert figures["humans_per_table"] == humans
    assert figures["errors"] == 0, figures["error_codes"]
    actions = figures["human_actions"]
    assert isinstance(actions, int) and actions >= tables * humans, figures
    # against the computer the seats reply to each action; online among four people each
    # action is one change (a new hand now and then)
    per_action = figures["changes_per_action"]
    assert isinstance(per_action, float)
    if humans == 1:
        assert per_action > 2, figures
    if humans == 4:
        assert per_action < 1.5, figures
