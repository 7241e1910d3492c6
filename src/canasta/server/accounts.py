"""Registered accounts: register, log in and out (everywhere), change password or email,
recovery by email, delete; and the routes of ratings, coins and reports.

A guest account (``POST /api/session``) becomes registered with an email and a password; the
password is hashed with Argon2id (``argon2-cffi``). Logging in makes a new session for the
registered account in this browser: the same statistics, ratings, coins and cosmetics on every
device. No answer says whether an email is registered: a failed login is ``bad_credentials``
whatever failed, and "forgot password" always answers the same.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import logging
import re
import secrets
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from fastapi import FastAPI, Request, Response
from sqlalchemy import delete, select, update
from sqlalchemy.exc import IntegrityError

from . import economy, ratings, reports
from .db import (
    AccountRow,
    SessionRow,
    StatsRow,
    Store,
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
    MatchPlayerRow,
    OwnedItemRow,
    RatingRow,
    RecoveryTokenRow,
    ReportRow,
    WalletRow,
)
from .security import client_address

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable

    from .config import ServerConfig
    from .lobby import Lobby
    from .tables import Tables

log = logging.getLogger("canasta.accounts")

PASSWORD_MIN = 8
PASSWORD_MAX = 128
EMAIL_MAX = 254
_EMAIL = re.compile(r"[^@\s]{1,64}@[^@\s.]+(\.[^@\s.]+)+")
#: recovery tokens are ``secrets.token_urlsafe(32)``
_RECOVERY_TOKEN = re.compile(r"[A-Za-z0-9_-]{40,50}")
DELETED_NAME = "Deleted player"

#: Argon2id with argon2-cffi's defaults (RFC 9106's second recommended profile)
hasher = PasswordHasher()
#: verified against when no account has the email, so a miss costs what a hit costs
_DUMMY_HASH = hasher.hash(secrets.token_urlsafe(16))


class Limiter:
    """Token buckets by key: ``count`` events per ``seconds``, all of them at once at most."""

    def __init__(self, count: int, seconds: float, *, max_keys: int = 100_000) -> None:
        self.count = count
        self.seconds = seconds
        self.max_keys = max_keys
        self._buckets: dict[str, TokenBucket] = {}

    def allow(self, key: str) -> bool:
        bucket = self._buckets.get(key)
        if bucket is None:
            if len(self._buckets) >= self.max_keys:
                self._buckets.pop(next(iter(self._buckets)))
            bucket = self._buckets[key] = TokenBucket(self.count / self.seconds, self.count)
        return bucket.take()


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


async def new_session_for(store: Store, account_id: str) -> str:
    """A new session (its token) for an existing account."""
    token = secrets.token_urlsafe(32)
    async with store.sessions() as s, s.begin():
        s.add(
            SessionRow(
                token_hash=token_hash(token),
                account_id=account_id,
                created_at=now(),
                last_seen_at=now(),
            )
        )
    return token


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


async def delete_personal_data(store: Store, account_id: str) -> None:
    """Forget an account's person: credentials, name, sessions, tokens, coins, cosmetics,
    ratings and statistics. Match records stay, with the player's name replaced."""
    async with store.sessions() as s, s.begin():
        for model in (
            CredentialRow,
            RecoveryTokenRow,
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
        await s.execute(
            update(AccountRow).where(AccountRow.id == account_id).values(name=None, kind="deleted")
        )
        played = (
            await s.scalars(
                select(MatchPlayerRow.table_id).where(MatchPlayerRow.account_id == account_id)
            )
        ).all()
        for row in (await s.scalars(select(TableRow).where(TableRow.id.in_(list(played))))).all():
            options = dict(row.options)
            accounts = (options.get("online") or {}).get("accounts") or []
            seats = [dict(seat) for seat in options.get("seats") or []]
            for seat, holder in enumerate(accounts):
                if holder == account_id and seat < len(seats):
                    seats[seat]["name"] = DELETED_NAME
            options["seats"] = seats
            row.options = options


async def new_recovery_token(store: Store, account_id: str, lifetime: float) -> str:
    token = secrets.token_urlsafe(32)
    async with store.sessions() as s, s.begin():
        s.add(
            RecoveryTokenRow(
                token_hash=token_hash(token),
                account_id=account_id,
                expires_at=now() + dt.timedelta(seconds=lifetime),
                created_at=now(),
            )
        )
    return token


async def use_recovery_token(store: Store, token: str, password_hash: str) -> str | None:
    """Spend a recovery token on a new password: the account id, or None when the token is
    unknown, used or expired. Spending it also voids the account's other tokens."""
    async with store.sessions() as s, s.begin():
        row = await s.get(RecoveryTokenRow, token_hash(token))
        if row is None or row.used_at is not None or _aware(row.expires_at) < now():
            return None
        # a conditional update: of two racing uses of one token, one changes a row
        result = await s.execute(
            update(RecoveryTokenRow)
            .where(
                RecoveryTokenRow.token_hash == row.token_hash, RecoveryTokenRow.used_at.is_(None)
            )
            .values(used_at=now())
            .execution_options(synchronize_session=False)
        )
        if result.rowcount != 1:  # type: ignore[attr-defined]
            return None
        await s.execute(
            update(RecoveryTokenRow)
            .where(
                RecoveryTokenRow.account_id == row.account_id, RecoveryTokenRow.used_at.is_(None)
            )
            .values(used_at=now())
            .execution_options(synchronize_session=False)
        )
        await s.execute(
            update(CredentialRow)
            .where(CredentialRow.account_id == row.account_id)
            .values(password_hash=password_hash, changed_at=now())
        )
        await s.execute(delete(SessionRow).where(SessionRow.account_id == row.account_id))
        return row.account_id


# ---------------------------------------------------------------------- routes


def install(
    app: FastAPI,
    *,
    store: Store,
    tables: Tables,
    lobby: Lobby,
    config: ServerConfig,
    require_account: Callable[[Request], Awaitable[AccountRow]],
) -> None:
    """Add the account, profile, leaderboard, shop and report routes to ``app``, and the
    rating of finished quick matches to ``tables``."""
    from .app import SESSION_COOKIE, SESSION_MAX_AGE, ApiError, _json_body, display_name

    smtp = SmtpServer.from_url(config.smtp_url) if config.smtp_url else None
    per_address = Limiter(config.auth_per_minute_per_address, 60)
    per_email = Limiter(config.logins_per_hour_per_email, 3600)
    registrations = Limiter(config.registrations_per_hour_per_address, 3600)
    recover_address = Limiter(config.recoveries_per_hour_per_address, 3600)
    recover_email = Limiter(config.recoveries_per_hour_per_email, 3600)
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
        response.set_cookie(
            SESSION_COOKIE,
            token,
            max_age=SESSION_MAX_AGE,
            httponly=True,
            samesite="lax",
            secure=config.secure_cookies or request.url.scheme == "https",
            path="/",
        )

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
            "coins": wallet["coins"],
            "cosmetics": wallet["equipped"],
        }

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
        return {"account": await account_json(account), "recovery": smtp is not None}

    @app.post("/api/account/register")
    async def register_account(request: Request) -> dict[str, Any]:
        body = await _json_body(request)
        account = await require_account(request)
        limit(per_address, address(request), "too_many_attempts", "attempts from this address")
        limit(registrations, address(request), "too_many_registrations", "registrations")
        if account.kind != "guest":
            raise ApiError(409, "already_registered", "this account is already registered")
        email = normalise_email(body.get("email"))
        password = check_password(body.get("password"))
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

    @app.post("/api/account/login")
    async def login(request: Request, response: Response) -> dict[str, Any]:
        body = await _json_body(request)
        limit(per_address, address(request), "too_many_attempts", "attempts from this address")
        email = normalise_email(body.get("email"))
        password = body.get("password")
        if not isinstance(password, str) or len(password) > PASSWORD_MAX:
            raise ApiError(400, "bad_password", "password is a string")
        limit(per_email, email, "too_many_attempts", "attempts for this email")
        cred = await credentials_by_email(store, email)
        if not await verify_password(cred.password_hash if cred else None, password):
            raise ApiError(401, "bad_credentials", "the email or the password is wrong")
        assert cred is not None
        if hasher.check_needs_rehash(cred.password_hash):
            async with store.sessions() as s, s.begin():
                await s.execute(
                    update(CredentialRow)
                    .where(CredentialRow.account_id == cred.account_id)
                    .values(password_hash=await hash_password(password))
                )
        old_token = request.cookies.get(SESSION_COOKIE)
        old = None
        if old_token:
            old = await store.session_account(old_token) if len(old_token) <= 100 else None
            async with store.sessions() as s, s.begin():
                await s.execute(
                    delete(SessionRow).where(SessionRow.token_hash == token_hash(old_token))
                )
        if old is not None and old.id != cred.account_id:
            await move_device_tables(store, old.id, cred.account_id)
            tables.reassign(old.id, cred.account_id)
        token = await new_session_for(store, cred.account_id)
        set_cookie(request, response, token)
        async with store.sessions() as s:
            account = await s.get(AccountRow, cred.account_id)
        assert account is not None
        return {"account": await account_json(account)}

    @app.post("/api/account/logout")
    async def logout(request: Request, response: Response) -> dict[str, Any]:
        """End this browser's session (the page then starts a guest one)."""
        await _json_body(request)
        token = request.cookies.get(SESSION_COOKIE)
        if token:
            async with store.sessions() as s, s.begin():
                await s.execute(
                    delete(SessionRow).where(SessionRow.token_hash == token_hash(token))
                )
        clear_cookie(request, response)
        return {"revoked": 1 if token else 0}

    @app.post("/api/account/logout-all")
    async def logout_all(request: Request, response: Response) -> dict[str, Any]:
        """End every session of the account, this browser's too."""
        await _json_body(request)
        account = await require_account(request)
        count = await revoke_sessions(store, account.id)
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
        # a changed password ends the other devices' sessions
        revoked = await revoke_sessions(store, account.id, keep=request.cookies.get(SESSION_COOKIE))
        return {"account": await account_json(account), "revoked": revoked}

    @app.post("/api/account/email")
    async def change_email(request: Request) -> dict[str, Any]:
        body = await _json_body(request)
        account, cred = await registered(request)
        limit(per_address, address(request), "too_many_attempts", "attempts from this address")
        await confirm_password(cred, body, "password")
        email = normalise_email(body.get("email"))
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
        if config.public_url:
            return config.public_url.rstrip("/")
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
        try:
            await send(smtp, message(config.smtp_from, to, subject, text))
        except MailError as e:
            log.error("recovery email not sent: %s", e)

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
            lang = body.get("lang") if body.get("lang") in ("en", "ja") else "en"
            task = asyncio.get_running_loop().create_task(
                mail_token(cred.email, cred.account_id, link_base(request), str(lang))
            )
            pending_mail.add(task)
            task.add_done_callback(pending_mail.discard)
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
        set_cookie(request, response, await new_session_for(store, account_id))
        async with store.sessions() as s:
            account = await s.get(AccountRow, account_id)
        assert account is not None
        return {"account": await account_json(account)}

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
        await delete_personal_data(store, account.id)
        clear_cookie(request, response)
        return {"deleted": True}

    economy.install(app, store=store, require_account=require_account)
    ratings.install(app, store=store, require_account=require_account)
    reports.install(app, store=store, tables=tables, config=config, require_account=require_account)
