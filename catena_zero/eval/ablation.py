"""Training choices decided by strength: train each variant of a base config with several seeds
for the same CPU time, then play every final network against a fixed opponent and against the
baseline variant of its seed over the rule set's opening book, and decide each row by a test that
can fail (``catena-zero ablate PLAN``).

A plan is a YAML file (``configs/ablations/``) read into ``AblationPlan``:

    config: configs/quick.yaml       # the base training config
    base: {eval.games: 0}            # overrides of every variant, before its own ({} for none)
    cpu_minutes: 16                  # CPU-minutes per run (run.max_cpu_minutes), or
    # minutes: 10                    #   wall-clock minutes (run.max_minutes): fair only on a quiet machine
    seeds: 3                         # runs per variant, seeds seed, seed + 1, ... (>= 3 for a decision)
    baseline: baseline               # the variant the others play head to head
    variants:                        # name -> --set overrides (dotted keys), {} for none
      baseline: {}
      ema: {train.ema_decay: 0.99}
    evaluation:
      opponent: mcts:1000            # the fixed opponent (any agent spec of `evaluate`)
      komi: 7                        # one komi for every match (null: the book's, the reference's fair komi)
      book: 100                      # openings of the rule set's book per match, each played twice
      simulations: 400               # the networks' search per move (a network opponent's too)

Runs live in ``<run.root>/ablate-<plan>-<variant>-seed<k>``. Training goes seed by seed, every
variant of a seed (the baseline first) before the next seed, so an interrupted ablation has whole
batches, each with its baseline; a run that already reached its bound is not trained again, so an
ablation continues where it stopped (and a plan can grow by a variant or a seed).

Equal CPU time, not wall time: ``run.max_cpu_minutes`` stops a run when the CPU time of all its
processes (the driver with the learner, the self-play actors, any in-loop matches), each read off
its own process clock (``time.process_time``, ``train/cputime.py``), adds up to the bound. A run
that shares its cores with other work then gets the same computation, only later; wall minutes
would hand it less.

Matches: every network at ``simulations`` plays the opponent and (but the baseline) the baseline
network of its own seed, over the book's openings (``eval/book.py``: the same openings for every
match, common random numbers), each opening twice with colours swapped, at one komi. The matches
(``MatchJob``, ``ablation_matches.py``) may run several at once (``--jobs``), each in its own
process: a match counts simulations, not time, so load does not change its result.

The table (``decide``, ``ablation_decision.py``): per variant, the opponent's and the baseline's pair counts pooled over the
seeds (pentanomial), the score with its interval, the spread of the per-seed scores, and the
decision. The standard error of a pooled score is the larger of the pair variance's (match noise
alone) and the between-seed one's (the per-seed scores' variance over the seeds: match noise and
training noise together), so a choice that won one seed's match by luck does not pass. Each
variant's head-to-head score gets a two-sided p-value against 50%; Holm's step-down correction
(Holm 1979) over the table's rows keeps the chance of any false decision in the table at 5%; a row
is decided ("better" / "worse") when its corrected p is below 0.05, else "no difference shown".
The table is printed, saved as ``ablate-<plan>.json`` beside the runs, and written into a Markdown
file (docs/RESULTS.md) between markers named after the plan, leaving the rest of the file as it was
(``eval/reports.py``).

Training runs one after another in this process through the same path as ``catena-zero train``
(``train.driver.train``, its self-play in Ray).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Optional

from ..artifacts.layout import CONFIG_FILE
from ..config import ConfigError, load_config, parse_overrides, section_from_dict
from ..errors import UserError


@dataclass(frozen=True)
class AblationEvaluation:
    """How every final network is measured."""

    opponent: str = "mcts:1000"  # the fixed opponent: classic UCT with 1000 rollouts a move
    komi: Optional[int] = 7  # one komi for every match; null: the book's (the reference's fair komi)
    book: int = 100  # openings of the rule set's book per match, each twice (0: random openings)
    games: int = 40  # book 0 only: games per match, colours alternating over paired random openings
    simulations: int = 400  # the network's search per move
    opening_plies: int = 2  # book 0 only: random plies opening each pair of games
    baseline_games: int = 40  # head to head against the baseline of the same seed (with a book: >0 = yes)
    seed: int = 0  # the matches' generator

    def __post_init__(self) -> None:
        if self.games < 1:
            raise ConfigError(f"evaluation.games must be >= 1, got {self.games}")
        if self.book < 0:
            raise ConfigError(f"evaluation.book must be >= 0, got {self.book}")
        if self.simulations < 1:
            raise ConfigError(f"evaluation.simulations must be >= 1, got {self.simulations}")
        if self.opening_plies < 0:
            raise ConfigError(f"evaluation.opening_plies must be >= 0, got {self.opening_plies}")
        if self.baseline_games < 0:
            raise ConfigError(f"evaluation.baseline_games must be >= 0, got {self.baseline_games}")

    def match_size(self) -> str:
        return f"{self.book} book openings x 2" if self.book else f"{self.games} games"


@dataclass(frozen=True)
class AblationPlan:
    """A list of training variants of one base config, and how they are compared."""

    config: str = "configs/quick.yaml"  # the base config (relative paths: from the working folder)
    cpu_minutes: Optional[float] = None  # CPU-minutes per run, all its processes together (the fair bound)
    minutes: Optional[float] = None  # or wall-clock minutes per run (fair only alone on the machine)
    seeds: int = 3  # runs per variant; 3 or more for a decision (AlphaZero.jl, cleanrl report 3-5)
    baseline: str = "baseline"  # the variant the others play head to head
    base: dict = field(default_factory=dict)  # {dotted key: value} overrides of every variant, applied first
    variants: dict = field(default_factory=dict)  # name -> {dotted key: value} overrides
    evaluation: AblationEvaluation = field(default_factory=AblationEvaluation)
    seed: Optional[int] = None  # the first seed (default: the base config's); the others follow it

    def __post_init__(self) -> None:
        if (self.minutes is None) == (self.cpu_minutes is None):
            raise ConfigError("a plan bounds its runs by one of cpu_minutes (equal CPU time) or minutes (wall time)")
        bound = self.bound
        if not bound > 0 or not math.isfinite(bound):
            raise ConfigError(f"{self.bound_key} must be a positive number, got {bound}")
        if isinstance(self.seeds, bool) or self.seeds < 1:
            raise ConfigError(f"seeds must be >= 1, got {self.seeds}")
        if not self.variants:
            raise ConfigError("variants must name at least one variant")
        for name, overrides in self.variants.items():
            if not isinstance(name, str) or not name.replace("_", "").replace("-", "").isalnum():
                raise ConfigError(f"variant names are letters, digits, '-' and '_'; got {name!r}")
            if overrides is not None and not isinstance(overrides, dict):
                raise ConfigError(f"variant {name}: expected a mapping of dotted keys to values")
        if not isinstance(self.base, dict):
            raise ConfigError("base: expected a mapping of dotted keys to values")
        if self.baseline not in self.variants:
            raise ConfigError(f"baseline {self.baseline!r} is not one of the variants ({', '.join(self.variants)})")

    @property
    def bound_key(self) -> str:
        return "cpu_minutes" if self.cpu_minutes is not None else "minutes"

    @property
    def bound(self) -> float:
        bound = self.cpu_minutes if self.cpu_minutes is not None else self.minutes
        if bound is None:  # __post_init__ refuses a plan without a bound: a plan built past it
            raise ConfigError("a plan bounds its runs by one of cpu_minutes (equal CPU time) or minutes (wall time)")
        return float(bound)

    def describe_bound(self, value: Optional[float] = None) -> str:
        value = self.bound if value is None else value
        return f"{value:g} CPU-minutes" if self.cpu_minutes is not None else f"{value:g} minutes"


def load_plan(path: str | Path) -> AblationPlan:
    """The plan of a YAML file, read as configs are (``read_yaml_file``); one-line ``ConfigError``
    naming what is wrong."""
    from ..config.loading import read_yaml_file

    path = Path(path)
    data = read_yaml_file(path, "ablation plan")
    try:
        return section_from_dict(AblationPlan, data, "")
    except ConfigError as exc:
        raise ConfigError(f"{path}: {exc}") from None


def variant_overrides(overrides: Optional[dict]) -> dict:
    """Dotted ``{a.b: v}`` overrides as the nested dict ``load_config`` merges."""
    items = [f"{key}={json.dumps(value)}" for key, value in (overrides or {}).items()]
    return parse_overrides(items)


def run_name(plan_name: str, variant: str, seed: int) -> str:
    return f"ablate-{plan_name}-{variant}-seed{seed}"


def plan_seeds(plan: AblationPlan) -> list[int]:
    """The seeds of the plan's runs: the first (the plan's, else the base config's) and the next ones."""
    first = plan.seed if plan.seed is not None else load_config(plan.config).seed
    return [first + k for k in range(plan.seeds)]


def variant_configs(plan: AblationPlan, plan_name: str, bound: Optional[float] = None) -> dict[tuple[str, int], Any]:
    """(name, seed) -> the run's full training config (checked now, before anything trains), seed by
    seed, the baseline first in each."""
    from ..config import Config

    configs: dict[tuple[str, int], Config] = {}
    names = [plan.baseline] + [n for n in plan.variants if n != plan.baseline]
    for seed in plan_seeds(plan):
        for name in names:
            nested = variant_overrides({**plan.base, **(plan.variants[name] or {})})
            run = nested.setdefault("run", {})
            for key in ("max_steps", "max_positions", "max_minutes", "max_cpu_minutes"):
                run[key] = None
            run["max_cpu_minutes" if plan.cpu_minutes is not None else "max_minutes"] = bound or plan.bound
            run["name"] = run_name(plan_name, name, seed)
            nested["seed"] = seed
            try:
                configs[(name, seed)] = load_config(plan.config, nested, overrides_from="the plan")
            except ConfigError as exc:
                raise ConfigError(f"variant {name}: {exc}") from None
    return configs


def _finished(run_dir: Path, plan: AblationPlan, bound: float) -> Optional[tuple[Path, int, int, float, float]]:
    """(checkpoint, step, positions, minutes, CPU-minutes) of a run that reached ``bound``, else None."""
    from ..artifacts.checkpoint import list_checkpoints, load_checkpoint

    found = list_checkpoints(run_dir)
    if not found:
        return None
    checkpoint = load_checkpoint(found[-1][1])
    seconds = float(checkpoint.counters.get("seconds", 0.0))
    cpu_seconds = float(checkpoint.counters.get("cpu_seconds", 0.0))
    if (cpu_seconds if plan.cpu_minutes is not None else seconds) < bound * 60 - 1.0:
        return None
    return found[-1][1], checkpoint.step, int(checkpoint.counters.get("positions", 0)), seconds / 60, cpu_seconds / 60


@dataclass(frozen=True)
class TrainedVariant:
    """A run of a variant that trained to its bound."""

    name: str
    seed: int
    run_dir: Path
    checkpoint: Path  # the run's newest checkpoint
    step: int
    positions: int
    minutes: float
    cpu_minutes: float


def _selected(plan: AblationPlan, only: Optional[list[str]]) -> list[str]:
    unknown = sorted(set(only or ()) - set(plan.variants))
    if unknown:
        raise ConfigError(f"unknown variant {unknown[0]!r} (the plan has {', '.join(plan.variants)})")
    return [n for n in plan.variants if not only or n in only or n == plan.baseline]


def train_variants(plan: AblationPlan, plan_name: str, *, bound: Optional[float] = None,
                   only: Optional[list[str]] = None, train_fn: Optional[Callable] = None,
                   log: Callable[[str], None] = print, train: bool = True) -> list[TrainedVariant]:
    """Train every selected run that has not reached its bound yet, one after another, seed by seed.
    ``train`` False trains nothing: the runs that reached their bound, and of those only the seeds
    whose baseline did (a table of what is there while the rest trains elsewhere)."""
    from ..train import driver

    from .inloop import evaluate_in_loop

    train_fn = train_fn or driver.train
    bound = bound or plan.bound
    selected = _selected(plan, only)
    trained = []
    for (name, seed), config in variant_configs(plan, plan_name, bound).items():
        if name not in selected:
            continue
        run_dir = Path(config.run.root) / config.run.name
        done = _finished(run_dir, plan, bound)
        if done is None and not train:
            log(f"ablate: {name} seed {seed} has not trained its {plan.describe_bound(bound)}: left out")
            continue
        if done is None:
            log(f"ablate: training {name} seed {seed} for {plan.describe_bound(bound)} ({run_dir})")
            resume = (run_dir / CONFIG_FILE).exists()
            summary = train_fn(config, config.run.name, config.run.name, resume, evaluate=evaluate_in_loop)
            if getattr(summary, "cpu", None) is not None:
                log(f"ablate: {name} seed {seed}: {summary.step} steps, {summary.positions:,} positions; "
                    f"{summary.cpu.describe()}")
            done = _finished(run_dir, plan, bound)
            if done is None:
                raise UserError(f"variant {name} seed {seed} stopped before its {plan.describe_bound(bound)}: "
                                f"{summary.stop_reason}")
        else:
            log(f"ablate: {name} seed {seed} already trained ({done[1]} steps), not training again")
        trained.append(TrainedVariant(name, seed, run_dir, *done))
    with_baseline = {t.seed for t in trained if t.name == plan.baseline}
    left = [t for t in trained if t.seed not in with_baseline]
    for t in left:
        log(f"ablate: {t.name} seed {t.seed} has no baseline of its seed yet: left out")
    return [t for t in trained if t.seed in with_baseline]


def played_path(run_root: str | Path, plan_name: str) -> Path:
    """Where the plan's played matches are kept (``measure_variants``'s ``played``)."""
    return Path(run_root) / f"ablate-{plan_name}-matches.json"
