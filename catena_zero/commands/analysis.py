"""``catena-zero analysis``: the JSON-lines analysis engine on stdin/stdout (bot/analysis.py)."""

from __future__ import annotations

import argparse
import sys

from .bot_options import add_bot_options, add_rules_options, stdio_bot
from .common import CliError

HELP = "analyse positions for programs: one JSON query a line on stdin, one JSON answer a line per position"


def configure(parser: argparse.ArgumentParser) -> None:
    from ..bot.analysis import DEFAULT_MAX_SIMULATIONS

    add_bot_options(parser, required=False)
    add_rules_options(parser)
    parser.add_argument("--max-simulations", type=int, default=DEFAULT_MAX_SIMULATIONS, metavar="N",
                        help=f"the most simulations a position a query may ask for; default {DEFAULT_MAX_SIMULATIONS}")


def run(args: argparse.Namespace) -> int:
    from ..bot.analysis import run_analysis

    if args.max_simulations < 1:
        raise CliError(f"--max-simulations must be >= 1, got {args.max_simulations}")
    if args.seconds is not None:
        raise CliError("--seconds: the analysis engine searches by simulation count (give --simulations)")
    bot = stdio_bot(args, "analysis")
    print(f"catena-zero analysis: {bot!r}; one JSON query a line (fields: bot/analysis.py)", file=sys.stderr)
    return run_analysis(bot, sys.stdin, sys.stdout, args.max_simulations)
