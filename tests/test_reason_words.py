"""Every suggestion reason the bots give has words in English and Japanese (web/static/i18n)."""

from __future__ import annotations

import json
import re
from pathlib import Path

from canasta.bots.explain import advise
from tests.bots.hands import normal_decisions

I18N = Path(__file__).resolve().parents[1] / "src" / "canasta" / "web" / "static" / "i18n"
PARAMS = re.compile(r"\{(\w+)\}")
#: what reasons.js adds to a reason's own keys
CLIENT_WORDS = {"cards", "ranks", "n"}


def _words(lang: str) -> dict:  # type: ignore[type-arg]
    return json.loads((I18N / f"{lang}.json").read_text(encoding="utf-8"))


def test_r15_every_reason_of_bot_hands_has_words_with_its_numbers() -> None:
    langs = {lang: _words(lang) for lang in ("en", "ja")}
    seen = 0
    for _, view in normal_decisions([("classic", 3), ("two-player", 5), ("three-player", 7)]):
        reason = advise(view).reason.to_json()
        code = reason["code"]
        for lang, words in langs.items():
            if code == "draw_cannot_take":
                text = words["reasons"]["draw_why"].get(reason["why"])
            else:
                if code == "meld_canasta" and not reason["natural"]:
                    code = "meld_canasta_mixed"
                text = words["reasons"].get(code)
            assert isinstance(text, str), (lang, reason)
            missing = set(PARAMS.findall(text)) - set(reason) - CLIENT_WORDS
            assert not missing, (lang, reason, missing)
        seen += 1
    assert seen > 100
