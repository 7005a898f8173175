"""``catena-zero ablate PLAN``: train each variant of a plan with several seeds for the same CPU time,
then measure each final network against a fixed opponent and its seed's baseline over the book, and
decide each row (eval/ablation.py)."""

from __future__ import annotations

import argparse
import math
import os
import sys
from pathlib import Path

from .common import (CliError, add_threads_flag, check_distinct_files, check_minimums, check_outputs,
                     set_threads)

HELP = "train variants of a config with several seeds for the same CPU time and decide which is stronger (docs/RESULTS.md)"


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("plan", metavar="PLAN", help="an ablation plan (YAML, see configs/ablations/)")
    parser.add_argument("--cpu-minutes", type=float, metavar="M",
                        help="CPU-minutes per run, all its processes together (default: the plan's bound)")
    parser.add_argument("--minutes", type=float, metavar="M",
                        help="wall-clock minutes per run instead (fair only alone on the machine)")
    parser.add_argument("--seeds", type=int, metavar="N", help="runs per variant (default: the plan's; 3 or more "
                        "for a decision)")
    parser.add_argument("--only", metavar="LIST", help="comma-separated variants to run (the baseline always is)")
    parser.add_argument("--book", type=int, metavar="N", help="book openings per match, each twice (default: the plan's)")
    parser.add_argument("--results", default="docs/RESULTS.md", metavar="FILE",
                        help="Markdown file whose section for this plan gets the table (default docs/RESULTS.md; "
                             "'-' writes none)")
    parser.add_argument("--no-train", action="store_true",
                        help="train nothing: measure the runs that reached their bound (with their seed's baseline)")
    add_threads_flag(parser, "CPU threads of network inference in the matches (default 1)")
    parser.add_argument("--jobs", type=int, default=1, metavar="J",
                        help="matches played at once, each in its own process (default 1; one per core "
                             "divided by --threads; the table does not depend on it)")


def check_results_file(args: argparse.Namespace, plan, name: str, root: str) -> None:
    """Before any training: --results is not the plan, its config, a file of the plan's runs (under
    ``root``, ``ablate-<plan>-...``: their folders, the results and the played matches), nor inside
    any run folder; it can be written; and an existing one is text (its other sections are kept)."""
    from ..eval.ablation import played_path

    if args.results == "-":
        return
    kept = {"the plan's results": os.path.join(root, f"ablate-{name}.json"),
            "the plan's played matches": str(played_path(root, name))}
    inputs = {"the plan": args.plan, "the plan's config": plan.config, **kept}
    check_distinct_files(inputs, {"--results": args.results})
    real_root, real = os.path.realpath(root), os.path.realpath(args.results)
    if real != real_root and os.path.commonpath([real_root, real]) == real_root:
        first = os.path.relpath(real, real_root).split(os.sep)[0]
        if first.startswith(f"ablate-{name}-"):
            raise CliError(f"--results {args.results} lies among the plan's runs ({os.path.join(root, first)}): "
                           "writing there could destroy them; choose a file outside them")
    check_outputs(inputs, {"--results": args.results})
    if os.path.isfile(args.results):
        try:
            with open(args.results, "rb") as f:
                f.read().decode("utf-8")
        except OSError as exc:
            raise OSError(f"cannot read {args.results}: {exc.strerror}") from None
        except UnicodeDecodeError as exc:
            raise CliError(f"--results {args.results} is not a text file (invalid UTF-8 at byte {exc.start}); "
                           "its section goes into a Markdown file") from None


def run(args: argparse.Namespace) -> int:
    import dataclasses

    from ..config import load_config
    from ..eval.ablation import load_plan, played_path, train_variants
    from ..eval.ablation_decision import measure_variants
    from ..eval.reports import markdown_section, save_ablation, table_lines, write_section
    from ..train.driver import learner_threads

    for flag, value in (("--minutes", args.minutes), ("--cpu-minutes", args.cpu_minutes)):
        if value is not None and not (value > 0 and math.isfinite(value)):
            raise CliError(f"{flag} must be a positive number, got {value}")
    if args.minutes is not None and args.cpu_minutes is not None:
        raise CliError("--minutes and --cpu-minutes exclude each other: a run has one bound")
    check_minimums(args, seeds=1, book=1, threads=1, jobs=1)
    plan = load_plan(args.plan)
    if args.cpu_minutes is not None:
        plan = dataclasses.replace(plan, cpu_minutes=args.cpu_minutes, minutes=None)
    if args.minutes is not None:
        plan = dataclasses.replace(plan, minutes=args.minutes, cpu_minutes=None)
    if args.seeds is not None:
        plan = dataclasses.replace(plan, seeds=args.seeds)
    if args.book is not None:
        plan = dataclasses.replace(plan, evaluation=dataclasses.replace(plan.evaluation, book=args.book))
    name = Path(args.plan).stem
    only = [v.strip() for v in args.only.split(",") if v.strip()] if args.only else None
    log = lambda line: print(line, file=sys.stdout, flush=True)  # noqa: E731
    check_results_file(args, plan, name, load_config(plan.config).run.root)  # not after hours of training
    set_threads(learner_threads(load_config(plan.config)))  # training first: this process runs the learner
    trained = train_variants(plan, name, only=only, log=log, train=not args.no_train)
    if not trained:
        raise CliError(f"no run of {args.plan} has reached its bound yet: nothing to measure")
    set_threads(args.threads)  # then the matches
    root = load_config(plan.config).run.root
    results = measure_variants(plan, trained, log=log, jobs=args.jobs, threads=args.threads,
                               played=played_path(root, name))
    for line in table_lines(plan, results):
        print(line, file=sys.stdout)
    saved = save_ablation(root, name, results)
    print(f"results: {saved}", file=sys.stdout)
    if args.results != "-":
        command = " ".join(["catena-zero ablate", args.plan]
                           + ([f"--cpu-minutes {args.cpu_minutes:g}"] if args.cpu_minutes else [])
                           + ([f"--minutes {args.minutes:g}"] if args.minutes else [])
                           + ([f"--seeds {args.seeds}"] if args.seeds else [])
                           + ([f"--only {args.only}"] if args.only else [])
                           + ([f"--book {args.book}"] if args.book else []))
        path = write_section(args.results, name, markdown_section(plan, name, command, results))
        print(f"table written to {path}", file=sys.stdout)
    return 0
