"""A second device's guest statistics join the account it logs into: once, atomically."""

from __future__ import annotations

import asyncio

from canasta.server.accounts import merge_guest_stats
from canasta.server.db import AccountRow, StatsDelta, StatsRow, stats_key

from .support import Device, app_client, new_email


def _add(c, *deltas: StatsDelta) -> None:  # type: ignore[no-untyped-def]
    async def go() -> None:
        store = c.app.state.store
        async with store.sessions() as s, s.begin():
            await store._apply_deltas(s, list(deltas))

    c.portal.call(go)


def test_a_guests_offline_and_online_stats_are_added_to_the_account_once(db_url: str) -> None:
    email = new_email()
    with app_client(db_url) as c:
        phone = Device(c)
        account = phone.register(email)
        me = account["id"]
        _add(c, StatsDelta(me, canastas=3, best_hand=500, finished=True, won=True),
             StatsDelta(me, finished=True, won=False),
             StatsDelta(stats_key(me, "online"), canastas=1, finished=True, won=True))
        laptop = Device(c)
        guest = laptop.account["id"]
        _add(c, StatsDelta(guest, canastas=2, best_hand=900, finished=True, won=True),
             StatsDelta(stats_key(guest, "online"), canastas=4, best_hand=300, finished=True, won=False))
        r = laptop.login(email)
        assert r.status_code == 200, r.text
        assert r.json()["merged"] == {
            "offline": {"played": 1, "won": 1, "canastas": 2},
            "online": {"played": 1, "won": 0, "canastas": 4},
        }
        offline = laptop.get("/api/stats").json()
        assert offline == {"played": 3, "won": 2, "best_hand": 900, "canastas": 5,
                           "streak": 0, "best_streak": 1}
        online = laptop.get("/api/stats?scope=online").json()
        assert online == {"played": 2, "won": 1, "best_hand": 300, "canastas": 5,
                          "streak": 1, "best_streak": 1}
        assert phone.get("/api/stats").json() == offline  # the same account everywhere

        async def leftovers() -> tuple:
            async with c.app.state.store.sessions() as s:
                rows = [await s.get(StatsRow, stats_key(guest, scope)) for scope in ("offline", "online")]
                return rows, (await s.get(AccountRow, guest)).kind

        rows, kind = c.portal.call(leftovers)
        assert rows == [None, None] and kind == "merged"
        # once: a second merge of that guest (a retry, another node) adds nothing
        assert c.portal.call(merge_guest_stats, c.app.state.store, guest, me) is None
        assert laptop.get("/api/stats").json() == offline
        # logging out and in again: a fresh guest with nothing to add
        laptop.post("/api/account/logout")
        laptop.post("/api/session")
        r = laptop.login(email)
        assert r.status_code == 200 and r.json()["merged"] is None
        assert laptop.get("/api/stats").json() == offline
        phone.close()
        laptop.close()


def test_racing_merges_of_one_guest_count_it_once(db_url: str) -> None:
    with app_client(db_url) as c:
        owner = Device(c)
        me = owner.register(new_email())["id"]
        guest = Device(c).account["id"]
        _add(c, StatsDelta(guest, canastas=2, finished=True, won=True))
        store = c.app.state.store

        async def race() -> list:
            return list(await asyncio.gather(*(merge_guest_stats(store, guest, me) for _ in range(4))))

        results = c.portal.call(race)
        assert sum(r is not None for r in results) == 1
        assert owner.get("/api/stats").json()["played"] == 1
        assert owner.get("/api/stats").json()["canastas"] == 2
        owner.close()
