"""The browser client holds no rules (STYLE.md; issue 8): the server's view and presets say them.

Each pattern below is a rule once written out in the client: which cards are wild (R1), the
meld ranks (R5.1), the special black three (R5.5, R10.4), the canasta bonuses (R13.1), the
canasta size (R5.4), going out with the last card (R10.1) and the settings' ranges (R2). The
test greps every client module for them, so they cannot come back unnoticed.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

JS = Path(__file__).resolve().parents[1] / "src" / "canasta" / "web" / "static" / "js"

RULE_PATTERNS: dict[str, str] = {
    "wild by face (R1)": r"""\[0\]\s*===\s*["']2["']|["']2["']\s*===|card\s*===\s*["']JK["']\s*\|\|""",
    "meld ranks listed (R5.1)": r"""MELD_RANKS|\[\s*["']A["']\s*,\s*["']K["']\s*,\s*["']Q["']""",
    "the special three (R5.5, R10.4)": r"""===\s*["']3["']|["']3["']\s*===""",
    "canasta bonuses (R13.1)": r"""\b(500|300)\s*:\s*(300|500)\b|\*\s*(500|300)\b""",
    "canasta size (R5.4)": r"""length\s*(>=|>|===)\s*[67]\b""",
    "going out with the last card (R10.1)": r"""length\s*-\s*\w+(\(\))?(\.size)?\s*===\s*1""",
    "settings ranges (R2)": r"""min:\s*5\s*,\s*max:\s*15|\[\s*5000\s*,\s*2500\s*,\s*1500""",
    "black three settings (R2)": r"""\[\s*["']stop["']\s*,\s*["']freeze["']\s*\]""",
}


def client_sources() -> list[Path]:
    files = sorted(JS.glob("*.js"))
    assert files, f"no client modules under {JS}"
    return files


@pytest.mark.parametrize("rule", sorted(RULE_PATTERNS))
def test_client_holds_no_rule(rule: str) -> None:
    pattern = re.compile(RULE_PATTERNS[rule])
    found = []
    for path in client_sources():
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if pattern.search(line):
                found.append(f"{path.name}:{number}: {line.strip()}")
    assert not found, f"{rule} is written out in the client:\n" + "\n".join(found)


@pytest.mark.parametrize(
    "line",
    [
        'export function isWildFace(card) { return card === "JK" || card[0] === "2"; }',
        'const MELD_RANKS = ["A", "K", "Q", "J"];',
        'if (!targets.includes(rank) && !(rank === "3")) return;',
        't("table.canasta_bonus", { n: m.natural ? 500 : 300 })',
        '`${s.natural_canastas} (+${s.natural_canastas * 500})`',
        'const discardIdx = free.length === 1 && v.hand.length - planned === 1 ? free[0] : null;',
        'if (v.hand.length - plannedIdx().size === 1) {',
        '["hand_size", "number", { min: 5, max: 15 }],',
        'const TARGETS = [5000, 2500, 1500, "one_hand"];',
        '["black_three", "select", ["stop", "freeze"]],',
    ],
)
def test_each_old_rule_line_is_caught(line: str) -> None:
    """The patterns catch the rule lines the client used to hold (so the test can fail)."""
    assert any(re.search(p, line) for p in RULE_PATTERNS.values()), line
