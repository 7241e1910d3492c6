"""The FastAPI application: HTTP endpoints, the table websocket and the static client."""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import logging
import math
import re
import unicodedata
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request, Response, WebSocket
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, HTMLResponse, JSONResponse
from fastapi.staticfiles import StaticFiles
from sqlalchemy.exc import SQLAlchemyError
from starlette.datastructures import Headers
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.middleware.gzip import GZipMiddleware
from starlette.requests import HTTPConnection
from starlette.staticfiles import NotModifiedResponse

from ..cards import IS_WILD, MELD_TOKENS, NUM_CODES, card_str
from ..errors import SettingsError
from ..game import match_won
from ..rules import PRESETS, TARGETS, Settings
from .cluster import LocalCluster, RedisCluster
from .compact import strip_css, strip_js
from .config import MAX_BODY_BYTES, ServerConfig
from .conn import CLOSE_SESSION_ENDED, CLOSE_TRY_AGAIN, Conn, SessionSockets
from .db import AccountRow, Store, TableRow, resolve_db_url, stats_key, token_hash
from .forwarding import Forwarding
from .limits import Counter, KeyedLimiter
from .lobby import Lobby
from .metrics import CONTENT_TYPE_LATEST
from .players import LEVELS, own_team, owner_seat
from .progress import break_streak, set_aside, set_aside_unfinished, unfinished_computer_match
from .protocol import MAX_NESTING, error_message, nested_too_deep
from .security import SecurityMiddleware, client_address, is_loopback
from .sockets import read_frames, run_socket
from .table import MODES, Table
from .tables import Tables, TooManyTables
from .tasks import repeat, start_tasks, stop_tasks

log = logging.getLogger("canasta.server")

STATIC = Path(__file__).resolve().parent.parent / "web" / "static"


def _compact_json(raw: bytes) -> bytes:
    return json.dumps(json.loads(raw), ensure_ascii=False, separators=(",", ":")).encode()


#: per file extension: the media type and how the file is made compact
_COMPACT: dict[str, tuple[str, Callable[[bytes], bytes]]] = {
    "json": ("application/json", _compact_json),
    "js": ("text/javascript; charset=utf-8", lambda raw: strip_js(raw.decode()).encode()),
    "css": ("text/css; charset=utf-8", lambda raw: strip_css(raw.decode()).encode()),
}


class ClientFiles(StaticFiles):
    """The web client's files. They are written to be read and served compact, for a first
    load kept under 100 kB gzipped: the JSON files (the translations) without their
    indentation (about 5% of a language's download), the scripts and style sheets without
    their comments and indentation (about a sixth; see :mod:`.compact`). The compact text is
    made once per version of the file; a JSON file that does not parse is served as it is."""

    def __init__(self, *, directory: Path) -> None:
        super().__init__(directory=directory)
        #: per file: (its modification time and size, the compact text, its ETag)
        self._compact: dict[str, tuple[tuple[int, int], bytes, str]] = {}

    def file_response(
        self, full_path: Any, stat_result: Any, scope: Any, status_code: int = 200
    ) -> Response:
        path = str(full_path)
        kind = path.rsplit(".", 1)[-1]
        if kind not in _COMPACT:
            return super().file_response(full_path, stat_result, scope, status_code)
        key = (stat_result.st_mtime_ns, stat_result.st_size)
        cached = self._compact.get(path)
        if cached is None or cached[0] != key:
            try:
                body = _COMPACT[kind][1](Path(path).read_bytes())
            except (ValueError, OSError):  # (a lone surrogate escape parses but cannot be
                # encoded; a file replaced while it was read): served as it is
                return super().file_response(full_path, stat_result, scope, status_code)
            etag = f'"{hashlib.md5(body, usedforsecurity=False).hexdigest()}"'
            cached = self._compact[path] = (key, body, etag)
        response = Response(
            cached[1], status_code=status_code, media_type=_COMPACT[kind][0], headers={"etag": cached[2]}
        )
        if self.is_not_modified(response.headers, Headers(scope=scope)):
            return NotModifiedResponse(response.headers)
        return response
SESSION_COOKIE = "canasta_session"
SESSION_MAX_AGE = 400 * 24 * 3600  # browsers cap cookie lifetimes at 400 days
#: a page whose browser keeps no cookie (cookies blocked; a Secure cookie over plain http)
#: keeps its session in memory: it says so with this request header, is given the token in
#: the answer header of that name, and sends it back in it (and, on a websocket, as the
#: subprotocol ``canasta.session.<token>`` beside ``canasta``: a browser sets no other header
#: there, and the URL would put it in logs)
COOKIELESS_HEADER = "x-canasta-cookieless"
SESSION_HEADER = "x-canasta-session"
SOCKET_PROTOCOL = "canasta"
_SESSION_PROTOCOL = "canasta.session."


def session_token(conn: HTTPConnection) -> str | None:
    """The session token a request or websocket carries: its cookie, else the page's header
    or subprotocol (:data:`SESSION_HEADER`)."""
    token = conn.cookies.get(SESSION_COOKIE) or conn.headers.get(SESSION_HEADER)
    if token:
        return token
    if conn.scope["type"] == "websocket":
        for offered in conn.scope.get("subprotocols", ()):
            if offered.startswith(_SESSION_PROTOCOL):
                return offered[len(_SESSION_PROTOCOL) :]
    return None


async def accept_socket(websocket: WebSocket) -> None:
    """Accept a websocket, answering the page's subprotocol when it offers one (a browser
    closes a socket whose offered protocols are all refused)."""
    offered = websocket.scope.get("subprotocols", ())
    await websocket.accept(subprotocol=SOCKET_PROTOCOL if SOCKET_PROTOCOL in offered else None)


def set_session_cookie(request: Request, response: Response, token: str, config: ServerConfig) -> None:
    """The session cookie: HTTP-only, same-site, secure over HTTPS (or when configured); and
    the token in :data:`SESSION_HEADER` for a page that keeps no cookie."""
    response.set_cookie(
        SESSION_COOKIE,
        token,
        max_age=SESSION_MAX_AGE,
        httponly=True,
        samesite="lax",
        secure=config.secure_cookies or request.url.scheme == "https",
        path="/",
    )
    if request.headers.get(COOKIELESS_HEADER) == "1":
        response.headers[SESSION_HEADER] = token

_TABLE_ID = re.compile(r"[A-Za-z0-9_-]{1,40}")
#: the ids the previous release's client made: crypto.randomUUID(), or its fallback
_LEGACY_PROFILE = re.compile(
    r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|p-[0-9a-z]{8,40}"
)
_TOKEN = re.compile(r"[A-Za-z0-9_-]{20,100}")

_PLACEHOLDER = """<!doctype html><meta charset="utf-8"><title>Canasta</title>
<p>The Canasta server is running; the browser client is not installed.</p>"""

_STORAGE_DOWN = "the server's storage is unavailable: try again in a moment"


class ApiError(Exception):
    """An HTTP error answered as ``{"error": {"code", "message"}}``."""

    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message


def _clean_text(value: Any) -> None:
    """Refuse strings no database stores faithfully (lone surrogates, NUL), at any depth."""
    stack = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, str):
            if "\x00" in v or any("\ud800" <= ch <= "\udfff" for ch in v):
                raise ApiError(400, "bad_text", "text may not hold NUL or unpaired surrogates")
        elif isinstance(v, dict):
            stack.extend(v.keys())
            stack.extend(v.values())
        elif isinstance(v, list):
            stack.extend(v)


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is no JSON number")


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"{text[:20]} is past the largest number")
    return value


async def _json_body(request: Request) -> dict[str, Any]:
    content_type = request.headers.get("content-type", "").split(";", 1)[0].strip().lower()
    if content_type != "application/json":
        raise ApiError(415, "unsupported_media_type", "send the body as application/json")
    raw = await request.body()
    try:
        # NaN, the infinities and numbers past them (1e999) are refused, as on the sockets,
        # not taken in to fail somewhere later
        body = json.loads(raw, parse_constant=_no_constant, parse_float=_finite)
    except (ValueError, RecursionError, UnicodeDecodeError) as e:
        raise ApiError(400, "bad_request", "the body must be a JSON object") from e
    if not isinstance(body, dict):
        raise ApiError(400, "bad_request", "the body must be a JSON object")
    if nested_too_deep(body, raw):
        raise ApiError(400, "bad_request", f"the body may nest at most {MAX_NESTING} levels")
    _clean_text(body)
    return body


def _table_id(value: str) -> str:
    if not _TABLE_ID.fullmatch(value):
        raise ApiError(404, "table_not_found", "no such table")
    return value


def _settings_for(body: dict[str, Any]) -> tuple[str, Settings, str]:
    """Mode, settings and difficulty of a table request (the core validates the rules)."""
    mode = body.get("mode", "computer")
    if mode not in MODES:
        raise ApiError(400, "bad_mode", "mode is 'computer' or 'local'")
    difficulty = body.get("difficulty", "normal")
    if difficulty not in LEVELS:
        raise ApiError(400, "bad_difficulty", f"difficulty is one of {', '.join(LEVELS)}")
    players = body.get("players")
    if players is not None and (type(players) is not int or players not in (2, 3, 4)):
        raise ApiError(400, "bad_players", "players is 2, 3 or 4")
    preset = body.get("preset")
    if preset is None:
        preset = {2: "two-player", 3: "three-player"}.get(players or 4, "classic")
    rules = body.get("rules")
    if rules is None:
        rules = {}
    if not isinstance(preset, str) or not isinstance(rules, dict):
        raise ApiError(400, "bad_request", "preset is a name and rules an object")
    try:
        settings = Settings.preset(preset, **rules)
    except SettingsError as e:
        raise ApiError(400, e.code, e.message) from e
    except (TypeError, ValueError) as e:
        raise ApiError(400, "bad_rules", str(e)[:200]) from e
    if players is not None and settings.players != players:
        raise ApiError(
            400, "players_mismatch", f"preset '{preset}' is for {settings.players} players"
        )
    return mode, settings, difficulty


def _summary(table: Table) -> dict[str, Any]:
    info = table.info(None)
    return {
        "table": table.id,
        "mode": table.mode,
        "settings": table.game.settings.to_json(),
        "seats": info["seats"],
        "status": table.status,
        "seeded": table.seeded,
        "match": info["match"],
        "version": table.version,
    }


def _row_summary(row: TableRow) -> dict[str, Any]:
    """The summary of a table that is not in memory, from its row: the record snapshot holds
    every finished hand, which is all the summary's match part shows."""
    record = row.record
    hands = record.get("hands") or []
    winners = record.get("winners") or []
    over = bool(record.get("over"))
    return {
        "table": row.id,
        "mode": row.mode,
        "settings": record.get("settings"),
        "seats": row.options.get("seats"),
        "status": row.status,
        "seeded": bool(row.options.get("seeded")),
        "match": {
            "scores": record.get("scores"),
            "target": (record.get("settings") or {}).get("target"),
            "hand_number": hands[-1]["number"] if hands else 0,
            "over": over,
            "winners": winners,
            # as Game.won: nobody has won a match that is not over
            "won": match_won(winners if over else [], len(record.get("scores") or [])),
            "hands": [
                {"number": h["number"], "dealer": h["dealer"], "result": h["result"]}
                for h in hands
                if "result" in h
            ],
        },
        "version": row.version,
    }


#: display names: 1..20 characters once cleaned
NAME_MAX = 20


def display_name(account: AccountRow) -> str:
    """The account's display name ("Guest 4821" until its player picks one)."""
    if account.name:
        return account.name
    return f"Guest {1000 + int(account.id[-4:], 16) % 9000}"


#: the names the server gives: a guest's ("Guest 4821"), a computer seat's ("Computer 2", and
#: in a room "Computer (Expert)") and a deleted account's seat's, as the page shows them in
#: either language (``personName`` in web/static/js/i18n.js). Nobody may choose one: a person
#: could pass for a computer seat. (Cleaned names: NFKC made full-width brackets ASCII.)
GIVEN_NAME = re.compile(
    r"(?:guest ?\d{4}|computer ?(?:\d|\(.*)|deleted ?player"
    r"|ゲスト ?\d{4}|コンピューター? ?(?:\d|\(.*)|退会したプレイヤー)"
)
#: the words the page itself names seats and sides with, in either language ("seat" and
#: "side" in web/static/i18n/*.json): a player called "You" would read as the reader's own seat
PAGE_NAME = re.compile(
    r"(?:you|partner|computer|player ?\d|(?:left|right) ?(?:opponent|partner)|(?:our|their) ?side"
    r"|あなた|パートナー|コンピューター?|プレイヤー ?\d|[左右]の(?:相手|パートナー)|味方チーム|相手チーム)"
)
#: letters of other scripts that look like the Latin ones of those names (Cyrillic and Greek)
#: and like their katakana (kanji and hiragana): "Сomputer 1" with a Cyrillic С is refused as
#: "Computer 1" is. Capitals are read first (casefolding would make Greek Υ a υ, which looks
#: like u, not Y), then the small letters.
#: Cherokee and Armenian capitals that look Latin are read too, and Latin small capitals
#: ("Yᴏᴜ") and Armenian small letters ("Gսest") as the small letters they look like.
_LOOKALIKE_CAPITALS = str.maketrans(
    "ΑΒΕΗΙΚΜΝΟΡΤΥΧΖАВЕКМНОРСТХУЅІЈᎪᏴᏟᎬᎻᎫᏦᎷᏢᏚᎢᏙᏔᏃՕՍՏԼ",
    "ABEHIKMNOPTYXZABEKMHOPCTXYSIJABCEHJKMPSTVWZOUSL",
)
_LOOKALIKES = str.maketrans(
    "аbсdеһіјкӏмnорԛѕтиuvԝхуzαβεηικνορτυχ一卜夕口工力二へぺべ"
    "ᴀʙᴄᴅᴇꜰɢʜɪᴊᴋʟᴍɴᴏᴘʀꜱᴛᴜᴠᴡʏᴢհոսօցզ",
    "abcdehijklmnopqstuuvwxyzabenikvoptuxートタロエカニヘペベ"
    "abcdefghijklmnoprstuvwyzhnuogq",
)
#: characters that show nothing (Unicode's default-ignorable code points that are not
#: control or format characters, which the cleaner drops anyway: the combining grapheme
#: joiner, Hangul and Mongolian fillers and selectors, Khmer's inherent vowels; and the blank
#: braille pattern): a name made of them reads as empty, and one added to a reserved name
#: would hide it from the look-alike check
_INVISIBLE = re.compile(
    "[\u034f\u115f\u1160\u17b4\u17b5\u180b-\u180f\u2800\u3164\uffa0"
    "\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0000-\U000e00ff\U000e01f0-\U000e0fff]"
)
#: variation selectors: kept right after the character they choose a form of (an emoji's
#: colour form, a kanji's variant), dropped anywhere else; the look-alike check reads names
#: without them
_SELECTOR_CHARS = "\ufe00-\ufe0f\U000e0100-\U000e01ef"
_STRAY_SELECTORS = re.compile(f"(?:^|(?<=[\\s{_SELECTOR_CHARS}]))[{_SELECTOR_CHARS}]+")
_SELECTORS = re.compile(f"[{_SELECTOR_CHARS}]")
#: nonspacing and enclosing marks one character may carry: Vietnamese and the Indic, Thai and
#: Burmese scripts need two or three (vowel signs that take space are not counted); a pile of
#: them ("Zalgo" text) spills over the names around it
MAX_MARKS = 3


def given_name(name: str) -> bool:
    """Whether ``name`` (cleaned) reads as one of the names the server gives (:data:`GIVEN_NAME`)
    or the page's words for seats (:data:`PAGE_NAME`), other scripts' look-alike letters read
    as the ones they look like."""
    name = _SELECTORS.sub("", name)
    folded = name.casefold()
    # capitals again after casefolding: Cherokee's small letters fold to its capitals
    looks = name.translate(_LOOKALIKE_CAPITALS).casefold().translate(_LOOKALIKE_CAPITALS).casefold()
    looks = looks.translate(_LOOKALIKES)
    return any(p.fullmatch(text) is not None for p in (GIVEN_NAME, PAGE_NAME) for text in {folded, looks})


def clean_name(value: Any) -> str:
    """A display name as typed, made safe to show anywhere: Unicode-normalised (NFKC),
    without control, format or private-use characters, with runs of spaces collapsed."""
    if not isinstance(value, str):
        raise ApiError(400, "bad_name", "name is a string")
    text = unicodedata.normalize("NFKC", value)
    text = "".join(ch for ch in text if unicodedata.category(ch)[0] != "C")
    text = _INVISIBLE.sub("", text)
    text = _STRAY_SELECTORS.sub("", text)
    # removing a character may leave a sequence NFKC composes ("e", ZWJ, U+0301): again
    text = unicodedata.normalize("NFKC", " ".join(text.split()))
    if not text or all(unicodedata.category(ch)[0] in "MZ" for ch in text):
        raise ApiError(400, "bad_name", "the name is empty once cleaned")
    if len(text) > NAME_MAX:
        raise ApiError(400, "bad_name", f"a name has at most {NAME_MAX} characters")
    marks = 0
    for ch in text:
        marks = marks + 1 if unicodedata.category(ch) in ("Mn", "Me") else 0
        if marks > MAX_MARKS:
            raise ApiError(400, "bad_name", f"a letter carries at most {MAX_MARKS} accents or marks")
    return text


def _account_json(account: AccountRow) -> dict[str, Any]:
    return {"id": account.id, "kind": account.kind, "name": display_name(account)}


def create_app(
    db_url: str | None = None,
    *,
    bot_delay_ms: int = 600,
    config: ServerConfig | None = None,
) -> FastAPI:
    """The web app on database ``db_url`` (None: SQLite in the user data directory).

    Raises ``ValueError`` for a configuration that would be unsafe to serve: email
    (``smtp_url``) with neither ``public_url`` nor ``allowed_hosts``, whose links would point
    wherever a request's Host header said."""
    config = config or ServerConfig()
    if config.smtp_url and not config.public_url and not config.allowed_hosts:
        raise ValueError(
            "email needs the address its links point to: give --public-url https://your.host "
            "(or --allowed-host NAME, and the links use the host name a request was sent to)"
        )
    store = Store(resolve_db_url(db_url), sqlite_busy_seconds=config.sqlite_busy_seconds)
    cluster: LocalCluster | RedisCluster = (
        RedisCluster(config.redis_url) if config.redis_url else LocalCluster()
    )
    tables = Tables(store, bot_delay_ms, config, cluster)
    lobby = Lobby(store, tables, config)
    #: this node's browser sockets by their session: closed when the session ends
    live_sessions = SessionSockets()
    forwarding = (
        Forwarding(cluster, tables, lobby, config, live_sessions)
        if isinstance(cluster, RedisCluster)
        else None
    )

    async def still_live(conn: Conn, cookie: str | None) -> None:
        """After ``conn`` was registered under its session: a session that ended while the
        socket was opening (between reading it and the registration, which :meth:`end` would
        have found) closes it now."""
        if conn.session is None:
            return
        try:
            ended = await _account(cookie) is None
        except (SQLAlchemyError, OSError):  # the database away: it was live a moment ago
            return
        if ended:
            conn.drop(CLOSE_SESSION_ENDED, "your session ended: reconnect")

    async def sessions_ended(account_id: str, *, keep: str | None = None, only: str | None = None) -> None:
        """Sessions of ``account_id`` ended (every one but token ``keep``, or only token
        ``only``): their sockets close, on this node and, with several, on the others."""
        keep_hash = None if keep is None else token_hash(keep)
        only_hash = None if only is None else token_hash(only)
        live_sessions.end(account_id, keep=keep_hash, only=only_hash)
        if isinstance(cluster, RedisCluster):
            with contextlib.suppress(Exception):  # Redis away: the node's own sockets closed
                await cluster.broadcast(
                    {"op": "sessions_ended", "account": account_id, "keep": keep_hash, "only": only_hash}
                )
    if isinstance(cluster, RedisCluster):

        def lost(resource: str) -> None:
            tables.lease_lost(resource)
            if forwarding is not None:
                forwarding.lease_lost(resource)

        cluster.on_lost = lost
    name_limiter = KeyedLimiter(config.names_per_minute)
    table_limiter = KeyedLimiter(config.tables_per_minute)
    address_table_limiter = KeyedLimiter(config.tables_per_minute_per_address)
    # a private room's start makes a table too: the same limits as POST /api/tables
    lobby.may_start = lambda conn: table_limiter.allow(str(conn.account)) and (
        conn.address is None or address_table_limiter.allow(conn.address)
    )
    session_limiter = KeyedLimiter(config.sessions_per_minute_per_address)
    sockets_by_address = Counter()
    read_limiter = KeyedLimiter(config.reads_per_minute_per_address)
    socket_limiter = KeyedLimiter(config.socket_opens_per_minute_per_address)

    async def keep_lock() -> None:
        """Hold the database for as long as this process serves it (see Store.keep_node_lock)."""
        while True:
            await asyncio.sleep(config.storage_retry_seconds * 5)
            try:
                held = await store.keep_node_lock()
            except Exception:  # the database is away: the tables' own probes handle that
                continue
            if not held and store.writable:
                log.critical("another server process took this database: refusing changes")
                store.writable = False

    #: upkeep repeated while the app serves (name: (seconds, job)); install_accounts adds its own
    jobs: dict[str, tuple[float, Callable[[], Awaitable[object]]]] = {}

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        keeper = None
        if config.single_node:  # before migrating: a second process must not touch the schema
            await store.acquire_node_lock()
            keeper = asyncio.get_running_loop().create_task(keep_lock(), name="node-lock")
        await store.migrate()
        await cluster.start()
        tables.start()
        if forwarding is not None:  # one node runs the lobby: whichever takes its lease
            await forwarding.start()
        else:
            await lobby.start()
        lag = asyncio.get_running_loop().create_task(tables.metrics.probe_loop_lag(), name="loop-lag")
        # the upkeep's first run a minute after the start (a server restarted more often than
        # its period still runs it)
        upkeep = start_tasks(
            {name: repeat(seconds, job, name, first=min(60.0, seconds)) for name, (seconds, job) in jobs.items()}
        )
        try:
            yield
        finally:
            lag.cancel()
            await stop_tasks(upkeep)
            # draining: this node's tables are saved and their leases released, so the other
            # nodes take them over at once; the browsers reconnect to them
            if keeper is not None:
                keeper.cancel()
            if forwarding is not None:
                await forwarding.close()
            await lobby.close()
            await tables.close()
            await cluster.close()
            await store.dispose()

    app = FastAPI(
        title="Canasta",
        lifespan=lifespan,
        docs_url="/docs" if config.api_docs else None,
        redoc_url=None,
        openapi_url="/openapi.json" if config.api_docs else None,
    )
    app.state.store = store
    app.state.tables = tables
    app.state.lobby = lobby
    app.state.cluster = cluster
    app.state.config = config
    app.add_middleware(SecurityMiddleware, config=config, max_body=MAX_BODY_BYTES)
    # outermost: compresses what the app and the checks answer (no answer body holds a secret:
    # the session token travels only in headers, its cookie's or X-Canasta-Session)
    app.add_middleware(GZipMiddleware, minimum_size=512, compresslevel=6)

    def _error(status: int, code: str, message: str) -> JSONResponse:
        return JSONResponse({"error": {"code": code, "message": message}}, status_code=status)

    @app.exception_handler(ApiError)
    async def api_error(request: Request, exc: ApiError) -> JSONResponse:
        return _error(exc.status, exc.code, exc.message)

    @app.exception_handler(TooManyTables)
    async def too_many(request: Request, exc: TooManyTables) -> JSONResponse:
        return _error(503 if exc.code == "server_full" else 429, exc.code, exc.message)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        codes = {404: "not_found", 405: "method_not_allowed"}
        code = codes.get(exc.status_code, f"http_{exc.status_code}")
        return JSONResponse(
            {"error": {"code": code, "message": str(exc.detail)}},
            status_code=exc.status_code,
            headers=exc.headers,
        )

    @app.exception_handler(RequestValidationError)
    async def validation_error(request: Request, exc: RequestValidationError) -> JSONResponse:
        message = "; ".join(str(e.get("msg", e)) for e in exc.errors())[:500]
        return _error(400, "bad_request", message)

    @app.exception_handler(SQLAlchemyError)
    async def storage_error(request: Request, exc: SQLAlchemyError) -> JSONResponse:
        log.error("storage error on %s %s: %s", request.method, request.url.path, exc)
        return _error(503, "storage_unavailable", _STORAGE_DOWN)

    @app.exception_handler(OSError)
    async def os_error(request: Request, exc: OSError) -> JSONResponse:
        log.error("storage error on %s %s: %s", request.method, request.url.path, exc)
        return _error(503, "storage_unavailable", _STORAGE_DOWN)

    # ------------------------------------------------------------------ identity

    async def _account(token: str | None) -> AccountRow | None:
        if not token or not _TOKEN.fullmatch(token):
            return None
        return await store.session_account(token)

    async def _require_account(request: Request) -> AccountRow:
        account = await _account(session_token(request))
        if account is None:
            raise ApiError(401, "no_session", "no session: POST /api/session first")
        return account

    @app.post("/api/session")
    async def start_session(request: Request, response: Response) -> dict[str, Any]:
        """This browser's account, made on first visit (the server issues the identity).

        A browser of the previous release sends its old profile id once as
        ``legacy_profile``: its tables and statistics move to the account, and that id is
        worth nothing afterwards.
        """
        body = await _json_body(request)
        legacy = body.get("legacy_profile")
        if legacy is not None and (
            not isinstance(legacy, str) or not _LEGACY_PROFILE.fullmatch(legacy)
        ):
            raise ApiError(400, "bad_profile", "legacy_profile is an id of at most 80 characters")
        account = await _account(session_token(request))
        created = False
        if account is None:
            if not session_limiter.allow(client_address(request.scope)):
                raise ApiError(429, "rate_limited", "too many new sessions: try again shortly")
            token, account = await store.new_session()
            set_session_cookie(request, response, token, config)
            created = True
        claimed = False
        if legacy is not None:
            claimed = await store.claim_legacy_profile(account.id, legacy)
            if claimed:
                tables.reassign(legacy, account.id)
        return {"account": _account_json(account), "created": created, "claimed": claimed}

    # ------------------------------------------------------------------ tables and stats

    @app.get("/", response_model=None)
    async def index() -> FileResponse | HTMLResponse:
        page = STATIC / "index.html"
        if page.is_file():
            return FileResponse(page)
        return HTMLResponse(_PLACEHOLDER)

    def _count_read(request: Request) -> None:
        if not read_limiter.allow(client_address(request.scope)):
            raise ApiError(429, "rate_limited", "too many requests: try again shortly")

    @app.get("/healthz")
    async def healthz(request: Request) -> JSONResponse:
        """200 while this process serves and its database answers; 503 otherwise."""
        _count_read(request)
        try:
            await store.ping()
        except Exception:
            return JSONResponse({"status": "unavailable", "storage": "unavailable"}, status_code=503)
        return JSONResponse(
            {"status": "ok", "storage": "ok", "tables": len(tables), "node": cluster.node}
        )

    @app.get("/metrics")
    async def metrics(request: Request) -> Response:
        if config.metrics == "off" or (
            config.metrics == "loopback" and not is_loopback(request.scope)
        ):
            raise ApiError(404, "not_found", "no metrics here")
        return Response(tables.metrics.render(), media_type=CONTENT_TYPE_LATEST)

    @app.get("/api/presets")
    async def presets() -> dict[str, Any]:
        return {
            "presets": {name: s.to_json() for name, s in PRESETS.items()},
            # R2: what a settings form may offer, per preset (the client holds no ranges)
            "fields": {name: s.adjustable() for name, s in PRESETS.items()},
            "targets": list(TARGETS),
            # R1, R5.1: which cards are wild, and the meld ranks in table order
            "cards": {"wild": [card_str(c) for c in range(NUM_CODES) if IS_WILD[c]], "meld_ranks": list(MELD_TOKENS)},
            "levels": list(LEVELS),
        }

    @app.post("/api/tables")
    async def create_table(request: Request) -> dict[str, Any]:
        body = await _json_body(request)
        account = await _require_account(request)
        mode, settings, difficulty = _settings_for(body)
        seed = body.get("seed")
        if seed is not None:
            if not config.allow_seeds:
                raise ApiError(
                    400, "seed_not_allowed", "this server deals every table at random"
                )
            if type(seed) is not int or not 0 <= seed < 2**63:
                raise ApiError(400, "bad_seed", "seed is an integer 0..2**63-1")
        if not table_limiter.allow(account.id) or not address_table_limiter.allow(
            client_address(request.scope)
        ):
            raise ApiError(429, "rate_limited", "too many new tables: try again in a minute")
        # a new match against the computer while one is unfinished ends the win streak (the
        # unfinished one stays under Continue)
        if mode == "computer" and seed is None and await unfinished_computer_match(store, account.id):
            await break_streak(store, account.id)
        table = await tables.create(
            profile=account.id,
            mode=mode,
            settings=settings,
            difficulty=difficulty,
            seed=seed,
        )
        return _summary(table)

    @app.get("/api/tables")
    async def list_tables(request: Request) -> dict[str, Any]:
        account = await _require_account(request)
        rows = await store.list_tables(account.id)
        # first the online match the account plays (its clock runs), as the lobby knows it
        m = tables.playing(account.id)
        online = [] if m is None else [
            {
                "table": m["table"],
                "mode": "online",
                "status": m["status"],
                "settings": {"preset": m["preset"], "target": m["target"]},
                "scores": m["scores"],
                "team": m["teams"][m["accounts"].index(account.id)],
                "hand_number": m["hand_number"],
            }
        ]
        return {
            "tables": online + [
                {
                    "table": r.id,
                    "mode": r.mode,
                    "status": r.status,
                    "settings": r.record.get("settings"),
                    "scores": r.record.get("scores"),
                    "team": own_team(r.record.get("settings"), owner_seat(r.mode)),
                    "hand_number": len(r.record.get("hands", [])),
                    "updated_at": r.updated_at.isoformat(),
                }
                for r in rows
                if not set_aside(r)
            ]
        }

    @app.get("/api/tables/{table_id}")
    async def get_table(table_id: str, request: Request) -> dict[str, Any]:
        """A table's summary: from memory when it is live, else from its row (reading a table
        never loads it: only playing or watching it does)."""
        _count_read(request)
        table = tables.peek(_table_id(table_id))
        if table is not None:
            return _summary(table)
        row = await store.load_table(table_id)
        if row is None:
            raise ApiError(404, "table_not_found", "no such table")
        return _row_summary(row)

    @app.patch("/api/account")
    async def update_account(request: Request) -> dict[str, Any]:
        """Change the display name shown at online tables and in the lobby."""
        body = await _json_body(request)
        account = await _require_account(request)
        name = clean_name(body.get("name"))
        if given_name(name) and name != display_name(account):
            raise ApiError(
                400, "reserved_name", "the game uses this name itself (a guest's, a computer's, a seat's): choose another"
            )
        if not name_limiter.allow(account.id):
            raise ApiError(429, "rate_limited", "the name changes too often: try again shortly")
        updated = await store.set_name(account.id, name)
        if updated is None:  # pragma: no cover - the session's account is gone
            raise ApiError(401, "no_session", "no session: POST /api/session first")
        if forwarding is not None:
            await forwarding.rename(account.id, name)
        else:
            await lobby.rename(account.id, name)
        return {"account": _account_json(updated)}

    @app.get("/api/stats")
    async def get_stats(request: Request, scope: str = "offline") -> dict[str, Any]:
        """The account's statistics: games against the computer, or (``scope=online``)
        online matches, counted apart."""
        account = await _require_account(request)
        if scope not in ("offline", "online"):
            raise ApiError(400, "bad_scope", "scope is 'offline' or 'online'")
        return await store.get_stats(stats_key(account.id, scope))

    @app.delete("/api/stats")
    async def reset_stats(request: Request) -> dict[str, Any]:
        """Reset progress: the statistics against the computer, and the unfinished offline
        matches (no longer offered under Continue)."""
        account = await _require_account(request)
        await store.reset_stats(account.id)
        await set_aside_unfinished(store, tables, account.id)
        return await store.get_stats(account.id)

    # ------------------------------------------------------------------ the table socket

    async def _counted(websocket: WebSocket, serve: Coroutine[Any, Any, None]) -> None:
        """Serve a socket within its client address's caps (sockets open, opened a minute)."""
        address = client_address(websocket.scope)
        if sockets_by_address.get(address) >= config.sockets_per_address or not socket_limiter.allow(
            address
        ):
            serve.close()  # never started: nothing to await
            await websocket.close(code=CLOSE_TRY_AGAIN, reason="too many sockets")
            return
        sockets_by_address.add(address)
        try:
            await serve
        finally:
            sockets_by_address.remove(address)

    @app.websocket("/ws/tables/{table_id}")
    async def table_socket(websocket: WebSocket, table_id: str) -> None:
        # Origin and Host were checked by the middleware before this handler runs.
        await _counted(websocket, _serve_socket(websocket, table_id))

    async def _serve_socket(websocket: WebSocket, table_id: str) -> None:
        await accept_socket(websocket)
        try:
            account = await _account(session_token(websocket))
            found = (
                await tables.locate(table_id, account.id if account is not None else None)
                if _TABLE_ID.fullmatch(table_id)
                else None
            )
        except TooManyTables as e:
            await websocket.send_text(json.dumps(error_message(e.code, e.message)))
            await websocket.close(code=CLOSE_TRY_AGAIN)
            return
        except (SQLAlchemyError, OSError):
            await websocket.send_text(
                json.dumps(error_message("storage_unavailable", _STORAGE_DOWN))
            )
            await websocket.close(code=CLOSE_TRY_AGAIN)
            return
        # a table set aside by Reset progress is no longer anyone's position to play
        if found is None or (isinstance(found, Table) and found.options.get("set_aside")):
            await websocket.send_text(json.dumps(error_message("table_not_found", "no such table")))
            await websocket.close(code=4404)
            return
        account_id = account.id if account is not None else None
        cookie = session_token(websocket)
        session = token_hash(cookie) if account is not None and cookie else None
        history_delta = websocket.query_params.get("history") == "delta"
        state_patch = websocket.query_params.get("state") == "patch"
        if isinstance(found, str):  # another node owns the table: forward this socket there
            assert forwarding is not None
            await forwarding.forward(
                websocket, f"table:{table_id}", found, account=account_id, name=None,
                history_delta=history_delta, state_patch=state_patch, session=session,
                registered=lambda c: still_live(c, cookie),
            )
            return
        table = found
        owner = account_id is not None and table.owns(account_id)
        if not table.has_room_for(owner):
            await websocket.send_text(
                json.dumps(error_message("table_full", "too many sockets at this table"))
            )
            await websocket.close(code=CLOSE_TRY_AGAIN)
            return
        conn = Conn.with_limits(config, account=account_id, owner=owner)
        conn.history_delta, conn.state_patch = history_delta, state_patch
        conn.session = session
        table.join(conn)
        live_sessions.add(conn)
        await still_live(conn, cookie)

        async def deliver(raw: str | bytes) -> None:
            await table.submit(conn, raw)

        try:
            await run_socket(
                websocket,
                conn,
                read_frames(websocket, conn, deliver, lambda: table.version),
                ending=lambda: table.leave(conn),
            )
        finally:
            live_sessions.discard(conn)

    # ------------------------------------------------------------------ the lobby socket

    @app.websocket("/ws/lobby")
    async def lobby_socket(websocket: WebSocket) -> None:
        await _counted(websocket, _serve_lobby(websocket))

    async def _too_many_lobby_tabs(websocket: WebSocket) -> None:
        await websocket.send_text(
            json.dumps(error_message("too_many_sockets", "too many lobby tabs are open"))
        )
        await websocket.close(code=CLOSE_TRY_AGAIN)

    async def _serve_lobby(websocket: WebSocket) -> None:
        await accept_socket(websocket)
        try:
            account = await _account(session_token(websocket))
        except (SQLAlchemyError, OSError):
            await websocket.send_text(json.dumps(error_message("storage_unavailable", _STORAGE_DOWN)))
            await websocket.close(code=CLOSE_TRY_AGAIN)
            return
        if account is None:
            await websocket.send_text(
                json.dumps(error_message("no_session", "no session: POST /api/session first"))
            )
            await websocket.close(code=4401)
            return
        cookie = session_token(websocket)
        session = token_hash(str(cookie))
        if not lobby.has_room_for(account.id):  # counted again as it joins (Lobby.join)
            await _too_many_lobby_tabs(websocket)
            return
        if forwarding is not None and not cluster.owns("lobby"):
            leader = await cluster.owner("lobby")
            if leader is None:  # a new node is taking the lobby over: in a moment
                await websocket.send_text(
                    json.dumps(error_message("try_again", "the lobby is starting: reconnect"))
                )
                await websocket.close(code=CLOSE_TRY_AGAIN)
                return
            await forwarding.forward(
                websocket, "lobby", leader, account=account.id, name=display_name(account),
                session=session, registered=lambda c: still_live(c, cookie),
                address=client_address(websocket.scope),
            )
            return
        conn = Conn.with_limits(config, account=account.id, owner=True)
        conn.session = session
        conn.address = client_address(websocket.scope)
        if not await lobby.join(conn, display_name(account)):
            await _too_many_lobby_tabs(websocket)
            return
        live_sessions.add(conn)
        await still_live(conn, cookie)

        async def deliver(raw: str | bytes) -> None:
            await lobby.handle(conn, raw)

        try:
            await run_socket(
                websocket, conn, read_frames(websocket, conn, deliver), ending=lambda: lobby.leave(conn)
            )
        finally:
            live_sessions.discard(conn)

    from .replays import replay_router  # here: it imports ApiError from this module

    app.include_router(replay_router(store, tables, config, lambda r: _account(session_token(r))))
    from .accounts import install as install_accounts  # registration, ratings, coins, reports

    install_accounts(
        app, store=store, tables=tables, lobby=lobby, config=config, require_account=_require_account,
        sessions_ended=sessions_ended, jobs=jobs,
    )

    if STATIC.is_dir():
        app.mount("/static", ClientFiles(directory=STATIC), name="static")
    return app
