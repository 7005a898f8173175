"""The matches of an ablation's table (``eval/ablation.py``): every trained run's network against
the plan's fixed opponent and (but the baseline's) against the baseline run of its seed, over the
rule set's book (the same openings for every match, common random numbers), each opening twice
with colours swapped, at one komi.

A match is a ``MatchJob``: plain values naming its agents by spec (``evaluate``'s A and B), so it
plays in any process. Its result is a tally (``play_job``): wins, draws, losses, the pentanomial
pair counts, the score and the Elo with their intervals, the komi. Played tallies are kept in a
JSON file (``MatchJob.key`` -> tally), read first and rewritten after each match, so a grown plan
or an interrupted ablation plays only the rest.

``--jobs`` N plays N matches at once, each in its own process (``_in_processes``: a
``concurrent.futures`` pool of spawned processes). A match counts simulations, not time, and has
its own generator, so its result does not depend on the others or on the load: the table is the
same. This pool is apart from Ray (``selfplay/workers.py``), which runs a training run's self-play:
the matches need no cluster, only the cores of this machine.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Iterator, Optional, Sequence

import numpy as np

from ..artifacts.layout import CONFIG_FILE
from ..config import ConfigError, load_config
from ..errors import UserError
from ..fileio import MAX_JSON_BYTES, read_json, write_text_atomic
from ..game.options import GameConfig
from .ablation import AblationPlan, TrainedVariant
from .ratings import Tally

if TYPE_CHECKING:
    from .arena import MatchResult

TALLY_KEYS = ("wins", "draws", "losses", "pairs", "score", "interval", "elo", "elo_interval", "komi")


@dataclass(frozen=True)
class MatchJob:
    """One match of the table: a run's network against the fixed opponent or its seed's baseline.
    Agents are named by spec (``evaluate``'s A and B), so a job runs in any process."""

    variant: str
    seed_run: int  # the seed of the variant's run
    against: str  # "opponent" or "baseline"
    agent: str  # spec of the variant's network (its checkpoint)
    opponent: str  # spec of the other side
    game: GameConfig  # of the variant's run
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


def _tally(result: "MatchResult") -> dict:
    """The match cache's entry of a match (``TALLY_KEYS``), as ``ablation_decision.pool`` reads it."""
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

    if not isinstance(value, dict) or set(value) != set(TALLY_KEYS):
        return False
    pairs, interval, elo_interval = value["pairs"], value["interval"], value["elo_interval"]
    return (all(count(value[k]) for k in ("wins", "draws", "losses"))
            and isinstance(pairs, list) and len(pairs) == 5 and all(count(p) for p in pairs)
            and number(value["score"]) and 0 <= value["score"] <= 1 and number(value["elo"])
            and all(isinstance(v, list) and len(v) == 2 and all(number(x) for x in v) for v in (interval, elo_interval))
            and isinstance(value["komi"], int) and not isinstance(value["komi"], bool))


def play_jobs(plan: AblationPlan, trained: list[TrainedVariant], log: Callable[[str], None] = print,
              *, jobs: int = 1, threads: int = 1, played: Optional[Path] = None) -> dict[tuple[str, int, str], dict]:
    """(variant, seed, "opponent"/"baseline") -> the match's tally, for every match of the table;
    ``jobs`` matches at once, each process with ``threads`` inference threads; ``played``: the match
    cache's file (module docstring)."""
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
        wdl = Tally(tally["wins"], tally["draws"], tally["losses"]).line()
        log(f"ablate: {job.variant} seed {job.seed_run} vs {other}: {wdl}, score {100 * tally['score']:.1f}% "
            f"({len(found)}/{len(every)})")

    played_now = (play_job(job) for job in todo) if jobs <= 1 else _in_processes(todo, jobs, threads)
    for job, tally in zip(todo, played_now):
        record(job, tally)
    return found


def _in_processes(todo: Sequence[MatchJob], jobs: int, threads: int) -> Iterator[dict]:
    """``play_job`` of each of ``todo``, in order, ``jobs`` at a time, each in its own process with
    ``threads`` inference threads (the module docstring says why apart from Ray)."""
    import concurrent.futures
    import multiprocessing

    # spawn, not fork: the parent may hold torch's thread pools (and Ray's) already.
    with concurrent.futures.ProcessPoolExecutor(max_workers=jobs, mp_context=multiprocessing.get_context("spawn"),
                                                initializer=_init_match_process, initargs=(threads,)) as pool:
        yield from pool.map(play_job, todo)
