"""The ladder of a training run: its kept checkpoints and the baselines against each other, rated.

``run_ladder(run_dir, ...)`` plays the scheduled pairs (``schedule``), appends every match to
``<run>/ladder/results.json`` (written atomically after each match, so an interrupted ladder keeps
what it finished, and a re-run ADDS games to the same pairs instead of starting over), fits
Bradley-Terry ratings over all results so far (``ratings.fit_ratings``, anchored random = 0), and
writes ratings.csv, ratings.md, ratings.png (Elo against step and against CPU-hours) and the
TensorBoard scalars ``ladder/elo`` into the run (``reports.write_ladder``; a re-run replaces the
previous ladder's event files, so no point is plotted twice).

The records and the results file are ``ladder_file.py``'s. Schedules: ``round-robin`` plays every
pair of players; ``gauntlet`` (default, linear in the number of checkpoints) plays every checkpoint
against every baseline and the previous kept checkpoint, and the baselines against each other,
which connects every player to the anchor.

Player ids: ``random``, ``greedy``, ``mcts:K`` and ``step-XXXXXXXX`` (a checkpoint's file stem).
Training time of a checkpoint: its ``counters['seconds']`` when every checkpoint has one, else its
file's modification time, counted from the first checkpoint's. CPU-hours of a checkpoint: its
``counters['cpu_seconds']`` (every process of the run, all sessions: ``train/cputime.py``) plus the
CPU that made the network the run started from, where known (``artifacts/provenance.py``: a
curriculum's earlier stage counts), so runs that started differently compare at equal CPU
(``eval/curves.py``).

Komi and openings: with a book (``book=``, ``eval/book.py``), every match plays the book's openings,
each twice with colours swapped, at the book's komi (or ``komi=``): one komi for the whole ladder,
so its points are comparable; a re-run plays each pair over the book's next openings (a network
replays a repeated opening identically). Without one, random openings at ``komi=``, else the
reference network's fair komi (``arena.resolve_komi``); matches between baselines at the run's
configured komi. The settings that make results comparable (game options, network simulations,
opening plies) are stored in the results file; a re-run with different ones is refused in one line.
"""


from __future__ import annotations

import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Optional, Sequence

import numpy as np

from ..artifacts.provenance import run_provenance
from .agents import Agent
from .arena import DEFAULT_OPENING_PLIES, play_match
from .ladder_file import (ANCHOR, LADDER_DIR, RESULTS_FILE, LadderError, LadderMatch, LadderPlayer, LadderResults,
                          load_results, save_results)
from .ratings import RatingFit, fit_ratings
from .reports import write_ladder
from .specs import AgentSpec, build_agent, parse_agent_spec

if TYPE_CHECKING:
    from ..config import Config
    from ..game.options import GameConfig
    from .book import Book

__all__ = ["DEFAULT_BASELINES", "DEFAULT_GAMES", "LADDER_DIR", "MODES", "RESULTS_FILE", "LadderError", "LadderPlayer",
           "LadderReport", "checkpoint_players", "load_results", "run_ladder", "schedule", "spread_checkpoints"]

MODES = ("gauntlet", "round-robin")
DEFAULT_BASELINES = ("random", "greedy", "mcts:200")
DEFAULT_GAMES = 20  # per scheduled pair and run of the ladder
BASELINE_KINDS = ("random", "greedy", "mcts", "bot")  # a bot file is a fixed panel member too


@dataclass(frozen=True)
class LadderReport:
    """What ``run_ladder`` did."""

    players: tuple[LadderPlayer, ...]
    fit: RatingFit
    results: LadderResults
    played: tuple[LadderMatch, ...]  # the matches of this run
    files: tuple[Path, ...] = field(default=())


# ------------------------------------------------------------------------------- players and schedule


def checkpoint_players(run_dir: Path) -> list[LadderPlayer]:
    """The run's kept checkpoints as players, oldest first, with their training time and CPU time
    (``provenance.run_provenance``)."""
    return [LadderPlayer(id=p.path.stem, kind="checkpoint", step=p.step, seconds=p.seconds, path=str(p.path),
                         cpu_seconds=None if p.cpu is None else p.cpu.seconds,
                         cpu_complete=True if p.cpu is None else p.cpu.complete)
            for p in run_provenance(run_dir)]


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


@dataclass(frozen=True)
class _Setup:
    """What every match of one ladder run shares: its settings (stored in the results file), the
    options and the openings."""

    settings: dict
    game: "GameConfig"
    simulations: int
    book: Optional["Book"]


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
    from ..artifacts.checkpoint import load_checkpoint, resolve_checkpoint

    run_dir = Path(run_dir)
    _check_arguments(run_dir, games, mode)
    newest = load_checkpoint(resolve_checkpoint(run_dir))  # CheckpointError: a folder without checkpoints
    results_path = run_dir / LADDER_DIR / RESULTS_FILE
    stored = load_results(results_path)
    setup = _setup(newest.config, stored, simulations, opening_plies, games, book, komi)
    results = _comparable(stored, setup.settings, results_path)
    specs = _baseline_specs(baselines, setup.simulations)
    players = [LadderPlayer(id=name, kind="baseline") for name in specs] + _kept(run_dir, max_checkpoints)
    agents = _Agents(specs, {p.id: p for p in players}, setup.simulations, device)
    results, played = _play_schedule(agents, schedule(players, mode) if play else [], setup, results, results_path,
                                     _Match(games, komi, seed, opening_plies), log)
    if not results.matches:
        raise LadderError(f"{results_path} holds no games yet; run the ladder without --no-play first")
    rated, fit = fit_ladder(players, results, prior_games, sequential_prior_games)
    files = write_ladder(run_dir, rated, fit, results)
    return LadderReport(players=tuple(rated), fit=fit, results=results, played=tuple(played), files=tuple(files))


def _kept(run_dir: Path, count: Optional[int]) -> list[LadderPlayer]:
    """The checkpoints the ladder plays: every kept one, or ``count`` of them (``spread_checkpoints``)."""
    kept = checkpoint_players(run_dir)
    return kept if count is None else spread_checkpoints(kept, count)


def _check_arguments(run_dir: Path, games: int, mode: str) -> None:
    if not run_dir.is_dir():
        raise LadderError(f"no such run folder: {run_dir}")
    if games < 1:
        raise LadderError(f"games per pair must be at least 1, got {games}")
    if mode not in MODES:
        raise LadderError(f"unknown ladder mode {mode!r} (known: {', '.join(MODES)})")


def _setup(config: "Config", results: Optional[LadderResults], simulations: Optional[int], opening_plies: int,
           games: int, book: Optional[str], komi: Optional[int]) -> _Setup:
    """The settings of this run: the game of ``config`` (the newest checkpoint's), the simulations
    (given, else the results file's, else its configured ones), the book and komi."""
    from .book import resolve_book

    game = config.game
    stored = results.settings if results is not None else {}
    sims = int(simulations if simulations is not None else stored.get("simulations", config.search.num_simulations))
    settings = {"side": game.side, "game_type": game.game_type, "scoring": game.scoring,
                "simulations": sims, "opening_plies": int(opening_plies)}
    opening_book = None
    if book is not None:
        if games % 2:
            raise LadderError(f"a ladder over a book plays two games per opening: --games must be even, got {games}")
        opening_book = resolve_book(book, game, komi)
        settings.update(book=opening_book.describe(), komi=int(opening_book.komi if komi is None else komi))
    elif komi is not None:
        settings.update(komi=int(komi))
    return _Setup(settings=settings, game=game, simulations=sims, book=opening_book)


def _comparable(stored: Optional[LadderResults], settings: dict, path: Path) -> LadderResults:
    """The results so far (none yet: an empty file of ``settings``); ``LadderError`` naming the first
    setting that differs from the stored one's."""
    if stored is None:
        return LadderResults(settings=settings)
    if stored.settings != settings:
        key = next(k for k in settings if stored.settings.get(k) != settings[k])
        raise LadderError(f"{path} was played with {key} {stored.settings.get(key)!r}, not {settings[key]!r}; "
                          f"rerun with the same settings or move the file away to start a new ladder")
    return stored


def _baseline_specs(baselines: Sequence[str], simulations: int) -> dict[str, AgentSpec]:
    """The panel's specs by name, the anchor first (a bot file plays at the ladder's simulations)."""
    specs = {spec.name: spec for spec in (parse_agent_spec(text, simulations=simulations)
                                          for text in dict.fromkeys([ANCHOR, *baselines]))}
    for name, spec in specs.items():
        if spec.kind not in BASELINE_KINDS:
            raise LadderError(f"ladder baselines are random, greedy, mcts:K and bot files; got {name!r}")
    return specs


class _Agents:
    """The ladder's agents by player id, each built once, when it first plays."""

    def __init__(self, baselines: dict[str, AgentSpec], players: dict[str, LadderPlayer], simulations: int,
                 device: Optional[str]) -> None:
        self.baselines, self.players, self.simulations, self.device = baselines, players, simulations, device
        self.built: dict[str, Agent] = {}

    def __getitem__(self, player_id: str) -> Agent:
        if player_id not in self.built:
            p = self.players[player_id]
            spec = (self.baselines[p.id] if p.kind == "baseline" else
                    AgentSpec(kind="checkpoint", name=p.id, simulations=self.simulations, path=p.path, step=p.step))
            self.built[player_id] = build_agent(spec, device=self.device)
        return self.built[player_id]


@dataclass(frozen=True)
class _Match:
    """How each match of this run is played (``run_ladder``'s arguments)."""

    games: int
    komi: Optional[int]
    seed: int
    opening_plies: int


def _play_schedule(agents: _Agents, pairs: list[tuple[str, str]], setup: _Setup, results: LadderResults,
                   path: Path, how: _Match, log: Callable[[str], None]) -> tuple[LadderResults, list[LadderMatch]]:
    """Play ``pairs`` in order, each match added to the results file as it ends (an interrupted
    ladder keeps what it finished); the results with them and the matches played."""
    played: list[LadderMatch] = []
    for number, (a, b) in enumerate(pairs, start=1):
        match, seconds = _play_pair(agents, a, b, setup, results, how)
        results = LadderResults(settings=setup.settings, matches=results.matches + (match,))
        save_results(path, results)
        played.append(match)
        log(f"[{number}/{len(pairs)}] {a} vs {b}: {match.tally.line()} at komi {match.komi}, {seconds:.1f} s")
    return results, played


def _play_pair(agents: _Agents, a: str, b: str, setup: _Setup, results: LadderResults,
               how: _Match) -> tuple[LadderMatch, float]:
    """One scheduled match (and the seconds it took): over the book's next openings for this pair,
    else random openings."""
    games, komi, seed, opening_plies = how.games, how.komi, how.seed, how.opening_plies
    match_seed = _match_seed(seed, a, b, results.games_between(a, b))
    rng = np.random.default_rng(match_seed)
    # The checkpoint side first, so a komi tie between equal steps goes to it (arena.resolve_komi).
    if setup.book is None:
        result = play_match(agents[a], agents[b], setup.game, games, komi, rng, opening_plies=opening_plies)
    else:
        used = results.games_between(a, b) // 2
        part = setup.book.part(used, used + games // 2)
        if len(part) < games // 2:
            raise LadderError(f"{a} vs {b} has played {used} of the book's {len(setup.book)} openings; "
                              f"{games // 2} more do not fit: use a bigger --book")
        result = play_match(agents[a], agents[b], setup.game, games, komi, rng, book=part)
    t = result.tally
    match = LadderMatch(a=a, b=b, a_wins=t.wins, draws=t.draws, b_wins=t.losses, komi=result.game.komi,
                        komi_source=result.komi_source, seed=match_seed, seconds=round(result.seconds, 3))
    return match, result.seconds


# ------------------------------------------------------------------------------- the fit


def fit_ladder(players: Sequence[LadderPlayer], results: LadderResults, prior_games: float,
               sequential_prior_games: float) -> tuple[list[LadderPlayer], RatingFit]:
    """The rated players and their fit over every match of the results file: the players with
    games (a baseline or new checkpoint not played yet, e.g. with play=False, would be rated by
    the prior alone), players of earlier runs whose checkpoints were pruned since, and the anchor."""
    players = list(players)
    known = {p.id for p in players}
    for m in results.matches:
        for pid in (m.a, m.b):
            if pid not in known:
                known.add(pid)
                step = int(pid[5:]) if pid.startswith("step-") and pid[5:].isdigit() else None
                players.append(LadderPlayer(id=pid, kind="checkpoint" if step is not None else "baseline", step=step))
    with_games = {pid for m in results.matches if m.games for pid in (m.a, m.b)} | {ANCHOR}
    players = [p for p in players if p.id in with_games]
    checkpoints = [p.id for p in sorted((p for p in players if p.step is not None), key=lambda p: p.step)]
    fit = fit_ratings(results.pair_results(), players=[p.id for p in players], anchor=ANCHOR,
                      prior_games=prior_games, sequential=checkpoints, sequential_prior_games=sequential_prior_games)
    return players, fit
