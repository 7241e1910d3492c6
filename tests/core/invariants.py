"""Invariant checks shared by the property tests."""

from __future__ import annotations

import json
import random
from collections import Counter

from canasta import (
    State,
    action_from_json,
    action_from_text,
    action_to_json,
    action_to_text,
    fixed_state,
    position_to_json,
    resample,
    state_from_position,
)
from canasta.actions import Discard, Group, Meld, TakePile
from canasta.cards import COPIES, F_BLACK3, F_RED3, FACE, IS_WILD, MELD_FACES, NUM_FACES, card_str

PACK = Counter({c: COPIES[c] for c in range(len(COPIES))})


def card_counts(st: State) -> Counter[int]:
    counts: Counter[int] = Counter()
    for h in st.hands:
        counts.update(h)
    counts.update(st.stock)
    counts.update(st.pile)
    for ms in st.melds:
        for m in ms:
            if m is not None:
                counts.update(m.cards)
    for r in st.red3:
        counts.update(r)
    return counts


def check_state(st: State) -> None:
    """Every card accounted for, internal counters consistent, melds legal."""
    assert st.total_cards() == 108
    assert card_counts(st) == PACK
    for seat, hand in enumerate(st.hands):
        fc = [0] * NUM_FACES
        for c in hand:
            fc[FACE[c]] += 1
        assert st.fc[seat] == fc, f"face counts of seat {seat} out of sync"
        assert not fc[F_RED3], "a red three in a hand"
        known = Counter(st.known[seat])
        assert not known - Counter(hand), "known cards not in the hand"
    for r in st.red3:
        assert all(FACE[c] == F_RED3 for c in r)
    for side, ms in enumerate(st.melds):
        live = [m for m in ms if m is not None]
        assert st.nmelds[side] == len(live)
        assert st.canastas[side] == sum(1 for m in live if len(m.cards) >= 7)
        for m in live:
            nat = sum(1 for c in m.cards if FACE[c] == m.rank)
            wild = sum(1 for c in m.cards if IS_WILD[c])
            assert (nat, wild) == (m.naturals, m.wilds)
            assert nat + wild == len(m.cards) and len(m.cards) >= 3
            if not st.merged:
                assert wild <= 3 and nat >= 2
                if st.settings.wild_limit == "outnumber" and len(m.cards) < 7:
                    assert nat > wild
    assert st.pile_wild == sum(1 for c in st.pile if IS_WILD[c])
    if st.phase != "over":
        assert st.result is None


_NOTATION_CHECKED: set = set()


def check_notation(action) -> None:
    """Text and JSON forms round-trip (each distinct action is checked once per run)."""
    if action in _NOTATION_CHECKED:
        return
    if len(_NOTATION_CHECKED) > 200_000:
        _NOTATION_CHECKED.clear()
    _NOTATION_CHECKED.add(action)
    text = action_to_text(action)
    assert action_from_text(text) == action, text
    data = action_to_json(action)
    assert action_from_json(json.loads(json.dumps(data))) == action, data
    assert action_to_text(action_from_json(data)) == text


def check_position_round_trip(st: State) -> None:
    pos = position_to_json(st)
    again = state_from_position(json.loads(json.dumps(pos)))
    assert position_to_json(again) == pos
    assert again.legal_actions() == st.legal_actions()
    for a in st.legal_actions()[:8]:
        assert again.check(a) is None


def scramble_hidden(st: State, seat: int, rng: random.Random) -> State:
    """A copy of ``st`` where everything ``seat`` cannot see (other hands beyond their known
    cards, the stock order and contents) is redistributed at random."""
    new = st.copy()
    pool: list[int] = []
    need = []
    for s, hand in enumerate(new.hands):
        if s == seat:
            need.append(0)
            continue
        rest = Counter(hand)
        rest.subtract(Counter(new.known[s]))
        hidden = list(rest.elements())
        pool.extend(hidden)
        need.append(len(hidden))
    reds = [c for c in new.stock if FACE[c] == F_RED3]
    pool.extend(c for c in new.stock if FACE[c] != F_RED3)
    rng.shuffle(pool)
    i = 0
    for s in range(new.players):
        if s == seat:
            continue
        new.hands[s] = list(new.known[s]) + pool[i : i + need[s]]
        i += need[s]
        fc = [0] * NUM_FACES
        for c in new.hands[s]:
            fc[FACE[c]] += 1
        new.fc[s] = fc
    stock = pool[i:] + reds
    rng.shuffle(stock)
    new.stock = stock
    # other seats' private draws are not part of the seat's knowledge
    new.history = [e if e.seat == seat or not e.drawn else e._replace(drawn=()) for e in new.history]
    return new


def strings_in(obj) -> Counter[str]:
    out: Counter[str] = Counter()
    if isinstance(obj, str):
        out[obj] += 1
    elif isinstance(obj, dict):
        for v in obj.values():
            out.update(strings_in(v))
    elif isinstance(obj, list):
        for v in obj:
            out.update(strings_in(v))
    return out


def check_view_privacy(st: State, seat: int | None, rng: random.Random) -> None:
    view = st.view(seat)
    data = view.to_json()
    assert "stock" not in data and data["stock_size"] == len(st.stock)
    if seat is None:
        assert data["hand"] is None and data["legal"] == []
    else:
        assert sorted(data["hand"]) == sorted(card_str(c) for c in st.hands[seat])
    for e in data["history"]:
        if e["seat"] != seat:
            assert e["cards"] == [], "another seat's private draw is visible"
    # Hidden cards may appear nowhere: cards of other hands beyond their known cards.
    public: Counter[str] = Counter()
    public.update(card_str(c) for c in st.pile)
    for ms in st.melds:
        for m in ms:
            if m is not None:
                public.update(card_str(c) for c in m.cards)
    for r in st.red3:
        public.update(card_str(c) for c in r)
    for e in st.history:  # everything ever discarded, melded, exposed or taken was seen
        if e.action is not None:
            public.update(strings_in(action_to_json(e.action)))
        public.update(card_str(c) for c in e.red_threes)
        public.update(card_str(c) for c in e.taken)
        if e.seat == seat:
            public.update(card_str(c) for c in e.drawn)
    if seat is not None:
        public.update(card_str(c) for c in st.hands[seat])
    seen = strings_in({k: v for k, v in data.items() if k not in ("settings", "format", "phase")})
    for s, hand in enumerate(st.hands):
        if s == seat:
            continue
        hidden = Counter(card_str(c) for c in hand)
        hidden.subtract(Counter(card_str(c) for c in st.known[s]))
        for c, k in hidden.items():
            if k > 0 and seen[c]:
                assert public[c] > 0, f"seat {seat} sees {c}, hidden in seat {s}'s hand"
    # Perturbing what the seat cannot see must not change its view at all.
    if seat is not None:
        other = scramble_hidden(st, seat, rng)
        assert other.view(seat).to_json() == data, "the view depends on hidden cards"


def check_resample(st: State, seat: int, rng: random.Random, rollout: bool) -> None:
    """A sampled world, and the world with the unseen cards in order, both agree with the
    seat's view and keep every publicly known card where it is."""
    view = st.view(seat)
    sampled = resample(view, rng.randrange(2**32))
    for world in (sampled, fixed_state(view)):
        check_state(world)
        again = world.view(seat)
        for name in view.__dataclass_fields__:
            assert getattr(again, name) == getattr(view, name), f"resampled view differs in {name}"
        assert again.to_json() == view.to_json()
        for s in range(st.players):
            assert not Counter(st.known[s]) - Counter(world.hands[s])
    fixed = fixed_state(view)
    assert fixed.hands == fixed_state(view).hands and fixed.stock == fixed_state(view).stock
    if rollout and not sampled.is_over:
        steps = 0
        while not sampled.is_over:
            acts = sampled.legal_actions()
            assert acts, "no legal action in a resampled state"
            sampled.apply(rng.choice(acts))
            steps += 1
            assert steps < 5000
        check_state(sampled)


def check_scoring(st: State) -> None:
    """Recompute the finished hand's score independently (R13.1, R9.3, R14) and compare."""
    from canasta.cards import VALUE

    r = st.result
    assert r is not None
    by_side = {s.side: s for s in r.sides}
    assert sorted(by_side) == sorted(set(st.side_of))
    for side, got in by_side.items():
        seats = tuple(s for s in range(st.players) if st.side_of[s] == side)
        melds = [m for m in st.melds[side] if m is not None]
        points = sum(VALUE[c] for m in melds for c in m.cards)
        natural = sum(1 for m in melds if len(m.cards) >= 7 and not any(IS_WILD[c] for c in m.cards))
        mixed = sum(1 for m in melds if len(m.cards) >= 7 and any(IS_WILD[c] for c in m.cards))
        reds = sum(len(st.red3[s]) for s in seats)
        red_bonus = 800 if reds == 4 else 100 * reds
        if not melds:
            red_bonus = -red_bonus
        going = 0
        if r.went_out is not None and r.went_out in seats:
            going = 200 if r.concealed else 100
        penalty = sum(VALUE[c] for s in seats for c in st.hands[s])
        total = points + 500 * natural + 300 * mixed + red_bonus + going - penalty
        assert got.seats == seats
        assert (got.melds, got.natural_canastas, got.mixed_canastas) == (points, natural, mixed)
        assert (got.red_threes, got.red_three_bonus, got.going_out, got.hand_penalty) == (
            reds, red_bonus, going, penalty)
        assert got.total == total
    teams = st.settings.team_count
    for team in range(teams):
        seat = next(s for s in range(st.players) if st.team_of[s] == team)
        assert r.team_deltas[team] == by_side[st.side_of[seat]].total
    if r.went_out is not None:
        assert st.hands[r.went_out] == []
        assert st.canastas[st.side_of[r.went_out]] >= st.settings.canastas_to_go_out


def arbitrary_action(st: State, rng: random.Random):
    """A random, usually illegal, meld/take/discard built from the hand."""
    hand = list(st.hands[st.turn])
    kind = rng.choice(["meld", "meld", "take", "discard", "meld_discard"])
    if kind == "discard":
        return Discard(rng.choice(hand)) if hand else None
    rng.shuffle(hand)
    groups: dict[int, list[int]] = {}
    for c in hand[: rng.randint(0, min(len(hand), 12))]:
        if IS_WILD[c]:
            ranks = list(groups) or [rng.choice(MELD_FACES)]
            groups.setdefault(rng.choice(ranks), []).append(c)
        else:
            f = FACE[c]
            if f in MELD_FACES or f == F_BLACK3:
                groups.setdefault(f, []).append(c)
    gs = tuple(Group(r, tuple(cs)) for r, cs in groups.items())
    if kind == "take":
        if st.pile and FACE[st.pile[-1]] in MELD_FACES and rng.random() < 0.5:
            gs = (Group(FACE[st.pile[-1]], tuple(groups.get(FACE[st.pile[-1]], ()))),) + tuple(
                g for g in gs if g.rank != FACE[st.pile[-1]]
            )
        return TakePile(gs)
    if not gs:
        return None
    if kind == "meld_discard":
        rest = [c for c in st.hands[st.turn] if c not in [x for g in gs for x in g.cards]]
        return Meld(gs, rng.choice(rest)) if rest else Meld(gs)
    return Meld(gs)
