"""``catena-zero engine``: the bot behind a GTP-style text protocol on stdin/stdout (bot/engine.py)."""

from __future__ import annotations

import argparse
import sys

from .bot_options import add_bot_options, add_rules_options, load_bot, shipped_bot_path

HELP = "run a bot behind a GTP-style text protocol on stdin/stdout (for GUIs and programs)"


def configure(parser: argparse.ArgumentParser) -> None:
    add_bot_options(parser, required=False)
    add_rules_options(parser)


def run(args: argparse.Namespace) -> int:
    from ..bot.engine import Engine

    path = args.bot
    if path is None:
        path, which = shipped_bot_path(args)
        print(f"catena-zero engine: {which}", file=sys.stderr)
    bot = load_bot(args, path)
    # Under a strict stdin encoding (PYTHONIOENCODING=utf-8:strict) one byte that is not UTF-8
    # would end the session with earlier commands unanswered: it becomes U+FFFD, a bad command
    # that gets the protocol's "?" answer, as in ``play``. A reply that quotes it back must not
    # fail on a narrower stdout encoding either.
    for stream, errors in ((sys.stdin, "replace"), (sys.stdout, "backslashreplace")):
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(errors=errors)
    print(f"catena-zero engine: {bot!r}; waiting for commands (list_commands, quit)", file=sys.stderr)
    return Engine(bot).run(sys.stdin, sys.stdout, sys.stderr)
