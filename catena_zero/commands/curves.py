"""``catena-zero curves RUN_DIR...``: several runs' learning curves on one chart, by CPU-hours."""

from __future__ import annotations

import argparse

from .common import check_outputs

HELP = "plot several runs' ladder ratings against CPU-hours on one chart (rate each run with ladder first)"


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("run_dirs", nargs="+", metavar="RUN_DIR", help="run folders, each rated by catena-zero ladder")
    parser.add_argument("--out", required=True, metavar="FILE", help="the chart to write (PNG)")
    parser.add_argument("--title", default="", help="the chart's title (default: what it shows)")


def run(args: argparse.Namespace) -> int:
    from ..eval.curves import curves_table, plot_curves, read_curve

    check_outputs({f"RUN_DIR {d}": d for d in args.run_dirs}, {"--out": args.out})
    curves = [read_curve(d) for d in args.run_dirs]
    print(curves_table(curves), end="")
    path = plot_curves(args.out, curves, args.title)
    print(f"wrote {path}")
    return 0
