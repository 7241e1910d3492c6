"""Who controls which seat of a table, and the checks every command makes first.

A mixin of :class:`canasta.server.table.Table`: the table's socket-to-seat mapping lives here,
apart from the worker and from the commands.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .conn import Conn
from .protocol import TableError, version_of

if TYPE_CHECKING:
    from ..game import Game
    from .players import SeatInfo


class Seating:
    """A connection's seat: the owner plays seat 0 against the computer, the revealed seat in
    pass-and-play; anyone else watches."""

    profile: str | None
    mode: str
    handoff: int | None
    viewer: int | None
    version: int
    game: Game
    seats: list[SeatInfo]

    if TYPE_CHECKING:

        def seat_of(self, account: str | None) -> int | None: ...
        def bot_plays(self, seat: int) -> bool: ...

    def owns(self, profile: str | None) -> bool:
        """Whether ``profile`` (an account id) controls this table: its owner does, and at an
        online table each player (for their own seat)."""
        if self.mode == "online":
            return self.seat_of(profile) is not None
        return profile is not None and profile == self.profile

    @staticmethod
    def watches(conn: Conn | None) -> bool:
        """Whether this connection only watches the table (it is not its owner's, or its
        players')."""
        return conn is None or not conn.owner

    def view_seat(self, conn: Conn | None) -> int | None:
        """The seat whose view this connection is sent (None: the spectator view)."""
        if conn is None or not conn.owner:
            return None
        if self.mode == "online":
            return self.seat_of(conn.account)
        if self.mode == "computer":
            return 0
        return None if self.handoff is not None else self.viewer


    def _controlled_seat(self, conn: Conn, msg: dict[str, Any]) -> int:
        """The seat this connection plays now (pass-and-play: the revealed seat)."""
        if not conn.owner:
            raise TableError("not_your_table", "this table belongs to another profile")
        if self.mode == "online":
            found = self.seat_of(conn.account)
            if found is None:
                raise TableError("not_seated", "you are watching this table: only its players act")
            if self.bot_plays(found):
                raise TableError("auto_play", "your seat is on auto-play: press \"I'm back\" first")
            seat = found
        elif self.mode == "computer":
            seat = 0
        else:
            if self.handoff is not None:
                raise TableError(
                    "hidden_until_reveal",
                    f"pass the device: player {self.handoff + 1} must reveal first",
                )
            if self.viewer is None:
                raise TableError("hidden_until_reveal", "reveal a seat first")
            seat = self.viewer
        claimed = msg.get("seat", seat)
        if claimed != seat:
            raise TableError(
                "wrong_seat", f"this client plays seat {seat}, not {str(claimed)[:20]}"
            )
        return seat

    def _acting_seat(self, conn: Conn, msg: dict[str, Any]) -> int:
        seat = self._controlled_seat(conn, msg)
        st = self.game.state
        if st.is_over:
            raise TableError("hand_over", "the hand is over: deal the next hand")
        if st.turn != seat:
            raise TableError("not_your_turn", f"it is seat {st.turn}'s turn")
        return seat

    def _check_version(self, msg: dict[str, Any]) -> None:
        v = version_of(msg)
        if v != self.version:
            raise TableError(
                "stale_version",
                f"the table is at version {self.version}, not {v}: redraw and retry",
            )

    def _check_owner(self, conn: Conn) -> None:
        if not conn.owner:
            raise TableError("not_your_table", "this table belongs to another profile")

    def _undoable(self, seat: int) -> bool:
        """R15: the seat's meld actions of this turn, and (computer mode) its discard until the
        next seat acts; never online (R15)."""
        if self.mode == "online":
            return False
        st = self.game.state
        actions = self.game.hands[-1].actions
        if st.is_over or not actions or not st.history or st.history[-1].seat != seat:
            return False
        kind = actions[-1].kind
        if kind == "meld":
            return st.turn == seat
        if kind == "discard":
            return self.mode == "computer" and self.seats[st.turn].kind == "computer"
        return False

    def _can_undo(self, conn: Conn | None) -> bool:
        if conn is None:
            return False
        try:
            seat = self._controlled_seat(conn, {})
        except TableError:
            return False
        return self._undoable(seat)
