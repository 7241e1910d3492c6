"""Chat, leaving, rematch, names, and a restart in the middle of a match (docs/protocol.md,
"Online play")."""

from __future__ import annotations

import dataclasses
import random
import re
import time
import unicodedata
from typing import Any

import pytest

from canasta.server.table import DELETED_NAME
from tests.online.support import (
    ONLINE_CONFIG,
    Browser,
    Socket,
    browsers,
    online_client,
    online_of,
    play_hand,
    quick_match,
    seated,
)
from tests.online.test_clock import _live, _room_match
from tests.server.support import play_to_the_end

LONG = dataclasses.replace(ONLINE_CONFIG, move_seconds=600.0)


def test_chat_reaches_every_socket_at_the_table(db_url: str) -> None:
    with online_client(db_url, LONG) as c, browsers(c, 5) as people:
        players, watcher = people[:4], people[4]
        table = quick_match(players)
        seats = seated(players, table)
        spectator = Socket(watcher.socket(f"/ws/tables/{table}"))
        spectator.until(lambda m: m["type"] == "state")
        second_tab = Socket(players[0].socket(f"/ws/tables/{table}"))
        seat0 = second_tab.until(lambda m: m["type"] == "state")["table"]["seat"]
        everyone = [*seats.values(), spectator, second_tab]
        sent = seats[2].ask(type="chat", phrase="good_luck")
        assert sent == {
            "type": "chat",
            "seat": 2,
            "phrase": "good_luck",
            "at_ms": sent["at_ms"],
            "request": sent["request"],
        }
        for s in everyone:
            if s is seats[2]:
                continue  # its copy was the answer
            got = s.until(lambda m: m["type"] == "chat")
            assert {k: got[k] for k in ("seat", "phrase")} == {"seat": 2, "phrase": "good_luck"}
            assert "request" not in got
        second_tab.send(type="chat", phrase="nice_canasta")
        for s in everyone:
            got = s.until(lambda m: m["type"] == "chat")
            assert (got["seat"], got["phrase"]) == (seat0, "nice_canasta")


def test_a_player_who_leaves_becomes_a_spectator_and_loses(db_url: str) -> None:
    with online_client(db_url, LONG) as c, browsers(c, 3) as people:
        players, watcher = people[:2], people[2]
        table = quick_match(players, preset="two-player")
        seats = seated(players, table)
        leaver = players[0]
        seat = next(
            s
            for s, sock in seats.items()
            if sock.state["table"]["seats"][s]["name"] == leaver.account["name"]
        )  # type: ignore[index]
        stayer = seats[1 - seat]
        spectator = Socket(watcher.socket(f"/ws/tables/{table}"))
        spectator.until(lambda m: m["type"] == "state")
        version = seats[seat].state["version"]  # type: ignore[index]
        left = seats[seat].ask(type="leave")
        assert left["type"] == "state" and left["change"] == "leave"
        assert left["table"]["seat"] is None and left["view"]["hand"] is None
        assert online_of(left)["auto"][seat] == "left"
        assert left["table"]["seats"][seat]["kind"] == "computer"
        seen = stayer.until(lambda m: m["type"] == "state" and m["change"] == "leave")
        assert seen["version"] == version and seen["table"]["seat"] == 1 - seat
        assert _live(c, table).online["auto"][seat] == "left"
        assert seats[seat].error(type="chat", phrase="gg") == "not_seated"
        assert seats[seat].error(type="back") == "not_seated"
        # a new socket of the leaver watches too; the computer plays the seat on
        again = Socket(leaver.socket(f"/ws/tables/{table}"))
        first = again.until(lambda m: m["type"] == "state")
        assert first["table"]["seat"] is None and first["view"]["hand"] is None
        assert online_of(first)["spectators"] >= 2
        # the leaver's online record: a played, lost match; offline stats untouched
        online = leaver.request("GET", "/api/stats", params={"scope": "online"}).json()
        assert online["played"] == 1 and online["won"] == 0
        offline = leaver.request("GET", "/api/stats").json()
        assert offline["played"] == 0
        assert (
            players[1].request("GET", "/api/stats", params={"scope": "online"}).json()["played"]
            == 0
        )
        # and the leaver is free to play again
        leaver.open_lobby()
        assert leaver.lobby_ask(type="sync")["current"] is None
        assert players[1].lobby_ask(type="sync") if players[1].lobby else True


#: a break between hands longer than any test: a next hand comes only when nobody is waited for
NO_BREAK_END = dataclasses.replace(LONG, hand_break_seconds=3600.0)


def test_once_every_player_has_left_the_match_is_abandoned(db_url: str) -> None:
    """docs/protocol.md, "Online play": nobody is left to play for, so nobody is played for
    (a private room filled with computers and left at once cost the server a whole match of
    moves, as often as anyone liked): the match stops where it is, a spectator sees it so, the
    lobby lists it no more, and its table may leave memory."""
    with online_client(db_url, NO_BREAK_END) as c, browsers(c, 3) as people:
        players, watcher = people[:2], people[2]
        table = _room_match(players, "classic", 5000, bots=[2, 3])
        seats = seated(players, table)
        spectator = Socket(watcher.socket(f"/ws/tables/{table}"))
        spectator.until(lambda m: m["type"] == "state")
        first, last = sorted(seats.values(), key=lambda s: s.state["table"]["seat"])
        assert first.ask(type="leave")["change"] == "leave"
        gone = last.ask(type="leave")
        assert gone["change"] == "leave"
        ended = spectator.until(lambda m: m["type"] == "state" and m["change"] == "abandon")
        assert ended["table"]["status"] == "abandoned"
        assert online_of(ended)["deadline_ms"] is None
        version = ended["version"]
        assert _live(c, table).status == "abandoned"
        time.sleep(0.5)  # the computers (no pace here) would have moved many times by now
        assert _live(c, table).version == version and _live(c, table).queue.empty()
        assert spectator.ask(type="sync")["version"] == version
        # nothing is played in it any more; each player lost it once (leaving counted)
        again = Socket(players[0].socket(f"/ws/tables/{table}"))
        assert again.until(lambda m: m["type"] == "state")["table"]["status"] == "abandoned"
        assert again.ask(type="chat", phrase="gg")["code"] == "match_abandoned"
        for b in players:
            online = b.request("GET", "/api/stats", params={"scope": "online"}).json()
            assert online["played"] == 1 and online["won"] == 0
        watcher.open_lobby()
        assert all(m["table"] != table for m in watcher.lobby_ask(type="sync")["live"])
        # once nobody watches, it leaves memory as a finished match does; no restart reloads it
        for sock in (spectator, again, first, last):
            sock.ws.close()
        tables = c.app.state.tables  # type: ignore[attr-defined]
        assert _wait(lambda: c.portal.call(tables.sweep, 0) >= 0 and tables.peek(table) is None)  # type: ignore[union-attr]
        assert table not in c.portal.call(tables.store.online_tables_in_play)  # type: ignore[union-attr]


def test_a_match_none_of_its_players_is_connected_to_is_abandoned(db_url: str) -> None:
    """Every player away (their sockets closed, nobody came back) for ``unattended_seconds``:
    the computer played their seats meanwhile, and then the match is abandoned. A player who
    comes back in time keeps it going."""
    config = dataclasses.replace(NO_BREAK_END, grace_seconds=0.1, unattended_seconds=1.0)
    with online_client(db_url, config) as c, browsers(c, 2) as players:
        table = _room_match(players, "two-player", 5000, bots=[])
        seats = seated(players, table)
        for sock in seats.values():
            sock.ws.close()
        time.sleep(0.6)
        back = Socket(players[1].socket(f"/ws/tables/{table}"))  # in time: the clock restarts
        assert back.until(lambda m: m["type"] == "state")["table"]["status"] != "abandoned"
        time.sleep(1.2)
        assert _live(c, table).status != "abandoned"
        back.ws.close()
        assert _wait(lambda: _live(c, table).status == "abandoned", 10)
        ended = _live(c, table).version, _live(c, table).seq
        late = Socket(players[0].socket(f"/ws/tables/{table}"))
        state = late.until(lambda m: m["type"] == "state")
        assert state["table"]["status"] == "abandoned" and state["table"]["seat"] is not None
        assert late.ask(type="back")["code"] == "match_abandoned"
        # coming back to it changed nothing: the seat stays away, nothing more was saved
        assert (_live(c, table).version, _live(c, table).seq) == ended
        assert online_of(late.ask(type="sync"))["auto"][state["table"]["seat"]] == "away"
        for b in players:
            online = b.request("GET", "/api/stats", params={"scope": "online"}).json()
            assert online["played"] == 1 and online["won"] == 0
            b.open_lobby()
            assert b.lobby_ask(type="sync")["current"] is None  # free to play again


def _wait(pred: Any, timeout: float = 10.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if pred():
            return True
        time.sleep(0.05)
    return False


def test_the_break_waits_for_the_player_who_stays(db_url: str) -> None:
    """One player leaves, the other plays the hand out: the next hand waits for the one who
    stayed (the break's deadline is set, and their ``next_hand`` deals it)."""
    with online_client(db_url, NO_BREAK_END) as c, browsers(c, 2) as players:
        table = quick_match(players, preset="two-player")
        seats = seated(players, table)
        (_, leaver), (_, stayer) = sorted(seats.items())
        assert leaver.ask(type="leave")["change"] == "leave"
        over = play_to_the_end(
            stayer.ws, random.Random(3), until=lambda m: m["view"]["phase"] == "over", held=stayer.state
        )
        assert online_of(over)["deadline_ms"] is not None
        stayer.state = over  # what its socket holds now (read above, past the wrapper)
        dealt = stayer.ask(type="next_hand")
        assert dealt["type"] == "state" and dealt["change"] == "next_hand"


def test_offline_and_online_stats_are_apart(db_url: str) -> None:
    with online_client(db_url, LONG) as c, browsers(c, 1) as (me,):
        r = me.request("GET", "/api/stats", params={"scope": "elsewhere"})
        assert r.status_code == 400 and r.json()["error"]["code"] == "bad_scope"
        r = me.request(
            "POST",
            "/api/tables",
            json={"mode": "computer", "players": 2, "rules": {"target": "one_hand"}},
        )
        assert r.status_code == 200
        s = Socket(me.socket(f"/ws/tables/{r.json()['table']}"))
        play_to_the_end(s.ws, random.Random(5))
        offline = me.request("GET", "/api/stats").json()
        online = me.request("GET", "/api/stats", params={"scope": "online"}).json()
        assert offline["played"] == 1
        assert online["played"] == 0 and online["won"] == 0


def test_a_rematch_with_the_same_players_in_the_same_seats(db_url: str) -> None:
    with online_client(db_url, LONG) as c, browsers(c, 2) as (a, b):
        table = _room_match([a, b], "two-player", "one_hand", bots=[])
        seats = seated([a, b], table)
        end = play_hand(seats, [], random.Random(8))
        assert end["table"]["match"]["over"] and end["table"]["status"] == "match_over"
        names = [s["name"] for s in end["table"]["seats"]]
        first = seats[0].ask(type="rematch")
        assert first["type"] == "state" and first["change"] == "rematch"
        assert online_of(first)["rematch"] == [True, False] and online_of(first)["next"] is None
        # asked again: answered with the state, and nothing saved or sent to the others
        seq = _live(c, table).seq
        again = seats[0].ask(type="rematch")
        assert again["type"] == "state" and again["change"] == "sync" and online_of(again)["rematch"] == [True, False]
        assert _live(c, table).seq == seq
        assert seats[0].error(type="next_hand") == "match_over"
        second = seats[1].ask(type="rematch")
        new = online_of(second)["next"]
        assert new is not None and new != table
        seen = seats[0].until(lambda m: m["type"] == "state" and online_of(m)["next"] is not None)
        assert online_of(seen)["next"] == new
        assert seats[0].error(type="rematch") == "rematch_started"
        # stats: each counted the match once
        for p in (a, b):
            assert p.request("GET", "/api/stats", params={"scope": "online"}).json()["played"] == 1
        fresh = seated([a, b], new)
        for _seat, s in fresh.items():
            assert s.state is not None
            assert [x["name"] for x in s.state["table"]["seats"]] == names
            assert s.state["table"]["status"] == "playing" and s.state["version"] == 0
            assert online_of(s.state)["public"] is False
        assert (
            fresh[0].state["table"]["seats"][0]["name"]
            == seats[0].state["table"]["seats"][0]["name"]
        )  # type: ignore[index]
        a.open_lobby()
        assert a.lobby_ask(type="sync")["current"] == new


def test_the_tables_to_continue_list_the_online_match_first(db_url: str) -> None:
    """``GET /api/tables``: a player's online match in play comes first (its clock runs), with
    their side's index; not once they left it, nor for anyone else."""
    with online_client(db_url, LONG) as c, browsers(c, 3) as (a, b, other):
        computer = a.request("POST", "/api/tables", json={"mode": "computer", "players": 2}).json()["table"]
        table = quick_match([a, b], preset="two-player", target=2500)
        seats = seated([a, b], table)
        listed = a.request("GET", "/api/tables").json()["tables"]
        assert [t["table"] for t in listed] == [table, computer]
        mine = listed[0]
        assert mine["mode"] == "online" and mine["status"] == "playing" and mine["hand_number"] == 1
        assert mine["settings"] == {"preset": "two-player", "target": 2500} and mine["scores"] == [0, 0]
        a_seat = _live(c, table).online["accounts"].index(a.account["id"])
        assert mine["team"] == _live(c, table).game.state.team_of[a_seat]
        assert other.request("GET", "/api/tables").json()["tables"] == []
        leaver = next(p for p in (a, b) if p.account["id"] == _live(c, table).online["accounts"][1])
        assert seats[1].ask(type="leave")["change"] == "leave"
        assert all(t["table"] != table for t in leaver.request("GET", "/api/tables").json()["tables"])


def test_saying_ready_again_saves_nothing(db_url: str) -> None:
    """``next_hand`` from a seat that said it already is answered with the state; nothing is
    saved or sent to the others (a client repeating it cannot grow the log)."""
    with online_client(db_url, LONG) as c, browsers(c, 2) as (a, b):
        table = _room_match([a, b], "two-player", 5000, bots=[])
        seats = seated([a, b], table)
        end = play_hand(seats, [], random.Random(8))
        assert end["view"]["phase"] == "over" and not end["table"]["match"]["over"]
        ready = seats[0].ask(type="next_hand")
        assert ready["change"] == "ready" and online_of(ready)["ready"][0] is True
        seq = _live(c, table).seq
        for _ in range(5):
            again = seats[0].ask(type="next_hand")
            assert again["type"] == "state" and again["change"] == "sync"
        assert _live(c, table).seq == seq
        dealt = seats[1].ask(type="next_hand")
        assert dealt["change"] == "next_hand" and dealt["view"]["phase"] != "over"


def test_no_rematch_while_a_player_plays_another_match(db_url: str) -> None:
    """Who asked for a rematch and then started another match is not seated in the rematch
    too (two clocks at once): the rematch waits, refused with ``player_in_match``."""
    with online_client(db_url, LONG) as c, browsers(c, 2) as (a, b):
        table = _room_match([a, b], "two-player", "one_hand", bots=[])
        seats = seated([a, b], table)
        play_hand(seats, [], random.Random(8))
        assert seats[1].ask(type="rematch")["change"] == "rematch"
        other = _room_match([b], "two-player", 5000, bots=[1])
        assert _live(c, other).status == "playing"
        assert seats[0].error(type="rematch") == "player_in_match"
        assert online_of(seats[0].ask(type="sync"))["rematch"] == [False, True]
        assert online_of(seats[0].state)["next"] is None


def test_a_rematch_takes_its_players_out_of_the_queue_and_rooms(db_url: str) -> None:
    """Who asked for a rematch and then waits in the quick-match queue plays the rematch when
    it starts: the queue lets them go instead of seating them at a second match, and a room
    they sit in cannot start while they play (``player_in_match``)."""
    with online_client(db_url, LONG) as c, browsers(c, 4) as (a, b, d, e):
        table = _room_match([a, b], "two-player", "one_hand", bots=[])
        seats = seated([a, b], table)
        play_hand(seats, [], random.Random(8))
        assert seats[1].ask(type="rematch")["change"] == "rematch"
        b.open_lobby()
        b.send(b.lobby, type="queue_join", preset="two-player", target=2500)  # type: ignore[arg-type]
        b.lobby_until("queued")
        rematch = online_of(seats[0].ask(type="rematch"))["next"]
        assert rematch is not None and _live(c, rematch).status == "playing"
        d.open_lobby()
        d.send(d.lobby, type="queue_join", preset="two-player", target=2500)  # type: ignore[arg-type]
        left = b.lobby_until("queued", lambda m: m["mine"] is None)  # let go at the pairing
        assert left["mine"] is None
        assert d.lobby_ask(type="sync")["mine"] is not None  # still waiting, for someone free
        playing = [t for t in c.app.state.tables.online_summaries()
                   if t["status"] == "playing" and b.account["id"] in t["accounts"]]
        assert [t["table"] for t in playing] == [rematch]
        # a room with a player who is in a match does not start
        e.open_lobby()
        e.send(e.lobby, type="room_create", preset="two-player", target="one_hand")  # type: ignore[arg-type]
        code = e.lobby_until("room")["room"]["code"]
        # as if b had joined this room before the rematch began (joining now is refused: in_match)
        assert e.lobby_ask(type="sync")["room"]["code"] == code
        c.app.state.lobby.rooms[code].seats[1] = {"account": b.account["id"], "name": "Member 2"}
        refused = e.lobby_ask(type="room_start")
        assert refused["type"] == "error" and refused["code"] == "player_in_match"


@pytest.mark.parametrize(
    ("raw", "clean"),
    [
        ("  Ana \t  María  ", "Ana María"),
        ("Bob\u0007\u200b\u202eby", "Bobby"),
        ("ｆｕｌｌ　ｗｉｄｔｈ", "full width"),
        ("e\u200d\u0301clair", "\u00e9clair"),
        ("x" * 20, "x" * 20),
        ("Yourself", "Yourself"),  # only the page's very words are reserved
        ("Partners in crime", "Partners in crime"),
        ("Анна", "Анна"),  # other scripts' own names stay free
        ("Μαρία", "Μαρία"),
        ("山口", "山口"),
    ],
)
def test_names_are_cleaned(sqlite_url: str, raw: str, clean: str) -> None:
    with online_client(sqlite_url) as c, browsers(c, 1) as (me,):
        r = me.request("PATCH", "/api/account", json={"name": raw})
        assert r.status_code == 200, r.text
        assert r.json()["account"]["name"] == clean


@pytest.mark.parametrize(
    "raw",
    ["x" * 21, "\u200b\u200d", "   ", 42, None, "ａ" * 21,
     # characters that show nothing (Hangul fillers, the blank braille pattern, a variation
     # selector alone), and a letter under a pile of combining marks
     "\u3164", "\uffa0\u115f", "\u2800", "\ufe0f", "\u0301", "a" + "\u0301" * 19, "Ann" + "\u0308" * 4],
)
def test_bad_names_are_refused(sqlite_url: str, raw: Any) -> None:
    with online_client(sqlite_url) as c, browsers(c, 1) as (me,):
        before = me.account["name"]
        r = me.request("PATCH", "/api/account", json={"name": raw})
        assert r.status_code == 400 and r.json()["error"]["code"] == "bad_name"
        assert me.request("POST", "/api/session", json={}).json()["account"]["name"] == before


@pytest.mark.parametrize(
    "raw",
    ["Guest {n}", "guest  {n}", "Ｇｕｅｓｔ{n}", "Computer 2", "COMPUTER 3", "Computer (Expert)",
     "Deleted player", "Deletedplayer", "ゲスト{n}", "コンピューター2", "コンピュータ2",
     "コンピューター（上級）", "退会したプレイヤー", DELETED_NAME,
     # the page's own words for seats, and look-alike letters of other scripts
     "You", "YOU", "あなた", "Partner", "Left opponent", "右の相手", "Computer", "Player 2", "プレイヤー3",
     "Our side", "相手チーム", "\u0421omputer 1", "G\u03c5est {n}", "\u0443\u043eu",
     # capitals (Greek Υ, Ν, Μ, Η and Cyrillic Н), and kanji that look like katakana
     "\u03a5OU", "Left oppo\u039dent", "CO\u039cPUTER 1", "T\u041dEIR SIDE", "T\u0397EIR SIDE",
     "コンピュ\u4e00タ\u4e001", "ゲス\u535c{n}",
     # an invisible mark or selector added, small capitals, Armenian and Cherokee look-alikes
     "Computer\u034f 3", "Deleted\u034f player", "You\ufe00", "Guest {n}\u180b", "Partner\u17b4",
     "G\u057dest {n}", "Y\u1d0f\u1d1c", "C\u1d0fmputer 2", "\u13a2HEIR SIDE", "\uab72heir side",
     "\ufe0fYou\ufe0f"],
)
def test_names_the_server_gives_are_not_chosen(sqlite_url: str, raw: str) -> None:
    """A person may not pass for a guest, a computer seat or a deleted account: the page shows
    those names in its own language. Their own guest name may be saved again unchanged."""
    with online_client(sqlite_url) as c:
        me = Browser(c)
        before = me.account["name"]
        assert re.fullmatch(r"Guest \d{4}", before)
        # another guest's number (their own given name may be saved again: below)
        raw = raw.format(n=1000 + (int(before[-4:]) - 999) % 9000)
        r = me.request("PATCH", "/api/account", json={"name": raw})
        assert r.status_code == 400 and r.json()["error"]["code"] == "reserved_name"
        assert me.request("POST", "/api/session", json={}).json()["account"]["name"] == before
        r = me.request("PATCH", "/api/account", json={"name": before})
        assert r.status_code == 200 and r.json()["account"]["name"] == before
        for near in ("Guesthouse", "Computer 12", "Guest 48210", "Deleted players"):
            assert me.request("PATCH", "/api/account", json={"name": near}).status_code == 200


@pytest.mark.parametrize(
    "raw",
    ["Tiếng Việt", "क्षत्रिय", "ภาษาไทย", "Zoë", "Ａｎｎ ♥", "Ли Мин", "ကျော်", "လျှော့", "❤\ufe0f Ann",
     "葛\U000e0100城"],
)
def test_names_in_every_script_are_kept(sqlite_url: str, raw: str) -> None:
    """The cleaner's limits on marks and invisible characters leave real names alone."""
    with online_client(sqlite_url) as c:
        r = Browser(c).request("PATCH", "/api/account", json={"name": raw})
        assert r.status_code == 200, r.text
        assert r.json()["account"]["name"] == unicodedata.normalize("NFKC", raw)


def test_name_changes_are_limited(sqlite_url: str) -> None:
    config = dataclasses.replace(ONLINE_CONFIG, names_per_minute=10)
    with online_client(sqlite_url, config) as c:
        me = Browser(c)
        for i in range(10):
            assert me.request("PATCH", "/api/account", json={"name": f"N{i}"}).status_code == 200
        r = me.request("PATCH", "/api/account", json={"name": "N10"})
        assert r.status_code == 429 and r.json()["error"]["code"] == "rate_limited"


def test_a_match_shows_the_names_its_players_had_when_it_started(db_url: str) -> None:
    with online_client(db_url, LONG) as c, browsers(c, 3) as (a, b, d):
        assert a.request("PATCH", "/api/account", json={"name": "  Zoë\u0000"}).status_code == 400
        assert (
            a.request("PATCH", "/api/account", json={"name": " Zoë\u200b "}).json()["account"][
                "name"
            ]
            == "Zoë"
        )
        table = quick_match([a, b], preset="two-player")
        seats = seated([a, b], table)
        state = seats[0].state
        assert state is not None
        assert sorted(s["name"] for s in state["table"]["seats"]) == ["Member 2", "Zoë"]
        # a later change is for later matches
        assert a.request("PATCH", "/api/account", json={"name": "Zed"}).status_code == 200
        assert "Zed" not in [s["name"] for s in seats[0].ask(type="sync")["table"]["seats"]]
        # a name changed while waiting in a room is the one the match shows
        d.open_lobby()
        d.send(d.lobby, type="room_create", preset="two-player", target=5000)  # type: ignore[arg-type]
        d.lobby_until("room")
        assert d.request("PATCH", "/api/account", json={"name": "Dee"}).status_code == 200
        d.send(d.lobby, type="room_bot", seat=1, level="normal")  # type: ignore[arg-type]
        room = d.lobby_until("room", lambda m: m["room"] is not None and m["room"]["full"])["room"]
        assert room["seats"][0]["name"] == "Dee"
        d.send(d.lobby, type="room_start")  # type: ignore[arg-type]
        new = d.lobby_until("match")["table"]
        s = Socket(d.socket(f"/ws/tables/{new}"))
        assert s.until(lambda m: m["type"] == "state")["table"]["seats"][0]["name"] == "Dee"
