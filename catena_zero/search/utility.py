"""The quantity search maximises: win value plus a score term (KataGo's score utility).

Shape legend: K any number of positions (one value each).

KataGo (Wu 2019, "Accelerating Self-Play Learning in Go", sec. 4.1 and its search code,
``Search::getScoreUtility`` / ``ScoreValue::expectedWhiteScoreValue``) searches for

    utility = value + weight * (2 / pi) * arctan(score / (scale * unit))

where ``value`` is P(win) - P(loss), ``score`` the expected final score margin of the player to
move in points, and ``unit`` the board's natural size of a margin: KataGo's sqrt(board area).
The arctan keeps a sure win worth more than any margin (the score term lies in (-weight, weight))
while still preferring a bigger margin once the result is decided, which is when the win value
alone stops telling moves apart. We use KataGo's static form (centred on a margin of 0, scale
2.0); its dynamic term, centred on the root's current expected score, is not implemented.

Catena's margins: under standard and longest scoring they count cells, so the unit is sqrt(N)
(N cells, KataGo's sqrt(area)); quadratic scoring squares ribbon lengths, so its unit is N, the
square of that.
"""

from __future__ import annotations

import math

import numpy as np

from ..game.options import GameConfig


def score_utility_unit(game: GameConfig) -> float:
    """Points of score margin per unit of the arctan's argument before ``score_utility_scale``."""
    from ..game.spec import board_spec

    return game.scoring_rule.margin_unit(board_spec(game.side).num_cells)


class Utility:
    """utility(value, score) for one game configuration: ``value + weight * f(score / scale)``."""

    def __init__(self, weight: float, scale: float, game: GameConfig) -> None:
        self.weight = float(weight)
        self.points = float(scale) * score_utility_unit(game)  # margin at which f = 0.5 weight
        self.radius = 1.0 + self.weight  # utilities lie in [-radius, radius]

    def __call__(self, value: np.ndarray, score: np.ndarray) -> np.ndarray:
        """[K] float32 utilities of [K] win values and [K] score margins (same perspective)."""
        value = np.asarray(value, np.float32)
        if self.weight == 0.0:
            return value
        term = np.float32(self.weight * 2.0 / math.pi) * np.arctan(np.asarray(score, np.float32) / np.float32(self.points))
        return value + term  # float32 throughout
