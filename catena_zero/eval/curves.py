"""Learning curves of several runs on one chart: Elo against CPU-hours, from each run's ladder.

``catena-zero ladder RUN`` rates one run's checkpoints against a fixed panel of baselines (random,
greedy, ``mcts:K``, bot files) and writes ``RUN/ladder/ratings.csv``. This module reads those files
for several runs and puts them side by side, with the CPU that made each checkpoint on the x axis
(its run's CPU time plus the CPU of the network the run started from where known:
``artifacts/provenance.py``; a bot file keeps no counters, so its CPU is left out),
so that a curriculum's earlier stage counts and runs compare at equal CPU, as the issue of the
standard board asks (scratch against a side-4 curriculum; one network against several).

Each ladder is its own Bradley-Terry fit anchored at random = 0; the panel's baselines are the
same players in each, so the scales agree up to the panel's own error, which the table shows (each
run's rating of each baseline); ``relative_to`` puts every curve on one panel member's rating
instead of the anchor's. Compare runs by where their curves sit against the panel, and
settle a difference between two final networks by a head-to-head test (``evaluate --sprt``).
"""

from __future__ import annotations

import csv
import io
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

import numpy as np

from ..fileio import read_input, write_bytes_atomic
from .ladder_file import LADDER_DIR, LadderError
from .ratings import Z95

RATINGS_FILE = "ratings.csv"
MAX_RATINGS_BYTES = 1 << 20
_COLUMNS = ("player", "kind", "step", "cpu_hours", "elo", "elo_stderr")


@dataclass(frozen=True)
class CurvePoint:
    """One rated checkpoint of a run."""

    step: int
    cpu_hours: float  # the run's CPU time and its starting network's
    elo: float  # Bradley-Terry, random = 0
    elo_stderr: float


@dataclass(frozen=True)
class Curve:
    """A run's ladder: its checkpoints by CPU-hours and the panel's ratings in the same fit."""

    run: str  # the run folder's name
    points: tuple[CurvePoint, ...]  # by CPU-hours
    baselines: tuple[tuple[str, float], ...]  # (player, Elo) of each baseline


def _number(text: str, what: str, where: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise LadderError(f"{where}: {what} {text!r} is not a number") from None
    if not math.isfinite(value):
        raise LadderError(f"{where}: {what} {text!r} is not finite")
    return value


def read_curve(run_dir: str | Path) -> Curve:
    """The curve of ``run_dir`` from its ``ladder/ratings.csv``; ``LadderError`` names what is missing."""
    run_dir = Path(run_dir)
    path = run_dir / LADDER_DIR / RATINGS_FILE
    if not run_dir.is_dir():
        raise LadderError(f"no such run folder: {run_dir}")
    if not path.exists():
        raise LadderError(f"{run_dir} has no ladder yet ({path}): rate it first with catena-zero ladder {run_dir}")
    try:
        text = read_input(path, "ladder ratings file", MAX_RATINGS_BYTES, LadderError).decode("utf-8")
    except UnicodeDecodeError:
        raise LadderError(f"{path} is not a text file") from None
    reader = csv.DictReader(io.StringIO(text))
    missing = [c for c in _COLUMNS if c not in (reader.fieldnames or ())]
    if missing:
        hint = (f"; rewrite it with catena-zero ladder {run_dir} --no-play" if missing == ["cpu_hours"] else "")
        raise LadderError(f"{path} has no column {', '.join(missing)}{hint}")
    points, baselines = [], []
    for number, row in enumerate(reader, start=2):
        where = f"{path} line {number}"
        if row["kind"] == "baseline":
            baselines.append((row["player"], _number(row["elo"], "elo", where)))
        elif row["kind"] == "checkpoint":
            if row["cpu_hours"] in ("", None):
                raise LadderError(f"{where}: checkpoint {row['player']} has no CPU-hours (its run predates CPU "
                                  f"counting): no curve by CPU")
            points.append(CurvePoint(step=int(_number(row["step"], "step", where)),
                                     cpu_hours=_number(row["cpu_hours"], "cpu_hours", where),
                                     elo=_number(row["elo"], "elo", where),
                                     elo_stderr=_number(row["elo_stderr"], "elo_stderr", where)))
        else:
            raise LadderError(f"{where}: unknown kind {row['kind']!r}")
    if not points:
        raise LadderError(f"{path} rates no checkpoint")
    return Curve(run=run_dir.name, points=tuple(sorted(points, key=lambda p: p.cpu_hours)), baselines=tuple(baselines))


def relative_to(curve: Curve, player: str) -> Curve:
    """``curve`` with every rating minus its fit's rating of the panel member ``player``: each ladder
    is its own fit, and where the anchor (random) loses every game its offset is loose, so runs
    compare best against a panel member both played closely. ``LadderError`` if it is not in the panel."""
    elo = dict(curve.baselines)
    if player not in elo:
        raise LadderError(f"{curve.run}'s ladder has no panel member {player!r} (it has: {', '.join(elo)})")
    shift = elo[player]
    return Curve(run=curve.run, points=tuple(CurvePoint(p.step, p.cpu_hours, p.elo - shift, p.elo_stderr)
                                             for p in curve.points),
                 baselines=tuple((name, value - shift) for name, value in curve.baselines))


def curves_table(curves: Sequence[Curve]) -> str:
    """Markdown: every run's points (CPU-hours, step, Elo and 95% interval), then the panel's ratings
    in each run's fit (how far the scales agree)."""
    lines = ["| run | step | CPU-hours | Elo | 95% interval |", "| --- | ---: | ---: | ---: | --- |"]
    for c in curves:
        for p in c.points:
            low, high = p.elo - Z95 * p.elo_stderr, p.elo + Z95 * p.elo_stderr
            lines.append(f"| {c.run} | {p.step} | {p.cpu_hours:.2f} | {p.elo:.0f} | [{low:.0f}, {high:.0f}] |")
    names = list(dict.fromkeys(name for c in curves for name, _ in c.baselines))
    lines += ["", "| panel | " + " | ".join(c.run for c in curves) + " |", "| --- |" + " ---: |" * len(curves)]
    for name in names:
        cells = [next((f"{elo:.0f}" for n, elo in c.baselines if n == name), "-") for c in curves]
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def plot_curves(path: str | Path, curves: Sequence[Curve], title: str = "", zero: str = "random") -> Path:
    """One line per run (Elo against CPU-hours, 95% error bars); the panel as horizontal lines at
    its mean rating over the runs' fits. Written atomically (PNG)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, 4.8))
    for c in curves:
        x = np.array([p.cpu_hours for p in c.points])
        y = np.array([p.elo for p in c.points])
        err = np.array([p.elo_stderr for p in c.points]) * Z95
        ax.errorbar(x, y, yerr=err, fmt="o-", capsize=3, label=c.run)
    names = list(dict.fromkeys(name for c in curves for name, _ in c.baselines))
    for name in names:
        elos = [elo for c in curves for n, elo in c.baselines if n == name]
        ax.axhline(float(np.mean(elos)), color="grey", linestyle="--", linewidth=1)
        ax.annotate(name, xy=(0, float(np.mean(elos))), xycoords=("axes fraction", "data"), fontsize=8,
                    color="grey", va="bottom")
    ax.set_xlabel("CPU-hours (the starting network's included where known)")
    ax.set_ylabel(f"Elo ({zero} = 0)")
    ax.grid(True, alpha=0.3)
    ax.legend(loc="best", fontsize=8)
    ax.set_title(title or "Learning curves: Bradley-Terry Elo against the fixed panel, 95% intervals")
    fig.tight_layout()
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=100)
    plt.close(fig)
    return write_bytes_atomic(Path(path), buffer.getvalue())
