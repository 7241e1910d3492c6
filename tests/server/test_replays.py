"""Replays over HTTP: who may see what, archived matches, export and import, and committed deals."""

from __future__ import annotations

import dataclasses
import json
import random
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from canasta import Game, Settings
from canasta.bots import make_player
from canasta.fairness import FairGame, commitment, verify_record
from canasta.server import replays
from canasta.server.table import Table

from .support import (
    TEST_CONFIG,
    Client,
    client,
    create_table,
    new_identity,
    play_to_the_end,
    receive,
    send,
)

GOLDEN = Path(__file__).resolve().parents[1] / "golden"


def finished_table(c: Client) -> str:
    """A one-hand computer match played to its end by the client's account."""
    tid = create_table(c, mode="computer", preset="two-player-quick", rules={"target": "one_hand"})
    with c.websocket_connect(f"/ws/tables/{tid}") as ws:
        play_to_the_end(ws, random.Random(tid))
    return tid


def test_the_owner_replays_a_finished_match_and_nobody_else_sees_it(sqlite_url: str) -> None:
    with client(sqlite_url) as c:
        tid = finished_table(c)
        r = c.get(f"/api/replays/{tid}", params={"hand": 1, "seat": 0})
        assert r.status_code == 200, r.text
        body = r.json()
        summary, steps = body["replay"], body["steps"]
        assert summary["over"] and summary["table"] == tid and summary["mode"] == "computer"
        assert len(steps) == summary["hands"][0]["actions"] + 1
        assert steps[0]["action"] is None and all(s["action"] for s in steps[1:])
        assert steps[-1]["view"]["result"] == summary["hands"][0]["result"]
        assert all("hands" not in s["view"] and s["view"]["seat"] == 0 for s in steps)
        assert all(not e["cards"] for s in steps for e in s["events"] if e["seat"] == 1)
        # the owner may see every hand, and the other seat
        shown = c.get(f"/api/replays/{tid}", params={"seat": 1, "reveal": 1}).json()
        assert all(len(s["view"]["hands"]) == 2 for s in shown["steps"])
        assert shown["steps"][0]["view"]["hands"][0] == steps[0]["view"]["hand"]
        # the committed deal: revealed seed and secret, and the record verifies
        fair = summary["fairness"]
        assert fair["secret"] and fair["commitment"] == commitment(fair["secret"])
        record = c.get(f"/api/replays/{tid}/record")
        assert record.status_code == 200
        assert "attachment" in record.headers["content-disposition"]
        assert verify_record(record.json()).ok
        assert Game.from_record(record.json()).scores == summary["scores"]
        listed = c.get("/api/replays").json()["matches"]
        assert [m["replay"] for m in listed] == [tid]
        assert listed[0]["team"] == 0  # the player's own total: seat 0 against the computer
        # another account, or none: no such replay (not even that the table exists)
        new_identity(c)
        for path in (f"/api/replays/{tid}", f"/api/replays/{tid}/record"):
            r = c.get(path)
            assert r.status_code == 404 and r.json()["error"]["code"] == "replay_not_found"
        assert c.get("/api/replays").json()["matches"] == []
        c.cookies.clear()
        assert c.get(f"/api/replays/{tid}").status_code == 404
        assert c.get("/api/replays").json()["error"]["code"] == "no_session"


@pytest.mark.parametrize(
    ("params", "status", "code"),
    [
        ({"seat": 2}, 400, "bad_seat"),
        ({"seat": "x"}, 400, "bad_seat"),
        ({"hand": 0}, 400, "bad_hand"),
        ({"hand": 2}, 404, "no_such_hand"),
        ({"reveal": "maybe"}, 400, "bad_request"),
        ({"match": "12"}, 404, "replay_not_found"),
        ({"match": "x"}, 404, "replay_not_found"),
        # digits that str.isdigit admits and int refuses, and more digits than int reads
        ({"seat": "\u00b9"}, 400, "bad_seat"),
        ({"seat": "0" * 5_000}, 400, "bad_seat"),
        ({"hand": "\u00b2"}, 400, "bad_hand"),
        ({"hand": "1" * 5_000}, 400, "bad_hand"),
        ({"match": "\u00b3"}, 404, "replay_not_found"),
        ({"match": "\u0661"}, 404, "replay_not_found"),
    ],
)
def test_bad_replay_requests_get_coded_errors(
    sqlite_url: str, params: dict[str, Any], status: int, code: str
) -> None:
    with client(sqlite_url) as c:
        tid = finished_table(c)
        r = c.get(f"/api/replays/{tid}", params=params)
        assert r.status_code == status and r.json()["error"]["code"] == code
        assert c.get("/api/replays/no.such").status_code == 404


def test_the_table_commits_to_each_deal_and_reveals_it_after_the_hand(sqlite_url: str) -> None:
    with client(sqlite_url) as c:
        tid = create_table(c, mode="computer", preset="two-player-quick", rules={"target": 5000})
        assert c.get(f"/api/replays/{tid}").json()["error"]["code"] == "nothing_to_replay"
        seen: list[dict[str, Any]] = []
        with c.websocket_connect(f"/ws/tables/{tid}") as ws:
            rng = random.Random(1)
            while True:
                msg = receive(ws)
                if msg["type"] != "state":
                    continue
                seen.append(msg)
                view = msg["view"]
                if view["phase"] == "over":
                    break
                if view["turn"] == view["seat"] and view["legal"]:
                    send(ws, type="action", version=msg["version"], action=rng.choice(view["legal"]))
            fair = seen[-1]["table"]["fairness"]
            seed = fair["hand_seed"]
            assert seed and commitment(seed) == fair["hand_commitment"] and fair["secret"] is None
            for msg in seen[:-1]:  # before the end: the commitment, never the seed
                assert msg["table"]["fairness"]["hand_commitment"] == fair["hand_commitment"]
                assert seed not in json.dumps(msg)
            send(ws, type="next_hand")
            msg = receive(ws)
            while msg["type"] != "state":
                msg = receive(ws)
            nxt = msg["table"]["fairness"]
            assert nxt["hand"] == 2 and nxt["hand_seed"] is None
            assert nxt["hand_commitment"] != fair["hand_commitment"]
            assert nxt["commitment"] == fair["commitment"]
        # the finished hand can be replayed and exported while the match goes on, the
        # current hand and the secret cannot
        body = c.get(f"/api/replays/{tid}").json()
        assert [h["number"] for h in body["replay"]["hands"]] == [1]
        record = c.get(f"/api/replays/{tid}/record").json()
        assert len(record["hands"]) == 1 and record["fairness"]["secret"] is None
        assert record["fairness"]["hands"] == [
            {"number": 1, "commitment": fair["hand_commitment"], "seed": seed}
        ]
        assert verify_record(record).ok
        assert c.get(f"/api/replays/{tid}", params={"hand": 2}).json()["error"]["code"] == "no_such_hand"


def test_a_new_match_keeps_the_finished_one_replayable(sqlite_url: str) -> None:
    with client(sqlite_url) as c:
        tid = create_table(c, mode="computer", preset="two-player-quick", rules={"target": "one_hand"})
        with c.websocket_connect(f"/ws/tables/{tid}") as ws:
            last = play_to_the_end(ws, random.Random(3))
            first_scores = last["table"]["match"]["scores"]
            send(ws, type="new_match")
            msg = receive(ws)
            assert msg["type"] == "state" and msg["change"] == "new_match"
        listed = c.get("/api/replays").json()["matches"]
        assert len(listed) == 1 and listed[0]["table"] == tid and listed[0]["match"] is not None
        assert listed[0]["scores"] == first_scores
        r = c.get(f"/api/replays/{tid}", params={"match": listed[0]["match"]})
        assert r.status_code == 200 and r.json()["replay"]["scores"] == first_scores
        assert c.get(f"/api/replays/{tid}").json()["error"]["code"] == "nothing_to_replay"
        new_identity(c)
        assert c.get(f"/api/replays/{tid}", params={"match": listed[0]["match"]}).status_code == 404


def _online_table(
    c: Client, tid: str, *, over: bool, players: list[tuple[str, str]], preset: str = "two-player-quick"
) -> None:
    """An online table stored as the online server stores it, played by computer players."""
    store = c.app.state.store  # type: ignore[attr-defined]
    table = Table.create_online(
        table_id=tid,
        settings=Settings.preset(preset, target="one_hand"),
        players=list(players),  # type: ignore[arg-type]
        store=store,
        public=True,
    )
    assert isinstance(table.game, FairGame)
    game = table.game
    players = [make_player("beginner", seed=s) for s in range(game.settings.players)]
    while not game.state.is_over:
        if not over and len(game.hands[-1].actions) > 10:
            break
        game.apply(players[game.state.turn].choose(game.state.view(game.state.turn)))
    c.portal.call(store.save_table, table.row_values())  # type: ignore[union-attr]


def test_the_list_names_the_total_of_the_seat_the_account_played(sqlite_url: str) -> None:
    """R0: four players keep two totals, seats 0 and 2 the first, 1 and 3 the second: an account
    at seat 3 of an online classic match finds its total second, not fourth."""
    with client(sqlite_url) as c:
        me = c.account
        seats = [("a", "A"), ("b", "B"), ("d", "D"), (me, "Me")]
        _online_table(c, "online-four", over=True, players=seats, preset="classic")
        (listed,) = c.get("/api/replays").json()["matches"]
        assert listed["team"] == 1 and len(listed["scores"]) == 2


def test_own_team_reads_only_what_it_can() -> None:
    """The player's total from stored settings: by the core's teams (R0, R14); None for
    pass-and-play (no one seat), settings that do not read, or a seat the rules do not have."""
    from canasta.server.players import OWNER_SEAT, own_team, owner_seat

    assert owner_seat("computer") == OWNER_SEAT == 0 and owner_seat("local") is None
    assert own_team({"preset": "three-player"}, 2) == 2
    assert own_team({"preset": "classic"}, 3) == 1 and own_team("classic", 2) == 0
    assert own_team({"preset": "two-player"}, None) is None
    for bad in (None, 5, [], "no-such-preset", {"preset": "classic", "players": "x"}):
        assert own_team(bad, 0) is None
    assert own_team({"preset": "three-player"}, 3) is None and own_team("classic", -1) is None


def test_an_online_match_is_public_once_over_and_private_before(sqlite_url: str) -> None:
    with client(sqlite_url) as c:
        me = c.account
        _online_table(c, "online-over", over=True, players=[("someone", "A"), (me, "Me")])
        _online_table(c, "online-live", over=False, players=[(me, "Me"), ("someone", "A")])
        # the player's list holds the match they played; the replay opens at their seat
        listed = c.get("/api/replays").json()["matches"]
        assert [m["replay"] for m in listed] == ["online-over"]
        assert listed[0]["team"] == 1  # the account sat at seat 1 of two: the second total
        body = c.get("/api/replays/online-over").json()
        assert body["seat"] == 1 and body["replay"]["own_seat"] == 1
        for _ in range(2):
            r = c.get("/api/replays/online-over", params={"seat": 1, "reveal": 1})
            assert r.status_code == 200, r.text
            assert verify_record(c.get("/api/replays/online-over/record").json()).ok
            r = c.get("/api/replays/online-live")
            assert r.status_code == 404 and r.json()["error"]["code"] == "replay_not_found"
            assert c.get("/api/replays/online-live/record").status_code == 404
            new_identity(c)  # another player, then nobody at all
            assert c.get("/api/replays/online-over").json()["seat"] == 0
            c.cookies.clear()


# ---------------------------------------------------------------------- import


def _golden() -> dict[str, Any]:
    return json.loads((GOLDEN / "classic-2500-21.json").read_text())


def test_an_imported_record_replays_every_hand(sqlite_url: str) -> None:
    record = _golden()
    with client(sqlite_url) as c:
        for hand in range(1, len(record["hands"]) + 1):
            r = c.post("/api/replays/import", params={"hand": hand, "seat": 3, "reveal": 1}, json=record)
            assert r.status_code == 200, r.text
            body = r.json()
            assert len(body["steps"]) == len(record["hands"][hand - 1]["actions"]) + 1
            assert body["steps"][-1]["view"]["result"] == record["hands"][hand - 1]["result"]
        assert body["replay"]["scores"] == record["scores"] and body["replay"]["table"] is None


def _tampered_action(r: dict[str, Any]) -> None:
    r["hands"][0]["actions"][0] = "discard 5C"


def _tampered_result(r: dict[str, Any]) -> None:
    r["hands"][0]["result"]["reason"] = "declined"


def _cut_short(r: dict[str, Any]) -> None:
    r["hands"][-1]["actions"].pop()


@pytest.mark.parametrize(
    ("change", "status", "code"),
    [
        (_tampered_action, 422, "illegal_action"),
        (_tampered_result, 422, "result_mismatch"),
        (_cut_short, 422, "result_mismatch"),
        (lambda r: r.update(format="chess-pgn"), 422, "bad_record"),
        (lambda r: r.update(version=99), 422, "bad_record_version"),
        (lambda r: r.update(hands=[]), 422, "bad_record"),
        (lambda r: r.update(hands=[{"actions": 5}]), 422, "bad_record"),
        (lambda r: r["hands"][0].update(deck=["AS"] * 108), 422, "bad_deck"),
        (lambda r: r.update(settings={"preset": "pinochle"}), 422, "unknown_preset"),
        (lambda r: r["hands"][0]["actions"].extend(["draw"] * 20_001), 413, "record_too_long"),
        (lambda r: r.update(hands=[{"actions": []}] * 201), 413, "record_too_long"),
    ],
)
def test_a_broken_record_gets_a_clear_code(sqlite_url: str, change: Any, status: int, code: str) -> None:
    record = _golden()
    change(record)
    with client(sqlite_url) as c:
        r = c.post("/api/replays/import", json=record)
        assert r.status_code == status, r.text
        assert r.json()["error"]["code"] == code and r.json()["error"]["message"]


def test_import_refuses_what_is_no_json_record(sqlite_url: str) -> None:
    with client(sqlite_url) as c:
        headers = {"content-type": "application/json"}
        r = c.post("/api/replays/import", content=b"{nope", headers=headers)
        assert r.status_code == 400 and r.json()["error"]["code"] == "bad_json"
        r = c.post("/api/replays/import", content=b"\xff\xfe", headers=headers)
        assert r.status_code == 400 and r.json()["error"]["code"] == "bad_json"
        r = c.post("/api/replays/import", content=b"[1, 2]", headers=headers)
        assert r.status_code == 422 and r.json()["error"]["code"] == "bad_record"
        r = c.post("/api/replays/import", content=json.dumps(_golden()), headers={"content-type": "text/plain"})
        assert r.status_code == 415
        r = c.post("/api/replays/import", content=b" " * (300 * 1024), headers=headers)
        assert r.status_code == 413 and r.json()["error"]["code"] == "body_too_large"
        # a long record fits (the 16 KiB limit of other requests does not apply)
        padded = {**_golden(), "note": "x" * 40_000}
        assert c.post("/api/replays/import", json=padded).status_code == 200
        # and other endpoints keep theirs
        r = c.post("/api/tables", content=b" " * (20 * 1024), headers=headers)
        assert r.status_code == 413


def test_imports_have_a_limit_of_their_own(sqlite_url: str) -> None:
    """Each new record replays whole: 30 a minute per address, far below the 600 cheap reads,
    then 429 ``rate_limited``. Views of a record replayed lately (another hand, seat or reveal:
    the page posts it again for each) neither replay it nor count."""
    text = json.dumps(_golden())
    headers = {"content-type": "application/json"}
    with client(sqlite_url, config=dataclasses.replace(TEST_CONFIG, imports_per_minute_per_address=3)) as c:
        for k in range(3):  # three records (the same match, written three ways)
            r = c.post("/api/replays/import", content=text + " " * k, headers=headers)
            assert r.status_code == 200, r.text
        for hand in (1, 2, 1, 3, 2):  # views of them
            r = c.post("/api/replays/import", params={"hand": hand, "seat": 1}, content=text, headers=headers)
            assert r.status_code == 200 and r.json()["hand"] == hand
        r = c.post("/api/replays/import", content=text + " " * 3, headers=headers)
        assert r.status_code == 429 and r.json()["error"]["code"] == "rate_limited"
        assert c.get("/healthz").status_code == 200


def test_an_import_waits_briefly_for_the_one_before_it(sqlite_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """One replay is built at a time on a node: a second import, or a view of a stored match,
    waits at most BUILD_WAIT_SECONDS for the first, then answers 503 ``try_again`` (and may be
    sent again)."""
    slow = replays._replay_import
    started = threading.Event()

    def replay_slowly(record: Any) -> Any:
        started.set()
        time.sleep(1.0)
        return slow(record)

    monkeypatch.setattr(replays, "_replay_import", replay_slowly)
    monkeypatch.setattr(replays, "BUILD_WAIT_SECONDS", 0.2)
    text = json.dumps(_golden())
    headers = {"content-type": "application/json"}
    with client(sqlite_url) as c:
        stored = finished_table(c)
        answers: list[int] = []
        first = threading.Thread(target=lambda: answers.append(
            c.post("/api/replays/import", content=text, headers=headers).status_code))
        first.start()
        assert started.wait(10)
        r = c.post("/api/replays/import", content=text + " ", headers=headers)
        assert r.status_code == 503 and r.json()["error"]["code"] == "try_again"
        r = c.get(f"/api/replays/{stored}")
        assert r.status_code == 503 and r.json()["error"]["code"] == "try_again"
        first.join(20)
        assert answers == [200]
        assert c.post("/api/replays/import", content=text + " ", headers=headers).status_code == 200
        assert c.get(f"/api/replays/{stored}").status_code == 200


def test_an_imported_record_shows_only_well_formed_commitments(sqlite_url: str) -> None:
    """What an imported record carries beside its hands is a stranger's: the replay shows its
    commitments, seeds and secret only when each is 64 hex digits, and nothing else of it (a
    deeply nested or oversized value used to be echoed, and failed the answer with a 500)."""
    record = _golden()
    with client(sqlite_url) as c:
        headers = {"content-type": "application/json"}
        fair = {
            "scheme": "sha256-v1",
            "commitment": "a" * 64,
            "secret": "not hex",
            "hands": [
                {"number": 1, "commitment": "b" * 64, "seed": "c" * 64, "extra": "x" * 1000},
                {"number": 2, "commitment": "B" * 64},
                "junk",
            ],
            "note": "anything",
        }
        deep: Any = []
        for _ in range(600):
            deep = [deep]
        for sent, shown in (
            (fair, {"scheme": "sha256-v1", "commitment": "a" * 64, "secret": None,
                    "hands": [{"number": 1, "commitment": "b" * 64, "seed": "c" * 64}]}),
            ({**fair, "commitment": deep}, None),
            (deep, None),
            ({"scheme": deep, "commitment": "a" * 64, "hands": []}, None),
        ):
            r = c.post("/api/replays/import", content=json.dumps({**record, "fairness": sent}), headers=headers)
            assert r.status_code == 200, r.text
            assert r.json()["replay"]["fairness"] == shown


def test_replay_views_have_a_limit_of_their_own(sqlite_url: str) -> None:
    """Each view builds a hand's steps: a burst of them from one address is refused with
    429 ``rate_limited`` (the tables' own traffic is not limited by it)."""
    config = dataclasses.replace(TEST_CONFIG, replay_views_per_minute_per_address=60, replay_views_burst=3)
    with client(sqlite_url, config=config) as c:
        tid = finished_table(c)
        codes = [c.get(f"/api/replays/{tid}", params={"seat": i % 2}).status_code for i in range(5)]
        assert codes[:3] == [200, 200, 200] and codes[3:] == [429, 429]
        r = c.post("/api/replays/import", content=json.dumps(_golden()), headers={"content-type": "application/json"})
        assert r.status_code == 429 and r.json()["error"]["code"] == "rate_limited"
