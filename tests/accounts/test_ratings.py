"""Ratings (openskill, Weng-Lin) after finished quick matches; leaderboards and profiles;
quick match by rating."""

from __future__ import annotations

import time

from canasta.server.lobby import QueueEntry
from canasta.server.models_accounts import RatingRow
from canasta.server.ratings import closest_group, display

from .support import Device, app_client, finish_quick_match, wait_for


def _entry(account: str, joined: float) -> QueueEntry:
    return QueueEntry(account, account, "two-player", 2500, joined)


def test_closest_group_keeps_the_oldest_and_takes_its_nearest_ratings() -> None:
    waiting = [_entry("old", 1), _entry("far", 2), _entry("near", 3), _entry("mid", 4)]
    r = {"old": 10.0, "far": -20.0, "near": 11.0, "mid": 5.0}
    assert [e.account for e in closest_group(waiting, 2, lambda e: r[e.account])] == ["old", "near"]
    group = closest_group(waiting, 3, lambda e: r[e.account])
    assert sorted(e.account for e in group) == ["mid", "near", "old"]
    # exactly n waiting: everyone, whatever the ratings
    assert len(closest_group(waiting[:2], 2, lambda e: r[e.account])) == 2


def test_a_finished_quick_match_rates_its_players_once(db_url: str) -> None:
    with app_client(db_url) as c:
        a, b = Device(c, "Ann"), Device(c, "Bob")
        try:
            table_id = finish_quick_match(c, [a, b])

            def rated() -> list[dict]:
                profiles = [x.get("/api/profile").json() for x in (a, b)]
                done = all(p["ratings"]["two-player"]["played"] == 1 for p in profiles)
                return profiles if done else []

            pa, pb = wait_for(rated, timeout=20, what="ratings")
            table = c.app.state.tables.peek(table_id)
            winners = list(table.game.winners)
            team_of = table.game.state.team_of
            accounts = table.options["online"]["accounts"]
            won = {acc: winners == [team_of[seat]] for seat, acc in enumerate(accounts)}
            for p, dev in ((pa, a), (pb, b)):
                two = p["ratings"]["two-player"]
                assert len(two["history"]) == 1 and two["history"][0]["table"] == table_id
                assert p["matches"][0]["table"] == table_id
                assert p["matches"][0]["won"] is won[dev.account["id"]]
                assert p["ratings"]["classic"]["played"] == 0
            if winners:  # a draw moves nobody apart
                win, lose = (pa, pb) if won[a.account["id"]] else (pb, pa)
                assert win["ratings"]["two-player"]["rating"] > 1000 > lose["ratings"]["two-player"]["rating"]
            # the listener again (a second process, a retry): nothing is counted twice
            c.portal.call(c.app.state.tables.match_over_listeners[-1], table)
            again = a.get("/api/profile").json()["ratings"]["two-player"]
            assert again["played"] == 1 and len(again["history"]) == 1
            board = a.get("/api/leaderboard?kind=two-player").json()
            assert board["you"]["played"] == 1
            ids = [row["id"] for row in board["top"]]
            assert a.account["id"] in ids or board["you"]["place"] > len(ids)
            assert a.get("/api/leaderboard?kind=four").json()["error"]["code"] == "bad_kind"
            other = a.get(f"/api/players/{b.account['id']}").json()
            assert other["name"] == "Bob" and "email" not in other
        finally:
            a.close()
            b.close()


def test_quick_match_pairs_the_oldest_with_the_closest_rating(db_url: str) -> None:
    with app_client(db_url) as c:
        old, far, near = Device(c, "Old"), Device(c, "Far"), Device(c, "Near")
        try:
            store, lobby = c.app.state.store, c.app.state.lobby

            async def seed() -> None:
                async with store.sessions() as s, s.begin():
                    for dev, mu in ((old, 40.0), (far, 5.0), (near, 38.0)):
                        s.add(RatingRow(account_id=dev.account["id"], kind="two-player",
                                        mu=mu, sigma=2.0, ordinal=mu - 6.0, played=5))
                # two entries already waiting (as after a restart); the oldest first
                now = time.time()
                for i, dev in enumerate((old, far)):
                    entry = QueueEntry(dev.account["id"], dev.account["name"], "two-player",
                                       2500, now - 60 + i)
                    lobby.queue[entry.account] = entry

            c.portal.call(seed)
            near.open_lobby()
            near.send(near.lobby, type="queue_join", preset="two-player", target=2500)
            table_id = near.until(near.lobby, lambda m: m["type"] == "match")["table"]
            accounts = c.app.state.tables.peek(table_id).options["online"]["accounts"]
            assert sorted(accounts) == sorted([old.account["id"], near.account["id"]])
            assert far.account["id"] in lobby.queue
        finally:
            for d in (old, far, near):
                d.close()


def test_display_scale_starts_at_1000() -> None:
    assert display(25.0, 25.0 / 3) == 1000
    assert display(30.0, 2.0) == 1000 + 20 * 24
