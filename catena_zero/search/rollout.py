"""Evaluation functions without a network: uniform priors, and random rollouts (classic UCT).

Shape legend: B states evaluated together, R rollouts per state, A actions (N cells + button).

``UniformEvaluator`` (uniform priors, value 0) costs nothing, which isolates the search's own
overhead in benchmarks. ``RolloutEvaluator`` plays every state out with uniformly random legal
moves, all B * R rollouts stepped together in the vectorised environment (``VecEnv.play_out``:
by its one-row engine when they are few, as in a single-game search), and reports the
results from the perspective of each state's player to move; with it, the batched search is
the classic UCT baseline (Kocsis and Szepesvari 2006; PUCT with uniform priors).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..evalfn import Evaluation

if TYPE_CHECKING:
    from ..game.vec import EnvState, VecEnv


def uniform_priors(legal: np.ndarray) -> np.ndarray:
    """[B, A] float32 uniform over the legal actions (all 0 in a row without any)."""
    return (legal / np.maximum(legal.sum(axis=1, keepdims=True), 1)).astype(np.float32)


class UniformEvaluator:
    """Uniform priors over the legal actions, value and score 0 (the zero-cost evaluator)."""

    def __init__(self, env: "VecEnv") -> None:
        self.env = env

    def __call__(self, state: "EnvState") -> Evaluation:
        count = state.batch_size
        return Evaluation(
            priors=uniform_priors(self.env.legal_actions(state)),
            value=np.zeros(count, np.float32),
            score=np.zeros(count, np.float32),
        )


class RolloutEvaluator:
    """Uniform priors; value and score = mean result of ``num_rollouts`` random playouts per state."""

    def __init__(self, env: "VecEnv", rng: np.random.Generator, num_rollouts: int = 1) -> None:
        if num_rollouts < 1:
            raise ValueError(f"num_rollouts must be >= 1, got {num_rollouts}")
        self.env = env
        self.rng = rng
        self.num_rollouts = num_rollouts

    def __call__(self, state: "EnvState") -> Evaluation:
        env, count, rollouts = self.env, state.batch_size, self.num_rollouts
        mover = np.repeat(state.to_move, rollouts)  # [B * R] player to move in the evaluated state
        games = env.take(state, np.repeat(np.arange(count), rollouts))
        env.play_out(games, self.rng)  # the one-row engine for a handful of games (single-game search)
        value, margin = env.outcomes(games, mover)  # R6/R8 results for the evaluated state's mover
        if rollouts > 1:
            value = value.reshape(count, rollouts).mean(axis=1).astype(np.float32)
            margin = margin.reshape(count, rollouts).mean(axis=1).astype(np.float32)
        return Evaluation(priors=uniform_priors(env.legal_actions(state)), value=value, score=margin)
