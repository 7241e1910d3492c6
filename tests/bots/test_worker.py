"""The computer players' worker process (``canasta.bots.worker``): its copies of the matches
and its answers, which a server's computer seats play (docs in the module)."""

from __future__ import annotations

import io
import json
import random
import subprocess
import sys

import pytest

from canasta import Game, Settings
from canasta.actions import action_from_text, action_to_text
from canasta.bots import make_player
from canasta.bots.worker import NEXT_HAND, Worker, deck_check, serve
from canasta.fairness import FairGame


def _play(preset: str, level: str, seed: int, *, worker: Worker, table: str = "t") -> int:
    """Play a match's first two hands with every seat at ``level``, each decision both in this
    process and by ``worker`` (told only the actions since its last request); they must agree.
    The hands are dealt from a secret fixed by ``seed``, so the match is the same every run.
    Returns the number of decisions compared."""
    game = FairGame(Settings.preset(preset), secret=f"{seed:064x}")
    here = {s: make_player(level, seed=seed + s) for s in range(game.settings.players)}
    sent: tuple[int, int] | None = None  # (hands, actions) the worker was last told
    compared = 0
    while not game.is_over and len(game.hands) <= 2:
        st = game.state
        if st.is_over:
            game.next_hand()
            continue
        seat = st.turn
        legal = st.legal_actions()
        action = here[seat].choose(st.view(seat, legal))
        if len(legal) > 1:
            hands, played = len(game.hands), game.hands[-1].actions
            request: dict[str, object] = {
                "id": compared, "table": table, "seat": seat, "level": level,
                "seed": seed + seat, "at": [hands, len(played)],
            }
            if sent is None or sent[0] != hands:
                request["record"] = json.loads(json.dumps(game.to_record()))
                request["actions"] = []
            else:
                request["actions"] = [action_to_text(a) for a in played[sent[1]:]]
            sent = (hands, len(played))
            answer = worker.handle(request)
            assert answer == {"id": compared, "action": action_to_text(action)}
            compared += 1
        game.apply(action)
    return compared


@pytest.mark.parametrize("preset", ["classic", "two-player", "three-player"])
@pytest.mark.parametrize("level", ["beginner", "normal"])
def test_the_worker_chooses_what_the_player_chooses_in_the_server_process(preset: str, level: str) -> None:
    worker = Worker()
    assert _play(preset, level, 11, worker=worker) > 50
    assert len(worker) == 1


@pytest.mark.parametrize("preset", ["classic", "three-player"])
def test_moves_played_on_for_are_the_moves_each_seat_would_choose_asked_alone(preset: str) -> None:
    """A request with ``ahead`` answers the moves after its own while the computer seats it
    names are to move: each the move that seat's player chooses when asked alone (a forced
    move as it is), up to a person's turn, the hand's end or ``ahead``; the copy stays where
    the request left it."""
    game = FairGame(Settings.preset(preset), secret=f"{3:064x}")
    n = game.settings.players
    people = {0}
    computers = {str(s): ["normal", 40 + s] for s in range(n) if s not in people}
    alone = {s: make_player("normal", seed=40 + s) for s in range(n) if s not in people}
    worker, rng, checked, record, sent = Worker(), random.Random(8), 0, True, 0
    while not game.state.is_over:
        st = game.state
        legal = st.legal_actions()
        if st.turn in people or len(legal) == 1:
            game.apply(legal[0] if st.turn not in people else rng.choice(legal))
            continue
        request: dict[str, object] = {
            "id": 1, "table": "t", "seat": st.turn, "level": "normal", "seed": 40 + st.turn,
            "at": [1, len(game.hands[-1].actions)], "ahead": 5, "computers": computers,
        }
        if record:
            request["record"], request["actions"], record = json.loads(json.dumps(game.to_record())), [], False
        else:
            request["actions"] = [action_to_text(a) for a in game.hands[-1].actions[sent:]]
        sent = len(game.hands[-1].actions)
        answer = worker.handle(request)
        assert answer is not None and "error" not in answer, answer
        # what each seat chooses asked alone, move after move, on the table's own game
        expected = []
        for _ in range(1 + 5):
            s = game.state
            if s.is_over or s.turn in people:
                break
            moves = s.legal_actions()
            move = moves[0] if len(moves) == 1 else alone[s.turn].choose(s.view(s.turn, moves))
            expected.append(action_to_text(move))
            game.apply(move)
        assert [answer["action"], *answer.get("then", [])] == expected
        checked += len(expected)
    assert checked > 20
    assert len(worker) == 1


def test_a_copy_that_is_missing_or_differs_is_dropped_and_asked_for() -> None:
    worker = Worker()
    game = Game(Settings.preset("classic"), seed=5)
    ask = {"id": 1, "table": "t", "seat": game.state.turn, "level": "normal", "seed": 1}
    assert worker.handle({**ask, "actions": [], "at": [1, 0]}) == {"id": 1, "error": "resync"}
    record = game.to_record()
    assert "action" in worker.handle({**ask, "record": record, "actions": [], "at": [1, 0]})  # type: ignore[operator]
    # the server says the copy should hold one more action than it was sent: dropped
    assert worker.handle({**ask, "actions": [], "at": [1, 1]}) == {"id": 1, "error": "resync"}
    assert len(worker) == 0
    # an action the copy cannot play (not this position's): dropped too, nothing applied
    worker.handle({**ask, "record": record, "actions": [], "at": [1, 0]})
    assert worker.handle({**ask, "actions": ["discard JK"], "at": [1, 1]}) == {"id": 1, "error": "resync"}
    assert len(worker) == 0


def test_a_copy_deals_the_next_hand_itself_and_is_dropped_when_its_deck_differs() -> None:
    game = FairGame(Settings.preset("two-player-quick", target=5000), secret="1f" * 32)
    record = game.to_record()  # the copy starts from the first hand's deal
    while not game.state.is_over:
        game.apply(game.state.legal_actions()[0])
    played = [action_to_text(a) for a in game.hands[0].actions]
    game.next_hand()
    dealt = deck_check(game.hands[-1].deck)
    request = {
        "id": 1, "table": "t", "level": "beginner", "seed": 3, "seat": game.state.turn,
        "record": record, "actions": [*played, NEXT_HAND], "at": [2, 0],
    }
    worker = Worker()
    assert worker.handle({**request, "dealt": dealt ^ 1}) == {"id": 1, "error": "resync"}
    assert len(worker) == 0
    answer = worker.handle({**request, "dealt": dealt})
    assert answer is not None and "action" in answer and len(worker) == 1
    # the copy dealt exactly the game's second hand: it plays on from there
    again = make_player("beginner", seed=3).choose(game.state.view(game.state.turn))
    assert answer["action"] == action_to_text(again)
    # a next hand before the copy's hand is over cannot be dealt: dropped
    early = {**request, "actions": [NEXT_HAND], "dealt": dealt}
    assert worker.handle(early) == {"id": 1, "error": "resync"}
    # a new hand without the check of its deck, or two in one request: dropped too
    unchecked = {k: v for k, v in request.items() if k != "dealt"}
    twice = {**request, "actions": [*played, NEXT_HAND, NEXT_HAND], "at": [3, 0], "dealt": dealt}
    for bad in (unchecked, twice):
        assert worker.handle(bad) == {"id": 1, "error": "resync"} and len(worker) == 0


def test_a_request_for_a_seat_not_to_move_or_an_unknown_level_fails_clearly() -> None:
    worker = Worker()
    game = Game(Settings.preset("classic"), seed=5)
    base = {"id": 2, "table": "t", "record": game.to_record(), "actions": [], "at": [1, 0], "seed": 1}
    wrong = worker.handle({**base, "seat": (game.state.turn + 1) % 4, "level": "normal"})
    assert wrong is not None and wrong["error"] == "failed" and "not to move" in wrong["message"]
    level = worker.handle({**base, "seat": game.state.turn, "level": "grandmaster"})
    assert level is not None and level["error"] == "failed" and "unknown level" in level["message"]
    assert worker.handle({"id": 3}) == {"id": 3, "error": "failed", "message": "KeyError: 'table'"}


def test_forget_and_the_least_recently_used_copies_go() -> None:
    worker = Worker(max_tables=2)
    game = Game(Settings.preset("two-player"), seed=1)
    for table in ("a", "b", "a", "c"):  # "b" is the least recently used when "c" comes
        ask = {"id": 1, "table": table, "seat": game.state.turn, "level": "normal", "seed": 1}
        worker.handle({**ask, "record": game.to_record(), "actions": [], "at": [1, 0]})
    assert len(worker) == 2
    gone = {"id": 1, "table": "b", "seat": game.state.turn, "level": "normal", "seed": 1}
    assert worker.handle({**gone, "actions": [], "at": [1, 0]}) == {"id": 1, "error": "resync"}
    assert worker.handle({"forget": "a"}) is None
    assert len(worker) == 1


def test_the_process_answers_each_line_in_order_until_its_input_ends() -> None:
    game = Game(Settings.preset("classic"), seed=9)
    ask = {"table": "t", "seat": game.state.turn, "level": "normal", "seed": 3, "at": [1, 0]}
    lines = [
        json.dumps({**ask, "id": 1, "record": game.to_record(), "actions": []}),
        "not json",
        "[1, 2]",
        json.dumps({"forget": "t"}),
        json.dumps({**ask, "id": 2, "table": "u", "actions": []}),
    ]
    out = io.BytesIO()
    serve(io.BytesIO(("\n".join(lines) + "\n").encode()), out)
    answers = [json.loads(line) for line in out.getvalue().splitlines()]
    assert [a["id"] for a in answers] == [1, None, None, 2]
    chosen = action_from_text(answers[0]["action"])
    assert game.state.check(chosen) is None
    assert [a.get("error") for a in answers] == [None, "failed", "failed", "resync"]
    # and as its own process, as a server runs it: it ends when its input does
    proc = subprocess.run(
        [sys.executable, "-c", "from canasta.bots.worker import main; main()"],
        input=(lines[0] + "\n").encode(), capture_output=True, timeout=60, check=True,
    )
    assert json.loads(proc.stdout) == answers[0]


def test_an_expert_request_searches_for_what_is_left_of_the_wait() -> None:
    from canasta.bots.search import DEFAULT_TIME
    from canasta.bots.worker import LEAST_SEARCH

    worker = Worker()
    game = Game(Settings.preset("two-player"), seed=4)
    while len(game.state.legal_actions()) == 1:
        game.apply(game.state.legal_actions()[0])
    ask = {"id": 1, "table": "t", "seat": game.state.turn, "level": "expert", "seed": 1,
           "record": game.to_record(), "actions": [], "at": [1, len(game.hands[-1].actions)]}
    import time

    # a request that waited longer than the server waits: the shortest search
    answer = worker.handle({**ask, "sent": time.time() - 60, "within": 1.0})
    assert answer is not None and game.state.check(action_from_text(answer["action"])) is None
    player = next(iter(worker._copies["t"].players.values()))
    assert player.time_budget == LEAST_SEARCH  # type: ignore[attr-defined]
    # one sent just now, with time to spare: Expert's own budget, no more
    del ask["record"]  # the same copy and player from here on
    worker.handle({**ask, "sent": time.time(), "within": 5.0})
    assert player.time_budget == DEFAULT_TIME  # type: ignore[attr-defined]
    worker.handle({**ask, "sent": time.time(), "within": 0.3})
    assert LEAST_SEARCH < player.time_budget <= 0.3  # type: ignore[attr-defined]


def test_of_several_requests_of_one_table_read_together_only_the_last_is_chosen() -> None:
    game = Game(Settings.preset("classic"), seed=9)
    while len(game.state.legal_actions()) == 1:
        game.apply(game.state.legal_actions()[0])
    first = game.state.turn
    ask = {"table": "t", "level": "normal", "seed": 3}
    record = game.to_record()
    chosen = make_player("normal", seed=3).choose(game.state.view(first))
    after = game.state.copy()
    after.apply(chosen)
    lines = [
        # a flood: the same position asked for again and again (each would be a search)
        *(json.dumps({**ask, "id": n, "seat": first, "record": record, "actions": [], "at": [1, len(game.hands[-1].actions)]}) for n in range(1, 4)),
        json.dumps({**ask, "id": 4, "table": "other", "seat": first, "record": record, "actions": [], "at": [1, len(game.hands[-1].actions)]}),
        # then the next position of "t": the moves in between are applied to its copy
        json.dumps({**ask, "id": 5, "seat": after.turn, "actions": [action_to_text(chosen)], "at": [1, len(game.hands[-1].actions) + 1]}),
    ]
    out = io.BytesIO()
    serve(io.BytesIO(("\n".join(lines) + "\n").encode()), out)
    answers = [json.loads(line) for line in out.getvalue().splitlines()]
    assert [a["id"] for a in answers] == [1, 2, 3, 4, 5]
    assert [a.get("error") for a in answers] == ["superseded"] * 3 + [None, None]
    assert answers[3]["action"] == action_to_text(chosen)
    assert after.check(action_from_text(answers[4]["action"])) is None


def test_a_quick_move_waiting_behind_searches_is_answered_first() -> None:
    """One account's many Expert tables must not hold up every other table's Normal seats: a
    quick move read with searches is answered before them; a table's own requests keep
    their order (its earlier one, superseded, first)."""
    import time

    game = Game(Settings.preset("two-player"), seed=4)
    while len(game.state.legal_actions()) == 1:
        game.apply(game.state.legal_actions()[0])
    at = [1, len(game.hands[-1].actions)]
    record = game.to_record()

    def ask(rid: int, table: str, level: str) -> str:
        return json.dumps({"id": rid, "table": table, "seat": game.state.turn, "level": level,
                           "seed": 1, "record": record, "actions": [], "at": at,
                           "sent": time.time() - 60, "within": 1.0})

    lines = [ask(1, "e1", "expert"), ask(2, "e2", "expert"), ask(3, "both", "expert"),
             ask(4, "both", "normal"), ask(5, "n", "normal"), ask(6, "e3", "expert")]
    out = io.BytesIO()
    serve(io.BytesIO(("\n".join(lines) + "\n").encode()), out)
    answers = [json.loads(line) for line in out.getvalue().splitlines()]
    # 5 before every search; 4 after 3, its table's earlier request (superseded: no search)
    assert [a["id"] for a in answers] == [5, 1, 2, 3, 4, 6]
    assert answers[3].get("error") == "superseded"
    assert all(game.state.check(action_from_text(a["action"])) is None for a in answers if a["id"] != 3)


def test_the_process_answers_a_request_while_its_input_stays_open() -> None:
    """As a server uses it: each answer comes as soon as it is chosen, not when more input (or
    its end) arrives; a quick move sent while a search runs comes before the searches queued
    behind it."""
    import select
    import time

    game = Game(Settings.preset("two-player"), seed=4)
    while len(game.state.legal_actions()) == 1:
        game.apply(game.state.legal_actions()[0])
    at = [1, len(game.hands[-1].actions)]

    def ask(rid: int, table: str, level: str) -> bytes:
        return json.dumps({"id": rid, "table": table, "seat": game.state.turn, "level": level, "seed": 1,
                           "record": game.to_record(), "actions": [], "at": at,
                           "sent": time.time(), "within": 0.4}).encode() + b"\n"

    proc = subprocess.Popen([sys.executable, "-c", "from canasta.bots.worker import main; main()"],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert proc.stdin is not None and proc.stdout is not None

    def answer() -> dict[str, object]:
        ready, _, _ = select.select([proc.stdout], [], [], 30)
        assert ready, "no answer within 30 s"
        return json.loads(proc.stdout.readline())  # type: ignore[union-attr, no-any-return]

    try:
        proc.stdin.write(ask(1, "a", "normal"))
        proc.stdin.flush()
        assert answer()["id"] == 1
        proc.stdin.write(ask(2, "b", "expert") + ask(3, "c", "expert") + ask(4, "d", "expert"))
        proc.stdin.flush()
        time.sleep(0.1)  # the first search is under way
        proc.stdin.write(ask(5, "e", "normal"))
        proc.stdin.flush()
        order = [answer()["id"] for _ in range(4)]
        assert order.index(5) <= 1, order  # after the search under way at most
    finally:
        proc.stdin.close()
        proc.wait(timeout=30)
