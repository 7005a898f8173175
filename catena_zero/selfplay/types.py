"""Records that self-play hands to the replay buffer.

Shape legend: T positions, W packed env row width (``VecEnv``), A actions (N cells + button),
N cells of the board of the trajectory's rule set.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..game.options import GameConfig


@dataclass(frozen=True)
class Trajectory:
    """The positions of finished self-play games of one rule set (side, game type, scoring).

    Every target is from the perspective of the player to move in that position. Komi varies per
    game and is stored in each packed row. One ``Trajectory`` may hold several games.
    """

    game: GameConfig  # the rule set; ``game.komi`` is not used (each row carries its komi)
    states: np.ndarray  # [T, W] int16 packed rows of ``VecEnv(game)`` (compact: no float features)
    policy: np.ndarray  # [T, A] float16 search policy target; all 0 where ``has_policy`` is False
    has_policy: np.ndarray  # [T] bool a full search made the move (playout cap randomisation, KataGo)
    outcome: np.ndarray  # [T] int8 final result for the mover: +1 win, 0 draw, -1 loss
    score: np.ndarray  # [T] float32 final score margin for the mover (R6), in points
    ownership: np.ndarray  # [T, N] int8 final colour of each cell: +1 mover's, -1 opponent's, 0 empty
    weight: np.ndarray  # [T] float32 sample weight (1; lower after a soft resignation)
    version: np.ndarray  # [T] int32 version of the weights that chose the move

    def __post_init__(self) -> None:
        t = self.states.shape[0]
        for name in ("policy", "has_policy", "outcome", "score", "ownership", "weight", "version"):
            value = getattr(self, name)
            if value.shape[0] != t:
                raise ValueError(f"Trajectory.{name} has {value.shape[0]} rows, states has {t}")

    @property
    def num_positions(self) -> int:
        return self.states.shape[0]
