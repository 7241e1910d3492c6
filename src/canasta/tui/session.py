"""The terminal game's model: one human against the computer, without any drawing.

The session holds the match, the computer players, the human's selection and staged plan
(R15: a plan is not part of the game until it is committed), the move log, suggestions and
undo.  The Textual app in :mod:`canasta.tui.app` only draws it and forwards keys.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .. import CanastaError, Game, IllegalAction, SeatView, Settings
from ..actions import DRAW, Action, Discard, Group, Meld, TakePile, action_to_text
from ..cards import F_BLACK3, FACE, FACE_TOKEN, IS_WILD, MELD_FACES, TOKEN_FACE, card_str


class NeedsRank(ValueError):
    """Only wild cards are selected: the group's rank must be named."""


SEAT_NAMES = {2: ("You", "North"), 3: ("You", "West", "East"), 4: ("You", "West", "Partner", "East")}


@dataclass
class Session:
    """A match against the computer: the human plays seat 0."""

    preset: str = "classic"
    level: str = "normal"
    seed: int | None = None
    target: int | str | None = None
    human: int = 0
    game: Game = field(init=False)
    log: list[str] = field(default_factory=list)
    selected: set[int] = field(default_factory=set)
    cursor: int = 0
    staged: list[Group] = field(default_factory=list)
    message: str = ""
    suggestion: Action | None = None
    #: bumped by every change of the match (a computer's decision for an older one is dropped)
    version: int = 0

    def __post_init__(self) -> None:
        from ..bots import PARTNER_LEVEL, computer_seats, make_player

        overrides = {} if self.target is None else {"target": self.target}
        settings = Settings.preset(self.preset, **overrides)
        self.game = Game(settings, seed=self.seed)
        self.computers = computer_seats(settings.players, self.human, self.level, self.seed)
        self.adviser = make_player(PARTNER_LEVEL, seed=self.seed)
        self.names = SEAT_NAMES[settings.players]
        self.message = self.hint()

    # ------------------------------------------------------------------ reading

    @property
    def view(self) -> SeatView:
        """What the human may know (the screen draws only this)."""
        return self.game.state.view(self.human)

    @property
    def hand(self) -> list[int]:
        assert self.view.hand is not None
        return list(self.view.hand)

    @property
    def my_turn(self) -> bool:
        st = self.game.state
        return not st.is_over and st.turn == self.human

    def hint(self) -> str:
        """What the human should do next, in words."""
        view = self.view
        if self.game.state.is_over:
            return "Match over: press q to quit." if self.game.is_over else "Hand over: press Enter for the next hand."
        if view.turn != self.human:
            return f"{self.names[view.turn]} is thinking…"
        if view.phase == "ask":
            return f"{self.names[view.asker or 0]} asks: May I go out?  y = yes, n = no"
        if view.phase == "draw":
            if not view.stock_size:
                return "The stock is empty: t takes the pile, e declines it (ending the hand)."
            return "Your turn: d draws from the stock; select cards and t takes the pile."
        ask = "  ? asks your partner 'May I go out?'" if view.settings.ask_partner and view.ask is None else ""
        return "Meld (space selects, g stages a group, m melds) or discard the card under the cursor (x)." + ask

    # ------------------------------------------------------------------ selecting

    def move(self, step: int) -> None:
        if self.hand:
            self.cursor = (self.cursor + step) % len(self.hand)

    def toggle(self) -> None:
        if not self.hand:
            return
        if self.cursor not in self.free_positions():
            self.message = "that card is in a staged group (c clears the plan)"
            return
        self.selected ^= {self.cursor}

    def clear(self) -> None:
        self.selected.clear()
        self.staged.clear()
        self.suggestion = None

    def free_positions(self) -> list[int]:
        """Hand positions not in a staged group."""
        hand = self.hand
        used = [c for g in self.staged for c in g.cards]
        free = []
        for i, c in enumerate(hand):
            if c in used:
                used.remove(c)
            else:
                free.append(i)
        return free

    def _selection_group(self, rank: int | None = None) -> Group | None:
        """The selected cards as one group (its rank from the naturals, or ``rank``)."""
        hand = self.hand
        cards = tuple(hand[i] for i in sorted(self.selected) if i < len(hand))
        if not cards:
            return None
        faces = {FACE[c] for c in cards if not IS_WILD[c]}
        if len(faces) > 1:
            raise ValueError("select cards of one rank (plus wilds) for a group")
        if faces:
            rank = faces.pop()
        if rank is None:
            raise NeedsRank("only wild cards selected: press the rank they go to (A 4-9 T J Q K)")
        return Group(rank, cards)

    def stage(self, rank_token: str | None = None) -> bool:
        """Stage the selection as a group (g); False if it needs a rank first."""
        rank = TOKEN_FACE.get(rank_token.upper()) if rank_token else None
        try:
            g = self._selection_group(rank)
        except NeedsRank as e:
            self.message = str(e)
            return False
        except ValueError as e:
            self.message = str(e)
            return True
        if g is None:
            self.message = "select cards first (space)"
            return True
        if g.rank not in MELD_FACES and g.rank != F_BLACK3:
            self.message = "that is not a meld rank"
            return True
        if any(s.rank == g.rank for s in self.staged):
            self.message = "a group of that rank is already staged"
            return True
        self.staged.append(g)
        self.selected.clear()
        self.message = "staged: " + self.plan_text() + "  (m melds, t takes the pile, c clears)"
        return True

    def plan_text(self) -> str:
        return " ".join(f"{FACE_TOKEN[g.rank]}:{','.join(card_str(c) for c in g.cards)}" for g in self.staged)

    def _plan(self, rank_for_wilds: int | None = None) -> tuple[Group, ...]:
        groups = list(self.staged)
        g = self._selection_group(rank_for_wilds)
        if g is not None:
            groups.append(g)
        return tuple(groups)

    # ------------------------------------------------------------------ acting

    def act(self, action: Action) -> bool:
        """Apply the human's action; on an illegal one, say why and keep the plan."""
        st = self.game.state
        err = st.check(action)
        if err is not None:
            self.message = f"Not allowed: {err.message} ({err.section})"
            return False
        self.game.apply(action)
        self.version += 1
        self.log.append(f"{self.names[self.human]}: {action_to_text(action)}")
        self.clear()
        self.cursor = min(self.cursor, max(0, len(self.hand) - 1))
        self.message = self._after_hand() or self.hint()
        return True

    def draw(self) -> bool:
        return self.act(DRAW)

    def take(self) -> bool:
        top = self.view.pile_top
        top = None if top is None else FACE[top]
        try:
            plan = self._plan(top)
        except ValueError as e:
            self.message = str(e)
            return False
        return self.act(TakePile(plan))

    def meld(self) -> bool:
        try:
            plan = self._plan()
        except ValueError as e:
            self.message = str(e)
            return False
        if not plan:
            self.message = "select or stage cards to meld first"
            return False
        return self.act(Meld(plan))

    def discard(self) -> bool:
        hand = self.hand
        if not hand:
            return False
        if len(self.selected) == 1:
            card = hand[next(iter(self.selected))]
        else:
            card = hand[self.cursor]
        if self.staged:
            return self.act(Meld(tuple(self.staged), card))
        return self.act(Discard(card))

    def _after_hand(self) -> str | None:
        view = self.view
        if not self.game.state.is_over:
            return None
        r = view.result
        assert r is not None
        then = "Match over: press q to quit." if self.game.is_over else "Press Enter for the next hand."
        return f"Hand {view.hand_number} over ({r.reason.replace('_', ' ')}). {then}"

    # ------------------------------------------------------------------ the computer

    def computer_view(self) -> SeatView | None:
        """The view of the computer seat to act (what it decides from), or None."""
        st = self.game.state
        if st.is_over or st.turn == self.human:
            return None
        return st.view(st.turn)

    def computer_play(self, seat: int, action: Action) -> None:
        """Apply a computer seat's chosen action and log it."""
        self.game.apply(action)
        self.version += 1
        self.log.append(f"{self.names[seat]}: {action_to_text(action)}")
        self.message = self._after_hand() or self.hint()

    def computer_step(self) -> bool:
        """Let the computer seat to act play one action; False when it is not its turn."""
        view = self.computer_view()
        if view is None or view.seat is None:
            return False
        self.computer_play(view.seat, self.computers[view.seat].choose(view))
        return True

    # ------------------------------------------------------------------ help

    def suggest(self) -> Action | None:
        """R15: the computer's judgement for the human's decision, staged for committing."""
        if not self.my_turn:
            self.message = "no legal suggestion: it is not your turn"
            return None
        action: Action = self.adviser.choose(self.view)
        self.clear()
        self.suggestion = action
        if isinstance(action, (Meld, TakePile)):
            self.staged = list(action.groups)
        if isinstance(action, Discard) and action.card in self.hand:
            self.cursor = self.hand.index(action.card)
        self.message = f"Suggestion: {action_to_text(action)}  (Enter plays it, c clears)"
        return action

    def play_suggestion(self) -> bool:
        if self.suggestion is None:
            self.message = "press s for a suggestion first"
            return False
        return self.act(self.suggestion)

    def undoable(self) -> bool:
        """R15: the human's melds of this turn, or the discard until the next seat has acted."""
        if self.game.state.is_over:
            return False
        view = self.view
        history = view.history
        if not history or history[-1].seat != self.human or history[-1].action is None:
            return False
        kind = history[-1].action.kind
        if kind == "meld":
            return view.turn == self.human
        return kind == "discard"

    def undo(self) -> bool:
        if not self.undoable():
            self.message = "Nothing to undo: only your melds this turn, or your discard before the next player acts."
            return False
        record = self.game.to_record()
        record["hands"][-1]["actions"].pop()
        try:
            self.game = Game.from_record(record)
            self.version += 1
        except (CanastaError, IllegalAction) as e:  # pragma: no cover - replays are exact
            self.message = f"cannot undo: {e.message}"
            return False
        self.log.append(f"{self.names[self.human]}: undo")
        self.clear()
        self.message = "Undone. " + self.hint()
        return True

    def next_hand(self) -> bool:
        if not self.game.state.is_over or self.game.is_over:
            return False
        self.game.next_hand()
        self.version += 1
        self.log.append(f"— hand {self.game.hand_number} —")
        self.clear()
        self.cursor = 0
        self.message = self.hint()
        return True
