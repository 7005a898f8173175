"""The record a search returns (``SearchOutput``); evaluations are in ``catena_zero/evalfn.py``.

Shape legend: B batch of games, A actions (cells + button), see ``game/spec.py``.
Values are from the perspective of the player to move at the root.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class SearchOutput:
    """Result of one batched search call (one move decision per game)."""

    action: np.ndarray  # [B] int64 chosen action
    policy: np.ndarray  # [B, A] float32 improved policy target (visit counts or completed-Q softmax of utilities)
    value: np.ndarray  # [B] float32 root win-value estimate (P(win) - P(loss)) for the player to move
    score: np.ndarray  # [B] float32 root score-margin estimate for the player to move
    # [B] float32 the chosen action's mean backed-up win value, for the root's player to move (the
    # root value where that child was never visited). Under Gumbel the root mean also averages the
    # visits of the weaker considered actions, so it reads pessimistic; resignation reads this.
    action_value: np.ndarray
    visits: np.ndarray  # [B, A] int32 root child visit counts
