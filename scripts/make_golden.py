"""Regenerate the golden match records in tests/golden/ (random legal play, seeded).

    python scripts/make_golden.py

Only run this after an intended rules change: the golden test pins these final scores.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

from canasta import Game, Settings

OUT = Path(__file__).resolve().parents[1] / "tests" / "golden"
CASES = [
    (preset, target, seed + 10 * i)
    for preset, targets in {
        "classic": (1500, "one_hand", 2500),
        "bicycle": (1500, "one_hand"),
        "two-player": (1500, "one_hand"),
        "two-player-quick": (1500, "one_hand"),
        "three-player": (1500, "one_hand"),
    }.items()
    for i, target in enumerate(targets)
    for seed in (1, 2)
]


def play(preset: str, target: int | str, seed: int) -> Game:
    overrides: dict[str, object] = {"target": target}
    if preset == "classic" and seed == 2:
        overrides["ask_partner"] = True
    game = Game(Settings.preset(preset, **overrides), seed=seed)
    rng = random.Random(seed)
    while True:
        state = game.state
        while not state.is_over:
            actions = state.legal_actions()
            # favour melding and going out a little so matches reach the target
            melds = [a for a in actions if a.kind in ("meld", "take")]
            pick = rng.choice(melds) if melds and rng.random() < 0.7 else rng.choice(actions)
            game.apply(pick)
        if game.is_over:
            return game
        game.next_hand()


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    manifest = {}
    for preset, target, seed in CASES:
        game = play(preset, target, seed)
        name = f"{preset}-{target}-{seed}.json"
        (OUT / name).write_text(json.dumps(game.to_record(), separators=(",", ":")) + "\n")
        manifest[name] = {"scores": game.scores, "winners": game.winners, "hands": len(game.hands)}
        print(name, manifest[name])
    (OUT / "scores.json").write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
