"""``catena-zero train``: AlphaZero-style training from a YAML config (``train/driver.py``)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..config import load_config, parse_overrides
from .common import CliError

PROG = "catena-zero"

HELP = "train a network by self-play (local embedded Ray, or a cluster with --address)"


def configure(train: argparse.ArgumentParser) -> None:
    train.add_argument("--config", required=True, metavar="FILE", help="YAML configuration, e.g. configs/quick.yaml")
    train.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                       help="override a config key, e.g. --set run.max_minutes=5 (repeatable)")
    train.add_argument("--run-name", metavar="NAME", help="run folder under run.root (default: the config's name)")
    train.add_argument("--resume", action="store_true", help="continue the run in its folder from its newest checkpoint")
    train.add_argument("--address", metavar="auto|HOST:PORT", help="join this Ray cluster instead of a local Ray")
    train.add_argument("--seed", type=int, metavar="N", help="root seed of the run (default: the config's seed)")


def run(args: argparse.Namespace) -> int:
    import torch

    from ..eval.inloop import evaluate_in_loop
    from ..train.driver import learner_threads, train

    overrides = parse_overrides(args.set)
    if args.address is not None:
        overrides.setdefault("run", {})["address"] = args.address
    if args.seed is not None:
        if args.seed < 0:
            raise CliError(f"--seed must be a non-negative integer, got {args.seed}")
        overrides["seed"] = args.seed
    config = load_config(args.config, overrides)
    torch.set_num_threads(learner_threads(config))  # this process runs the learner: its threads to set
    summary = train(config, Path(args.config).stem, args.run_name, args.resume, evaluate=evaluate_in_loop)
    out = sys.stdout
    resume = f"catena-zero train --config {args.config} --run-name {summary.run_dir.name} --resume"
    if summary.stop_reason.startswith("interrupted"):
        where = summary.checkpoint or "no checkpoint yet"
        print(f"{PROG}: interrupted at step {summary.step}: checkpoint {where}; continue with: {resume}",
              file=sys.stderr)
        return 130
    print(f"run {summary.stop_reason}: {summary.step} steps, {summary.positions:,} positions, "
          f"{summary.games:,} games in {summary.minutes:.1f} min, self-play on {summary.actor_nodes} Ray node(s)"
          + (f"; {summary.actor_restarts} self-play actor restart(s)" if summary.actor_restarts else ""), file=out)
    if summary.cpu is not None:
        print(summary.cpu.describe(), file=out)
    if summary.evaluations_skipped:
        print(f"in-loop evaluations skipped to keep them within eval.max_cpu_share: "
              f"{summary.evaluations_skipped}", file=out)
    print(f"run folder: {summary.run_dir}", file=out)
    if summary.checkpoint is not None:
        print(f"newest checkpoint: {summary.checkpoint}", file=out)
    if summary.last_eval is not None:
        print(f"last evaluation (step {summary.last_eval.step}): {summary.last_eval.describe()}", file=out)
    print(f"TensorBoard: tensorboard --logdir {summary.run_dir / 'tensorboard'}", file=out)
    print(f"continue with: {resume}", file=out)
    return 0
