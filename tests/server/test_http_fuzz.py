"""Random HTTP requests over the whole API: never a 5xx, every 4xx in the error format.

The fuzz sends thousands of requests per database to every endpoint (and to unknown paths) with
random methods, path segments (NUL, lone surrogates escaped, ``..``, very long ids), query
strings, bodies (random JSON, lone surrogates and NUL in strings and keys, deep nesting, huge
numbers, bytes that are not UTF-8, truncated JSON), content types, session cookies and Origin
headers. They come from a seeded ``random.Random`` (deterministic, and cheap: hypothesis spent
more time generating a request than the server spent answering it); hypothesis then explores
table and session bodies, where shrinking pays off. The regression tests pin the hostile inputs
that matter most, one by one.
"""

from __future__ import annotations

import json
import logging
import random
import string
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from typing import Any
from urllib.parse import quote

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from starlette.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from canasta.rules import PRESETS
from canasta.server import create_app

from .support import TEST_CONFIG, Client, new_identity, session_token

#: requests the fuzz sends per database, and the seed they are drawn from
FUZZ_REQUESTS = 5000
FUZZ_SEED = 20_251
SAME_ORIGIN = "http://testserver"
EVIL_ORIGIN = "https://evil.example"
JSON_TYPE = {"content-type": "application/json"}
COOKIE = "canasta_session"


def fuzz_client(db_url: str) -> Client:
    """A session-holding test client that answers server faults with a 500 (not an exception),
    so every fault is checked the same way. It does not take the one-server-per-database lock
    (tested elsewhere): another test run may be using the same PostgreSQL database meanwhile."""
    app = create_app(db_url, bot_delay_ms=0, config=replace(TEST_CONFIG, single_node=False))
    return Client(app, raise_server_exceptions=False)


def as_session(c: TestClient, token: str | None) -> None:
    c.cookies.clear()
    if token is not None:
        c.cookies.set(COOKIE, token)


# ---------------------------------------------------------------------------- the checks


def describe(req: Req | None, r: Any) -> str:
    sent = "" if req is None else f"{req!r}\n"
    return f"{sent}-> {r.status_code} {r.headers.get('content-type')} {r.content[:300]!r}"


def assert_error_shape(r: Any, req: Req | None = None) -> dict[str, str]:
    """The body is exactly ``{"error": {"code": <non-empty str>, "message": <str>}}``."""
    try:
        body = r.json()
    except ValueError:
        raise AssertionError(f"a {r.status_code} answer is not JSON\n{describe(req, r)}") from None
    assert isinstance(body, dict) and set(body) == {"error"}, describe(req, r)
    error = body["error"]
    assert isinstance(error, dict) and set(error) == {"code", "message"}, describe(req, r)
    assert isinstance(error["code"], str) and error["code"], describe(req, r)
    assert isinstance(error["message"], str), describe(req, r)
    return error


def assert_error(r: Any, status: int, code: str) -> None:
    assert r.status_code == status, describe(None, r)
    assert assert_error_shape(r)["code"] == code, describe(None, r)


# ---------------------------------------------------------------------------- requests


@dataclass(frozen=True)
class Req:
    """One generated request; ``{known}`` in the path stands for a table the fuzz created."""

    method: str
    path: str
    query: str = ""
    body: bytes = b""
    content_type: str | bytes | None = None
    cookie: str = "mine"  # mine | other | none | unknown | twice | raw:<Cookie header>
    origin: str | bytes | None = None
    headers: tuple[tuple[str, str | bytes], ...] = ()
    known: int = 0

    def __repr__(self) -> str:
        def cut(value: Any, n: int = 300) -> str:
            text = repr(value)
            return text if len(text) <= n else f"{text[:n]}... (len {len(value)})"

        return (
            f"Req(method={self.method!r}, path={cut(self.path)}, query={cut(self.query)}, "
            f"body={cut(self.body)}, content_type={self.content_type!r}, "
            f"cookie={self.cookie!r}, origin={self.origin!r}, headers={self.headers!r}, "
            f"known={self.known})"
        )


METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"]
#: characters no database stores faithfully, or that parsers and paths treat specially
SPECIAL_CHARS = ["\x00", "\ud800", "\udbff", "\udc00", "\udfff", "\ufffe", "\uffff", "\u2028",
                 "\u202e", "é", "\U0001f600", "\x7f", "\x1b", "\\", '"', "/", "%", "."]  # fmt: skip
PLAIN_CHARS = string.ascii_letters + string.digits + " -_:."
URLSAFE = string.ascii_letters + string.digits + "-_"

#: the fields of a table request: valid values, then near misses and odd ones
TABLE_FIELDS: dict[str, tuple[list[Any], list[Any]]] = {
    "mode": (["computer", "local", "local"], ["online", "", "COMPUTER"]),
    "difficulty": (["beginner", "normal", "expert"], ["godlike", "Normal"]),
    "players": ([2, 3, 4], [5, 0, -1, 2.0, 4.0, True, "4", 10**30]),
    "preset": (list(PRESETS), ["pinochle", "", "classic\x00", "\ud800", "two\udfffplayer"]),
    "seed": ([0, 1, 2**63 - 1], [2**63, -1, 1.5, "1", True, 10**4000]),
    "profile": (["test-profile"], ["", "x" * 81]),
    "delay_ms": ([0, 600], [-1]),
}
RULE_FIELDS: dict[str, tuple[list[Any], list[Any]]] = {
    "players": ([2, 3, 4], [5, 2.0, 3.0, 4.0, True, "4"]),
    "hand_size": ([5, 11, 13, 15], [16, 4, 11.0, "11", True]),
    "draw_count": ([1, 2], [3, 1.0, True]),
    "canastas_to_go_out": ([1, 2, 3], [0, 2.0]),
    "black_three": (["stop", "freeze"], ["STOP", ""]),
    "wild_limit": (["classic", "outnumber"], ["none"]),
    "wilds_on_canasta": ([True, False], [0, 1, "true"]),
    "black_three_meld_on_going_out": ([True, False], [None]),
    "ask_partner": ([True, False], [1]),
    "target": ([5000, 2500, 1500, "one_hand"], [5000.0, 12, True, "5000"]),
    "tie": (["play_on", "draw"], ["sudden"]),
    "name": ([], ["classic", "bicycle"]),
    "colour": ([], ["blue"]),
}
SESSION_FIELDS: dict[str, tuple[list[Any], list[Any]]] = {
    "legacy_profile": (["legacy-1", "legacy-2", "x" * 80, "a.b:c-d_e"],
                       ["x" * 81, "", "a b", "a\x00b", "\ud800", "é", 5, None]),  # fmt: skip
    "name": ([], ["Ann", "", "\x00"]),
}


def sound_table_body(pick: Callable[[list[Any]], Any]) -> dict[str, Any]:
    """A valid table request; ``pick`` chooses among options (random.choice, or hypothesis)."""
    players = pick([2, 3, 4])
    body: dict[str, Any] = {"preset": pick([n for n, s in PRESETS.items() if s.players == players])}
    for key in ("mode", "difficulty", "seed"):
        if pick([False, True]):
            body[key] = pick(TABLE_FIELDS[key][0])
    if pick([False, True]):
        body["players"] = players
    rules = {k: pick(valid) for k, (valid, _) in RULE_FIELDS.items() if valid and pick([0, 0, 0, 1])}
    if "players" in rules:
        rules["players"] = players
    if players != 4:
        rules.pop("ask_partner", None)  # only in the four-player partnership game
    if rules or pick([False, True]):
        body["rules"] = rules
    return body


def retyped(value: Any) -> Any:
    """The same value as another JSON type (4 -> 4.0, True -> 1, "x" -> ["x"])."""
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, int):
        return float(value) if abs(value) < 2**1000 else str(value)
    if isinstance(value, float):
        return int(value) if value.is_integer() else str(value)
    if isinstance(value, str):
        return [value]
    return {"value": value}


def mutate(
    body: dict[str, Any], pick: Callable[[list[Any]], Any], odd: Callable[[list[Any]], Any]
) -> dict[str, Any]:
    """``body`` with one or two fields (of the request or of its rules) given odd values, or
    their own value as another type (values that compare equal, 4.0 == 4, slip through ==)."""
    for _ in range(pick([1, 1, 2])):
        rules = body.setdefault("rules", {})
        if pick([False, False, True]):
            numbers = [(d, k) for d in (body, rules) if isinstance(d, dict) for k, v in d.items()
                       if isinstance(v, int | float)]  # fmt: skip
            if numbers:
                where, key = pick(numbers)
                where[key] = retyped(where[key])
                continue
        if pick([False, True]) and isinstance(rules, dict):
            key = pick(list(RULE_FIELDS))
            rules[key] = odd(RULE_FIELDS[key][1])
        else:
            key = pick([*TABLE_FIELDS, "rules"])
            body[key] = odd(TABLE_FIELDS[key][1] if key != "rules" else [[], "fast", None, 1])
    return body


def nested(depth: int, kind: str, closed: bool, inner: str = "1") -> bytes:
    """A JSON document nested ``depth`` deep (cut before its closing brackets if not closed)."""
    if kind == "array":
        opening, closing = "[" * depth, "]" * depth
    elif kind == "object":
        opening, closing = '{"a":' * depth, "}" * depth
    else:  # arrays and objects in turn, inside a table request
        opening = '{"rules":' + '[{"a":' * (depth // 2)
        closing = "}]" * (depth // 2) + "}"
    return (opening + inner + (closing if closed else "")).encode()


SPECIAL_BODIES = [
    b"",
    b"{",
    b"{}",
    b"[]",
    b"null",
    b'"text"',
    b"NaN",
    b"-Infinity",
    b"1" * 5000,  # over Python's 4300-digit limit for int()
    b'{"seed": ' + b"9" * 4400 + b"}",
    b'{"seed": 1e999999}',
    b'{"players": -1e400}',
    b'{"rules": {"target": 1e309}}',
    b"\xff\xfe\xfd",
    b'{"mode": "\xff"}',
    b'{"legacy_profile": "\xed\xa0\x80"}',
    b'{"preset": "\xc0\xae"}',
    b'{"a": 1, "a": 2}',
    b"\xef\xbb\xbf{}",
    b'\x00{"a":1}',
    b'{"a":1}\x00',
    b"{}" * 2000,
    b'{"\\ud800": "\\udfff"}',
    b'{"legacy_profile": "\\u0000"}',
    b'{"preset": "\\ud83d"}',
    b'--xyz\r\nContent-Disposition: form-data; name="a"\r\n\r\n\xff\r\n--xyz--\r\n',
    b"--xyz\r\n\r\n",
    b"a=1&b=%00",
    b" " * 16_385,  # one byte over the body limit
]
JSON_TYPES = ["application/json", "application/json; charset=utf-8",
              "APPLICATION/JSON ; charset=latin-1", "application/json;"]  # fmt: skip
OTHER_TYPES: list[str | bytes | None] = [None, "text/plain", "multipart/form-data; boundary=xyz",
    "multipart/form-data", "application/x-www-form-urlencoded", "application/jsonx", "",
    b"application/json\xff"]  # fmt: skip
ID_ATOMS = ["abc", "abc%00def", "%00", "%ED%A0%80", "%ED%B0%80", "%F0%9F%98%80", "%C0%AE%C0%AE",
            "%FF%FE", "..", "%2e%2e", "%2F", "%2f..%2f", "%25", "%", "%zz", "%0D%0A", "é",
            "\U0001f600", "A-_9", "a" * 40, "a" * 41, "a;b", "%20", "~", "\\"]  # fmt: skip
STATIC_FILES = ["index.html", "js/app.js", "css/app.css", "i18n/en.json", "js/none.js", "", "js",
                "js/", "../pyproject.toml", "%2e%2e/%2e%2e/server/app.py",
                "..%2f..%2fserver%2fapp.py", "index.html/x", "%00", "index.html%00.js",
                "%ED%A0%80", "x" * 300, "x" * 5000, "/etc/passwd", "%2Fetc%2Fpasswd",
                "\\..\\..\\app.py"]  # fmt: skip
SPECIAL_PATHS = ["/docs", "/openapi.json", "/redoc", "/static", "/api", "/api/", "/api/tables/",
                 "/api/stats/", "/API/TABLES", "//api/tables", "/api//tables",
                 "/api/tables/{known}/x", "/api/tables/{known}/", "/index.html", "/favicon.ico",
                 "/api/session/x", "/api/presets/classic", "/ws", "/ws/tables"]  # fmt: skip
SEGMENTS = ["api", "tables", "stats", "session", "presets", "static", "ws", ""]
QUERY_ATOMS = ["profile", "%00", "a%00b", "%ED%A0%80", "%ED%A0%80%ED%B0%80", "%FF", "", "=", "%",
               "%zz", "%26", "test-profile", "x" * 2000, "1", "%3D", "+"]  # fmt: skip
RAW_COOKIES = [b"canasta_session=", b"canasta_session=\x00", b"canasta_session=\xed\xa0\x80",
               b"canasta_session=" + b"A" * 101, b'canasta_session="quoted"', b"canasta_session",
               b"=;=;;", b"\xff\xfe=\xff"]  # fmt: skip
BAD_ORIGINS: list[str | bytes] = ["null", EVIL_ORIGIN, "http://testserver:80", "HTTP://TESTSERVER",
                                  "https://testserver", "", b"http://testserver\xff"]  # fmt: skip
EXTRA_HEADERS: list[tuple[str, str | bytes]] = [
    ("sec-fetch-site", "cross-site"),
    ("sec-fetch-site", "same-origin"),
    ("range", "bytes=0-10"),
    ("range", "bytes=10-2"),
    ("range", "bytes=x"),
    ("range", "bytes=0-1,1-2,2-3"),
    ("range", "bytes=99999999-"),
    ("if-none-match", "*"),
    ("if-modified-since", "garbage"),
    ("content-length", "-1"),
    ("content-length", "abc"),
    ("content-length", "99999999999999999999"),
    ("accept", "text/html"),
    ("accept-encoding", "gzip, br"),
    ("x-forwarded-for", "1.2.3.4"),
    ("transfer-encoding", "chunked"),
    ("host", "evil.example"),
    ("user-agent", b"\xff\x00"),
]
#: kinds of request: weight, natural method, path (None: generated)
KINDS: dict[str, tuple[int, str, str | None]] = {
    "table": (13, "POST", "/api/tables"),
    "session": (5, "POST", "/api/session"),
    "get_table": (14, "GET", None),
    "list": (2, "GET", "/api/tables"),  # the slowest answers: lists hold every table's record
    "stats": (3, "GET", "/api/stats"),
    "reset": (1, "DELETE", "/api/stats"),
    "presets": (3, "GET", "/api/presets"),
    "index": (3, "GET", "/"),
    "static": (7, "GET", None),
    "ws": (4, "GET", None),
    "special": (8, "", None),
    "segments": (12, "", None),
    "any": (14, "", None),
}


class Gen:
    """Random requests, all drawn from one seed (the same requests on every run)."""

    def __init__(self, seed: int) -> None:
        self.r = random.Random(seed)

    def text(self, longest: int = 12) -> str:
        r = self.r
        out = []
        for _ in range(r.randint(0, longest)):
            x = r.random()
            if x < 0.6:
                out.append(r.choice(PLAIN_CHARS))
            elif x < 0.85:
                out.append(r.choice(SPECIAL_CHARS))
            else:
                out.append(chr(r.choice([r.randint(0x80, 0xD7FF), r.randint(0xE000, 0x10FFFF)])))
        return "".join(out)

    def number(self) -> int | float:
        r = self.r
        x = r.random()
        if x < 0.35:
            return r.randint(-5, 20)
        if x < 0.5:
            return r.choice([2**31, 2**63 - 1, 2**63, 2**64, -(2**63), 10**200, 10**4000])
        if x < 0.7:
            return r.choice([2.0, 4.0, 0.5, -0.0, 1e308, 5000.0, 1e-320, *[float(s) for s in
                             ("nan", "inf", "-inf")]])  # fmt: skip
        if x < 0.85:
            return r.uniform(-1e6, 1e6)
        return r.randint(-(2**70), 2**70)

    def value(self, depth: int = 0) -> Any:
        """A random JSON value (NaN and infinities too: json.dumps writes, json.loads reads)."""
        r = self.r
        x = r.random()
        if depth < 3 and x < 0.15:
            return [self.value(depth + 1) for _ in range(r.randint(0, 4))]
        if depth < 3 and x < 0.3:
            return {self.text(6): self.value(depth + 1) for _ in range(r.randint(0, 4))}
        x = r.random()
        if x < 0.1:
            return None
        if x < 0.2:
            return r.random() < 0.5
        if x < 0.55:
            return self.number()
        return self.text()

    def near(self, valid: list[Any], odd: list[Any]) -> Any:
        """Mostly a valid value, else a near miss or any value."""
        r = self.r
        x = r.random()
        if valid and x < 0.7:
            return r.choice(valid)
        return r.choice(odd) if x < 0.9 else self.value()

    def fields(self, pools: dict[str, tuple[list[Any], list[Any]]], p: float) -> dict[str, Any]:
        r = self.r
        body = {k: self.near(*pool) for k, pool in pools.items() if r.random() < p}
        if r.random() < 0.1:
            body[self.text(8)] = self.value()
        return body

    def odd(self, odd: list[Any]) -> Any:
        return self.r.choice(odd) if self.r.random() < 0.8 else self.value()

    def table_body(self) -> dict[str, Any]:
        r = self.r
        if r.random() < 0.5:  # a valid request, or one or two fields from valid
            body = sound_table_body(r.choice)
            return mutate(body, r.choice, self.odd) if r.random() < 0.85 else body
        body = self.fields(TABLE_FIELDS, 0.35)
        x = r.random()
        if x < 0.4:
            body["rules"] = self.fields(RULE_FIELDS, 0.2)
        elif x < 0.5:
            body["rules"] = {self.text(8): self.value() for _ in range(r.randint(0, 3))}
        elif x < 0.6:
            body["rules"] = self.value()
        return body

    def encode(self, value: Any) -> bytes:
        """``value`` written the way some client could write it, or break it."""
        r = self.r
        x = r.random()
        if x < 0.6:  # lone surrogates and NUL as \\uXXXX escapes
            return json.dumps(value).encode()
        text = json.dumps(value, ensure_ascii=False)
        if x < 0.75:  # lone surrogates as (invalid) UTF-8 bytes
            return text.encode("utf-8", "surrogatepass")
        if x < 0.85:
            return text.encode(r.choice(["utf-16", "utf-32", "utf-8-sig"]), "surrogatepass")
        data = text.encode("utf-8", "surrogatepass")
        return data[: r.randint(0, max(len(data) - 1, 0))]  # truncated

    def odd_body(self) -> bytes:
        r = self.r
        x = r.random()
        if x < 0.35:
            return nested(
                r.choice([900, 1000, 3000, 5000, 8000, 10_000, 20_000, 100_000]),
                r.choice(["array", "object", "mixed"]),
                r.random() < 0.5,
                r.choice(["1", "", '"\\ud800"', "[]"]),
            )
        if x < 0.75:
            return r.choice(SPECIAL_BODIES)
        return r.randbytes(r.randint(1, 64))

    def body(self, kind: str) -> bytes:
        r = self.r
        x = r.random()
        if kind == "table" and x < 0.65:
            return self.encode(self.table_body())
        if kind == "session" and x < 0.65:
            return self.encode(self.fields(SESSION_FIELDS, 0.5))
        if kind not in ("table", "session") and x < 0.5:
            return b""
        if r.random() < 0.4:
            return self.encode(self.value())
        return self.odd_body()

    def table_id(self) -> str:
        r = self.r
        x = r.random()
        if x < 0.3:
            return "{known}"
        if x < 0.6:
            return r.choice(ID_ATOMS)
        if x < 0.7:
            return quote(r.randbytes(r.randint(1, 24)), safe="")
        if x < 0.8:
            return quote(self.text().encode("utf-8", "surrogatepass"), safe="")
        if x < 0.85:
            return "x" * r.choice([1_000, 10_000, 40_000])
        if x < 0.9:
            return "".join(r.choices(URLSAFE, k=r.choice([1, 16, 40])))  # well-formed, unknown
        return "".join(r.choices(ID_ATOMS + ["{known}"], k=r.randint(2, 4)))

    def query(self) -> str:
        r = self.r
        if r.random() < 0.75:
            return ""

        def part() -> str:
            if r.random() < 0.6:
                return r.choice(QUERY_ATOMS)
            return quote(self.text(8).encode("utf-8", "surrogatepass"), safe="")

        if r.random() < 0.8:
            return "&".join(f"{part()}={part()}" for _ in range(r.randint(1, 4)))
        return "&".join(part() for _ in range(r.randint(0, 4)))

    def path(self, kind: str) -> str:
        r = self.r
        fixed = KINDS[kind][2]
        if fixed is not None:
            return fixed
        if kind == "get_table":
            return f"/api/tables/{self.table_id()}"
        if kind == "static":
            return "/static/" + r.choice(STATIC_FILES)
        if kind == "ws":
            return f"/ws/tables/{self.table_id()}"
        if kind == "special":
            return r.choice(SPECIAL_PATHS)
        if kind == "segments":
            segments = [r.choice(SEGMENTS) if r.random() < 0.5 else self.table_id()
                        for _ in range(r.randint(1, 4))]  # fmt: skip
            return ("/" + "/".join(segments))[:45_000]
        return self.path(r.choice(["table", "session", "get_table", "presets", "index", "static",
                                   "ws", "special", "segments"]))  # fmt: skip

    def request(self) -> Req:
        r = self.r
        kind = r.choices(list(KINDS), weights=[w for w, _, _ in KINDS.values()])[0]
        method = KINDS[kind][1]
        if not method or r.random() < 0.1:
            method = r.choice(METHODS)
        body = self.body(kind)
        if body and r.random() < 0.85:
            content_type = r.choice(JSON_TYPES) if r.random() < 0.15 else "application/json"
        else:
            content_type = r.choice(OTHER_TYPES) if r.random() < 0.3 else None
        x = r.random()
        cookie = (
            "mine" if x < 0.7
            else "none" if x < 0.8
            else "other" if x < 0.85
            else "unknown" if x < 0.9
            else "twice" if x < 0.95
            else "raw:" + (r.choice(RAW_COOKIES) if r.random() < 0.5
                           else b"canasta_session=" + r.randbytes(r.randint(0, 40))).decode("latin-1")
        )  # fmt: skip
        x = r.random()
        origin = None if x < 0.45 else SAME_ORIGIN if x < 0.8 else r.choice(BAD_ORIGINS)
        headers: list[tuple[str, str | bytes]] = []
        if r.random() < (0.5 if kind in ("static", "index") else 0.12):
            headers = r.sample(EXTRA_HEADERS, r.randint(1, 2))
            if len({k for k, _ in headers}) < len(headers):
                headers = headers[:1]
        return Req(
            method=method,
            path=self.path(kind),
            query=self.query(),
            body=body,
            content_type=content_type,
            cookie=cookie,
            origin=origin,
            headers=tuple(headers),
            known=r.randint(0, 10**6),
        )


# ---------------------------------------------------------------------------- sending


class Rejected(AssertionError):
    """An answer the fuzz does not accept."""


@dataclass
class Fuzzer:
    """Sends requests through one client and checks every answer."""

    c: TestClient
    mine: str
    other: str
    known: list[str] = field(default_factory=list)
    sent: int = 0
    statuses: dict[int, int] = field(default_factory=dict)

    def send(self, req: Req) -> Any:
        c = self.c
        c.cookies.clear()
        headers: list[tuple[str, str | bytes]] = []
        if req.cookie == "mine":
            c.cookies.set(COOKIE, self.mine)
        elif req.cookie == "other":
            c.cookies.set(COOKIE, self.other)
        elif req.cookie == "unknown":  # a well-formed token nobody was given
            c.cookies.set(COOKIE, "".join(random.Random(req.known).choices(URLSAFE, k=43)))
        elif req.cookie == "twice":
            headers.append(("cookie", f"{COOKIE}=garbage; {COOKIE}={self.mine}"))
        elif req.cookie.startswith("raw:"):
            headers.append(("cookie", req.cookie[4:].encode("latin-1")))
        if req.content_type is not None:
            headers.append(("content-type", req.content_type))
        if req.origin is not None:
            headers.append(("origin", req.origin))
        headers.extend(req.headers)
        path = req.path
        if "{known}" in path:
            table = self.known[req.known % len(self.known)] if self.known else "abc"
            path = path.replace("{known}", table)
        # the whole URL: a path starting with // is not an authority
        url = SAME_ORIGIN + path + ("?" + req.query if req.query else "")
        r = c.request(req.method, url, content=req.body or None, headers=headers)
        self.sent += 1
        self.statuses[r.status_code] = self.statuses.get(r.status_code, 0) + 1
        self.check(req, r, r.request.url.path)  # the path as sent: "/x/.." is "/"
        if req.method == "POST" and path == "/api/tables" and r.status_code == 200:
            self.known.append(r.json()["table"])
        return r

    def check(self, req: Req, r: Any, path: str | None = None) -> None:
        try:
            self._check(req, r, req.path if path is None else path)
        except AssertionError as e:
            raise Rejected(str(e)) from None

    def _check(self, req: Req, r: Any, path: str) -> None:
        if r.status_code >= 500:
            raise AssertionError(f"a server error\n{describe(req, r)}")
        assert r.headers.get("x-content-type-options") == "nosniff", describe(req, r)
        if r.status_code < 400:
            if path.startswith("/api/") and req.method != "HEAD":
                r.json()
            return
        file_route = path == "/" or path.startswith("/static/")
        if file_route and any(k == "range" for k, _ in req.headers) and r.status_code in (400, 416):
            return  # the static files' own range errors (plain text or empty)
        if req.method == "HEAD":  # no body; the headers still say what the body would be
            assert r.content == b"", describe(req, r)
            assert r.headers.get("content-type") == "application/json", describe(req, r)
            return
        assert_error_shape(r, req)


# ---------------------------------------------------------------------------- the fuzz


def start_fuzzer(c: Client) -> Fuzzer:
    """Two sessions (the fuzz's own and another browser's) and two tables of the first."""
    mine = session_token(c)
    new_identity(c)
    fuzzer = Fuzzer(c, mine=mine, other=session_token(c))
    as_session(c, mine)
    for body in ({"mode": "local", "preset": "two-player"}, {"difficulty": "beginner"}):
        r = c.post("/api/tables", json=body)
        assert r.status_code == 200, r.text
        fuzzer.known.append(r.json()["table"])
    return fuzzer


def test_random_requests_get_no_server_error_and_coded_client_errors(
    db_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.ERROR, logger="canasta")
    gen = Gen(FUZZ_SEED)
    failures: list[str] = []
    with fuzz_client(db_url) as c:
        fuzzer = start_fuzzer(c)
        started = time.perf_counter()
        for i in range(FUZZ_REQUESTS):
            req = gen.request()
            try:
                fuzzer.send(req)
            except Rejected as e:
                failures.append(f"request #{i} (seed {FUZZ_SEED}): {e}")
        print(
            f"\n{fuzzer.sent} requests in {time.perf_counter() - started:.1f}s; answers: "
            f"{dict(sorted(fuzzer.statuses.items()))}; {len(fuzzer.known)} tables"
        )
        assert not failures, f"{len(failures)} bad answers:\n\n" + "\n\n".join(failures[:10])
        assert fuzzer.sent >= FUZZ_REQUESTS

        # the app still works: a new table can be made and read back, by its owner's list too
        as_session(c, fuzzer.mine)
        r = c.post("/api/tables", json={"mode": "local", "preset": "two-player", "seed": 5})
        assert r.status_code == 200, r.text
        table = r.json()["table"]
        got = c.get(f"/api/tables/{table}")
        assert got.status_code == 200 and got.json()["table"] == table, got.text
        assert got.json()["settings"]["preset"] == "two-player"
        assert table in {t["table"] for t in c.get("/api/tables").json()["tables"]}
        assert c.get("/api/stats").status_code == 200
        assert c.get("/api/presets").status_code == 200
    assert not [rec for rec in caplog.records if rec.levelno >= logging.ERROR], caplog.text


def near(pool: tuple[list[Any], list[Any]]) -> st.SearchStrategy[Any]:
    valid, odd = pool
    return st.one_of(*[st.sampled_from(valid)] * 2 * bool(valid), st.sampled_from(odd), json_values)


texts = st.text(
    alphabet=st.one_of(st.characters(codec="utf-8"), st.sampled_from(SPECIAL_CHARS)), max_size=12
)
json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.sampled_from([2.0, 4.0, 5000.0, 2**63, 10**4000, -0.0])
    | st.floats()
    | texts,
    lambda children: st.lists(children, max_size=4) | st.dictionaries(texts, children, max_size=4),
    max_leaves=8,
)
@st.composite
def mutated_table_bodies(draw: st.DrawFn) -> dict[str, Any]:
    def pick(options: list[Any]) -> Any:
        return draw(st.sampled_from(options))

    def odd(options: list[Any]) -> Any:
        return draw(st.one_of(st.sampled_from(options), json_values))

    return mutate(sound_table_body(pick), pick, odd)


free_table_bodies = st.fixed_dictionaries(
    {},
    optional={  # type: ignore[arg-type]
        **{k: near(pool) for k, pool in TABLE_FIELDS.items()},
        "rules": st.one_of(
            st.fixed_dictionaries(
                {}, optional={k: near(pool) for k, pool in RULE_FIELDS.items()}  # type: ignore[arg-type]
            ),
            json_values,
        ),
    },
)
session_bodies = st.fixed_dictionaries(
    {}, optional={k: near(pool) for k, pool in SESSION_FIELDS.items()}  # type: ignore[arg-type]
)


@st.composite
def encoded(draw: st.DrawFn, documents: st.SearchStrategy[Any]) -> bytes:
    text = json.dumps(draw(documents), ensure_ascii=draw(st.booleans()))
    return text.encode(draw(st.sampled_from(["utf-8", "utf-16", "utf-8-sig"])), "surrogatepass")


def test_random_table_and_session_bodies_get_coded_answers(db_url: str) -> None:
    """Hypothesis on the two endpoints that read a body: a failure shrinks to its smallest body."""
    with fuzz_client(db_url) as c:
        fuzzer = start_fuzzer(c)

        @settings(
            max_examples=250,
            deadline=None,
            derandomize=True,
            database=None,
            suppress_health_check=list(HealthCheck),
        )
        @given(
            st.one_of(
                st.tuples(st.just("/api/tables"), encoded(mutated_table_bodies())),
                st.tuples(st.just("/api/tables"), encoded(mutated_table_bodies())),
                st.tuples(st.just("/api/tables"), encoded(free_table_bodies)),
                st.tuples(st.just("/api/session"), encoded(session_bodies)),
            ),
            st.sampled_from(["mine", "mine", "mine", "mine", "none", "other"]),
        )
        def one(request: tuple[str, bytes], cookie: str) -> None:
            path, body = request
            req = Req("POST", path, body=body, content_type="application/json", cookie=cookie)
            fuzzer.send(req)

        one()
        as_session(c, fuzzer.mine)
        assert c.post("/api/tables", json={"mode": "local"}).status_code == 200


def test_random_websocket_handshakes_are_answered(db_url: str) -> None:
    gen = Gen(FUZZ_SEED)
    with fuzz_client(db_url) as c:
        fuzzer = start_fuzzer(c)
        for _ in range(150):
            r = gen.r
            table = gen.table_id().replace("{known}", fuzzer.known[r.randrange(2)])
            query = gen.query()
            url = f"/ws/tables/{table}" + ("?" + query if query else "")
            origin = r.choice([None, None, SAME_ORIGIN, *BAD_ORIGINS])
            as_session(c, r.choice([fuzzer.mine, fuzzer.other, None]))
            headers = {} if origin is None else {"origin": origin}
            allowed = origin in (None, SAME_ORIGIN)
            try:
                with c.websocket_connect(url, headers=headers) as ws:
                    assert allowed, (url[:200], origin)
                    first = ws.receive()
                    if first["type"] == "websocket.close":
                        assert first["code"] != 1011, (url[:200], first)  # 1011: internal error
                        continue
                    msg = json.loads(first["text"])
                    assert msg["type"] in ("state", "error"), (url[:200], msg)
                    if msg["type"] == "error":
                        assert msg["code"] == "table_not_found", (url[:200], msg)
            except WebSocketDisconnect as e:  # a refused handshake
                # 4403: a bad Origin; 1000: no such route (an id holding "/", as %2F)
                assert e.code == (1000 if allowed else 4403), (url[:200], origin, e.code)


# ---------------------------------------------------------------------------- regressions


@pytest.mark.parametrize("path", ["/api/tables", "/api/session"])
def test_deep_json_bodies_are_bad_requests(
    db_url: str, path: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    with fuzz_client(db_url) as c:
        # at the default 16 KiB limit a whole 10,000-deep document is too large to be read...
        for kind in ("array", "object"):
            assert_error(c.post(path, content=nested(10_000, kind, True), headers=JSON_TYPE),
                         413, "body_too_large")  # fmt: skip
        # ... while one that fits reaches the parser, which refuses it
        for body in (nested(10_000, "array", False), nested(8_000, "array", True),
                     nested(2_500, "object", True), nested(3_000, "mixed", True)):  # fmt: skip
            assert len(body) <= 16 * 1024
            assert_error(c.post(path, content=body, headers=JSON_TYPE), 400, "bad_request")
        # within the parser's own limit, past the protocol's 32 levels (values that deep once
        # reached error messages that print them)
        for depth in (34, 900):
            r = c.post(path, content=nested(depth, "mixed", True), headers=JSON_TYPE)
            assert_error(r, 400, "bad_request")
            assert "at most 32 levels" in r.json()["error"]["message"]
    # past the body limit, the parser refuses documents 10,000 and 100,000 deep as well
    monkeypatch.setattr("canasta.server.app.MAX_BODY_BYTES", 4 * 1024 * 1024)
    with fuzz_client(db_url) as c:
        for depth in (10_000, 100_000):
            for kind in ("array", "object", "mixed"):
                r = c.post(path, content=nested(depth, kind, True), headers=JSON_TYPE)
                assert_error(r, 400, "bad_request")
        assert c.post("/api/tables", json={"mode": "local"}).status_code == 200


@pytest.mark.parametrize(
    ("path", "body"),
    [
        ("/api/session", b'{"legacy_profile": "\\ud800"}'),
        ("/api/session", b'{"legacy_profile": "legacy\\u0000"}'),
        ("/api/session", b'{"legacy_profile": "\xed\xa0\x80"}'),  # the surrogate as raw bytes
        ("/api/session", b'{"\\udfff": 1}'),
        ("/api/tables", b'{"preset": "\\ud800"}'),
        ("/api/tables", b'{"preset": "classic\\u0000"}'),
        ("/api/tables", b'{"preset": "two-player\\udc00"}'),
        ("/api/tables", b'{"rules": {"\\ud800": true}}'),
        ("/api/tables", b'{"mode": "local", "rules": {"tie": "\\u0000"}}'),
    ],
)
def test_text_with_lone_surrogates_or_nul_is_refused(db_url: str, path: str, body: bytes) -> None:
    with fuzz_client(db_url) as c:
        r = c.post(path, content=body, headers=JSON_TYPE)
        assert 400 <= r.status_code < 500, describe(None, r)
        assert_error_shape(r)
        # and the session still works afterwards
        assert c.post("/api/tables", json={"mode": "local"}).status_code == 200


def test_nul_and_surrogates_in_paths_and_queries(db_url: str) -> None:
    with fuzz_client(db_url) as c:
        for path in ("/api/tables/abc%00def", "/api/tables/%00", "/api/tables/%ED%A0%80",
                     "/api/tables/abc%ED%A0%80def", "/api/tables/" + "x" * 10_000):  # fmt: skip
            assert_error(c.get(path), 404, "table_not_found")
            assert_error(c.delete(path), 405, "method_not_allowed")
        assert_error(c.get("/api/tables/.."), 404, "not_found")
        expected = c.get("/api/stats").json()
        for query in ("profile=abc%00def", "%00=%00", "profile=%ED%A0%80", "%ED%A0%80=x"):
            # the session names the account: the query is ignored, NUL or not
            for method in ("GET", "DELETE"):
                r = c.request(method, f"/api/stats?{query}")
                assert r.status_code == 200 and r.json() == expected, describe(None, r)
            r = c.get(f"/api/tables?{query}")
            assert r.status_code == 200 and r.json() == {"tables": []}, describe(None, r)
        token = session_token(c)
        c.cookies.clear()
        for query in ("profile=abc%00def", "profile=%ED%A0%80"):
            assert_error(c.get(f"/api/stats?{query}"), 401, "no_session")
            assert_error(c.delete(f"/api/stats?{query}"), 401, "no_session")
            assert_error(c.get(f"/api/tables?{query}"), 401, "no_session")
        as_session(c, token)
        assert c.get("/api/stats").status_code == 200


def test_a_20_mb_body_is_refused(db_url: str) -> None:
    with fuzz_client(db_url) as c:
        big = b"x" * (20 * 1024 * 1024)
        assert_error(c.post("/api/tables", content=big, headers=JSON_TYPE), 413, "body_too_large")

        def chunks() -> Iterator[bytes]:  # no Content-Length: counted as it arrives
            for _ in range(20):
                yield b" " * (1024 * 1024)

        r = c.post("/api/tables", content=chunks(), headers=JSON_TYPE)
        assert_error(r, 413, "body_too_large")
        r = c.post("/api/session", content=b"{}", headers={**JSON_TYPE, "content-length": "x"})
        assert r.status_code == 413
        assert c.post("/api/tables", json={"mode": "local"}).status_code == 200


@pytest.mark.parametrize("content_type", ["text/plain", None, "multipart/form-data; boundary=x"])
def test_a_body_not_sent_as_json_is_refused(db_url: str, content_type: str | None) -> None:
    with fuzz_client(db_url) as c:
        headers = {} if content_type is None else {"content-type": content_type}
        r = c.post("/api/tables", content=b'{"mode": "local"}', headers=headers)
        assert_error(r, 415, "unsupported_media_type")


@pytest.mark.parametrize("origin", [EVIL_ORIGIN, "null", "https://testserver"])
def test_state_changes_from_another_origin_are_refused(db_url: str, origin: str) -> None:
    with fuzz_client(db_url) as c:
        bad = {"origin": origin}
        assert_error(c.post("/api/tables", json={}, headers=bad), 403, "bad_origin")
        assert_error(c.post("/api/session", json={}, headers=bad), 403, "bad_origin")
        assert_error(c.delete("/api/stats", headers=bad), 403, "bad_origin")
        r = c.post("/api/tables", json={"mode": "local"}, headers={"origin": SAME_ORIGIN})
        assert r.status_code == 200, r.text


@pytest.mark.parametrize(
    "table", ["abc%00def", "%00", "%ED%A0%80", "abc%ED%B0%80", "%2e%2e", "x" * 10_000]
)
def test_websocket_to_a_bad_table_id_is_answered(db_url: str, table: str) -> None:
    with fuzz_client(db_url) as c:
        with c.websocket_connect(f"/ws/tables/{table}") as ws:
            assert json.loads(ws.receive_text()) == {
                "type": "error",
                "code": "table_not_found",
                "message": "no such table",
            }
            with pytest.raises(WebSocketDisconnect) as closed:
                ws.receive_text()
            assert closed.value.code == 4404
        with pytest.raises(WebSocketDisconnect) as refused:
            with c.websocket_connect(f"/ws/tables/{table}", headers={"origin": EVIL_ORIGIN}):
                pass
        assert refused.value.code == 4403


@pytest.mark.parametrize(
    "body",
    [
        {"rules": {"players": 4.0}},
        {"mode": "local", "rules": {"players": 4.0}},
        {"preset": "two-player", "rules": {"players": 2.0}},
        {"players": 4, "rules": {"players": 4.0}},
    ],
)
def test_a_float_player_count_in_rules_is_a_bad_request(db_url: str, body: dict[str, Any]) -> None:
    with fuzz_client(db_url) as c:
        r = c.post("/api/tables", json=body)
        assert 400 <= r.status_code < 500, describe(None, r)
        assert_error_shape(r)


def test_the_checks_catch_what_they_should() -> None:
    """The fuzz's checks fail on a server error and on a 4xx outside the error format."""

    class Answer:
        def __init__(self, status: int, body: Any) -> None:
            self.status_code = status
            self.content = json.dumps(body).encode()
            self.headers = {"content-type": "application/json", "x-content-type-options": "nosniff"}

        def json(self) -> Any:
            return json.loads(self.content)

    fuzzer = Fuzzer(c=None, mine="", other="")  # type: ignore[arg-type]
    req = Req(method="GET", path="/api/stats")
    fuzzer.check(req, Answer(404, {"error": {"code": "x", "message": ""}}))
    failing: list[Callable[[], None]] = [
        lambda: fuzzer.check(req, Answer(500, {"error": {"code": "x", "message": "m"}})),
        lambda: fuzzer.check(req, Answer(503, {"error": {"code": "x", "message": "m"}})),
        lambda: fuzzer.check(req, Answer(404, {"detail": "Not Found"})),
        lambda: fuzzer.check(req, Answer(400, {"error": {"code": "", "message": "m"}})),
        lambda: fuzzer.check(req, Answer(400, {"error": {"code": "x"}})),
        lambda: fuzzer.check(req, Answer(422, [1])),
    ]
    for check in failing:
        with pytest.raises(AssertionError):
            check()
    found = Req(method="POST", path="/api/tables", body=b'{"rules": {"players": 4.0}}')
    with pytest.raises(AssertionError):  # what the fuzz found once: a 500 is never let pass
        fuzzer.check(found, Answer(500, "Internal Server Error"))
