"""``catena-zero train``: AlphaZero-style training from a YAML config (``train/driver.py``)."""

from __future__ import annotations

import argparse
import os
import shlex
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Optional, TextIO

from ..artifacts.layout import TENSORBOARD_DIR
from ..config import Config, load_config, parse_overrides
from .common import CliError, check_folder_writable, program_words, run_folder_of, set_threads, tensorboard_words

if TYPE_CHECKING:
    from ..train.driver import RunSummary

PROG = "catena-zero"

CURVE_POINTS = 3  # fewer in-loop evaluations in a session: the end says how to draw the curve afterwards

HELP = "train a network by self-play (local embedded Ray, or a cluster with --address)"


def configure(train: argparse.ArgumentParser) -> None:
    train.add_argument("--config", required=True, metavar="FILE", help="YAML configuration, e.g. configs/quick.yaml")
    train.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                       help="override a config key, e.g. --set run.max_minutes=5 (repeatable)")
    train.add_argument("--run-name", metavar="NAME", help="run folder under run.root (default: the config's name)")
    train.add_argument("--resume", action="store_true", help="continue the run in its folder from its newest checkpoint")
    train.add_argument("--address", metavar="auto|HOST:PORT", help="join this Ray cluster instead of a local Ray")
    train.add_argument("--seed", type=int, metavar="N", help="root seed of the run (default: the config's seed)")


def check_run_folder(args: argparse.Namespace, config) -> None:
    """Before Ray starts: --run-name is a plain folder name without hidden characters, the run
    folder does not lie inside the run ``train.init_from`` reads, and it can be created."""
    from ..config.sections import hidden_character

    if args.run_name is not None:
        hidden = hidden_character(args.run_name)
        if hidden is not None:
            raise CliError(f"--run-name must not contain control or formatting characters (it names a folder), "
                           f"got {hidden}")
    name = args.run_name or config.run.name or Path(args.config).stem
    if "/" in name or name in ("", ".", ".."):
        return  # the driver's one line: a plain folder name
    run_dir = os.path.join(config.run.root, name)
    source = config.train.init_from
    if source and not args.resume and os.path.exists(source):
        folder = run_folder_of(source)
        real = os.path.realpath(run_dir)
        if folder is not None and real != folder and real.startswith(folder.rstrip(os.sep) + os.sep):
            raise CliError(f"the run folder {run_dir} lies inside the run train.init_from reads ({folder}): "
                           "writing there could destroy it; choose another run.root or --run-name")
    check_folder_writable(run_dir)


def resume_command(args: argparse.Namespace, run_name: str, extend: Optional[str] = None) -> str:
    """The command that continues the run, quoted for a POSIX shell and runnable from here (the
    program as it was started: ``common.program_words``): the same config file and the same
    ``--set``, ``--seed`` and ``--address`` that made the run's config (a resume refuses a config
    that differs from the run's other than in its bounds), its name, ``--resume``; ``extend``
    (``KEY=VALUE``) raises the bound it reached: it replaces that key's ``--set`` (one value per
    key, as a person would write it) and comes last."""
    extended_key = None if extend is None else extend.split("=", 1)[0]
    words = [*program_words(), "train", "--config", args.config]
    for item in args.set:
        if item.split("=", 1)[0].strip() != extended_key:
            words += ["--set", item]
    if args.seed is not None:
        words += ["--seed", str(args.seed)]
    if args.address is not None:
        words += ["--address", args.address]
    words += ["--run-name", run_name, "--resume"]
    if extend is not None:
        words += ["--set", extend]
    return " ".join(shlex.quote(word) for word in words)


def run(args: argparse.Namespace) -> int:
    from ..eval.inloop import evaluate_in_loop
    from ..selfplay.workers import RAY_LOST_STATUS
    from ..train.driver import NothingToDo, learner_threads, train

    config = _config(args)
    check_run_folder(args, config)  # before Ray starts
    set_threads(learner_threads(config))  # this process runs the learner: its threads to set
    try:
        summary = train(config, Path(args.config).stem, args.run_name, args.resume, evaluate=evaluate_in_loop)
    except NothingToDo as done:  # nothing started, nothing written
        if done.bound is None:  # a staged run after its last stage: its recipe's end, unless done already
            return _recipe_end(args, done.run_dir, f"nothing to train: {done}")
        print(f"nothing to do: {done}; extend it with: "
              f"{resume_command(args, done.run_dir.name, done.bound.extended())}", file=sys.stdout)
        return 0
    resume = resume_command(args, summary.run_dir.name)
    if summary.stop_reason.startswith("interrupted"):
        where = summary.checkpoint or "no checkpoint yet"
        print(f"{PROG}: interrupted at step {summary.step}: checkpoint {where}; continue with: {resume}",
              file=sys.stderr)
        return 130
    if summary.stop_reason.startswith("lost: "):
        where = summary.checkpoint or "no checkpoint yet"
        print(f"{PROG}: error: {summary.stop_reason[len('lost: '):]}: checkpoint {where} at step {summary.step}; "
              f"continue with: {resume}", file=sys.stderr)
        return RAY_LOST_STATUS
    _report(config, summary, sys.stdout)
    if summary.stages_done:
        return _recipe_end(args, summary.run_dir, "")
    if summary.bound is not None and summary.stage is None:  # a resume as it stands would have nothing to do
        print(f"extend it with: {resume_command(args, summary.run_dir.name, summary.bound.extended())}",
              file=sys.stdout)
    else:
        print(f"continue with: {resume}", file=sys.stdout)
    return 0


def _config(args: argparse.Namespace) -> Config:
    """The run's config: --config with --set, --address and --seed over it."""
    overrides = parse_overrides(args.set)
    if args.address is not None:
        overrides.setdefault("run", {})["address"] = args.address
    if args.seed is not None:
        if args.seed < 0:
            raise CliError(f"--seed must be a non-negative integer, got {args.seed}")
        overrides["seed"] = args.seed
    return load_config(args.config, overrides)


def _report(config: Config, summary: "RunSummary", out: TextIO) -> None:
    """What a session that ended (a bound, a stage, the recipe's last) did and where it left things."""
    if summary.stage is not None:
        print(f"stage {summary.stage.label()}: {summary.stop_reason}"
              + ("; that was the last stage" if summary.stages_done else ""), file=out)
    print(f"run {summary.stop_reason}: {summary.step} steps, {summary.positions:,} positions, "
          f"{summary.games:,} games in {summary.minutes:.1f} min, self-play on {summary.actor_nodes} Ray node(s)"
          + (f"; {summary.actor_restarts} self-play actor restart(s)" if summary.actor_restarts else ""), file=out)
    if summary.cpu is not None:
        print(summary.cpu.describe(), file=out)
    if summary.stage is not None:
        print(f"CPU-hours of the whole run, every stage: {summary.cpu_hours:.2f}", file=out)
    if summary.evaluations_skipped:
        print(f"in-loop evaluations skipped to keep them within eval.max_cpu_share: "
              f"{summary.evaluations_skipped}", file=out)
    if config.eval.games and summary.evaluations < CURVE_POINTS:
        # A busy machine (or a short session) leaves the in-loop curve a point or two: the kept
        # checkpoints draw it afterwards, at whatever CPU the user can spare then.
        run = shlex.quote(str(summary.run_dir))
        print(f"learning curve: {summary.evaluations} in-loop evaluation(s) this session; draw it from the kept "
              f"checkpoints with: {PROG} ladder {run} --checkpoints 6 --games 10 && "
              f"{PROG} curves {run} --out {shlex.quote(summary.run_dir.name + '-curve.png')}", file=out)
    print(f"run folder: {summary.run_dir}", file=out)
    if summary.checkpoint is not None:
        print(f"newest checkpoint: {summary.checkpoint}", file=out)
    if summary.last_eval is not None:
        print(f"last evaluation (step {summary.last_eval.step}): {summary.last_eval.describe()}", file=out)
    logdir = summary.run_dir / TENSORBOARD_DIR
    print(f"TensorBoard: {' '.join(shlex.quote(w) for w in [*tensorboard_words(), '--logdir', str(logdir)])}",
          file=out)


def _recipe_end(args: argparse.Namespace, run_dir: Path, said: str) -> int:
    """After a staged run's last stage: its recipe's end (``eval/recipe.py``) when the config declares
    one and the run folder has no result yet; else what there is to say."""
    from ..artifacts.layout import CONFIG_FILE, RECIPE_RESULT
    from ..eval.recipe import finish_recipe

    recipe = load_config(run_dir / CONFIG_FILE)  # prepare_run wrote it, with this command's finish section
    if said:
        print(said, file=sys.stdout)
    if not recipe.finish.declared():
        print(f"the recipe declares no end (finish:); ship the run with: {PROG} ship {run_dir} NAME "
              f"--trained TEXT --strength TEXT", file=sys.stdout)
        return 0
    if (run_dir / RECIPE_RESULT).exists():
        print(f"the recipe has ended: {run_dir / RECIPE_RESULT}; ship it with: {PROG} ship {run_dir} NAME",
              file=sys.stdout)
        return 0
    print(f"the recipe's end: the bot, its fair komi, its book, its panel ({', '.join(recipe.finish.panel) or 'none'}) ...",
          file=sys.stdout, flush=True)
    set_threads(1)  # the matches play one game's moves at a time per process: one thread is fastest
    finish_recipe(recipe, args.config, run_dir)
    return 0
