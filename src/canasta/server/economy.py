"""Coins and cosmetics (seed 003): a daily check-in earns coins, coins buy card backs and table
themes. Matches never cost or award coins.

Every change of a balance is one transaction holding a conditional ``UPDATE`` of the wallet
and a row of the ledger; a purchase also inserts the ownership row, whose primary key refuses a
second copy. Two concurrent purchases can therefore never spend the same coins twice, and the
wallet's ``CHECK (coins >= 0)`` is the last guard against a negative balance.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from fastapi import FastAPI, Request
from sqlalchemy import select, update
from sqlalchemy.exc import IntegrityError

from .db import Store, now
from .models_accounts import LedgerRow, OwnedItemRow, WalletRow, insert_ignore

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable

    from .db import AccountRow


@dataclass(frozen=True)
class Item:
    """A cosmetic: ``kind`` is "back" (card backs) or "theme" (table felt)."""

    kind: str
    name: str
    price: int

    @property
    def id(self) -> str:
        return f"{self.kind}:{self.name}"


#: the catalogue; the first of each kind is everyone's, free (the look of the game without one)
CATALOGUE: tuple[Item, ...] = (
    Item("back", "classic", 0),
    Item("back", "navy", 50),
    Item("back", "forest", 80),
    Item("back", "argyle", 120),
    Item("back", "gold", 200),
    Item("back", "stars", 250),
    Item("theme", "felt", 0),
    Item("theme", "ocean", 60),
    Item("theme", "wine", 100),
    Item("theme", "night", 150),
    Item("theme", "sand", 200),
)
ITEMS = {item.id: item for item in CATALOGUE}
KINDS = ("back", "theme")

#: coins of a check-in: the base, and the streak bonus per consecutive day (up to a week)
CHECKIN_BASE = 50
CHECKIN_STREAK_BONUS = 10
CHECKIN_STREAK_MAX = 7


def today() -> dt.date:
    """The server's day (its local time zone): one check-in per account per day."""
    return dt.datetime.now().date()


def checkin_award(streak: int) -> int:
    """Coins for the check-in that makes a streak of ``streak`` days.

    >>> [checkin_award(n) for n in (1, 2, 7, 30)]
    [50, 60, 110, 110]
    """
    return CHECKIN_BASE + CHECKIN_STREAK_BONUS * (min(streak, CHECKIN_STREAK_MAX) - 1)


class ShopError(Exception):
    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status, self.code, self.message = status, code, message


async def _ensure_wallet(s: Any, store: Store, account_id: str) -> None:
    await s.execute(
        insert_ignore(
            store.url,
            WalletRow,
            account_id=account_id,
            coins=0,
            checkin_day=None,
            checkin_streak=0,
            back=None,
            theme=None,
        )
    )


async def wallet(store: Store, account_id: str) -> dict[str, Any]:
    """Balance, streak, owned and equipped items of an account (no row: a new wallet)."""
    async with store.sessions() as s:
        row = await s.get(WalletRow, account_id)
        owned = set(
            (
                await s.scalars(
                    select(OwnedItemRow.item).where(OwnedItemRow.account_id == account_id)
                )
            ).all()
        )
    day = today()
    streak = row.checkin_streak if row else 0
    last = row.checkin_day if row else None
    checked = last == day.isoformat()
    going = last in (day.isoformat(), (day - dt.timedelta(days=1)).isoformat())
    return {
        "coins": row.coins if row else 0,
        "streak": streak if going else 0,
        "checked_in": checked,
        "next_award": checkin_award((streak if going else 0) + (0 if checked else 1)),
        "owned": sorted(owned | {i.id for i in CATALOGUE if i.price == 0}),
        "equipped": {
            "back": (row.back if row else None) or "classic",
            "theme": (row.theme if row else None) or "felt",
        },
    }


async def check_in(store: Store, account_id: str) -> dict[str, Any]:
    """Today's coins, once per account per server day; raises ``already_checked_in``."""
    day = today()
    yesterday = (day - dt.timedelta(days=1)).isoformat()
    async with store.sessions() as s, s.begin():
        await _ensure_wallet(s, store, account_id)
        row = await s.get(WalletRow, account_id)
        assert row is not None
        if row.checkin_day == day.isoformat():
            raise ShopError(
                409, "already_checked_in", "you have checked in today: come back tomorrow"
            )
        streak = row.checkin_streak + 1 if row.checkin_day == yesterday else 1
        award = checkin_award(streak)
        # conditional on the day read above: of two racing check-ins, one changes the row
        result = await s.execute(
            update(WalletRow)
            .where(
                WalletRow.account_id == account_id,
                WalletRow.checkin_day.is_not_distinct_from(row.checkin_day),
            )
            .values(
                coins=WalletRow.coins + award, checkin_day=day.isoformat(), checkin_streak=streak
            )
            .returning(WalletRow.coins)
            .execution_options(synchronize_session=False)
        )
        balance = result.scalar_one_or_none()
        if balance is None:
            raise ShopError(
                409, "already_checked_in", "you have checked in today: come back tomorrow"
            )
        s.add(
            LedgerRow(
                account_id=account_id,
                delta=award,
                balance=balance,
                reason=f"checkin:{streak}",
                created_at=now(),
            )
        )
    return {"award": award, "streak": streak, "coins": balance}


async def buy(store: Store, account_id: str, item_id: str) -> dict[str, Any]:
    """Buy one cosmetic, atomically: the coins, the ownership and the ledger row commit
    together or not at all."""
    item = ITEMS.get(item_id)
    if item is None or item.price == 0:
        raise ShopError(400, "bad_item", "no such item for sale")
    try:
        async with store.sessions() as s, s.begin():
            await _ensure_wallet(s, store, account_id)
            # the write comes first: SQLite takes its write lock here, PostgreSQL the row's
            result = await s.execute(
                update(WalletRow)
                .where(WalletRow.account_id == account_id, WalletRow.coins >= item.price)
                .values(coins=WalletRow.coins - item.price)
                .returning(WalletRow.coins)
                .execution_options(synchronize_session=False)
            )
            balance = result.scalar_one_or_none()
            if balance is None:
                raise ShopError(409, "not_enough_coins", f"{item.name} costs {item.price} coins")
            s.add(OwnedItemRow(account_id=account_id, item=item.id, created_at=now()))
            s.add(
                LedgerRow(
                    account_id=account_id,
                    delta=-item.price,
                    balance=balance,
                    reason=f"buy:{item.id}",
                    created_at=now(),
                )
            )
            await s.flush()
    except IntegrityError as e:  # the ownership row exists: the whole purchase rolled back
        raise ShopError(409, "already_owned", "you own this already") from e
    return {"item": item.id, "coins": balance}


async def equip(store: Store, account_id: str, item_id: str) -> dict[str, str]:
    """Choose an owned (or free) cosmetic for every table."""
    item = ITEMS.get(item_id)
    if item is None:
        raise ShopError(400, "bad_item", "no such item")
    async with store.sessions() as s, s.begin():
        if item.price > 0 and await s.get(OwnedItemRow, (account_id, item.id)) is None:
            raise ShopError(409, "not_owned", "buy this first")
        await _ensure_wallet(s, store, account_id)
        value = None if item.price == 0 else item.name
        await s.execute(
            update(WalletRow).where(WalletRow.account_id == account_id).values(**{item.kind: value})
        )
    return (await wallet(store, account_id))["equipped"]  # type: ignore[no-any-return]


async def ledger(store: Store, account_id: str, limit: int = 50) -> list[dict[str, Any]]:
    async with store.sessions() as s:
        rows = (
            await s.scalars(
                select(LedgerRow)
                .where(LedgerRow.account_id == account_id)
                .order_by(LedgerRow.id.desc())
                .limit(limit)
            )
        ).all()
    return [
        {"delta": r.delta, "balance": r.balance, "reason": r.reason, "at": r.created_at.isoformat()}
        for r in rows
    ]


def install(
    app: FastAPI, *, store: Store, require_account: Callable[[Request], Awaitable[AccountRow]]
) -> None:
    from .app import ApiError, _json_body

    async def act(
        request: Request, action: Callable[[str, dict[str, Any]], Awaitable[dict[str, Any]]]
    ) -> dict[str, Any]:
        """A shop change: the body, the signed-in account, then ``action(account id, body)``;
        the shop's refusal becomes the API's error."""
        body = await _json_body(request)
        account = await require_account(request)
        try:
            return await action(account.id, body)
        except ShopError as e:
            raise ApiError(e.status, e.code, e.message) from e

    def item_of(body: dict[str, Any]) -> str:
        item = body.get("item")
        if not isinstance(item, str) or len(item) > 60:
            raise ApiError(400, "bad_item", "item is an id such as 'back:navy'")
        return item

    @app.get("/api/shop")
    async def shop(request: Request) -> dict[str, Any]:
        account = await require_account(request)
        return {
            "items": [
                {"id": i.id, "kind": i.kind, "name": i.name, "price": i.price} for i in CATALOGUE
            ],
            "wallet": await wallet(store, account.id),
            "day": today().isoformat(),
        }

    @app.get("/api/shop/ledger")
    async def get_ledger(request: Request) -> dict[str, Any]:
        account = await require_account(request)
        return {"ledger": await ledger(store, account.id)}

    async def equipped(account_id: str, body: dict[str, Any]) -> dict[str, Any]:
        return {"equipped": await equip(store, account_id, item_of(body))}

    @app.post("/api/shop/checkin")
    async def post_checkin(request: Request) -> dict[str, Any]:
        return await act(request, lambda account_id, _body: check_in(store, account_id))

    @app.post("/api/shop/buy")
    async def post_buy(request: Request) -> dict[str, Any]:
        return await act(request, lambda account_id, body: buy(store, account_id, item_of(body)))

    @app.post("/api/shop/equip")
    async def post_equip(request: Request) -> dict[str, Any]:
        return await act(request, equipped)
