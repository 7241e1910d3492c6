"""The PettingZoo AEC environment: one agent per seat, observations from that seat's view."""

from __future__ import annotations

import random
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import AgentSelector

from .. import Action, Game, SeatView, Settings
from .actions import ACTION_COUNT, Mask, Plan, legal_mask, step_plan
from .observation import Obs, observe, size

BOUND = 1e6


class CanastaEnv(AECEnv[str, dict[str, Any], int]):
    """Canasta for ``players`` agents ``player_0..``; an episode is one hand or a whole match.

    Rewards come at the end of each hand: the agent's team's hand score minus the mean hand
    score of the other teams (so they sum to zero).
    """

    metadata = {"name": "canasta_v0", "render_modes": ["ansi"], "is_parallelizable": False}

    def __init__(
        self,
        preset: str = "classic",
        *,
        episode: str = "hand",
        max_steps: int | None = 20_000,
        render_mode: str | None = None,
        **overrides: Any,
    ) -> None:
        super().__init__()
        if episode not in ("hand", "match"):
            raise ValueError("episode must be 'hand' or 'match'")
        self.settings = Settings.preset(preset, **overrides)
        self.episode = episode
        self.max_steps = max_steps
        self.render_mode = render_mode
        n = self.settings.players
        self.possible_agents = [f"player_{i}" for i in range(n)]
        self.agents = self.possible_agents[:]
        obs_len = size(self.settings)
        self.observation_spaces = {
            a: spaces.Dict(
                {
                    "observation": spaces.Box(-BOUND, BOUND, shape=(obs_len,), dtype=np.float32),
                    "action_mask": spaces.Box(0, 1, shape=(ACTION_COUNT,), dtype=np.int8),
                }
            )
            for a in self.possible_agents
        }
        self.action_spaces = {a: spaces.Discrete(ACTION_COUNT) for a in self.possible_agents}
        self._rng = random.Random()
        self.game: Game | None = None
        self.plan: Plan = ()
        self.last_action: Action | None = None
        self._mask: Mask | None = None
        self._view: SeatView | None = None

    # ------------------------------------------------------------------ spaces

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self.action_spaces[agent]

    # ------------------------------------------------------------------ episode

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        if seed is not None:
            self._rng = random.Random(seed)
        self.game = Game(self.settings, seed=self._rng.randrange(2**62))
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self._agent_selector = AgentSelector(self.agents)
        self.plan = ()
        self.last_action = None
        self.steps = 0
        self._sync()

    @property
    def core_state(self) -> Any:
        assert self.game is not None
        return self.game.state

    def seat(self, agent: str) -> int:
        return self.possible_agents.index(agent)

    def _sync(self, changed: bool = True) -> None:
        """Point agent_selection at the seat to act; forget the cached mask (and the view if the hand changed)."""
        self._mask = None
        if changed:
            self._view = None
        st = self.core_state
        if not st.is_over:
            self.agent_selection = self.possible_agents[st.turn]
        elif not hasattr(self, "agent_selection") or self.agent_selection not in self.agents:
            self.agent_selection = self.agents[0]

    def acting_view(self) -> SeatView:
        """The view of the seat to act (built once per step)."""
        if self._view is None:
            st = self.core_state
            self._view = st.view(st.turn)
        return self._view

    def mask(self) -> Mask:
        """The legal-action mask of the agent to act."""
        if self._mask is None:
            self._mask = legal_mask(self.core_state, self.plan, self.acting_view())
        return self._mask

    def observe(self, agent: str) -> dict[str, Any]:
        seat = self.seat(agent)
        st = self.core_state
        mine = seat == st.turn and not st.is_over
        view = self.acting_view() if mine else st.view(seat)
        obs: Obs = observe(view, self.plan if mine else ())
        mask = self.mask().copy() if mine and agent == self.agent_selection else np.zeros(ACTION_COUNT, np.int8)
        return {"observation": obs, "action_mask": mask}

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        assert action is not None
        index = int(action)
        if not self.mask()[index]:
            raise ValueError(f"action {index} is masked out for {agent}")
        self._cumulative_rewards[agent] = 0.0
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self.infos = {a: {} for a in self.agents}
        st = self.core_state
        self.plan, core = step_plan(st, self.plan, index, self.acting_view())
        if core is not None:
            assert self.game is not None
            self.game.apply(core)
            self.last_action = core
            if self.game.state.is_over:
                self._hand_over()
        self.steps += 1
        if self.max_steps is not None and self.steps >= self.max_steps and not any(self.terminations.values()):
            self.truncations = dict.fromkeys(self.agents, True)
        self._sync(changed=core is not None)
        self._accumulate_rewards()

    def _hand_over(self) -> None:
        game = self.game
        assert game is not None
        result = game.state.result
        assert result is not None
        deltas = result.team_deltas
        teams = len(deltas)
        teams_of = game.state.view(None).team_of
        for agent in self.agents:
            team = teams_of[self.seat(agent)]
            others = [d for t, d in enumerate(deltas) if t != team]
            self.rewards[agent] = float(deltas[team] - sum(others) / max(1, teams - 1))
            self.infos[agent] = {"hand_result": result.to_json(), "scores": list(game.scores)}
        if self.episode == "hand" or game.is_over:
            self.terminations = dict.fromkeys(self.agents, True)
        else:
            game.next_hand()

    def render(self) -> str | None:
        """With ``render_mode="ansi"``: the whole table, every hand shown (for people debugging)."""
        if self.render_mode != "ansi":
            return None
        from ..describe import describe_state

        return describe_state(self.core_state)

    def close(self) -> None:
        pass
