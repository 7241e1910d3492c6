"""The web app's server: tables, storage and the browser protocol (``docs/protocol.md``).

``canasta serve`` calls :func:`run`; tests build an app with :func:`create_app`.
"""

from __future__ import annotations

from .app import create_app

__all__ = ["create_app", "run"]


def run(host: str = "127.0.0.1", port: int = 8000, db: str | None = None) -> None:
    """Serve the web app with uvicorn and print its URL."""
    import uvicorn

    from .db import resolve_db_url

    url = resolve_db_url(db)
    app = create_app(url)
    shown = "localhost" if host in ("127.0.0.1", "0.0.0.0", "::") else host
    print(
        f"Canasta is running at http://{shown}:{port}/  (database: {url.split('://', 1)[0]}; Ctrl+C to stop)"
    )
    uvicorn.run(app, host=host, port=port, log_level="warning", ws_max_size=1024 * 1024)
