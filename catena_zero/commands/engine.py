"""``catena-zero engine``: the bot behind a GTP-style text protocol on stdin/stdout (bot/engine.py)."""

from __future__ import annotations

import argparse
import sys

from .bot_options import add_bot_options, add_rules_options, load_bot, stdio_bot

HELP = "run a bot behind a GTP-style text protocol on stdin/stdout (for GUIs and programs)"


def configure(parser: argparse.ArgumentParser) -> None:
    add_bot_options(parser, required=False)
    add_rules_options(parser)


def run(args: argparse.Namespace) -> int:
    from ..bot.engine import Engine

    bot = stdio_bot(args, "engine")
    print(f"catena-zero engine: {bot!r}; waiting for commands (list_commands, quit)", file=sys.stderr)
    bot_for = None if args.bot is not None else shipped_bots_loader(args, bot)
    return Engine(bot, bot_for).run(sys.stdin, sys.stdout, sys.stderr)


def shipped_bots_loader(args: argparse.Namespace, first):
    """The shipped bot for a game's options, each file loaded once with the command's bot options
    (``first``, the bot already loaded, among them; None where none ships): the engine switches
    to it when told other options (``boardsize``)."""
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
            print(f"catena-zero engine: {loaded[key]!r} for side {config.side} {config.game_type} "
                  f"{config.scoring}", file=sys.stderr)
        return loaded[key]

    return bot_for
