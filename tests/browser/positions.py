"""Mid-hand positions for layout tests: a deal (seed) and the actions that lead there, found with
the core, then played into a pass-and-play table through a socket of the page's own session."""

from __future__ import annotations

import random
from typing import Any

import pytest

from canasta import Game, Settings
from canasta.actions import Action, action_to_json


def _choose(game: Game, rng: random.Random, keep: int) -> Action:
    """Take the pile when possible, else the widest meld that keeps ``keep`` cards in hand,
    else draw, else a random discard: many melds, and hands that stay large."""
    st = game.state
    legal = list(st.legal_actions())
    hand = len(st.hands[st.turn])
    takes = [a for a in legal if a.kind == "take"]
    if takes:
        return takes[0]
    melds = [
        a for a in legal
        if a.kind == "meld" and a.discard is None  # type: ignore[union-attr]
        and sum(len(g.cards) for g in a.groups) <= hand - keep  # type: ignore[union-attr]
    ]
    if melds:
        return max(melds, key=lambda a: (len(a.groups), sum(len(g.cards) for g in a.groups)))  # type: ignore[union-attr]
    draw = next((a for a in legal if a.kind == "draw"), None)
    if draw is not None:
        return draw
    discards = [a for a in legal if a.kind == "discard"]
    return rng.choice(discards) if discards else legal[0]


def many_melds(
    preset: str = "classic", *, ours: int = 8, theirs: int = 5, hand: int = 9
) -> tuple[int, list[dict[str, Any]]]:
    """A seed and actions after which seat 0 is to draw, its side has ``ours`` melds or more,
    the other side ``theirs``, and seat 0 holds ``hand`` cards or more."""
    for seed in range(400):
        game = Game(Settings.preset(preset, target="one_hand"), seed=seed)
        rng = random.Random(seed)
        out: list[dict[str, Any]] = []
        while not game.state.is_over and len(out) < 800:
            st = game.state
            if (st.turn == 0 and st.phase == "draw" and st.nmelds[0] >= ours
                    and st.nmelds[st.side_of[1]] >= theirs and len(st.hands[0]) >= hand):
                return seed, out
            action = _choose(game, rng, 10 if st.turn == 0 else 4)
            game.apply(action)
            out.append(action_to_json(action))
    pytest.skip("no such position in the first seeds")


def growing_hand(size: int, preset: str = "two-player") -> tuple[int, list[dict[str, Any]]]:
    """A seed and actions after which seat 0 is to draw holding ``size`` cards (each seat draws
    and discards, so the hands grow by one card a turn in the two-player game)."""
    for seed in range(200):
        game = Game(Settings.preset(preset, target="one_hand"), seed=seed)
        out: list[dict[str, Any]] = []
        while not game.state.is_over and len(out) < 400:
            st = game.state
            if st.turn == 0 and st.phase == "draw" and len(st.hands[0]) == size:
                return seed, out
            legal = list(st.legal_actions())
            action = next((a for a in legal if a.kind == "draw"), None)
            if action is None:
                action = next((a for a in legal if a.kind == "discard"), legal[0])
            game.apply(action)
            out.append(action_to_json(action))
    pytest.skip("no such deal in the first seeds")


DRIVE = """async ([id, actions]) => {
  const ws = new WebSocket(`ws://${location.host}/ws/tables/${encodeURIComponent(id)}`);
  let next = 0;
  return await new Promise((resolve, reject) => {
    ws.onerror = () => reject(new Error('socket error'));
    ws.onclose = (ev) => reject(new Error('socket closed: ' + ev.code));  // (after resolve: nothing)
    ws.onmessage = (ev) => {
      const m = JSON.parse(ev.data);
      if (m.type === 'error') { ws.close(); reject(new Error(m.code + ': ' + m.message)); return; }
      if (m.type !== 'state') return;
      if (m.table.handoff != null) { ws.send(JSON.stringify({ type: 'reveal', seat: m.table.handoff })); return; }
      if (next >= actions.length) { ws.close(); resolve(m.version); return; }
      ws.send(JSON.stringify({ type: 'action', version: m.version, action: actions[next++] }));
    };
  });
}"""


def asked_to_go_out(answer: bool | None, asker: int = 0) -> tuple[int, list[dict[str, Any]]]:
    """A seed and actions (classic, "May I go out?" on, R11) after which seat ``asker`` has
    asked its partner and the partner has answered ``answer`` (None: not yet)."""
    for seed in range(300):
        game = Game(Settings.preset("classic", target="one_hand", ask_partner=True), seed=seed)
        rng = random.Random(seed)
        out: list[dict[str, Any]] = []
        while not game.state.is_over and len(out) < 600:
            st = game.state
            legal = list(st.legal_actions())
            ask = next((a for a in legal if a.kind == "ask"), None)
            if ask is not None and st.turn == asker:
                game.apply(ask)
                if answer is None:
                    return seed, [*out, action_to_json(ask)]
                reply = next(a for a in game.state.legal_actions() if a.yes is answer)  # type: ignore[union-attr]
                game.apply(reply)
                return seed, [*out, action_to_json(ask), action_to_json(reply)]
            action = _choose(game, rng, 3)
            if action.kind == "ask":
                action = next(a for a in legal if a.kind != "ask")
            game.apply(action)
            out.append(action_to_json(action))
    pytest.skip("no such deal in the first seeds")


def open_position(page: Any, url: str, seed: int, actions: list[dict[str, Any]], *,
                  players: int = 4, preset: str = "classic", rules: dict[str, Any] | None = None) -> str:
    """A pass-and-play table dealt from ``seed`` with ``actions`` played, open on the page at
    seat 0's turn (revealed); the table id."""
    from .conftest import page_api

    page.goto(url)
    page.wait_for_selector("#btn-start")
    table = page_api(page, "POST", "/api/tables", {"mode": "local", "players": players, "preset": preset,
                                                   "rules": {"target": "one_hand", **(rules or {})},
                                                   "seed": seed})["table"]
    page.evaluate(DRIVE, [table, actions])
    page.goto(url + f"#table={table}")
    page.wait_for_selector("#table[data-my-turn=yes]")
    return str(table)


def finished_hand(preset: str = "two-player") -> tuple[int, list[dict[str, Any]]]:
    """A seed and every action of a hand that ends with cards left in both hands."""
    for seed in range(200):
        game = Game(Settings.preset(preset, target="one_hand"), seed=seed)
        rng = random.Random(seed)
        out: list[dict[str, Any]] = []
        while not game.state.is_over and len(out) < 800:
            st = game.state
            out_now = next((a for a in st.legal_actions() if a.kind == "meld" and not
                            (len(st.hands[st.turn]) - sum(len(g.cards) for g in a.groups)  # type: ignore[union-attr]
                             - (a.discard is not None))), None)  # type: ignore[union-attr]
            action = out_now or _choose(game, rng, 3)
            game.apply(action)
            out.append(action_to_json(action))
        if game.state.is_over and sum(1 for h in game.state.hands if h) >= 1 and len(out) < 300:
            return seed, out
    pytest.skip("no such hand in the first seeds")
