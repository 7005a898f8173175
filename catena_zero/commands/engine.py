"""``catena-zero engine``: the bot behind a GTP-style text protocol on stdin/stdout (bot/engine.py)."""

from __future__ import annotations

import argparse
import math
import re
import sys

from .bot_options import add_bot_options, add_rules_options, load_bot, stdio_bot
from .common import CliError

HELP = "run a bot behind a GTP-style text protocol on stdin/stdout (for GUIs and programs)"


def configure(parser: argparse.ArgumentParser) -> None:
    add_bot_options(parser, required=False)
    add_rules_options(parser)


def run(args: argparse.Namespace) -> int:
    from ..bot.engine import Engine

    bot = stdio_bot(args, "engine")
    print(f"catena-zero engine: {bot_line(bot)}; GTP commands on stdin (list_commands, quit)", file=sys.stderr)
    bot_for = None if args.bot is not None else shipped_bots_loader(args, bot, "engine")
    return Engine(bot, bot_for).run(sys.stdin, sys.stdout, sys.stderr)


_STRENGTH = (re.compile(r"(?P<share>\d+(?:\.\d+)?%)(?: \[[^\]]*\])? vs (?P<who>mcts:\d+)"),
             re.compile(r"vs (?P<who>mcts:\d+)[^;]*?(?P<share>\d+(?:\.\d+)?%)"),
             re.compile(r"(?P<share>\d+(?:\.\d+)?%)(?: \[[^\]]*\])? vs (?P<who>random)"))


def strength_in_brief(strength: str) -> str:
    """A shipped bot's measured strength in a few words ("92.5% vs mcts:2000"): its first score
    against the plain search (else against random play) in the index's text; "" if none."""
    for pattern in _STRENGTH:
        found = pattern.search(strength)
        if found:
            return f"{found['share']} vs {found['who']}"
    return ""


def bot_line(bot) -> str:
    """One line about ``bot`` for a person: its file, training step, rules and search; for a
    shipped bot its strength in a few words (the index says the rest)."""
    from pathlib import Path

    from ..bot.shipped import shipped_bots

    path = Path(bot.path) if bot.path is not None else None
    shipped = next((b for b in shipped_bots() if path is not None and b.path.resolve() == path.resolve()), None)
    budget = f"{bot.seconds:g} s a move" if bot.seconds is not None else f"{bot.simulations} simulations"
    rules = ", ".join(str(r) for r in bot.trained_for)
    if len(bot.trained_for) > 3:
        rules = f"{len(bot.trained_for)} rule sets"
    line = f"{path.name if path is not None else bot.name} (step {bot.header.step}, {rules}, {budget})"
    brief = strength_in_brief(shipped.strength) if shipped is not None else ""
    return f"{line}, {brief}" if brief else line


def shipped_bots_loader(args: argparse.Namespace, first, command: str = "engine"):
    """The shipped bot for a game's options, each file loaded once with the command's bot options
    (``first``, the bot already loaded, among them; None where none ships): the engine switches
    to it when told other options (``boardsize``), the analysis engine for a query's rules."""
    from pathlib import Path

    from ..bot.shipped import shipped_bot_for

    loaded = {Path(first.path).resolve(): first}

    def bot_for(config):
        found = shipped_bot_for(config)
        if found is None:
            return None
        key = Path(found.path).resolve()
        if key not in loaded:
            loaded[key] = load_bot(args, found.path)
            print(f"catena-zero {command}: {bot_line(loaded[key])} for side {config.side} {config.game_type} "
                  f"{config.scoring}", file=sys.stderr)
        return loaded[key]

    return bot_for
