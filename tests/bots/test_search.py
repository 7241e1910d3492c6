"""Expert's search (ISMCTS) and what Normal reads from the public history."""

from __future__ import annotations

import random

import pytest

from canasta import PRESETS, Game, Resampler, Settings, State
from canasta.actions import DRAW, Discard
from canasta.bots import make_player
from canasta.bots.evaluate import Memory, pile_value
from canasta.bots.policy import NORMAL, Policy
from canasta.bots.search import (
    ExpertPlayer,
    pair_evidence,
    pile_keys,
    respect_evidence,
    side_result,
)
from canasta.cards import F_RED3, FACE, MELD_FACES, NUM_FACES, parse_card
from canasta.hand import Event, TableMeld

SEARCH = {"iterations": 40, "time_budget": None}


def _decisions(preset: str, count: int, seed: int) -> list:
    """States where the seat to act has a real choice, from Normal hands."""
    settings = Settings.preset(preset)
    out = []
    i = 0
    while len(out) < count and i < 50:
        game = Game(settings, seed=f"search:{preset}:{seed}:{i}")
        bots = [make_player("normal", seed=i * 10 + s) for s in range(settings.players)]
        st = game.state
        stop = random.Random(i).randrange(4, 50)
        n = 0
        while not st.is_over and n < stop:
            game.apply(bots[st.turn].choose(st.view(st.turn)))
            n += 1
        if not st.is_over and len(st.view(st.turn).legal) > 1:
            out.append(st)
        i += 1
    return out


@pytest.mark.parametrize("preset", list(PRESETS))
def test_expert_choice_unchanged_when_hidden_cards_are_resampled(preset: str) -> None:
    """The search samples its worlds from the view: the true hidden cards never enter it."""
    checked = 0
    for st in _decisions(preset, 3, 1):
        seat = st.turn
        view = st.view(seat)
        other = Resampler(view).sample(random.Random(12345))
        assert sorted(other.hands[seat]) == sorted(st.hands[seat])
        if other.stock == st.stock:
            continue
        a = make_player("expert", seed=3, **SEARCH)
        b = make_player("expert", seed=3, **SEARCH)
        choice_a, choice_b = a.choose(view), b.choose(other.view(seat))
        assert choice_a == choice_b
        assert st.check(choice_a) is None
        assert a.last_iterations == b.last_iterations
        checked += 1
    assert checked >= 2


def test_expert_search_is_reproducible_and_counts_its_iterations() -> None:
    st = _decisions("classic", 1, 2)[0]
    view = st.view(st.turn)
    bot = make_player("expert", seed=9, iterations=75, time_budget=None)
    first = bot.choose(view)
    searched = bot.last_iterations
    assert bot.choose(view) == first
    assert searched in (0, 75)  # 0: Normal offered a single option, nothing to search


def test_expert_time_budget_ends_the_search() -> None:
    """With only a time budget the search stops on the clock (the setting live play uses)."""
    for st in _decisions("two-player", 4, 3):
        bot = ExpertPlayer(seed=1, time_budget=0.05, iterations=None)
        action = bot.choose(st.view(st.turn))
        assert st.check(action) is None
        if bot.last_iterations:
            assert bot.last_iterations < 100_000
            return
    pytest.fail("no position needed a search")


def test_expert_default_budget_is_a_thousand_iterations_capped_by_the_clock() -> None:
    bot = ExpertPlayer(seed=1)
    assert bot.iterations == 1000 and bot.time_budget is not None and bot.time_budget <= 1.0


def _event(seat: int, action: object, ndrawn: int = 0) -> Event:
    return Event(seat, action, (), ndrawn, (), ())  # type: ignore[arg-type]


def test_two_player_memory_reads_a_pile_let_go() -> None:
    """R8: a player who draws instead of taking a pile of 3+ with a pair of its top in hand is unlikely to hold that pair."""
    k, q, five = parse_card("KH"), parse_card("QS"), parse_card("5C")
    history = [
        _event(0, Discard(five)),
        _event(1, DRAW, 2),
        _event(1, Discard(q)),
        _event(0, DRAW, 2),
        _event(0, Discard(k)),  # the pile now holds 3 cards, K on top
        _event(1, DRAW, 2),  # seat 1 lets it go
    ]
    mem = Memory.from_history(history, 2)
    assert mem.passed[1][FACE[k]] == 1
    strong = mem.no_pair(1, FACE[k])
    assert strong > 0.6
    # seat 1 threw a queen and let a one-card pile of a five go: weaker evidence; sevens: none
    assert 0 < mem.no_pair(1, FACE[q]) < strong
    assert 0 < mem.no_pair(1, FACE[five]) < strong
    assert mem.no_pair(1, FACE[parse_card("7H")]) == 0.0
    # the case fades as seat 1 draws new cards
    later = Memory.from_history(
        history
        + [
            _event(1, Discard(parse_card("9D"))),
            _event(0, DRAW, 2),
            _event(0, Discard(parse_card("8D"))),
            _event(1, DRAW, 2),
        ]
        * 3,
        2,
    )
    assert later.no_pair(1, FACE[k]) < strong


def test_r11_partner_says_yes_when_going_out_wins_the_match() -> None:
    """R11 with the score: a partner holding many cards still answers yes when the hand wins the match."""
    settings = Settings.preset("classic", ask_partner=True, target=5000)
    st = Game(settings, seed=4).state
    partner = 2
    st.turn = partner
    side = st.side_of[partner]
    # a hand of meldable pairs and a penalty over 60: on the cards alone Normal plays on
    st.hands[partner] = sorted(parse_card(c) for c in "KH KS QH QS JH JS TD TC 9D 9C AS".split())
    st.fc[partner] = [0] * len(st.fc[partner])
    for c in st.hands[partner]:
        st.fc[partner][FACE[c]] += 1
    kings = tuple(parse_card(c) for c in "KD KC KD KC 2C JK JK".split())
    st.melds[side][FACE[kings[0]]] = TableMeld(FACE[kings[0]], kings, 4, 3)
    st.nmelds[side], st.canastas[side] = 1, 1
    policy = Policy(NORMAL)
    st.scores = (0, 0)
    assert policy.answer(st) is False
    st.scores = (4800, 2000) if side == 0 else (2000, 4800)
    assert policy.answer(st) is True


def test_expert_keeps_normals_first_choice_unless_the_lead_is_clear() -> None:
    """The most visited option wins only if its mean beats Normal's first by ``trust`` standard errors."""
    from canasta.actions import DRAW as A0
    from canasta.bots.search import _Node

    other = Discard(parse_card("5C"))

    def root(first: list[float], second: list[float]) -> _Node:
        node = _Node(0)
        for action, results in ((A0, first), (other, second)):
            child = node.children[action] = _Node(0)
            for r in results:
                child.visits += 1
                child.total += r
                child.squares += r * r
        return node

    bot = ExpertPlayer(seed=1, iterations=10, time_budget=None, trust=1.0)
    noisy = root([0.0, 300.0, -300.0], [100.0, 400.0, -200.0, 0.0])  # +100 with errors of ~200
    assert bot._pick(noisy, [A0, other]) == 0
    clear = root([0.0, 10.0, -10.0], [300.0, 310.0, 290.0, 300.0])
    assert bot._pick(clear, [A0, other]) == 1
    assert (
        ExpertPlayer(seed=1, iterations=10, time_budget=None, trust=0.0)._pick(noisy, [A0, other])
        == 1
    )


def _hold(st, seat: int, cards: str) -> None:
    st.hands[seat] = sorted(parse_card(c) for c in cards.split())
    st.fc[seat] = [0] * len(st.fc[seat])
    for c in st.hands[seat]:
        st.fc[seat][FACE[c]] += 1


def test_static_evaluation_counts_cards_for_melds_as_worth_not_penalty() -> None:
    """Expert's truncated rollouts: a taken pile's cards that join melds are worth, not penalty."""
    from canasta.bots import evaluate as ev
    from canasta.bots.search import side_result

    st = Game(Settings.preset("two-player"), seed=3).state
    seat = 0
    side = st.side_of[seat]
    kings = tuple(parse_card(c) for c in "KD KC KD".split())
    st.melds[side][FACE[kings[0]]] = TableMeld(FACE[kings[0]], kings, 3, 0)
    st.nmelds[side] = 1
    _hold(st, seat, "QH 9D 5C")  # singles: exactly their penalty
    assert ev.hand_worth(st, seat) == -25
    before = side_result(st, seat), side_result(st, seat, hands=False)
    _hold(st, seat, "KH KS QH QS QD 9D 5C")  # as after a take: two kings for the meld, three queens
    assert ev.hand_worth(st, seat) > -15
    # holding 55 more points: a loss by the old evaluation, a gain by the new one
    assert side_result(st, seat, hands=False) < before[1]
    assert side_result(st, seat) > before[0]


@pytest.mark.parametrize("preset", ["bicycle", "classic"])
def test_r8_worlds_agree_with_a_pile_let_go(preset: str) -> None:
    """R8: when the history says a seat holds no pair of a face, the sampled worlds break it up.

    Every count the view shows stays: hand sizes, the cards in hands and stock together, the
    cards a seat is known to hold; no red three reaches a hand.
    """
    pairs = broken = 0
    for st in _decisions(preset, 4, 2):
        seat = st.turn
        view = st.view(seat)
        sampler = Resampler(view)
        others = [s for s in range(st.players) if s != seat]
        evidence = [(s, f, 1.0) for s in others for f in MELD_FACES]
        rng = random.Random(5)
        for _ in range(30):
            world = sampler.sample(rng, history=False)
            before = sorted(c for s in others for c in world.hands[s]) + sorted(world.stock)
            sizes = [len(h) for h in world.hands]
            respect_evidence(world, evidence, rng)
            after = sorted(c for s in others for c in world.hands[s]) + sorted(world.stock)
            assert sorted(before) == sorted(after)
            assert [len(h) for h in world.hands] == sizes
            assert world.hands[seat] == sorted(view.hand)
            for s in others:
                assert all(FACE[c] != F_RED3 for c in world.hands[s])
                assert world.fc[s] == [
                    sum(1 for c in world.hands[s] if FACE[c] == f) for f in range(NUM_FACES)
                ]
                for c in world.known[s]:
                    assert world.hands[s].count(c) >= world.known[s].count(c)
                for f in MELD_FACES:
                    known = sum(1 for c in world.known[s] if FACE[c] == f)
                    if world.stock and known < 2:
                        pairs += 1
                        broken += world.fc[s][f] <= max(1, known)
    # a stock card of another face to swap in is nearly always found in sixteen tries
    assert pairs > 0 and broken >= 0.99 * pairs


def test_pair_evidence_comes_from_the_history_and_skips_the_seat_itself() -> None:
    """Expert's worlds use the same reading of the history as Normal's discards."""
    k, five = parse_card("KH"), parse_card("5C")
    history = [
        _event(0, Discard(five)),
        _event(1, DRAW, 2),
        _event(1, Discard(parse_card("QS"))),
        _event(0, DRAW, 2),
        _event(0, Discard(k)),
        _event(1, DRAW, 2),  # seat 1 lets a pile of three go with a king on top
    ]
    mem = Memory.from_history(history, 2)
    found = {(s, f): p for s, f, p in pair_evidence(mem, 0, 2)}
    assert found[(1, FACE[k])] == mem.no_pair(1, FACE[k]) > 0.6
    assert all(s == 1 for s, _ in found)
    assert (1, FACE[parse_card("7H")]) not in found


def test_r8_frozen_pile_counts_for_the_side_holding_natural_pairs() -> None:
    """A truncated rollout credits a frozen pile to each side by the natural pairs it holds."""
    checked = 0
    for st in _decisions("bicycle", 12, 3):
        seat = st.turn
        mine, theirs = st.side_of[seat], st.side_of[(seat + 1) % 4]
        pv = pile_value(st)
        want = (min(1.0, 0.2 * pile_keys(st, mine)) - min(1.0, 0.2 * pile_keys(st, theirs))) * pv
        assert side_result(st, seat, keys=0.2) - side_result(st, seat) == pytest.approx(want)
        per_pair = 80.0 * (pile_keys(st, mine) - pile_keys(st, theirs))
        assert side_result(st, seat, pair_key=80.0) - side_result(st, seat) == pytest.approx(
            per_pair
        )
        for side in (mine, theirs):
            if not st.pile or not st.is_frozen_for(side):
                assert pile_keys(st, side) == 0
        checked += want != 0
    assert checked > 0


def _pile(st, cards: str) -> None:
    st.pile = []
    st.pile_wild = st.pile_red3 = st.pile_black3 = 0
    for c in cards.split():
        st.push_pile(parse_card(c))


@pytest.mark.parametrize(
    ("preset", "pile", "opened", "credited"),
    [
        # R7.3: a black three freezes the pile only under black_three=freeze (bicycle)
        ("bicycle", "5C 3S 8H", True, True),
        ("classic", "5C 3S 8H", True, False),
        # R7.1: a wild card freezes it in every preset
        ("classic", "5C 2H 8H", True, True),
        ("bicycle", "5C 2H 8H", True, True),
        # R7.4: frozen for a side that has not opened, but its opening meld lifts that
        ("classic", "5C 8H", False, False),
        ("bicycle", "5C 8H", False, False),
    ],
)
def test_r7_frozen_pair_counts_only_while_the_piles_cards_freeze_it(
    preset: str, pile: str, opened: bool, credited: bool
) -> None:
    """``frozen_pair``: a natural pair is a key only to a pile its own cards freeze (R7, R8)."""
    st = Game(Settings.preset(preset), seed=5).state
    seat = st.turn
    mine, theirs = st.side_of[seat], st.side_of[(seat + 1) % 4]
    _hold(st, seat, "KH KS 7D 9C")  # one natural pair
    for s, cards in ((1, "4D 6C 9H JS"), (2, "5D 7S TH QC"), (3, "4C 6D 9S JH")):
        _hold(st, (seat + s) % 4, cards)  # singles only
    st.nmelds[mine] = 1 if opened else 0
    st.nmelds[theirs] = 1
    _pile(st, pile)
    assert st.is_frozen_for(mine) == (credited or not opened)
    gain = side_result(st, seat, frozen_pair=80.0) - side_result(st, seat)
    assert gain == pytest.approx(80.0 if credited else 0.0)
    assert pile_keys(st, mine, by_cards=True) == (1 if credited else 0)
    # the same pair held by the opponents counts against the seat
    _hold(st, (seat + 1) % 4, "QH QS 6C 9H")
    assert side_result(st, seat, frozen_pair=80.0) - side_result(st, seat) == pytest.approx(0.0)


def test_expert_credits_frozen_pairs_by_default() -> None:
    """Expert ships with ``frozen_pair`` 80 (the bots README: confirmed on 200 seed-1 deals)."""
    from canasta.bots.search import FROZEN_PAIR

    assert FROZEN_PAIR == 80.0
    assert make_player("expert", seed=1).frozen_pair == FROZEN_PAIR
    assert ExpertPlayer(1, frozen_pair=0.0).frozen_pair == 0.0


def test_r14_three_player_expert_searches_the_draw_and_the_play() -> None:
    """With three players Expert searches the draw (take the pile or not, R8) and the play
    phase: while all three play alone and the stock holds more than LATE_STOCK cards
    (PLAY_ALONE) only where the all-alone leaf was fitted for the rules (the three-player
    preset); under other rules, or with ``phases`` leaving PLAY_ALONE out, it makes the choice
    its guide makes there: Normal's rules of thumb without the discard danger, so it sometimes
    throws what Normal would hold back.  It searches once a partnership has formed (R14: two
    sides left).  With four players it searches the play phase too, and ``phases`` overrides
    the default."""
    from dataclasses import replace

    from canasta.bots.players import HeuristicPlayer
    from canasta.bots.search import GUIDE, PLAY_ALONE, SEARCHED_PHASES, searched

    assert PLAY_ALONE in SEARCHED_PHASES[3]
    assert all(PLAY_ALONE not in SEARCHED_PHASES[n] for n in (2, 4))
    house = Settings.preset("three-player", black_three="freeze")
    alone = unlike_normal = 0
    for st in _alone_plays():
        view = st.view(st.turn)
        expert = ExpertPlayer(seed=5, **SEARCH)
        assert searched(view, SEARCHED_PHASES[3])
        assert st.check(expert.choose(view)) is None
        assert expert.last_iterations == SEARCH["iterations"]
        guide = HeuristicPlayer("expert-guide", GUIDE, seed=5)
        without = ExpertPlayer(seed=5, phases=SEARCHED_PHASES[3] - {PLAY_ALONE}, **SEARCH)
        mine = without.choose(view)
        assert mine == guide.choose(view) and without.last_iterations == 0
        unlike_normal += mine != make_player("normal", seed=5).choose(view)
        other_rules = replace(view, settings=house)
        assert not searched(other_rules, SEARCHED_PHASES[3])
        expert.choose(other_rules)
        assert expert.last_iterations == 0
        alone += 1
    assert alone >= 10 and unlike_normal >= 1
    partnered_plays = _partnered_plays(4)
    for st in partnered_plays:
        expert = ExpertPlayer(seed=5, **SEARCH)
        assert st.check(expert.choose(st.view(st.turn))) is None
        assert expert.last_iterations == SEARCH["iterations"]
    draws = [st for st in _decisions("three-player", 40, 4) if st.phase == "draw"]
    assert any(_searched(st, ExpertPlayer(seed=5, **SEARCH)) for st in draws)
    plays = [st for st in _decisions("classic", 30, 4) if st.phase == "play"]
    assert any(_searched(st, ExpertPlayer(seed=5, **SEARCH)) for st in plays)
    every = frozenset({"draw", "play", "ask"})
    three = [st for st in _decisions("three-player", 40, 3) if st.phase == "play"]
    assert any(_searched(st, ExpertPlayer(seed=5, phases=every, **SEARCH)) for st in three)
    draw_only = frozenset({"draw", "ask"})
    assert not any(
        _searched(st, ExpertPlayer(seed=5, phases=draw_only, **SEARCH)) for st in partnered_plays
    )


def test_r14_the_guide_differs_from_normal_only_while_three_play_alone() -> None:
    """Expert's guide is Normal's style but for ``alone_danger`` (0: before anyone takes the
    pile, R14, it does not weigh the danger of handing the next player the pile).  Its ranking
    equals Normal's with four players and once a three-player partnership has formed, and
    differs from it somewhere while all three play alone."""
    from dataclasses import replace

    from canasta.bots.policy import NORMAL, Policy
    from canasta.bots.search import GUIDE

    assert GUIDE == replace(NORMAL, alone_danger=0.0) and NORMAL.alone_danger == 1.0
    normal, guide = Policy(NORMAL), Policy(GUIDE)
    same = [st for st in _decisions("classic", 20, 5) if st.phase == "play"] + _partnered_plays(6)
    assert len(same) >= 12
    for st in same:
        assert guide.rank(st) == normal.rank(st)
    alone = _alone_plays()
    # somewhere the guide's first choice itself differs, not only its scores
    assert any(guide.choose(st) != normal.choose(st) for st in alone)


def _alone_plays() -> list[State]:
    """Three-player play decisions with a real choice while all three play alone (R14), the
    stock not yet nearly out (more than :data:`LATE_STOCK` cards)."""
    from canasta.bots.search import LATE_STOCK

    states = _decisions("three-player", 40, 3) + _decisions("three-player", 40, 7)
    return [
        st
        for st in states
        if st.phase == "play" and len(set(st.side_of)) == 3 and len(st.stock) > LATE_STOCK
    ]


def _late_alone_plays(count: int) -> list[State]:
    """Three-player play decisions with a real choice while all three play alone (R14) and
    the stock holds at most :data:`LATE_STOCK` cards."""
    from canasta.bots.search import LATE_STOCK

    return _first_plays(
        "late", count, lambda st: len(st.stock) <= LATE_STOCK and len(set(st.side_of)) == 3
    )


def test_r14_three_player_expert_searches_the_play_while_the_stock_is_nearly_out() -> None:
    """With three players, while all three play alone, Expert searches its melds and discards
    once the stock holds at most LATE_STOCK cards (its rollouts then mostly reach the hand's
    end); with more cards the label does not apply (PLAY_ALONE does); it is three-player
    only."""
    from dataclasses import replace

    from canasta.bots.search import LATE_STOCK, PLAY_ALONE, PLAY_LATE, SEARCHED_PHASES, searched

    assert PLAY_LATE in SEARCHED_PHASES[3]
    assert all(PLAY_LATE not in SEARCHED_PHASES[n] for n in (2, 4))
    late = _late_alone_plays(4)
    for st in late:
        view = st.view(st.turn)
        assert searched(view, SEARCHED_PHASES[3])
        assert not searched(replace(view, stock_size=LATE_STOCK + 1), frozenset({PLAY_LATE}))
        assert searched(replace(view, stock_size=LATE_STOCK + 1), frozenset({PLAY_ALONE}))
        assert searched(replace(view, stock_size=LATE_STOCK + 1), frozenset({"play"}))
        expert = ExpertPlayer(seed=5, **SEARCH)
        assert st.check(expert.choose(view)) is None
        assert expert.last_iterations == SEARCH["iterations"]
        without = ExpertPlayer(seed=5, phases=SEARCHED_PHASES[3] - {PLAY_LATE}, **SEARCH)
        without.choose(view)
        assert without.last_iterations == 0
    draws = [st for st in _decisions("three-player", 40, 4) if st.phase == "draw"]
    assert all(searched(st.view(st.turn), frozenset({PLAY_LATE})) is False for st in draws)


@pytest.mark.parametrize(("preset", "others"), [("three-player", 1), ("classic", 2)])
def test_expert_tree_offers_other_seats_their_policys_best_options(
    monkeypatch: pytest.MonkeyPatch, preset: str, others: int
) -> None:
    """Below the root the tree offers the searching seat ``inner_candidates`` options and every
    other seat OTHER_CANDIDATES of its number of players (three: the rollout policy's first
    choice only), unless ``other_candidates`` says otherwise."""
    from canasta.bots.search import OTHER_CANDIDATES

    assert OTHER_CANDIDATES == {3: 1}
    asked: list[tuple[bool, int]] = []
    options = ExpertPlayer._options

    def recording(state: State, policy: Policy, memory: Memory | None, k: int) -> list:
        asked.append((state.turn == seat, k))
        return options(state, policy, memory, k)

    states = [st for st in _decisions(preset, 40, 4) if st.phase == "draw"]
    st = next(st for st in states if _searched(st, ExpertPlayer(seed=5, **SEARCH)))
    seat = st.turn
    monkeypatch.setattr(ExpertPlayer, "_options", staticmethod(recording))
    for setting, theirs in ((None, others), (3, 3)):
        asked.clear()
        ExpertPlayer(seed=5, other_candidates=setting, **SEARCH).choose(st.view(seat))
        below = asked[1:]  # the first call: the root's options
        assert asked[0] == (True, 6)
        assert {k for mine, k in below if not mine} == {theirs}
        assert {k for mine, k in below if mine} <= {2}


def _partnered_plays(count: int) -> list[State]:
    """Three-player play decisions with a real choice after a partnership formed (R14)."""
    return _first_plays("partnered", count, lambda st: len(set(st.side_of)) == 2)


def _first_plays(name: str, count: int, wanted) -> list[State]:
    """The first play decision with a real choice that is ``wanted`` in each of up to 200
    three-player Normal hands, until ``count`` are found."""
    settings = Settings.preset("three-player")
    out: list[State] = []
    for i in range(200):
        game = Game(settings, seed=f"{name}:{i}")
        bots = [make_player("normal", seed=s) for s in range(3)]
        st = game.state
        while not st.is_over:
            if st.phase == "play" and wanted(st) and len(st.legal_actions()) > 1:
                out.append(st)
                break
            game.apply(bots[st.turn].choose(st.view(st.turn)))
        if len(out) >= count:
            return out
    raise AssertionError(f"fewer than {count} {name} decisions in 200 hands")


def _searched(st: State, expert: ExpertPlayer) -> bool:
    """Whether ``expert`` searched (sampled worlds) to choose at ``st``."""
    expert.choose(st.view(st.turn))
    return expert.last_iterations > 0


def test_r5_r7_r10_side_features_read_an_explicit_position() -> None:
    """The fitted leaf's features of a side (classic, four players): the table (R5, R13), what
    its players hold by purpose, canastas toward going out (R10), pairs against a pile its
    own cards freeze (R7), and the pile when the side draws next (R8)."""
    from canasta.bots.evaluate import SIDE_FEATURES, side_features, side_table_score

    st = Game(Settings.preset("classic"), seed=5).state
    seat = st.turn
    mine, theirs = st.side_of[seat], st.side_of[(seat + 1) % 4]
    st.phase = "draw"
    kings = tuple(parse_card(c) for c in "KH KS KD KC KH KS KD".split())
    st.melds[mine][FACE[kings[0]]] = TableMeld(FACE[kings[0]], kings, 7, 0)  # a natural canasta
    st.canastas[mine], st.nmelds[mine], st.nmelds[theirs] = 1, 1, 0
    st.red3 = [[] for _ in range(4)]  # no red threes (R9): the table is the canasta alone
    # the seat: a wild, a black three, a king for the canasta, three nines, a pair of fives, a single
    _hold(st, seat, "2C 3S KC 9H 9D 9S 5C 5D QH")
    _hold(st, (seat + 2) % 4, "4D 6C")  # the partner: two singles
    _hold(st, (seat + 1) % 4, "8H 8D 8C TH")
    _hold(st, (seat + 3) % 4, "JH JS")
    _pile(st, "7C JD 2H")  # a deuce freezes the pile for everyone (R7.1)
    f = dict(zip(SIDE_FEATURES, side_features(st, mine), strict=True))
    assert f["table"] == side_table_score(st, mine) == 7 * 10 + 500  # R13: a natural canasta
    assert f["held"] == 20 + 5 + 10 + 30 + 10 + 10 + 5 + 5
    assert (f["wild"], f["black3"], f["on_meld"], f["triple"], f["pair"], f["single"]) == (
        20,
        5,
        10,
        30,
        10,
        20,
    )
    assert f["cards"] == 11 and f["canastas"] == 1 and f["goal_met"] == 1.0
    assert f["goal_near_out"] == pytest.approx(1 / 3)  # the partner holds two cards
    assert f["opened"] == 1.0
    assert f["frozen_pairs"] == 2  # nines and fives: keys to the frozen pile
    assert f["pile_if_drawing"] == pile_value(st) > 0  # the seat draws next
    assert f["held_if_they_can_go_out"] == 0.0  # the opponents have no canasta
    assert f["held_late"] == f["cards_late"] == 0.0  # a full stock: the hand is young
    del st.stock[30:]  # half the stock gone: the stage is one half
    f = dict(zip(SIDE_FEATURES, side_features(st, mine), strict=True))
    assert (f["held_late"], f["wild_late"], f["pair_late"], f["single_late"]) == (47.5, 10, 5, 10)
    assert (f["on_meld_late"], f["cards_late"]) == (5, 5.5)
    g = dict(zip(SIDE_FEATURES, side_features(st, theirs), strict=True))
    assert g["table"] == 0 and g["opened"] == 0.0 and g["goal_met"] == 0.0
    assert g["frozen_pairs"] == 2 and g["triple"] == 30  # eights (three) and jacks (two)
    assert g["pile_if_drawing"] == 0.0  # not their turn to draw
    assert g["held_if_they_can_go_out"] == g["held"] == 30 + 10 + 20
    # R7.4: a pile frozen only for the side that has not opened is no key: its opening lifts it
    _pile(st, "7C JD")
    assert st.is_frozen_for(theirs) and not st.is_frozen_for(mine)
    assert side_features(st, theirs)[SIDE_FEATURES.index("frozen_pairs")] == 0
    assert side_features(st, mine)[SIDE_FEATURES.index("frozen_pairs")] == 0
    _pile(st, "")
    assert side_features(st, mine)[SIDE_FEATURES.index("pile_if_drawing")] == 0


@pytest.mark.parametrize("preset", ["classic", "bicycle"])
def test_fitted_leaf_is_the_weighted_difference_of_the_sides(preset: str) -> None:
    """With weights, a rollout cut short is judged by each side's weighted features: the
    seat's side minus the best other side; a finished hand still by its score (R13)."""
    from canasta.bots.evaluate import SIDE_FEATURES, side_features
    from canasta.bots.search import LEAF_WEIGHTS

    weights = LEAF_WEIGHTS[preset]
    assert len(weights) == len(SIDE_FEATURES)
    states = _decisions(preset, 6, 4)
    assert states
    for st in states:
        seat = st.turn
        worth = {
            sd: sum(w * x for w, x in zip(weights, side_features(st, sd), strict=True))
            for sd in set(st.side_of)
        }
        mine = worth.pop(st.side_of[seat])
        assert side_result(st, seat, weights=weights) == pytest.approx(mine - max(worth.values()))
    game = Game(Settings.preset(preset), seed=9)
    bots = [make_player("normal", seed=s) for s in range(4)]
    st = game.state
    while not st.is_over:
        game.apply(bots[st.turn].choose(st.view(st.turn)))
    assert side_result(st, 0, weights=weights) == side_result(st, 0)


def test_expert_judges_by_the_fitted_leaf_where_a_preset_has_weights(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Expert ships with the fitted leaf (the bots README: "A fitted leaf") in classic and
    bicycle as fitted; other presets and house rules that change the game (R2) keep the
    hand-made one, and ``fitted=False`` restores it everywhere."""
    from canasta.bots.search import LEAF_WEIGHTS, leaf_weights

    assert set(LEAF_WEIGHTS) == {"classic", "bicycle"}
    assert make_player("expert", seed=1).fitted is True
    assert leaf_weights(Settings.preset("classic", target=2500, ask_partner=True)) is not None
    assert leaf_weights(Settings.preset("classic", canastas_to_go_out=2)) is None
    assert leaf_weights(Settings.preset("classic", black_three="freeze")) is None
    assert leaf_weights(Settings.preset("two-player")) is None
    calls = _count_calls(monkeypatch, "side_features")

    def leaves(preset: str, **options: object) -> int:
        quick = ExpertPlayer(1, iterations=5, time_budget=None, phases=options.get("phases"))
        st = next(s for s in _decisions(preset, 30, 6) if _searched(s, quick))
        calls.clear()
        action = ExpertPlayer(1, iterations=30, time_budget=None, **options).choose(
            st.view(st.turn)
        )
        assert st.check(action) is None
        return len(calls)

    assert leaves("classic") > 0 and leaves("bicycle") > 0
    assert leaves("classic", fitted=False) == 0
    # three-player draws: the hand-made leaf (all-alone plays have their own: see below)
    assert leaves("two-player") == 0 and leaves("three-player", phases=frozenset({"draw"})) == 0


def _count_calls(monkeypatch: pytest.MonkeyPatch, name: str) -> list[int]:
    """Count the calls of ``canasta.bots.evaluate.<name>`` (one entry per call; clear it to
    start again)."""
    from canasta.bots import evaluate as ev

    calls: list[int] = []
    features = getattr(ev, name)

    def counted(st: State, side: int) -> list[float]:
        calls.append(side)
        return features(st, side)

    monkeypatch.setattr(ev, name, counted)
    return calls


def test_fitted_leaf_with_one_weight_is_that_features_difference() -> None:
    """A leaf weighing the table alone is the table's difference (R13): with three sides (R14,
    before anyone takes the pile) the seat's side against the best of the other two."""
    from canasta.bots.evaluate import SIDE_FEATURES, side_table_score

    only_table = tuple(1.0 if n == "table" else 0.0 for n in SIDE_FEATURES)
    for preset in ("classic", "three-player"):
        for st in _decisions(preset, 4, 8):
            seat = st.turn
            mine = side_table_score(st, st.side_of[seat])
            best = max(side_table_score(st, sd) for sd in set(st.side_of) - {st.side_of[seat]})
            assert side_result(st, seat, weights=only_table) == pytest.approx(mine - best)


def _expected_against_rivals_mean(st: State, seat: int, worth: dict[int, float]) -> float:
    """What a seat is judged by against the rivals' mean, case by case (R13, R14), from each
    side's ``worth``: with two teams the other side; with three players playing alone the other
    two's mean; in a partnership the lone player against the partners (whose totals both gain
    the hand), a partner by half the partnership's lead (none of it against the partner)."""
    mine = worth[st.side_of[seat]]
    others = [w for sd, w in worth.items() if sd != st.side_of[seat]]
    if st.players != 3 or len(worth) == 3:
        return mine - sum(others) / len(others)
    (other,) = others
    alone = st.side_of.count(st.side_of[seat]) == 1
    return mine - other if alone else (mine - other) / 2


def test_r14_three_players_are_judged_against_the_rivals_mean() -> None:
    """By default Expert judges a seat against the mean of the other players' totals, as the
    three-player match score counts beating either one: before anyone takes the pile (R14) the
    other two sides' mean; once a partnership has formed, a partner shares its total with one
    rival, so a partner counts half its partnership's lead and the lone player all of it.  With
    ``mean_rivals=False`` the best other side; with two teams both judgements agree."""
    from canasta.bots.evaluate import SIDE_FEATURES, side_table_score

    only_table = tuple(1.0 if n == "table" else 0.0 for n in SIDE_FEATURES)
    assert ExpertPlayer(1).mean_rivals is True
    seen = {"apart": 0, "partners": 0, "lone": 0}
    for preset in ("classic", "three-player"):
        partnered = _partnered_plays(6) if preset == "three-player" else []
        states = _decisions(preset, 6, 9) + partnered
        for st in states:
            tables = {sd: side_table_score(st, sd) for sd in set(st.side_of)}
            for seat in range(st.players):
                mine = tables[st.side_of[seat]]
                others = [t for sd, t in tables.items() if sd != st.side_of[seat]]
                mean = side_result(st, seat, weights=only_table, mean_rivals=True)
                assert mean == pytest.approx(_expected_against_rivals_mean(st, seat, tables))
                assert side_result(st, seat, weights=only_table) == pytest.approx(
                    mine - max(others)
                )
                hand_made = [side_result(st, seat, mean_rivals=m) for m in (True, False)]
                if st.players != 3:
                    assert mean == side_result(st, seat, weights=only_table)
                    assert hand_made[0] == hand_made[1]
                elif len(tables) == 3:
                    seen["apart"] += max(others) != min(others)  # the two judgements differ
                    assert hand_made[0] >= hand_made[1]  # the mean of two is never above the best
                elif st.side_of.count(st.side_of[seat]) == 2:
                    seen["partners"] += 1  # half the lead, whichever way it goes
                    assert hand_made[0] == pytest.approx(hand_made[1] / 2)
                else:
                    seen["lone"] += 1
                    assert hand_made[0] == pytest.approx(hand_made[1])
            # summed over the players, the judgements against their rivals' mean balance out
            for w in (None, only_table):
                seats = range(st.players)
                total = sum(side_result(st, s, weights=w, mean_rivals=True) for s in seats)
                assert total == pytest.approx(0.0, abs=1e-6)
            if len(tables) == 3:
                # against the best rival the sides sum to the worst side's worth minus the best's
                best = [side_result(st, s, weights=only_table) for s in range(3)]
                assert sum(best) == pytest.approx(min(tables.values()) - max(tables.values()))
    assert seen["partners"] >= 12 and seen["lone"] >= 6 and seen["apart"] > 0, seen


def test_r13_r14_a_finished_hand_is_judged_by_its_scores_against_the_rivals() -> None:
    """A finished hand is judged by the sides' hand scores (R13), against the rivals' mean or
    the best rival; with three players the sides are whoever played alone or together (R14)."""
    sides_seen: set[int] = set()
    for preset in ("classic", "three-player"):
        settings = Settings.preset(preset)
        for i in range(3 if preset == "classic" else 40):
            if sides_seen == {2, 3}:
                break
            game = Game(settings, seed=f"finished:{preset}:{i}")
            bots = [make_player("normal", seed=s) for s in range(settings.players)]
            st = game.state
            while not st.is_over:
                game.apply(bots[st.turn].choose(st.view(st.turn)))
            assert st.result is not None
            totals = {s.side: float(s.total) for s in st.result.sides}
            for seat in range(settings.players):
                mine = totals[st.side_of[seat]]
                others = [t for sd, t in totals.items() if sd != st.side_of[seat]]
                assert side_result(st, seat) == mine - max(others)
                assert side_result(st, seat, mean_rivals=True) == pytest.approx(
                    _expected_against_rivals_mean(st, seat, totals)
                )
            if preset == "three-player":
                sides_seen.add(len(totals))
    assert sides_seen == {2, 3}  # hands ended alone and with a partnership formed (R14)


def test_expert_passes_its_judgement_of_rivals_to_every_leaf(monkeypatch) -> None:
    """Expert's ``mean_rivals`` reaches every judgement its search makes (three players)."""
    import canasta.bots.search as search

    seen: list[bool] = []
    judge = search.side_result

    def recording(*args: object, **kwargs: object) -> float:
        seen.append(bool(args[7]) if len(args) > 7 else bool(kwargs.get("mean_rivals", False)))
        return judge(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(search, "side_result", recording)
    draws = [st for st in _decisions("three-player", 40, 4) if st.phase == "draw"]
    st = next(st for st in draws if _searched(st, ExpertPlayer(seed=5, **SEARCH)))
    for mean in (True, False):
        seen.clear()
        ExpertPlayer(seed=5, mean_rivals=mean, **SEARCH).choose(st.view(st.turn))
        assert seen and set(seen) == {mean}


def test_leaf_fit_recovers_known_weights_and_reports_both_leaves() -> None:
    """``bench/leaf_fit.py``: its least squares finds the weights that made the outcomes, and a
    small run reports the variance each leaf explains on held-out hands."""
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[2] / "bench" / "leaf_fit.py"
    spec = importlib.util.spec_from_file_location("canasta_bench_leaf_fit", path)
    assert spec is not None and spec.loader is not None
    leaf_fit = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(leaf_fit)

    rng = random.Random(3)
    truth = [2.0, -0.5, 40.0]
    rows = []
    for _ in range(400):
        x = [rng.uniform(-100, 100), rng.uniform(0, 300), float(rng.randrange(2))]
        rows.append((x, sum(w * v for w, v in zip(truth, x, strict=True)), 0.0))
    fitted = leaf_fit.least_squares(rows, ridge=0.0)
    assert fitted == pytest.approx(truth, abs=1e-4)
    samples = leaf_fit.play("classic", 12, 1)
    # four seats, two sides: each position gives one row, seat 0's side against the other
    assert samples and all(len(t) == 4 and set(f) == {0, 1} for _, f, _, t in samples)
    assert all(t[0] == t[2] and t[1] == t[3] for _, _, _, t in samples)  # partners score alike
    from canasta.bots.search import LEAF_WEIGHTS

    report = leaf_fit.explained(leaf_fit.pairs(samples), list(LEAF_WEIGHTS["classic"]))
    assert set(report) == {"positions", "r2_fitted", "r2_hand_made"}
    assert report["positions"] == len(samples)
    # three players (R14): seat 0's side against each other side of the moment, scored seat
    # against seat; partners of the moment give no row
    f = {0: [1.0, 0.0], 1: [0.0, 2.0], 2: [3.0, 3.0]}
    rows = leaf_fit.pairs([([0, 1, 2], f, 7.0, [100.0, 50.0, -20.0])])
    assert rows == [([1.0, -2.0], 50.0, 7.0), ([-2.0, -3.0], 120.0, 7.0)]
    merged = {0: [1.0, 0.0], 2: [3.0, 3.0]}
    assert leaf_fit.pairs([([0, 0, 2], merged, 7.0, [80.0, 80.0, 10.0])]) == [
        ([-2.0, -3.0], 70.0, 7.0)
    ]


def test_alone_fit_ranks_options_within_each_decision() -> None:
    """``bench/alone_fit.py``: its ridge finds the weights that made the outcomes, the fit
    takes each decision's mean out (a weight that only says how good the deal is counts for
    nothing), and a small run branches all-alone decisions into samples of every player."""
    import importlib.util
    from pathlib import Path

    import numpy as np

    from canasta.bots.evaluate import ALONE_FEATURES

    path = Path(__file__).resolve().parents[2] / "bench" / "alone_fit.py"
    spec = importlib.util.spec_from_file_location("canasta_bench_alone_fit", path)
    assert spec is not None and spec.loader is not None
    alone_fit = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(alone_fit)

    rng = np.random.default_rng(3)
    x = rng.uniform(-50, 50, size=(300, 3))
    truth = np.array([2.0, -0.5, 4.0])
    assert alone_fit.ridge(x, x @ truth, 0.0) == pytest.approx(truth, abs=1e-6)
    groups = np.repeat(np.arange(100), 3)
    luck = np.repeat(rng.uniform(-500, 500, size=100), 3)  # the deal: the same for every option
    v = x @ truth + luck
    assert alone_fit.demean(v, groups) == pytest.approx(alone_fit.demean(x @ truth, groups))
    data = alone_fit.samples(hands=4, seed=1, p=0.2, k=1, seconds=60.0)
    n = len(data["G"])
    assert n > 0 and data["X"].shape == (n, 3, len(ALONE_FEATURES)) and data["Y"].shape == (n, 3)
    # the brancher is one of the three seats; the guide's own first choice is among the options
    assert set(data["B"].tolist()) <= {0, 1, 2} and data["O"].min() == 0
    x, y = alone_fit.against_others(data)
    b = data["B"][0]
    assert y[0] == pytest.approx(data["Y"][0, b] - (data["Y"][0].sum() - data["Y"][0, b]) / 2)
    assert x.shape == (n, len(ALONE_FEATURES))
    fitted = alone_fit.fit(data, 1e-3)
    assert fitted["samples"] == n and len(fitted["weights"]) == len(ALONE_FEATURES)
    assert -1.0 <= fitted["held_out_corr_fitted"] <= 1.0


def test_r7_r14_the_guide_does_not_freeze_the_pile_while_three_play_alone() -> None:
    """Normal throws a deuce to freeze a pile of six or more that the next player, an opponent
    who has opened, could take (R7.1: a wild freezes it).  Expert's guide does not count that
    danger while all three play alone (R14, ``alone_danger`` 0), nor freezes against it; once a
    partnership has formed it freezes as Normal does."""
    from canasta.bots.search import GUIDE

    game = Game(Settings.preset("three-player"), seed=5)
    game.apply(DRAW)  # the first player has drawn: its play phase
    st = game.state
    seat = st.turn
    nxt = (seat + 1) % 3
    assert st.phase == "play" and not st.merged
    _hold(st, seat, "2C 4D 4H 9S JC KD")  # one deuce (the only wild), fours, singles
    _pile(st, "5C 6D 7H 8S TC QD")  # six cards, no wild: not frozen
    st.nmelds[st.side_of[nxt]] = 1  # the next player has opened

    def deuce(style) -> float:
        ranked = Policy(style).rank(st)
        return next(v for v, a in ranked if a == Discard(parse_card("2C")))

    # Normal: the deuce's keep value falls by 4 a pile card (6 cards, one wild in hand)
    normal = deuce(NORMAL)
    assert normal - deuce(GUIDE) == pytest.approx(4.0 * 6)
    # a partnership has formed (the other two, R14): the guide freezes as Normal does
    st.merged = True
    st.side_of = [1, 1, 1]
    st.side_of[seat] = 0
    st.nmelds = [1, 1, 1]
    assert deuce(GUIDE) == deuce(NORMAL) == normal


def test_r8_r10_r14_alone_features_read_an_explicit_position() -> None:
    """The all-alone leaf's features of a player (three-player, all three alone, R14): the pile
    it can take now (a natural pair of the top card is a key, R8.1; a meld of the face takes an
    unfrozen pile, R8.2) and whether it draws next, its pairs and triples, its melds, its
    nearness to going out (R10) and the cards it holds while a rival can go out."""
    from canasta.bots.evaluate import ALONE_FEATURES, SIDE_FEATURES, alone_features, side_features

    st = Game(Settings.preset("three-player"), seed=5).state
    assert len(set(st.side_of)) == 3
    seat = st.turn
    me, nxt, last = (st.side_of[(seat + k) % 3] for k in range(3))
    st.phase = "play"
    st.red3 = [[] for _ in range(3)]
    sevens = tuple(parse_card(c) for c in "7H 7S 7D 7C 7H 7S 7D".split())
    st.melds[last][FACE[sevens[0]]] = TableMeld(FACE[sevens[0]], sevens, 7, 0)
    st.canastas[last], st.nmelds[last] = 1, 1  # the player after next can go out (R10)
    queens = tuple(parse_card(c) for c in "QH QS QD QC QH".split())
    st.melds[me][FACE[queens[0]]] = TableMeld(FACE[queens[0]], queens, 5, 0)
    st.nmelds[me], st.canastas[me] = 1, 0
    _hold(st, seat, "2C 9H 9D 9S 5C 5D KH")
    _hold(st, (seat + 1) % 3, "4D 6C 8S")
    _hold(st, (seat + 2) % 3, "JH JS")
    _pile(st, "TC 8D 5H")
    del st.stock[30:]
    f = dict(zip(ALONE_FEATURES, alone_features(st, me), strict=True))
    assert ALONE_FEATURES[: len(SIDE_FEATURES)] == SIDE_FEATURES
    assert list(f.values())[: len(SIDE_FEATURES)] == side_features(st, me)
    worth = pile_value(st)
    assert worth > 0
    # a pair of fives is the key to the pile (R8.1), but the next to draw is the next player
    assert (f["pile_key"], f["pile_takable"], f["pile_if_next"]) == (worth, worth, 0.0)
    # faces held at least twice (fives, nines), at least three times (nines), not on a meld
    assert f["pile_size"] == 3 and f["pairs"] == 2 and f["triples"] == 1
    assert f["pairs_by_pile_size"] == 6 and f["pairs_by_pile_value"] == 2 * worth
    assert (f["melds"], f["melds_of_five_up"], f["longest_meld"]) == (1, 1, 5)
    assert f["wilds"] == 1 and f["cards_squared"] == 49
    assert f["nearness_to_out"] == pytest.approx(1 / 8) and f["nearness_to_out_if_met"] == 0
    # the rival that can go out holds two cards: the seat's 70 points are at risk by 1/3
    assert f["held_by_nearest_rival_out"] == pytest.approx((20 + 30 + 10 + 10) / 3)
    assert f["cards_if_a_rival_met"] == 7
    assert f["pile_takable_late"] == pytest.approx(worth * 0.5)
    g = dict(zip(ALONE_FEATURES, alone_features(st, nxt), strict=True))
    # the next player holds no pair of fives and has not opened: the pile is not takable for it
    assert (g["pile_key"], g["pile_takable"], g["pile_if_next"]) == (0.0, 0.0, worth)
    assert g["melds"] == 0 and g["cards_if_a_rival_met"] == 3
    h = dict(zip(ALONE_FEATURES, alone_features(st, last), strict=True))
    assert h["nearness_to_out_if_met"] == pytest.approx(1 / 3) and h["cards_if_a_rival_met"] == 0
    assert h["goal_met_few_cards"] == 1.0
    _pile(st, "TC 8D QH")  # a queen on top: the seat's queens meld takes the unfrozen pile
    f = dict(zip(ALONE_FEATURES, alone_features(st, me), strict=True))
    assert f["pile_key"] == 0 and f["pile_takable"] == pile_value(st) > 0


def test_r14_expert_judges_all_alone_plays_by_the_alone_leaf(monkeypatch: pytest.MonkeyPatch) -> None:
    """While all three play alone (R14), Expert's searched plays judge rollouts that end with
    all three still alone by the all-alone leaf: the seat's weighted features minus the other
    two's mean; only in the preset it was fitted for, and not with ``fitted=False``.  Draws and
    plays after a partnership has formed keep their leaf."""
    from canasta.bots import evaluate as ev
    from canasta.bots.search import (
        ALONE_LEAF_WEIGHTS,
        alone_leaf_weights,
        alone_result,
    )

    assert len(ALONE_LEAF_WEIGHTS) == len(ev.ALONE_FEATURES)
    three = Settings.preset("three-player")
    assert alone_leaf_weights(three) == ALONE_LEAF_WEIGHTS
    assert alone_leaf_weights(Settings.preset("three-player", target=2500)) is not None
    assert alone_leaf_weights(Settings.preset("three-player", black_three="freeze")) is None
    assert alone_leaf_weights(Settings.preset("classic")) is None
    alone = _alone_plays()[:3]
    for st in alone:
        worth = [
            sum(w * x for w, x in zip(ALONE_LEAF_WEIGHTS, ev.alone_features(st, sd), strict=True))
            for sd in range(3)
        ]
        for seat in range(3):
            mine = worth[st.side_of[seat]]
            expected = mine - (sum(worth) - mine) / 2
            assert alone_result(st, seat, ALONE_LEAF_WEIGHTS) == pytest.approx(expected)
    calls = _count_calls(monkeypatch, "alone_features")

    def leaves(st: State, **options: object) -> int:
        calls.clear()
        expert = ExpertPlayer(1, iterations=30, time_budget=None, **options)
        assert st.check(expert.choose(st.view(st.turn))) is None
        assert expert.last_iterations == 30
        return len(calls)

    assert all(leaves(st) > 0 for st in alone)
    # without the fitted leaves these plays are the guide's choice again (no search at all)
    for st in alone:
        calls.clear()
        expert = ExpertPlayer(1, iterations=30, time_budget=None, fitted=False)
        assert st.check(expert.choose(st.view(st.turn))) is None
        assert expert.last_iterations == 0 and not calls
    draws = [st for st in _decisions("three-player", 20, 4) if st.phase == "draw"][:2]
    assert draws and all(leaves(st) == 0 for st in draws)
    assert all(leaves(st) == 0 for st in _partnered_plays(2))
