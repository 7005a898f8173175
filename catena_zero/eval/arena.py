"""The arena: a match of G games between two agents, all games at once, and its report.

Shape legend: G games of a match, K games one side is to move in at a ply (K <= G), A actions
(N cells + the button).

How a match is played (``play_match``):
- All G games are one ``VecEnv`` batch. At every ply the side to move in each game is A or B;
  A is called once on the K games where A is to move and B once on the others: two agent calls
  per ply, whatever G is (a search agent then runs one batched search for its K games).
- Colours alternate and openings are paired: games 2i and 2i+1 start with the same opening, A
  playing Black in game 2i and White in game 2i+1 (cutechess-cli's "-repeat", the usual way to
  cancel the first-move advantage and the luck of the opening).
- Openings vary: each pair's opening is ``opening_plies`` (default 2) uniformly random legal
  actions (the button included), drawn from the match's rng before play, distinct from every other
  pair's opening up to the 12 board symmetries (R1); when the openings of that length run out
  (tiny boards, many games), a colliding draw is redrawn, then lengthened by one ply. Every game's
  record keeps its opening (``GameOutcome.opening``, and a comment in the saved record). So no two
  games of a match are identical: different openings, or the same opening with colours swapped.
- Openings from a book (``eval/book.py``): ``book=`` gives each pair's opening (the same book for
  every match of a comparison), and the match plays 2 games per opening.
- Komi: one komi per rule set for every match of a comparison (``resolve_komi``): ``komi=K``, else
  the book's, else the fair komi of the rule set's shipped bot (``bot/shipped.py``), never that of
  whichever network plays; only without a shipped bot the stronger network side's own (the later
  step; A on a tie), saying so; between baselines, the game config's.
- Randomness: the match's rng draws the openings, then one seed from which each side's own
  generator is spawned (rollouts, tie-breaks). Same rng, same match.

The report (``report_lines``): W/D/L overall and by A's colour, the five pair counts (the
pentanomial: pairs A scored 0, 1/2, 1, 3/2, 2 in), the score rate with its 95% interval from the
variance of the pair scores and the Elo difference with its interval (``sprt.py``; the two games of
a pair share an opening, so they are not independent, and the pair variance is what fishtest uses),
the speed, and a final ``summary:`` line. Only a match with no complete pair (one game) falls back
to the Wilson interval over games (``ratings.py``).
"""

from __future__ import annotations

import dataclasses
import functools
import math
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Optional, Sequence

import numpy as np

from ..bot.players import check_plays
from ..errors import UserError
from ..fileio import write_text_atomic
from ..game.options import GameConfig, RuleSet, check_komi
from ..game.records import format_record
from ..game.rules import Game
from ..game.spec import board_spec
from ..game.vec import BLACK, EMPTY, WHITE, VecEnv, random_legal_actions
from ..search.komi import KomiEstimate
from .agents import Agent
from .book import Book
from .ratings import Tally, elo_number, elo_text
from .sprt import Pentanomial, SprtResult, sprt_test

DEFAULT_OPENING_PLIES = 2  # random plies per opening pair (R1's 12 symmetries make most boards rich enough)
MAX_OPENING_REDRAWS = 8  # redraws of a colliding opening before it is lengthened by one ply
MAX_OPENING_ROUNDS = 64  # then duplicates are accepted (only a tiny board with very many games gets here)


# ------------------------------------------------------------------------------- records


@dataclass(frozen=True)
class GameOutcome:
    """One finished game of a match."""

    index: int  # game number in the match (0-based); its pair is index // 2
    a_black: bool  # agent A played Black
    opening: tuple[int, ...]  # the random opening actions (the first plies of ``actions``)
    actions: tuple[int, ...]  # every action of the game in order (R10 order; double: each stone)
    winner: int  # BLACK, WHITE, or EMPTY for a draw (R8)
    black_score: float  # final scores (R6)
    white_score: float

    @property
    def a_points(self) -> float:
        """1 if A won, 0.5 for a draw, 0 if A lost."""
        if self.winner == EMPTY:
            return 0.5
        return 1.0 if (self.winner == BLACK) == self.a_black else 0.0

    def game(self, config: GameConfig) -> Game:
        """The game replayed in the reference engine (``config`` with the match's komi)."""
        names = board_spec(config.side).action_name
        return Game.replay(config, [names(a) for a in self.actions])


@dataclass(frozen=True)
class MatchResult:
    """A finished match between A and B (frozen; the numbers are derived from ``games``)."""

    name_a: str
    name_b: str
    game: GameConfig  # the options played, with the match's komi
    komi_source: str  # "--komi", "config", or e.g. "value head of run/step-00001000"
    opening_plies: int  # random plies per opening (some may be longer, see the module docstring)
    games: tuple[GameOutcome, ...]  # in game order
    seconds: float  # wall time of the games (komi estimate excluded)
    komi_estimate: Optional[KomiEstimate] = None
    book: str = ""  # the book the openings came from (``Book.describe``), "" for random openings

    def __add__(self, other: "MatchResult") -> "MatchResult":
        """Two parts of one match (an SPRT plays a match in parts): the games of both, in order."""
        if (self.name_a, self.name_b, self.game) != (other.name_a, other.name_b, other.game):
            raise ValueError("only parts of one match (same players, same game) add up")
        return dataclasses.replace(self, games=self.games + other.games, seconds=self.seconds + other.seconds)

    @property
    def tally(self) -> Tally:
        return Tally.of(g.a_points for g in self.games)

    @property
    def as_black(self) -> Tally:
        """A's results in the games where A played Black."""
        return Tally.of(g.a_points for g in self.games if g.a_black)

    @property
    def as_white(self) -> Tally:
        return Tally.of(g.a_points for g in self.games if not g.a_black)

    @property
    def black_wins(self) -> int:
        """Games won by Black, whoever played it (the first-move advantage at this komi)."""
        return sum(g.winner == BLACK for g in self.games)

    @property
    def moves(self) -> int:
        return sum(len(g.actions) for g in self.games)

    @property
    def games_per_second(self) -> float:
        return len(self.games) / self.seconds if self.seconds > 0 else float("inf")

    @property
    def distinct_openings(self) -> int:
        return len({g.opening for g in self.games})

    @property
    def pentanomial(self) -> Pentanomial:
        """A's points in each complete pair (games 2i and 2i+1: one opening, colours swapped; a pair
        missing a game is left out)."""
        pairs: dict[int, list[float]] = {}
        for g in self.games:
            pairs.setdefault(g.index // 2, []).append(g.a_points)
        return Pentanomial.of(sum(points) for points in pairs.values() if len(points) == 2)


# ------------------------------------------------------------------------------- openings


def draw_openings(env: VecEnv, pairs: int, plies: int, komi: int, rng: np.random.Generator,
                  max_redraws: int = MAX_OPENING_REDRAWS) -> tuple[tuple[int, ...], ...]:
    """``pairs`` openings of ``plies`` random legal actions, distinct up to symmetry (module docstring).

    A colliding opening is redrawn up to ``max_redraws`` times, then lengthened by one ply (and so
    on); after ``MAX_OPENING_ROUNDS`` rounds the remaining duplicates are kept (``MatchResult.
    distinct_openings`` then says so).
    """
    if plies < 0:
        raise UserError(f"opening plies must be >= 0, got {plies}")
    openings: list[Optional[tuple[int, ...]]] = [None] * pairs
    seen: set[tuple[int, ...]] = set()
    pending = list(range(pairs))
    length, attempts = plies, 0
    while pending:
        state = env.reset(len(pending), komi)
        for _ in range(length):
            if state.done.all():
                break
            env.step(state, random_legal_actions(env.legal_actions(state), rng))
        history, moves = state.history, state.move_number
        still = []
        for row, pair in enumerate(pending):
            opening = tuple(int(a) for a in history[row, :moves[row]])
            key = env.spec.canonical_actions(opening)
            if key in seen and length > 0 and attempts < MAX_OPENING_ROUNDS:
                still.append(pair)
                continue
            seen.add(key)
            openings[pair] = opening
        pending = still
        attempts += 1
        if pending and attempts % max_redraws == 0:
            length += 1
    return tuple(o for o in openings if o is not None)


# ------------------------------------------------------------------------------- playing


def play_games(agent_a: Agent, agent_b: Agent, env: VecEnv, komi: int, openings: Sequence[tuple[int, ...]],
               a_black: np.ndarray, rng_a: np.random.Generator, rng_b: np.random.Generator,
               progress: Optional[Callable[[int], None]] = None) -> list[GameOutcome]:
    """Play G games at once: game g starts with ``openings[g]``, A is Black where ``a_black[g]``.

    Each ply calls A once on its games and B once on the others (module docstring). ``progress`` is
    called with the number of finished games after every ply.
    """
    count = len(openings)
    a_black = np.asarray(a_black, dtype=bool)
    assert a_black.shape == (count,), (a_black.shape, count)
    state = env.reset(count, komi)
    longest = max((len(o) for o in openings), default=0)
    for t in range(longest):  # the openings, every game with a t-th opening action at once
        rows = np.array([g for g, o in enumerate(openings) if len(o) > t], dtype=np.int64)
        part = env.take(state, rows)
        env.step(part, np.array([openings[g][t] for g in rows], dtype=np.int64))
        env.put(state, rows, part)
    a_colour = np.where(a_black, BLACK, WHITE)  # [G]
    agent_a.reset()
    agent_b.reset()
    while True:
        done = state.done
        if progress is not None:
            progress(int(done.sum()))
        if done.all():
            break
        a_turn = ~done & (state.to_move == a_colour)  # [G]
        actions = np.full(count, -1, dtype=np.int64)  # finished games ignore their entry
        for agent, turn, rng in ((agent_a, a_turn, rng_a), (agent_b, ~done & ~a_turn, rng_b)):
            rows = np.flatnonzero(turn)
            if rows.size:
                chosen = np.asarray(agent.act(env, env.take(state, rows), rng))
                if chosen.shape != (rows.size,):
                    raise ValueError(f"agent {agent.name} returned {chosen.shape} actions for {rows.size} games")
                actions[rows] = chosen
        env.step(state, actions)
    scores = state.scores  # [G, 2]
    winner, history, moves = state.winner, state.history, state.move_number
    return [
        GameOutcome(index=g, a_black=bool(a_black[g]), opening=tuple(openings[g]),
                    actions=tuple(int(a) for a in history[g, :moves[g]]), winner=int(winner[g]),
                    black_score=float(scores[g, 0]), white_score=float(scores[g, 1]))
        for g in range(count)
    ]


def reference_komi(game: GameConfig) -> Optional[KomiEstimate]:
    """The fair komi of the rule set's reference network (its shipped bot), or None without one."""
    return _reference_komi(RuleSet.of(game)) if game.game_type_rule.has_komi else None


@functools.lru_cache(maxsize=None)
def _reference_komi(rules: RuleSet) -> Optional[KomiEstimate]:
    """One estimate per rule set and process (the shipped bots do not change while it runs)."""
    from ..bot.shipped import shipped_bot_for
    from .specs import build_agent

    game = rules.game()
    bot = shipped_bot_for(game)
    if bot is None:
        return None
    estimate = build_agent(str(bot.path)).komi_curve(game)
    if estimate is None:
        return None
    return dataclasses.replace(estimate, source=f"value head of the reference network, the shipped {bot.name}")


def resolve_komi(agent_a: Agent, agent_b: Agent, game: GameConfig, komi: Optional[int],
                 book: Optional[Book] = None) -> tuple[int, str, Optional[KomiEstimate]]:
    """(komi, where it came from, the estimate used): ``komi`` as given, else the book's, else the
    reference network's fair komi, else the stronger network side's (later training step; A on a
    tie), else ``game.komi`` (module docstring)."""
    if komi is not None:
        return check_komi(game, komi), "--komi", None
    if not game.game_type_rule.has_komi:
        return 0, f"game type {game.game_type} (no komi, R7/R8)", None
    if book is not None:
        return book.komi, "the book's komi" + (f", balanced by {book.reference}" if book.reference else ""), None
    networks = [a for a in (agent_a, agent_b) if a.capabilities.komi_curve]  # a value head names a fair komi
    if not networks:
        return game.komi, "config", None
    reference = reference_komi(game)
    if reference is not None:
        return reference.komi, reference.source, reference
    stronger = max(networks, key=lambda a: -1 if a.step is None else a.step)  # max keeps the first on ties
    estimate = stronger.komi_curve(game)
    if estimate is None:
        return game.komi, "config", None
    source = f"{estimate.source} (no shipped bot for {game.side}-{game.game_type}-{game.scoring} to refer to)"
    return estimate.komi, source, dataclasses.replace(estimate, source=source)


def play_match(
    agent_a: Agent,
    agent_b: Agent,
    game_config: GameConfig,
    games: int,
    komi: Optional[int],
    rng: np.random.Generator,
    *,
    opening_plies: int = DEFAULT_OPENING_PLIES,
    openings: Optional[Sequence[tuple[int, ...]]] = None,
    book: Optional[Book] = None,
    first_index: int = 0,
    progress: Optional[Callable[[int, int], None]] = None,
) -> MatchResult:
    """Play ``games`` games between A and B, all at once (module docstring). ``komi`` None: the
    fair komi (``resolve_komi``); ``openings``: each pair's, ``games`` twice their number; ``book``:
    its openings and, unless ``komi`` is given, its komi; ``first_index``: the first game's number
    (a match played in parts keeps one numbering); ``progress(finished, total)`` after every ply."""
    if isinstance(games, bool) or not isinstance(games, (int, np.integer)) or games < 1:
        raise UserError(f"games must be a positive number, got {games!r}")
    assert first_index % 2 == 0, first_index  # pairs are games 2i and 2i + 1
    if book is not None:
        assert openings is None, "a match takes its openings from the book or from openings=, not both"
        openings = book.openings
    for agent in (agent_a, agent_b):
        check_plays(agent, game_config)  # UnsupportedGame, one line
    komi, source, estimate = resolve_komi(agent_a, agent_b, game_config, komi, book)
    game = dataclasses.replace(game_config, komi=komi)
    env = VecEnv(game)
    pairs = _pair_openings(env, games, openings, opening_plies, komi, rng)
    seed = int(rng.integers(0, 2**63 - 1, size=1)[0])  # size=1: the same draw as before, same seed, same match
    rng_a, rng_b = np.random.default_rng(seed).spawn(2)
    index = np.arange(games)
    report = None if progress is None else (lambda finished: progress(finished, games))
    start = time.perf_counter()
    outcomes = play_games(agent_a, agent_b, env, komi, [pairs[g // 2] for g in index], index % 2 == 0,
                          rng_a, rng_b, progress=report)
    if first_index:
        outcomes = [dataclasses.replace(o, index=o.index + first_index) for o in outcomes]
    seconds = time.perf_counter() - start
    return MatchResult(name_a=agent_a.name, name_b=agent_b.name, game=game, komi_source=source,
                       opening_plies=opening_plies, games=tuple(outcomes), seconds=seconds, komi_estimate=estimate,
                       book="" if book is None else book.describe())


def _pair_openings(env: VecEnv, games: int, openings: Optional[Sequence[tuple[int, ...]]], plies: int, komi: int,
                   rng: np.random.Generator) -> tuple[tuple[int, ...], ...]:
    """Each pair's opening: ``openings`` as given (two games each), else drawn (``draw_openings``)."""
    if openings is None:
        return draw_openings(env, (games + 1) // 2, plies, komi, rng)
    if 2 * len(openings) != games:
        raise ValueError(f"{len(openings)} openings make {2 * len(openings)} games, not {games}")
    return tuple(tuple(o) for o in openings)


# ------------------------------------------------------------------------------- output


def _percent(x: float) -> str:
    return f"{100 * x:.1f}%"


def elo_line(elo: float, lo: float, hi: float) -> str:
    """The Elo line of a report. A clean sweep has no finite estimate (the likelihood grows
    without bound), so it gives the 95% interval's finite end as a bound instead of "+inf"."""
    if math.isinf(elo) and elo > 0:
        return f"Elo difference A - B: at least {elo_number(lo)} (A won every game: no finite estimate; 95% lower bound)"
    if math.isinf(elo):
        return f"Elo difference A - B: at most {elo_number(hi)} (A lost every game: no finite estimate; 95% upper bound)"
    return f"Elo difference A - B: {elo_number(elo)}, 95% interval [{elo_number(lo)}, {elo_number(hi)}]"


def score_statistics(result: MatchResult) -> tuple[float, tuple[float, float], float, tuple[float, float], str]:
    """(score, its 95% interval, Elo, its interval, how they were computed): from the pair scores
    (pentanomial) when the match has complete pairs, else Wilson's over games (module docstring)."""
    penta = result.pentanomial
    if penta.pairs:
        return penta.score, penta.score_interval(), penta.elo, penta.elo_interval(), \
            f"pentanomial, {penta.pairs} pairs"
    t = result.tally
    return t.score, t.score_interval, t.elo, t.elo_interval, "Wilson, no complete pair"


def report_lines(result: MatchResult) -> list[str]:
    """The match report, one line each; the last line starts with ``summary:``."""
    g, t = result.game, result.tally
    score, (lo, hi), elo, (elo_lo, elo_hi), method = score_statistics(result)
    komi = f"komi {g.komi} ({result.komi_source})" if g.game_type_rule.has_komi else "no komi"
    longest = max((len(o.opening) for o in result.games), default=0)
    opening = f"{result.opening_plies}" + (f"-{longest}" if longest > result.opening_plies else "")
    source = (f"from the {result.book}" if result.book else f"{opening} random plies each")
    lines = [
        f"match: {result.name_a} (A) vs {result.name_b} (B), {t.games} games, side {g.side}, "
        f"game type {g.game_type}, {g.scoring} scoring, {komi}",
        f"openings: {result.distinct_openings} distinct, {source}, every opening played twice with colours swapped",
    ]
    if result.komi_estimate is not None:
        est = result.komi_estimate
        near = [k for k in range(est.komi - 2, est.komi + 3) if est.komis[0] <= k <= est.komis[-1]]
        values = ", ".join(f"{k}: {est.at(k)[0]:+.2f}" for k in near)
        lines.append(f"fair komi {est.komi} by the {est.source} (value for Black by komi: {values})")
    lines += [
        f"A as black: {result.as_black.line()} (score {_percent(result.as_black.score)}); "
        f"A as white: {result.as_white.line()} (score {_percent(result.as_white.score)}); "
        f"black won {result.black_wins} of {t.games}",
        f"A: {t.line()} (wins, draws, losses) of {t.games}",
        f"pairs by A's points 0 / 0.5 / 1 / 1.5 / 2 (pentanomial): "
        f"{' / '.join(str(c) for c in result.pentanomial.counts)}",
        f"score rate of A: {_percent(score)}, 95% interval [{_percent(lo)}, {_percent(hi)}] ({method})",
        elo_line(elo, elo_lo, elo_hi),
        f"time: {result.seconds:.1f} s, {result.games_per_second:.2f} games/s, {result.moves} moves, "
        f"{result.moves / max(result.seconds, 1e-9):.0f} moves/s",
        f"summary: {result.name_a} vs {result.name_b}: {t.line()}, score {_percent(score)} "
        f"[{_percent(lo)}, {_percent(hi)}], {elo_text(elo, elo_lo, elo_hi)}, "
        f"{komi}, {t.games} games",
    ]
    return lines


def record_text(result: MatchResult, outcome: GameOutcome) -> str:
    """The catena-record text of one game of a match, with comments naming the players."""
    spec_game = result.game
    game = outcome.game(spec_game)
    black, white = (result.name_a, result.name_b) if outcome.a_black else (result.name_b, result.name_a)
    opening = " ".join(game.history[:len(outcome.opening)]) or "none"
    lines = format_record(game).splitlines()
    comments = [
        f"# match: {result.name_a} (A) vs {result.name_b} (B), game {outcome.index + 1} of {len(result.games)}",
        f"# black: {black}; white: {white}; komi {spec_game.komi} ({result.komi_source})",
        f"# opening: {len(outcome.opening)} random plies ({opening}), pair {outcome.index // 2 + 1}",
    ]
    return "\n".join(lines[:1] + comments + lines[1:]) + "\n"


def prepare_records_folder(folder: str | Path) -> Path:
    """Create ``folder`` for a match's records, or accept it empty; checked before the first game.

    A folder that already holds files is refused (``OSError``, one line): its ``game-0001.txt``
    would be overwritten and an earlier match's other records left beside the new ones.
    """
    folder = Path(folder)
    if folder.exists() and not folder.is_dir():
        raise OSError(f"cannot write records into {folder}: it is a file, not a folder")
    try:
        folder.mkdir(parents=True, exist_ok=True)
        present = sorted(entry.name for entry in folder.iterdir())
    except OSError as exc:
        raise OSError(f"cannot create {folder}: {exc.strerror}") from None
    if present:
        shown = ", ".join(present[:3]) + (", ..." if len(present) > 3 else "")
        raise OSError(f"{folder} already holds {len(present)} file(s) ({shown}): records go into an empty "
                      "or new folder, so that no earlier record is overwritten or mixed in")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise OSError(f"cannot write records into {folder}: Permission denied")
    return folder


def save_match_records(result: MatchResult, folder: str | Path) -> list[Path]:
    """Write every game as ``folder/game-NNNN.txt`` (atomic; ``catena-zero show`` replays them)
    into an empty or new folder (``prepare_records_folder``)."""
    folder = prepare_records_folder(folder)
    width = max(4, len(str(len(result.games))))
    return [write_text_atomic(folder / f"game-{g.index + 1:0{width}d}.txt", record_text(result, g))
            for g in result.games]


# ------------------------------------------------------------------------------- SPRT


@dataclass(frozen=True)
class SprtPlan:
    """A sequential test of a match (``--sprt ELO0,ELO1``): H0 Elo = elo0 against H1 Elo = elo1."""

    elo0: float
    elo1: float
    alpha: float = 0.05  # the chance of accepting H1 when H0 holds (fishtest's default)
    beta: float = 0.05  # the chance of accepting H0 when H1 holds
    batch_pairs: int = 16  # pairs played at once between two looks at the LLR (one batched match)

    def __post_init__(self) -> None:
        if not self.elo0 < self.elo1:
            raise UserError(f"--sprt ELO0,ELO1 needs ELO0 < ELO1, got {self.elo0:g},{self.elo1:g}")
        for name in ("alpha", "beta"):
            if not 0 < getattr(self, name) < 0.5:
                raise UserError(f"--{name} must be in (0, 0.5), got {getattr(self, name)}")
        if self.batch_pairs < 1:
            raise UserError(f"the SPRT's batch must be at least 1 pair, got {self.batch_pairs}")


def play_sprt(agent_a: Agent, agent_b: Agent, game_config: GameConfig, book: Book, komi: Optional[int],
              rng: np.random.Generator, plan: SprtPlan, *,
              progress: Optional[Callable[[int, int], None]] = None,
              on_part: Optional[Callable[[MatchResult, SprtResult], None]] = None) -> tuple[MatchResult, SprtResult]:
    """Play pairs over the book's openings in order, ``plan.batch_pairs`` at a time (each part one
    batched match), until the pentanomial GSPRT (``sprt.py``) accepts H0 or H1 or the book runs out.
    ``on_part(result so far, test so far)`` hears of every part that leaves the test undecided and
    pairs to play (a long match's interim standing, as fishtest shows a test's live LLR).

    Looking at the LLR only between parts overshoots the bound by at most one part's pairs, which
    makes the test a little more certain than alpha and beta say, never less (Wald)."""
    for agent in (agent_a, agent_b):
        check_plays(agent, game_config)  # UnsupportedGame, one line
    komi, source, estimate = resolve_komi(agent_a, agent_b, game_config, komi, book)
    openings = book.openings
    total_games = 2 * len(openings)
    result: Optional[MatchResult] = None
    outcome = None
    for start in range(0, len(openings), plan.batch_pairs):
        part_openings = openings[start:start + plan.batch_pairs]
        done_games = 2 * start
        report = None if progress is None else (lambda finished, _total: progress(done_games + finished, total_games))
        part = play_match(agent_a, agent_b, game_config, 2 * len(part_openings), komi, rng, openings=part_openings,
                          first_index=done_games, progress=report)
        result = part if result is None else result + part
        outcome = sprt_test(result.pentanomial, plan.elo0, plan.elo1, plan.alpha, plan.beta)
        if outcome.decision is not None:
            break
        if on_part is not None and start + plan.batch_pairs < len(openings):
            on_part(result, outcome)
    assert result is not None and outcome is not None, "an SPRT needs at least one opening"
    return dataclasses.replace(result, komi_source=source, komi_estimate=estimate, book=book.describe()), outcome
