"""A PettingZoo AEC environment for research (``pip install 'canasta[rl]'``).

>>> from canasta.env import env
>>> e = env(preset="two-player")
>>> e.reset(seed=1)
>>> obs, reward, terminated, truncated, info = e.last()
>>> int(obs["action_mask"].sum()) >= 1
True

See ``docs/env.md`` for the observation layout, the action space and the reward.
"""

from __future__ import annotations

from typing import Any

from .actions import ACTION_COUNT, describe, indexes_for, legal_mask, signature, step_plan
from .aec import CanastaEnv
from .observation import layout, observe


def raw_env(preset: str = "classic", **kwargs: Any) -> CanastaEnv:
    """The environment without PettingZoo's wrappers."""
    return CanastaEnv(preset, **kwargs)


def env(preset: str = "classic", **kwargs: Any) -> Any:
    """The environment for ``preset``, wrapped in PettingZoo's order and bounds checks."""
    from pettingzoo.utils import wrappers

    e: Any = raw_env(preset, **kwargs)
    e = wrappers.AssertOutOfBoundsWrapper(e)
    e = wrappers.OrderEnforcingWrapper(e)
    return e


__all__ = [
    "ACTION_COUNT", "CanastaEnv", "describe", "env", "indexes_for", "layout", "legal_mask", "observe",
    "raw_env", "signature", "step_plan",
]
