"""The string files the page loads: the page fetches only the language in use (and the rules
and tutorial texts only when one opens), so each language's files must hold every key; none
may count on English to fill a gap."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

I18N = Path(__file__).resolve().parents[2] / "src" / "canasta" / "web" / "static" / "i18n"
LANGS = ("en", "ja")


def _load(name: str) -> dict[str, Any]:
    return dict(json.loads((I18N / f"{name}.json").read_text(encoding="utf-8")))


def _keys(node: Any, path: str = "") -> set[str]:
    """Every key path; list entries by position (a rules list of another length is a gap).
    ``x_one`` is the English singular of ``x``: a language without one uses ``x``."""
    if isinstance(node, dict):
        out = set()
        for k, v in node.items():
            if k.endswith("_one"):
                continue
            out |= {f"{path}.{k}"} | _keys(v, f"{path}.{k}")
        return out
    if isinstance(node, list):
        out = {f"{path}[{len(node)}]"}
        for i, v in enumerate(node):
            out |= _keys(v, f"{path}[{i}]")
        return out
    return set()


def test_every_language_file_holds_every_key() -> None:
    main = {lang: _keys(_load(lang)) for lang in LANGS}
    pages = {lang: _keys(_load(f"{lang}.pages")) for lang in LANGS}
    assert main["ja"] == main["en"], sorted(main["ja"] ^ main["en"])[:20]
    assert pages["ja"] == pages["en"], sorted(pages["ja"] ^ pages["en"])[:20]


def test_the_pages_file_only_adds_what_the_first_load_leaves_out() -> None:
    for lang in LANGS:
        main, pages = _load(lang), _load(f"{lang}.pages")
        for top, part in pages.items():
            for key in part:
                assert key not in main.get(top, {}), f"{lang}: {top}.{key} is in both files"
