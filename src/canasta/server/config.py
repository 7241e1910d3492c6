"""The server's settings: limits, origins and hosts, and what a deployment may relax.

Every limit here is documented in ``docs/protocol.md`` (section "Limits"). The defaults are the
ones ``canasta serve`` runs with; tests build smaller or looser ones explicitly.
"""

from __future__ import annotations

from dataclasses import dataclass

#: the largest HTTP request body (the largest legal body, a table request, is under 2 KiB)
MAX_BODY_BYTES = 16 * 1024
#: the largest record a player may import to replay (a long classic match is under 40 KiB)
MAX_RECORD_BYTES = 256 * 1024
#: the paths whose bodies may be larger than MAX_BODY_BYTES, and their own limit
BODY_LIMITS = {"/api/replays/import": MAX_RECORD_BYTES}


@dataclass(frozen=True, kw_only=True)
class ServerConfig:
    """Limits and policies of one server process."""

    #: origins (``scheme://host[:port]``) whose pages may use the websocket and change state;
    #: empty: same origin only (the Origin must name the Host the request was sent to)
    allowed_origins: tuple[str, ...] = ()
    #: Host header values served; empty: any (``canasta serve`` on loopback sets loopback names)
    allowed_hosts: tuple[str, ...] = ()
    #: whether ``seed`` is accepted when creating a table (tests and replays); seeded tables
    #: never count toward statistics either way
    allow_seeds: bool = False
    #: serve ``/docs`` and ``/openapi.json``
    api_docs: bool = False
    #: Prometheus metrics at ``/metrics`` (counts only: no identities, no cards):
    #: "loopback" serves them to this machine only, "on" to anyone, "off" to no one
    metrics: str = "loopback"
    #: send the session cookie with ``Secure`` whatever the request's scheme (behind a TLS proxy)
    secure_cookies: bool = False
    #: ``/healthz`` and ``GET /api/tables/{id}`` per client address per minute
    reads_per_minute_per_address: int = 600
    #: new records ``POST /api/replays/import`` replays per client address per minute (each one
    #: a whole record, up to 20,000 actions; views of a record replayed lately do not count)
    imports_per_minute_per_address: int = 30
    #: replay views (``GET /api/replays/{table}``, ``POST /api/replays/import``: each builds a
    #: hand's steps) per client address per minute, and at once
    replay_views_per_minute_per_address: int = 120
    replay_views_burst: int = 20
    #: ``suggest`` per socket: per second, and in one burst (each one is a search)
    suggest_rate: float = 1.0
    suggest_burst: int = 3
    #: the fastest a computer seat may move (ms), whatever delay a client asks for
    min_bot_delay_ms: int = 150

    # websocket traffic, per connection
    #: messages a socket may send per second (sustained) and in one burst; past that it is
    #: closed with code 1008 (policy violation), as lichess's websocket server does
    message_rate: float = 10.0
    message_burst: int = 30
    #: messages of one socket waiting in its table's queue; past that the server stops reading
    #: that socket until the table catches up (backpressure)
    inflight_per_conn: int = 8
    #: messages waiting to be written to a slow reader; past that the socket is dropped
    outbox_limit: int = 64
    #: sockets at one table: the owner's (always admitted up to this many) and spectators'
    owner_sockets_per_table: int = 8
    spectators_per_table: int = 24
    #: sockets from one client address (an IPv6 address counts by its /64)
    sockets_per_address: int = 64
    #: sockets one client address may open per minute (each one is sent a full state)
    socket_opens_per_minute_per_address: int = 120
    #: seconds a connection has to send a request's headers, from its opening (or from the
    #: first byte after a response on a kept-alive connection); a client silent or slower than
    #: that is disconnected, so half-sent headers cannot hold the server's connections (a
    #: request's body is not timed: a reverse proxy's body timeout bounds it)
    header_seconds: float = 10.0

    # tables
    #: tables one session may create per minute, and one client address
    tables_per_minute: int = 20
    tables_per_minute_per_address: int = 60
    #: live (in-memory) tables one session may hold; older idle ones are unloaded to make room
    live_tables_per_session: int = 8
    #: live tables in the whole process
    live_tables: int = 5000
    #: sessions one client address may start per minute
    sessions_per_minute_per_address: int = 30
    #: changes of a table's cosmetic settings per second (each one is saved)
    settings_rate: float = 1.0
    settings_burst: int = 5
    #: pauses and resumes of a table against the computer per second, and in one burst (the
    #: page pauses while its settings are open; each one is a committed change)
    pause_rate: float = 2.0
    pause_burst: int = 10
    #: "Continue CPU" (``step``) presses per second, and in one burst (each one is a move)
    step_rate: float = 4.0
    step_burst: int = 4
    #: how long tables stay in memory with no socket: finished matches, and the others
    finished_idle_seconds: float = 120.0
    idle_seconds: float = 600.0
    sweep_seconds: float = 30.0

    # online play
    #: seconds a player has for each decision at an online table (then the server plays for
    #: them and the seat switches to auto-play)
    move_seconds: float = 40.0
    #: seconds a seated player may be disconnected before the seat switches to auto-play
    grace_seconds: float = 20.0
    #: seconds an online match goes on with none of its players connected before it is
    #: abandoned (at once when every player has left it): nobody plays it for nobody
    unattended_seconds: float = 120.0
    #: seconds between two hands of an online match when not every player asks for the next
    hand_break_seconds: float = 30.0
    #: the computer players' delay at online tables (ms): every seat moves at the same pace
    online_bot_delay_ms: int = 900
    #: seconds a quick-match entry waits for its browser to come back (a reload, a restart)
    queue_grace_seconds: float = 30.0
    #: quick match's pairing window: a group whose ratings are far apart waits up to this
    #: many seconds for nearer players (the accepted spread widens meanwhile; close groups
    #: start at once); 0: every full group starts at once
    pairing_seconds: float = 4.0
    #: private rooms: how long one lives without being started (a player joining renews it),
    #: how long at most in all, how many exist at once, and how many the sessions of one client
    #: address may host at once
    room_seconds: float = 1800.0
    room_lifetime_seconds: float = 7200.0
    rooms: int = 2000
    rooms_per_address: int = 16
    #: whether a quick match two of whose people joined from one client address changes
    #: ratings (False: it is played unrated, so one machine's throwaway accounts cannot farm
    #: them; True for a club or a LAN where everyone shares an address)
    rate_shared_networks: bool = False
    #: lobby requests that change something (queue, rooms) per session per minute
    lobby_actions_per_minute: int = 60
    #: quick-chat messages per player per minute, and name changes per session per minute
    chat_per_minute: int = 12
    names_per_minute: int = 10
    #: how often the live-match list is sent to lobby sockets at most (seconds)
    live_list_seconds: float = 1.0

    # computer seats
    #: worker processes that choose the computer seats' moves off the event loop (0: chosen
    #: in this process; None: one per core but one, at most four: ``thinkers.default_processes``)
    computer_processes: int | None = None
    #: seconds a worker may take to answer before it is stopped and the table chooses itself
    computer_timeout_seconds: float = 30.0

    # storage
    #: how often a table whose saves fail probes the database again
    storage_retry_seconds: float = 1.0
    #: how long a SQLite write waits for a lock held elsewhere before it counts as a failure
    sqlite_busy_seconds: float = 30.0
    #: refuse to start while another process serves the same database
    single_node: bool = True
    #: several nodes on one PostgreSQL database: leases and forwarding over this Redis
    #: (``redis://host:port/db``); None: one process, messaging in memory
    redis_url: str | None = None

    # accounts, coins and reports (server/accounts.py; docs/protocol.md "Accounts, ratings...")
    #: registration without an SMTP server (below), where no address can be confirmed: True
    #: registers at once, unconfirmed (a taken email is then refused, which says it is taken:
    #: see docs/protocol.md); False refuses it (``registration_unavailable``)
    registration_without_smtp: bool = True
    #: the SMTP server recovery email goes through (None: recovery is unavailable), its sender,
    #: and the address the links in it point to (None: the address the request was sent to)
    smtp_url: str | None = None
    smtp_from: str = "Canasta <no-reply@localhost>"
    public_url: str | None = None
    #: login, registration and reset attempts per client address per minute; failed logins per
    #: email per hour from one address and from every address; registrations per address per
    #: hour; recovery emails per address and per email per hour; reports per account per hour
    auth_per_minute_per_address: int = 10
    login_failures_per_hour_per_email_and_address: int = 10
    login_failures_per_hour_per_email: int = 100
    registrations_per_hour_per_address: int = 5
    recoveries_per_hour_per_address: int = 10
    recoveries_per_hour_per_email: int = 3
    reports_per_hour: int = 5
    #: the upkeep's purge of sessions and guests nobody can use any more: how often it runs
    #: (seconds), and how old an unreachable guest must be before it goes (its session may be
    #: a moment behind it while a login or a merge is under way)
    purge_seconds: float = 3600.0
    orphan_guest_seconds: float = 3600.0
    #: a guest that never played (no table, statistics, coins or match) and was not seen this
    #: long (seconds) has its sessions ended, and then goes as above
    empty_guest_seconds: float = 30 * 86400.0
    #: how long a recovery link works (seconds)
    recovery_seconds: float = 1800.0
    #: how long a link confirming an email (registration, a new email) works (seconds), and
    #: how many such mails one address may be sent per hour
    confirm_seconds: float = 86400.0
    emails_per_hour_per_email: int = 3

    def origin_allowed(self, origin: str, host: str | None, scheme: str) -> bool:
        """Whether a page of ``origin`` may act on this server (reached as ``host``)."""
        if origin in self.allowed_origins:
            return True
        if self.allowed_origins or host is None or origin == "null":
            return False
        http = "https" if scheme in ("https", "wss") else "http"
        return origin == f"{http}://{host}"

    def host_allowed(self, host: str | None) -> bool:
        if not self.allowed_hosts:
            return True
        if host is None:
            return False
        name = host.rsplit(":", 1)[0] if not host.endswith("]") else host
        return name in self.allowed_hosts or host in self.allowed_hosts


#: the Host names a server bound to loopback answers to (a DNS-rebinding guard)
LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "[::1]")
