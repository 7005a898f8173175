"""``catena-zero show``: print (and draw) a game record's position and result."""

from __future__ import annotations

import argparse
import sys

from ..game.match import Match
from ..fileio import write_text_atomic
from ..game.records import board_of, load_record
from ..game.render import render_ascii, render_svg
from .common import CliError, describe, result_line

HELP = "print the board and result of a game record"


def configure(show: argparse.ArgumentParser) -> None:
    show.add_argument("record", metavar="RECORD", help="a record file written by play, random-game or train")
    show.add_argument("--move", type=int, metavar="K", help="show the position after the first K events")
    show.add_argument("--svg", metavar="FILE", help="also write the position as an SVG picture")


def run(args: argparse.Namespace) -> int:
    record = load_record(args.record)
    total = len(record.events)
    upto = total if args.move is None else args.move
    if not 0 <= upto <= total:
        raise CliError(f"--move must be in 0..{total} (the record has {total} events), got {upto}")
    state = record.replay(upto)
    game = board_of(state)
    print(f"{args.record}: {describe(game.config)}; {total} events", file=sys.stdout)
    if record.first is not None:
        other = "white" if record.first == "black" else "black"
        print(f"first player: {record.first}, second player: {other}", file=sys.stdout)
    if upto != total:
        print(f"position after {upto} of {total} events", file=sys.stdout)
    print(render_ascii(game), end="", file=sys.stdout)
    print(result_line(game, state if isinstance(state, Match) else None), file=sys.stdout)
    if args.svg:
        write_text_atomic(args.svg, render_svg(game))
        print(f"picture written to {args.svg}", file=sys.stdout)
    return 0
