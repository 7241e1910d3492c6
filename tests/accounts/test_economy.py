"""Coins: the daily check-in with its streak, and purchases that stay atomic when they race
(on SQLite and on PostgreSQL)."""

from __future__ import annotations

import asyncio
import datetime as dt

import pytest
from sqlalchemy import func, select, update

from canasta.server import economy
from canasta.server.db import Store
from canasta.server.models_accounts import LedgerRow, OwnedItemRow, WalletRow

from .support import Device, app_client, code


async def _account_with(store: Store, coins: int) -> str:
    _, account = await store.new_session()
    async with store.sessions() as s, s.begin():
        s.add(WalletRow(account_id=account.id, coins=coins, checkin_day=None, checkin_streak=0))
        s.add(LedgerRow(account_id=account.id, delta=coins, balance=coins, reason="test"))
    return account.id


async def _race(store: Store, account: str, items: list[str]) -> list[str]:
    async def one(item: str) -> str:
        try:
            await economy.buy(store, account, item)
            return "ok"
        except economy.ShopError as e:
            return e.code

    return list(await asyncio.gather(*(one(i) for i in items)))


async def _books(store: Store, account: str) -> tuple[int, int, int]:
    async with store.sessions() as s:
        coins = await s.scalar(select(WalletRow.coins).where(WalletRow.account_id == account))
        ledger = await s.scalar(select(func.sum(LedgerRow.delta)).where(LedgerRow.account_id == account))
        owned = await s.scalar(select(func.count()).select_from(OwnedItemRow).where(
            OwnedItemRow.account_id == account))
    return int(coins or 0), int(ledger or 0), int(owned or 0)


@pytest.mark.asyncio
async def test_racing_purchases_never_spend_the_same_coins_twice(db_url: str) -> None:
    store = Store(db_url)
    try:
        await store.migrate()
        # 100 coins; any two of these cost more: exactly one purchase may win
        account = await _account_with(store, 100)
        items = ["theme:ocean", "back:forest", "theme:wine"] * 4
        results = await _race(store, account, items)
        assert results.count("ok") == 1, results
        assert set(results) - {"ok"} <= {"not_enough_coins", "already_owned"}
        coins, ledger, owned = await _books(store, account)
        assert owned == 1 and coins >= 0 and coins == ledger
        # the same item, many times at once, with coins for several: bought once
        rich = await _account_with(store, 1000)
        results = await _race(store, rich, ["back:navy"] * 10)
        assert results.count("ok") == 1 and results.count("already_owned") == 9
        assert await _books(store, rich) == (950, 950, 1)
        # and the database itself refuses a negative balance
        with pytest.raises(Exception):  # noqa: B017 - IntegrityError, by driver
            async with store.sessions() as s, s.begin():
                await s.execute(update(WalletRow).where(WalletRow.account_id == rich).values(coins=-1))
    finally:
        await store.dispose()


def test_check_in_once_a_day_with_a_streak_bonus(db_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    day = dt.date(2026, 12, 1)
    monkeypatch.setattr(economy, "today", lambda: day)
    with app_client(db_url) as c:
        a = Device(c)
        first = a.post("/api/shop/checkin").json()
        assert first == {"award": 50, "streak": 1, "coins": 50}
        r = a.post("/api/shop/checkin")
        assert r.status_code == 409 and code(r) == "already_checked_in"
        day = dt.date(2026, 12, 2)
        assert a.post("/api/shop/checkin").json() == {"award": 60, "streak": 2, "coins": 110}
        day = dt.date(2026, 12, 5)  # a day missed: the streak starts again
        assert a.post("/api/shop/checkin").json() == {"award": 50, "streak": 1, "coins": 160}
        shop = a.get("/api/shop").json()
        assert shop["wallet"]["checked_in"] and shop["wallet"]["next_award"] == 50
        assert len([i for i in shop["items"] if i["kind"] == "back" and i["price"]]) >= 4
        assert len([i for i in shop["items"] if i["kind"] == "theme" and i["price"]]) >= 4
        assert code(a.post("/api/shop/equip", {"item": "theme:night"})) == "not_owned"
        assert a.post("/api/shop/buy", {"item": "theme:night"}).json() == {"item": "theme:night", "coins": 10}
        assert code(a.post("/api/shop/buy", {"item": "back:gold"})) == "not_enough_coins"
        assert code(a.post("/api/shop/buy", {"item": "back:classic"})) == "bad_item"
        assert a.post("/api/shop/equip", {"item": "theme:night"}).json()["equipped"]["theme"] == "night"
        assert a.post("/api/shop/equip", {"item": "theme:felt"}).json()["equipped"]["theme"] == "felt"
        ledger = a.get("/api/shop/ledger").json()["ledger"]
        assert [e["delta"] for e in ledger] == [-150, 50, 60, 50]
        assert ledger[0]["balance"] == 10
