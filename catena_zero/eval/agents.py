"""Agents: players that choose one move for each of a BATCH of games in one call (the arena's players).

Shape legend: B games an agent is asked to move in (all running, all with this agent to move),
A actions (N cells + the button, ``game/spec.py``), K komi values of a range (R6).

``Agent.act(env, state, rng) -> [B] int64`` legal actions (``bot/agent.py``, with the search agent
and the network's: they live below ``eval/`` because ``bot.Bot`` is built on them, and are
re-exported here). A batched search agent runs ONE search call per move for every game it
is thinking in, so a match of G games costs a side one search per ply, not G.

Implementations:
- ``RandomAgent``: uniform over the legal actions (``game.vec.random_legal_actions``).
- ``GreedyAgent``: the action with the best immediate score margin for the mover (R6 scores after
  that one action, claims included); every legal action of every game is stepped in one batch;
  ties are broken uniformly at random, so greedy games vary.
- ``UCTAgent`` (``mcts:K``): classic UCT (Kocsis and Szepesvari 2006) as PUCT over uniform priors
  with random-rollout leaf values (``search/rollout.py``), K simulations per move. This is the one
  meaning of ``mcts:K`` wherever a player is named (``specs.py``), ``play --opponent`` included.
- ``NetAgent`` (``bot/agent.py``): a ``CatenaNet`` through the batched search with
  ``net/inference.py``'s ``NetEvaluator``, no exploration noise (evaluation, not self-play). Its
  value head gives the fair komi of a game (``komi_curve``); a bot file's also judges the R7
  set-up, as its ``Bot`` does.

Every agent is also a single-game ``Player`` (``bot/players.py``, what ``play --opponent`` needs):
``Agent.choose``, the agent at batch size one. ``specs.py`` is the registry that builds agents from
strings.
"""

from __future__ import annotations

from typing import Optional

import numpy as np

from ..bot.agent import Agent, NetAgent, SearchAgent, check_batch
from ..bot.players import RANDOM, Capabilities
from ..config import SearchConfig
from ..errors import UserError
from ..evalfn import EvalFn
from ..game.vec import BLACK, EnvState, VecEnv, random_legal_actions
from ..search.rollout import RolloutEvaluator

__all__ = ["Agent", "GreedyAgent", "NetAgent", "RandomAgent", "SearchAgent", "UCTAgent",
           "uct_search_config"]

# The greedy agent steps every legal action of every game; above this many copies at once it works
# through the batch in slices, so a side-10 batch (271 actions a game) stays a few tens of MB.
GREEDY_MAX_ROWS = 16384


class RandomAgent(Agent):
    """Uniformly random legal actions."""

    name = "random"
    capabilities = Capabilities(setup=RANDOM)

    def act(self, env: VecEnv, state: EnvState, rng: np.random.Generator) -> np.ndarray:
        check_batch(env, state)
        return random_legal_actions(env.legal_actions(state), rng)


class GreedyAgent(Agent):
    """The legal action with the best immediate score margin for the mover (ties at random)."""

    name = "greedy"

    def __init__(self, max_rows: int = GREEDY_MAX_ROWS) -> None:
        self.max_rows = max_rows

    def act(self, env: VecEnv, state: EnvState, rng: np.random.Generator) -> np.ndarray:
        check_batch(env, state)
        legal = env.legal_actions(state)  # [B, A]
        mover_black = state.to_move == BLACK  # [B]
        game, action = np.nonzero(legal)  # [L] every legal (game, action) pair, row-major
        margin = np.empty(game.size, np.float32)  # [L] mover's margin after that action
        for start in range(0, game.size, self.max_rows):
            part = slice(start, start + self.max_rows)
            after = env.take(state, game[part])
            env.step(after, action[part])
            scores = after.scores  # [l, 2] black, white
            diff = scores[:, 0] - scores[:, 1]
            margin[part] = np.where(mover_black[game[part]], diff, -diff)
        best = np.full(state.batch_size, -np.inf, np.float32)
        np.maximum.at(best, game, margin)
        ties = np.zeros_like(legal)
        # Margins are multiples of 0.5 (standard, quadratic) or whole numbers (longest): exact compare.
        ties[game, action] = margin >= best[game]
        return random_legal_actions(ties, rng)


def uct_search_config(simulations: int, tree_reuse: bool = False) -> SearchConfig:
    """PUCT over uniform priors: classic UCT with AlphaZero's c(s) (``search/puct.py``).

    Classic UCT backs up game results only, so KataGo's score utility (``search/utility.py``) is
    off: the baseline stays the textbook one whatever the network's search defaults become.
    """
    if isinstance(simulations, bool) or not isinstance(simulations, (int, np.integer)) or simulations < 1:
        raise UserError(f"mcts needs a positive simulation count, got {simulations!r}")
    return SearchConfig(algorithm="puct", num_simulations=int(simulations), tree_reuse=tree_reuse,
                        score_utility_weight=0.0)


class UCTAgent(SearchAgent):
    """``mcts:K``: UCT with K random-rollout simulations per move (one rollout per leaf)."""

    def __init__(self, simulations: int, tree_reuse: bool = False, num_rollouts: int = 1) -> None:
        self.simulations = int(simulations)

        def make(env: VecEnv) -> EvalFn:
            # The rng is replaced by the caller's before every search (``prepare``).
            return RolloutEvaluator(env, np.random.default_rng(0), num_rollouts)

        super().__init__(f"mcts:{simulations}", uct_search_config(simulations, tree_reuse), make)

    def prepare(self, eval_fn: EvalFn, rng: np.random.Generator) -> None:
        if isinstance(eval_fn, RolloutEvaluator):  # what ``make`` built
            eval_fn.rng = rng  # randomness is passed in, never global (same seed, same games)
