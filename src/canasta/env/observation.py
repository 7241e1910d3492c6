"""Observations: a flat vector built from one seat's view (never the full state).

The layout is a list of named blocks (:func:`layout`); ``docs/env.md`` lists them.  Seats are
relative to the observer (0 = me, 1 = the next seat clockwise, ...); side slots follow the
relative seats (slot 0 is my side).
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from .. import Group, SeatView, Settings
from ..cards import NUM_CODES
from .actions import GROUP_RANKS

PHASES = ("draw", "play", "ask", "over")
DREW = (None, "stock", "pile")
ASK_STATES = (None, "pending", "yes", "no")

Obs = npt.NDArray[np.float32]


def side_slots(settings: Settings) -> int:
    """Side slots in the observation: three alone players in the three-player game, else two."""
    return 3 if settings.players == 3 else 2


def layout(settings: Settings) -> list[tuple[str, int]]:
    """(block name, length) in order; the observation is their concatenation."""
    p = settings.players
    blocks = [
        ("hand", NUM_CODES),  # count of each card code in my hand (staged cards included)
        ("plan", NUM_CODES),  # count of each card code in my staged plan
        ("pile_top", NUM_CODES),  # one-hot top card (all zero: empty pile)
        ("pile_cards", NUM_CODES),  # count of each code in the pile (every discard was seen)
        ("pile_size", 1),
        ("stock_size", 1),
        ("phase", len(PHASES)),
        ("drew", len(DREW)),
        ("turn_melded", 1),
        ("ask", len(ASK_STATES)),
        ("turn", p),  # one-hot relative seat to act
        ("settings", 7),
    ]
    for k in range(p):
        blocks += [
            (f"seat{k}_hand_count", 1),
            (f"seat{k}_red_threes", 1),
            (f"seat{k}_known", NUM_CODES),  # cards publicly known in that hand (taken with the pile)
            (f"seat{k}_score", 1),  # the seat's team's cumulative score before this hand
            (f"seat{k}_opening_minimum", 1),
            (f"seat{k}_side_slot", 1),  # which side slot below holds that seat's melds
        ]
    for s in range(side_slots(settings)):
        blocks += [
            (f"side{s}_naturals", len(GROUP_RANKS)),  # per meld rank
            (f"side{s}_wilds", len(GROUP_RANKS)),
            (f"side{s}_opened", 1),
            (f"side{s}_canastas", 1),
            (f"side{s}_frozen", 1),  # the pile is frozen for that side (R7)
            (f"side{s}_in_use", 1),  # the slot holds a side (three players: 0 after the merge)
        ]
    return blocks


def size(settings: Settings) -> int:
    """Length of the observation vector."""
    return sum(n for _, n in layout(settings))


def observe(view: SeatView, plan: tuple[Group, ...] = ()) -> Obs:
    """The observation vector of ``view.seat`` (with its staged plan)."""
    assert view.seat is not None and view.hand is not None
    s = view.settings
    p = s.players
    me = view.seat
    out: list[float] = []

    def counts(cards: object) -> list[float]:
        row = [0.0] * NUM_CODES
        for c in cards:  # type: ignore[attr-defined]
            row[c] += 1.0
        return row

    out += counts(view.hand)
    out += counts(c for g in plan for c in g.cards)
    top = view.pile_top
    out += [1.0 if top == c else 0.0 for c in range(NUM_CODES)]
    out += counts(view.pile)
    out += [float(len(view.pile)), float(view.stock_size)]
    out += [1.0 if view.phase == x else 0.0 for x in PHASES]
    out += [1.0 if view.drew == x else 0.0 for x in DREW]
    out += [float(view.turn_melded)]
    out += [1.0 if view.ask == x else 0.0 for x in ASK_STATES]
    out += [1.0 if (view.turn - me) % p == k else 0.0 for k in range(p)]
    out += [
        float(s.draw_count),
        float(s.canastas_to_go_out),
        float(s.black_three == "freeze"),
        float(s.wild_limit == "outnumber"),
        float(s.wilds_on_canasta),
        float(s.black_three_meld_on_going_out),
        float(s.ask_partner),
    ]
    seats = [(me + k) % p for k in range(p)]
    slots: list[int] = []
    for seat in seats:
        if view.side_of[seat] not in slots:
            slots.append(view.side_of[seat])
    for seat in seats:
        out += [float(view.hand_counts[seat]), float(len(view.red_threes[seat]))]
        out += counts(view.known[seat])
        out += [float(view.scores[view.team_of[seat]]), float(view.opening_minimum(seat))]
        out += [float(slots.index(view.side_of[seat]))]
    for k in range(side_slots(s)):
        if k >= len(slots):
            out += [0.0] * (2 * len(GROUP_RANKS) + 4)
            continue
        side = slots[k]
        nat = [0.0] * len(GROUP_RANKS)
        wild = [0.0] * len(GROUP_RANKS)
        for m in view.melds[side]:
            i = GROUP_RANKS.index(m.rank)
            nat[i] = float(m.naturals)
            wild[i] = float(m.wilds)
        out += nat + wild
        out += [float(view.opened(side)), float(view.canastas[side]), float(bool(view.frozen_causes(side))), 1.0]
    return np.asarray(out, dtype=np.float32)
