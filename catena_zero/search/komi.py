"""The fair komi by an evaluator's own estimate (R6, R7; KataGo 2019 sec. 3.4 reads it off a value
net trained on randomised komi). Self-play centres its komi draws on it, matches are played at it,
and the bot offers it as the first player.

Shape legend: K komi values of the scoring's range (16, or 1001 for quadratic).

The empty board is evaluated once per komi in range, in ONE batched call; ``black_value[k]`` is
the value for Black (to move) at komi k. More komi helps White, so the value falls with komi; the
fair komi is the one whose value is closest to 0 (values within ``VALUE_RESOLUTION`` count as
equal, and then the expected score margin closest to 0 decides; the smaller komi on exact ties).
The first player under game type "komi" offers it so that the second player's colour choice
gains nothing (R7). Under game type "no_komi" the same reasoning picks Black's first stone: the
second player may take Black after it, so the fair first stone is the one after which Black's
value is closest to even (``first_stone_values``, ``closest_to_even``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ..game.options import RuleSet, komi_range

if TYPE_CHECKING:
    from ..evalfn import EvalFn
    from ..game.vec import VecEnv

VALUE_RESOLUTION = 0.01  # values closer than this are "equal" in the set-up choices


@dataclass(frozen=True, eq=False)
class KomiEstimate:
    """An evaluator's value and score of the empty board for Black at every komi of the range, and
    the fair komi read off them: the one record of a fair-komi estimate (self-play, matches, bot)."""

    rules: RuleSet  # the rule set estimated
    komi: int  # the fair komi: ``fair_komi_of_curve`` of the curve; 0 under game types without komi
    komis: np.ndarray  # [K] int64 every komi of the range ([1] zero without komi)
    black_value: np.ndarray  # [K] float64 value for Black to move on the empty board
    black_score: np.ndarray  # [K] float64 expected score margin for Black (points)
    source: str = ""  # who estimated it, e.g. "value head of step-00001000"

    def at(self, komi: int) -> tuple[float, float]:
        """(Black's value, Black's score) at ``komi``; ValueError for a komi outside the curve."""
        found = np.flatnonzero(self.komis == komi)
        if isinstance(komi, bool) or not found.size:
            raise ValueError(f"komi {komi!r} is not on the curve ({self.komis[0]}..{self.komis[-1]})")
        i = int(found[0])
        return float(self.black_value[i]), float(self.black_score[i])


def komi_curve_of(eval_fn: "EvalFn", env: "VecEnv") -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """([K] komis, [K] Black's value, [K] Black's score) of the empty board over the whole komi range.

    ``env`` is a game-type-komi environment; one call of ``eval_fn`` on K empty boards.
    """
    if not env.config.game_type_rule.has_komi:
        raise ValueError(f"komi is chosen only under game type komi (R7), not {env.config.game_type!r}")
    lo, hi = komi_range(env.config.scoring)
    komis = np.arange(lo, hi + 1, dtype=np.int64)
    evaluation = eval_fn(env.reset(komis.size, komi=komis))  # Black to move on every board
    assert evaluation.value.shape == komis.shape, (evaluation.value.shape, komis.shape)
    return komis, evaluation.value.astype(np.float64), evaluation.score.astype(np.float64)


def closest_to_even(keys: np.ndarray, black_value: np.ndarray, black_score: np.ndarray) -> int:
    """The key (a komi, a first stone) with Black's value closest to even, ties (to VALUE_RESOLUTION)
    by the score closest to 0; the smallest key on exact ties."""
    closeness = np.round(np.abs(black_value) / VALUE_RESOLUTION)
    order = np.lexsort((keys, np.abs(black_score), closeness))  # last key sorts first
    return int(keys[order[0]])


def fair_komi_of_curve(komis: np.ndarray, black_value: np.ndarray, black_score: np.ndarray) -> int:
    """The komi with Black's value closest to even (``closest_to_even``)."""
    return closest_to_even(komis, black_value, black_score)


def first_stone_values(eval_fn: "EvalFn", env: "VecEnv") -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """([F] first stones (cell actions), [F] Black's value, [F] Black's score) after each of Black's
    possible first stones of a no_komi game (R7), in ONE call of ``eval_fn`` on F boards."""
    if not env.config.game_type_rule.has_swap:
        raise ValueError(f"the first stone is a set-up choice only under game type no_komi (R7), "
                         f"not {env.config.game_type!r}")
    stones = np.flatnonzero(env.legal_actions(env.reset(1))[0]).astype(np.int64)  # every cell
    boards = env.reset(stones.size)
    env.step(boards, stones)
    evaluation = eval_fn(boards)  # White to move after the stone: negate for Black
    assert evaluation.value.shape == stones.shape, (evaluation.value.shape, stones.shape)
    return stones, -evaluation.value.astype(np.float64), -evaluation.score.astype(np.float64)


def estimate_fair_komi(env: "VecEnv", eval_fn: "EvalFn", source: str = "") -> KomiEstimate:
    """The komi curve of ``env``'s rule set and its fair komi; 0 under game types without komi
    (no_komi, double; R7, R8). ``source`` names the estimator in reports."""
    rules = RuleSet.of(env.config)
    if not env.config.game_type_rule.has_komi:
        zero = np.zeros(1)
        return KomiEstimate(rules=rules, komi=0, komis=np.zeros(1, np.int64), black_value=zero, black_score=zero,
                            source=source)
    komis, value, score = komi_curve_of(eval_fn, env)
    return KomiEstimate(rules=rules, komi=fair_komi_of_curve(komis, value, score), komis=komis, black_value=value,
                        black_score=score, source=source)
