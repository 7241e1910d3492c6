"""HTTP endpoints: presets, creating tables, coded errors, the page."""

from __future__ import annotations

import pytest

from .support import cards_in, client


def test_presets_and_levels(sqlite_url: str) -> None:
    with client(sqlite_url) as c:
        body = c.get("/api/presets").json()
        assert set(body["presets"]) >= {
            "classic",
            "bicycle",
            "two-player",
            "two-player-quick",
            "three-player",
        }
        assert body["presets"]["two-player"]["players"] == 2
        assert body["levels"] == ["beginner", "normal", "expert"]


def test_index_page_is_served(sqlite_url: str) -> None:
    with client(sqlite_url) as c:
        r = c.get("/")
        assert r.status_code == 200 and "html" in r.headers["content-type"]


@pytest.mark.parametrize(
    ("body", "code"),
    [
        ({"mode": "online"}, "bad_mode"),
        ({"mode": "computer", "difficulty": "godlike"}, "bad_difficulty"),
        ({"mode": "computer", "preset": "pinochle"}, "unknown_preset"),
        ({"mode": "local", "players": 5}, "bad_players"),
        ({"mode": "local", "players": 2, "preset": "classic"}, "players_mismatch"),
        ({"mode": "computer", "rules": {"target": 12}}, None),
        ({"mode": "computer", "rules": {"colour": "blue"}}, None),
        ({"mode": "computer", "rules": "fast"}, "bad_request"),
        ({"mode": "computer", "seed": "x"}, "bad_seed"),
    ],
)
def test_bad_table_requests_get_coded_errors(
    sqlite_url: str, body: dict[str, object], code: str | None
) -> None:
    with client(sqlite_url) as c:
        r = c.post("/api/tables", json=body)
        assert r.status_code == 400
        error = r.json()["error"]
        assert error["message"]
        if code is not None:
            assert error["code"] == code


def test_garbage_body_is_refused(sqlite_url: str) -> None:
    with client(sqlite_url) as c:
        r = c.post("/api/tables", content=b"{nope", headers={"content-type": "application/json"})
        assert r.status_code == 400 and r.json()["error"]["code"] == "bad_request"
        r = c.post("/api/tables", json=[1, 2])
        assert r.status_code == 400


def test_create_and_read_tables(sqlite_url: str) -> None:
    with client(sqlite_url) as c:
        r = c.post(
            "/api/tables",
            json={
                "mode": "computer",
                "preset": "two-player",
                "difficulty": "beginner",
            },
        )
        assert r.status_code == 200
        created = r.json()
        assert [s["kind"] for s in created["seats"]] == ["human", "computer"]
        assert created["seats"][1]["level"] == "beginner"
        four = c.post(
            "/api/tables", json={"mode": "computer", "difficulty": "expert"}
        ).json()
        assert [s["role"] for s in four["seats"]] == ["you", "opponent", "partner", "opponent"]
        assert [s["level"] for s in four["seats"]] == [None, "expert", "normal", "expert"]
        local = c.post(
            "/api/tables", json={"mode": "local", "players": 3}
        ).json()
        assert local["settings"]["preset"] == "three-player"
        assert all(s["kind"] == "human" for s in local["seats"])

        got = c.get(f"/api/tables/{created['table']}").json()
        assert got["table"] == created["table"] and got["mode"] == "computer"
        assert got["settings"]["players"] == 2 and got["status"] == "playing"
        assert not list(cards_in(got))

        listed = c.get("/api/tables").json()["tables"]
        assert {t["table"] for t in listed} == {created["table"], four["table"], local["table"]}
        # which total is the player's (R0, R14): seat 0's team against the computer, none in
        # pass-and-play (every seat is the player's)
        teams = {t["table"]: t["team"] for t in listed}
        assert teams == {created["table"]: 0, four["table"]: 0, local["table"]: None}
        assert c.get("/api/tables/unknown").status_code == 404
        assert c.get("/api/tables/unknown").json()["error"]["code"] == "table_not_found"
        c.cookies.clear()
        assert c.get("/api/stats").json()["error"]["code"] == "no_session"
        assert c.get("/api/tables").status_code == 401


def test_unknown_paths_answer_in_the_error_format(sqlite_url: str) -> None:
    with client(sqlite_url) as c:
        r = c.get("/api/nothing-here")
        assert r.status_code == 404 and r.json()["error"]["code"] == "not_found"
        r = c.put("/api/stats")
        assert r.status_code == 405 and r.json()["error"]["code"] == "method_not_allowed"
        assert c.get("/static/js/none.js").status_code == 404


def test_a_json_body_holds_only_finite_numbers(sqlite_url: str) -> None:
    """NaN, the infinities and a number past the largest (1e999) are refused with
    ``bad_request``, as the sockets refuse them, not read as a float nothing can store."""
    with client(sqlite_url) as c:
        headers = {"content-type": "application/json"}
        for body in (b'{"players": NaN}', b'{"players": Infinity}', b'{"rules": {"target": 1e999}}',
                     b'{"name": -Infinity}'):
            r = c.post("/api/tables", content=body, headers=headers)
            assert r.status_code == 400 and r.json()["error"]["code"] == "bad_request", body
        r = c.post("/api/tables", content=b'{"mode": "computer", "players": 2.0e0}', headers=headers)
        assert r.status_code == 400 and r.json()["error"]["code"] != "bad_request"  # a float is JSON


def test_rules_are_an_object_or_nothing(sqlite_url: str) -> None:
    """``rules`` absent or null: the preset's; anything but an object (``[]``, ``0``, ``false``,
    ``""``) is refused, not read as no rules."""
    with client(sqlite_url) as c:
        for rules in ([], 0, False, ""):
            r = c.post("/api/tables", json={"mode": "computer", "players": 2, "rules": rules})
            assert r.status_code == 400 and r.json()["error"]["code"] == "bad_request", rules
        for body in ({"mode": "computer", "players": 2}, {"mode": "computer", "players": 2, "rules": None}):
            assert c.post("/api/tables", json=body).status_code == 200
