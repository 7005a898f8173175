"""The decision of an ablation's table (``eval/ablation.py``): per variant, the opponent's and the
baseline's pair counts pooled over the seeds (``pool``), each variant's head-to-head score tested
against 50%, Holm's correction over the table's rows (``holm``), and the row's decision
(``decide``); ``measure_variants`` plays the matches (``ablation_matches.py``) and decides.
The module docstring of ``eval/ablation.py`` says why each step is as it is.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Optional

import numpy as np

from .ablation import AblationPlan, TrainedVariant
from .ablation_matches import play_jobs
from .ratings import Z95, Tally
from .sprt import Pentanomial


@dataclass(frozen=True)
class Pooled:
    """One column of a row: the matches of every seed of a variant against one side, pooled."""

    tally: Tally  # over all seeds
    pairs: tuple[int, int, int, int, int]  # pentanomial counts over all seeds
    score: float
    stderr: float  # the larger of the pair-variance and the between-seed standard errors
    interval: tuple[float, float]  # score +- 1.96 stderr, clipped to [0, 1]
    seed_scores: tuple[float, ...]  # each seed's score
    spread: float  # standard deviation of the seed scores (0 with one seed)

    def to_dict(self) -> dict:
        """The column as the table's JSON writes it (the tally's fields first, flat)."""
        return {**dataclasses.asdict(self.tally), **{k: v for k, v in dataclasses.asdict(self).items() if k != "tally"}}

    def p_value(self) -> float:
        """Two-sided p of "the score is 50%" (normal approximation of the pooled score)."""
        if self.stderr <= 0:
            return 0.0 if self.score != 0.5 else 1.0
        z = abs(self.score - 0.5) / self.stderr
        return math.erfc(z / math.sqrt(2.0))


def pool(tallies: list[dict]) -> Pooled:
    """The pooled column of per-seed tallies (module docstring: the larger of the two errors)."""
    counts = [tuple(t.get("pairs", (0, 0, 0, 0, 0))) for t in tallies]
    penta = Pentanomial.of_counts(int(sum(c[i] for c in counts)) for i in range(5))
    wins, draws, losses = (sum(int(t[k]) for t in tallies) for k in ("wins", "draws", "losses"))
    scores = tuple(float(t["score"]) for t in tallies)
    if penta.pairs:
        score, match_error = penta.score, penta.score_stderr
    else:  # random openings of an odd count, or old tallies: games as independent
        games = max(wins + draws + losses, 1)
        score = (wins + 0.5 * draws) / games
        match_error = math.sqrt(max(score * (1 - score), 0.25 / games) / games)
    spread = float(np.std(scores, ddof=1)) if len(scores) > 1 else 0.0
    stderr = max(match_error, spread / math.sqrt(len(scores)) if len(scores) > 1 else 0.0)
    interval = (max(0.0, score - Z95 * stderr), min(1.0, score + Z95 * stderr))
    return Pooled(tally=Tally(wins, draws, losses), pairs=penta.counts, score=score, stderr=stderr,
                  interval=interval, seed_scores=scores, spread=spread)


def holm(p_values: list[float]) -> list[float]:
    """Holm's step-down adjusted p-values (Holm 1979), in the given order."""
    order = sorted(range(len(p_values)), key=lambda i: p_values[i])
    adjusted = [1.0] * len(p_values)
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (len(p_values) - rank) * p_values[i]))
        adjusted[i] = running
    return adjusted


DECISION_LEVEL = 0.05  # family-wise error rate of a table's decisions (Holm)
MIN_DECISION_SEEDS = 3  # fewer seeds say nothing of run-to-run variance


@dataclass(frozen=True)
class VariantResult:
    """One row of the table."""

    name: str
    overrides: dict
    runs: list  # per seed: seed, run_dir, checkpoint, step, positions, minutes, cpu_minutes, vs_opponent, vs_baseline
    vs_opponent: dict  # Pooled as a dict
    vs_baseline: Optional[dict]  # the same against the baseline of each seed; None for the baseline
    p_holm: Optional[float]  # Holm-adjusted p of the head-to-head score; None for the baseline
    decision: str  # "baseline", "better", "worse", "no difference shown", or why none was made


def decide(plan: AblationPlan, trained: list[TrainedVariant], tallies: dict) -> list[VariantResult]:
    """The table's rows, each decided by Holm-corrected head-to-head tests (module docstring)."""
    rows = []
    for name in plan.variants:
        runs = [t for t in trained if t.name == name]
        if not runs:
            continue
        per_seed = [{"seed": r.seed, "run_dir": str(r.run_dir), "checkpoint": str(r.checkpoint), "step": r.step,
                     "positions": r.positions, "minutes": r.minutes, "cpu_minutes": r.cpu_minutes,
                     "vs_opponent": tallies[(name, r.seed, "opponent")],
                     "vs_baseline": tallies.get((name, r.seed, "baseline"))} for r in runs]
        opponent = pool([p["vs_opponent"] for p in per_seed])
        head = [p["vs_baseline"] for p in per_seed if p["vs_baseline"] is not None]
        rows.append((name, per_seed, opponent, pool(head) if head else None))
    # The family Holm corrects over: the rows that can be decided (played head to head, enough seeds).
    tested = [i for i, row in enumerate(rows) if row[3] is not None and len(row[1]) >= MIN_DECISION_SEEDS]
    adjusted = dict(zip(tested, holm([rows[i][3].p_value() for i in tested])))
    results = []
    for i, (name, per_seed, opponent, head) in enumerate(rows):
        p = adjusted.get(i)
        if name == plan.baseline:
            decision = "baseline"
        elif head is None:
            decision = "not played against the baseline"
        elif len(per_seed) < MIN_DECISION_SEEDS:
            decision = f"none: {len(per_seed)} seed(s), a decision needs {MIN_DECISION_SEEDS}"
        elif p is not None and p < DECISION_LEVEL:
            decision = "better" if head.score > 0.5 else "worse"
        else:
            decision = "no difference shown"
        results.append(VariantResult(name=name, overrides=dict(plan.variants[name] or {}), runs=per_seed,
                                     vs_opponent=opponent.to_dict(),
                                     vs_baseline=None if head is None else head.to_dict(),
                                     p_holm=p, decision=decision))
    return results


def measure_variants(plan: AblationPlan, trained: list[TrainedVariant], log: Callable[[str], None] = print,
                     *, jobs: int = 1, threads: int = 1, played: Optional[Path] = None) -> list[VariantResult]:
    """Play every match of the table (``play_jobs``) and decide its rows (``decide``)."""
    return decide(plan, trained, play_jobs(plan, trained, log, jobs=jobs, threads=threads, played=played))
