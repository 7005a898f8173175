"""PUCT selection and move choice (AlphaZero, Silver et al. 2018, and its published pseudocode).

Shape legend: B games, K a subset of the games (one node each), A actions (N cells + button).

    score(s, a) = Q(s, a) + c(s) * P(s, a) * sqrt(N(s)) / (1 + N(s, a))
    c(s)        = log((1 + N(s) + c_base) / c_base) + c_init

Q is the utility (win value plus KataGo's score term, ``search/utility.py``), mapped from
[-radius, radius] (radius = 1 + score_utility_weight) to [0, 1] as the AlphaZero pseudocode maps
values from [-1, 1], since its c_init = 1.25 was tuned for values in [0, 1]. An unvisited child takes its parent's mean value ("first-play urgency" =
parent value, as Leela Zero without the reduction): exact terminal values and evaluator values
then compete on the same scale, and with uniform priors the rule is classic UCT.
At the root of a self-play search the priors are mixed with Dirichlet noise (AlphaZero:
alpha ~ 10 / legal moves, fraction 0.25); the tree always stores the un-noised priors, so a reused
root gets fresh noise. The policy target is the root's visit distribution; the move is sampled
from visits^(1/T) for the first ``temperature_moves`` moves of a self-play game, otherwise it is
the most visited action (ties broken by Q, then at random: ``ties.py``; so are ties of the PUCT
score, e.g. between unvisited actions of equal prior).
"""

from __future__ import annotations

import numpy as np

from ..config import SearchConfig
from .ties import argmax_random_ties, tie_break_keys
from .tree import NodeStats, Tree


def exploration_coefficients(config: SearchConfig, size: int) -> np.ndarray:
    """[size] float32: for a node with N visits (the index), 2 radius c(N) sqrt(N), the factor of
    P / (1 + N(a)) in ``puct_action``'s score (a table, so that selection does not recompute it)."""
    visits = np.arange(size, dtype=np.float32)
    c = np.log((1.0 + visits + config.c_puct_base) / config.c_puct_base) + config.c_puct_init
    radius = 1.0 + config.score_utility_weight
    return ((2.0 * radius) * c * np.sqrt(visits)).astype(np.float32)


def puct_action(
    stats: NodeStats, priors: np.ndarray, keys: np.ndarray, coefficients: np.ndarray
) -> np.ndarray:
    """[K] action maximising the PUCT score; ``priors`` [K, A] (the node's own, or noised at the
    root); ties broken by ``keys`` [K, A] (``ties.py``); ``coefficients`` the table of
    ``exploration_coefficients`` (covering every visit count in ``stats``).

    argmax of 0.5 (Q / radius + 1) + c P sqrt(N) / (1 + N(a)) is computed as the argmax of the
    same score times 2 radius, less the constant: Q + 2 radius c sqrt(N) P / (1 + N(a)), fewer
    array operations per node (this runs at every step of every descent).
    """
    coefficient = coefficients[stats.visits][:, None]  # [K, 1] float32
    visits = stats.child_visits.astype(np.float32)  # (int32 with float32 would compute in float64)
    q = np.where(visits > 0, stats.child_q, stats.utility[:, None])
    visits += 1.0
    score = q + coefficient * (priors / visits)
    return argmax_random_ties(np.where(stats.legal, score, -np.inf), keys)


class ExplorationTable:
    """The table of ``exploration_coefficients`` of one search, grown (doubling) with the visit counts."""

    def __init__(self, config: SearchConfig) -> None:
        self.config = config
        self.table = exploration_coefficients(config, 64)

    def covering(self, stats: NodeStats) -> np.ndarray:
        """The table, grown to cover every visit count of ``stats``."""
        most = int(stats.visits.max()) if stats.visits.size > 1 else int(stats.visits[0])
        if most >= self.table.size:
            self.table = exploration_coefficients(self.config, 2 * (most + 1))
        return self.table


def dirichlet_noise(
    priors: np.ndarray, legal: np.ndarray, config: SearchConfig, rng: np.random.Generator
) -> np.ndarray:
    """[B, A] root priors mixed with Dirichlet noise over the legal actions (AlphaZero self-play)."""
    num_legal = legal.sum(axis=1, keepdims=True)  # [B, 1]
    alpha = config.dirichlet_alpha if config.dirichlet_alpha is not None else 10.0 / np.maximum(num_legal, 1)
    # Dirichlet(alpha) = normalised independent Gamma(alpha, 1) draws.
    draws = np.where(legal, rng.gamma(np.broadcast_to(alpha, legal.shape)), 0.0)
    noise = draws / np.maximum(draws.sum(axis=1, keepdims=True), np.finfo(np.float64).tiny)
    fraction = config.dirichlet_fraction
    return ((1.0 - fraction) * priors + fraction * noise).astype(np.float32)


class PuctPolicy:
    """PUCT for one search call: root priors (noised or not), selection rules and the final decision."""

    def __init__(
        self, tree: Tree, config: SearchConfig, rng: np.random.Generator, add_noise: np.ndarray, budget: np.ndarray
    ) -> None:
        self.config = config
        self.add_noise = add_noise  # [B] bool, per game (cheap self-play searches go without, KataGo)
        root = tree.root_stats()
        # [B, A] the root priors used by this search (the tree keeps the un-noised ones)
        self.root_priors = root.priors.copy()
        if add_noise.any():
            noisy = np.flatnonzero(add_noise)
            self.root_priors[noisy] = dirichlet_noise(root.priors[noisy], root.legal[noisy], config, rng)
        self.keys = tie_break_keys(rng, *root.priors.shape)  # [B, A] random ties (ties.py)
        self.coefficients = ExplorationTable(config)

    warmup = 1  # PUCT has no schedule: a time-limited search may stop after any simulation

    def set_budget(self, budget: np.ndarray) -> None:
        """PUCT selection does not depend on the budget."""

    def select_root(self, tree: Tree, simulation: int, games: np.ndarray | None) -> np.ndarray:
        """[K] root actions of ``games`` (None: all)."""
        if games is None:
            root = tree.root_stats()
            return puct_action(root, self.root_priors, self.keys, self.coefficients.covering(root))
        root = tree.root_stats(games)
        return puct_action(root, self.root_priors[games], self.keys[games], self.coefficients.covering(root))

    def select_interior(self, stats: NodeStats, games: np.ndarray) -> np.ndarray:
        """[K] actions at K interior nodes, one of each of ``games``."""
        return puct_action(stats, stats.priors, self.keys[games], self.coefficients.covering(stats))

    def decide(
        self, tree: Tree, move_number: np.ndarray, rng: np.random.Generator
    ) -> tuple[np.ndarray, np.ndarray]:
        """([B] action, [B, A] policy target = root visit distribution)."""
        root = tree.root_stats()
        visits = np.where(root.legal, root.child_visits, 0).astype(np.float64)
        policy = (visits / np.maximum(visits.sum(axis=1, keepdims=True), 1.0)).astype(np.float32)
        # Most visited, ties broken by Q (Q + radius lies in [0, 2 radius], below one visit's weight).
        radius = 1.0 + self.config.score_utility_weight
        greedy = argmax_random_ties(
            np.where(root.legal, (2 * radius + 1) * visits + root.child_q + radius, -np.inf), self.keys
        )
        temperature = self.config.temperature
        sample = (move_number < self.config.temperature_moves) & (temperature > 0) & self.add_noise
        action = greedy
        if sample.any():
            counts = visits[sample]
            weights = (counts / counts.max(axis=1, keepdims=True)) ** (1.0 / temperature)
            action = greedy.copy()
            action[sample] = _sample_rows(weights, rng)
        return action, policy


def _sample_rows(weights: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """[K] one index per row of [K, A] non-negative weights (each row has a positive entry)."""
    cumulative = np.cumsum(weights, axis=1)
    draw = rng.random(len(weights)) * cumulative[:, -1]
    return np.minimum((cumulative <= draw[:, None]).sum(axis=1), weights.shape[1] - 1)
