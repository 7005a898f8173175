"""``catena-zero book``: write the opening book of a rule set (eval/book.py), balanced by a
reference network, for ``evaluate --book FILE``, ``ladder --book`` and ``ablate``."""

from __future__ import annotations

import argparse

from .common import CliError, add_game_options, check_minimums, check_outputs

HELP = "write a balanced opening book for matches (evaluate/ladder --book FILE)"


def configure(parser: argparse.ArgumentParser) -> None:
    from ..eval.book import DEFAULT_BOOK_PLIES, DEFAULT_MAX_VALUE

    add_game_options(parser, komi_help="the komi the openings are balanced at, and a match over the book "
                                       "plays at (default: the reference network's fair komi)")
    parser.set_defaults(seed=None)  # --seed: another book than the fixed seed's (the shipped books use 0)
    parser.add_argument("--openings", type=int, default=150, metavar="N", help="openings in the book (default 150)")
    parser.add_argument("--plies", type=int, default=DEFAULT_BOOK_PLIES, metavar="P",
                        help=f"plies of an opening (default {DEFAULT_BOOK_PLIES}; longer where the balanced ones "
                             "run short)")
    parser.add_argument("--max-value", type=float, default=DEFAULT_MAX_VALUE, metavar="V",
                        help=f"keep openings whose value for Black is within V of even (default {DEFAULT_MAX_VALUE})")
    parser.add_argument("--reference", metavar="FILE",
                        help="the network that judges the openings: a bot file or checkpoint (default: the "
                             "rule set's shipped bot; without one the book is not balanced)")
    parser.add_argument("--out", required=True, metavar="FILE", help="the book file to write ('-': standard output)")


def run(args: argparse.Namespace) -> int:
    from ..eval.book import BOOK_SEED, reference_book, save_book
    from .common import message_stream, resolve_config

    check_minimums(args, openings=1, plies=1)
    if not 0 < args.max_value <= 1:
        raise CliError(f"--max-value must be in (0, 1], got {args.max_value}")
    check_outputs({"the config": args.config, "--reference": args.reference}, {"--out": args.out})
    game = resolve_config(args).game  # CliError for a negative --seed
    seed = BOOK_SEED if args.seed is None else args.seed  # the fixed seed unless another book is asked for
    book = reference_book(game, args.openings, args.komi, plies=args.plies, max_value=args.max_value,
                          reference=args.reference, seed=seed)
    save_book(args.out, book)
    print(f"book: {book.describe()}; written to {args.out}", file=message_stream(args.out))
    return 0
