"""``catena-zero curves RUN_DIR...``: several runs' learning curves on one chart, by CPU-hours."""

from __future__ import annotations

import argparse

from .common import check_outputs

HELP = "plot several runs' ladder ratings against CPU-hours on one chart (rate each run with ladder first)"


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("run_dirs", nargs="+", metavar="RUN_DIR", help="run folders, each rated by catena-zero ladder")
    parser.add_argument("--out", required=True, metavar="FILE", help="the chart to write (PNG)")
    parser.add_argument("--title", default="", help="the chart's title (default: what it shows)")
    parser.add_argument("--relative-to", metavar="PLAYER", default="random",
                        help="the panel member whose rating in each run's fit is 0 (default random, the anchor; "
                             "a member every checkpoint played closely, e.g. mcts:200, aligns the fits better)")


def run(args: argparse.Namespace) -> int:
    from ..eval.curves import curves_table, plot_curves, read_curve, relative_to

    check_outputs({f"RUN_DIR {d}": d for d in args.run_dirs}, {"--out": args.out})
    curves = [relative_to(read_curve(d), args.relative_to) for d in args.run_dirs]
    print(curves_table(curves), end="")
    path = plot_curves(args.out, curves, args.title, zero=args.relative_to)
    print(f"wrote {path}")
    return 0
