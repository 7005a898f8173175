"""What several commands share: the user-error type, game-option flags, and one-line descriptions."""

from __future__ import annotations

import argparse
from typing import Optional

from ..config import Config, config_from_dict, load_config
from ..game.match import Match
from ..game.options import GAME_TYPES, SCORINGS, GameConfig
from ..game.rules import Game


class CliError(Exception):
    """A user error reported as one line on stderr (exit status 2)."""


def add_game_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--config", metavar="FILE", help="YAML configuration; the flags below override it")
    parser.add_argument("--side", type=int, help="cells per board edge, 2..10 (R1); default 6")
    parser.add_argument("--game-type", choices=GAME_TYPES, help="R7/R8; default komi")
    parser.add_argument("--scoring", choices=SCORINGS, help="R6; default standard")
    parser.add_argument("--komi", type=int, help="komi for White (R6); under game type komi, play asks the first player")
    parser.add_argument("--seed", type=int, help="seed of the random generator (default: the config's seed)")


def resolve_config(args: argparse.Namespace) -> Config:
    """The config file (or the defaults) with the command-line flags on top; ConfigError if invalid."""
    game = {key: value for key, value in (("side", args.side), ("game_type", args.game_type),
                                          ("scoring", args.scoring), ("komi", args.komi)) if value is not None}
    overrides: dict = {"game": game} if game else {}
    if args.seed is not None:
        overrides["seed"] = args.seed
    if args.config is not None:
        return load_config(args.config, overrides)
    return config_from_dict(overrides)


def describe(config: GameConfig, komi_known: bool = True) -> str:
    """One line naming the options (R9); ``komi_known`` False when a match will choose it (R7)."""
    komi = f", komi {config.komi}" if komi_known else ""
    return f"side {config.side}, game type {config.game_type}, {config.scoring} scoring{komi}"


def result_line(game: Game, match: Optional[Match] = None) -> str:
    """One line with the result (R6), naming the seats when a match decided the colours."""
    if not game.is_over:
        return "game not finished"
    scores = game.scores()
    score_text = f"black {scores['black']:g}, white {scores['white']:g}"
    winner = game.winner
    if winner is None:
        return f"result: draw ({score_text})"
    seat = f" ({match.player_of(winner)} player)" if match is not None else ""
    return f"result: {winner}{seat} wins ({score_text})"
