"""The Textual app: draws a :class:`Session` and turns keys into its actions."""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

from rich.text import Text
from textual import events
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.timer import Timer
from textual.widgets import Footer, RichLog, Static

from .. import SeatView
from ..actions import ASK, DECLINE, NO, YES, Action
from ..cards import FACE_TOKEN, card_str
from .session import Session

RED = {"D", "H"}
HELP = (
    "← → cursor · space select · g stage the selection as a group (wilds only: then press its rank) · "
    "m meld the staged groups and the selection · t take the pile with them · x discard (with staged "
    "groups: go out) · d draw · s suggestion, Enter plays it · u undo · c clear · ? ask partner · "
    "y/n answer · e decline the pile · Enter next hand · q quit"
)
RANK_KEYS = set("a456789tjqk")

#: the human's moves by the name its key binding gives: each applies it, True if it was legal
MOVES: dict[str, Callable[[Session], bool]] = {
    "draw": Session.draw,
    "take": Session.take,
    "meld": Session.meld,
    "discard": Session.discard,
    "ask": lambda s: s.act(ASK),
    "yes": lambda s: s.act(YES),
    "no": lambda s: s.act(NO),
    "decline": lambda s: s.act(DECLINE),
}


def card_text(code: int, style: str = "") -> Text:
    s = card_str(code)
    colour = "red" if s[1] in RED or s == "JK" else ""
    return Text(s, style=" ".join(x for x in (colour, style) if x))


def table_text(view: SeatView, names: tuple[str, ...]) -> str:
    """Scores, melds of every side, red threes, the pile and the stock, as plain text."""
    me = view.seat or 0
    lines = []
    teams = [f"{'/'.join(n for i, n in enumerate(names) if view.team_of[i] == t)} {score}" for t, score in enumerate(view.scores)]
    target = str(view.settings.target).replace("_", " ")
    lines.append(f"Hand {view.hand_number} · {view.settings.name} to {target} · scores: " + " · ".join(teams))
    done: list[int] = []
    for seat in [(me + k) % view.players for k in range(view.players)]:
        side = view.side_of[seat]
        if side in done:
            continue
        done.append(side)
        who = "/".join(names[i] for i in range(view.players) if view.side_of[i] == side)
        melds = "  ".join(
            f"{FACE_TOKEN[m.rank]}×{len(m.cards)}"
            + (f"({m.wilds}w)" if m.wilds else "")
            + (" CANASTA" + (" natural" if not m.wilds else " mixed") if len(m.cards) >= 7 else "")
            for m in view.melds[side]
        )
        state = "" if view.opened(side) else f" (not opened: needs {view.opening_minimum(seat)})"
        lines.append(f"{who}: {melds or '-'}{state}")
    for seat in range(view.players):
        reds = " ".join(card_str(c) for c in view.red_threes[seat])
        known = " ".join(card_str(c) for c in view.known[seat]) if seat != me else ""
        lines.append(
            f"  {names[seat]:8} {view.hand_counts[seat]:2} card{'' if view.hand_counts[seat] == 1 else 's'}"
            + (f"  red threes {reds}" if reds else "")
            + (f"  known {known}" if known else "")
            + ("  ◀ to act" if view.turn == seat and view.result is None else "")
        )
    top = card_str(view.pile_top) if view.pile_top is not None else "-"
    causes = view.frozen_causes(view.side_of[me])
    frozen = f"FROZEN for you ({', '.join(c.replace('_', ' ') for c in causes)})" if causes else "not frozen"
    lines.append(f"Pile: top {top}, {len(view.pile)} cards, {frozen} · Stock: {view.stock_size} cards")
    return "\n".join(lines)


def result_text(session: Session) -> str:
    """End-of-hand scores for every side, and the match result when it is over."""
    view = session.view
    r = view.result
    if r is None:
        return ""
    names = session.names
    lines = [f"Hand {view.hand_number} over: {r.reason.replace('_', ' ')}" + (f", {names[r.went_out]} went out" + (" concealed" if r.concealed else "") if r.went_out is not None else "")]
    for s in r.sides:
        who = "/".join(names[i] for i in s.seats)
        lines.append(
            f"  {who}: melds {s.melds} + canastas {s.canasta_bonus} + red threes {s.red_three_bonus}"
            f" + going out {s.going_out} - in hand {s.hand_penalty} = {s.total}"
        )
    game = session.game
    team_names = ["/".join(names[i] for i in range(len(names)) if view.team_of[i] == t) for t in range(len(game.scores))]
    lines.append("Totals: " + " · ".join(f"{n} {x}" for n, x in zip(team_names, game.scores, strict=True)))
    if game.is_over:
        winners = ", ".join("/".join(names[i] for i in range(len(names)) if view.team_of[i] == t) for t in game.winners)
        lines.append(f"MATCH OVER, winner: {winners}")
    return "\n".join(lines)


class CanastaApp(App[int]):
    """``canasta play``: a match against the computer in the terminal."""

    CSS = """
    #table { border: round $accent; padding: 0 1; }
    #log { border: round $panel; height: 1fr; min-height: 3; padding: 0 1; }
    #hand { border: round $success; padding: 0 1; }
    #message { padding: 0 1; }
    #result { padding: 0 1; color: $warning; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("left", "move(-1)", "←", show=False),
        Binding("right", "move(1)", "→", show=False),
        Binding("space", "select", "select"),
        Binding("d", "play('draw')", "draw"),
        Binding("t", "play('take')", "take pile"),
        Binding("g", "stage", "group"),
        Binding("m", "play('meld')", "meld"),
        Binding("x", "play('discard')", "discard"),
        Binding("s", "suggest", "suggest"),
        Binding("enter", "enter", "play/next"),
        Binding("u", "undo", "undo"),
        Binding("c", "clear", "clear"),
        Binding("escape", "clear", "clear", show=False),
        Binding("y", "play('yes')", "yes", show=False),
        Binding("n", "play('no')", "no", show=False),
        Binding("question_mark", "play('ask')", "ask partner", show=False),
        Binding("e", "play('decline')", "decline", show=False),
        Binding("h", "help", "help"),
        Binding("q", "quit", "quit"),
    ]

    def __init__(self, session: Session, *, delay: float = 0.6) -> None:
        super().__init__()
        self.session = session
        self.delay = delay
        self.wants_rank = False
        self.thinking = False
        self.logged = 0  # log lines already written to the screen
        self.pending: Timer | None = None
        self.title = "Canasta"

    def compose(self) -> ComposeResult:
        yield Static(id="table", markup=False)
        yield RichLog(id="log", markup=False, wrap=True, max_lines=500)
        yield Static(id="result", markup=False)
        yield Static(id="hand", markup=False)
        yield Static(id="message", markup=False)
        yield Footer()

    def on_mount(self) -> None:
        self.refresh_all()
        self.schedule_computer()

    # ------------------------------------------------------------------ drawing

    def hand_text(self) -> Text:
        s = self.session
        hand = s.hand
        free = set(s.free_positions())
        out = Text("Your hand: ")
        for i, c in enumerate(hand):
            style = "reverse" if i == s.cursor else ""
            left, right = " ", " "
            if i not in free:  # in a staged group
                left, right = "(", ")"
                style += " dim"
            elif i in s.selected:
                left, right = "[", "]"
                style += " bold"
            out.append(left)
            out.append_text(card_text(c, style.strip()))
            out.append(right)
        out.append("\n[selected]  (staged)  cursor: ← →")
        if s.staged:
            out.append(f"\nStaged: {s.plan_text()}")
        return out

    def refresh_all(self) -> None:
        s = self.session
        view = s.view
        self.query_one("#table", Static).update(table_text(view, s.names))
        log = self.query_one("#log", RichLog)
        for line in s.log[self.logged :]:
            log.write(line)
        self.logged = len(s.log)
        self.query_one("#result", Static).update(result_text(s))
        self.query_one("#hand", Static).update(self.hand_text())
        self.query_one("#message", Static).update(s.message)

    def schedule_computer(self) -> None:
        """Start the computer's next decision after ``delay`` (again if the match changed)."""
        st = self.session.game.state
        if st.is_over or st.turn == self.session.human or self.thinking:
            return  # a running decision reschedules itself when it ends
        if self.pending is not None:
            self.pending.stop()
        self.pending = self.set_timer(max(self.delay, 0.001), self.computer_move)

    def computer_move(self) -> None:
        """Let the computer decide in a thread (Expert searches for up to a second)."""
        self.pending = None
        view = self.session.computer_view()
        if view is None:
            return
        self.thinking = True
        version = self.session.version
        self.run_worker(lambda: self._think(view, version), thread=True, group="computer")

    def _think(self, view: SeatView, version: int) -> None:
        assert view.seat is not None
        action = self.session.computers[view.seat].choose(view)
        self.call_from_thread(self._computer_chose, view.seat, action, version)

    def _computer_chose(self, seat: int, action: Action, version: int) -> None:
        self.thinking = False
        if version == self.session.version:  # else the human undid meanwhile: decide again
            self.session.computer_play(seat, action)
            self.refresh_all()
        self.schedule_computer()

    def after(self, acted: bool) -> None:
        self.refresh_all()
        if acted:
            self.schedule_computer()

    # ------------------------------------------------------------------ keys

    async def on_key(self, event: events.Key) -> None:
        if self.wants_rank and event.key.lower() in RANK_KEYS:
            # the rank of a wild-only group: this key is not its usual command (q, t, j, k ...)
            event.prevent_default()
            event.stop()
            self.wants_rank = False
            self.session.stage(event.key)
            self.refresh_all()

    def action_move(self, step: int) -> None:
        self.session.move(step)
        self.refresh_all()

    def action_select(self) -> None:
        self.session.toggle()
        self.refresh_all()

    def action_stage(self) -> None:
        self.wants_rank = not self.session.stage()
        self.refresh_all()

    def action_clear(self) -> None:
        self.session.clear()
        self.session.message = self.session.hint()
        self.refresh_all()

    def _mine(self) -> bool:
        if not self.session.my_turn:
            self.session.message = self.session.hint()
            self.refresh_all()
            return False
        return True

    def action_play(self, move: str) -> None:
        """One of the human's moves (a key of :data:`MOVES`), on its turn only."""
        if self._mine():
            self.after(MOVES[move](self.session))

    def action_suggest(self) -> None:
        self.session.suggest()
        self.refresh_all()

    def action_enter(self) -> None:
        s = self.session
        if s.game.state.is_over:
            self.after(s.next_hand())
        elif self._mine():
            self.after(s.play_suggestion())

    def action_help(self) -> None:
        self.session.message = HELP
        self.refresh_all()

    def action_undo(self) -> None:
        self.after(self.session.undo())
