"""``catena-zero play``: a game in the terminal, against a person or a program, with the R7 set-up.

``--bot FILE`` plays an exported bot (``catena-zero export``) against you, ``--bot A --bot B`` two
bots against each other; a bot answers the set-up (komi, colour, swap) by its own heads (R7).

This module parses the command's arguments, builds the players (a seat given as None is a person
typing) and hands the match to the terminal UI, ``terminal.play_in_terminal``.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from pathlib import Path
from typing import Optional, TextIO

import numpy as np

from ..bot.players import Player, check_plays
from ..config import Config
from ..eval.specs import PLAYER_KINDS, make_player
from ..fileio import writes_to_stdout
from ..game.match import PLAYERS, Match, Phase
from ..game.notation import Event
from ..game.records import save_record
from ..game.render import LAYOUTS
from ..terminal import TerminalReader, UndoableMatch, play_in_terminal
from .bot_options import add_bot_options, load_bot, shipped_bot_path
from .common import CliError, add_game_options, check_outputs, describe, message_stream, resolve_config
from .engine import bot_line

HELP = "play in the terminal, against a person or a program"
HUMAN = "human"
SHIPPED = "bot"  # --opponent bot: the shipped bot for the game's rules (bot/shipped.py)


def configure(play: argparse.ArgumentParser) -> None:
    add_game_options(play, komi_help="answer the first player's komi choice (R7) in advance: the game "
                                     "starts at the colour choice; otherwise the first player is asked")
    kinds = ", ".join([HUMAN, f"{SHIPPED} (the bot shipped for the rules, catena_zero/bots/)"]
                      + [f"{k.usage} ({k.help})" for k in PLAYER_KINDS.values()])
    play.add_argument("--opponent", default=HUMAN, metavar="KIND", help=f"who plays against you: {kinds}; default human")
    play.add_argument("--seat", choices=PLAYERS, default="first",
                      help="your seat against a program: the first player chooses the komi (R7); default first")
    play.add_argument("--save", metavar="FILE",
                      help="write the game record here at the end, also when the game is abandoned "
                           "(quit, end of input, Ctrl-C); checked before the game starts; '-': standard "
                           "output, and the board and prompts go to standard error")
    play.add_argument("--board", choices=LAYOUTS, default=LAYOUTS[0],
                      help="columns: columns drawn vertically, each letter above and below its column "
                           "(default); hex: the hexagon of R1, columns running diagonally")
    add_bot_options(play, required=False, repeatable=True,
                    bot_help="an exported bot to play against (instead of --opponent); twice, --bot A --bot B, "
                             "for bot against bot (A is the first player); the game defaults to the first bot's")


def run(args: argparse.Namespace) -> int:
    if not args.bot and args.opponent.strip() == SHIPPED:
        # The shipped bot for the rules (one line naming what ships and how to make one if none fits);
        # it is introduced below in one line, as every bot is.
        path, _ = shipped_bot_path(args, resolve_config(args).game)
        args.bot, args.opponent = [str(path)], HUMAN
    inputs = {"the config": args.config, **{f"--bot {i + 1}": path for i, path in enumerate(args.bot or [])}}
    check_outputs(inputs, {"--save": args.save})  # before a bot loads or a game starts: writable too
    bots = _bots(args)
    config = resolve_config(args) if not bots else _bot_config(args, bots)  # the rules checked first
    for bot in bots:  # one line each: name, rules, search and, for a shipped bot, its strength in brief
        print(f"catena-zero play: {bot_line(bot)}", file=sys.stderr)
    players, opponent = _players(args, bots, config)
    match = UndoableMatch(config.game)
    if args.komi is not None and match.phase is Phase.KOMI:
        # An explicit --komi answers the first player's komi choice (R7) for them.
        match.apply(Event.komi_choice(args.komi))
    rng = np.random.default_rng(config.seed)
    thinking = sys.stderr if _isatty(sys.stderr) else None  # scripted output stays clean
    if hasattr(sys.stdin, "reconfigure"):
        sys.stdin.reconfigure(errors="replace")  # bytes that are not UTF-8 become a bad move, not a crash
    out = message_stream(args.save)  # with --save - the record alone goes to standard output
    reader = TerminalReader(match) if _isatty(sys.stdin) else None
    try:
        play_in_terminal(match, players, rng, sys.stdin, out, title=_title(match), thinking=thinking,
                         opponent=opponent, reader=reader, komi_by_flag=args.komi is not None, layout=args.board)
    except KeyboardInterrupt:
        print("\ninterrupted: game abandoned", file=sys.stderr)
        _save(args.save, match, sys.stderr)
        return 130
    except BaseException:
        _save(args.save, match, sys.stderr)  # a closed output or any failure: the moves so far still count
        raise
    _save(args.save, match, out)
    return 0


def _players(args: argparse.Namespace, bots: list, config: Config) -> tuple[dict[str, Optional[Player]], str]:
    """Who sits where (None: a person typing), and how the person's opponent is named."""
    if len(bots) == 2:
        return {"first": bots[0], "second": bots[1]}, args.opponent
    if bots:
        return {seat: (None if seat == args.seat else bots[0]) for seat in PLAYERS}, f"the bot {Path(args.bot[0]).name}"
    if args.opponent.strip() == HUMAN:
        return {"first": None, "second": None}, args.opponent
    bot = make_player(args.opponent, config)
    check_plays(bot, config.game, bot.name)  # a bot file trained for other options: one line
    return {seat: (None if seat == args.seat else bot) for seat in PLAYERS}, args.opponent


def _title(match: Match) -> str:
    """The game's options in one line; the komi once known (a komi game chooses it in the match, R7)."""
    game = match.game
    return describe(match.config, komi_known=False) if game is None else describe(game.config)


def _bots(args: argparse.Namespace) -> list:
    """The exported bots of --bot (none, one or two), loaded with the search flags."""
    paths = args.bot or []
    if len(paths) > 2:
        raise CliError(f"--bot is given at most twice (bot against bot), got {len(paths)} bots")
    if paths and args.opponent.strip() != HUMAN:
        raise CliError("--bot and --opponent both name who you play against: give one of them")
    return [load_bot(args, path) for path in paths]


def _bot_config(args: argparse.Namespace, bots: list):
    """The config of a game with bots: the first bot's game unless --config or the game flags say
    otherwise; every bot must have been trained for it (UnsupportedGame, one line)."""
    config = resolve_config(args)
    if args.config is None:
        given = {key: value for key, value in (("side", args.side), ("game_type", args.game_type),
                                               ("scoring", args.scoring)) if value is not None}
        game = dataclasses.replace(bots[0].game_config, komi=0, **given)
        if args.komi is not None:
            game = dataclasses.replace(game, komi=args.komi)  # UserError if out of range or no komi
        config = dataclasses.replace(config, game=game)
    for bot in bots:
        check_plays(bot, config.game, "this bot")
    return config


def _save(path: Optional[str], match: Match, out: TextIO) -> None:
    if not path:
        return
    saved = save_record(path, match)
    if not writes_to_stdout(path):
        print(f"record saved to {saved}", file=out)


def _isatty(stream) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


