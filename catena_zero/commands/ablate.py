"""``catena-zero ablate PLAN``: train each variant of a plan for the same minutes, then measure each
final network against a fixed opponent and the baseline variant (eval/ablation.py)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .common import CliError, check_minimums
from .evaluate import set_threads

HELP = "train variants of a config for the same minutes and compare their strength (a table for docs/RESULTS.md)"


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("plan", metavar="PLAN", help="an ablation plan (YAML, see configs/ablations/)")
    parser.add_argument("--minutes", type=float, metavar="M", help="training minutes per variant (default: the plan's)")
    parser.add_argument("--only", metavar="LIST", help="comma-separated variants to run (the baseline always is)")
    parser.add_argument("--games", type=int, metavar="N", help="games per match (default: the plan's)")
    parser.add_argument("--results", default="docs/RESULTS.md", metavar="FILE",
                        help="Markdown file whose section for this plan gets the table (default docs/RESULTS.md; "
                             "'-' writes none)")
    parser.add_argument("--threads", type=int, default=1, metavar="T",
                        help="CPU threads of network inference in the matches (default 1)")
    parser.add_argument("--jobs", type=int, default=1, metavar="J",
                        help="matches played at once, each in its own process (default 1; one per core "
                             "divided by --threads; the table does not depend on it)")


def run(args: argparse.Namespace) -> int:
    import dataclasses

    from ..config import load_config
    from ..eval.ablation import (load_plan, markdown_section, measure_variants, played_path, save_results,
                                 table_lines, train_variants, write_section)
    from ..train.driver import learner_threads

    if args.minutes is not None and not args.minutes > 0:
        raise CliError(f"--minutes must be a positive number, got {args.minutes}")
    check_minimums(args, games=1, threads=1, jobs=1)
    plan = load_plan(args.plan)
    if args.games is not None:
        evaluation = dataclasses.replace(plan.evaluation, games=args.games,
                                         baseline_games=min(plan.evaluation.baseline_games, args.games)
                                         if plan.evaluation.baseline_games else 0)
        plan = dataclasses.replace(plan, evaluation=evaluation)
    name = Path(args.plan).stem
    only = [v.strip() for v in args.only.split(",") if v.strip()] if args.only else None
    log = lambda line: print(line, file=sys.stdout, flush=True)  # noqa: E731
    set_threads(learner_threads(load_config(plan.config)))  # training first: this process runs the learner
    trained = train_variants(plan, name, minutes=args.minutes, only=only, log=log)
    set_threads(args.threads)  # then the matches
    root = load_config(plan.config).run.root
    results = measure_variants(plan, trained, log=log, jobs=args.jobs, threads=args.threads,
                               played=played_path(root, name))
    for line in table_lines(plan, results):
        print(line, file=sys.stdout)
    saved = save_results(root, name, results)
    print(f"results: {saved}", file=sys.stdout)
    if args.results != "-":
        command = " ".join(["catena-zero ablate", args.plan]
                           + ([f"--minutes {args.minutes:g}"] if args.minutes else [])
                           + ([f"--only {args.only}"] if args.only else [])
                           + ([f"--games {args.games}"] if args.games else []))
        path = write_section(args.results, name, markdown_section(plan, name, command, results))
        print(f"table written to {path}", file=sys.stdout)
    return 0
