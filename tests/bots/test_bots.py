"""Computer players: legal, never stalled, blind to hidden cards; the arena's JSON contract."""

from __future__ import annotations

import importlib.util
import json
import random
from pathlib import Path
from types import ModuleType

import pytest

from canasta import PRESETS, Game, Resampler, Settings
from canasta.bots import make_player
from canasta.bots.arena import run_arena
from canasta.bots.play import play_hand

FAST_EXPERT = {"iterations": 6, "time_budget": None}
PRESET_NAMES = list(PRESETS)


def _bots(players: int, levels: list[str], seed: int) -> list:
    out = []
    for s in range(players):
        level = levels[s % len(levels)]
        opts = FAST_EXPERT if level == "expert" else {}
        out.append(make_player(level, seed=seed * 10 + s, **opts))
    return out


@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_bot_only_hands_are_legal_and_terminate(preset: str) -> None:
    """40 hands per preset with every heuristic level mixed: no illegal action, no stall."""
    settings = Settings.preset(preset)
    mixes = [
        ["normal", "beginner"],
        ["beginner", "random"],
        ["normal"],
        ["random", "normal", "beginner"],
    ]
    reasons = set()
    for i in range(40):
        game = Game(settings, seed=f"test:{preset}:{i}")
        stats = play_hand(game, _bots(settings.players, mixes[i % len(mixes)], i))
        assert game.state.is_over
        assert game.state.total_cards() == 108
        reasons.add(stats.reason)
    assert "went_out" in reasons


@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_expert_plays_a_legal_hand(preset: str) -> None:
    settings = Settings.preset(preset)
    game = Game(settings, seed=f"expert:{preset}")
    play_hand(game, _bots(settings.players, ["expert", "normal"], 3))
    assert game.state.is_over


def test_ask_partner_hands_with_every_level() -> None:
    """R11 on: asking and answering are exercised and always legal."""
    settings = Settings.preset("classic", ask_partner=True)
    asked = 0
    for i in range(40):
        game = Game(settings, seed=f"ask:{i}")
        levels = ["normal", "beginner"] if i % 2 else ["beginner", "random", "normal", "normal"]
        stats = play_hand(game, _bots(4, levels, i))
        asked += stats.decisions.get("ask", 0)
    game = Game(settings, seed="ask:expert")
    play_hand(game, _bots(4, ["expert", "normal"], 1))
    assert asked > 0


def test_full_matches_finish() -> None:
    from canasta.bots.play import play_match

    for preset in ("two-player-quick", "three-player"):
        game = Game(Settings.preset(preset, target=1500), seed=f"match:{preset}")
        play_match(game, _bots(game.settings.players, ["normal", "beginner"], 2))
        assert game.is_over and game.winners


def _positions(preset: str, count: int, seed: int) -> list:
    """States at decision points from Normal-vs-Beginner hands."""
    settings = Settings.preset(preset)
    rng = random.Random(seed)
    out = []
    for i in range(count):
        game = Game(settings, seed=f"pos:{preset}:{seed}:{i}")
        st = game.state
        bots = _bots(settings.players, ["normal", "beginner"], i)
        stop = rng.randrange(1, 60)
        n = 0
        while not st.is_over and n < stop:
            st.apply(bots[st.turn].choose(st.view(st.turn)))
            n += 1
        if not st.is_over:
            out.append(st)
    return out


@pytest.mark.parametrize("level", ["beginner", "normal", "expert"])
@pytest.mark.parametrize("preset", ["classic", "two-player", "three-player"])
def test_decision_ignores_hidden_cards(level: str, preset: str) -> None:
    """Resampling the other hands and the stock does not change a seeded player's decision."""
    checked = 0
    for st in _positions(preset, 6 if level == "expert" else 15, 11):
        seat = st.turn
        view = st.view(seat)
        other = Resampler(view).sample(random.Random(99))
        assert other.hands[seat] == st.hands[seat] or sorted(other.hands[seat]) == sorted(
            st.hands[seat]
        )
        differs = other.stock != st.stock or any(
            sorted(other.hands[s]) != sorted(st.hands[s]) for s in range(st.players) if s != seat
        )
        opts = FAST_EXPERT if level == "expert" else {}
        a = make_player(level, seed=7, **opts).choose(view)
        b = make_player(level, seed=7, **opts).choose(other.view(seat))
        assert a == b
        assert st.check(a) is None
        checked += differs
    assert checked > 0


def test_arena_json_keys_and_reproducible(capsys: pytest.CaptureFixture[str]) -> None:
    out = run_arena(
        "normal",
        "beginner",
        "two-player-quick",
        4,
        1,
        seed=5,
        matches=2,
        json_out=True,
        progress=False,
    )
    printed = json.loads(capsys.readouterr().out)
    for key in ("mean_diff", "ci95", "deals", "match_win_rate", "matches", "elo"):
        assert key in printed and key in out
    assert printed["deals"] == 4 and printed["matches"] == 2
    assert (
        len(printed["ci95"]) == 2
        and printed["ci95"][0] <= printed["mean_diff"] <= printed["ci95"][1]
    )
    again = run_arena(
        "normal", "beginner", "two-player-quick", 4, 2, seed=5, json_out=True, progress=False
    )
    assert again["mean_diff"] == out["mean_diff"]


def _strength_module() -> ModuleType:
    path = Path(__file__).resolve().parents[2] / "bench" / "strength.py"
    spec = importlib.util.spec_from_file_location("canasta_bench_strength", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_strength_cell_with_matches_only() -> None:
    """``bench/strength.py --deals 0 --matches 4``: match score, its interval and Elo, no deal columns."""
    strength = _strength_module()
    row = strength.cell("normal", "random", "two-player-quick", 0, 3, {}, 4)
    assert row["deals"] == 0 and row["deal_elo"] is None and row["matches"] == 4
    lo, hi = row["match_ci95"]
    assert lo <= row["match_win_rate"] <= hi
    e_lo, e_hi = row["match_elo_ci95"]
    assert e_lo <= row["match_elo"] <= e_hi
    assert row["match_ci95_duplicate"] is not None  # two complete duplicate pairs
    table = strength.markdown([row])
    assert "Elo from match score" in table and f"{row['match_win_rate']:.1%}" in table


def test_strength_cell_is_the_same_with_several_workers() -> None:
    """``bench/strength.py --workers 2`` shares a cell's deals and matches among processes and
    gives the same figures: every deal and match is seeded by its own number."""
    strength = _strength_module()
    alone = strength.cell("beginner", "random", "two-player-quick", 6, 4, {}, 4)
    shared = strength.cell("beginner", "random", "two-player-quick", 6, 4, {}, 4, workers=2)
    assert shared["workers"] == 2 and alone["workers"] == 1
    for row in (alone, shared):
        del row["workers"], row["seconds"]
    assert shared == alone


def test_expert_breakdown_sorts_the_arena_hands() -> None:
    """``bench/expert_breakdown.py``: every seating of every duplicate deal is one hand, sorted by
    who first took the pile and who went out (R14); the rows add up to the arena's points a
    deal on the same seed, and no level takes more piles than it could."""
    path = Path(__file__).resolve().parents[2] / "bench" / "expert_breakdown.py"
    spec = importlib.util.spec_from_file_location("canasta_bench_expert_breakdown", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    out = module.breakdown("normal", "beginner", "three-player", 3, 5, {})
    arena = run_arena(
        "normal", "beginner", "three-player", 3, 1, seed=5, progress=False, quiet=True
    )
    assert out["hands"] == 9 == sum(r["hands"] for r in out["rows"])
    # the arena's figure a deal is the mean of its seatings: with whole deals, the mean of hands
    assert out["mean_diff"] == pytest.approx(arena["mean_diff"], abs=0.01)
    assert sum(r["adds"] for r in out["rows"]) == pytest.approx(out["mean_diff"], abs=0.5)
    for r in out["rows"]:
        assert r["first_take"] in ("a", "b", "none")
        assert r["went_out"] in ("a", "b", "b-partner", "none")
    assert all(0 <= r["taken"] <= r["chances"] for r in out["takes"])
    # a hand has at most one first take, and that take is one of its counted chances
    assert sum(r["taken"] for r in out["takes"]) == sum(
        r["hands"] for r in out["rows"] if r["first_take"] != "none"
    )


def test_arena_cli_main(capsys: pytest.CaptureFixture[str]) -> None:
    from canasta.bots.arena import main

    assert (
        main(
            [
                "--a",
                "random",
                "--b",
                "beginner",
                "--preset",
                "three-player",
                "--deals",
                "2",
                "--seed",
                "3",
                "--json",
                "--no-progress",
            ]
        )
        == 0
    )
    data = json.loads(capsys.readouterr().out)
    assert data["deals"] == 2 and data["match_win_rate"] is None


def test_unknown_level() -> None:
    with pytest.raises(ValueError):
        make_player("grandmaster")


def test_partner_is_normal_at_every_difficulty() -> None:
    from canasta.bots import computer_seats

    for difficulty in ("beginner", "normal", "expert"):
        seats = computer_seats(4, 0, difficulty, seed=1)
        assert seats[2].level == "normal"
        assert seats[1].level == seats[3].level == difficulty
    assert set(computer_seats(3, 1, "beginner")) == {0, 2}


def test_normal_reads_on_its_memory_exactly_as_a_fresh_scan() -> None:
    """Normal keeps the memory of its last decision and reads on from there while the hand
    goes on; at every decision it equals a scan of the whole history, also when the player is
    asked about another game's view in between (then it scans afresh)."""
    from canasta.bots.evaluate import Memory
    from canasta.bots.players import HeuristicPlayer
    from canasta.bots.policy import NORMAL

    settings = Settings.preset("two-player")
    games = [Game(settings, seed=f"memory:{i}") for i in range(2)]
    bots = [make_player("normal", seed=s) for s in range(2)]
    player = HeuristicPlayer("normal", NORMAL, seed=1)
    read_on = fresh = 0
    for step in range(400):
        game = games[step % 2 if step > 200 else 0]
        st = game.state
        if st.is_over:
            game.next_hand()
            continue
        view = st.view(st.turn)
        kept = player._memory
        memory = player._remember(view)
        read_on += kept is not None and memory is kept[0]
        fresh += kept is None or memory is not kept[0]
        assert memory == Memory.from_history(view.history, view.players)
        st.apply(bots[st.turn].choose(view))
    assert read_on > 100 and fresh > 10


def test_a_view_built_with_the_legal_actions_given_is_the_same_view() -> None:
    """A caller that has the legal actions (the server, before a computer seat's move) may pass
    them to the view; the view is the one built without them."""
    for st in _positions("classic", 8, 5):
        legal = st.legal_actions()
        assert st.view(st.turn, legal) == st.view(st.turn)
        assert st.view((st.turn + 1) % 4, legal) == st.view((st.turn + 1) % 4)
