"""Training choices decided by strength: train each variant of a base config for the same minutes
from the same seed, one after another, then play every final network against the same fixed
opponent and against the baseline variant (``catena-zero ablate PLAN``).

A plan is a YAML file (``configs/ablations/``) read into ``AblationPlan``:

    config: configs/quick.yaml       # the base training config
    base: {replay.train_ratio: 4.0}  # overrides of every variant, before its own: the base config as
                                     # the table measured it, when the file has changed since ({} for none)
    minutes: 10                      # training minutes per variant (run.max_minutes)
    baseline: baseline               # the variant the others play head to head
    variants:                        # name -> --set overrides (dotted keys), {} for none
      baseline: {}
      ema: {train.ema_decay: 0.99}
    evaluation:
      opponent: mcts:1000            # the fixed opponent (any agent spec of `evaluate`)
      komi: 7                        # a fixed komi: the opponent knows no fair komi
      games: 40                      # per match; colours alternate over paired openings
      simulations: 400               # the networks' search per move
      baseline_games: 40             # head to head against the baseline (0: none)

Runs live in ``<run.root>/ablate-<plan>-<variant>``: a variant whose run already reached its
minutes is not trained again, so an interrupted ablation continues where it stopped (and a plan
can grow by a variant). Training runs one at a time and the matches only after all training, so
each variant's minutes are measured alone on the machine (nothing else must run beside it: the
table's minutes are wall-clock minutes of a shared CPU otherwise). The matches (``MatchJob``) may
run several at once (``--jobs``), each in its own process: a match counts simulations, not time,
so load does not change its result. The table (score rates with
Wilson 95% intervals, Elo with its interval) is printed, saved as ``ablation.json`` beside the
runs, and written into a Markdown file (docs/RESULTS.md) between markers named after the plan,
leaving the rest of the file as it was.
"""

from __future__ import annotations

import dataclasses
import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Optional

import numpy as np

from ..config import ConfigError, load_config, parse_overrides, section_from_dict
from ..errors import UserError
from ..fileio import write_text_atomic


@dataclass(frozen=True)
class AblationEvaluation:
    """How every final network is measured (the issue's fixed opponent and match size)."""

    opponent: str = "mcts:1000"  # the fixed opponent: classic UCT with 1000 rollouts a move
    komi: int = 7  # a fixed komi, the same for every variant
    games: int = 40  # games per match, colours alternating over paired openings
    simulations: int = 400  # the network's search per move
    opening_plies: int = 2  # random plies opening each pair of games (distinct up to symmetry)
    baseline_games: int = 40  # head-to-head games against the baseline variant; 0 = none
    seed: int = 0  # the matches' generator

    def __post_init__(self) -> None:
        if self.games < 1:
            raise ConfigError(f"evaluation.games must be >= 1, got {self.games}")
        if self.simulations < 1:
            raise ConfigError(f"evaluation.simulations must be >= 1, got {self.simulations}")
        if self.opening_plies < 0:
            raise ConfigError(f"evaluation.opening_plies must be >= 0, got {self.opening_plies}")
        if self.baseline_games < 0:
            raise ConfigError(f"evaluation.baseline_games must be >= 0, got {self.baseline_games}")


@dataclass(frozen=True)
class AblationPlan:
    """A list of training variants of one base config, and how they are compared."""

    config: str = "configs/quick.yaml"  # the base config (relative paths: from the working folder)
    minutes: float = 10.0  # training minutes per variant
    baseline: str = "baseline"  # the variant the others play head to head
    base: dict = field(default_factory=dict)  # {dotted key: value} overrides of every variant, applied first
    variants: dict = field(default_factory=dict)  # name -> {dotted key: value} overrides
    evaluation: AblationEvaluation = field(default_factory=AblationEvaluation)
    seed: Optional[int] = None  # every variant's seed (default: the base config's)

    def __post_init__(self) -> None:
        if not self.minutes > 0 or not math.isfinite(self.minutes):
            raise ConfigError(f"minutes must be a positive number, got {self.minutes}")
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


@dataclass(frozen=True)
class VariantResult:
    """One row of the table."""

    name: str
    overrides: dict
    run_dir: str
    checkpoint: str
    step: int
    positions: int
    minutes: float
    vs_opponent: dict  # wins, draws, losses, score, interval, elo, elo_interval
    vs_baseline: Optional[dict]  # the same against the baseline variant; None for the baseline


def load_plan(path: str | Path) -> AblationPlan:
    """The plan of a YAML file; one-line ``ConfigError`` naming what is wrong."""
    import yaml

    path = Path(path)
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ConfigError(f"cannot read ablation plan {path}: {exc.strerror}") from None
    except (yaml.YAMLError, UnicodeDecodeError):
        raise ConfigError(f"{path}: not a valid YAML ablation plan") from None
    try:
        return section_from_dict(AblationPlan, data, "")
    except ConfigError as exc:
        raise ConfigError(f"{path}: {exc}") from None


def variant_overrides(overrides: Optional[dict]) -> dict:
    """Dotted ``{a.b: v}`` overrides as the nested dict ``load_config`` merges."""
    items = [f"{key}={json.dumps(value)}" for key, value in (overrides or {}).items()]
    return parse_overrides(items)


def variant_configs(plan: AblationPlan, plan_name: str, minutes: Optional[float] = None) -> dict[str, Any]:
    """name -> the variant's full training config (checked now, before anything trains)."""
    from ..config import Config

    configs: dict[str, Config] = {}
    for name, overrides in plan.variants.items():
        nested = variant_overrides({**plan.base, **(overrides or {})})
        run = nested.setdefault("run", {})
        run["max_minutes"] = minutes or plan.minutes
        run["name"] = f"ablate-{plan_name}-{name}"
        for bound in ("max_steps", "max_positions"):
            run.setdefault(bound, None)
        if plan.seed is not None:
            nested["seed"] = plan.seed
        try:
            configs[name] = load_config(plan.config, nested)
        except ConfigError as exc:
            raise ConfigError(f"variant {name}: {exc}") from None
    return configs


def _finished(run_dir: Path, minutes: float) -> Optional[tuple[Path, int, int, float]]:
    """(checkpoint, step, positions, minutes) of a run that already trained ``minutes``, else None."""
    from ..train.checkpoint import list_checkpoints, load_checkpoint

    found = list_checkpoints(run_dir)
    if not found:
        return None
    checkpoint = load_checkpoint(found[-1][1])
    seconds = float(checkpoint.counters.get("seconds", 0.0))
    if seconds < minutes * 60 - 1.0:
        return None
    return found[-1][1], checkpoint.step, int(checkpoint.counters.get("positions", 0)), seconds / 60


def _tally(result) -> dict:
    t = result.tally
    low, high = t.score_interval
    elo_low, elo_high = t.elo_interval
    return {"wins": t.wins, "draws": t.draws, "losses": t.losses, "score": t.score, "interval": [low, high],
            "elo": t.elo, "elo_interval": [elo_low, elo_high]}


@dataclass(frozen=True)
class TrainedVariant:
    """A variant whose run trained its minutes."""

    name: str
    run_dir: Path
    checkpoint: Path  # the run's newest checkpoint
    step: int
    positions: int
    minutes: float


def _selected(plan: AblationPlan, only: Optional[list[str]]) -> list[str]:
    unknown = sorted(set(only or ()) - set(plan.variants))
    if unknown:
        raise ConfigError(f"unknown variant {unknown[0]!r} (the plan has {', '.join(plan.variants)})")
    return [n for n in plan.variants if not only or n in only or n == plan.baseline]


def train_variants(plan: AblationPlan, plan_name: str, *, minutes: Optional[float] = None,
                   only: Optional[list[str]] = None, train_fn: Optional[Callable] = None,
                   log: Callable[[str], None] = print) -> list[TrainedVariant]:
    """Train every selected variant that has not trained its minutes yet, one after another."""
    from ..train.driver import train

    from .inloop import evaluate_in_loop

    train_fn = train_fn or train
    minutes = minutes or plan.minutes
    configs = variant_configs(plan, plan_name, minutes)
    trained = []
    for name in _selected(plan, only):
        config = configs[name]
        run_dir = Path(config.run.root) / config.run.name
        done = _finished(run_dir, minutes)
        if done is None:
            log(f"ablate: training {name} for {minutes:g} minutes ({run_dir})")
            resume = (run_dir / "config.yaml").exists()
            summary = train_fn(config, config.run.name, config.run.name, resume, evaluate=evaluate_in_loop)
            if getattr(summary, "cpu", None) is not None:
                log(f"ablate: {name}: {summary.step} steps, {summary.positions:,} positions; {summary.cpu.describe()}")
            done = _finished(run_dir, minutes)
            if done is None:
                raise UserError(f"variant {name} stopped before its {minutes:g} minutes: {summary.stop_reason}")
        else:
            log(f"ablate: {name} already trained ({done[1]} steps), not training again")
        trained.append(TrainedVariant(name, run_dir, *done))
    return trained


@dataclass(frozen=True)
class MatchJob:
    """One match of the table: a variant's network against the fixed opponent or the baseline.
    Agents are named by spec (``evaluate``'s A and B), so a job runs in any process."""

    variant: str
    against: str  # "opponent" or "baseline"
    agent: str  # spec of the variant's network (its checkpoint)
    opponent: str  # spec of the other side
    game: Any  # GameConfig of the variant's run
    games: int
    komi: int
    seed: int
    opening_plies: int
    simulations: int

    @property
    def key(self) -> str:
        """What decides the match's result: the same key, the same tally (the cache of played matches)."""
        return (f"{self.variant} vs {self.against}: {self.agent} vs {self.opponent}, {self.games} games at komi "
                f"{self.komi}, seed {self.seed}, {self.opening_plies} opening plies, {self.simulations} simulations, "
                f"{self.game.side}-{self.game.game_type}-{self.game.scoring}")


def match_jobs(plan: AblationPlan, trained: list[TrainedVariant]) -> list[MatchJob]:
    """Every match of the table, in its rows' order: each variant against the fixed opponent, then
    (but the baseline) against the baseline variant."""
    evaluation = plan.evaluation
    by_name = {t.name: t for t in trained}
    if plan.baseline not in by_name:
        raise ConfigError(f"the baseline variant {plan.baseline!r} has not trained")
    jobs = []
    for variant in trained:
        game = load_config(variant.run_dir / "config.yaml").game
        common = dict(variant=variant.name, agent=str(variant.checkpoint), game=game, komi=evaluation.komi,
                      opening_plies=evaluation.opening_plies, simulations=evaluation.simulations)
        jobs.append(MatchJob(against="opponent", opponent=evaluation.opponent, games=evaluation.games,
                             seed=evaluation.seed, **common))
        if variant.name != plan.baseline and evaluation.baseline_games:
            jobs.append(MatchJob(against="baseline", opponent=str(by_name[plan.baseline].checkpoint),
                                 games=evaluation.baseline_games, seed=evaluation.seed + 1, **common))
    return jobs


def play_job(job: MatchJob) -> dict:
    """Play one match; its tally (wins, draws, losses, score, intervals, Elo)."""
    from .arena import play_match
    from .specs import build_agent, parse_agent_spec

    agent = build_agent(parse_agent_spec(job.agent, simulations=job.simulations))
    other = build_agent(parse_agent_spec(job.opponent, simulations=job.simulations))
    return _tally(play_match(agent, other, job.game, job.games, job.komi, np.random.default_rng(job.seed),
                             opening_plies=job.opening_plies))


def _init_match_process(threads: int) -> None:
    from ..net.device import set_torch_threads

    set_torch_threads(threads)


def _read_played(path: Optional[Path]) -> dict[str, dict]:
    if path is None or not path.exists():
        return {}
    try:
        played = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}  # unreadable: play the matches again (the file is rewritten as they finish)
    return played if isinstance(played, dict) else {}


def measure_variants(plan: AblationPlan, trained: list[TrainedVariant], log: Callable[[str], None] = print,
                     *, jobs: int = 1, threads: int = 1, played: Optional[Path] = None) -> list[VariantResult]:
    """Each trained variant's final network against the fixed opponent and the baseline variant.

    ``jobs`` > 1 plays that many matches at once, each in its own process with ``threads`` inference
    threads (one per core is the usual choice). A match's result does not depend on the others: its
    simulations are counted, not timed, and its generator is its own, so the table is the same.
    ``played``: a JSON file of the matches already played (``MatchJob.key`` -> tally), read first
    and written after each match, so a grown plan or an interrupted ablation plays only the rest."""
    cache = _read_played(played)
    every = match_jobs(plan, trained)
    found: dict[tuple[str, str], dict] = {(job.variant, job.against): cache[job.key] for job in every
                                          if job.key in cache}
    todo = [job for job in every if (job.variant, job.against) not in found]

    def title(job: MatchJob) -> str:
        return f"{job.variant} vs {job.opponent if job.against == 'opponent' else plan.baseline}"

    log(f"ablate: {len(todo)} matches of {plan.evaluation.games} games at komi {plan.evaluation.komi}, "
        f"{max(1, jobs)} at a time" + (f" ({len(found)} played before)" if found else ""))

    def record(job: MatchJob, tally: dict) -> None:
        found[(job.variant, job.against)] = tally
        if played is not None:
            cache[job.key] = tally
            played.parent.mkdir(parents=True, exist_ok=True)
            write_text_atomic(played, json.dumps(cache, indent=1) + "\n")
        log(f"ablate: {title(job)}: +{tally['wins']} ={tally['draws']} -{tally['losses']}, "
            f"score {100 * tally['score']:.1f}% ({len(found)}/{len(every)})")

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
    return [VariantResult(name=v.name, overrides=dict(plan.variants[v.name] or {}), run_dir=str(v.run_dir),
                          checkpoint=str(v.checkpoint), step=v.step, positions=v.positions, minutes=v.minutes,
                          vs_opponent=found[(v.name, "opponent")], vs_baseline=found.get((v.name, "baseline")))
            for v in trained]


def _rate(t: Optional[dict]) -> str:
    if t is None:
        return "-"
    low, high = t["interval"]
    return f"{100 * t['score']:.1f}% [{100 * low:.0f}, {100 * high:.0f}]"


def _elo(t: Optional[dict]) -> str:
    if t is None:
        return "-"
    low, high = t["elo_interval"]
    show = lambda x: "inf" if math.isinf(x) else f"{x:+.0f}"  # noqa: E731
    return f"{show(t['elo'])} [{show(low)}, {show(high)}]"


def table_lines(plan: AblationPlan, results: list[VariantResult]) -> list[str]:
    """The Markdown table of the results."""
    e = plan.evaluation
    lines = [
        f"| variant | overrides | steps | positions | vs {e.opponent} | Elo vs {e.opponent} | vs {plan.baseline} | Elo vs {plan.baseline} |",
        "| --- | --- | ---: | ---: | --- | --- | --- | --- |",
    ]
    for r in results:
        overrides = ", ".join(f"`{k}={json.dumps(v)}`" for k, v in r.overrides.items()) or "(base config)"
        lines.append(f"| {r.name} | {overrides} | {r.step:,} | {r.positions:,} | {_rate(r.vs_opponent)} | "
                     f"{_elo(r.vs_opponent)} | {_rate(r.vs_baseline)} | {_elo(r.vs_baseline)} |")
    return lines


def _base_text(plan: AblationPlan) -> str:
    if not plan.base:
        return ""
    return " (with " + ", ".join(f"`{key}={json.dumps(value)}`" for key, value in plan.base.items()) + " for all)"


def markdown_section(plan: AblationPlan, plan_name: str, command: str, results: list[VariantResult],
                     note: str = "") -> str:
    e = plan.evaluation
    minutes = results[0].minutes if results else plan.minutes
    head = [
        f"<!-- ablation:{plan_name} -->",
        f"### Ablation `{plan_name}`",
        "",
        f"Each variant of `{plan.config}`{_base_text(plan)} trained {minutes:.0f} minutes from the same seed, one after another; "
        f"each final network (its averaged weights where it keeps them) at {e.simulations} simulations a move "
        f"played {e.games} games against `{e.opponent}` and {e.baseline_games} against `{plan.baseline}`, "
        f"at komi {e.komi}, colours alternating over paired openings of {e.opening_plies} random plies. "
        "Score rate = (wins + draws / 2) / games with its Wilson 95% interval; Elo from the score rate.",
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
