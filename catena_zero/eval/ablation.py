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
(``MatchJob``) may run several at once (``--jobs``), each in its own process: a match counts
simulations, not time, so load does not change its result.

The table (``decide``): per variant, the opponent's and the baseline's pair counts pooled over the
seeds (pentanomial), the score with its interval, the spread of the per-seed scores, and the
decision. The standard error of a pooled score is the larger of the pair variance's (match noise
alone) and the between-seed one's (the per-seed scores' variance over the seeds: match noise and
training noise together), so a choice that won one seed's match by luck does not pass. Each
variant's head-to-head score gets a two-sided p-value against 50%; Holm's step-down correction
(Holm 1979) over the table's rows keeps the chance of any false decision in the table at 5%; a row
is decided ("better" / "worse") when its corrected p is below 0.05, else "no difference shown".
The table is printed, saved as ``ablate-<plan>.json`` beside the runs, and written into a Markdown
file (docs/RESULTS.md) between markers named after the plan, leaving the rest of the file as it was.
"""

from __future__ import annotations

import dataclasses
import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Optional

import numpy as np

from ..artifacts.layout import CONFIG_FILE
from ..config import ConfigError, load_config, parse_overrides, section_from_dict
from ..errors import UserError
from ..fileio import MAX_JSON_BYTES, read_json, write_text_atomic
from .ratings import Z95, elo_from_score


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
        return float(self.cpu_minutes if self.cpu_minutes is not None else self.minutes)  # type: ignore[arg-type]

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


@dataclass(frozen=True)
class MatchJob:
    """One match of the table: a run's network against the fixed opponent or its seed's baseline.
    Agents are named by spec (``evaluate``'s A and B), so a job runs in any process."""

    variant: str
    seed_run: int  # the seed of the variant's run
    against: str  # "opponent" or "baseline"
    agent: str  # spec of the variant's network (its checkpoint)
    opponent: str  # spec of the other side
    game: Any  # GameConfig of the variant's run
    games: int  # without a book
    komi: Optional[int]
    book: int  # openings of the rule set's book (0: random openings)
    seed: int
    opening_plies: int
    simulations: int

    @property
    def key(self) -> str:
        """What decides the match's result: the same key, the same tally (the cache of played matches)."""
        size = f"book {self.book}" if self.book else f"{self.games} games, {self.opening_plies} opening plies"
        return (f"{self.variant} seed {self.seed_run} vs {self.against}: {self.agent} vs {self.opponent}, {size} "
                f"at komi {self.komi}, seed {self.seed}, {self.simulations} simulations, "
                f"{self.game.side}-{self.game.game_type}-{self.game.scoring}")


def match_jobs(plan: AblationPlan, trained: list[TrainedVariant]) -> list[MatchJob]:
    """Every match of the table: each run against the fixed opponent, then (but the baseline's)
    against the baseline run of the same seed."""
    evaluation = plan.evaluation
    baselines = {t.seed: t for t in trained if t.name == plan.baseline}
    jobs = []
    for run in trained:
        if run.seed not in baselines:
            raise ConfigError(f"the baseline variant {plan.baseline!r} has not trained seed {run.seed}")
        game = load_config(run.run_dir / CONFIG_FILE).game
        common = dict(variant=run.name, seed_run=run.seed, agent=str(run.checkpoint), game=game,
                      komi=evaluation.komi, book=evaluation.book, opening_plies=evaluation.opening_plies,
                      simulations=evaluation.simulations)
        jobs.append(MatchJob(against="opponent", opponent=evaluation.opponent, games=evaluation.games,
                             seed=evaluation.seed, **common))
        if run.name != plan.baseline and evaluation.baseline_games:
            jobs.append(MatchJob(against="baseline", opponent=str(baselines[run.seed].checkpoint),
                                 games=evaluation.baseline_games, seed=evaluation.seed + 1, **common))
    return jobs


def _tally(result) -> dict:
    from .arena import score_statistics

    t = result.tally
    score, (low, high), elo, (elo_low, elo_high), _ = score_statistics(result)
    return {"wins": t.wins, "draws": t.draws, "losses": t.losses, "pairs": list(result.pentanomial.counts),
            "score": score, "interval": [low, high], "elo": elo, "elo_interval": [elo_low, elo_high],
            "komi": result.game.komi}


def play_job(job: MatchJob) -> dict:
    """Play one match; its tally (wins, draws, losses, pair counts, score, intervals, Elo, komi)."""
    from .arena import play_match
    from .book import resolve_book
    from .specs import build_agent, parse_agent_spec

    agent = build_agent(parse_agent_spec(job.agent, simulations=job.simulations))
    other = build_agent(parse_agent_spec(job.opponent, simulations=job.simulations))
    rng = np.random.default_rng(job.seed)
    if not job.book:
        return _tally(play_match(agent, other, job.game, job.games, job.komi, rng, opening_plies=job.opening_plies))
    book = resolve_book(str(job.book), job.game, job.komi)
    return _tally(play_match(agent, other, job.game, 2 * len(book), job.komi, rng, book=book))


def _init_match_process(threads: int) -> None:
    from ..net.device import set_torch_threads

    set_torch_threads(threads)


def _read_played(path: Optional[Path]) -> dict[str, dict]:
    """The match cache's tallies (``MatchJob.key`` -> ``_tally``); a file that does not read
    (``fileio.read_json``: too big, nested too deep, not JSON) or an entry that is not a tally (a
    game count that is a string) counts as not played: those matches are played again."""
    if path is None or not path.exists():
        return {}
    try:
        played = read_json(path, "match cache", MAX_JSON_BYTES, UserError, finite=False)  # an Elo may be inf
    except UserError:
        return {}  # unreadable: play the matches again (the file is rewritten as they finish)
    if not isinstance(played, dict):
        return {}
    return {key: tally for key, tally in played.items() if _is_tally(tally)}


def _is_tally(value: object) -> bool:
    """Whether ``value`` is what ``_tally`` writes: whole counts >= 0, a finite score in [0, 1],
    numbers for the intervals and the Elo."""
    def count(v: object) -> bool:
        return isinstance(v, int) and not isinstance(v, bool) and v >= 0

    def number(v: object) -> bool:
        return isinstance(v, (int, float)) and not isinstance(v, bool) and not math.isnan(v)

    if not isinstance(value, dict) or set(value) != {"wins", "draws", "losses", "pairs", "score", "interval",
                                                      "elo", "elo_interval", "komi"}:
        return False
    pairs, interval, elo_interval = value["pairs"], value["interval"], value["elo_interval"]
    return (all(count(value[k]) for k in ("wins", "draws", "losses"))
            and isinstance(pairs, list) and len(pairs) == 5 and all(count(p) for p in pairs)
            and number(value["score"]) and 0 <= value["score"] <= 1 and number(value["elo"])
            and all(isinstance(v, list) and len(v) == 2 and all(number(x) for x in v) for v in (interval, elo_interval))
            and isinstance(value["komi"], int) and not isinstance(value["komi"], bool))


def play_jobs(plan: AblationPlan, trained: list[TrainedVariant], log: Callable[[str], None] = print,
              *, jobs: int = 1, threads: int = 1, played: Optional[Path] = None) -> dict[tuple[str, int, str], dict]:
    """(variant, seed, "opponent"/"baseline") -> the match's tally, for every match of the table.

    ``jobs`` > 1 plays that many matches at once, each in its own process with ``threads`` inference
    threads. A match's result does not depend on the others: its simulations are counted, not timed,
    and its generator is its own, so the table is the same. ``played``: a JSON file of the matches
    already played (``MatchJob.key`` -> tally), read first and written after each match, so a grown
    plan or an interrupted ablation plays only the rest."""
    cache = _read_played(played)
    every = match_jobs(plan, trained)
    found = {(job.variant, job.seed_run, job.against): cache[job.key] for job in every if job.key in cache}
    todo = [job for job in every if (job.variant, job.seed_run, job.against) not in found]
    komi = "the book's komi" if plan.evaluation.komi is None else f"komi {plan.evaluation.komi}"
    log(f"ablate: {len(todo)} matches of {plan.evaluation.match_size()} at {komi}, "
        f"{max(1, jobs)} at a time" + (f" ({len(found)} played before)" if found else ""))

    def record(job: MatchJob, tally: dict) -> None:
        found[(job.variant, job.seed_run, job.against)] = tally
        if played is not None:
            cache[job.key] = tally
            played.parent.mkdir(parents=True, exist_ok=True)
            write_text_atomic(played, json.dumps(cache, indent=1) + "\n")
        other = job.opponent if job.against == "opponent" else plan.baseline
        log(f"ablate: {job.variant} seed {job.seed_run} vs {other}: +{tally['wins']} ={tally['draws']} "
            f"-{tally['losses']}, score {100 * tally['score']:.1f}% ({len(found)}/{len(every)})")

    if jobs <= 1:
        for job in todo:
            record(job, play_job(job))
    else:
        import concurrent.futures
        import multiprocessing

        # spawn, not fork: the parent may hold torch's thread pools (and Ray's) already.
        with concurrent.futures.ProcessPoolExecutor(max_workers=jobs, mp_context=multiprocessing.get_context("spawn"),
                                                    initializer=_init_match_process, initargs=(threads,)) as pool:
            for job, tally in zip(todo, pool.map(play_job, todo)):
                record(job, tally)
    return found


# ------------------------------------------------------------------------------- the decision


@dataclass(frozen=True)
class Pooled:
    """One column of a row: the matches of every seed of a variant against one side, pooled."""

    wins: int
    draws: int
    losses: int
    pairs: tuple[int, int, int, int, int]  # pentanomial counts over all seeds
    score: float
    stderr: float  # the larger of the pair-variance and the between-seed standard errors
    interval: tuple[float, float]  # score +- 1.96 stderr, clipped to [0, 1]
    seed_scores: tuple[float, ...]  # each seed's score
    spread: float  # standard deviation of the seed scores (0 with one seed)

    @property
    def elo(self) -> float:
        return elo_from_score(self.score)

    @property
    def elo_interval(self) -> tuple[float, float]:
        return elo_from_score(self.interval[0]), elo_from_score(self.interval[1])

    def p_value(self) -> float:
        """Two-sided p of "the score is 50%" (normal approximation of the pooled score)."""
        if self.stderr <= 0:
            return 0.0 if self.score != 0.5 else 1.0
        z = abs(self.score - 0.5) / self.stderr
        return math.erfc(z / math.sqrt(2.0))


def pool(tallies: list[dict]) -> Pooled:
    """The pooled column of per-seed tallies (module docstring: the larger of the two errors)."""
    from .sprt import Pentanomial

    counts = [tuple(t.get("pairs", (0, 0, 0, 0, 0))) for t in tallies]
    penta = Pentanomial(tuple(int(sum(c[i] for c in counts)) for i in range(5)))  # type: ignore[arg-type]
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
    return Pooled(wins=wins, draws=draws, losses=losses, pairs=penta.counts, score=score, stderr=stderr,
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
                                     vs_opponent=dataclasses.asdict(opponent),
                                     vs_baseline=None if head is None else dataclasses.asdict(head),
                                     p_holm=p, decision=decision))
    return results


def measure_variants(plan: AblationPlan, trained: list[TrainedVariant], log: Callable[[str], None] = print,
                     *, jobs: int = 1, threads: int = 1, played: Optional[Path] = None) -> list[VariantResult]:
    """Play every match of the table (``play_jobs``) and decide its rows (``decide``)."""
    return decide(plan, trained, play_jobs(plan, trained, log, jobs=jobs, threads=threads, played=played))


def _rate(t: Optional[dict]) -> str:
    if t is None:
        return "-"
    low, high = t["interval"]
    return f"{100 * t['score']:.1f}% [{100 * low:.0f}, {100 * high:.0f}]"


def _show_elo(x: float) -> str:
    return ("+inf" if x > 0 else "-inf") if math.isinf(x) else f"{x:+.0f}"


def _elo(t: Optional[dict]) -> str:
    if t is None:
        return "-"
    low, high = (elo_from_score(x) for x in t["interval"])
    return f"{_show_elo(elo_from_score(t['score']))} [{_show_elo(low)}, {_show_elo(high)}]"


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


def played_path(run_root: str | Path, plan_name: str) -> Path:
    """Where the plan's played matches are kept (``measure_variants``'s ``played``)."""
    return Path(run_root) / f"ablate-{plan_name}-matches.json"


def save_results(run_root: str | Path, plan_name: str, results: list[VariantResult]) -> Path:
    path = Path(run_root) / f"ablate-{plan_name}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    write_text_atomic(path, json.dumps([dataclasses.asdict(r) for r in results], indent=1) + "\n")
    return path
