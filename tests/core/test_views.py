"""Per-seat views and resampling on explicit positions (issue #2: views, resampling)."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterator

from hypothesis import given, settings
from hypothesis import strategies as hst

from canasta import PRESETS, Game, Resampler, Settings, resample
from canasta.cards import card_str
from canasta.view import SeatView

from .helpers import legal, state

OTHERS = ["4C 4D 6S", "5C 5D 6H", "8C 8D JS"]


def taken_position():
    st = state(hands=["KH KS 5D 6D QH", *OTHERS], turn=0, melds=[{"A": "AC AD AH"}, {}],
               pile="9D 9C 7S KC")
    legal(st, "take K:KH,KS")
    return st


def test_view_of_another_seat_shows_counts_and_public_cards_only():
    st = taken_position()
    v = st.view(1).to_json()
    assert v["seat"] == 1
    assert sorted(v["hand"]) == ["4C", "4D", "6S"]
    assert v["hand_counts"] == [6, 3, 3, 3]
    assert sorted(v["known"][0]) == ["7S", "9C", "9D"]  # seen taken with the pile
    assert v["legal"] == []  # not seat 1's turn
    assert "QH" not in str(v) and "5D" not in str(v)  # seat 0's private cards
    assert "stock" not in v and v["stock_size"] == len(st.stock)
    assert v["pile"] == {"top": None, "size": 0, "cards": [], "frozen": [False, True],
                         "causes": [[], ["not_opened"]], "blocked": True, "blocked_reason": "pile_empty"}


def test_view_of_the_seat_to_act_lists_its_legal_actions():
    st = taken_position()
    v = st.view(0).to_json()
    assert sorted(v["hand"]) == sorted(["5D", "6D", "QH", "9D", "9C", "7S"])
    assert v["legal"] and all(isinstance(a, dict) and "type" in a for a in v["legal"])
    assert v["turn_state"]["drew"] == "pile"


def test_spectator_view_has_no_hand():
    st = taken_position()
    v = st.view(None).to_json()
    assert v["seat"] is None and v["hand"] is None and v["legal"] == []
    for c in ["5D", "6D", "QH", "4C", "5C", "8C", "JS"]:
        assert c not in str(v)


def test_other_seats_draws_are_private_in_the_history():
    st = state(hands=["KH KS 5D", *OTHERS], turn=0, melds=[{"A": "AC AD AH"}, {}], stock_top="QC 9H")
    legal(st, "draw")
    ev0 = st.view(0).to_json()["history"][-1]
    ev1 = st.view(1).to_json()["history"][-1]
    assert ev0["cards"] == ["QC"] and ev0["drawn"] == 1
    assert ev1["cards"] == [] and ev1["drawn"] == 1
    assert "QC" not in str(st.view(2).to_json())


def test_resample_keeps_known_cards_and_public_state():
    st = taken_position()
    legal(st, "discard 6D")
    view = st.view(2)
    rng = random.Random(1)
    sampler = Resampler(view)
    for _ in range(50):
        s = sampler.sample(rng)
        assert s.total_cards() == 108
        assert not Counter(st.known[0]) - Counter(s.hands[0])  # 9C 9D 7S still with seat 0
        assert [len(h) for h in s.hands] == [len(h) for h in st.hands]
        assert sorted(s.hands[2]) == sorted(st.hands[2])
        assert not any(card_str(c) in ("3H", "3D") for h in s.hands for c in h)
        assert s.view(2).to_json() == view.to_json()
    a = resample(view, 5)
    b = resample(view, 5)
    assert a.hands == b.hands and a.stock == b.stock  # seeded


def test_resample_varies_hidden_cards():
    st = _dealt_state()
    view = st.view(0)
    hands = {tuple(sorted(resample(view, seed).hands[1])) for seed in range(20)}
    assert len(hands) > 1


def _dealt_state():
    from canasta import Game, Settings

    return Game(Settings.preset("classic"), seed=3).state


def test_the_kept_history_of_each_view_matches_the_history_whatever_the_order_of_asking():
    # views reuse the history they showed before (view.seen_history): whichever seats ask,
    # in whatever order, and after copies that go different ways, each view must show the
    # whole history with exactly the other seats' stock draws hidden
    from canasta import Game, Settings

    rng = random.Random(3)
    st = Game(Settings.preset("classic"), seed=5).state
    fork = None
    steps = 0
    while not st.is_over:
        states = [st] if fork is None else [st, fork]
        for s in states:
            for seat in rng.sample([0, 1, 2, 3, None], rng.randrange(1, 6)):
                shown = s.view(seat).history
                assert len(shown) == len(s.history)
                for e, mine in zip(s.history, shown, strict=True):
                    hidden = e.seat != seat and e.drawn
                    assert mine == (e._replace(drawn=()) if hidden else e)
        steps += 1
        if steps == 20:
            fork = st.copy()
        for s in states:
            if not s.is_over:
                acts = s.legal_actions()
                s.apply(acts[rng.randrange(len(acts))])
    assert steps > 40


def _match(seed: int, preset: str) -> tuple[random.Random, Game, list[int | None], dict[int | None, SeatView]]:
    """A match of ``preset`` dealt from ``seed``, a generator seeded alike, its seats and the
    spectator (None), and the first view of each."""
    g = Game(Settings.preset(preset), seed=seed)
    seats: list[int | None] = [*range(g.settings.players), None]
    return random.Random(seed), g, seats, {seat: g.state.view(seat) for seat in seats}


def _played(g: Game, rng: random.Random, steps: int = 400) -> Iterator[int]:
    """Play ``g`` at random, the next hand dealt when one ends: yields each step's number after
    its action (or deal), until the match is over or ``steps`` are played."""
    for step in range(steps):
        if g.is_over:
            return
        if g.state.is_over:
            g.next_hand()
        else:
            acts = g.state.legal_actions()
            g.apply(acts[rng.randrange(len(acts))])
        yield step


@settings(max_examples=25, deadline=None, derandomize=True)
@given(seed=hst.integers(0, 2**32 - 1), preset=hst.sampled_from(sorted(PRESETS)))
def test_a_view_lists_the_json_entries_that_changed_from_an_earlier_view(seed, preset):
    # SeatView.json_changes builds only the entries whose fields differ: put over the earlier
    # view's JSON they must give the later view's whole JSON (the history aside, sent apart),
    # for every seat and the spectator, between consecutive states and across hands
    rng, g, seats, held = _match(seed, preset)
    for _ in _played(g, rng):
        for seat in seats:
            if rng.random() < 0.3:  # a socket that missed states: the patch spans several
                continue
            new = g.state.view(seat)
            old_json, new_json = held[seat].to_json(), new.to_json()
            patched = {**old_json, **new.json_changes(held[seat])}
            patched["history"] = new_json["history"]
            assert patched == new_json
            assert "history" not in new.json_changes(held[seat])
            held[seat] = new


@settings(max_examples=40, deadline=None, derandomize=True)
@given(seed=hst.integers(0, 2**32 - 1), preset=hst.sampled_from(sorted(PRESETS)))
def test_a_view_built_on_an_earlier_one_equals_the_view_built_whole(seed, preset):
    # make_view(since=...) takes the fields the actions since could not change from the earlier
    # view (R8-R12: what each kind of action changes): for every seat and the spectator, after
    # each action or several, across hands, from a copy that went its own way, and with an
    # earlier view of another seat or hand, it must equal the view built from nothing
    rng, g, seats, held = _match(seed, preset)
    reused = 0
    for step in _played(g, rng):
        st = g.state
        if step % 37 == 5 and not st.is_over:  # a copy played on its own for a few actions
            fork = st.copy()
            for _ in range(rng.randrange(1, 6)):
                if fork.is_over:
                    break
                acts = fork.legal_actions()
                fork.apply(acts[rng.randrange(len(acts))])
                seat = rng.choice(seats)
                assert fork.view(seat, since=held[seat]) == fork.view(seat)
        for seat in seats:
            if rng.random() < 0.3:  # a view not asked for: the next spans several actions
                continue
            since = held[rng.choice(seats)] if rng.random() < 0.1 else held[seat]
            new = st.view(seat, since=since)
            assert new == st.view(seat), (seat, since.seat)
            reused += sum(
                new_part is old_part
                for new_part, old_part in ((new.pile, since.pile), (new.melds, since.melds))
            )
            held[seat] = new
    assert reused > 0  # the earlier views' parts were taken, not only built again


def test_a_view_since_another_states_history_or_a_resampled_deal_is_built_as_it_should_be():
    g = Game(Settings.preset("classic"), seed=11)
    rng = random.Random(4)
    for _ in range(30):
        acts = g.state.legal_actions()
        g.apply(acts[rng.randrange(len(acts))])
    st = g.state
    earlier = st.view(0)
    other = Game(Settings.preset("classic"), seed=12).state
    assert other.view(0, since=earlier) == other.view(0)  # another hand: built whole
    sample = resample(st.view(0), random.Random(1))
    assert sample.view(0, since=earlier) == sample.view(0)  # the seat's own knowledge
    # another seat's view on the resampled deal: its hand there is not its real hand
    assert sample.view(1, since=st.view(1)).hand == sample.view(1).hand != st.view(1).hand
    earlier = st.view(0)
    st.view(0)  # a later view of the seat: the earlier one is no longer the one to build on
    assert st.view(0, since=earlier) == st.view(0)
    for _ in range(5):
        if st.is_over:
            break
        acts = st.legal_actions()
        st.apply(acts[rng.randrange(len(acts))])
    assert st.view(0, since=earlier) == st.view(0)


def test_a_hand_is_shown_by_rank_threes_first_aces_high_then_twos_and_jokers_by_suit():
    st = state(hands=["JK 2C AH KS 3C 5H 5C QD 2S", *OTHERS], turn=1)
    assert st.view(0).to_json()["hand"] == ["3C", "5C", "5H", "QD", "KS", "AH", "2C", "2S", "JK"]


@settings(max_examples=20, deadline=None, derandomize=True)
@given(seed=hst.integers(0, 2**32 - 1), preset=hst.sampled_from(sorted(PRESETS)))
def test_the_pile_entry_gives_each_sides_freeze_causes_and_the_cards_in_order(seed, preset):
    # R7 (the freeze) and R8.1 (the top): the view's JSON says for every side what
    # SeatView.frozen_causes says, in every preset, as a random hand goes on
    rng = random.Random(seed)
    g = Game(Settings.preset(preset), seed=seed)
    for _ in range(300):
        st = g.state
        if st.is_over:
            break
        acts = st.legal_actions()
        g.apply(acts[rng.randrange(len(acts))])
        view = g.state.view(g.state.turn)
        pile = view.to_json()["pile"]
        assert pile["causes"] == [view.frozen_causes(side) for side in range(len(view.melds))]
        assert pile["frozen"] == [bool(c) for c in pile["causes"]]
        assert pile["cards"] == [card_str(c) for c in view.pile]
        assert pile["top"] == (card_str(view.pile[-1]) if view.pile else None)
        assert pile["blocked_reason"] == view.settings.pile_blocked(view.pile_top)
