"""``catena-zero show``: print (and draw) a game record's position and result.

Everything ``show`` needs is in the record (its options, set-up and moves), so it takes no
``--config`` or game flags: they could only contradict the record.
"""

from __future__ import annotations

import argparse
import sys

from ..fileio import MAX_RECORD_BYTES, write_text_atomic
from ..game.match import Match
from ..game.records import RecordError, board_of, load_record, parse_record
from ..game.render import LAYOUTS, render_ascii, render_svg
from .common import CliError, check_outputs, describe, message_stream, plural

HELP = "print the board and result of a game record"


def configure(show: argparse.ArgumentParser) -> None:
    show.add_argument("record", metavar="RECORD", help="a record file written by play, random-game or train ('-': standard input)")
    show.add_argument("--move", type=int, metavar="K",
                      help="show the position after move K (moves are counted as the stones are: the set-up "
                           "choices of R7 are not moves)")
    show.add_argument("--svg", metavar="FILE", help="also write the position as an SVG picture ('-': standard output)")
    show.add_argument("--board", choices=LAYOUTS, default=LAYOUTS[0],
                      help="columns: columns drawn vertically, each letter above and below its column "
                           "(default); hex: the hexagon of R1, columns running diagonally")


def run(args: argparse.Namespace) -> int:
    check_outputs({"the record to show": args.record}, {"--svg": args.svg})
    if args.record == "-":  # `random-game --out - | catena-zero show -`
        try:
            text = sys.stdin.read(MAX_RECORD_BYTES + 1)  # `show - < /dev/zero` must not fill memory
            if len(text) > MAX_RECORD_BYTES:
                raise RecordError(f"more than {MAX_RECORD_BYTES:,} characters; a record is at most {MAX_RECORD_BYTES:,} bytes")
            record = parse_record(text)
        except RecordError as exc:
            raise RecordError(f"standard input: {exc}") from None
        except UnicodeDecodeError as exc:  # binary input: a user's mistake, not a bug
            raise RecordError(f"standard input: not a text record (invalid text at byte {exc.start})") from None
    else:
        record = load_record(args.record)
    total = record.moves
    upto = total if args.move is None else args.move
    if not 0 <= upto <= total:
        raise CliError(f"--move must be in 0..{total} (the record has {plural(total, 'move')}), got {upto}")
    state = record.replay(len(record.events) if upto == total else record.events_through_move(upto))
    match = state if isinstance(state, Match) else None
    game = board_of(state)
    written = None
    if args.svg:  # before printing, so that `| head` cannot stop it
        written = write_text_atomic(args.svg, render_svg(game, match=match))
    out = message_stream(args.svg)
    komi_known = match is None or match.game is not None or not match.config.game_type_rule.has_komi
    setup = [str(e) for e in record.events if e.is_setup]
    print(f"{args.record}: {describe(game.config, komi_known)}; {plural(total, 'move')}"
          + (f"; set-up: {', '.join(setup)}" if setup else ""), file=out)
    if record.first is not None:
        other = "white" if record.first == "black" else "black"
        print(f"first player: {record.first}, second player: {other}", file=out)
    if upto != total:
        print(f"position after move {upto} of {total}", file=out)
    print(render_ascii(game, match=match, layout=args.board), end="", file=out)
    if written is not None:
        print(f"picture written to {written}", file=out)
    return 0
