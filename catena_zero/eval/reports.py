"""The reports of the experiments, apart from the computations that make them: the ladder's ratings
(``write_ladder``: CSV, Markdown, a plot and TensorBoard scalars, ``eval/ladder.py``) and an
ablation's table (``table_lines``, ``markdown_section``, ``write_section``, ``save_ablation``:
Markdown and JSON, ``eval/ablation.py``). Every Elo figure is written by ``ratings.elo_number`` /
``ratings.elo_text``.
"""

from __future__ import annotations

import dataclasses
import json
import time
from pathlib import Path
from typing import Optional, Sequence

import numpy as np

from ..artifacts.layout import TENSORBOARD_DIR
from ..fileio import write_bytes_atomic, write_text_atomic
from .ablation import AblationPlan
from .ablation_decision import DECISION_LEVEL, VariantResult
from .ladder_file import LADDER_DIR, LadderPlayer, LadderResults
from .ratings import Z95, RatingFit, elo_from_score, elo_number, elo_text


# ------------------------------------------------------------------------------- the ladder


def ratings_table(players: Sequence[LadderPlayer], fit: RatingFit) -> list[dict]:
    """One row per player (baselines, then checkpoints by step) with what the CSV and Markdown show."""
    rows = []
    ordered = [p for p in players if p.kind == "baseline"] + sorted(
        (p for p in players if p.kind == "checkpoint"), key=lambda p: p.step)
    for p in ordered:
        i = fit.index(p.id)
        games = fit.games[i]
        rows.append({
            "player": p.id, "kind": p.kind, "step": "" if p.step is None else p.step,
            "seconds": "" if p.seconds is None else round(p.seconds, 1),
            "cpu_hours": "" if p.cpu_seconds is None else round(p.cpu_seconds / 3600, 4),
            "cpu_hours_complete": "" if p.cpu_seconds is None else int(p.cpu_complete),
            "elo": round(float(fit.elo[i]), 1), "elo_stderr": round(float(fit.stderr[i]), 1),
            "elo_low95": round(float(fit.elo[i] - Z95 * fit.stderr[i]), 1),
            "elo_high95": round(float(fit.elo[i] + Z95 * fit.stderr[i]), 1),
            "games": int(round(games)), "score_rate": "" if games == 0 else round(float(fit.score[i] / games), 3),
        })
    return rows


def write_ladder(run_dir: Path, players: Sequence[LadderPlayer], fit: RatingFit, results: LadderResults) -> list[Path]:
    """ratings.csv, ratings.md, ratings.png and the TensorBoard scalars (``eval/ladder.py``'s docstring)."""
    folder = Path(run_dir) / LADDER_DIR
    folder.mkdir(parents=True, exist_ok=True)
    rows = ratings_table(players, fit)
    columns = list(rows[0]) if rows else []
    csv = ",".join(columns) + "\n" + "".join(",".join(str(r[c]) for c in columns) + "\n" for r in rows)
    files = [write_text_atomic(folder / "ratings.csv", csv)]
    s = results.settings
    total = sum(m.games for m in results.matches)
    md = [
        f"# Ladder of {Path(run_dir).name}",
        "",
        f"Side {s['side']}, game type {s['game_type']}, {s['scoring']} scoring; checkpoints search "
        f"{s['simulations']} simulations per move; {total} games in {len(results.matches)} matches. "
        f"Bradley-Terry ratings in Elo, anchored random = 0, 95% intervals from the Hessian.",
        "",
        "| player | step | training time | CPU-hours | Elo | 95% interval | games | score |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for r in rows:
        minutes = "" if r["seconds"] == "" else f"{r['seconds'] / 60:.1f} min"
        hours = "" if r["cpu_hours"] == "" else f"{r['cpu_hours']:.2f}"
        interval = "anchor" if r["player"] == fit.anchor else f"[{elo_number(r['elo_low95'], signed=False)}, {elo_number(r['elo_high95'], signed=False)}]"
        score = "" if r["score_rate"] == "" else f"{100 * r['score_rate']:.1f}%"
        md.append(f"| {r['player']} | {r['step']} | {minutes} | {hours} | {elo_number(r['elo'], signed=False)} | {interval} | {r['games']} "
                  f"| {score} |")
    if any(r["cpu_hours_complete"] == 0 for r in rows):
        md += ["", "CPU-hours leave out a network this run descends from (`train.init_from`, and so on up the "
                   "chain) whose CPU is unknown: a bot file, or a checkpoint gone since."]
    files.append(write_text_atomic(folder / "ratings.md", "\n".join(md) + "\n"))
    files.append(plot_ratings(folder / "ratings.png", Path(run_dir).name, rows))
    files.append(log_tensorboard(Path(run_dir) / TENSORBOARD_DIR / LADDER_DIR, players, fit))
    return files


def plot_ratings(path: Path, title: str, rows: Sequence[dict]) -> Path:
    """Elo against step and against CPU-hours, else training time (95% error bars), baselines as
    horizontal lines."""
    import io

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    checkpoints = [r for r in rows if r["kind"] == "checkpoint" and r["step"] != ""]
    baselines = [r for r in rows if r["kind"] == "baseline"]
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.2), sharey=True)
    colours = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    by_cpu = bool(checkpoints) and all(r["cpu_hours"] != "" for r in checkpoints)
    second = (("cpu_hours", "CPU-hours (the starting network's included where known)") if by_cpu
              else ("seconds", "training time (minutes)"))
    for ax, (key, label) in ((axes[0], ("step", "training step")), (axes[1], second)):
        points = [r for r in checkpoints if r[key] != ""]
        x = np.array([r[key] for r in points], dtype=float) / (60.0 if key == "seconds" else 1.0)
        y = np.array([r["elo"] for r in points], dtype=float)
        err = np.array([r["elo_stderr"] for r in points], dtype=float) * Z95
        if points:
            ax.errorbar(x, y, yerr=err, fmt="o-", color="black", ecolor="grey", capsize=3, label="checkpoints")
        for i, b in enumerate(baselines):
            ax.axhline(b["elo"], color=colours[i % len(colours)], linestyle="--", linewidth=1,
                       label=f"{b['player']} ({elo_number(b['elo'], signed=False)})")
        ax.set_xlabel(label)
        ax.grid(True, alpha=0.3)
    axes[0].set_ylabel("Elo (random = 0)")
    axes[1].legend(loc="best", fontsize=8)
    fig.suptitle(f"Ladder of {title}: Bradley-Terry Elo with 95% intervals")
    fig.tight_layout()
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=100)
    plt.close(fig)
    return write_bytes_atomic(path, buffer.getvalue())


def log_tensorboard(log_dir: Path, players: Sequence[LadderPlayer], fit: RatingFit) -> Path:
    """``ladder/elo`` and ``ladder/elo_stderr`` per checkpoint step; old ladder event files replaced."""
    from torch.utils.tensorboard import SummaryWriter

    log_dir.mkdir(parents=True, exist_ok=True)
    for old in log_dir.glob("events.out.tfevents.*"):
        old.unlink(missing_ok=True)
    writer = SummaryWriter(log_dir=str(log_dir))
    try:
        now = time.time()
        for p in sorted((p for p in players if p.step is not None), key=lambda p: p.step):
            i = fit.index(p.id)
            writer.add_scalar("ladder/elo", float(fit.elo[i]), global_step=p.step, walltime=now)
            writer.add_scalar("ladder/elo_stderr", float(fit.stderr[i]), global_step=p.step, walltime=now)
        writer.flush()
    finally:
        writer.close()
    return log_dir


# ------------------------------------------------------------------------------- an ablation


def _rate(t: Optional[dict]) -> str:
    if t is None:
        return "-"
    low, high = t["interval"]
    return f"{100 * t['score']:.1f}% [{100 * low:.0f}, {100 * high:.0f}]"


def _elo(t: Optional[dict]) -> str:
    if t is None:
        return "-"
    low, high = (elo_from_score(x) for x in t["interval"])
    return elo_text(elo_from_score(t["score"]), low, high, label="")


def _spread(t: Optional[dict]) -> str:
    if t is None:
        return "-"
    seeds = ", ".join(f"{100 * s:.0f}" for s in t["seed_scores"])
    return f"{100 * t['spread']:.1f} ({seeds})"


def _mean(rows: list, key: str) -> float:
    return sum(float(r[key]) for r in rows) / max(len(rows), 1)


def table_lines(plan: AblationPlan, results: list[VariantResult]) -> list[str]:
    """The Markdown table of the results."""
    e = plan.evaluation
    lines = [
        f"| variant | overrides | seeds | steps | positions | vs {e.opponent} | seed scores: sd (each) | "
        f"vs {plan.baseline} | Elo vs {plan.baseline} | Holm p | decision |",
        "| --- | --- | ---: | ---: | ---: | --- | --- | --- | --- | ---: | --- |",
    ]
    for r in results:
        overrides = ", ".join(f"`{k}={json.dumps(v)}`" for k, v in r.overrides.items()) or "(base config)"
        p = "-" if r.p_holm is None else f"{r.p_holm:.3f}"
        lines.append(f"| {r.name} | {overrides} | {len(r.runs)} | {_mean(r.runs, 'step'):,.0f} | "
                     f"{_mean(r.runs, 'positions'):,.0f} | {_rate(r.vs_opponent)} | {_spread(r.vs_opponent)} | "
                     f"{_rate(r.vs_baseline)} | {_elo(r.vs_baseline)} | {p} | {r.decision} |")
    return lines


def _base_text(plan: AblationPlan) -> str:
    if not plan.base:
        return ""
    return " (with " + ", ".join(f"`{key}={json.dumps(value)}`" for key, value in plan.base.items()) + " for all)"


def markdown_section(plan: AblationPlan, plan_name: str, command: str, results: list[VariantResult],
                     note: str = "") -> str:
    e = plan.evaluation
    seeds = max((len(r.runs) for r in results), default=plan.seeds)
    komi = "the book's komi" if e.komi is None else f"komi {e.komi}"
    openings = (f"the first {e.book} openings of the rule set's book, each twice with colours swapped"
                if e.book else f"{e.games} games over paired openings of {e.opening_plies} random plies")
    head = [
        f"<!-- ablation:{plan_name} -->",
        f"### Ablation `{plan_name}`",
        "",
        f"Each variant of `{plan.config}`{_base_text(plan)} trained {plan.describe_bound()} with {seeds} seeds, "
        f"seed by seed; each final network (its averaged weights where it keeps them) at {e.simulations} "
        f"simulations a move played `{e.opponent}` and the baseline of its seed over {openings}, at {komi}. "
        "Scores pool the seeds' pair counts; the interval is 1.96 standard errors, the larger of the "
        "pair variance's and the between-seed one's; the decision is the head-to-head score's test "
        f"against 50% after Holm's correction over the table's rows (family-wise level {DECISION_LEVEL}).",
        "",
        f"Reproduce: `{command}`",
        "",
    ]
    tail = ([""] + [note] if note else []) + [f"<!-- /ablation:{plan_name} -->"]
    return "\n".join(head + table_lines(plan, results) + tail) + "\n"


def write_section(path: str | Path, plan_name: str, section: str, title: str = "# Results") -> Path:
    """Put ``section`` into the Markdown file ``path`` in place of the plan's earlier section (or at
    the end); the rest of the file is kept as it was. Written atomically."""
    path = Path(path)
    text = path.read_text(encoding="utf-8") if path.exists() else f"{title}\n\n"
    start, end = f"<!-- ablation:{plan_name} -->", f"<!-- /ablation:{plan_name} -->"
    if start in text and end in text:
        before, _, rest = text.partition(start)
        _, _, after = rest.partition(end)
        text = before + section.rstrip("\n") + after
    else:
        text = text.rstrip("\n") + "\n\n" + section
    write_text_atomic(path, text)
    return path


def save_ablation(run_root: str | Path, plan_name: str, results: list[VariantResult]) -> Path:
    """The table as JSON, ``<run root>/ablate-<plan>.json``, one object per row."""
    path = Path(run_root) / f"ablate-{plan_name}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    write_text_atomic(path, json.dumps([dataclasses.asdict(r) for r in results], indent=1) + "\n")
    return path
