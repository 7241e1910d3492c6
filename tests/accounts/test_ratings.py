"""Ratings (openskill, Weng-Lin) after finished quick matches; leaderboards and profiles;
quick match by rating."""

from __future__ import annotations

import time

from canasta.server.lobby import QueueEntry
from canasta.server.models_accounts import RatingRow
from canasta.server.ratings import allowed_spread, closest_group, display, ready_groups

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


def test_pairing_window_seats_close_ratings_at_once_and_far_ones_when_it_widens() -> None:
    r = {"hi": 30.0, "lo": 0.0, "hi2": 30.5, "lo2": 1.0, "mid": 15.0}
    rating = lambda e: r[e.account]  # noqa: E731
    hi, lo = _entry("hi", 100.0), _entry("lo", 100.5)
    # two far apart, just joined: neither accepts a spread of 30 yet
    assert ready_groups([hi, lo], 2, rating, now=101.0, window=4.0) == []
    # after the whole window the oldest plays with whoever is nearest
    assert ready_groups([hi, lo], 2, rating, now=104.0, window=4.0) == [[lo, hi]]
    # a near player arriving in time is seated with the far one's opposite at once, and the
    # one left waiting does not hold them back
    hi2 = _entry("hi2", 102.0)
    assert ready_groups([hi, lo, hi2], 2, rating, now=102.0, window=4.0) == [[hi, hi2]]
    lo2 = _entry("lo2", 102.5)
    groups = ready_groups([hi, lo, hi2, lo2], 2, rating, now=102.5, window=4.0)
    assert groups == [[hi, hi2], [lo, lo2]]
    # the spread accepted widens with the waiting time: 15 apart plays after 6.5 s of a
    # longer window, not before
    mid = _entry("mid", 100.0)
    assert ready_groups([mid, lo], 2, rating, now=106.0, window=60.0) == []
    assert ready_groups([mid, lo], 2, rating, now=106.5, window=60.0) == [[lo, mid]]
    assert allowed_spread(6.5, 60.0) == 15.0
    # no window: every full group at once (the closest to the oldest first)
    assert ready_groups([hi, lo, hi2], 2, rating, now=100.5, window=0.0) == [[hi, hi2]]


def _seed_ratings(c, ratings: dict[str, float]) -> None:  # type: ignore[no-untyped-def]
    async def seed() -> None:
        async with c.app.state.store.sessions() as s, s.begin():
            for account, ordinal in ratings.items():
                s.add(RatingRow(account_id=account, kind="two-player", mu=ordinal + 6.0,
                                sigma=2.0, ordinal=ordinal, played=5))

    c.portal.call(seed)


def test_quick_match_waits_in_its_pairing_window_for_a_closer_rating(db_url: str) -> None:
    with app_client(db_url, pairing_seconds=60.0) as c:
        hi, lo, hi2, lo2 = (Device(c, n) for n in ("Hi", "Lo", "Hi2", "Lo2"))
        try:
            lobby = c.app.state.lobby
            _seed_ratings(c, {hi.account["id"]: 30.0, lo.account["id"]: 0.0,
                              hi2.account["id"]: 30.5, lo2.account["id"]: 1.0})
            for d in (hi, lo):
                d.open_lobby()
                d.send(d.lobby, type="queue_join", preset="two-player", target=2500)
                d.lobby_until("queued")
            time.sleep(0.5)  # ten lobby ticks: the two far apart keep waiting
            assert {hi.account["id"], lo.account["id"]} <= set(lobby.queue)
            hi2.open_lobby()
            hi2.send(hi2.lobby, type="queue_join", preset="two-player", target=2500)
            table_id = hi2.lobby_until("match")["table"]
            assert hi.lobby_until("match")["table"] == table_id
            accounts = c.app.state.tables.peek(table_id).options["online"]["accounts"]
            assert sorted(accounts) == sorted([hi.account["id"], hi2.account["id"]])
            assert lo.account["id"] in lobby.queue
            lo2.open_lobby()
            lo2.send(lo2.lobby, type="queue_join", preset="two-player", target=2500)
            other = lo2.lobby_until("match")["table"]
            assert lo.lobby_until("match")["table"] == other != table_id
        finally:
            for d in (hi, lo, hi2, lo2):
                d.close()


def test_quick_match_seats_far_ratings_together_when_the_window_ends(db_url: str) -> None:
    with app_client(db_url, pairing_seconds=2.0) as c:
        hi, lo = Device(c, "Hi"), Device(c, "Lo")
        try:
            lobby = c.app.state.lobby
            _seed_ratings(c, {hi.account["id"]: 30.0, lo.account["id"]: 0.0})
            for d in (hi, lo):
                d.open_lobby()
                d.send(d.lobby, type="queue_join", preset="two-player", target=2500)
                d.lobby_until("queued")
            started = time.monotonic()
            assert {hi.account["id"], lo.account["id"]} <= set(lobby.queue)
            table_id = lo.lobby_until("match")["table"]
            assert hi.lobby_until("match")["table"] == table_id
            assert time.monotonic() - started < 10
        finally:
            hi.close()
            lo.close()


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
            # the end of the match shows each player's change, as the profiles give it: saved
            # with the table (a page opened now is sent it), not a new version of the game
            def shown() -> dict:
                ws = b.socket(f"/ws/tables/{table_id}")
                state = b.until(ws, lambda m: m["type"] == "state")
                ws.close()
                return state if state["table"]["online"]["ratings"] else {}

            state = wait_for(shown, timeout=20, what="the ratings at the table")
            on = state["table"]["online"]
            assert on["rated"] is True
            by_account = {a.account["id"]: pa, b.account["id"]: pb}
            for seat, acc in enumerate(accounts):
                change = on["ratings"][seat]
                assert change == {
                    "kind": "two-player",
                    "before": 1000,
                    "after": by_account[acc]["ratings"]["two-player"]["rating"],
                }
            assert table.options["online"]["ratings"] == on["ratings"]
            # the listener again (a second process, a retry): nothing is counted twice
            seq = table.seq
            c.portal.call(c.app.state.tables.match_over_listeners[-1], table)
            again = a.get("/api/profile").json()["ratings"]["two-player"]
            assert again["played"] == 1 and len(again["history"]) == 1
            assert table.seq == seq and table.options["online"]["ratings"] == on["ratings"]
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


def test_a_quick_match_of_people_from_one_network_changes_no_rating(db_url: str) -> None:
    """Guests are free: one machine's two accounts queued at once could farm a rating off a
    throwaway one. A quick match two of whose people joined from one client address is played
    all the same, unrated, and says why; its rematch too."""
    with app_client(db_url, rate_shared_networks=False) as c:  # the test client: one address
        a, b = Device(c, "Ann"), Device(c, "Bob")
        try:
            table_id = finish_quick_match(c, [a, b])
            table = c.app.state.tables.peek(table_id)
            assert table.rated is False and table.options["online"]["unrated"] == "shared_network"
            ws = b.socket(f"/ws/tables/{table_id}")
            on = b.until(ws, lambda m: m["type"] == "state")["table"]["online"]
            assert on["rated"] is False and on["unrated"] == "shared_network" and on["ratings"] is None
            ws.close()
            for dev in (a, b):
                assert dev.get("/api/profile").json()["ratings"]["two-player"]["played"] == 0
            rematch = c.portal.call(c.app.state.tables._rematch, table)
            assert c.app.state.tables.peek(rematch).options["online"]["unrated"] == "shared_network"
        finally:
            a.close()
            b.close()


def test_quick_match_pairs_the_oldest_with_the_closest_rating(db_url: str) -> None:
    # a long pairing window: the two waiting (35 apart) do not accept each other yet
    with app_client(db_url, pairing_seconds=60.0) as c:
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
                                       2500, now - 5 + i)
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


def test_leaderboard_places_agree_with_the_viewers_place_through_ties(db_url: str) -> None:
    """Places are positions in one order (rating, then who reached it first): the viewer's
    place is the place the list gives it, ties too; a deleted account holds no place, nor a
    guest merged into an account at a login (nobody plays as it again)."""
    import datetime as dt
    import uuid

    from sqlalchemy import func, select

    from canasta.server.db import AccountRow

    with app_client(db_url) as c:
        a = Device(c, "Ann")
        try:
            me = a.account["id"]
            now = dt.datetime.now(dt.UTC)
            tag = uuid.uuid4().hex[:8]  # a database kept between runs holds earlier rows

            async def top_ordinal() -> float:
                async with c.app.state.store.sessions() as s:
                    return float(await s.scalar(select(func.max(RatingRow.ordinal))) or 0.0)

            base = c.portal.call(top_ordinal) + 100
            rows = [  # (account, kind of account, ordinal, reached it minutes ago)
                (f"lb-gone-{tag}", "deleted", base + 30, 9),
                (f"lb-top-{tag}", "guest", base + 20, 9),
                (f"lb-gone2-{tag}", "deleted", base + 25, 7),
                (f"lb-merged-{tag}", "merged", base + 15, 6),
                (f"lb-old-{tag}", "guest", base + 10, 5),
                (me, None, base + 10, 3),
                (f"lb-new-{tag}", "guest", base + 10, 1),
            ]

            async def seed() -> None:
                async with c.app.state.store.sessions() as s:
                    for account, kind, ordinal, ago in rows:
                        if kind is not None:
                            s.add(AccountRow(id=account, kind=kind, name=account, created_at=now))
                        s.add(RatingRow(account_id=account, kind="classic", mu=25.0, sigma=5.0,
                                        ordinal=ordinal, played=1,
                                        updated_at=now - dt.timedelta(minutes=ago)))
                    await s.commit()

            c.portal.call(seed)
            board = a.get("/api/leaderboard?kind=classic").json()
            mine = [row for row in board["top"] if row["id"] == me]
            assert [row["id"] for row in board["top"]][:4] == [rows[1][0], rows[4][0], me, rows[6][0]]
            assert [row["place"] for row in board["top"]][:4] == [1, 2, 3, 4]
            assert mine[0]["place"] == board["you"]["place"] == 3
        finally:
            a.close()


def test_a_rating_change_the_table_could_not_show_is_shown_later_and_goes_with_a_deleted_account(
    db_url: str,
) -> None:
    """The ratings are committed before the table shows them: a table that lost them (its
    process stopped, or it could not save them) gets them back from the match's rows, when
    the match's end is reported again and when the finished table is loaded again. A deleted
    account's change is shown no more, at the live table nor in the stored one."""
    from canasta.server.db import TableRow

    with app_client(db_url) as c:
        a, b = Device(c, "Ann"), Device(c, "Bob")
        try:
            table_id = finish_quick_match(c, [a, b])
            tables = c.app.state.tables

            def shown() -> list | None:
                live = tables.peek(table_id)
                return live.online.get("ratings") if live is not None else None

            first = wait_for(shown, timeout=20, what="the ratings at the table")
            table = tables.peek(table_id)
            # lost in memory: the match's end reported again shows the same changes
            table._update_online(ratings=None)
            c.portal.call(tables.match_over_listeners[-1], table)
            assert wait_for(shown, timeout=20, what="the ratings again") == first

            # lost before they were saved, and the process gone: a load brings them back
            async def forget_and_reload() -> None:
                async with c.app.state.store.sessions() as s, s.begin():
                    row = await s.get(TableRow, table_id)
                    options = dict(row.options)
                    options["online"] = {**options["online"], "ratings": None}
                    row.options = options
                table.defunct = True
                await tables.get(table_id)

            c.portal.call(forget_and_reload)
            assert tables.peek(table_id) is not table
            assert wait_for(shown, timeout=20, what="the ratings after a load") == first

            # Bob deletes his account: his change is shown nowhere
            bob = table.options["online"]["accounts"].index(b.account["id"])
            r = b.request("DELETE", "/api/account", json={"confirm": True})
            assert r.status_code == 200, r.text
            wait_for(lambda: shown()[bob] is None, timeout=20, what="Bob's change to go")
            assert shown()[1 - bob] == first[1 - bob]

            async def stored() -> list:
                row = await c.app.state.store.load_table(table_id)
                return row.options["online"]["ratings"]

            assert c.portal.call(stored)[bob] is None
            # and a table that shows nothing reloads with nothing of his
            table = tables.peek(table_id)
            table._update_online(ratings=None)
            c.portal.call(tables.match_over_listeners[-1], table)
            again = wait_for(shown, timeout=20, what="the ratings without Bob's")
            assert again[bob] is None and again[1 - bob] == first[1 - bob]
        finally:
            a.close()
            b.close()


def test_a_rating_change_that_cannot_be_saved_while_storage_is_down_is_shown_when_it_is_back(
    sqlite_url: str,
) -> None:
    """The table shows the ratings as a change it saves: while the database is locked the
    save fails, and the change waits for storage to come back instead of being dropped."""
    import sqlite3

    with app_client(sqlite_url, sqlite_busy_seconds=0.2, storage_retry_seconds=0.1) as c:
        a, b = Device(c, "Ann"), Device(c, "Bob")
        try:
            table_id = finish_quick_match(c, [a, b])
            table = c.app.state.tables.peek(table_id)
            first = wait_for(lambda: table.online.get("ratings"), timeout=20, what="the ratings")
            # as before they were shown: neither in memory nor in what a failed save goes back to
            table._update_online(ratings=None)
            table._saved = {**table._saved, "options": table.options}
            lock = sqlite3.connect(sqlite_url.split(":///", 1)[1], isolation_level=None, timeout=10)
            lock.execute("BEGIN EXCLUSIVE")
            try:
                table.show_ratings(first)
                wait_for(lambda: not table.storage_ok, timeout=20, what="the save to fail")
                time.sleep(0.5)  # storage is retried meanwhile, and still down
                assert table.online.get("ratings") is None
            finally:
                lock.execute("ROLLBACK")
                lock.close()
            assert wait_for(lambda: table.online.get("ratings"), timeout=20, what="the ratings back") == first
            assert table.storage_ok
        finally:
            a.close()
            b.close()
