"""Browser tests: a real server (uvicorn in a subprocess, temporary SQLite) and Debian's Chromium.

Run them on their own: ``pytest tests/browser``. Browsers are never downloaded: Playwright
launches ``/usr/bin/chromium`` through ``executable_path``.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = os.environ.get("CANASTA_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]

SERVER_CODE = """
import json, sys, uvicorn
from canasta.server import ServerConfig, create_app
from canasta.server.transport import uvicorn_options
# known deals (seeds) for the tests, computer seats as fast as the page asks, and suggestions
# as often as it asks (the tests click Suggest every turn, and turns come faster than a second
# apart; the limit itself is tested in tests/server, as there); a test may set more (online
# clocks) as JSON
extra = {"suggest_rate": 1e6, "suggest_burst": 10**6, **(json.loads(sys.argv[4]) if len(sys.argv) > 4 else {})}
config = ServerConfig(allow_seeds=True, min_bot_delay_ms=0, **extra)
uvicorn.run(create_app(sys.argv[1], bot_delay_ms=int(sys.argv[3]), config=config),
            host="127.0.0.1", port=int(sys.argv[2]), log_level="warning", **uvicorn_options(config))
"""


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if "tests/browser" in str(item.fspath).replace(os.sep, "/"):
            item.add_marker(pytest.mark.browser)


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args: dict[str, Any]) -> dict[str, Any]:
    if not Path(CHROMIUM).exists():
        pytest.skip(f"Chromium not found at {CHROMIUM} (apt-get install chromium)")
    return {**browser_type_launch_args, "executable_path": CHROMIUM, "args": CHROMIUM_ARGS, "headless": True}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Server:
    """``canasta.server.create_app`` served by uvicorn in a child process; restartable."""

    def __init__(
        self,
        db_path: Path,
        port: int | None = None,
        delay_ms: int = 0,
        config: dict[str, Any] | None = None,
    ) -> None:
        self.db_url = f"sqlite:///{db_path}"
        self.port = port or free_port()
        self.delay_ms = delay_ms
        self.config = config or {}
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/"

    def start(self) -> None:
        self.proc = subprocess.Popen(
            [
                sys.executable,
                "-c",
                SERVER_CODE,
                self.db_url,
                str(self.port),
                str(self.delay_ms),
                json.dumps(self.config),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                err = self.proc.stderr.read().decode() if self.proc.stderr else ""
                raise RuntimeError(f"server exited: {err}")
            try:
                with urllib.request.urlopen(self.url + "api/presets", timeout=1) as r:
                    if r.status == 200:
                        return
            except OSError:
                time.sleep(0.1)
        raise RuntimeError("server did not start")

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.proc = None

    def api(self, method: str, path: str, body: Any = None) -> Any:
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(self.url + path.lstrip("/"), data=data, method=method,
                                     headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=10) as r:
            return json.loads(r.read())


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    s = Server(tmp_path_factory.mktemp("db") / "canasta.db")
    s.start()
    yield s
    s.stop()


@pytest.fixture
def fresh_server(tmp_path: Path) -> Iterator[Server]:
    s = Server(tmp_path / "canasta.db")
    s.start()
    yield s
    s.stop()


def page_api(page: Any, method: str, path: str, body: Any = None) -> Any:
    """A request made by the page itself, with its session cookie (the browser's identity)."""
    return page.evaluate(
        """async ([method, path, body]) => {
            const init = { method, headers: {} };
            if (body !== null) { init.headers["Content-Type"] = "application/json"; init.body = JSON.stringify(body); }
            const res = await fetch(path, init);
            return await res.json();
        }""",
        [method, path, body],
    )


def use_prefs(page: Any, **prefs: Any) -> None:
    """Preferences stored before the page's own scripts run (speed 'off' keeps tests quick)."""
    value = json.dumps({"speed": "off", "lang": "en", **prefs})
    page.add_init_script(
        f"try {{ if (!sessionStorage.getItem('prefs-set')) {{ localStorage.setItem('canasta.prefs', {json.dumps(value)});"
        " sessionStorage.setItem('prefs-set', '1'); } } catch (e) {}"
    )


@pytest.fixture(scope="module")
def quick_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """A server whose sockets may send fast (positions are played into tables move by move)."""
    s = Server(tmp_path_factory.mktemp("db") / "canasta.db", config={"message_rate": 2000.0, "message_burst": 2000})
    s.start()
    yield s
    s.stop()
