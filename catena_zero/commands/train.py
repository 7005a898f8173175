"""``catena-zero train``: for now a demo game of the untrained network (training arrives next)."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

from ..config import Config, load_config
from ..fileio import write_text_atomic
from ..game.records import save_record
from ..game.render import render_ascii, render_svg
from ..game.rules import Game
from .common import result_line

HELP = "train by self-play"


def configure(train: argparse.ArgumentParser) -> None:
    train.add_argument("--config", required=True, metavar="FILE", help="YAML configuration (configs/default.yaml)")
    train.add_argument("--out-dir", default="checkpoints/demo", metavar="DIR", help="where the demo writes its files")


def run(args: argparse.Namespace) -> int:
    """Until self-play training exists (next issue): load the config and play a demo game."""
    config = load_config(args.config)
    return train_demo(config, Path(args.out_dir))


def play_selfplay_demo(config: Config) -> tuple[Game, float]:
    """One game of the untrained ``config.net`` network against itself through ``config.search``.

    Exercises the whole stack a training run will use (vectorised env, features, network,
    batched search); returns the game and the seconds it took.
    """
    from ..bot.search_player import network_player  # imports torch: only for this command

    rng = np.random.default_rng(config.seed)
    player = network_player(config)  # one player for both colours: its tree is reused across moves
    game = Game(config.game)
    started = time.perf_counter()
    while not game.is_over:
        game.play(player.choose(game, rng))
    return game, time.perf_counter() - started


def train_demo(config: Config, out_dir: Path) -> int:
    """Play and render one self-play demo game under ``config``; write record + SVG to ``out_dir``."""
    out_dir.mkdir(parents=True, exist_ok=True)
    game, seconds = play_selfplay_demo(config)
    record_path = save_record(out_dir / "selfplay_game.txt", game)
    svg_path = write_text_atomic(out_dir / "selfplay_game.svg", render_svg(game))
    print(render_ascii(game), end="", file=sys.stdout)
    print(result_line(game), file=sys.stdout)
    moves, sims = len(game.history), config.search.num_simulations
    print(f"demo: the untrained network played {moves} moves against itself with {config.search.algorithm} "
          f"search, {sims} simulations per move, in {seconds:.1f} s ({moves * sims / seconds:,.0f} simulations/s)",
          file=sys.stdout)
    print(f"demo: wrote {record_path} and {svg_path}", file=sys.stdout)
    print("self-play training is not implemented yet: it arrives with the training issue; "
          "this demo played one game of the untrained network through search.", file=sys.stdout)
    return 0
