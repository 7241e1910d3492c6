"""Tables survive a server restart and resume exactly; statistics per account (session)."""

from __future__ import annotations

import random

from .support import (
    Message,
    client,
    create_table,
    my_turn,
    new_identity,
    pick,
    play_to_the_end,
    receive,
    receive_until,
    send,
    session_token,
    use_session,
)


def play_turns(ws: object, turns: int, rng: random.Random) -> Message:
    """Play ``turns`` decisions of the human seat; returns the state waiting for the next one."""
    msg = receive_until(ws, my_turn)  # type: ignore[arg-type]
    for _ in range(turns):
        if msg["view"]["phase"] == "over":
            break
        send(ws, type="action", version=msg["version"], action=pick(msg["view"]["legal"], rng))  # type: ignore[arg-type]
        msg = receive_until(ws, my_turn)  # type: ignore[arg-type]
    return msg


def test_an_unfinished_match_survives_a_restart(db_url: str) -> None:
    rng = random.Random(1)
    with client(db_url) as c:
        token = session_token(c)
        tid = create_table(
            c, mode="computer", preset="classic", difficulty="beginner", seed=21
        )
        with c.websocket_connect(f"/ws/tables/{tid}") as ws:
            before = play_turns(ws, 9, rng)
            send(ws, type="pause")
            before = receive(ws)
    with client(db_url) as c:
        use_session(c, token)
        listed = c.get("/api/tables").json()["tables"]
        assert [t["table"] for t in listed] == [tid]
        assert listed[0]["status"] in ("playing", "hand_over")
        with c.websocket_connect(f"/ws/tables/{tid}") as ws:
            after = receive(ws)
            assert after["change"] == "connect"
            assert after["version"] == before["version"]
            assert after["view"] == before["view"]
            assert after["table"] == before["table"]
            if after["view"]["phase"] != "over":
                send(ws, type="resume")
                receive(ws)
                send(
                    ws,
                    type="action",
                    version=after["version"] + 1,
                    action=pick(after["view"]["legal"], rng),
                )
                assert receive(ws)["type"] == "state"


def test_pass_and_play_handoff_survives_a_restart(sqlite_url: str) -> None:
    with client(sqlite_url) as c:
        token = session_token(c)
        tid = create_table(c, mode="local", players=3, seed=4)
        with c.websocket_connect(f"/ws/tables/{tid}") as ws:
            first = receive(ws)
            send(ws, type="reveal", seat=first["table"]["handoff"])
            shown = receive(ws)
            send(ws, type="action", version=shown["version"], action={"type": "draw"})
            drawn = receive(ws)
            card = drawn["view"]["hand"][0]
            send(
                ws,
                type="action",
                version=drawn["version"],
                action={"type": "discard", "card": card},
            )
            passed = receive(ws)
    with client(sqlite_url) as c:
        use_session(c, token)
        with c.websocket_connect(f"/ws/tables/{tid}") as ws:
            again = receive(ws)
            assert again["version"] == passed["version"]
            assert (
                again["table"]["handoff"]
                == passed["table"]["handoff"]
                == (shown["view"]["seat"] + 1) % 3
            )
            assert again["view"]["hand"] is None and again["view"] == passed["view"]
            send(ws, type="reveal", seat=again["table"]["handoff"])
            assert receive(ws)["view"]["seat"] == again["table"]["handoff"]


def _expected_stats(finals: list[Message]) -> dict[str, object]:
    played = won = canastas = streak = best_streak = 0
    best: int | None = None
    for last in finals:
        match = last["table"]["match"]
        for hand in match["hands"]:
            result = hand["result"]
            for side in result["sides"]:
                if 0 in side["seats"]:
                    canastas += side["natural_canastas"] + side["mixed_canastas"]
            delta = result["team_deltas"][0]
            best = delta if best is None else max(best, delta)
        played += 1
        ties = len(match["winners"]) == len(match["scores"])  # every team level: a draw
        assert match["won"] == [t in match["winners"] and not ties for t in range(len(match["scores"]))]
        if match["winners"] == [0]:
            won += 1
            streak += 1
            best_streak = max(best_streak, streak)
        else:
            streak = 0
    return {
        "played": played,
        "won": won,
        "best_hand": best,
        "canastas": canastas,
        "streak": streak,
        "best_streak": best_streak,
    }


def test_stats_per_profile_and_reset(db_url: str) -> None:
    finals: list[Message] = []
    with client(db_url) as c:
        token = session_token(c)
        assert c.get("/api/stats").json()["played"] == 0
        tid = create_table(
            c,
            mode="computer",
            preset="two-player-quick",
            rules={"target": "one_hand"},
        )
        with c.websocket_connect(f"/ws/tables/{tid}") as ws:
            for k in range(3):
                last = play_to_the_end(ws, random.Random(k))
                finals.append(last)
                send(ws, type="next_hand")
                assert receive(ws)["code"] == "match_over"
                if k < 2:
                    send(ws, type="new_match")
        stats = c.get("/api/stats").json()
        assert stats == _expected_stats(finals)
        assert stats["played"] == 3
        new_identity(c)
        assert c.get("/api/stats").json()["played"] == 0
        use_session(c, token)
    with client(db_url) as c:  # reloading a finished table counts nothing twice
        use_session(c, token)
        with c.websocket_connect(f"/ws/tables/{tid}") as ws:
            assert receive(ws)["table"]["status"] == "match_over"
        assert c.get("/api/stats").json() == stats
        assert c.get("/api/tables").json()["tables"] == []
        reset = c.delete("/api/stats").json()
        assert reset == {
            "played": 0,
            "won": 0,
            "best_hand": None,
            "canastas": 0,
            "streak": 0,
            "best_streak": 0,
        }
        assert c.get("/api/stats").json() == reset


def test_a_change_writes_the_columns_it_changed_and_the_row_holds_the_whole_state(db_url: str) -> None:
    """Issue 12 (storage): a change updates only the table state's columns that differ from
    the row's (a move touches the version, not the options); after moves, a pause, the end of
    a hand and a new one, the row holds exactly the live table's state, column by column."""
    from canasta.server.db import TableRow

    rng = random.Random(3)
    with client(db_url) as c:
        tid = create_table(c, mode="computer", preset="classic", difficulty="beginner", seed=5)
        table = c.app.state.tables.peek(tid)
        assert table is not None
        store = c.app.state.store
        written: list[tuple[str, ...]] = []
        append = store.append_change

        async def recording(table_id: str, **kwargs: object) -> None:
            written.append(tuple(kwargs["values"]))  # type: ignore[arg-type]
            await append(table_id, **kwargs)  # type: ignore[arg-type]

        store.append_change = recording

        async def row() -> dict[str, object]:
            async with store.sessions() as s:
                stored = await s.get(TableRow, tid, populate_existing=True)
                assert stored is not None
                return {k: getattr(stored, k) for k in table._state_values()}

        with c.websocket_connect(f"/ws/tables/{tid}") as ws:
            play_turns(ws, 6, rng)
            assert c.portal.call(row) == table._state_values()
            send(ws, type="pause")
            receive(ws)
            assert c.portal.call(row) == table._state_values() and table.paused
            send(ws, type="resume")
            resumed = receive(ws)
            assert my_turn(resumed) and not table.paused
            send(ws, type="action", version=resumed["version"], action=pick(resumed["view"]["legal"], rng))
            over = play_to_the_end(ws, rng, until=lambda m: m["view"]["phase"] == "over")
            assert c.portal.call(row) == table._state_values() and table.status == "hand_over"
            send(ws, type="next_hand", version=over["version"])
            receive_until(ws, my_turn)  # the computer seats wait for the person now
            assert c.portal.call(row) == table._state_values() and table.hands_counted == 1
        # most changes are moves, which touch the version only; none touched the options
        assert written.count(("game_version",)) > len(written) // 2
        assert ("game_version", "paused") in written and not any("options" in keys for keys in written)
