"""Ties broken at random: the argmax among equal scores is drawn, not the first index.

Shape legend: B games, K a subset of the games (one node each), A actions (N cells + button).

Without noise, equal priors give equal scores (the empty board under uniform priors or an
untrained network): a plain ``argmax`` then always takes the lowest action index, so Gumbel's
top-k would only ever consider the first k actions in notation order and every noise-free game
would open the same way. Each search call draws one key per (game, action) instead; an argmax
takes, among the maxima, the action with the largest key. The keys are fixed for the call, so
Gumbel's implicit top-k is one consistent random subset of the tied actions and a node's ties
resolve the same way at every visit; the same generator state gives the same search.
"""

from __future__ import annotations

import numpy as np


def tie_break_keys(rng: np.random.Generator, batch: int, num_actions: int) -> np.ndarray:
    """[B, A] float32 uniform keys in (0, 1], one per game and action, for one search call."""
    return np.float32(1.0) - rng.random((batch, num_actions), dtype=np.float32)


def argmax_random_ties(score: np.ndarray, keys: np.ndarray) -> np.ndarray:
    """[K] per row of ``score`` [K, A], the maximum's index; among equal maxima, the one with the
    largest key ([K, A], ``tie_break_keys`` rows of the same games). Keys are positive, so the
    maxima's keys beat the zeros of every other entry (one pass fewer than a masked where)."""
    return ((score == score.max(axis=1, keepdims=True)) * keys).argmax(axis=1)
