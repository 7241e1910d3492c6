"""The FastAPI application: HTTP endpoints, the table websocket and the static client."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request, WebSocket, WebSocketDisconnect
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, HTMLResponse, JSONResponse
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException as StarletteHTTPException

from ..errors import SettingsError
from ..rules import PRESETS, Settings
from .db import Store, resolve_db_url
from .players import LEVELS
from .protocol import Conn, error_message
from .table import MODES, Table
from .tables import Tables

STATIC = Path(__file__).resolve().parent.parent / "web" / "static"
MAX_PROFILE = 80

_PLACEHOLDER = """<!doctype html><meta charset="utf-8"><title>Canasta</title>
<p>The Canasta server is running; the browser client is not installed.</p>"""


class ApiError(Exception):
    """An HTTP error answered as ``{"error": {"code", "message"}}``."""

    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message


def _profile(value: Any, *, required: bool = False) -> str | None:
    if value is None or value == "":
        if required:
            raise ApiError(400, "profile_required", "a browser profile id is required")
        return None
    if not isinstance(value, str) or len(value) > MAX_PROFILE:
        raise ApiError(
            400, "bad_profile", f"a profile id is a string of at most {MAX_PROFILE} characters"
        )
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
    if players is not None and players not in (2, 3, 4):
        raise ApiError(400, "bad_players", "players is 2, 3 or 4")
    preset = body.get("preset")
    if preset is None:
        preset = {2: "two-player", 3: "three-player"}.get(players or 4, "classic")
    rules = body.get("rules") or {}
    if not isinstance(preset, str) or not isinstance(rules, dict):
        raise ApiError(400, "bad_request", "preset is a name and rules an object")
    try:
        settings = Settings.preset(preset, **rules)
    except SettingsError as e:
        raise ApiError(400, e.code, e.message) from e
    except TypeError as e:
        raise ApiError(400, "bad_rules", str(e)) from e
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
        "match": info["match"],
        "version": table.version,
    }


def create_app(db_url: str | None = None, *, bot_delay_ms: int = 600) -> FastAPI:
    """The web app on database ``db_url`` (None: SQLite in the user data directory)."""
    store = Store(resolve_db_url(db_url))
    tables = Tables(store, bot_delay_ms)

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        await store.migrate()
        tables.start()
        try:
            yield
        finally:
            await tables.close()
            await store.dispose()

    app = FastAPI(title="Canasta", lifespan=lifespan)
    app.state.store = store
    app.state.tables = tables

    @app.exception_handler(ApiError)
    async def api_error(request: Request, exc: ApiError) -> JSONResponse:
        return JSONResponse(
            {"error": {"code": exc.code, "message": exc.message}}, status_code=exc.status
        )

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
        return JSONResponse({"error": {"code": "bad_request", "message": message}}, status_code=400)

    @app.get("/", response_model=None)
    async def index() -> FileResponse | HTMLResponse:
        page = STATIC / "index.html"
        if page.is_file():
            return FileResponse(page)
        return HTMLResponse(_PLACEHOLDER)

    @app.get("/api/presets")
    async def presets() -> dict[str, Any]:
        return {
            "presets": {name: s.to_json() for name, s in PRESETS.items()},
            "levels": list(LEVELS),
        }

    @app.post("/api/tables")
    async def create_table(request: Request) -> dict[str, Any]:
        try:
            body = await request.json()
        except ValueError as e:
            raise ApiError(400, "bad_request", "the body must be a JSON object") from e
        if not isinstance(body, dict):
            raise ApiError(400, "bad_request", "the body must be a JSON object")
        mode, settings, difficulty = _settings_for(body)
        if mode == "computer" and settings.players not in (2, 3, 4):  # pragma: no cover - presets
            raise ApiError(400, "bad_players", "against the computer: 2, 3 or 4 players")
        seed = body.get("seed")
        if seed is not None and type(seed) is not int:
            raise ApiError(400, "bad_seed", "seed is an integer")
        table = await tables.create(
            profile=_profile(body.get("profile")),
            mode=mode,
            settings=settings,
            difficulty=difficulty,
            seed=seed,
        )
        return _summary(table)

    @app.get("/api/tables")
    async def list_tables(profile: str | None = None) -> dict[str, Any]:
        rows = await store.list_tables(_profile(profile, required=True) or "")
        return {
            "tables": [
                {
                    "table": r.id,
                    "mode": r.mode,
                    "status": r.status,
                    "settings": r.record.get("settings"),
                    "scores": r.record.get("scores"),
                    "hand_number": len(r.record.get("hands", [])),
                    "updated_at": r.updated_at.isoformat(),
                }
                for r in rows
            ]
        }

    @app.get("/api/tables/{table_id}")
    async def get_table(table_id: str, profile: str | None = None) -> dict[str, Any]:
        table = await tables.get(table_id)
        if table is None:
            raise ApiError(404, "table_not_found", "no such table")
        return _summary(table)

    @app.get("/api/stats")
    async def get_stats(profile: str | None = None) -> dict[str, Any]:
        return await store.get_stats(_profile(profile, required=True) or "")

    @app.delete("/api/stats")
    async def reset_stats(profile: str | None = None) -> dict[str, Any]:
        p = _profile(profile, required=True) or ""
        await store.reset_stats(p)
        return await store.get_stats(p)

    @app.websocket("/ws/tables/{table_id}")
    async def table_socket(websocket: WebSocket, table_id: str) -> None:
        await websocket.accept()
        profile = websocket.query_params.get("profile") or None
        table = await tables.get(table_id)
        if table is None:
            await websocket.send_text(json.dumps(error_message("table_not_found", "no such table")))
            await websocket.close(code=4404)
            return
        conn = Conn(profile=profile, owner=table.owns(profile))
        writer = asyncio.create_task(_write(websocket, conn))
        table.join(conn)
        try:
            while True:
                message = await websocket.receive()
                if message["type"] == "websocket.disconnect":
                    break
                text = message.get("text")
                table.submit(conn, text if text is not None else message.get("bytes") or b"")
        except WebSocketDisconnect:
            pass
        finally:
            table.leave(conn)
            conn.close()
            with contextlib.suppress(Exception):
                await writer

    if STATIC.is_dir():
        app.mount("/static", StaticFiles(directory=STATIC), name="static")
    return app


async def _write(websocket: WebSocket, conn: Conn) -> None:
    """Send one connection's messages in order (the only task writing to that socket)."""
    while True:
        message = await conn.outbox.get()
        if message is None:
            return
        try:
            await websocket.send_text(json.dumps(message, separators=(",", ":")))
        except Exception:
            return
