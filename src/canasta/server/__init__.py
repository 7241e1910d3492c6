"""The web app's server: tables, storage and the browser protocol (``docs/protocol.md``).

``canasta serve`` calls :func:`run`; tests build an app with :func:`create_app`.
"""

from __future__ import annotations

import logging
import sys
from typing import Any

from .app import create_app
from .config import LOOPBACK_HOSTS, ServerConfig

__all__ = ["ServerConfig", "create_app", "run"]


def run(
    host: str = "127.0.0.1",
    port: int = 8000,
    db: str | None = None,
    *,
    allowed_hosts: tuple[str, ...] | None = None,
    access_log: bool = True,
    forwarded_allow_ips: str | None = None,
    redis: str | None = None,
    **settings: Any,
) -> None:
    """Serve the web app with uvicorn and print its URL; ``settings`` are fields of
    :class:`ServerConfig` (``allowed_origins``, ``move_seconds``, ``smtp_url`` ...).

    A server bound to loopback answers only to loopback host names unless ``allowed_hosts``
    says otherwise; one bound to another address answers to any host name by default.
    ``redis`` makes this process one node of several (:attr:`ServerConfig.redis_url`).
    """
    import uvicorn

    from .db import NodeLockTaken, resolve_db_url
    from .runtime import tune_gc
    from .transport import uvicorn_options

    if allowed_hosts is None:
        loopback = host in ("127.0.0.1", "localhost", "::1")
        allowed_hosts = (*LOOPBACK_HOSTS, "::1") if loopback else ()
    config = ServerConfig(
        allowed_hosts=allowed_hosts, redis_url=redis, single_node=redis is None, **settings
    )
    if access_log:
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter("%(asctime)s %(message)s"))
        logger = logging.getLogger("canasta.access")
        logger.addHandler(handler)
        logger.setLevel(logging.INFO)
        logger.propagate = False
    url = resolve_db_url(db)
    try:
        app = create_app(url, config=config)
    except ValueError as e:  # a configuration unsafe to serve: said, not served
        print(f"canasta: {e}", file=sys.stderr)
        raise SystemExit(2) from e
    shown = "localhost" if host in ("127.0.0.1", "0.0.0.0", "::") else host
    print(
        f"Canasta is running at http://{shown}:{port}/  (database: {url.split('://', 1)[0]}; Ctrl+C to stop)"
    )
    tune_gc()
    try:
        uvicorn.run(
            app,
            host=host,
            port=port,
            log_level="warning",
            access_log=False,
            server_header=False,
            # the client address and scheme from X-Forwarded-* only from these proxies
            proxy_headers=forwarded_allow_ips is not None,
            forwarded_allow_ips=forwarded_allow_ips,
            **uvicorn_options(config),
        )
    except NodeLockTaken as e:  # pragma: no cover - uvicorn reports lifespan failures itself
        print(f"canasta: {e}", file=sys.stderr)
        raise SystemExit(2) from e
