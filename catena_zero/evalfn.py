"""The evaluation-function interface (``EvalFn``): what an evaluation function says about a batch
of positions (priors, value, score), the one interface between the network (``net/``), the
evaluators without a network (``search/rollout.py``, ``search/solver.py``) and the search
(``search/``). It depends on nothing but numpy, so every side imports it and none
imports the other.

Shape legend: B batch of games, A actions (cells + button), see ``game/spec.py``.
Values are always from the perspective of the player to move in the evaluated state:
+1 a sure win, -1 a sure loss, 0 a draw.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Mapping, Protocol

import numpy as np

if TYPE_CHECKING:
    from .game.vec import EnvState, VecEnv


@dataclass(frozen=True)
class Evaluation:
    """What an evaluation function says about B states."""

    priors: np.ndarray  # [B, A] float32, >= 0, sums to 1 over legal actions, 0 on illegal ones
    value: np.ndarray  # [B] float32 in [-1, 1]: P(win) - P(loss) for the player to move
    score: np.ndarray  # [B] float32: expected final score margin (mover minus opponent, R6)


class EvalFn(Protocol):
    """Evaluates a batch of environment states; search depends on this, never on a model."""

    def __call__(self, state: "EnvState") -> Evaluation: ...


class BatchEvalFn(Protocol):
    """Evaluates the requests of several searches at once (``search.mcts.run_lockstep``): one
    ``(env, state)`` per search, whose envs may differ in side, game type and scoring; returns one
    Evaluation per request, in order. The network's version pads every request to the largest
    board and runs ONE forward pass for all of them."""

    def __call__(self, requests: list[tuple["VecEnv", "EnvState"]]) -> list[Evaluation]: ...


def evaluate_each(eval_fns: Mapping["VecEnv", EvalFn]) -> BatchEvalFn:
    """The reference ``BatchEvalFn``: each request evaluated by the EvalFn of its env, one call each
    (for tests and evaluators without a network; the net batches them instead)."""

    def evaluate_many(requests: list[tuple["VecEnv", "EnvState"]]) -> list[Evaluation]:
        missing = [env.config for env, _ in requests if env not in eval_fns]
        if missing:
            raise ValueError(f"evaluate_each has no evaluation function for the env of {missing[0]}")
        return [eval_fns[env](state) for env, state in requests]

    return evaluate_many
