"""The verifiable shuffle (canasta.fairness), `canasta verify`, and replay steps (canasta.playback)."""

from __future__ import annotations

import copy
import hashlib
import hmac
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from canasta import Game, Settings
from canasta.actions import action_to_text
from canasta.bots import make_player
from canasta.cards import card_str, full_deck
from canasta.deal import check_deck, deck_for
from canasta.fairness import (
    FairGame,
    commitment,
    deck_from_seed,
    fairness_info,
    first_dealer_from_seed,
    game_from_record,
    hand_seed,
    public_record,
    verify_record,
)
from canasta.playback import hand_steps, replay_summary

SECRET = "5e" * 32
DOCS = Path(__file__).resolve().parents[2] / "docs"


def play(game: Game, hands: int) -> Game:
    """Play ``hands`` hands (or to the match's end) with computer players."""
    players = [make_player("beginner", seed=s) for s in range(game.settings.players)]
    done = 0
    while True:
        while not game.state.is_over:
            seat = game.state.turn
            game.apply(players[seat].choose(game.state.view(seat)))
        done += 1
        if game.is_over or done >= hands:
            return game
        game.next_hand()


def test_the_scheme_is_hmac_and_sha256_as_documented() -> None:
    """An independent computation of the seed, commitment and first shuffle steps."""
    seed = hand_seed(SECRET, 3)
    assert seed == hmac.new(SECRET.encode(), b"canasta-hand:3", hashlib.sha256).hexdigest()
    assert commitment(seed) == hashlib.sha256(seed.encode()).hexdigest()
    deck = full_deck()
    words = b"".join(hashlib.sha256(f"deck:{seed}:{k}".encode()).digest() for k in range(40))
    k = 0
    for i in range(107, 0, -1):
        while True:
            w = int.from_bytes(words[4 * k : 4 * k + 4], "big")
            k += 1
            if w < (1 << 32) - (1 << 32) % (i + 1):
                break
        j = w % (i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    assert deck == deck_from_seed(seed)
    assert check_deck(deck) == deck


def test_each_hand_is_dealt_from_its_own_seed_and_seeds_differ() -> None:
    game = play(FairGame(Settings.preset("two-player-quick", target=5000), secret=SECRET), 3)
    assert len(game.hands) == 3 and game.seed is None
    for log in game.hands:
        assert log.deck == deck_from_seed(hand_seed(SECRET, log.number))
    assert game.hands[0].dealer == first_dealer_from_seed(hand_seed(SECRET, 1), 2)
    assert len({tuple(h.deck) for h in game.hands}) == 3


def test_existing_match_seeds_deal_as_before() -> None:
    game = Game(Settings.preset("classic"), seed=7)
    assert game.hands[0].deck == deck_for(7, 1)
    assert "fairness" not in game.to_record()


def test_the_table_sees_a_commitment_first_and_the_seed_after_the_hand() -> None:
    game = FairGame(Settings.preset("two-player-quick", target=5000), secret=SECRET)
    info = fairness_info(game)
    assert info is not None
    seed = hand_seed(SECRET, 1)
    assert info["hand_commitment"] == commitment(seed) and info["hand_seed"] is None
    assert info["commitment"] == commitment(SECRET) and info["secret"] is None
    assert seed not in json.dumps(info) and SECRET not in json.dumps(info)
    play(game, 1)
    info = fairness_info(game)
    assert info is not None and info["hand_seed"] == seed and info["secret"] is None
    game.next_hand()
    info = fairness_info(game)
    assert info is not None and info["hand"] == 2 and info["hand_seed"] is None
    assert hand_seed(SECRET, 2) not in json.dumps(info)
    assert fairness_info(Game(Settings.preset("classic"), seed=1)) is None


def test_a_stored_record_reloads_and_keeps_dealing_from_the_secret() -> None:
    game = play(FairGame(Settings.preset("two-player-quick", target=5000), secret=SECRET), 1)
    again = game_from_record(json.loads(json.dumps(game.to_record())))
    assert isinstance(again, FairGame) and again.secret == SECRET
    again.next_hand()
    assert again.hands[1].deck == deck_from_seed(hand_seed(SECRET, 2))
    record = game.to_record()
    record["hands"][0]["deck"][0], record["hands"][0]["deck"][-1] = (
        record["hands"][0]["deck"][-1],
        record["hands"][0]["deck"][0],
    )
    with pytest.raises(Exception, match="deal|result|illegal|action"):
        game_from_record(record)


@pytest.mark.parametrize("fair", [False, True])
def test_records_written_again_at_every_hand_match_a_fresh_replay_and_are_independent(fair: bool) -> None:
    """A game keeps its finished hands' notation (and hand seeds) between records: each record
    still equals the one a freshly replayed game writes, and a caller that edits a record it
    was given changes no later record."""
    settings = Settings.preset("two-player-quick", target=5000)
    game: Game = FairGame(settings, secret=SECRET) if fair else Game(settings, seed=11)
    players = [make_player("beginner", seed=s) for s in range(2)]
    records = 0
    for _ in range(4):
        while not game.state.is_over:
            seat = game.state.turn
            game.apply(players[seat].choose(game.state.view(seat)))
            if len(game.hands[-1].actions) % 7 == 0:  # the hand in play is written afresh
                assert game.to_record()["hands"][-1]["actions"] == [
                    action_to_text(a) for a in game.hands[-1].actions
                ]
        for _ in range(2):  # written twice, as a server does when a hand ends
            record = game.to_record()
            fresh = (game_from_record if fair else Game.from_record)(json.loads(json.dumps(record)))
            assert fresh.to_record() == record
            assert json.loads(json.dumps(record)) == record
            # edit everything the record shares with the game's kept notation
            for hand in record["hands"]:
                hand["actions"].append("discard JK")
                hand.get("deck", []).reverse()
            if fair:
                record["fairness"]["hands"][0]["seed"] = "00"
            records += 1
        assert game.to_record() == fresh.to_record()
        if game.is_over:
            break
        game.next_hand()
    assert records >= 6 and len(game.hands) >= 3


def test_public_record_shows_finished_hands_only_and_the_secret_at_the_end() -> None:
    game = play(FairGame(Settings.preset("two-player-quick", target=5000), secret=SECRET), 2)
    game.next_hand()
    public = public_record(game.to_record())
    text = json.dumps(public)
    assert SECRET not in text and hand_seed(SECRET, 3) not in text
    assert [h["number"] for h in public["hands"]] == [1, 2]
    assert [e["number"] for e in public["fairness"]["hands"]] == [1, 2]
    assert Game.from_record(public).scores == game.scores
    assert verify_record(public).ok
    # a record dealt from a match seed loses the seed while the match goes on
    seeded = play(Game(Settings.preset("two-player-quick", target=5000), seed=11), 1)
    seeded.next_hand()
    shown = public_record(seeded.to_record())
    assert shown["seed"] is None and shown["hands"][0]["deck"] == [card_str(c) for c in deck_for(11, 1)]
    assert Game.from_record(shown).scores == seeded.scores


def finished_fair_record() -> dict[str, Any]:
    game = play(FairGame(Settings.preset("two-player-quick", target="one_hand"), secret=SECRET), 1)
    assert game.is_over
    return public_record(game.to_record())


def test_verify_accepts_a_fair_record() -> None:
    record = finished_fair_record()
    assert record["fairness"]["secret"] == SECRET
    result = verify_record(record)
    assert result.ok, result.failure
    assert any("matches its commitment" in line for line in result.lines)


@pytest.mark.parametrize(
    ("tamper", "code"),
    [
        (lambda r: r["hands"][0]["deck"].reverse(), "deal_mismatch"),
        (lambda r: r["fairness"]["hands"][0].update(seed="ab" * 32), "commitment_mismatch"),
        (lambda r: r["fairness"]["hands"][0].update(commitment="ab" * 32), "commitment_mismatch"),
        (lambda r: r["fairness"].update(secret="ab" * 32), "commitment_mismatch"),
        (lambda r: r["fairness"]["hands"].clear(), "missing_commitment"),
        (lambda r: r.pop("fairness"), "no_commitments"),
        (lambda r: r["hands"][0]["actions"].pop(), "result_mismatch"),
        (lambda r: r["hands"][0].update(dealer=1 - r["hands"][0]["dealer"]), "deal_mismatch"),
    ],
)
def test_verify_rejects_a_tampered_record(tamper: Any, code: str) -> None:
    record = copy.deepcopy(finished_fair_record())
    tamper(record)
    result = verify_record(record)
    assert not result.ok and result.failure is not None
    assert result.failure.code == code, result.failure.message


def test_verify_command_exit_codes(tmp_path: Path) -> None:
    record = finished_fair_record()
    good = tmp_path / "good.json"
    good.write_text(json.dumps(record))
    run = [sys.executable, "-m", "canasta", "verify"]
    out = subprocess.run([*run, str(good)], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert "verified" in out.stdout
    record["hands"][0]["deck"][:2] = record["hands"][0]["deck"][1::-1]
    if record["hands"][0]["deck"][0] == record["hands"][0]["deck"][1]:  # two copies: no change
        record["hands"][0]["deck"].reverse()
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(record))
    out = subprocess.run([*run, str(bad)], capture_output=True, text=True)
    assert out.returncode == 1
    assert "deal_mismatch" in out.stderr and "hand 1" in out.stderr
    broken = tmp_path / "broken.json"
    broken.write_text("{")
    out = subprocess.run([*run, str(broken)], capture_output=True, text=True)
    assert out.returncode == 2 and "bad_json" in out.stderr


def test_the_documented_fair_record_verifies() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "canasta", "verify", str(DOCS / "examples" / "fair-record.json")],
        capture_output=True,
        text=True,
    )
    assert out.returncode == 0, out.stdout + out.stderr


# ---------------------------------------------------------------------- replay steps


def test_steps_show_a_seat_only_its_view_and_reveal_shows_every_hand() -> None:
    game = play(FairGame(Settings.preset("classic", target=5000), secret=SECRET), 1)
    log = game.hands[0]
    steps = hand_steps(game, 1, seat=2)
    assert len(steps) == len(log.actions) + 1
    assert [s["text"] for s in steps[1:]] == [json.loads(json.dumps(t)) for t in map(_text, log.actions)]
    final = steps[-1]["view"]
    assert final["result"] == log.result.to_json() if log.result else False
    for step in steps:
        view = step["view"]
        assert "hands" not in view and view["seat"] == 2 and "legal" not in view
        for e in step["events"]:
            if e["seat"] != 2:
                assert e["cards"] == []
    open_steps = hand_steps(game, 1, seat=2, reveal=True)
    assert all(len(s["view"]["hands"]) == 4 for s in open_steps)
    assert open_steps[0]["view"]["hands"][2] == steps[0]["view"]["hand"]
    assert any(e["cards"] for s in open_steps for e in s["events"] if e["seat"] != 2)
    summary = replay_summary(game)
    assert summary["hands"][0]["actions"] == len(log.actions)
    with pytest.raises(Exception, match="hand 2"):
        hand_steps(game, 2, seat=0)
    with pytest.raises(Exception, match="seat"):
        hand_steps(game, 1, seat=4)


def _text(action: Any) -> str:
    from canasta import action_to_text

    return action_to_text(action)


def test_the_documented_example_is_what_the_scheme_computes() -> None:
    import re

    text = (DOCS / "formats.md").read_text()
    block = next(
        json.loads(b) for b in re.findall(r"```json\n(.*?)```", text, re.S) if '"canasta-commit-1"' in b
    )
    secret = block["secret"]
    assert block["commitment"] == commitment(secret)
    for entry in block["hands"]:
        assert entry["seed"] == hand_seed(secret, entry["number"])
        assert entry["commitment"] == commitment(entry["seed"])
    deck = deck_from_seed(hand_seed(secret, 1))
    assert block["first_cards"] == " ".join(card_str(c) for c in deck[:12])
    assert block["first_dealer_of_4"] == first_dealer_from_seed(hand_seed(secret, 1), 4)
