"""The ``canasta`` command: replay and verify records, play a demo hand, run the web app and the arena."""

from __future__ import annotations

import argparse
import json
import random
import sys
from typing import Any

from .actions import action_from_json, action_to_text
from .describe import describe_state
from .errors import CanastaError, FormatError, IllegalAction
from .fairness import verify_record
from .game import Game, ReplayError, replay_record
from .position import POSITION_FORMAT, position_to_json, state_from_position
from .rules import PRESETS, Settings


def _load(path: str) -> Any:
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except OSError as e:
        raise FormatError("unreadable_file", f"cannot read {path}: {e.strerror}") from e
    except json.JSONDecodeError as e:
        raise FormatError("bad_json", f"{path} is not valid JSON: {e.msg} (line {e.lineno})") from e
    except UnicodeDecodeError as e:
        raise FormatError("bad_json", f"{path} is not UTF-8 text") from e


def cmd_replay(args: argparse.Namespace) -> int:
    try:
        data = _load(args.file)
        if isinstance(data, dict) and data.get("format") == POSITION_FORMAT:
            state = state_from_position(data)
            actions = data.get("actions", [])
            if not isinstance(actions, list):
                raise FormatError("bad_position", "'actions' must be a list")
            for i, raw in enumerate(actions):
                action = action_from_json(raw)
                err = state.check(action)
                if err is not None:
                    return _illegal(args, i, action_to_text(action), err)
                state.apply(action)
            out: dict[str, Any] = {"position": position_to_json(state) if not state.is_over else None}
            out["result"] = state.result.to_json() if state.result else None
            text = describe_state(state)
        else:
            try:
                game, _ = replay_record(data)
            except ReplayError as e:
                index = sum(len(h.get("actions", [])) for h in data["hands"][: e.hand - 1]) + e.index
                return _illegal(args, index, "", e.error, hand=e.hand)
            out = {
                "scores": game.scores,
                "over": game.is_over,
                "winners": game.winners,
                "hands": [h.result.to_json() if h.result else None for h in game.hands],
                "position": None if game.state.is_over else position_to_json(game.state),
            }
            text = describe_state(game.state) + f"\nScores: {game.scores}" + (
                f"\nMatch over, winner(s): {game.winners}" if game.is_over else ""
            )
    except FormatError as e:
        print(f"error: {e.code}: {e.message}", file=sys.stderr)
        return 2
    except CanastaError as e:
        print(f"error: {e.code}: {e.message}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(out, indent=1))
    else:
        print(text)
    return 0


def _illegal(args: argparse.Namespace, index: int, text: str, err: IllegalAction, hand: int | None = None) -> int:
    if args.json:
        print(json.dumps({"error": {"index": index, "hand": hand, **err.to_json()}}))
    else:
        where = f"hand {hand}, " if hand else ""
        print(f"illegal action at index {index} ({where}{text}): {err.code} [{err.section}] {err.message}")
    return 1


def cmd_verify(args: argparse.Namespace) -> int:
    try:
        data = _load(args.file)
    except FormatError as e:
        print(f"error: {e.code}: {e.message}", file=sys.stderr)
        return 2
    result = verify_record(data)
    for line in result.lines:
        print(line)
    if result.failure is not None:
        print(f"verification failed: {result.failure.code}: {result.failure.message}", file=sys.stderr)
        return 1
    print("verified: every revealed deal is the deal of its committed seed")
    return 0


def cmd_demo(args: argparse.Namespace) -> int:
    settings = Settings.preset(args.preset)
    seed = args.seed if args.seed is not None else random.randrange(10**6)
    game = Game(settings, seed=seed)
    rng = random.Random(seed)
    player: Any = None
    try:
        from .bots import make_player

        players = [make_player("normal", seed=seed + i) for i in range(settings.players)]
    except ImportError:  # pragma: no cover - bots ship with the package
        players = []
    state = game.state
    print(f"Demo hand, preset {settings.name}, seed {seed}\n" + describe_state(state) + "\n")
    while not state.is_over:
        seat = state.turn
        if players:
            player = players[seat]
            action = player.choose(state.view(seat))
        else:
            action = rng.choice(state.legal_actions())
        game.apply(action)
        print(f"seat {seat}: {action_to_text(action)}")
    print("\n" + describe_state(state))
    return 0


def cmd_serve(args: argparse.Namespace) -> int:
    try:
        from .server import run
    except ImportError as e:
        print(f"the web app needs its extra dependencies: pip install 'canasta[web]' ({e})", file=sys.stderr)
        return 2
    # the parser names each option after run's keyword (its dest); repeated options are tuples
    options = {k: v for k, v in vars(args).items() if k not in ("command", "func")}
    options["allowed_origins"] = tuple(args.allowed_origins or ())
    options["allowed_hosts"] = tuple(args.allowed_hosts) if args.allowed_hosts else None
    run(**options)
    return 0


def cmd_admin(args: argparse.Namespace) -> int:
    from .server.reports import admin_reports

    return int(admin_reports(args.db, open_only=args.open, handle=args.handle))


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="canasta", description="Classic Canasta: rules engine, computer players, web app.")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")
    r = sub.add_parser("replay", help="replay a game record, or a position followed by actions")
    r.add_argument("file")
    r.add_argument("--json", action="store_true", help="print the final state and scores as JSON")
    r.set_defaults(func=cmd_replay)
    v = sub.add_parser("verify", help="check a record's deals against their commitments and replay it")
    v.add_argument("file")
    v.set_defaults(func=cmd_verify)
    d = sub.add_parser("demo", help="play and print a demo hand between computer players")
    d.add_argument("--preset", default="classic", choices=list(PRESETS))
    d.add_argument("--seed", type=int)
    d.set_defaults(func=cmd_demo)
    s = sub.add_parser("serve", help="run the web app (local server with an embedded SQLite database)")
    s.add_argument("--host", default="127.0.0.1")
    s.add_argument("--port", type=int, default=8000)
    s.add_argument("--db", default=None, help="database URL (default: SQLite in the user data directory)")
    s.add_argument("--allowed-origin", action="append", dest="allowed_origins", metavar="ORIGIN", help="an origin (https://host) whose pages may use this server (default: same origin only); repeatable")
    s.add_argument("--allowed-host", action="append", dest="allowed_hosts", metavar="HOST", help="a Host name to answer to (default: loopback names when bound to loopback, else any); repeatable")
    s.add_argument("--api-docs", action="store_true", help="serve /docs and /openapi.json")
    s.add_argument("--no-access-log", action="store_false", dest="access_log", help="do not log each request")
    s.add_argument("--secure-cookies", action="store_true", help="mark the session cookie Secure (serving over HTTPS behind a proxy)")
    s.add_argument("--metrics", choices=("loopback", "on", "off"), default="loopback", help="who may read /metrics (default: this machine only)")
    s.add_argument("--forwarded-allow-ips", metavar="IPS", help="trust X-Forwarded-For/-Proto from these proxy addresses (comma-separated)")
    s.add_argument("--move-seconds", type=float, default=40.0, metavar="S", help="seconds for each decision at online tables before the server plays for the player (default: 40)")
    s.add_argument("--computer-processes", type=int, metavar="N", help="worker processes that choose the computer seats' moves beside the event loop (default: one per core but one, at most 4; 0: in the server process)")
    s.add_argument("--redis", metavar="URL", help="run as one of several nodes on one PostgreSQL database, with leases and messages over this Redis (redis://host:port/0)")
    s.add_argument("--smtp", dest="smtp_url", metavar="URL", help="send recovery and confirmation email through this server: smtp://[user:pass@]host[:port], smtp+starttls://… or smtps://… (default: recovery is unavailable)")
    s.add_argument("--public-url", metavar="URL", help="the address players reach this server at, for links in email (default: the host name the request was sent to, one of --allowed-host; --smtp needs one or the other)")
    s.add_argument("--no-registration-without-smtp", action="store_false", dest="registration_without_smtp", help="without --smtp, refuse registration (default: register at once, unconfirmed; see docs/protocol.md)")
    s.set_defaults(func=cmd_serve)
    a = sub.add_parser("admin", help="server administration: reported problems")
    asub = a.add_subparsers(dest="admin_command", metavar="WHAT", required=True)
    ar = asub.add_parser("reports", help="list reported problems, or mark one handled")
    ar.add_argument("--open", action="store_true", help="only the reports not handled yet")
    ar.add_argument("--handle", type=int, metavar="ID", help="mark report ID handled")
    ar.add_argument("--db", default=None, help="database URL (default: SQLite in the user data directory)")
    ar.set_defaults(func=cmd_admin)
    sub.add_parser("arena", help="pit computer players against each other on duplicate deals", add_help=False)
    from . import tui

    tui.add_arguments(pl := sub.add_parser("play", help="play a match against the computer in the terminal (Textual)"))
    pl.set_defaults(func=tui.main)
    return p


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] == "arena":
        from .bots.arena import main as arena_main

        return int(arena_main(argv[1:]) or 0)
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 0
    return int(args.func(args))


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
