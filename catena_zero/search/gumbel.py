"""Gumbel root search with sequential halving (Danihelka et al., "Policy improvement by planning
with Gumbel", ICLR 2022), following mctx's ``gumbel_muzero_policy``.

Shape legend: B games, K a subset of the games (one node each), A actions (N cells + button),
S simulations per search call (each game's own budget).

- Root: draw g ~ Gumbel(0, 1) per action (scale 0 without noise: then the top-k is by prior,
  equal priors drawn at random, ``ties.py``).
  Simulations visit the actions with the largest g + logits + sigma(q) following the sequential
  halving schedule (``considered_visits_table``): the top k actions are visited equally, then the
  best half of them, and so on; at every simulation only actions whose visit count equals the
  scheduled count compete, which makes the top-k selection implicit (mctx).
- sigma(q) = (c_visit + max_b N(b)) * c_scale * q_hat, with q_hat the completed Q values
  min-max rescaled to [0, 1] (Q is the utility, ``search/utility.py``, whatever its range). Unvisited actions are completed with the mixed value (the raw
  value and the prior-weighted Q of the visited actions, paper appendix D).
- The move is the best action among the most visited ones (the sequential halving winner);
  the policy target is softmax(logits + sigma(completed q)) over the legal actions.
- Below the root, selection is deterministic and matches the improved policy:
  argmax(pi'(a) - N(a) / (1 + sum_b N(b))) with pi' = softmax(logits + sigma(completed q));
  or, with ``search.gumbel_interior: puct``, AlphaZero's PUCT (``puct.py``). The improved policy
  completes an unvisited action with the mixed value, the mean of the visited ones, and the
  min-max rescaling stretches any spread of Q to the full sigma range: once one visited reply
  looks better than the mean, every unvisited one is starved, however large its prior. So a
  refutation one ply below the root that the first visits missed is never tried (a lost side-6
  game: docs/RESULTS.md, "The interior selection"). PUCT's exploration term tries it by prior.

With tree reuse the root may start with visits from the previous move; the halving schedule
counts only this call's visits (mctx never reuses trees), while Q values use all of them.
"""

from __future__ import annotations

import functools
import math

import numpy as np

from ..config import SearchConfig
from .puct import ExplorationTable, puct_action
from .ties import argmax_random_ties, tie_break_keys
from .tree import NodeStats, Tree

LOW_LOGIT = -1e9  # mctx: floor of finite root scores, so -inf only marks excluded actions
RESCALE_EPSILON = 1e-8  # mctx: minimum q range when rescaling to [0, 1]


@functools.lru_cache(maxsize=4096)
def _sequence(max_considered: int, num_simulations: int) -> tuple[int, ...]:
    """Visit count an action must have to be selected at each simulation (mctx ``seq_halving``).

    The schedule depends on the budget (how many passes each halving round gets), so a game
    searched with its own budget follows the schedule of that budget (``considered_visits_schedule``).
    Its first ``max_considered`` entries are 0 whatever the budget (every considered action
    gets its first visit), which the time-limited search relies on to fix its budget then.
    """
    if max_considered <= 1:
        return tuple(range(num_simulations))
    log2max = int(math.ceil(math.log2(max_considered)))
    sequence: list[int] = []
    visits = [0] * max_considered
    considered = max_considered
    while len(sequence) < num_simulations:
        extra = max(1, int(num_simulations / (log2max * considered)))
        for _ in range(extra):
            sequence.extend(visits[:considered])
            for i in range(considered):
                visits[i] += 1
        considered = max(2, considered // 2)
    return tuple(sequence[:num_simulations])


def considered_visits_schedule(num_considered: np.ndarray, budget: np.ndarray) -> np.ndarray:
    """[B, max(budget)] int32: row b is the schedule of game b (``num_considered[b]`` actions,
    ``budget[b]`` simulations), padded with -1 after its budget (no action matches -1)."""
    schedule = np.full((budget.size, int(budget.max(initial=0))), -1, np.int32)
    pairs = np.stack([num_considered, budget], axis=1)
    unique, inverse = np.unique(pairs, axis=0, return_inverse=True)
    for row, (considered, simulations) in enumerate(unique.tolist()):
        schedule[np.flatnonzero(inverse.ravel() == row), :simulations] = _sequence(considered, simulations)
    return schedule


def prior_logits(priors: np.ndarray, legal: np.ndarray) -> np.ndarray:
    """[K, A] log priors, -inf on illegal actions (a legal action with prior 0 gets a tiny one)."""
    return np.where(legal, np.log(np.maximum(priors, np.finfo(np.float32).tiny)), -np.inf)


def sigma_completed_q(stats: NodeStats, config: SearchConfig) -> np.ndarray:
    """[K, A] float32 sigma(completed q), mctx ``qtransform_completed_by_mix_value``.

    Unvisited actions (illegal ones too) are completed with the mixed value, and the min-max
    rescaling runs over all A entries, both as in mctx. Everything [K, A] stays float32 (the row
    sums are dot products, the rescaling one subtraction and one product in place): this runs at
    the root of every simulation and at every interior step.
    """
    visits = stats.child_visits
    visited = visits > 0
    q = stats.child_q  # 0 where unvisited
    priors = stats.priors
    total = visits.sum(axis=1)  # [K]
    visited_prob = np.einsum("ka,ka->k", priors, visited, dtype=np.float32)
    weighted_q = np.einsum("ka,ka->k", priors, q) / np.maximum(visited_prob, np.finfo(np.float32).tiny)
    mixed = (stats.raw_utility + total * weighted_q) / (total + 1)  # [K] paper appendix D
    completed = np.where(visited, q, mixed[:, None].astype(np.float32))
    low = completed.min(axis=1, keepdims=True)
    high = completed.max(axis=1, keepdims=True)
    scale = (config.gumbel_c_visit + visits.max(axis=1, keepdims=True)) * config.gumbel_c_scale  # [K, 1]
    completed -= low  # q_hat = (completed - low) / max(high - low, eps), times the scale:
    completed *= (scale / np.maximum(high - low, RESCALE_EPSILON)).astype(np.float32)
    return completed


def improved_policy(stats: NodeStats, config: SearchConfig) -> np.ndarray:
    """[K, A] pi' = softmax(logits + sigma(completed q)) over the legal actions, 0 elsewhere."""
    z = prior_logits(stats.priors, stats.legal) + sigma_completed_q(stats, config)
    z = z - z.max(axis=1, keepdims=True)
    weights = np.exp(z)  # exp(-inf) = 0 on illegal actions
    return (weights / weights.sum(axis=1, keepdims=True)).astype(np.float32)


def interior_action(stats: NodeStats, config: SearchConfig, keys: np.ndarray) -> np.ndarray:
    """[K] deterministic non-root selection (mctx ``gumbel_muzero_interior_action_selection``):
    argmax(pi' - N(a) / (1 + sum_b N(b))), ties broken by ``keys`` [K, A] (``ties.py``).

    pi' is computed as P * exp(sigma - max sigma), normalised: the same softmax without a log
    per call (this runs at every interior step); illegal actions have P = 0.
    """
    sigma = sigma_completed_q(stats, config)
    sigma -= sigma.max(axis=1, keepdims=True)
    weights = stats.priors * np.exp(sigma)  # [K, A] float32, pi' up to its row sum W
    visits = stats.child_visits
    # argmax(w / W - N(a) / (1 + sum N)) = argmax(w - N(a) W / (1 + sum N)) as W > 0
    total = np.maximum(weights.sum(axis=1, keepdims=True), np.finfo(np.float32).tiny)
    ratio = (total / (1.0 + visits.sum(axis=1, keepdims=True))).astype(np.float32)  # [K, 1]
    score = weights - visits.astype(np.float32) * ratio
    return argmax_random_ties(np.where(stats.legal, score, -np.inf), keys)


class GumbelPolicy:
    """Gumbel root search for one search call: sampled Gumbels, halving schedule, final decision.

    ``budget`` [B] is each game's number of simulations in this call: each game follows the
    sequential-halving schedule of its own budget (mctx's schedule for that budget), so a cheap
    search and a full one can share one batched call (playout cap randomisation, KataGo).
    """

    def __init__(
        self, tree: Tree, config: SearchConfig, rng: np.random.Generator, add_noise: np.ndarray, budget: np.ndarray
    ) -> None:
        self.config = config
        root = tree.root_stats()
        # add_noise: [B] bool, per game (self-play's cheap searches go without noise, KataGo 2019 sec. 3.1)
        self.noisy = bool(add_noise.all())
        scale = add_noise.astype(np.float32)[:, None]  # mctx gumbel_scale: 0 gives a deterministic search
        self.gumbel = (scale * rng.gumbel(size=root.priors.shape)).astype(np.float32)  # [B, A]
        self.logits = prior_logits(root.priors, root.legal)  # [B, A]
        self.logits -= self.logits.max(axis=1, keepdims=True)
        # [B, A] g + logits, fixed for the call (floored as mctx does; -inf only where illegal)
        self.gumbel_logits = np.maximum(LOW_LOGIT, self.gumbel + self.logits)
        self.base_visits = root.child_visits.copy()  # [B, A] visits kept from the previous move
        self.kept = bool(self.base_visits.any())  # a reused tree: count only this call's visits
        self.keys = tie_break_keys(rng, *root.priors.shape)  # [B, A] random ties (ties.py)
        self.num_considered = np.minimum(config.gumbel_num_considered, root.legal.sum(axis=1))  # [B]
        self.interior_puct = ExplorationTable(config) if config.gumbel_interior == "puct" else None
        self.set_budget(budget)

    def set_budget(self, budget: np.ndarray) -> None:
        """Follow the schedules of ``budget`` [B] from now on (the time-limited search fixes its
        budget after the first ``min(num_considered)`` simulations, where all schedules agree)."""
        self.schedule = considered_visits_schedule(self.num_considered, budget)  # [B, max budget]

    @property
    def warmup(self) -> int:
        """Simulations after which every game's schedule is the same for any budget that large."""
        # (``min(initial=1)`` would always give 1: numpy counts ``initial`` as one more element.)
        return int(self.num_considered.min()) if self.num_considered.size else 1

    def _root_scores(self, root: NodeStats, considered_visits: np.ndarray, games: np.ndarray | None) -> np.ndarray:
        """[K, A] g + logits + sigma(q) on actions with the scheduled visit count, -inf elsewhere."""
        pick = (lambda x: x) if games is None else (lambda x: x[games])
        score = pick(self.gumbel_logits) + sigma_completed_q(root, self.config)
        visits = root.child_visits - pick(self.base_visits) if self.kept else root.child_visits
        eligible = root.legal & (visits == considered_visits[:, None])
        return np.where(eligible, score, -np.inf)

    def select_root(self, tree: Tree, simulation: int, games: np.ndarray | None) -> np.ndarray:
        """[K] root actions of ``games`` (None: all) at ``simulation``."""
        root = tree.root_stats(games)
        considered = self.schedule[:, simulation] if games is None else self.schedule[games, simulation]
        scores = self._root_scores(root, considered, games)
        if self.noisy:  # continuous Gumbel noise in every game: equal scores have probability 0
            return scores.argmax(axis=1)
        return argmax_random_ties(scores, self.keys if games is None else self.keys[games])

    def select_interior(self, stats: NodeStats, games: np.ndarray) -> np.ndarray:
        """[K] actions at K interior nodes, one of each of ``games``."""
        if self.interior_puct is not None:
            return puct_action(stats, stats.priors, self.keys[games], self.interior_puct.covering(stats))
        return interior_action(stats, self.config, self.keys[games])

    def decide(
        self, tree: Tree, move_number: np.ndarray, rng: np.random.Generator
    ) -> tuple[np.ndarray, np.ndarray]:
        """([B] sequential-halving winner, [B, A] completed-Q policy target)."""
        root = tree.root_stats()
        most = np.where(root.legal, root.child_visits - self.base_visits, -1).max(axis=1)
        action = argmax_random_ties(self._root_scores(root, most, None), self.keys)
        return action, improved_policy(root, self.config)
