"""``SearchPlayer``: a ``Player`` (``players.py``) that chooses moves by batched MCTS.

Shape legend: A actions (N cells + button); the search runs on a batch of one game, which takes
the search's single-game fast path (``MCTS._simulate_one``, VecEnv's one-row engine).

Two kinds, built from the project ``Config`` by builders with the ``PlayerBuilder`` signature
``(arg, config) -> Player`` that the player factory registers:
- ``mcts:K`` (``build_mcts_player``): the classic UCT baseline, PUCT with uniform priors and
  random-rollout values (``RolloutEvaluator``, win/loss only: no score utility), K simulations
  per move;
- ``net`` (``build_net_player``): the network (``NetEvaluator``) through the configured search
  (``config.search``); an untrained ``model_from_config(config.net)`` until checkpoints exist.
The player keeps its search tree between moves when ``search.tree_reuse`` is on: the next call
re-roots it on the position reached after its own move and the opponent's reply.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

import numpy as np

from ..config import Config, SearchConfig
from ..game.vec_env import VecEnv
from ..evaluation import EvalFn
from ..search.mcts import MCTS
from ..search.rollout import RolloutEvaluator

if TYPE_CHECKING:
    from ..game import Game
    from ..game.options import GameConfig


class SearchPlayer:
    """Chooses the search's move (no exploration noise) for the player to move in a ``Game``."""

    def __init__(self, env: VecEnv, eval_fn: EvalFn, config: SearchConfig, seconds: float | None = None) -> None:
        self.env = env
        self.search = MCTS(env, eval_fn, config)
        self.seconds = seconds  # a thinking-time limit per move (config.num_simulations at most), or None

    def choose(self, game: "Game", rng: np.random.Generator) -> str:
        if game.is_over:
            raise ValueError("the game is over: there is no legal move to choose")
        state = self.env.from_games([game])  # ValueError if side, game type or scoring differ
        action = int(self.search.run(state, rng, add_noise=False, seconds=self.seconds).action[0])
        return self.env.spec.action_name(action)


def rollout_player(game: "GameConfig", search: SearchConfig, rng: np.random.Generator) -> SearchPlayer:
    """Classic UCT: PUCT over uniform priors with one random rollout per leaf (``search`` as given)."""
    env = VecEnv(game)
    return SearchPlayer(env, RolloutEvaluator(env, rng), search)


def network_player(config: Config, model=None) -> SearchPlayer:
    """The network through ``config.search``; ``model`` defaults to an untrained ``config.net`` model."""
    from ..net import NetEvaluator, model_from_config  # torch is imported only for this kind

    env = VecEnv(config.game)
    model = model if model is not None else model_from_config(config.net)
    return SearchPlayer(env, NetEvaluator(model, env, config.net), config.search)


def build_mcts_player(arg: str | None, config: Config) -> SearchPlayer:
    """``mcts:K``: the rollout baseline with K simulations per move (PUCT, config.search otherwise)."""
    if arg is None or not arg.isdigit() or int(arg) < 1:
        raise ValueError(f"player kind 'mcts' needs a positive simulation count, as in 'mcts:64'; got {arg!r}")
    # Classic UCT maximises the rollouts' win rate only: no score utility.
    search = dataclasses.replace(config.search, algorithm="puct", num_simulations=int(arg), score_utility_weight=0.0)
    return rollout_player(config.game, search, np.random.default_rng(config.seed))


def build_net_player(arg: str | None, config: Config) -> SearchPlayer:
    """``net``: the (untrained, until checkpoints exist) network through ``config.search``."""
    if arg is not None:
        raise ValueError(f"player kind 'net' takes no argument yet, got 'net:{arg}'")
    return network_player(config)
