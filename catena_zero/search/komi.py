"""The fair komi by an evaluator's own estimate (R6, R7; KataGo 2019 sec. 3.4 reads it off a value
net trained on randomised komi).

Shape legend: K komi values of the scoring's range (16, or 1001 for quadratic).

The empty board is evaluated once per komi in range, in ONE batched call; ``black_value[k]`` is
the value for Black (to move) at komi k. More komi helps White, so the value falls with komi; the
fair komi is the one whose value is closest to 0 (the first player under game type "komi" offers
it so that the second player's colour choice gains nothing, R7).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ..game.options import komi_range

if TYPE_CHECKING:
    from ..evaluation import EvalFn
    from ..game.vec_env import VecEnv


@dataclass(frozen=True)
class KomiEstimate:
    """The empty-board value for Black at every komi of the range, and the fairest komi."""

    komi: int  # the komi whose value is closest to 0 (ties: the smaller komi)
    komis: np.ndarray  # [K] int64 every komi of the range
    black_value: np.ndarray  # [K] float32 value for Black to move on the empty board
    black_score: np.ndarray  # [K] float32 expected score margin for Black (points)


def estimate_fair_komi(env: "VecEnv", eval_fn: "EvalFn") -> KomiEstimate:
    """Evaluate the empty board of ``env``'s rule set at every komi in range with ``eval_fn``.

    Under game types without komi (no_komi, double; R7, R8) the only komi is 0.
    """
    lo, hi = komi_range(env.config.scoring)
    if env.config.game_type != "komi":
        lo = hi = 0
    komis = np.arange(lo, hi + 1, dtype=np.int64)
    evaluation = eval_fn(env.reset(komis.size, komis))  # Black to move on every empty board
    value = np.asarray(evaluation.value, np.float32)
    best = int(np.argmin(np.abs(value)))  # argmin takes the first, i.e. the smaller komi, on ties
    return KomiEstimate(komi=int(komis[best]), komis=komis, black_value=value,
                        black_score=np.asarray(evaluation.score, np.float32))
