"""Computer seats chosen by worker processes (``server/thinkers.py``): the same moves as in
the server process, and a table that plays on whatever its worker does (dies, hangs, answers
nonsense)."""

from __future__ import annotations

import dataclasses
import os
import random
import re
from typing import Any

import pytest

from canasta.server import thinkers

from .support import TEST_CONFIG, client, create_table, my_turn, pick, receive, receive_until, send


def _config(**changes: Any) -> Any:
    return dataclasses.replace(TEST_CONFIG, **changes)


def _moves(text: str) -> dict[str, float]:
    """canasta_computer_moves_total by ``how``, from the metrics page."""
    found = re.findall(r'^canasta_computer_moves_total\{how="(\w+)"\} ([0-9.e+]+)$', text, re.M)
    return {how: float(n) for how, n in found}


def _play(url: str, config: Any, *, seed: int, difficulty: str = "normal", human_moves: int = 400,
          during: Any = None, hands: int = 1) -> tuple[list[Any], dict[str, float], Any]:
    """A seeded table against the computer: the human plays scripted moves to the end of the
    ``hands``-th hand (``during(app, n)`` is called before the human's n-th move); the history
    every seat saw (of every hand, in order), the computer moves by how they were chosen, and
    the app."""
    rng = random.Random(seed)
    seen: list[Any] = []
    with client(url, config=config) as c:
        table = create_table(c, mode="computer", preset="classic", difficulty=difficulty, seed=seed)
        with c.websocket_connect(f"/ws/tables/{table}") as ws:
            msg = receive(ws)
            for n in range(human_moves * hands):
                if not my_turn(msg):
                    msg = receive_until(ws, my_turn)
                view = msg["view"]
                if view["phase"] == "over" and len(seen) + 1 < hands:
                    seen.append(view["history"])
                    send(ws, type="next_hand")
                    msg = receive(ws)
                    assert msg["type"] == "state" and msg["change"] == "next_hand", msg
                    continue
                if view["phase"] == "over":
                    break
                if during is not None:
                    during(c.app, n)
                send(ws, type="action", version=msg["version"], action=pick(view["legal"], rng))
                msg = receive(ws)
                assert msg["type"] == "state", msg
            else:
                raise AssertionError("the hand did not end")
            seen.append(view["history"])
        moves = _moves(c.get("/metrics").text)
        return seen if hands > 1 else seen[0], moves, c.app


def _count_requests(monkeypatch: pytest.MonkeyPatch) -> list[dict[str, Any]]:
    """Every request the tables send their workers, as sent."""
    sent: list[dict[str, Any]] = []
    ask = thinkers.Thinkers.ask

    def spy(self: Any, index: int, request: dict[str, Any], wait: float | None = None) -> Any:
        sent.append(request)
        return ask(self, index, request, wait)

    monkeypatch.setattr(thinkers.Thinkers, "ask", spy)
    return sent


def test_workers_choose_the_moves_the_server_process_chooses(
    sqlite_url: str, tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    here, here_moves, _ = _play(sqlite_url, _config(computer_processes=0), seed=7)
    other = f"sqlite+aiosqlite:///{tmp_path / 'other.sqlite3'}"
    sent = _count_requests(monkeypatch)
    there, there_moves, app = _play(other, _config(computer_processes=1), seed=7)
    # the whole record once (the first question of the hand), then only the moves since; each
    # question asks for the computer seats' moves up to the person's turn (their run), so the
    # table asks about once a run, not once a move
    assert sum("record" in r for r in sent) == 1
    assert all(r["ahead"] > 0 and sorted(r["computers"]) == ["1", "2", "3"] for r in sent)
    assert 0 < 3 * len(sent) < there_moves["worker"]
    assert here == there  # every event of the hand, the computer seats' included
    assert here_moves.get("loop", 0) > 10 and "worker" not in here_moves
    # every move the server process chose, the worker chose; a forced move of the worker's
    # run counts as the worker's (the table does not list the moves of a run)
    assert "loop" not in there_moves and here_moves["loop"] <= there_moves["worker"]
    assert there_moves["worker"] + there_moves.get("forced", 0) == here_moves["loop"] + here_moves["forced"]
    # the app stopped its worker when it stopped
    proc = app.state.tables.thinkers._workers[0].proc
    assert proc is None


def test_across_hands_the_worker_deals_the_next_hand_itself_and_chooses_the_same_moves(
    sqlite_url: str, tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    here, here_moves, _ = _play(sqlite_url, _config(computer_processes=0), seed=9, hands=3)
    other = f"sqlite+aiosqlite:///{tmp_path / 'other.sqlite3'}"
    sent = _count_requests(monkeypatch)
    there, there_moves, _ = _play(other, _config(computer_processes=1), seed=9, hands=3)
    assert len(here) == 3 and here == there  # every event of all three hands
    assert "loop" not in there_moves and here_moves["loop"] <= there_moves["worker"]
    assert there_moves["worker"] + there_moves.get("forced", 0) == here_moves["loop"] + here_moves["forced"]
    # the whole record once for the match; each new hand is a step among the actions, with
    # the check of its deck
    assert sum("record" in r for r in sent) == 1 and 0 < 3 * len(sent) < there_moves["worker"]
    steps = [r for r in sent if "next hand" in r["actions"]]
    assert len(steps) == 2 and all(isinstance(r["dealt"], int) for r in steps)
    assert [r["at"][0] for r in steps] == [2, 3]


def _worker_pid(app: Any) -> int | None:
    proc = app.state.tables.thinkers._workers[0].proc
    return None if proc is None else int(proc.pid)


def test_a_killed_worker_is_started_again_and_the_table_plays_on(
    sqlite_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(thinkers, "RESTART_SECONDS", 0.0)
    killed: list[int] = []

    def kill(app: Any, n: int) -> None:
        pid = _worker_pid(app)
        if n in (3, 12) and pid is not None:
            os.kill(pid, 9)
            killed.append(pid)

    _, moves, app = _play(sqlite_url, _config(computer_processes=1), seed=3, during=kill)
    assert len(killed) == 2 and killed[0] != killed[1]  # a new process after the first kill
    assert moves.get("worker", 0) > 5 and "first_legal" not in moves
    assert app.state.tables.thinkers._workers[0].generation == 3


def test_a_worker_that_does_not_answer_is_stopped_and_the_table_chooses_itself(
    sqlite_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # reads its requests and never answers
    monkeypatch.setattr(thinkers, "_COMMAND", "import sys\nfor line in sys.stdin: pass")
    config = _config(computer_processes=1, computer_timeout_seconds=1.0)
    with client(sqlite_url, config=config) as c:
        table = create_table(c, mode="computer", preset="classic", seed=5)
        with c.websocket_connect(f"/ws/tables/{table}") as ws:
            msg = receive_until(ws, my_turn)  # the computer seats got to the human's turn
            assert msg["view"]["phase"] != "over"
        moves = _moves(c.get("/metrics").text)
    assert "worker" not in moves and moves.get("loop", 0) >= 1, moves


def test_a_worker_answering_nonsense_is_not_obeyed(sqlite_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    # answers each request in turn with an unreadable action, an impossible one (five 7H from
    # two decks) and an error
    nonsense = (
        "import json, sys\n"
        "for n, line in enumerate(sys.stdin):\n"
        "    rid = json.loads(line).get('id')\n"
        "    if rid is None: continue\n"
        "    answer = [{'action': 'fly away'}, {'action': 'meld 7:7H,7H,7H,7H,7H'}, {'error': 'failed'}][n % 3]\n"
        "    print(json.dumps({'id': rid, **answer}), flush=True)\n"
    )
    monkeypatch.setattr(thinkers, "_COMMAND", nonsense)
    _, moves, _ = _play(sqlite_url, _config(computer_processes=1), seed=9)
    assert "worker" not in moves and moves.get("loop", 0) > 10, moves
    assert "first_legal" not in moves


def test_a_change_that_leaves_the_position_asks_the_worker_nothing_again(
    sqlite_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    sent = _count_requests(monkeypatch)
    # the flood below is 42 pauses and resumes at once: past their bucket (test_features.py
    # pins it), so this test's is wide
    config = _config(computer_processes=1, pause_burst=100)
    with client(sqlite_url, config=config) as c:
        table = create_table(c, mode="computer", preset="classic", difficulty="expert", seed=4)
        with c.websocket_connect(f"/ws/tables/{table}") as ws:
            msg = receive_until(ws, my_turn)
            send(ws, type="settings", delay_ms=10_000)  # the computer seats wait 10 s a move
            receive(ws)
            rng = random.Random(1)
            while msg["view"]["turn"] == msg["view"]["seat"]:  # to the end of the human's turn
                send(ws, type="action", version=msg["version"], action=pick(msg["view"]["legal"], rng))
                msg = receive(ws)
            # paused, the next computer seat makes one move (its draw), then plays on: it is
            # asked for its discard, a choice
            send(ws, type="pause")
            paused = receive(ws)
            before = len(sent)
            send(ws, type="step", version=paused["version"])
            msg = receive(ws)
            assert msg["type"] == "state" and msg["change"] == "action", msg
            send(ws, type="resume")
            receive(ws)
            asked = len(sent)
            assert asked == before + 1  # the discard asked for once
            for _ in range(20):  # a flood of changes that leave the position as it was
                send(ws, type="pause")
                receive(ws)
                send(ws, type="resume")
                receive(ws)
            assert len(sent) == asked


def test_a_late_worker_leaves_a_searching_seat_its_guides_move(
    sqlite_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(thinkers, "_COMMAND", "import sys\nfor line in sys.stdin: pass")
    monkeypatch.setattr("canasta.server.table.WORKER_MARGIN", 0.2)
    monkeypatch.setattr("canasta.server.table.SEARCH_SECONDS", 0.1)
    config = _config(computer_processes=1, computer_timeout_seconds=600.0)
    with client(sqlite_url, config=config) as c:
        table = create_table(c, mode="computer", preset="two-player", difficulty="expert", seed=6)
        with c.websocket_connect(f"/ws/tables/{table}") as ws:
            msg = receive(ws)
            rng = random.Random(2)
            turns = 0
            while turns < 3:  # three of the computer's turns, each waiting for the worker
                if not my_turn(msg):
                    msg = receive_until(ws, my_turn)
                    turns += 1
                assert msg["view"]["phase"] != "over"
                send(ws, type="action", version=msg["version"], action=pick(msg["view"]["legal"], rng))
                msg = receive(ws)
                assert msg["type"] == "state", msg
        moves = _moves(c.get("/metrics").text)
        # chosen here, quickly: no worker move, no failure, and the (silent) worker not stopped
        assert "worker" not in moves and moves.get("loop", 0) >= 1, moves
        assert c.app.state.tables.thinkers._workers[0].generation == 1
