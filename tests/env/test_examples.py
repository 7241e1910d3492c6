"""The examples and the benchmark run (smoke tests: they print, they do not assert)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("pettingzoo")

ROOT = Path(__file__).resolve().parents[2]


def run(*args: str) -> str:
    out = subprocess.run([sys.executable, *args], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    return out.stdout


def test_random_agent_plays_a_hand_of_every_preset() -> None:
    text = run("examples/random_agent.py")
    for preset in ("classic", "bicycle", "two-player", "two-player-quick", "three-player"):
        assert f"{preset}\n" in text
    assert text.count("rewards:") == 5


def test_vs_bots_plays_hands_against_the_computer() -> None:
    text = run("examples/vs_bots.py", "--hands", "1", "--level", "beginner")
    assert "hand 1: learner's reward" in text


def test_bench_prints_env_steps_per_second() -> None:
    figures = json.loads(run("bench/env.py", "--json", "--seconds", "0.5"))
    assert figures["env_steps_per_s"] > 0 and figures["steps_per_hand"] > 0
