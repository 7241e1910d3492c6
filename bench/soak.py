"""Bot-only soak: many hands over every preset, checking that nothing breaks.

    python bench/soak.py [--hands 10000] [--seed 1] [--expert-every 0]

Every action is validated by the engine (an illegal action raises); each hand must end within
a bounded number of actions.  Prints a summary: hands per preset, how hands ended, actions per
hand, errors, and the time taken.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import traceback
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))

from canasta import PRESETS, Game, Settings  # noqa: E402
from canasta.bots import make_player  # noqa: E402
from canasta.bots.play import play_hand  # noqa: E402

MIXES = (
    ("normal", "beginner"),
    ("beginner", "normal"),
    ("normal", "normal"),
    ("random", "normal"),
    ("beginner", "random", "normal"),
)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    p.add_argument("--hands", type=int, default=10_000)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--expert-every", type=int, default=0, help="every Nth hand seats a fast Expert")
    p.add_argument("--json", action="store_true")
    args = p.parse_args(argv)
    presets = list(PRESETS)
    t0 = time.monotonic()
    per_preset: Counter[str] = Counter()
    reasons: Counter[str] = Counter()
    kinds: Counter[str] = Counter()
    errors: list[str] = []
    actions = 0
    longest = 0
    game: Game | None = None
    for i in range(args.hands):
        preset = presets[i % len(presets)]
        ask = preset in ("classic", "bicycle") and (i // len(presets)) % 3 == 0
        settings = Settings.preset(preset, ask_partner=ask)
        label = preset + (" +ask" if ask else "")
        # continue a match for a while so that later hands (higher minimums) are covered
        if game is None or game.is_over or game.settings != settings or i % 40 == 0:
            game = Game(settings, seed=f"soak:{args.seed}:{i}")
        elif game.state.is_over:
            game.next_hand()
        mix = MIXES[i % len(MIXES)]
        seats = []
        for s in range(settings.players):
            level = mix[s % len(mix)]
            opts: dict[str, object] = {}
            if args.expert_every and i % args.expert_every == 0 and s == 0:
                level, opts = "expert", {"iterations": 20, "time_budget": None}
            seats.append(make_player(level, seed=i * 10 + s, **opts))
        try:
            stats = play_hand(game, seats)
        except Exception as e:  # noqa: BLE001 - a soak reports every failure
            errors.append(f"hand {i} ({label}): {type(e).__name__}: {e}")
            if len(errors) <= 3:
                traceback.print_exc()
            game = None
            continue
        per_preset[label] += 1
        reasons[stats.reason] += 1
        kinds.update(stats.decisions)
        actions += stats.actions
        longest = max(longest, stats.actions)
        if (i + 1) % 500 == 0:
            sys.stderr.write(f"\r{i + 1}/{args.hands} hands, {time.monotonic() - t0:.0f}s")
            sys.stderr.flush()
    sys.stderr.write("\n")
    played = sum(per_preset.values())
    summary = {
        "hands": args.hands,
        "completed": played,
        "errors": len(errors),
        "per_preset": dict(per_preset),
        "end_reasons": dict(reasons),
        "actions": dict(kinds),
        "mean_actions_per_hand": round(actions / max(1, played), 1),
        "longest_hand_actions": longest,
        "seconds": round(time.monotonic() - t0, 1),
    }
    if args.json:
        print(json.dumps(summary))
    else:
        print(f"soak: {played}/{args.hands} hands completed, {len(errors)} errors, {summary['seconds']}s")
        print(f"  per preset: {dict(per_preset)}")
        print(f"  end reasons: {dict(reasons)}")
        print(f"  actions: {dict(kinds)}")
        print(f"  actions per hand: mean {summary['mean_actions_per_hand']}, longest {longest}")
        for e in errors[:10]:
            print("  ERROR", e)
    return 1 if errors else 0


if __name__ == "__main__":
    raise SystemExit(main())
