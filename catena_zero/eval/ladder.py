"""The ladder of a training run: its kept checkpoints and the baselines against each other, rated.

``run_ladder(run_dir, ...)`` plays the scheduled pairs (``schedule``), appends every match to the
results file ``<run>/ladder/results.json`` (written atomically after each match, so an interrupted
ladder keeps what it finished, and a re-run ADDS games to the same pairs instead of starting over),
fits Bradley-Terry ratings over all results so far (``ratings.fit_ratings``, anchored random = 0),
and writes into ``<run>/ladder/``:
    ratings.csv    one row per player: kind, step, training time, CPU-hours, Elo, standard error,
                   95% interval, games, score rate
    ratings.md     the same as a Markdown table
    ratings.png    Elo against training step and against CPU-hours (training time for checkpoints
                   written before runs counted their CPU), with 95% error bars and the baselines as
                   horizontal lines (matplotlib, Agg backend)
and logs the checkpoints' ratings to the run's TensorBoard (``<run>/tensorboard/ladder``, tag
``ladder/elo`` at each checkpoint's step, and ``ladder/elo_stderr``), replacing the previous
ladder's event files there so that a re-run does not plot every point twice.

Schedules: ``round-robin`` plays every pair of players; ``gauntlet`` (default, linear in the number
of checkpoints) plays every checkpoint against every baseline and against the previous kept
checkpoint, and the baselines against each other, which connects every player to the anchor.

Player ids: ``random``, ``greedy``, ``mcts:K`` and ``step-XXXXXXXX`` (a checkpoint's file stem).
Training time of a checkpoint: its ``counters['seconds']`` when every checkpoint has one, else its
file's modification time, counted from the first checkpoint's. CPU-hours of a checkpoint: its
``counters['cpu_seconds']`` (every process of the run, all sessions: ``train/cputime.py``) plus the
CPU that made the network the run started from, where known (``training_cpu_seconds``: a curriculum's earlier
stage counts), so runs that started differently compare at equal CPU (``eval/curves.py``).

Komi and openings: with a book (``book=``, ``eval/book.py``), every match plays the book's openings,
each twice with colours swapped, at the book's komi (or ``komi=``): one komi for the whole ladder,
so its points are comparable; a re-run plays each pair over the book's next openings (a network
replays a repeated opening identically). Without one, random openings at ``komi=``, else the
reference network's fair komi (``arena.resolve_komi``); matches between baselines at the run's
configured komi. The settings that make results comparable
(game options, network simulations, opening plies) are stored in the results file; a re-run with
different ones is refused with one line.
"""

from __future__ import annotations

import json
import math
import time
import zlib
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Optional, Sequence

import numpy as np

from ..artifacts.layout import TENSORBOARD_DIR  # the ladder writes its own subfolder LADDER_DIR
from ..errors import UserError
from ..fileio import MAX_JSON_BYTES, read_json, write_bytes_atomic, write_text_atomic
from ..game.options import GameConfig
from ..messages import quote
from .agents import Agent
from .arena import DEFAULT_OPENING_PLIES, play_match
from .ratings import Z95, PairResult, RatingFit, fit_ratings
from .specs import AgentSpec, build_agent, parse_agent_spec

if TYPE_CHECKING:
    from ..config import Config

LADDER_DIR = "ladder"
RESULTS_FILE = "results.json"
RESULTS_FORMAT = "catena-zero-ladder"
RESULTS_VERSION = 1
MODES = ("gauntlet", "round-robin")
DEFAULT_BASELINES = ("random", "greedy", "mcts:200")
DEFAULT_GAMES = 20  # per scheduled pair and run of the ladder
ANCHOR = "random"


class LadderError(UserError):
    """A ladder cannot run (bad folder, results file, settings): one-line message."""


@dataclass(frozen=True)
class LadderPlayer:
    """A player of the ladder."""

    id: str  # "random", "greedy", "mcts:K" or "step-XXXXXXXX"
    kind: str  # "baseline" or "checkpoint"
    step: Optional[int] = None  # checkpoints: training step
    seconds: Optional[float] = None  # checkpoints: training time (module docstring)
    path: Optional[str] = None  # checkpoints: the file
    cpu_seconds: Optional[float] = None  # checkpoints: CPU time, the starting network's included (module docstring)
    cpu_complete: bool = True  # False: the starting network's CPU is unknown (a bot file) and left out of cpu_seconds


@dataclass(frozen=True)
class LadderMatch:
    """One match of the results file, from ``a``'s side."""

    a: str
    b: str
    a_wins: int
    draws: int
    b_wins: int
    komi: int
    komi_source: str
    seed: int
    seconds: float

    @property
    def games(self) -> int:
        return self.a_wins + self.draws + self.b_wins


@dataclass(frozen=True)
class LadderResults:
    """The content of ``results.json``."""

    settings: dict  # game options, simulations, opening plies (what makes results comparable)
    matches: tuple[LadderMatch, ...] = ()

    def pair_results(self) -> list[PairResult]:
        return [PairResult(m.a, m.b, m.a_wins, m.draws, m.b_wins) for m in self.matches]

    def games_between(self, a: str, b: str) -> int:
        return sum(m.games for m in self.matches if {m.a, m.b} == {a, b})


@dataclass(frozen=True)
class LadderReport:
    """What ``run_ladder`` did."""

    players: tuple[LadderPlayer, ...]
    fit: RatingFit
    results: LadderResults
    played: tuple[LadderMatch, ...]  # the matches of this run
    files: tuple[Path, ...] = field(default=())


# ------------------------------------------------------------------------------- results file


_MATCH_FIELDS = {field: kind for field, kind in LadderMatch.__annotations__.items()}  # name -> "str", "int", "float"


def _match(entry: object, path: Path) -> LadderMatch:
    """A ``LadderMatch`` of a results file's entry, every field of its type (whole numbers not
    negative, the seconds finite and not negative); ``LadderError`` naming the field otherwise."""
    if not isinstance(entry, dict) or set(entry) != set(_MATCH_FIELDS):
        fields = ", ".join(_MATCH_FIELDS)
        raise LadderError(f"{path} has a bad entry: a match is an object of the fields {fields}, got {quote(entry)}")
    for name, kind in _MATCH_FIELDS.items():
        value = entry[name]
        if kind == "str":
            ok = isinstance(value, str)
        elif kind == "int":
            ok = isinstance(value, int) and not isinstance(value, bool) and (name in ("komi", "seed") or value >= 0)
        else:  # read_json has refused NaN and infinities
            ok = isinstance(value, (int, float)) and not isinstance(value, bool) and value >= 0
        if not ok:
            what = {"str": "a string", "int": "a whole number", "float": "a number"}[kind]
            raise LadderError(f"{path} has a bad entry: {name} must be {what}"
                              f"{'' if kind == 'str' or name in ('komi', 'seed') else ' >= 0'}, got {quote(value)}")
    return LadderMatch(**entry)


def load_results(path: Path) -> Optional[LadderResults]:
    """The results file, or None if there is none yet; ``LadderError`` if it is damaged: too big,
    nested too deep, a number not finite (``fileio.read_json``), a field of the wrong type."""
    if not path.exists():
        return None
    data = read_json(path, "ladder results file", MAX_JSON_BYTES, LadderError)
    if not isinstance(data, dict) or data.get("format") != RESULTS_FORMAT:
        raise LadderError(f"{path} is not a catena-zero ladder results file")
    if data.get("version") != RESULTS_VERSION:
        raise LadderError(f"{path} has ladder results version {quote(data.get('version'))}; "
                          f"this catena-zero reads {RESULTS_VERSION}")
    if not isinstance(data.get("matches"), list) or not isinstance(data.get("settings"), dict):
        raise LadderError(f"{path} has a bad entry: it needs a list of matches and an object of settings")
    matches = tuple(_match(m, path) for m in data["matches"])
    return LadderResults(settings=dict(data["settings"]), matches=matches)


def save_results(path: Path, results: LadderResults) -> Path:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise LadderError(f"cannot create {path.parent}: {exc.strerror}") from None
    data = {"format": RESULTS_FORMAT, "version": RESULTS_VERSION, "settings": results.settings,
            "matches": [asdict(m) for m in results.matches]}
    return write_text_atomic(path, json.dumps(data, indent=1) + "\n")


# ------------------------------------------------------------------------------- players and schedule


def checkpoint_players(run_dir: Path) -> list[LadderPlayer]:
    """The run's kept checkpoints as players, oldest first, with their training time and CPU time."""
    from ..artifacts.checkpoint import list_checkpoints, load_checkpoint

    found = list_checkpoints(run_dir)
    loaded = [load_checkpoint(path) for _, path in found]
    counters = [c.counters.get("seconds") for c in loaded]
    if found and all(isinstance(s, (int, float)) for s in counters):
        seconds = [float(s) for s in counters]
    else:
        mtimes = [path.stat().st_mtime for _, path in found]
        seconds = [t - min(mtimes) for t in mtimes]
    own = [_own_cpu_seconds(c.counters) for c in loaded]
    cpu: list[Optional[float]] = [None] * len(found)
    complete = True
    if found and None not in own:  # one written before runs counted CPU: no CPU axis rather than a partial one
        before = inherited_cpu(loaded[-1].config)  # the run's start: once, the same for all
        complete = before.complete
        cpu = [before.after(s).seconds for s in own]
    return [LadderPlayer(id=path.stem, kind="checkpoint", step=step, seconds=s, path=str(path), cpu_seconds=c,
                         cpu_complete=complete)
            for (step, path), s, c in zip(found, seconds, cpu)]


@dataclass(frozen=True)
class TrainingCpu:
    """The CPU time that made a network: what is known of it, and where the chain of ``train.init_from``
    stops being known. A curriculum's stages add up (run C from B's checkpoint, B from A's: C + B +
    A); a bot file keeps no counters, so a chain through one counts the stages after it only."""

    seconds: float  # the known part: the run's own CPU and its predecessors' up to the first unknown one
    unknown_from: str = ""  # the first init_from up the chain whose CPU is not known ("" when all is known)

    @property
    def complete(self) -> bool:
        return not self.unknown_from

    def after(self, own: float) -> "TrainingCpu":
        """The CPU of a run of ``own`` seconds that started from the network this counts."""
        return TrainingCpu(own + self.seconds, self.unknown_from)


def training_cpu_seconds(counters: dict, config: "Config") -> Optional[TrainingCpu]:
    """The CPU time that made a checkpoint: its ``counters['cpu_seconds']`` plus what the network
    its run started from took (``inherited_cpu``). None for a checkpoint written before runs
    counted their CPU. The ladder's CPU-hours and the shipped bots' index both read it."""
    own = _own_cpu_seconds(counters)
    if own is None:
        return None
    return inherited_cpu(config).after(own)


def _own_cpu_seconds(counters: dict) -> Optional[float]:
    """A checkpoint's ``cpu_seconds``, None when it has none (0: written before runs counted CPU)."""
    own = counters.get("cpu_seconds")
    return float(own) if isinstance(own, (int, float)) and own > 0 else None


def inherited_cpu(config: "Config", _depth: int = 0) -> TrainingCpu:
    """The CPU time that made the network a run started from (``train.init_from``, a checkpoint or
    a run folder, whose newest checkpoint counts): that checkpoint's ``cpu_seconds`` plus what it
    inherited in turn. Nothing for a run from random weights. The chain stops being known at a bot
    file (which keeps no counters), a source gone or unreadable since, or a checkpoint written
    before runs counted their CPU. A relative ``init_from`` is read from the current folder, as
    training did."""
    from ..artifacts.checkpoint import load_checkpoint
    from ..artifacts.network import CHECKPOINT, network_kind

    source = config.train.init_from
    if not source:
        return TrainingCpu(0.0)
    unknown = TrainingCpu(0.0, source)
    if _depth >= 16:  # a chain this long is a loop of run folders started from each other
        return unknown
    try:
        if network_kind(Path(source)) != CHECKPOINT:
            return unknown
        checkpoint = load_checkpoint(source)
    except UserError:
        return unknown
    own = _own_cpu_seconds(checkpoint.counters)
    if own is None:
        return unknown
    return inherited_cpu(checkpoint.config, _depth + 1).after(own)


def spread_checkpoints(players: Sequence[LadderPlayer], count: int) -> list[LadderPlayer]:
    """``count`` of the checkpoints, evenly spread over training time, always the first and the newest.

    A long run keeps a checkpoint every few hundred steps (``run.keep_every``); rating all of them
    costs a match per pair, while a learning curve needs a dozen points.
    """
    if count < 2:
        raise LadderError(f"a ladder needs at least 2 checkpoints, got {count}")
    ordered = sorted(players, key=lambda p: p.step)
    if len(ordered) <= count:
        return list(ordered)
    times = np.array([p.seconds if p.seconds is not None else float(p.step) for p in ordered], dtype=float)
    targets = np.linspace(times[0], times[-1], count)
    chosen: list[int] = []
    for t in targets:  # the nearest not yet chosen, so the count is exact even where times bunch up
        for i in np.argsort(np.abs(times - t), kind="stable"):
            if int(i) not in chosen:
                chosen.append(int(i))
                break
    return [ordered[i] for i in sorted(chosen)]


def schedule(players: Sequence[LadderPlayer], mode: str) -> list[tuple[str, str]]:
    """The pairs to play, each once (module docstring); the checkpoint (or newer one) first."""
    if mode not in MODES:
        raise LadderError(f"unknown ladder mode {mode!r} (known: {', '.join(MODES)})")
    baselines = [p for p in players if p.kind == "baseline"]
    checkpoints = sorted((p for p in players if p.kind == "checkpoint"), key=lambda p: p.step)
    pairs: list[tuple[str, str]] = []
    for i, x in enumerate(baselines):
        pairs += [(y.id, x.id) for y in baselines[i + 1:]]
    for i, c in enumerate(checkpoints):
        others = [b.id for b in baselines] + [p.id for p in (checkpoints[:i] if mode == "round-robin" else checkpoints[i - 1:i])]
        pairs += [(c.id, other) for other in others]
    return pairs


def _match_seed(seed: int, a: str, b: str, played: int) -> int:
    """A seed per (pair, games already played): a re-run draws new openings, deterministically."""
    key = np.random.SeedSequence([seed, zlib.crc32(a.encode()), zlib.crc32(b.encode()), played])
    return int(key.generate_state(1, np.uint64)[0] >> np.uint64(1))


# ------------------------------------------------------------------------------- the ladder


def run_ladder(
    run_dir: str | Path,
    games: int = DEFAULT_GAMES,
    mode: str = "gauntlet",
    simulations: Optional[int] = None,
    baselines: Sequence[str] = DEFAULT_BASELINES,
    seed: int = 0,
    opening_plies: int = DEFAULT_OPENING_PLIES,
    device: Optional[str] = None,
    play: bool = True,
    max_checkpoints: Optional[int] = None,
    prior_games: float = 2.0,
    sequential_prior_games: float = 0.0,
    book: Optional[str] = None,
    komi: Optional[int] = None,
    log: Callable[[str], None] = lambda line: None,
) -> LadderReport:
    """Play the ladder of ``run_dir`` (module docstring); returns what it played and the fit.

    games: games per scheduled pair in this run (added to those already in the results file).
    simulations: search budget of the checkpoints per move; None: the results file's, else the
        newest checkpoint's configured ``search.num_simulations``.
    baselines: baseline specs ("random" is always included: it is the anchor).
    play: False only refits and rewrites the outputs from the results file.
    max_checkpoints: play only this many checkpoints, spread over training time
        (``spread_checkpoints``); None: all kept ones.
    prior_games, sequential_prior_games: the rating fit's priors (``ratings.fit_ratings``).
    book: ``--book N|FILE`` (``book.resolve_book``): the openings of every match (games must be even).
    komi: the komi of every match (default: the book's, else as ``arena.resolve_komi``).
    """
    from .book import resolve_book

    from ..artifacts.checkpoint import load_checkpoint, resolve_checkpoint

    run_dir = Path(run_dir)
    if not run_dir.is_dir():
        raise LadderError(f"no such run folder: {run_dir}")
    if games < 1:
        raise LadderError(f"games per pair must be at least 1, got {games}")
    if mode not in MODES:
        raise LadderError(f"unknown ladder mode {mode!r} (known: {', '.join(MODES)})")
    newest = load_checkpoint(resolve_checkpoint(run_dir))  # CheckpointError: a folder without checkpoints
    game: GameConfig = newest.config.game
    folder = run_dir / LADDER_DIR
    results_path = folder / RESULTS_FILE
    results = load_results(results_path)
    stored = results.settings if results is not None else {}
    sims = simulations if simulations is not None else stored.get("simulations", newest.config.search.num_simulations)
    settings = {"side": game.side, "game_type": game.game_type, "scoring": game.scoring,
                "simulations": int(sims), "opening_plies": int(opening_plies)}
    opening_book = None
    if book is not None:
        if games % 2:
            raise LadderError(f"a ladder over a book plays two games per opening: --games must be even, got {games}")
        opening_book = resolve_book(book, game, komi)
        settings.update(book=opening_book.describe(), komi=int(opening_book.komi if komi is None else komi))
    elif komi is not None:
        settings.update(komi=int(komi))
    if results is not None and results.settings != settings:
        key = next(k for k in settings if results.settings.get(k) != settings[k])
        raise LadderError(
            f"{results_path} was played with {key} {results.settings.get(key)!r}, not {settings[key]!r}; "
            f"rerun with the same settings or move the file away to start a new ladder")
    if results is None:
        results = LadderResults(settings=settings)

    # A bot file is a fixed panel member too (the shipped bot at the ladder's simulations).
    baseline_specs = {spec.name: spec for spec in (parse_agent_spec(text, simulations=int(sims))
                                                   for text in dict.fromkeys([ANCHOR, *baselines]))}
    for name, spec in baseline_specs.items():
        if spec.kind not in ("random", "greedy", "mcts", "bot"):
            raise LadderError(f"ladder baselines are random, greedy, mcts:K and bot files; got {name!r}")
    kept = checkpoint_players(run_dir)
    if max_checkpoints is not None:
        kept = spread_checkpoints(kept, max_checkpoints)
    players = [LadderPlayer(id=name, kind="baseline") for name in baseline_specs] + kept
    by_id = {p.id: p for p in players}
    agents: dict[str, Agent] = {}

    def agent(player_id: str) -> Agent:
        if player_id not in agents:
            p = by_id[player_id]
            spec = (baseline_specs[p.id] if p.kind == "baseline" else
                    AgentSpec(kind="checkpoint", name=p.id, simulations=int(sims), path=p.path, step=p.step))
            agents[player_id] = build_agent(spec, device=device)
        return agents[player_id]

    played: list[LadderMatch] = []
    pairs = schedule(players, mode) if play else []
    for number, (a, b) in enumerate(pairs, start=1):
        match_seed = _match_seed(seed, a, b, results.games_between(a, b))
        rng = np.random.default_rng(match_seed)
        # The checkpoint side first, so a komi tie between equal steps goes to it (arena.resolve_komi).
        if opening_book is None:
            result = play_match(agent(a), agent(b), game, games, komi, rng, opening_plies=opening_plies)
        else:
            used = results.games_between(a, b) // 2
            part = opening_book.part(used, used + games // 2)
            if len(part) < games // 2:
                raise LadderError(f"{a} vs {b} has played {used} of the book's {len(opening_book)} openings; "
                                  f"{games // 2} more do not fit: use a bigger --book")
            result = play_match(agent(a), agent(b), game, games, komi, rng, book=part)
        t = result.tally
        match = LadderMatch(a=a, b=b, a_wins=t.wins, draws=t.draws, b_wins=t.losses, komi=result.game.komi,
                            komi_source=result.komi_source, seed=match_seed, seconds=round(result.seconds, 3))
        results = LadderResults(settings=settings, matches=results.matches + (match,))
        save_results(results_path, results)
        played.append(match)
        log(f"[{number}/{len(pairs)}] {a} vs {b}: +{t.wins} ={t.draws} -{t.losses} at komi {match.komi}, "
            f"{result.seconds:.1f} s")

    if not results.matches:
        raise LadderError(f"{results_path} holds no games yet; run the ladder without --no-play first")
    known = {p.id for p in players}
    for m in results.matches:  # players of earlier runs whose checkpoints were pruned since
        for pid in (m.a, m.b):
            if pid not in known:
                known.add(pid)
                step = int(pid[5:]) if pid.startswith("step-") and pid[5:].isdigit() else None
                players.append(LadderPlayer(id=pid, kind="checkpoint" if step is not None else "baseline", step=step))
    # Rated: the players with games (a baseline or new checkpoint not played yet, e.g. with
    # play=False, would be rated by the prior alone), and the anchor.
    with_games = {pid for m in results.matches if m.games for pid in (m.a, m.b)} | {ANCHOR}
    players = [p for p in players if p.id in with_games]
    order = [p.id for p in players]
    checkpoints = [p.id for p in sorted((p for p in players if p.step is not None), key=lambda p: p.step)]
    fit = fit_ratings(results.pair_results(), players=order, anchor=ANCHOR, prior_games=prior_games,
                      sequential=checkpoints, sequential_prior_games=sequential_prior_games)
    files = write_outputs(run_dir, tuple(players), fit, results)
    return LadderReport(players=tuple(players), fit=fit, results=results, played=tuple(played), files=tuple(files))


# ------------------------------------------------------------------------------- outputs


def _elo(x: float) -> str:
    return f"{x:.0f}" if math.isfinite(x) else "inf"


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


def write_outputs(run_dir: Path, players: Sequence[LadderPlayer], fit: RatingFit, results: LadderResults) -> list[Path]:
    """ratings.csv, ratings.md, ratings.png and the TensorBoard scalars (module docstring)."""
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
        interval = "anchor" if r["player"] == fit.anchor else f"[{_elo(r['elo_low95'])}, {_elo(r['elo_high95'])}]"
        score = "" if r["score_rate"] == "" else f"{100 * r['score_rate']:.1f}%"
        md.append(f"| {r['player']} | {r['step']} | {minutes} | {hours} | {_elo(r['elo'])} | {interval} | {r['games']} "
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
                       label=f"{b['player']} ({_elo(b['elo'])})")
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
