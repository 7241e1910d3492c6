"""Rule-of-thumb play shared by Beginner, Normal and Expert's rollouts.

One policy, tuned by a :class:`Style`: the levels differ in what they know (memory of the
public history, reading the opponents) and how carefully they decide, not in copied code.
The policy works on a :class:`canasta.State` for the seat to act and reads only that seat's
hand plus public information (see :mod:`canasta.bots.evaluate`).
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from ..actions import ASK, DECLINE, DRAW, NO, YES, Action, Discard, Meld, TakePile
from ..cards import F_BLACK3, F_DEUCE, F_JOKER, FACE, IS_WILD, VALUE
from ..legal import legal_actions_and_going_out
from ..rules import CANASTA_SIZE
from ..state import State
from . import evaluate as ev
from .evaluate import Memory


@dataclass(frozen=True, slots=True)
class Style:
    """How a level plays: knowledge and care, as data."""

    #: standard deviation of the noise added to discard scores
    noise: float = 0.0
    #: read the opponents: discard danger from their melds, known cards and (with memory) history
    read_opponents: bool = True
    #: keep natural pairs instead of melding them with a wild
    keep_pairs: bool = True
    #: freeze the pile with a wild when the opponents threaten it
    freeze: bool = True
    #: use black threes as stops when the pile is worth protecting
    stops: bool = True
    #: keep natural canastas natural unless a canasta is needed now
    natural_canastas: bool = True
    #: judge whether going out pays (else: always go out)
    judge_going_out: bool = True
    #: ask the partner before going out (when the rules allow)
    ask_partner: bool = True
    #: take every pile of at least this many cards, in any game (0: judge by value; Beginner: 1)
    naive_take: int = 0
    #: added to the value of taking the pile (tuning)
    take_bias: float = 0.0
    #: added to the value of melding (tuning)
    meld_bias: float = 0.0
    #: base value of laying a wild on an unfinished meld
    wild_add: float = -4.0
    #: weight of the danger of handing the next player the pile
    danger_scale: float = 1.0
    #: weight of keeping cards in hand (pairs, wilds) against dumping penalty cards
    keep_scale: float = 1.0
    #: without the canastas to go out, keep at least this many cards (0: no restraint)
    min_hand: int = 0
    #: how much each card below ``min_hand`` costs a meld
    restraint: float = 12.0
    #: three players: the cost of being the first to take the pile (then alone against two)
    lone_take: float = 600.0
    #: two players: take every pile of at least this many cards and leave smaller ones (taking
    #: two-card piles measured far worse than drawing two; so did valuing each pile)
    duel_take: int = 5
    #: four players: take every pile of at least this many cards (0: judge by value)
    four_take: int = 3
    #: two players: the weight of the discard danger there (measured: holding cards back from
    #: the one opponent costs more than the piles it saves, so Normal ignores it)
    duel_danger: float = 0.0
    #: four players: the weight of the discard danger there (measured best near 5 in classic
    #: and bicycle: a pile handed to an opponent costs far more than its cards' value)
    four_danger: float = 5.0
    #: three players, while all three play alone (R14): the weight of the discard danger then
    #: (1: as once a partnership has formed; Expert's guide plays 0: the danger assumes the next
    #: player takes whatever pile it can, but a player that takes first then plays alone
    #: against two, and Normal seldom does, see ``lone_take``).  At 0 the player does not
    #: freeze the pile with a deuce then either (``freeze``), a guard against that same danger
    alone_danger: float = 1.0
    #: after the opening, the value of melding a natural pair with a wild (the pair kept for
    #: the frozen pile measured better than melding it whenever a wild is in hand)
    pair_wild: float = -80.0


#: sensible but weak: melds eagerly, grabs every pile it can, discards carelessly without
#: reading the opponents (no danger, no memory), never freezes or stops the pile
BEGINNER = Style(
    noise=25.0,
    read_opponents=False,
    keep_pairs=False,
    freeze=False,
    stops=False,
    natural_canastas=False,
    judge_going_out=False,
    ask_partner=False,
    naive_take=1,
    danger_scale=0.0,
)
NORMAL = Style()


class Policy:
    """Score the options of the seat to act; the best one is the rule-of-thumb choice."""

    def __init__(self, style: Style) -> None:
        self.style = style

    # ------------------------------------------------------------------ entry points

    def choose(self, st: State, rng: random.Random | None = None, memory: Memory | None = None) -> Action:
        """The policy's action for the seat to act."""
        ranked = self.rank(st, rng, memory)
        return ranked[0][1]

    def rank(
        self, st: State, rng: random.Random | None = None, memory: Memory | None = None
    ) -> list[tuple[float, Action]]:
        """Options with scores, best first (never empty while the hand is not over)."""
        phase = st.phase
        if phase == "ask":
            yes = self.answer(st)
            return [(1.0, YES if yes else NO), (0.0, NO if yes else YES)]
        if phase == "draw":
            out = self._rank_draw(st)
        else:
            out = self._rank_play(st, rng, memory)
        out.sort(key=lambda t: -t[0])
        return out

    # ------------------------------------------------------------------ draw phase

    def _rank_draw(self, st: State) -> list[tuple[float, Action]]:
        legal = st.legal_actions()
        takes = [a for a in legal if a.kind == "take"]
        out: list[tuple[float, Action]] = []
        if st.stock:
            base = 11.0 * st.settings.draw_count
            out.append((base, DRAW))
        elif DECLINE in legal:
            out.append((0.0, DECLINE))
        for a in takes:
            assert isinstance(a, TakePile)
            out.append((self._take_value(st, a), a))
        if not out:  # defensive: the engine always offers something here
            out = [(0.0, a) for a in legal]
        return out

    def _take_value(self, st: State, a: TakePile) -> float:
        seat = st.turn
        pile = st.pile
        style = self.style
        naive = style.naive_take or (
            style.duel_take if st.players == 2 else style.four_take if st.players == 4 else 0
        )
        if naive:
            # below the threshold the pile is left (15 per card would outbid the stock's 11 per card)
            return 100.0 if len(pile) >= naive else 0.0
        fc = st.fc[seat]
        side = st.side_of[seat]
        melds = st.melds[side]
        v = ev.pile_value(st)
        # pile cards that pair up with the hand or join the side's melds are worth more
        for c in pile[:-1]:
            f = FACE[c]
            if not IS_WILD[c] and f != F_BLACK3 and (fc[f] or melds[f] is not None):
                v += 8
        wilds = 0
        cards = 0
        for g in a.groups:
            for c in g.cards:
                cards += 1
                if IS_WILD[c]:
                    wilds += 1
        v -= 22 * wilds
        v += 10 + self.style.take_bias  # the top card goes straight to a meld
        if not st.nmelds[side]:
            v += 40  # opening also unfreezes the pile for the side
        if st.players == 3 and not st.merged:
            # R14: the first taker then plays alone against a partnership
            v -= self.style.lone_take
        return v

    # ------------------------------------------------------------------ play phase

    def _rank_play(
        self, st: State, rng: random.Random | None, memory: Memory | None
    ) -> list[tuple[float, Action]]:
        style = self.style
        # can_go_out is None after a "no", as the old separate question was not asked then
        legal, go = legal_actions_and_going_out(st)
        ask = st.turn_state.ask
        out: list[tuple[float, Action]] = []
        if go is not None:
            if ask == "yes" or not style.judge_going_out or self.wants_out(st, go):
                if (
                    style.ask_partner
                    and st.settings.ask_partner
                    and ask is None
                    and not st.turn_state.melded
                    and ASK in legal
                    and len(st.hands[(st.turn + 2) % 4]) >= 4
                ):
                    out.append((2000.0, ASK))
                out.append((1000.0, go))
            else:
                out.append((-500.0, go))
        if ask == "yes":
            return out or [(0.0, a) for a in legal]
        urgency = ev.threat(st, st.turn)  # asked once per decision, not once per option
        for a in legal:
            if a.kind == "meld" and a != go:
                assert isinstance(a, Meld)
                out.append((self._meld_value(st, a, urgency), a))
        discards = self._rank_discards(st, legal, rng, memory, urgency)
        out.extend(discards)
        if not out:
            out = [(0.0, a) for a in legal]
        return out

    def _meld_value(self, st: State, a: Meld, urgency: float) -> float:
        style = self.style
        seat = st.turn
        side = st.side_of[seat]
        melds = st.melds[side]
        fc = st.fc[seat]
        need = st.settings.canastas_to_go_out
        have = st.canastas[side]
        hand_n = len(st.hands[seat])
        if not st.nmelds[side]:
            # An opening: as early as possible, spending few wilds and keeping some cards.
            wilds = sum(1 for g in a.groups for c in g.cards if IS_WILD[c])
            cards = sum(len(g.cards) for g in a.groups)
            if style.keep_pairs:
                return 60.0 - 12 * wilds - 1.5 * cards + (10 if hand_n - cards >= 4 else -10)
            return 60.0 + 2 * cards
        v = 0.0
        for g in a.groups:
            r = g.rank
            m = melds[r]
            nat = sum(1 for c in g.cards if not IS_WILD[c])
            wild = len(g.cards) - nat
            before = 0 if m is None else len(m.cards)
            after = before + len(g.cards)
            was_natural = m is None or m.wilds == 0
            if nat:
                if m is None:
                    if wild and style.keep_pairs and nat < 3:
                        # a natural pair plus a wild: keep the pair for the frozen pile instead
                        v += style.pair_wild + 25 * urgency + (8 if hand_n >= 12 else 0)
                    else:
                        v += 12 * nat - 4 * wild
                else:
                    v += 14 * nat
            else:
                # wilds alone onto a meld
                completes = before < CANASTA_SIZE <= after
                if before >= CANASTA_SIZE:
                    if was_natural and m is not None:
                        v -= 200
                    else:
                        v += -8 + 40 * urgency + (VALUE[g.cards[0]] * urgency)
                elif completes:
                    if was_natural and style.natural_canastas and have >= need:
                        # the side can already go out: wait for a natural canasta (500, not 300)
                        # unless the opponents are close to ending the hand
                        v += -10 + 100 * urgency
                    else:
                        v += 90
                else:
                    base = 6 if not style.keep_pairs else style.wild_add
                    if after >= 5:
                        base += 6
                    if fc[F_DEUCE] + fc[F_JOKER] >= 3:
                        base += 6
                    if was_natural and style.natural_canastas and before >= 4 and have >= need:
                        base -= 10
                    v += base + 15 * urgency
            if before < CANASTA_SIZE <= after:
                v += 60 if (have < need) else 20
        left = hand_n - sum(len(g.cards) for g in a.groups)
        # never strand the side without a card to discard when it cannot go out
        if left < 2 and have < need:
            v -= 100
        # a tiny hand must feed the pile whatever it holds: keep a few cards back
        if style.min_hand and have < need and left < style.min_hand:
            v -= style.restraint * (style.min_hand - left)
        return v + style.meld_bias

    # ------------------------------------------------------------------ discards

    def _rank_discards(
        self,
        st: State,
        legal: list[Action],
        rng: random.Random | None,
        memory: Memory | None,
        urgency: float,
    ) -> list[tuple[float, Action]]:
        style = self.style
        seat = st.turn
        n = st.players
        fc = st.fc[seat]
        side = st.side_of[seat]
        melds = st.melds[side]
        cands = [a for a in legal if a.kind == "discard"]
        if not cands:
            return []
        unseen = ev.unseen_faces(st, seat)
        take_p: dict[int, float] = {}  # per face: the two copies of a card ask the same question
        nxt = (seat + 1) % n
        next_is_opp = st.side_of[nxt] != side
        pile_v = ev.pile_value(st) if style.read_opponents else 12.0 * len(st.pile)
        # a pile worth protecting: frozen by a wild it is already safe from a single natural
        pile_frozen_all = st.settings.is_frozen(st.pile_wild, st.pile_red3, st.pile_black3, 1)
        opp_opened = any(st.nmelds[st.side_of[o]] for o in ev.opponents(st, seat))
        out: list[tuple[float, Action]] = []
        freeze = style.freeze
        if n == 2:
            by_players = style.duel_danger
        elif n == 4:
            by_players = style.four_danger
        else:  # three players: 1 once a partnership has formed (R14)
            by_players = 1.0 if st.merged else style.alone_danger
            # freezing the pile with a deuce guards against the same danger: not with it off
            # (``alone_danger`` 0 while three play alone, Expert's guide)
            freeze = freeze and by_players > 0
        danger_scale = style.danger_scale * by_players
        nwild = fc[F_DEUCE] + fc[F_JOKER]
        for a in cands:
            assert isinstance(a, Discard)
            c = a.card
            f = FACE[c]
            # keep value: what the card is worth in hand
            if IS_WILD[c]:
                keep = 70.0 if f == F_DEUCE else 95.0
                if (
                    freeze
                    and next_is_opp
                    and not pile_frozen_all
                    and opp_opened
                    and len(st.pile) >= 6
                    and f == F_DEUCE
                ):
                    keep -= 4.0 * len(st.pile) + (10 if nwild >= 2 else 0)
                keep += VALUE[c] * urgency * -0.5
            elif f == F_BLACK3:
                keep = -4.0
                if style.stops and next_is_opp:
                    keep -= min(40.0, 2.0 * len(st.pile))
            else:
                k = fc[f]
                if melds[f] is not None:
                    keep = 20.0
                elif k >= 3:
                    keep = 45.0
                elif k == 2:
                    keep = 30.0 if style.keep_pairs else 18.0
                else:
                    keep = 6.0
                    if style.read_opponents:
                        u = unseen[f]
                        keep += min(u, 4) * 1.5
                        if u == 0:
                            keep -= 6
                keep -= VALUE[c] * urgency * (0.8 if k <= 1 else 0.3)
            # danger: the next player taking the pile with this card
            danger = 0.0
            if next_is_opp and danger_scale and not IS_WILD[c] and f != F_BLACK3:
                if style.read_opponents:
                    p = take_p.get(f, -1.0)
                    if p < 0:
                        p = take_p[f] = ev.take_probability(st, nxt, f, unseen, memory)
                else:
                    osd = st.side_of[nxt]
                    p = 0.8 if (st.melds[osd][f] is not None and not pile_frozen_all) else 0.15
                danger = p * (pile_v + 15) * danger_scale
            elif not next_is_opp and not IS_WILD[c] and style.read_opponents:
                # feeding a partner (three-player partnership) is mildly good
                danger = -3.0 * len(st.pile) * (1 if melds[f] is not None else 0)
            score = -(keep * style.keep_scale + danger)
            if style.noise and rng is not None:
                score += rng.gauss(0.0, style.noise)
            out.append((score - 50.0, a))
        return out

    # ------------------------------------------------------------------ going out

    def wants_out(self, st: State, go: Action) -> bool:
        """Does going out now pay for the side (compared with playing on)?"""
        return self.wants_out_why(st, go)[0]

    def wants_out_why(self, st: State, go: Action) -> tuple[bool, str, dict[str, int]]:
        """:meth:`wants_out` with the rule of thumb that decided it: (go out, code, numbers)."""
        seat = st.turn
        side = st.side_of[seat]
        if len(st.stock) < 10:
            return True, "stock_low", {"stock": len(st.stock)}
        mine = float(ev.side_table_score(st, side) + 100)
        # cards melded by the going-out action
        if isinstance(go, Meld):
            mine += sum(VALUE[c] for g in go.groups for c in g.cards)
        mine -= ev.hand_estimate(st, side, viewer=-1) - AVG_OWN * len(st.hands[seat])
        best_opp = -1e9
        opp_sides = {st.side_of[o] for o in ev.opponents(st, seat)}
        for osd in opp_sides:
            theirs = ev.side_table_score(st, osd) - ev.hand_estimate(st, osd, viewer=-1)
            best_opp = max(best_opp, theirs)
        lead = mine - best_opp
        if lead >= -50:
            return True, "ahead", {"lead": round(lead)}
        # behind: playing on only pays when the side can still catch up and has time
        pot = ev.side_potential(st, side)
        opp_pot = max((ev.side_potential(st, o) for o in opp_sides), default=0.0)
        if ev.threat(st, seat) >= 0.4:
            return True, "threat", {"lead": round(lead)}
        if lead + pot - opp_pot < -150:
            return True, "cannot_catch_up", {"lead": round(lead)}
        return False, "play_on", {"lead": round(lead)}

    def answer(self, st: State) -> bool:
        """The partner's answer to "May I go out?": yes unless holding back pays."""
        return self.answer_why(st)[0]

    def answer_why(self, st: State) -> tuple[bool, str, dict[str, int]]:
        """:meth:`answer` with the rule of thumb that decided it: (yes, code, numbers)."""
        if not self.style.judge_going_out:
            return True, "always", {}
        me = st.turn
        pen = ev.hand_penalty(st, me)
        if pen <= 60:
            return True, "low_penalty", {"points": pen}
        if len(st.stock) < 12:
            return True, "stock_low", {"stock": len(st.stock)}
        side = st.side_of[me]
        # The score: when ending the hand now wins the match, say yes whatever the hand holds;
        # when the opponents are close to going out themselves, cash in now.
        target = st.settings.target
        if isinstance(target, int):
            team = st.team_of[me]
            ours = st.scores[team] + ev.side_table_score(st, side) + 100 - pen
            opp_sides = {st.side_of[o] for o in ev.opponents(st, me)}
            theirs = max(
                st.scores[st.team_of[o]] + ev.side_table_score(st, st.side_of[o]) - ev.hand_estimate(st, st.side_of[o], -1)
                for o in ev.opponents(st, me)
            )
            if ours >= target and ours > theirs and opp_sides:
                return True, "wins_match", {"score": int(ours), "target": target}
        if ev.threat(st, me) >= 0.4:
            return True, "threat", {}
        # many cards that could still become melds: ask to play on
        fc = st.fc[me]
        meldable = sum(fc[f] for f in range(len(fc)) if fc[f] >= 2 or (st.melds[side][f] is not None and fc[f]))
        if meldable < 4 and pen <= 120:
            return True, "few_melds", {"points": pen, "meldable": meldable}
        return False, "play_on", {"points": pen, "meldable": meldable}


AVG_OWN = ev.AVG_CARD
