"""The docstring examples of the core and the bots run as tests (they are documentation that must stay true)."""

from __future__ import annotations

import doctest
import importlib
from pathlib import Path

import pytest

import canasta

SRC = Path(canasta.__file__).parent
MODULES = sorted(
    ["canasta"]
    + [f"canasta.{p.stem}" for p in SRC.glob("*.py") if p.stem not in ("__init__", "__main__")]
    + [f"canasta.bots.{p.stem}" for p in (SRC / "bots").glob("*.py") if p.stem != "__init__"]
    + ["canasta.bots"]
)


@pytest.mark.parametrize("name", MODULES)
def test_doctests(name: str) -> None:
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples failed in {name}"


def test_the_core_has_doctests_where_examples_explain() -> None:
    """The rules questions, notation and entry points carry examples (at least)."""
    attempted = {
        name: doctest.testmod(importlib.import_module(name)).attempted
        for name in ("canasta", "canasta.rules", "canasta.cards", "canasta.errors", "canasta.legal", "canasta.state")
    }
    assert all(attempted.values()), attempted
