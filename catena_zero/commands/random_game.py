"""``catena-zero random-game``: one game of uniformly random moves, printed and optionally saved."""

from __future__ import annotations

import argparse
import sys

import numpy as np

from ..bot.players import RandomPlayer
from ..config import Config
from ..fileio import write_text_atomic
from ..game.records import save_record
from ..game.render import render_ascii, render_svg
from ..game.rules import Game
from .common import add_game_options, describe, resolve_config, result_line

HELP = "play one game of random moves and print it"


def configure(rand: argparse.ArgumentParser) -> None:
    add_game_options(rand)
    rand.add_argument("--out", metavar="FILE", help="write the game record here")
    rand.add_argument("--svg", metavar="FILE", help="write the final position as an SVG picture")


def play_random_game(config: Config) -> Game:
    """A game of uniformly random moves under ``config.game`` (komi from the config), seeded by config.seed."""
    rng = np.random.default_rng(config.seed)
    game, player = Game(config.game), RandomPlayer()
    while not game.is_over:
        game.play(player.choose(game, rng))
    return game


def run(args: argparse.Namespace) -> int:
    config = resolve_config(args)
    game = play_random_game(config)
    print(f"random game: {describe(config.game)}, seed {config.seed}, {len(game.history)} moves", file=sys.stdout)
    print(render_ascii(game), end="", file=sys.stdout)
    print(result_line(game), file=sys.stdout)
    if args.out:
        print(f"record saved to {save_record(args.out, game)}", file=sys.stdout)
    if args.svg:
        write_text_atomic(args.svg, render_svg(game))
        print(f"picture written to {args.svg}", file=sys.stdout)
    return 0
