"""A process that chooses computer seats' moves for a server, beside its event loop.

Run as ``python -c "from canasta.bots.worker import main; main()"``. It reads one JSON request
a line on standard input and writes one JSON answer a line on standard output, each with its
request's id: quick moves are answered before searches that wait with them (:func:`serve`).

It keeps a copy of every match it is asked about, so a request carries only what changed since
the last one for that table:

``{"id": 7, "table": "t1", "record": {...}, "actions": ["draw stock", ...], "at": [1, 12],
"seat": 1, "level": "normal", "seed": 42}``

- ``record`` (optional): the match's record (:meth:`canasta.Game.to_record`); the copy starts
  again from it (and the table's players with it).
- ``actions``: the actions (:func:`canasta.actions.action_to_text`) played since what the copy
  holds, applied in order; :data:`NEXT_HAND` among them deals the next hand, as the match's
  own dealing does (its seed, decks or secret, which the record gave the copy), so a new
  hand costs no record.
- ``dealt`` (required with :data:`NEXT_HAND`, which may then come once): the CRC-32 of the
  new hand's deck (its card codes as bytes, :func:`deck_check`); a copy that dealt another
  deck is dropped.
- ``at``: the number of hands dealt and of actions in the last one that the copy must then
  hold: a copy that does not is dropped and the answer says so.
- ``seat``, ``level``, ``seed``: the seat to move and the computer player that plays it
  (:func:`canasta.bots.make_player`); a table's player is made once and kept, as a server
  keeps it, so it remembers the hand as it would there.
- ``ahead`` and ``computers`` (optional): after its move, play on for up to ``ahead`` moves
  while the seat to move is one of ``computers`` (``{"2": ["normal", 7], ...}``: seat, level
  and seed of each quick computer seat), on a copy of the position, and answer those moves too
  (``then``). Each is chosen exactly as its own request would choose it (a forced move as it
  is, any other by that seat's player from its view), so a table whose computer seats move
  one after another asks once instead of once a move. The match's copy stays where the
  request left it.
- ``sent`` and ``within`` (optional): when the request was sent (``time.time()``) and the
  seconds the server will wait for its move. Expert then searches for what is left of it
  (never under :data:`LEAST_SEARCH` seconds, never over its own budget), so a worker with a
  queue of searches answers later only by a little and plays more on its guide.

The answer is ``{"id": 7, "action": "discard 7H"}`` (with ``"then": ["draw", ...]`` when it
played on), or ``{"id": 7, "error": "resync"}`` when
the copy is missing or differs from ``at`` (send the record), ``{"id": 7, "error":
"superseded"}`` when a later request of the same table had arrived with it (only the latest is
chosen), or ``{"id": 7, "error": "failed", "message": ...}``. ``{"forget": "t1"}`` drops a table's copy and has no answer.
At most :data:`MAX_TABLES` copies are kept (the least recently used go first). The process
ends when its input does.
"""

from __future__ import annotations

import io
import json
import select
import signal
import sys
import time
import zlib
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import IO, Any

from ..actions import Action, action_from_text, action_to_text
from ..fairness import game_from_record
from ..game import Game
from ..state import State
from .common import Player
from .players import make_player
from .search import DEFAULT_TIME, ExpertPlayer

__all__ = ["LEAST_SEARCH", "MAX_TABLES", "NEXT_HAND", "QUICK_LEVELS", "Worker", "deck_check", "main"]

#: in a request's ``actions``: the copy deals the next hand
NEXT_HAND = "next hand"


def deck_check(deck: list[int]) -> int:
    """The check of a dealt deck a request carries as ``dealt``: CRC-32 of its card codes."""
    return zlib.crc32(bytes(deck))

#: the shortest search an Expert request gets, however long it waited (seconds)
LEAST_SEARCH = 0.05

#: match copies kept; a server sends the record again for a table whose copy was dropped
MAX_TABLES = 20_000

#: levels whose moves take well under a millisecond: answered before searches waiting with them
QUICK_LEVELS = frozenset({"random", "beginner", "normal"})


@dataclass
class _Copy:
    game: Game
    players: dict[tuple[int, str, int], Player] = field(default_factory=dict)

    def player(self, seat: int, level: str, seed: int) -> Player:
        """The seat's computer player, made once and kept (it remembers the hand)."""
        key = (seat, level, seed)
        player = self.players.get(key)
        if player is None:
            player = self.players[key] = make_player(level, seed=seed)
        return player


class Worker:
    """The requests' handler (the process's loop is :func:`main`)."""

    def __init__(self, max_tables: int = MAX_TABLES) -> None:
        self.max_tables = max_tables
        self._copies: OrderedDict[str, _Copy] = OrderedDict()

    def __len__(self) -> int:
        return len(self._copies)

    def handle(self, request: dict[str, Any], *, superseded: bool = False) -> dict[str, Any] | None:
        """The answer to one request (None for ``forget``). ``superseded``: a later request
        of the same table is already waiting, so this one only brings the copy up to date
        and is answered ``superseded`` without a choice."""
        if "forget" in request:
            self._copies.pop(str(request["forget"]), None)
            return None
        rid = request.get("id")
        try:
            return {"id": rid, **self._choose(request, superseded)}
        except Exception as e:  # a bad request or a player's failure: the server plays on
            return {"id": rid, "error": "failed", "message": f"{type(e).__name__}: {e}"[:300]}

    def _choose(self, request: dict[str, Any], superseded: bool = False) -> dict[str, Any]:
        table = str(request["table"])
        copy = self._copies.get(table)
        if "record" in request:
            copy = _Copy(game_from_record(request["record"]))
            self._copies[table] = copy
            while len(self._copies) > self.max_tables:
                self._copies.popitem(last=False)
        if copy is None:
            return {"error": "resync"}
        self._copies.move_to_end(table)
        game = copy.game
        texts = request["actions"]
        if texts.count(NEXT_HAND) > (1 if "dealt" in request else 0):
            # a new hand is dealt only with the check of its deck, and once per request
            del self._copies[table]
            return {"error": "resync"}
        try:
            for text in texts:
                if text == NEXT_HAND:
                    game.next_hand()
                else:
                    game.apply(action_from_text(text))
        except Exception:
            del self._copies[table]
            return {"error": "resync"}
        hands, actions = request["at"]
        if (
            len(game.hands) != hands
            or len(game.hands[-1].actions) != actions
            or ("dealt" in request and deck_check(game.hands[-1].deck) != request["dealt"])
        ):
            del self._copies[table]
            return {"error": "resync"}
        if superseded:
            return {"error": "superseded"}
        seat = int(request["seat"])
        state = game.state
        if state.is_over or state.turn != seat:
            raise ValueError(f"seat {seat} is not to move")
        player = copy.player(seat, str(request["level"]), int(request["seed"]))
        if isinstance(player, ExpertPlayer) and "within" in request:
            left = float(request["within"]) - (time.time() - float(request["sent"]))
            player.time_budget = max(LEAST_SEARCH, min(DEFAULT_TIME, left))
        legal = state.legal_actions()
        action = player.choose(state.view(seat, legal))
        answer: dict[str, Any] = {"action": action_to_text(action)}
        ahead = int(request.get("ahead", 0))
        if ahead > 0:
            then = self._ahead(copy, state, action, ahead, request.get("computers") or {})
            if then:
                answer["then"] = then
        return answer

    @staticmethod
    def _ahead(copy: _Copy, state: State, action: Action, ahead: int, computers: dict[str, Any]) -> list[str]:
        """The moves after ``action`` while computer seats of ``computers`` are to move (at
        most ``ahead``, none past the hand's end), chosen as their own requests would be."""
        seats = {int(s): (str(level), int(seed)) for s, (level, seed) in computers.items()}
        position = state.copy()
        position.apply(action)
        then: list[str] = []
        while len(then) < ahead and not position.is_over and position.turn in seats:
            seat = position.turn
            legal = position.legal_actions()
            level, seed = seats[seat]
            if level not in QUICK_LEVELS:
                break  # a search is asked for on its own, with its own time
            if len(legal) == 1:  # forced: the table plays it without asking, so does this
                move = legal[0]
            else:
                move = copy.player(seat, level, seed).choose(position.view(seat, legal))
            then.append(action_to_text(move))
            position.apply(move)
        return then


def _arrived(source: IO[bytes]) -> bool:
    """Whether ``source`` has input (or its end) to read without waiting; False for a source
    that cannot be asked (an in-memory one, read whole anyway)."""
    try:
        return bool(select.select([source], [], [], 0)[0])
    except (OSError, ValueError, io.UnsupportedOperation):
        return False


def _table_of(item: dict[str, Any] | str) -> str | None:
    if isinstance(item, str):
        return None
    return str(item["forget"]) if "forget" in item else str(item.get("table"))


def _next(waiting: list[dict[str, Any] | str]) -> int:
    """The place in ``waiting`` of the request to handle next: the first quick one (a
    :data:`QUICK_LEVELS` move, a forget, an unreadable line) that no earlier request of its
    table waits before (a table's requests keep their order), else the first."""
    seen: set[str | None] = set()
    for i, item in enumerate(waiting):
        table = _table_of(item)
        if table not in seen and (
            isinstance(item, str) or "forget" in item or item.get("level") in QUICK_LEVELS
        ):
            return i
        if table is not None:
            seen.add(table)
    return 0


def serve(source: IO[bytes], sink: IO[bytes], worker: Worker | None = None) -> None:
    """Answer every request line of ``source`` on ``sink`` until ``source`` ends.

    Answers carry their request's id and come in the order requests are handled, which is
    not always the order they came in: between two requests the worker takes up what has
    arrived meanwhile, and a quick move (Beginner's, Normal's: well under a millisecond)
    waiting behind searches is answered first, so that tables of searching seats (many of
    them, one account's perhaps) never hold up every other table's computer seats. A table's
    own requests keep their order, and of several waiting at once only the last is chosen
    (the earlier ones, answered ``superseded``, only bring its copy up to date): a flood of
    requests costs no search."""
    worker = worker or Worker()
    rest = b""
    waiting: list[dict[str, Any] | str] = []
    #: requests with an id waiting, per table (more than one: all but the last superseded)
    counts: dict[str, int] = {}
    answers: list[dict[str, Any]] = []
    ended = False

    def take(chunk: bytes) -> None:
        nonlocal rest
        *lines, rest = (rest + chunk).split(b"\n")
        for line in lines:
            if not line.strip():
                continue
            try:
                request = json.loads(line)
                if not isinstance(request, dict):
                    raise ValueError("a request is a JSON object")
            except ValueError as e:
                waiting.append(str(e)[:300])
            else:
                waiting.append(request)
                if "id" in request:
                    table = str(request.get("table"))
                    counts[table] = counts.get(table, 0) + 1

    def flush() -> None:
        if answers:
            sink.write(b"".join(json.dumps(a, separators=(",", ":")).encode() + b"\n" for a in answers))
            sink.flush()
            answers.clear()

    while True:
        if not waiting:
            flush()  # before waiting for more: every answer ready is out
            if ended:
                break
        if not ended and (not waiting or _arrived(source)):
            chunk = source.read1(1 << 16)  # type: ignore[attr-defined]
            if chunk:
                take(chunk)
            else:
                ended = True
            if not waiting:
                continue
        item = waiting.pop(_next(waiting))
        if isinstance(item, str):
            answers.append({"id": None, "error": "failed", "message": item})
            continue
        superseded = False
        if "id" in item:
            table = str(item.get("table"))
            counts[table] -= 1
            superseded = counts[table] > 0
            if not counts[table]:
                del counts[table]
            if not superseded and item.get("level") not in QUICK_LEVELS:
                flush()  # what is answered goes out before a search
        answer = worker.handle(item, superseded=superseded)
        if answer is not None:
            answers.append(answer)
            if len(answers) >= 64:  # a long run of quick moves: out as they come, in batches
                flush()


def main() -> None:
    # the server stops its workers itself: a Ctrl-C at its terminal is not theirs to take
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    serve(sys.stdin.buffer, sys.stdout.buffer)
