"""``SearchPlayer``: a ``Player`` (``players.py``) that chooses moves by batched MCTS.

Shape legend: A actions (N cells + button); the search runs on a batch of one game, which takes
the search's single-game fast path (``MCTS._simulate_one``, VecEnv's one-row engine).

Two kinds, built from the project ``Config`` by builders with the ``PlayerBuilder`` signature
``(arg, config) -> Player`` that the player factory registers:
- ``mcts:K`` (``build_mcts_player``): the classic UCT baseline, PUCT with uniform priors and
  random-rollout values (``RolloutEvaluator``, win/loss only: no score utility), K simulations
  per move;
- ``net:FILE`` (``build_net_player``): a trained network, from a training checkpoint (its own
  net and search settings) or an exported bot file (``Bot``); plain ``net`` is refused, since an
  untrained network would play without a word of warning.
The player keeps its search tree between moves when ``search.tree_reuse`` is on: the next call
re-roots it on the position reached after its own move and the opponent's reply.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

import numpy as np

from ..config import Config, SearchConfig
from ..game.vec_env import VecEnv
from ..evalfn import EvalFn
from ..search.mcts import MCTS
from ..search.rollout import RolloutEvaluator

if TYPE_CHECKING:
    from ..game import Game
    from ..game.options import GameConfig


class SearchPlayer:
    """Chooses the search's move (no exploration noise) for the player to move in a ``Game``."""

    def __init__(self, env: VecEnv, eval_fn: EvalFn, config: SearchConfig, seconds: float | None = None,
                 networked: bool = False) -> None:
        self.env = env
        self.eval_fn = eval_fn
        self.networked = networked  # eval_fn is a network: its komi estimate means something
        self.search = MCTS(env, eval_fn, config)
        self.seconds = seconds  # a thinking-time limit per move (config.num_simulations at most), or None

    def choose(self, game: "Game", rng: np.random.Generator) -> str:
        if game.is_over:
            raise ValueError("the game is over: there is no legal move to choose")
        state = self.env.from_games([game])  # ValueError if side, game type or scoring differ
        action = int(self.search.run(state, rng, add_noise=False, seconds=self.seconds).action[0])
        return self.env.spec.action_name(action)

    def fair_komi(self, config: "GameConfig") -> int | None:
        """The network's fair komi for ``config``'s rule set (search/komi.py); None without a
        network (random rollouts know nothing of komi)."""
        if not self.networked or config.game_type != "komi":
            return None
        from ..search.komi import estimate_fair_komi

        return estimate_fair_komi(VecEnv(dataclasses.replace(config, komi=0)), self.eval_fn).komi


def rollout_player(game: "GameConfig", search: SearchConfig, rng: np.random.Generator) -> SearchPlayer:
    """Classic UCT: PUCT over uniform priors with one random rollout per leaf (``search`` as given)."""
    env = VecEnv(game)
    return SearchPlayer(env, RolloutEvaluator(env, rng), search)


def network_player(config: Config, model) -> SearchPlayer:
    """The network ``model`` (of ``config.net``) through ``config.search``."""
    from ..net import NetEvaluator  # torch is imported only for this kind

    env = VecEnv(config.game)
    return SearchPlayer(env, NetEvaluator(model, env, config.net), config.search, networked=True)


def build_mcts_player(arg: str | None, config: Config) -> SearchPlayer:
    """``mcts:K``: the rollout baseline with K simulations per move (PUCT, config.search otherwise)."""
    if arg is None or not arg.isdigit() or int(arg) < 1:
        raise ValueError(f"player kind 'mcts' needs a positive simulation count, as in 'mcts:64'; got {arg!r}")
    # Classic UCT maximises the rollouts' win rate only: no score utility.
    search = dataclasses.replace(config.search, algorithm="puct", num_simulations=int(arg), score_utility_weight=0.0)
    return rollout_player(config.game, search, np.random.default_rng(config.seed))


NET_NEEDS_FILE = ("player kind 'net' needs trained weights: write net:FILE with a training checkpoint "
                  "(catena-zero train writes them in its run folder) or an exported bot file "
                  "(catena-zero export), play a bot file with --bot FILE, or the shipped bot with --opponent bot")


def build_net_player(arg: str | None, config: Config):
    """``net:FILE``: a checkpoint's network through its own search settings, or an exported bot
    file's ``Bot``; plain ``net`` (an untrained network) is refused with ``NET_NEEDS_FILE``."""
    if not arg:
        raise ValueError(NET_NEEDS_FILE)
    from pathlib import Path

    from ..eval.specs import _looks_like_checkpoint

    path = Path(arg)
    if not path.is_file():
        raise ValueError(f"net:{arg}: no such file; {NET_NEEDS_FILE}")
    if not _looks_like_checkpoint(path):  # ValueError for a file that is neither
        from .bot import Bot

        return Bot.load(path)  # BotFileError names what is wrong with it
    from ..train.checkpoint import load_checkpoint, model_from_checkpoint

    checkpoint = load_checkpoint(path)
    if (checkpoint.config.game.side, checkpoint.config.game.game_type, checkpoint.config.game.scoring) != \
            (config.game.side, config.game.game_type, config.game.scoring):
        trained = checkpoint.config.game
        raise ValueError(f"net:{arg} was trained for side {trained.side}, {trained.game_type}, {trained.scoring} "
                         f"scoring; this game is side {config.game.side}, {config.game.game_type}, "
                         f"{config.game.scoring} scoring")
    played = dataclasses.replace(config, net=checkpoint.config.net, search=checkpoint.config.search)
    return network_player(played, model_from_checkpoint(checkpoint).eval())
