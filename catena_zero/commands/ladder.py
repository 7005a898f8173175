"""``catena-zero ladder RUN_DIR``: rate a run's kept checkpoints against each other and the baselines."""

from __future__ import annotations

import argparse
import os
import sys

from .common import (MATCH_THREADS_HELP, add_threads_flag, check_distinct_files, check_folder_writable, check_minimums,
                     device_name, set_threads)

HELP = "play a run's checkpoints and the baselines against each other and fit Elo ratings (re-running adds games)"


def configure(parser: argparse.ArgumentParser) -> None:
    from ..eval.ladder import DEFAULT_BASELINES, DEFAULT_GAMES, MODES

    parser.add_argument("run_dir", metavar="RUN_DIR", help="a run folder, checkpoints/<run>/")
    parser.add_argument("--games", type=int, default=DEFAULT_GAMES, metavar="N",
                        help=f"games per pair in this run, added to earlier ones (default {DEFAULT_GAMES})")
    parser.add_argument("--mode", choices=MODES, default="gauntlet",
                        help="gauntlet: each checkpoint against the baselines and the previous checkpoint; "
                             "round-robin: every pair (default gauntlet)")
    parser.add_argument("--sims", type=int, metavar="S", help="simulations per move of the checkpoints "
                        "(default: the results file's, else the run's config)")
    parser.add_argument("--baselines", default=",".join(DEFAULT_BASELINES), metavar="LIST",
                        help=f"comma-separated baselines, random always included (default {','.join(DEFAULT_BASELINES)})")
    parser.add_argument("--checkpoints", type=int, metavar="N",
                        help="play only N of the kept checkpoints, evenly spread over training time, the first "
                             "and newest included (default: all)")
    parser.add_argument("--book", metavar="N|FILE",
                        help="every match over N openings of the rule set's book (or a book FILE), each twice "
                             "with colours swapped, at the book's komi: one komi for the whole ladder; --games "
                             "is then the games per pair and run (even), taken from the book's next openings")
    parser.add_argument("--komi", type=int, metavar="K", help="komi of every match (default: the book's, else "
                        "the fair komi of the rule set's shipped bot)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the matches (default 0)")
    add_threads_flag(parser, MATCH_THREADS_HELP)
    parser.add_argument("--device", type=device_name, help="network device: cpu, cuda, cuda:i (default: the checkpoints', auto)")
    parser.add_argument("--no-play", action="store_true", help="play nothing: refit and rewrite the outputs")


def check_ladder_outputs(args: argparse.Namespace, baselines: list[str]) -> None:
    """Before any match: the files the ladder rewrites in RUN_DIR/ladder/ (and its TensorBoard
    folder) are none of its inputs (a book FILE, bot-file baselines), and can be written; a
    ladder's games are otherwise lost to a read-only folder found after them."""
    from ..artifacts.layout import TENSORBOARD_DIR
    from ..eval.ladder import LADDER_DIR, RESULTS_FILE

    if not os.path.isdir(args.run_dir):
        return  # run_ladder says there is no such run folder
    folder = os.path.join(args.run_dir, LADDER_DIR)
    outputs = {f"the ladder's {name}": os.path.join(folder, name)
               for name in (RESULTS_FILE, "ratings.csv", "ratings.md", "ratings.png")}
    inputs = {f"the baseline {b}": b for b in baselines if os.path.exists(b)}
    if args.book is not None and not args.book.strip().isdigit():
        inputs["--book"] = args.book
    check_distinct_files(inputs, outputs)
    check_folder_writable(folder)
    check_folder_writable(os.path.join(args.run_dir, TENSORBOARD_DIR, LADDER_DIR))
    for path in outputs.values():
        if os.path.exists(path) and not os.access(path, os.W_OK):
            raise OSError(f"cannot write {path}: Permission denied")


def run(args: argparse.Namespace) -> int:
    from ..eval.ladder import run_ladder

    check_minimums(args, sims=1, checkpoints=2, threads=1)
    set_threads(args.threads)
    baselines = [b.strip() for b in args.baselines.split(",") if b.strip()]
    check_ladder_outputs(args, baselines)
    report = run_ladder(args.run_dir, games=args.games, mode=args.mode, simulations=args.sims, baselines=baselines,
                        seed=args.seed, device=args.device, play=not args.no_play, max_checkpoints=args.checkpoints,
                        book=args.book, komi=args.komi,
                        log=lambda line: print(line, file=sys.stdout, flush=True))
    fit = report.fit
    for player in sorted(report.players, key=lambda p: -fit.rating(p.id)):
        i = fit.index(player.id)
        error = "anchor" if player.id == fit.anchor else f"+- {1.96 * fit.stderr[i]:.0f}"
        print(f"{player.id:>16}  Elo {fit.elo[i]:7.0f} {error:>8}  ({int(fit.games[i])} games)", file=sys.stdout)
    total = sum(m.games for m in report.results.matches)
    print(f"ladder: {len(report.played)} matches played now, {total} games in all; "
          f"wrote {', '.join(str(p) for p in report.files)}", file=sys.stdout)
    return 0
