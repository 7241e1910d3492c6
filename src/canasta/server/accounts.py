"""Registered accounts: register, log in and out (everywhere), change password or email,
recovery by email, delete; and the routes of ratings, coins and reports.

A guest account (``POST /api/session``) becomes registered with an email and a password; the
password is hashed with Argon2id (``argon2-cffi``). Logging in makes a new session for the
registered account in this browser: the same statistics, ratings, coins and cosmetics on every
device. No answer says whether an email is registered: a failed login is ``bad_credentials``
whatever failed, and "forgot password" always answers the same. With SMTP, registering and
changing the email answer "check your mail" for any address and take effect only once the
mailed link is opened; a taken address is mailed a note instead of a link. Without SMTP
nothing can be confirmed: see ``ServerConfig.registration_without_smtp``.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import logging
import re
import secrets
import time
from collections import OrderedDict
from typing import TYPE_CHECKING, Any, TypeVar
from urllib.parse import urlsplit

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from fastapi import FastAPI, Request, Response
from sqlalchemy import String, case, cast, delete, exists, literal, select, update
from sqlalchemy.exc import IntegrityError

from . import economy, ratings, reports
from .cluster import RedisCluster
from .db import (
    SESSION_LIFETIME,
    AccountRow,
    Base,
    SessionRow,
    StatsRow,
    Store,
    TableLogRow,
    TableRow,
    _aware,
    now,
    stats_key,
    token_hash,
)
from .limits import TokenBucket
from .mail import MailError, SmtpServer, message, send
from .models_accounts import (
    CredentialRow,
    EmailTokenRow,
    MatchPlayerRow,
    OwnedItemRow,
    RatingRow,
    RecoveryTokenRow,
    ReportRow,
    WalletRow,
)
from .progress import OFFLINE_MODES
from .security import client_address
from .table import DELETED_NAME

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable, Coroutine

    from sqlalchemy.ext.asyncio import AsyncSession

    from .config import ServerConfig
    from .lobby import Lobby
    from .tables import Tables

log = logging.getLogger("canasta.accounts")

#: guests the upkeep purges in one batch, and how long one run goes on with more batches
PURGE_BATCH = 200
PURGE_SECONDS = 20.0

PASSWORD_MIN = 8
PASSWORD_MAX = 128
EMAIL_MAX = 254
#: an address of one mailbox: none of the characters that separate or quote addresses in a
#: header (``a@b.c,d@e.f`` would be two recipients) and no encoded word (``=?utf-8?q?...?=``,
#: which a header decodes into another address), letters of any script allowed
_EMAIL = re.compile(r'(?!.*=\?)[^@\s",:;<>()\[\]\\]{1,64}@[^@\s.",:;<>()\[\]\\]+(\.[^@\s.",:;<>()\[\]\\]+)+')
#: recovery and confirmation tokens are ``secrets.token_urlsafe(32)``
_RECOVERY_TOKEN = re.compile(r"[A-Za-z0-9_-]{40,50}")

#: Argon2id with argon2-cffi's defaults (RFC 9106's second recommended profile)
hasher = PasswordHasher()
#: verified against when no account has the email, so a miss costs what a hit costs
_DUMMY_HASH = hasher.hash(secrets.token_urlsafe(16))


class Limiter:
    """Token buckets by key: ``count`` events per ``seconds``, all of them at once at most. Past
    ``max_keys`` the least recently used key is forgotten (a flood of new keys cannot grow
    memory, nor push out a bucket that is still being hit)."""

    def __init__(self, count: int, seconds: float, *, max_keys: int = 100_000) -> None:
        self.count = count
        self.seconds = seconds
        self.max_keys = max_keys
        self._buckets: OrderedDict[str, TokenBucket] = OrderedDict()

    def allow(self, key: str) -> bool:
        bucket = self._buckets.get(key)
        if bucket is None:
            if len(self._buckets) >= self.max_keys:
                self._buckets.popitem(last=False)
            bucket = self._buckets[key] = TokenBucket(self.count / self.seconds, self.count)
        else:
            self._buckets.move_to_end(key)
        return bucket.take()

    def refund(self, key: str) -> None:
        """Give back one event :meth:`allow` spent (it did not count after all)."""
        bucket = self._buckets.get(key)
        if bucket is not None:
            bucket.tokens = min(bucket.burst, bucket.tokens + 1.0)


def normalise_email(value: Any) -> str:
    """An email as stored and compared: trimmed, lower case, plausibly shaped."""
    from .app import ApiError

    if not isinstance(value, str):
        raise ApiError(400, "bad_email", "email is a string")
    email = value.strip().lower()
    if len(email) > EMAIL_MAX or not _EMAIL.fullmatch(email):
        raise ApiError(400, "bad_email", "this is not an email address")
    return email


def check_password(value: Any) -> str:
    from .app import ApiError

    if not isinstance(value, str):
        raise ApiError(400, "bad_password", "password is a string")
    if len(value) < PASSWORD_MIN:
        raise ApiError(400, "weak_password", f"a password has at least {PASSWORD_MIN} characters")
    if len(value) > PASSWORD_MAX:
        raise ApiError(400, "bad_password", f"a password has at most {PASSWORD_MAX} characters")
    return value


async def hash_password(password: str) -> str:
    return await asyncio.to_thread(hasher.hash, password)


async def verify_password(stored: str | None, password: str) -> bool:
    def check() -> bool:
        try:
            return hasher.verify(stored or _DUMMY_HASH, password) and stored is not None
        except (VerificationError, InvalidHashError):
            return False

    return await asyncio.to_thread(check)


# ---------------------------------------------------------------------- storage


async def credentials(store: Store, account_id: str) -> CredentialRow | None:
    async with store.sessions() as s:
        return await s.get(CredentialRow, account_id)


async def credentials_by_email(store: Store, email: str) -> CredentialRow | None:
    async with store.sessions() as s:
        return await s.scalar(select(CredentialRow).where(CredentialRow.email == email))


_Token = TypeVar("_Token", RecoveryTokenRow, EmailTokenRow)


async def _spend_token(s: AsyncSession, model: type[_Token], token: str) -> _Token | None:
    """The row of ``token`` in ``model``'s table, marked used; None when it is unknown, used or
    expired (or a racing use of it came first)."""
    row = await s.get(model, token_hash(token))
    if row is None or row.used_at is not None or _aware(row.expires_at) < now():
        return None
    # a conditional update: of two racing uses of one token, one changes a row
    result = await s.execute(
        update(model)
        .where(model.token_hash == row.token_hash, model.used_at.is_(None))
        .values(used_at=now())
        .execution_options(synchronize_session=False)
    )
    return row if result.rowcount == 1 else None  # type: ignore[attr-defined]


async def _void_tokens(s: AsyncSession, model: type[_Token], account_id: str) -> None:
    """Mark an account's unused tokens in ``model``'s table used: none of them works again."""
    await s.execute(
        update(model)
        .where(model.account_id == account_id, model.used_at.is_(None))
        .values(used_at=now())
        .execution_options(synchronize_session=False)
    )


async def void_links(s: AsyncSession, account_id: str) -> None:
    """Every link an account has outstanding stops working: the recovery links and the
    confirmation of a new address. Called whenever the account is secured or moves (a password
    changed or reset, every session ended, its email changed), so that a link mailed before,
    to an address it left or at an intruder's request, cannot take it back afterwards."""
    await _void_tokens(s, RecoveryTokenRow, account_id)
    await _void_tokens(s, EmailTokenRow, account_id)


async def _new_token(
    store: Store, model: type[Base], account_id: str, *, replace: bool = False, **values: Any
) -> str:
    """A new random token of an account, stored as a ``model`` row of its hash and ``values``
    (never the token itself); ``replace``: the account's unused ones stop working."""
    token = secrets.token_urlsafe(32)
    async with store.sessions() as s, s.begin():
        if replace:
            await _void_tokens(s, model, account_id)  # type: ignore[type-var]
        s.add(model(token_hash=token_hash(token), account_id=account_id, created_at=now(), **values))
    return token


async def new_session_for(store: Store, account_id: str) -> str:
    """A new session (its token) for an existing account."""
    return await _new_token(store, SessionRow, account_id, last_seen_at=now())


async def revoke_sessions(store: Store, account_id: str, *, keep: str | None = None) -> int:
    """End every session of an account (but the one whose token is ``keep``)."""
    async with store.sessions() as s, s.begin():
        q = delete(SessionRow).where(SessionRow.account_id == account_id)
        if keep is not None:
            q = q.where(SessionRow.token_hash != token_hash(keep))
        result = await s.execute(q)
        return int(result.rowcount or 0)  # type: ignore[attr-defined]


async def register(store: Store, account_id: str, email: str, password_hash: str) -> bool:
    """Add credentials to a guest account; False when the email is taken."""
    try:
        async with store.sessions() as s, s.begin():
            s.add(
                CredentialRow(
                    account_id=account_id,
                    email=email,
                    password_hash=password_hash,
                    created_at=now(),
                    changed_at=now(),
                )
            )
            await s.flush()
            await s.execute(
                update(AccountRow).where(AccountRow.id == account_id).values(kind="registered")
            )
        return True
    except IntegrityError:
        return False


async def move_device_tables(store: Store, old: str, new: str) -> list[str]:
    """The unfinished offline tables of this browser's previous account go with the browser
    (seed 000: a match stays on the device it was played on): ids of the tables moved."""
    async with store.sessions() as s, s.begin():
        ids = list(
            (
                await s.scalars(
                    select(TableRow.id).where(
                        TableRow.profile == old,
                        TableRow.mode != "online",
                        TableRow.status != "match_over",
                    )
                )
            ).all()
        )
        if ids:
            await s.execute(update(TableRow).where(TableRow.id.in_(ids)).values(profile=new))
        return ids


async def delete_personal_data(store: Store, account_id: str) -> list[str]:
    """Forget an account's person: credentials, name, sessions, tokens, coins, cosmetics,
    ratings and statistics. Match records stay, with the player's name replaced in every
    online table that lists the account (finished, in play after the player left, or
    abandoned); returns those tables' ids."""
    async with store.sessions() as s, s.begin():
        # first: a match ending meanwhile reads this row (ratings) and then waits for the rest
        await s.execute(
            update(AccountRow).where(AccountRow.id == account_id).values(name=None, kind="deleted")
        )
        for model in (
            CredentialRow,
            RecoveryTokenRow,
            EmailTokenRow,
            SessionRow,
            WalletRow,
            OwnedItemRow,
            RatingRow,
        ):
            await s.execute(delete(model).where(model.account_id == account_id))  # type: ignore[attr-defined]
        await s.execute(
            delete(StatsRow).where(
                StatsRow.profile.in_([stats_key(account_id), stats_key(account_id, "online")])
            )
        )
        await s.execute(
            update(ReportRow).where(ReportRow.account_id == account_id).values(account_id=None)
        )
        # a report about the account stays, no longer naming it (``player_named`` says it did)
        await s.execute(
            update(ReportRow)
            .where(ReportRow.player_id == account_id)
            .values(player_id=None, player_name=None)
        )
        # the options' text names the account wherever it sat (its id is "a" and hex digits):
        # a match it left stays in play, and has no match_players row until it ends
        listing = select(TableRow).where(
            TableRow.mode == "online", cast(TableRow.options, String).contains(account_id)
        )
        if not store.url.startswith("sqlite"):  # a table's save waits, not lost under this write
            listing = listing.with_for_update()
        renamed = []
        for row in (await s.scalars(listing)).all():
            options = dict(row.options)
            accounts = (options.get("online") or {}).get("accounts") or []
            seats = [dict(seat) for seat in options.get("seats") or []]
            mine = [seat for seat, holder in enumerate(accounts) if holder == account_id and seat < len(seats)]
            if not mine:
                continue
            for seat in mine:
                seats[seat]["name"] = DELETED_NAME
            options["seats"] = seats
            shown = (options.get("online") or {}).get("ratings")
            if shown:  # the rating change the match's end shows goes with the account
                options["online"] = {
                    **options["online"],
                    "ratings": [None if seat in mine else r for seat, r in enumerate(shown)],
                }
            row.options = options
            renamed.append(row.id)
        return renamed


async def new_recovery_token(store: Store, account_id: str, lifetime: float) -> str:
    expires_at = now() + dt.timedelta(seconds=lifetime)
    return await _new_token(store, RecoveryTokenRow, account_id, expires_at=expires_at)


async def use_recovery_token(store: Store, token: str, password_hash: str) -> str | None:
    """Spend a recovery token on a new password: the account id, or None when the token is
    unknown, used or expired. Spending it also voids the account's other links (a change of
    email waiting to be confirmed among them) and ends its sessions."""
    async with store.sessions() as s, s.begin():
        row = await _spend_token(s, RecoveryTokenRow, token)
        if row is None:
            return None
        await void_links(s, row.account_id)
        await s.execute(
            update(CredentialRow)
            .where(CredentialRow.account_id == row.account_id)
            .values(password_hash=password_hash, changed_at=now())
        )
        await s.execute(delete(SessionRow).where(SessionRow.account_id == row.account_id))
        return row.account_id


class TokenError(Exception):
    """A confirmation link that cannot be used: ``bad_token`` or ``email_in_use``."""

    def __init__(self, code: str) -> None:
        super().__init__(code)
        self.code = code


async def new_email_token(
    store: Store,
    account_id: str,
    purpose: str,
    email: str,
    password_hash: str | None,
    lifetime: float,
) -> str:
    """A link's token confirming ``email`` for an account ("register": with the password's
    hash, bound once confirmed; "email": its new address). It voids the account's earlier
    links, so only the latest one works."""
    return await _new_token(
        store,
        EmailTokenRow,
        account_id,
        replace=True,
        purpose=purpose,
        email=email,
        password_hash=password_hash,
        expires_at=now() + dt.timedelta(seconds=lifetime),
    )


async def pending_email(store: Store, account_id: str) -> str | None:
    """The address an account waits to have confirmed (its latest live link), if any."""
    async with store.sessions() as s:
        row = await s.scalar(
            select(EmailTokenRow)
            .where(EmailTokenRow.account_id == account_id, EmailTokenRow.used_at.is_(None))
            .order_by(EmailTokenRow.created_at.desc())
            .limit(1)
        )
    if row is None or _aware(row.expires_at) < now():
        return None
    return row.email


async def use_email_token(store: Store, token: str) -> tuple[str, str, str, str | None]:
    """Spend a confirmation token: ``(purpose, account id, email, the email it replaced)``.
    A registration binds the email and the password to the guest account that asked (it
    replaced none); a new email replaces the old one. Raises :class:`TokenError`:
    ``bad_token`` (unknown, used, expired, or the account is no longer what it was) or
    ``email_in_use`` (the address was taken since); then nothing changes."""
    try:
        async with store.sessions() as s, s.begin():
            row = await _spend_token(s, EmailTokenRow, token)
            if row is None:
                raise TokenError("bad_token")
            purpose, account_id, email = row.purpose, row.account_id, row.email
            replaced: str | None = None
            if purpose == "register":
                result = await s.execute(
                    update(AccountRow)
                    .where(AccountRow.id == account_id, AccountRow.kind == "guest")
                    .values(kind="registered")
                    .execution_options(synchronize_session=False)
                )
                if result.rowcount != 1 or row.password_hash is None:  # type: ignore[attr-defined]
                    raise TokenError("bad_token")  # registered, merged or deleted since
                s.add(
                    CredentialRow(
                        account_id=account_id,
                        email=email,
                        password_hash=row.password_hash,
                        created_at=now(),
                        changed_at=now(),
                    )
                )
                await s.flush()
            else:
                replaced = await s.scalar(
                    select(CredentialRow.email).where(CredentialRow.account_id == account_id)
                )
                result = await s.execute(
                    update(CredentialRow)
                    .where(CredentialRow.account_id == account_id)
                    .values(email=email, changed_at=now())
                    .execution_options(synchronize_session=False)
                )
                if replaced is None or result.rowcount != 1:  # type: ignore[attr-defined]
                    raise TokenError("bad_token")
                # recovery links went to the address the account has left
                await _void_tokens(s, RecoveryTokenRow, account_id)
            return purpose, account_id, email, replaced
    except IntegrityError as e:  # the email is someone's since the link was sent
        raise TokenError("email_in_use") from e


async def merge_guest_stats(
    store: Store, guest_id: str, account_id: str
) -> dict[str, dict[str, int]] | None:
    """Add a guest's statistics (offline and online) to the account it logged into, once.

    One transaction: the guest account is marked ``merged`` on the condition that it is
    still a guest (of two racing merges one changes the row; a second call finds nothing to
    do: None), each of its statistics rows is added to the account's with SQL expressions
    (the account's own saves may run meanwhile) and deleted. Returns what was added per
    scope. The account keeps its current streak (the two devices' matches interleave
    unknowably) and the better best streak and best hand.
    """
    async with store.sessions() as s, s.begin():
        result = await s.execute(
            update(AccountRow)
            .where(AccountRow.id == guest_id, AccountRow.kind == "guest")
            .values(kind="merged")
            .execution_options(synchronize_session=False)
        )
        if result.rowcount != 1:  # type: ignore[attr-defined]
            return None
        merged: dict[str, dict[str, int]] = {}
        for scope in ("offline", "online"):
            q = select(StatsRow).where(StatsRow.profile == stats_key(guest_id, scope))
            if not store.url.startswith("sqlite"):
                q = q.with_for_update()
            old = await s.scalar(q)
            if old is None:
                continue
            if old.played or old.canastas or old.best_hand is not None:
                key = stats_key(account_id, scope)
                await store.ensure_stats(s, key)
                values: dict[str, Any] = {
                    "played": StatsRow.played + old.played,
                    "won": StatsRow.won + old.won,
                    "canastas": StatsRow.canastas + old.canastas,
                    "best_streak": case(
                        (StatsRow.best_streak < old.best_streak, old.best_streak),
                        else_=StatsRow.best_streak,
                    ),
                    "updated_at": now(),
                }
                if old.best_hand is not None:
                    values["best_hand"] = case(
                        (StatsRow.best_hand.is_(None), old.best_hand),
                        (StatsRow.best_hand < old.best_hand, old.best_hand),
                        else_=StatsRow.best_hand,
                    )
                await s.execute(
                    update(StatsRow)
                    .where(StatsRow.profile == key)
                    .values(**values)
                    .execution_options(synchronize_session=False)
                )
                merged[scope] = {"played": old.played, "won": old.won, "canastas": old.canastas}
            await s.delete(old)
        return merged


def confirmation_mail(
    purpose: str, taken: bool, base: str, token: str, hours: int, lang: str
) -> tuple[str, str]:
    """The subject and text of the mail a registration or a change of email sends: the link
    when the address is free, and a note that it already has an account when it is not (so
    only the address's owner learns which)."""
    if lang == "ja":
        if taken:
            return (
                "Canasta: このメールアドレスのアカウントはすでにあります",
                "このメールアドレスで Canasta のアカウントを登録しようとした人がいます"
                "（あなたかもしれません）が、このアドレスのアカウントはすでにあります。\n\n"
                f"ログインするには {base}/ を開いてください。パスワードを忘れた場合は、"
                "ログイン画面の「パスワードを忘れた場合」から再設定できます。\n\n"
                "心当たりがなければ、このメールは無視してください。\n",
            )
        what = "登録" if purpose == "register" else "メールアドレスの変更"
        return (
            f"Canasta: {what}の確認",
            f"{what}を完了するには、{hours}時間以内に次のリンクを開いてください"
            f"（一度だけ使えます）:\n\n{base}/#confirm={token}\n\n"
            "心当たりがなければ、このメールは無視してください。\n",
        )
    if taken:
        return (
            "Canasta: you already have an account",
            "Someone (perhaps you) tried to use this address for a Canasta account, but it "
            "already has one.\n\n"
            f"To play with it, log in at {base}/ . If you forgot the password, choose "
            '"Forgot password?" there to reset it.\n\n'
            "If you did not ask for this, ignore this message.\n",
        )
    what = "registration" if purpose == "register" else "new email address"
    return (
        "Canasta: confirm your email" if purpose == "register" else "Canasta: confirm your new email",
        f"To confirm your {what}, open this link within {hours} hours (it works once):\n\n"
        f"{base}/#confirm={token}\n\n"
        "If you did not ask for this, ignore this message.\n",
    )


def masked_email(email: str) -> str:
    """An address shown to someone who may not own it: its first letter, then dots, then
    the domain (``p…@example.com``)."""
    local, _, domain = email.partition("@")
    return f"{local[:1]}…@{domain}"


def email_changed_mail(new: str, base: str, lang: str) -> tuple[str, str]:
    """The subject and text of the notice sent to an account's old address once a change of
    its email is confirmed: the old address can no longer log in or recover the account, so
    its owner is told, with the new address masked. The change may be confirmed from any
    browser, in a language its owner never chose: the notice says it in both, the confirming
    page's first."""
    shown = masked_email(new)
    words = {
        "ja": (
            "メールアドレスが変更されました",
            f"あなたの Canasta アカウントのメールアドレスは {shown} に変更されました。"
            "このアドレスでは、もうログインもパスワードの再設定もできません。\n\n"
            f"心当たりがあれば、このメールは無視してください。心当たりがなければ、{base}/ の"
            "運営者に連絡してください。\n",
        ),
        "en": (
            "your email address was changed",
            f"The email address of your Canasta account was changed to {shown}. This address "
            "can no longer be used to log in or to reset the password.\n\n"
            "If you made this change, ignore this message. If you did not, contact the operator "
            f"of {base}/ .\n",
        ),
    }
    first, second = (words["ja"], words["en"]) if lang == "ja" else (words["en"], words["ja"])
    return f"Canasta: {first[0]} / {second[0]}", f"{first[1]}\n----\n\n{second[1]}"


# ---------------------------------------------------------------------- routes


def install(
    app: FastAPI,
    *,
    store: Store,
    tables: Tables,
    lobby: Lobby,
    config: ServerConfig,
    require_account: Callable[[Request], Awaitable[AccountRow]],
    sessions_ended: Callable[..., Awaitable[None]] | None = None,
    jobs: dict[str, tuple[float, Callable[[], Awaitable[object]]]] | None = None,
) -> None:
    """Add the account, profile, leaderboard, shop and report routes to ``app``, and the
    rating of finished quick matches to ``tables``. ``sessions_ended(account, keep=token,
    only=token)`` closes the sockets opened with sessions that ended here; ``jobs`` takes the
    upkeep to repeat (name: (seconds, job)): the purge of sessions and guests nobody can use."""

    async def ended(account_id: str, *, keep: str | None = None, only: str | None = None) -> None:
        if sessions_ended is not None:
            await sessions_ended(account_id, keep=keep, only=only)

    from .app import (
        SESSION_COOKIE,
        ApiError,
        _json_body,
        display_name,
        session_token,
        set_session_cookie,
    )

    smtp = SmtpServer.from_url(config.smtp_url) if config.smtp_url else None
    per_address = Limiter(config.auth_per_minute_per_address, 60)
    # failed logins only: per email from one address, and per email from every address
    failed_here = Limiter(config.login_failures_per_hour_per_email_and_address, 3600)
    failed_anywhere = Limiter(config.login_failures_per_hour_per_email, 3600)
    registrations = Limiter(config.registrations_per_hour_per_address, 3600)
    recover_address = Limiter(config.recoveries_per_hour_per_address, 3600)
    recover_email = Limiter(config.recoveries_per_hour_per_email, 3600)
    confirm_email = Limiter(config.emails_per_hour_per_email, 3600)
    pending_mail: set[asyncio.Task[None]] = set()

    rater = ratings.Ratings(store)
    tables.match_over_listeners.append(rater.match_over)
    lobby.pick_groups = rater.pick_groups

    def address(request: Request) -> str:
        return client_address(request.scope)

    def limit(limiter: Limiter, key: str, code: str, what: str) -> None:
        if not limiter.allow(key):
            raise ApiError(429, code, f"too many {what}: try again later")

    def set_cookie(request: Request, response: Response, token: str) -> None:
        set_session_cookie(request, response, token, config)

    def clear_cookie(request: Request, response: Response) -> None:
        response.delete_cookie(
            SESSION_COOKIE,
            path="/",
            httponly=True,
            samesite="lax",
            secure=config.secure_cookies or request.url.scheme == "https",
        )

    async def account_json(account: AccountRow) -> dict[str, Any]:
        cred = await credentials(store, account.id)
        wallet = await economy.wallet(store, account.id)
        return {
            "id": account.id,
            "kind": account.kind,
            "name": display_name(account),
            "email": cred.email if cred is not None else None,
            # the address waiting for its confirmation link (the same whether it is free)
            "pending_email": await pending_email(store, account.id) if smtp else None,
            "coins": wallet["coins"],
            "cosmetics": wallet["equipped"],
        }

    def registration_mode() -> str:
        if smtp is not None:
            return "confirm"
        return "open" if config.registration_without_smtp else "unavailable"

    def mail_later(job: Coroutine[Any, Any, None]) -> None:
        """Send a mail after the answer: its timing says nothing either."""
        task = asyncio.get_running_loop().create_task(job)
        pending_mail.add(task)
        task.add_done_callback(pending_mail.discard)

    async def mail_confirmation(purpose: str, to: str, token: str, base: str, lang: str) -> None:
        assert smtp is not None
        taken = await credentials_by_email(store, to) is not None
        hours = max(1, int(config.confirm_seconds // 3600))
        await notify(to, *confirmation_mail(purpose, taken, base, token, hours, lang))

    async def notify(to: str, subject: str, text: str) -> None:
        assert smtp is not None
        try:
            await send(smtp, message(config.smtp_from, to, subject, text))
        except MailError as e:
            log.error("email not sent (%s): %s", subject, e)

    def lang_of(body: dict[str, Any]) -> str:
        return "ja" if body.get("lang") == "ja" else "en"

    async def adopt_device(request: Request, account_id: str) -> dict[str, Any] | None:
        """This browser now holds ``account_id``: when its previous session was another
        account's, its unfinished offline tables go with the browser and a guest's statistics
        are added to the account (once); then that session ends. What was added, if anything.

        In that order: a guest keeps its session until it is merged, so the upkeep's purge
        (which takes only guests without a session) never takes one that is logging in."""
        old_token = session_token(request)
        old = None
        if old_token:
            old = await store.session_account(old_token) if len(old_token) <= 100 else None
        merged = None
        if old is not None and old.id != account_id:
            await move_device_tables(store, old.id, account_id)
            tables.reassign(old.id, account_id)
            if old.kind == "guest":
                merged = await merge_guest_stats(store, old.id, account_id) or None
        if old_token:
            async with store.sessions() as s, s.begin():
                await s.execute(
                    delete(SessionRow).where(SessionRow.token_hash == token_hash(old_token))
                )
            if old is not None:  # its sockets reconnect as the account this browser holds now
                await ended(old.id, only=old_token)
        return merged

    async def registered(request: Request) -> tuple[AccountRow, CredentialRow]:
        account = await require_account(request)
        cred = await credentials(store, account.id)
        if cred is None:
            raise ApiError(403, "not_registered", "register this account first")
        return account, cred

    async def confirm_password(cred: CredentialRow, body: dict[str, Any], field: str) -> None:
        given = body.get(field)
        if not isinstance(given, str) or not await verify_password(cred.password_hash, given):
            raise ApiError(401, "bad_credentials", "the password is wrong")

    @app.get("/api/account")
    async def get_account(request: Request) -> dict[str, Any]:
        """This browser's account: name, kind, email, coins and chosen cosmetics."""
        account = await require_account(request)
        return {
            "account": await account_json(account),
            "recovery": smtp is not None,
            "registration": registration_mode(),
        }

    @app.post("/api/account/register")
    async def register_account(request: Request, response: Response) -> dict[str, Any]:
        """Register this guest account. With SMTP the answer is always 202 "check your mail"
        (``pending_email``): a confirmation link goes to a free address, and a note that it
        has an account already to a taken one; the email and password count once the link
        is opened. Without SMTP: registered at once (see ``registration_without_smtp``)."""
        body = await _json_body(request)
        account = await require_account(request)
        limit(per_address, address(request), "too_many_attempts", "attempts from this address")
        limit(registrations, address(request), "too_many_registrations", "registrations")
        if account.kind != "guest":
            raise ApiError(409, "already_registered", "this account is already registered")
        email = normalise_email(body.get("email"))
        password = check_password(body.get("password"))
        if smtp is not None:
            limit(confirm_email, email, "too_many_emails", "emails to this address")
            token = await new_email_token(
                store, account.id, "register", email, await hash_password(password),
                config.confirm_seconds,
            )  # fmt: skip
            # the same work and the same answer whether or not the address is taken
            mail_later(mail_confirmation("register", email, token, link_base(request), lang_of(body)))
            response.status_code = 202
            return {"account": await account_json(account), "pending": "check_mail"}
        if not config.registration_without_smtp:
            raise ApiError(
                503, "registration_unavailable", "this server cannot send email to confirm one"
            )
        if not await register(store, account.id, email, await hash_password(password)):
            # said the same way whatever the reason, and limited per address: see the docs
            raise ApiError(
                409,
                "registration_refused",
                "this email and password cannot be registered: log in instead, "
                "or use another email",
            )
        account.kind = "registered"
        return {"account": await account_json(account)}

    @app.post("/api/account/confirm")
    async def confirm_email_link(request: Request) -> dict[str, Any]:
        """Open a confirmation link (from any browser): the registration or the new email
        takes effect. ``account`` is this browser's account when it is the one confirmed."""
        body = await _json_body(request)
        limit(per_address, address(request), "too_many_attempts", "attempts from this address")
        token = body.get("token")
        if not isinstance(token, str) or not _RECOVERY_TOKEN.fullmatch(token):
            raise ApiError(400, "bad_token", "this link is not valid (used, expired or wrong)")
        try:
            purpose, account_id, email, replaced = await use_email_token(store, token)
        except TokenError as e:
            if e.code == "email_in_use":
                raise ApiError(
                    409, "email_in_use", "this address has an account already: log in with it"
                ) from e
            raise ApiError(
                400, "bad_token", "this link is not valid (used, expired or wrong)"
            ) from e
        if replaced is not None and smtp is not None:
            # the old address is told: whoever changed it may not be its owner
            subject, text = email_changed_mail(email, link_base(request), lang_of(body))
            mail_later(notify(replaced, subject, text))
        try:
            mine: AccountRow | None = await require_account(request)
        except ApiError:
            mine = None
        here = mine is not None and mine.id == account_id
        if here:
            assert mine is not None
            async with store.sessions() as s:
                mine = await s.get(AccountRow, account_id)
        return {
            "confirmed": purpose,
            "email": email,
            "account": await account_json(mine) if here and mine is not None else None,
        }

    @app.post("/api/account/login")
    async def login(request: Request, response: Response) -> dict[str, Any]:
        body = await _json_body(request)
        limit(per_address, address(request), "too_many_attempts", "attempts from this address")
        email = normalise_email(body.get("email"))
        password = body.get("password")
        if not isinstance(password, str) or len(password) > PASSWORD_MAX:
            raise ApiError(400, "bad_password", "password is a string")
        # Only failures count against an email, and mostly those from the same address: a
        # stranger guessing from elsewhere cannot lock the owner out with a few wrong tries.
        # An attempt takes its token before the password is checked (so attempts sent at once
        # cannot all pass a check that has not counted them yet), and a success gives it back.
        here = f"{email} {address(request)}"
        if not failed_here.allow(here):
            raise ApiError(429, "too_many_attempts", "too many attempts for this email: try again later")
        if not failed_anywhere.allow(email):
            failed_here.refund(here)
            raise ApiError(429, "too_many_attempts", "too many attempts for this email: try again later")
        cred = await credentials_by_email(store, email)
        if not await verify_password(cred.password_hash if cred else None, password):
            raise ApiError(401, "bad_credentials", "the email or the password is wrong")
        failed_here.refund(here)
        failed_anywhere.refund(email)
        assert cred is not None
        if hasher.check_needs_rehash(cred.password_hash):
            async with store.sessions() as s, s.begin():
                await s.execute(
                    update(CredentialRow)
                    .where(CredentialRow.account_id == cred.account_id)
                    .values(password_hash=await hash_password(password))
                )
        merged = await adopt_device(request, cred.account_id)
        token = await new_session_for(store, cred.account_id)
        set_cookie(request, response, token)
        async with store.sessions() as s:
            account = await s.get(AccountRow, cred.account_id)
        assert account is not None
        return {"account": await account_json(account), "merged": merged}

    @app.post("/api/account/logout")
    async def logout(request: Request, response: Response) -> dict[str, Any]:
        """End this browser's session (the page then starts a guest one)."""
        await _json_body(request)
        token = session_token(request)
        if token:
            account = await store.session_account(token) if len(token) <= 100 else None
            async with store.sessions() as s, s.begin():
                await s.execute(
                    delete(SessionRow).where(SessionRow.token_hash == token_hash(token))
                )
            if account is not None:
                await ended(account.id, only=token)
        clear_cookie(request, response)
        return {"revoked": 1 if token else 0}

    @app.post("/api/account/logout-all")
    async def logout_all(request: Request, response: Response) -> dict[str, Any]:
        """End every session of the account, this browser's too."""
        await _json_body(request)
        account = await require_account(request)
        count = await revoke_sessions(store, account.id)
        async with store.sessions() as s, s.begin():
            await void_links(s, account.id)
        await ended(account.id)
        clear_cookie(request, response)
        return {"revoked": count}

    @app.post("/api/account/password")
    async def change_password(request: Request) -> dict[str, Any]:
        body = await _json_body(request)
        account, cred = await registered(request)
        limit(per_address, address(request), "too_many_attempts", "attempts from this address")
        await confirm_password(cred, body, "current")
        new_hash = await hash_password(check_password(body.get("password")))
        async with store.sessions() as s, s.begin():
            await s.execute(
                update(CredentialRow)
                .where(CredentialRow.account_id == account.id)
                .values(password_hash=new_hash, changed_at=now())
            )
            await void_links(s, account.id)
        # a changed password ends the other devices' sessions (and, above, every link)
        keep = session_token(request)
        revoked = await revoke_sessions(store, account.id, keep=keep)
        await ended(account.id, keep=keep)
        return {"account": await account_json(account), "revoked": revoked}

    @app.post("/api/account/email")
    async def change_email(request: Request, response: Response) -> dict[str, Any]:
        body = await _json_body(request)
        account, cred = await registered(request)
        limit(per_address, address(request), "too_many_attempts", "attempts from this address")
        await confirm_password(cred, body, "password")
        email = normalise_email(body.get("email"))
        if email == cred.email:
            raise ApiError(400, "same_email", "this is your email already")
        if smtp is not None:
            # the new address is confirmed first, and answered the same whether it is taken
            limit(confirm_email, email, "too_many_emails", "emails to this address")
            token = await new_email_token(
                store, account.id, "email", email, None, config.confirm_seconds
            )
            mail_later(mail_confirmation("email", email, token, link_base(request), lang_of(body)))
            response.status_code = 202
            return {"account": await account_json(account), "pending": "check_mail"}
        try:
            async with store.sessions() as s, s.begin():
                await s.execute(
                    update(CredentialRow)
                    .where(CredentialRow.account_id == account.id)
                    .values(email=email, changed_at=now())
                )
        except IntegrityError as e:
            raise ApiError(
                409, "registration_refused", "this email cannot be used: choose another"
            ) from e
        return {"account": await account_json(account)}

    def link_base(request: Request) -> str:
        """Where mailed links point: the configured public address, else the host name the
        request was sent to, which is one of ``allowed_hosts`` (``create_app`` refuses email
        with neither: a Host header alone would let anyone point a victim's reset link at
        their own site)."""
        if config.public_url:
            return config.public_url.rstrip("/")
        assert config.allowed_hosts, "create_app refuses email without public_url or allowed_hosts"
        parts = urlsplit(str(request.base_url))
        return f"{parts.scheme}://{parts.netloc}"

    async def mail_token(to: str, account_id: str, base: str, lang: str) -> None:
        assert smtp is not None
        token = await new_recovery_token(store, account_id, config.recovery_seconds)
        minutes = int(config.recovery_seconds // 60)
        if lang == "ja":
            subject = "Canasta: パスワードの再設定"
            text = (
                f"パスワードを再設定するには、{minutes}分以内に次のリンクを開いてください"
                f"（一度だけ使えます）:\n\n{base}/#reset={token}\n\n"
                "心当たりがなければ、このメールは無視してください。\n"
            )
        else:
            subject = "Canasta: reset your password"
            text = (
                f"To choose a new password, open this link within {minutes} minutes "
                f"(it works once):\n\n{base}/#reset={token}\n\n"
                "If you did not ask for this, ignore this message.\n"
            )
        await notify(to, subject, text)

    @app.post("/api/account/forgot", status_code=202)
    async def forgot(request: Request) -> dict[str, Any]:
        """Send a recovery link if the email belongs to an account: the answer is the same
        either way, and the mail leaves after it (its timing says nothing either)."""
        body = await _json_body(request)
        if smtp is None:
            raise ApiError(503, "recovery_unavailable", "this server cannot send email")
        email = normalise_email(body.get("email"))
        limit(recover_address, address(request), "too_many_recoveries", "recovery requests")
        limit(recover_email, email, "too_many_recoveries", "recovery requests for this email")
        cred = await credentials_by_email(store, email)
        if cred is not None:
            mail_later(mail_token(cred.email, cred.account_id, link_base(request), lang_of(body)))
        return {"sent": "if_registered"}

    @app.post("/api/account/reset")
    async def reset(request: Request, response: Response) -> dict[str, Any]:
        body = await _json_body(request)
        limit(per_address, address(request), "too_many_attempts", "attempts from this address")
        token = body.get("token")
        if not isinstance(token, str) or not _RECOVERY_TOKEN.fullmatch(token):
            raise ApiError(400, "bad_token", "this link is not valid (used, expired or wrong)")
        new_hash = await hash_password(check_password(body.get("password")))
        account_id = await use_recovery_token(store, token, new_hash)
        if account_id is None:
            raise ApiError(400, "bad_token", "this link is not valid (used, expired or wrong)")
        await ended(account_id)  # every session ended with the reset
        merged = await adopt_device(request, account_id)
        set_cookie(request, response, await new_session_for(store, account_id))
        async with store.sessions() as s:
            account = await s.get(AccountRow, account_id)
        assert account is not None
        return {"account": await account_json(account), "merged": merged}

    @app.delete("/api/account")
    async def delete_account(request: Request, response: Response) -> dict[str, Any]:
        """Delete the account's personal data; its match records stay, anonymised."""
        body = await _json_body(request)
        account = await require_account(request)
        if body.get("confirm") is not True:
            raise ApiError(400, "confirm_required", 'send {"confirm": true}')
        cred = await credentials(store, account.id)
        if cred is not None:
            limit(per_address, address(request), "too_many_attempts", "attempts")
            await confirm_password(cred, body, "password")
        current = getattr(lobby, "_current_match", None)
        if current is not None and current(account.id):
            raise ApiError(409, "in_match", "finish or leave your online match first")
        await erase(account.id)
        clear_cookie(request, response)
        return {"deleted": True}

    async def erase(account_id: str) -> list[str]:
        """Forget an account's person (:func:`delete_personal_data`); the online tables that
        list it, which it returns, show the seat renamed."""
        await lobby.forget(account_id)
        renamed = await delete_personal_data(store, account_id)
        # the tables in memory rename the seat themselves (saved and sent as a change: a later
        # save of theirs keeps the new name), a match the player left playing on; with several
        # nodes the owner of each is told, and a table loaded later checks for itself
        here = {t.id: t for t in tables.online_tables()}
        saving = []
        for table_id in renamed:
            table = here.get(table_id)
            if table is not None:
                saving.append(table.forget_account(account_id, DELETED_NAME))
            elif tables.cluster.distributed:
                with contextlib.suppress(Exception):  # Redis away: the table renames itself when next loaded
                    await tables.cluster.publish(
                        RedisCluster.in_channel(f"table:{table_id}"),
                        {"op": "forget", "node": tables.cluster.node, "conn": "-",
                         "account": account_id, "name": DELETED_NAME},
                    )
        await ended(account_id)
        if saving:  # answered once the tables here show the new name
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.gather(*saving), timeout=5.0)
        return renamed

    async def purge() -> int:
        """Upkeep: sessions unused for longer than a session lives are deleted, and so are the
        sessions of guests that never played (no table, statistics, coins or match: a name
        alone is not kept) and were not seen for ``empty_guest_seconds``; then every guest nobody can
        reach any more goes (a guest has no password: one without a live session is
        nobody's). Such a guest's personal data goes as a deleted account's does, with its
        games against the computer and at pass-and-play; its finished online matches stay,
        anonymised. A bounded batch each run; a guest with a table still in this node's
        memory waits for the next run. Returns how many guests went."""
        current = now()
        idle_before = current - dt.timedelta(seconds=config.empty_guest_seconds)
        empty = (
            select(AccountRow.id)
            .where(
                AccountRow.kind == "guest",
                AccountRow.created_at < idle_before,
                ~exists().where(SessionRow.account_id == AccountRow.id, SessionRow.last_seen_at >= idle_before),
                ~exists().where(TableRow.profile == AccountRow.id),
                ~exists().where(StatsRow.profile == AccountRow.id),
                ~exists().where(StatsRow.profile == literal("online:", String) + AccountRow.id),
                ~exists().where(WalletRow.account_id == AccountRow.id),
                ~exists().where(MatchPlayerRow.account_id == AccountRow.id),
            )
            .limit(PURGE_BATCH)
        )
        async with store.sessions() as s, s.begin():
            await s.execute(delete(SessionRow).where(SessionRow.last_seen_at < current - SESSION_LIFETIME))
            idle = (await s.scalars(empty)).all()
            if idle:  # (a guest back meanwhile keeps the session it used)
                await s.execute(
                    delete(SessionRow).where(
                        SessionRow.account_id.in_(idle), SessionRow.last_seen_at < idle_before
                    )
                )
        if idle:  # their sockets, if any were still open, close
            for account_id in idle:
                await ended(account_id)
        made_before = current - dt.timedelta(seconds=config.orphan_guest_seconds)
        async with store.sessions() as s:
            orphans = (
                await s.scalars(
                    select(AccountRow.id)
                    .where(
                        AccountRow.kind == "guest",
                        AccountRow.created_at < made_before,
                        ~exists().where(SessionRow.account_id == AccountRow.id),
                    )
                    .limit(PURGE_BATCH)
                )
            ).all()
        playing = getattr(lobby, "_current_match", None)
        gone = 0
        for account_id in orphans:
            if playing is not None and playing(account_id):
                continue  # an online match it left plays on: renamed once it is over
            async with store.sessions() as s:
                own = (
                    await s.execute(
                        select(TableRow.id, TableRow.updated_at).where(
                            TableRow.profile == account_id, TableRow.mode.in_(OFFLINE_MODES)
                        )
                    )
                ).all()
            if any(tables.peek(t) is not None or _aware(at) > made_before for t, at in own):
                continue  # a table of its still in memory, or changed lately: next time
            # taken only if it is still a guest with no session (a login that adopts it keeps
            # its session until the guest is merged: see adopt_device), in one statement
            async with store.sessions() as s, s.begin():
                claimed = await s.execute(
                    update(AccountRow)
                    .where(
                        AccountRow.id == account_id,
                        AccountRow.kind == "guest",
                        ~exists().where(SessionRow.account_id == AccountRow.id),
                    )
                    .values(kind="deleted")
                    .execution_options(synchronize_session=False)
                )
            if claimed.rowcount != 1:  # type: ignore[attr-defined]
                continue
            renamed = await erase(account_id)
            async with store.sessions() as s, s.begin():
                ids = (
                    await s.scalars(
                        select(TableRow.id).where(
                            TableRow.profile == account_id, TableRow.mode.in_(OFFLINE_MODES)
                        )
                    )
                ).all()
                if ids:
                    await s.execute(delete(TableLogRow).where(TableLogRow.table_id.in_(ids)))
                    await s.execute(delete(TableRow).where(TableRow.id.in_(ids)))
                played = await s.scalar(select(exists().where(MatchPlayerRow.account_id == account_id)))
                if not renamed and not played:  # nothing names it any more: the row goes too
                    await s.execute(delete(AccountRow).where(AccountRow.id == account_id))
            gone += 1
        if gone:
            log.info("purged %d guest account(s) nobody can use any more", gone)
        return gone

    async def purge_all() -> int:
        """The purge in batches until it is done or ``PURGE_SECONDS`` have gone (the rest waits
        for the next run)."""
        started, gone = time.monotonic(), 0
        while True:
            n = await purge()
            gone += n
            if n < PURGE_BATCH or time.monotonic() - started > PURGE_SECONDS:
                return gone

    app.state.purge_guests = purge_all  # (the tests run it at once)
    if jobs is not None:
        jobs["guest-purge"] = (config.purge_seconds, purge_all)

    economy.install(app, store=store, require_account=require_account)
    ratings.install(app, store=store, require_account=require_account)
    reports.install(app, store=store, tables=tables, config=config, require_account=require_account)
