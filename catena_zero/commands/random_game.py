"""``catena-zero random-game``: one game of uniformly random moves, printed and optionally saved."""

from __future__ import annotations

import argparse

import numpy as np

from ..bot.players import RandomPlayer, next_turn
from ..config import Config
from ..fileio import write_text_atomic
from ..game.match import Match
from ..game.records import format_record
from ..game.render import render_ascii, render_svg
from ..game.rules import Game
from .common import add_game_options, check_one_stdout, check_outputs, describe, message_stream, resolve_config

HELP = "play one game of random moves and print it"


def configure(rand: argparse.ArgumentParser) -> None:
    add_game_options(rand)
    rand.add_argument("--out", metavar="FILE", help="write the game record here ('-': standard output)")
    rand.add_argument("--svg", metavar="FILE", help="write the final position as an SVG picture ('-': standard output)")


def play_random_game(config: Config) -> Game:
    """A game of uniformly random moves under ``config.game`` (komi from the config), seeded by config.seed."""
    rng = np.random.default_rng(config.seed)
    game, player = Game(config.game), RandomPlayer()
    match = Match.settled(game)  # no set-up: the komi is the config's, the first player Black
    while not game.is_over:
        match.apply(next_turn(player, match, rng).event)
    return game


def run(args: argparse.Namespace) -> int:
    config = resolve_config(args)
    check_one_stdout(out=args.out, svg=args.svg)
    check_outputs({"the config": args.config}, {"--out": args.out, "--svg": args.svg})
    game = play_random_game(config)
    # Files first: if the reader of our output stops early (`| head`), they are written anyway.
    written = []
    if args.out:
        written.append(f"record saved to {write_text_atomic(args.out, format_record(game))}")
    if args.svg:
        written.append(f"picture written to {write_text_atomic(args.svg, render_svg(game))}")
    out = message_stream(args.out, args.svg)  # stderr when a file went to stdout
    print(f"random game: {describe(config.game)}, seed {config.seed}, {len(game.history)} moves", file=out)
    print(render_ascii(game), end="", file=out)
    for line in written:
        print(line, file=out)
    return 0
