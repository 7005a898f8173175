"""The flags of the commands that load an exported bot (engine, komi, play, serve): --bot and its
search; without --bot the shipped bot for the chosen rules (``bot/shipped.py``)."""

from __future__ import annotations

import argparse

from .common import CliError, add_rule_flags, add_threads_flag, device_name, seconds_per_move, set_threads


def add_bot_options(parser: argparse.ArgumentParser, required: bool, bot_help: str | None = None,
                    repeatable: bool = False) -> None:
    """--bot FILE (a list of files when ``repeatable``) and the search flags of the bots."""
    parser.add_argument("--bot", required=required, metavar="FILE", action="append" if repeatable else "store",
                        help=bot_help or "a bot file written by 'catena-zero export' (default: the bot shipped "
                                         "for the rules, see catena_zero/bots/README.md)")
    budget = parser.add_mutually_exclusive_group()
    budget.add_argument("--simulations", type=int, metavar="N", help="search simulations per move (default: the bot file's)")
    budget.add_argument("--seconds", type=seconds_per_move, metavar="T", help="think about T seconds per move instead")
    parser.add_argument("--device", default="auto", type=device_name, help="where the network runs: auto, cpu, cuda, cuda:i (default auto)")
    parser.add_argument("--bot-seed", type=int, default=0, metavar="S",
                        help="the bot's seed: with --simulations the same position always gets the same move (default 0)")
    add_threads_flag(parser, "torch CPU threads; one game at a time gains little from more and loses a lot when "
                             "the cores are shared (default 1)")


def load_bot(args: argparse.Namespace, path: str | None = None):
    """The ``Bot`` named by ``--bot`` (or ``path``) with the search flags; BotFileError is one line."""
    from ..bot import Bot

    if args.threads < 1:
        raise CliError(f"--threads must be >= 1, got {args.threads}")
    set_threads(args.threads)  # this process runs the bot: its choice to make
    return Bot.load(path or args.bot, simulations=args.simulations, seconds=args.seconds,
                    device=args.device, seed=args.bot_seed)


def add_rules_options(parser: argparse.ArgumentParser) -> None:
    """--side, --game-type, --scoring: the rules whose shipped bot to take when no --bot is given."""
    add_rule_flags(parser, {"side": "without --bot: the shipped bot for this board side (R1)",
                            "game_type": "without --bot: ... for this game type (R7/R8)",
                            "scoring": "without --bot: ... for this scoring (R6)"})


def shipped_bot_path(args: argparse.Namespace, default=None, *, exact: bool = False):
    """(path, line saying which) of the shipped bot for the rules of the flags, else of ``default``
    (a GameConfig), else of the standard game (side 6, komi, standard); with no rule flag given and
    nothing shipped for those rules, the one shipped bot there is (the first by name), unless
    ``exact`` (``default`` is a record's rules, which no other bot can play). CliError (one line:
    what ships, how to make one) when no shipped bot fits."""
    from ..bot.shipped import no_shipped_bot_line, shipped_bot_for, shipped_bots
    from ..errors import UserError
    from ..game.options import GameConfig

    flags = {key: getattr(args, key, None) for key in ("side", "game_type", "scoring")}
    chosen = {key: value for key, value in flags.items() if value is not None}
    base = default if default is not None else GameConfig()
    try:
        config = GameConfig(**{"side": base.side, "game_type": base.game_type, "scoring": base.scoring, **chosen})
    except UserError as exc:
        raise CliError(str(exc)) from None
    bot = shipped_bot_for(config)
    if bot is None and not chosen and not exact:
        bots = shipped_bots()
        bot = bots[0] if bots else None
    if bot is None:
        raise CliError(no_shipped_bot_line(config))
    return bot.path, f"no --bot given: playing {bot.describe()}"


def stdio_bot(args: argparse.Namespace, command: str):
    """The bot of a command that speaks a protocol on stdin/stdout (engine, analysis): ``--bot``,
    else the shipped bot for the rule flags (saying which on stderr), with stdin read leniently.

    Under a strict stdin encoding (PYTHONIOENCODING=utf-8:strict) one byte that is not UTF-8
    would end the session with earlier requests unanswered: it becomes U+FFFD, a bad request that
    gets the protocol's error answer. A reply that quotes it back must not fail on a narrower
    stdout encoding either."""
    import sys

    path = args.bot
    if path is None:  # which one: the command's own one line about its bot says
        path, _ = shipped_bot_path(args)
    bot = load_bot(args, path)
    for stream, errors in ((sys.stdin, "replace"), (sys.stdout, "backslashreplace")):
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(errors=errors)
    return bot
