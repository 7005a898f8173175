"""What an evaluation function says about a batch of positions: the one interface between the
network (``net/``), the evaluators without a network (``search/rollout.py``, ``search/solver.py``)
and the search (``search/``). It depends on nothing but numpy, so every side imports it and none
imports the other.

Shape legend: B batch of games, A actions (cells + button), see ``game/spec.py``.
Values are always from the perspective of the player to move in the evaluated state:
+1 a sure win, -1 a sure loss, 0 a draw.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable, Protocol

import numpy as np

if TYPE_CHECKING:
    from .game.vec_env import EnvState, VecEnv


@dataclass(frozen=True)
class Evaluation:
    """What an evaluation function says about B states."""

    priors: np.ndarray  # [B, A] float32, >= 0, sums to 1 over legal actions, 0 on illegal ones
    value: np.ndarray  # [B] float32 in [-1, 1]: P(win) - P(loss) for the player to move
    score: np.ndarray  # [B] float32: expected final score margin (mover minus opponent, R6)


class EvalFn(Protocol):
    """Evaluates a batch of environment states; search depends on this, never on a model."""

    def __call__(self, state: "EnvState") -> Evaluation: ...


# One evaluation per (env, state) group, from one network call for all of them: self-play with rule
# randomisation (several sides, scorings, game types at once) keeps one forward pass per simulation.
BatchEvalFn = Callable[[list[tuple["VecEnv", "EnvState"]]], list[Evaluation]]
