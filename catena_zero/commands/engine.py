"""``catena-zero engine``: the bot behind a GTP-style text protocol on stdin/stdout (bot/engine.py)."""

from __future__ import annotations

import argparse
import sys

from .bot_options import add_bot_options, add_rules_options, stdio_bot

HELP = "run a bot behind a GTP-style text protocol on stdin/stdout (for GUIs and programs)"


def configure(parser: argparse.ArgumentParser) -> None:
    add_bot_options(parser, required=False)
    add_rules_options(parser)


def run(args: argparse.Namespace) -> int:
    from ..bot.engine import Engine

    bot = stdio_bot(args, "engine")
    print(f"catena-zero engine: {bot!r}; waiting for commands (list_commands, quit)", file=sys.stderr)
    return Engine(bot).run(sys.stdin, sys.stdout, sys.stderr)
