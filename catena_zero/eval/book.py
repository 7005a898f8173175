"""Opening books: the fixed, balanced openings every match of a comparison starts from.

Shape legend: C candidate openings, P plies of an opening, A actions (N cells + the button), S = 12
symmetries (R1).

Why a book (fishtest and cutechess-cli decide every Stockfish change over one): a match between
two variants measures them, not the luck of the openings, only if every match of the comparison
starts from the same openings (common random numbers), each played twice with colours swapped (a
pair), and only if those openings are near even: an opening one colour wins anyway gives both
games of its pair to the same colour and teaches the score nothing.

How a book is made (``make_book``):
- Candidates: every legal sequence of ``plies`` actions (placements and the button, R4) from the
  empty board, one per class under the 12 symmetries, in an order shuffled by the book's seed
  (``candidate_openings``). Where the balanced ones run short (a small board), the next ply's
  classes follow, so a 150-opening book of side 4 mixes 2- and 3-ply openings.
- Balance: a reference network (the shipped bot of the rule set, by default) judges the position
  after each candidate at the book's komi; only openings whose value for Black is within
  ``max_value`` of even are kept (default 0.3: a 65/35 position at worst). Without a reference
  network for the rule set the book is unbalanced and says so.
- The komi: the reference network's fair komi (``search/komi.py``), or the one asked for; the book
  stores it, and a match over the book plays at it unless told otherwise, so every match of a
  comparison has one komi (never the fair komi of whichever network plays).
- The seed is fixed (``BOOK_SEED``): the book of a rule set is the same on every machine, and the
  shipped ones (``catena_zero/books/``) are that book written down.

The file (``catena-book 1``): header lines ``key value`` (side, game-type, scoring, komi, plies,
seed, max-value, reference), then one opening a line in R10 notation, with the reference's value
for Black as a comment:

    catena-book 1
    side 4
    game-type komi
    ...
    D4 C2          # +0.08

Reading one (``load_book``) replays every opening through the reference engine: an illegal move,
a finished game, two openings of one symmetry class or a damaged header is refused with its line
number (``BookError``).
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Optional

import numpy as np

from ..errors import UserError
from ..evalfn import EvalFn
from ..fileio import read_input, write_text_atomic
from ..game.options import GAME_TYPES, SCORINGS, GameConfig, RuleSet, check_komi, komi_problem
from ..game.rules import Game
from ..game.vec import BLACK, VecEnv

BOOK_MAGIC = "catena-book 1"
BOOK_SEED = 0  # the fixed seed of every rule set's book (common random numbers across matches)
DEFAULT_BOOK_PLIES = 2  # plies of a book opening (more where the balanced ones run short)
DEFAULT_MAX_VALUE = 0.3  # |value for Black| of a kept opening by the reference network
MAX_ENUMERATED = 400_000  # legal sequences enumerated per ply count; beyond it, the book stops deepening
MAX_BOOK_BYTES = 4 << 20  # a book is a few kB; a bigger file is refused before it is read
MAX_REFERENCE_CHARS = 200  # of a book's reference as read (a bot file's name or a network's label)
SHIPPED_BOOKS = Path(__file__).resolve().parent.parent / "books"
EVAL_CHUNK = 1024  # positions per reference-network call


class BookError(UserError):
    """A book file or request is unusable (the message names the line or the reason)."""


@dataclass(frozen=True)
class Book:
    """Openings of one rule set at one komi (module docstring)."""

    rules: RuleSet
    komi: int  # the komi the openings were balanced at (and a match over the book plays at)
    openings: tuple[tuple[int, ...], ...]  # [O][P] action indices; distinct up to symmetry
    values: tuple[float, ...]  # [O] the reference's value for Black after each opening (nan: none)
    plies: int = DEFAULT_BOOK_PLIES  # the plies asked for (some openings may be longer)
    seed: int = BOOK_SEED
    max_value: Optional[float] = DEFAULT_MAX_VALUE  # None: not balanced (no reference network)
    reference: str = ""  # the network that judged the openings ("" for none); printable (_printable)

    def __post_init__(self) -> None:
        if len(self.values) != len(self.openings):
            raise ValueError("a book needs one value per opening")
        # Free text from a file or a file name, printed in reports and written as a header line:
        # a control character must neither drive a terminal nor end the line.
        object.__setattr__(self, "reference", _printable(self.reference))

    def __len__(self) -> int:
        return len(self.openings)

    @property
    def game(self) -> GameConfig:
        return self.rules.game(self.komi)

    def first(self, count: int) -> "Book":
        """The book's first ``count`` openings (BookError if it has fewer)."""
        if count > len(self):
            raise BookError(f"the book of {self.rules} has {len(self)} openings; {count} were asked for")
        return self.part(0, count)

    def part(self, start: int, stop: int) -> "Book":
        """The openings ``start`` to ``stop`` (fewer where the book ends), at the book's komi."""
        return replace(self, openings=self.openings[start:stop], values=self.values[start:stop])

    def describe(self) -> str:
        """One line: how many openings, of how many plies, how balanced, at which komi."""
        lengths = sorted({len(o) for o in self.openings})
        plies = f"{lengths[0]}" if len(lengths) == 1 else f"{lengths[0]}-{lengths[-1]}"
        if self.max_value is None:
            balance = "not balanced (no reference network)"
        else:
            worst = max((abs(v) for v in self.values), default=0.0)
            balance = f"|value for Black| <= {worst:.2f} by {self.reference}"
        komi = f"komi {self.komi}" if self.rules.game_type_rule.has_komi else "no komi"
        return f"book of {len(self)} openings of {plies} plies, {self.rules}, {komi}, {balance}"

    def text(self) -> str:
        """The book file's text (module docstring)."""
        spec_names = VecEnv(self.game).spec.action_name
        lines = [BOOK_MAGIC, f"side {self.rules.side}", f"game-type {self.rules.game_type}",
                 f"scoring {self.rules.scoring}", f"komi {self.komi}", f"plies {self.plies}", f"seed {self.seed}",
                 f"max-value {'none' if self.max_value is None else f'{self.max_value:g}'}",
                 f"reference {self.reference or 'none'}"]
        for opening, value in zip(self.openings, self.values):
            moves = " ".join(spec_names(a) for a in opening)
            lines.append(moves if math.isnan(value) else f"{moves:<16} # {value:+.3f}")
        return "\n".join(lines) + "\n"


# ------------------------------------------------------------------------------- making a book


def _class_keys(sequences: np.ndarray, sym_actions: np.ndarray) -> np.ndarray:
    """[C] one integer per symmetry class of [C, P] action sequences: the smallest image's number
    in base A, the vectorised form of ``BoardSpec.canonical_actions`` for sequences of one length
    (every image of a legal sequence is legal, so the class is well defined)."""
    count, plies = sequences.shape
    base = sym_actions.shape[1]
    images = sym_actions[:, sequences]  # [S, C, P]
    weights = base ** np.arange(plies - 1, -1, -1, dtype=np.int64)  # [P]; A^P < 2^63 for P <= 7
    return (images * weights).sum(axis=-1).min(axis=0)  # [C]


def candidate_openings(env: VecEnv, plies: int, komi: int, rng: np.random.Generator) -> Optional[np.ndarray]:
    """[C, plies] every legal action sequence of ``plies`` plies that leaves the game running, one
    per symmetry class, shuffled by ``rng`` (module docstring). None if there are more than
    ``MAX_ENUMERATED`` sequences."""
    state = env.reset(1, komi)
    sequences = np.zeros((1, 0), dtype=np.int64)  # [C, t]
    for _ in range(plies):
        legal = env.legal_actions(state) & ~state.done[:, None]  # [C, A]
        rows, actions = np.nonzero(legal)
        if rows.size > MAX_ENUMERATED:
            return None
        state = env.take(state, rows)
        env.step(state, actions)
        sequences = np.concatenate([sequences[rows], actions[:, None]], axis=1)
    running = ~state.done
    sequences = sequences[running]
    _, first = np.unique(_class_keys(sequences, env.spec.sym_gather_actions), return_index=True)
    chosen = sequences[np.sort(first)]
    return chosen[rng.permutation(len(chosen))]


def black_values(env: VecEnv, eval_fn: EvalFn, openings: np.ndarray, komi: int) -> np.ndarray:
    """[C] the evaluation function's value for Black of the position after each opening."""
    values = np.empty(len(openings), dtype=np.float64)
    for start in range(0, len(openings), EVAL_CHUNK):
        part = openings[start:start + EVAL_CHUNK]
        state = env.reset(len(part), komi)
        for t in range(part.shape[1]):
            env.step(state, part[:, t])
        value = eval_fn(state).value.astype(np.float64)  # [c] for the mover
        values[start:start + len(part)] = np.where(state.to_move == BLACK, value, -value)
    return values


def make_book(game: GameConfig, count: int, eval_fn: Optional[EvalFn], *, plies: int = DEFAULT_BOOK_PLIES,
              max_value: float = DEFAULT_MAX_VALUE, seed: int = BOOK_SEED, reference: str = "") -> Book:
    """``count`` openings of ``game``'s rule set at ``game.komi`` (module docstring). ``eval_fn``
    None: the first ``count`` candidates, unbalanced. BookError if the board has too few."""
    if count < 1:
        raise BookError(f"a book needs at least 1 opening, got {count}")
    if plies < 1:
        raise BookError(f"book openings need at least 1 ply, got {plies}")
    if not 0 < max_value <= 1:
        raise BookError(f"the book's max value must be in (0, 1], got {max_value}")
    env = VecEnv(game)
    rng = np.random.default_rng(seed)
    openings: list[tuple[int, ...]] = []
    values: list[float] = []
    depth = plies
    while len(openings) < count:
        candidates = candidate_openings(env, depth, game.komi, rng)
        if candidates is None or len(candidates) == 0:
            why = (f"{depth}-ply sequences are too many to enumerate" if candidates is None
                   else f"no game lasts {depth} plies")
            if depth == plies:
                raise BookError(f"side {game.side} has no book openings of {plies} plies: {why}; ask for fewer plies")
            kept = "balanced " if eval_fn is not None else ""
            span = f"{plies}" if depth - 1 == plies else f"{plies}-{depth - 1}"
            unit = "ply" if span == "1" else "plies"
            wider = f", or a max value above {max_value}" if eval_fn is not None else ""
            raise BookError(f"side {game.side} has only {len(openings)} {kept}openings of {span} {unit} up to "
                            f"symmetry ({why}); ask for fewer openings{wider}")
        if eval_fn is None:
            found = [(tuple(int(a) for a in c), math.nan) for c in candidates]
        else:
            v = black_values(env, eval_fn, candidates, game.komi)
            found = [(tuple(int(a) for a in c), float(x)) for c, x in zip(candidates, v) if abs(x) <= max_value]
        for opening, value in found[:count - len(openings)]:
            openings.append(opening)
            values.append(value)
        depth += 1
    return Book(rules=RuleSet.of(game), komi=game.komi, openings=tuple(openings), values=tuple(values),
                plies=plies, seed=seed, max_value=max_value if eval_fn is not None else None,
                reference=reference if eval_fn is not None else "")


# ------------------------------------------------------------------------------- files


def save_book(path: str | os.PathLike, book: Book) -> Path:
    return write_text_atomic(path, book.text())


def _read_text(path: Path) -> str:
    """The file's text, after checking that it is a regular file of a book's size (``fileio.read_input``:
    a FIFO or /dev/zero would hang or fill memory)."""
    data = read_input(path, "book", MAX_BOOK_BYTES, BookError)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise BookError(f"book {path} is not UTF-8 text") from None


def _printable(text: str, limit: int = MAX_REFERENCE_CHARS) -> str:
    """``text`` for a terminal: every character that does not print (control characters, escape
    sequences' ESC, line and paragraph separators) written as its Python escape (``\\x1b``), and at
    most ``limit`` characters kept: a book's reference is free text that reports print."""
    shown = "".join(ch if ch.isprintable() else repr(ch)[1:-1] for ch in text[:limit])
    return shown + ("..." if len(text) > limit else "")


HEADER_KEYS = ("side", "game-type", "scoring", "komi", "plies", "seed", "max-value", "reference")


def _header(lines: list[tuple[int, str]], where: str) -> tuple[dict[str, str], int]:
    header: dict[str, str] = {}
    pos = 0
    while pos < len(lines) and len(header) < len(HEADER_KEYS):
        lineno, line = lines[pos]
        key, _, value = line.partition(" ")
        if key not in HEADER_KEYS:
            break
        if key in header:
            raise BookError(f"{where} line {lineno}: {key} given twice")
        header[key] = value.strip()
        pos += 1
    missing = [k for k in HEADER_KEYS if k not in header]
    if missing:
        lineno = lines[pos][0] if pos < len(lines) else (lines[-1][0] if lines else 1)
        raise BookError(f"{where} line {lineno}: the header lacks {missing[0]!r} (a book starts with "
                        f"{', '.join(HEADER_KEYS)})")
    return header, pos


def _whole(where: str, key: str, text: str) -> int:
    if not text.lstrip("-").isdigit() or len(text) > 12:
        raise BookError(f"{where}: {key} must be a whole number, got {text[:20]!r}")
    return int(text)


def parse_book(text: str, where: str = "book") -> Book:
    """The book of a file's text (module docstring); BookError naming the line of any fault."""
    # Lines end at "\n" only (a "\r" before it is whitespace): ``str.splitlines`` also ends them at
    # VT, FF, the file separators, NEL and U+2028/9, which inside a comment would start a new opening.
    raw = text.split("\n")
    if not raw or raw[0].strip() != BOOK_MAGIC:
        raise BookError(f"{where} line 1: not a book (it must start with {BOOK_MAGIC!r})")
    lines = [(i, line.partition("#")[0].strip()) for i, line in enumerate(raw, start=1)][1:]
    comments = {i: line.partition("#")[2].strip() for i, line in enumerate(raw, start=1)}
    lines = [(i, line) for i, line in lines if line]
    header, pos = _header(lines, where)
    fields = _BookHeader.of(header, where)
    openings, values = _openings(fields.rules.game(fields.komi), lines[pos:], comments, where)
    if not openings:
        raise BookError(f"{where}: the book has no openings")
    return Book(rules=fields.rules, komi=fields.komi, openings=openings, values=values, plies=fields.plies,
                seed=fields.seed, max_value=fields.max_value, reference=fields.reference)


@dataclass(frozen=True)
class _BookHeader:
    """What a book file's header says (its openings aside)."""

    rules: RuleSet
    komi: int
    plies: int
    seed: int
    max_value: Optional[float]
    reference: str

    @classmethod
    def of(cls, header: dict[str, str], where: str) -> "_BookHeader":
        """The values of a header's ``key value`` lines (``_header``); BookError for a bad one."""
        side = _whole(where, "side", header["side"])
        if header["game-type"] not in GAME_TYPES or header["scoring"] not in SCORINGS:
            raise BookError(f"{where}: unknown game type or scoring "
                            f"({header['game-type'][:20]!r}, {header['scoring'][:20]!r})")
        try:
            rules = RuleSet(side, header["game-type"], header["scoring"])
        except ValueError as exc:
            raise BookError(f"{where}: {exc}") from None
        komi = _whole(where, "komi", header["komi"])
        if komi_problem(rules.game_type, rules.scoring, komi, f"komi {komi}") is not None:
            raise BookError(f"{where}: komi {komi} is not a komi of {rules}")
        plies = _whole(where, "plies", header["plies"])
        seed = _whole(where, "seed", header["seed"])
        max_value = None
        if header["max-value"] != "none":
            try:
                max_value = float(header["max-value"])
            except ValueError:
                raise BookError(f"{where}: max-value must be a number or none") from None
        if max_value is not None and not 0 < max_value <= 1:  # nan and inf included
            raise BookError(f"{where}: max-value must be in (0, 1] or none, got {header['max-value'][:20]!r}")
        reference = "" if header["reference"] == "none" else header["reference"]
        return cls(rules, komi, plies, seed, max_value, reference)


def _openings(game: GameConfig, lines: list[tuple[int, str]], comments: dict[int, str],
              where: str) -> tuple[tuple[tuple[int, ...], ...], tuple[float, ...]]:
    """The openings of a book's (line number, moves) lines replayed under ``game``, and their values
    from the lines' comments (nan where there is none); BookError naming the line of a fault."""
    env = VecEnv(game)
    openings, values, seen = [], [], {}
    for lineno, line in lines:
        replay = Game(game)
        try:
            for move in line.split():
                replay.play(move)
        except UserError as exc:
            raise BookError(f"{where} line {lineno}: {exc}") from None
        if replay.is_over:
            raise BookError(f"{where} line {lineno}: the opening ends the game")
        opening = tuple(map(env.spec.action, replay.history))
        key = env.spec.canonical_actions(opening)  # the match's own symmetry key
        if key in seen:
            raise BookError(f"{where} line {lineno}: the same opening as line {seen[key]} up to symmetry")
        seen[key] = lineno
        openings.append(opening)
        try:
            value = float(comments[lineno]) if comments[lineno] else math.nan
        except ValueError:
            value = math.nan
        values.append(value if math.isfinite(value) else math.nan)  # an inf is no value either
    return tuple(openings), tuple(values)


def load_book(path: str | os.PathLike) -> Book:
    path = Path(path)
    return parse_book(_read_text(path), where=str(path))


def shipped_book_path(rules: RuleSet) -> Path:
    """Where the shipped book of a rule set lives (it may not exist)."""
    return SHIPPED_BOOKS / f"{rules.key}.book"


def shipped_book(rules: RuleSet) -> Optional[Book]:
    path = shipped_book_path(rules)
    return load_book(path) if path.exists() else None


def reference_book(game: GameConfig, count: int, komi: Optional[int] = None, *, plies: int = DEFAULT_BOOK_PLIES,
                   max_value: float = DEFAULT_MAX_VALUE, reference: Optional[str] = None,
                   seed: int = BOOK_SEED) -> Book:
    """A book drawn now from ``BOOK_SEED``: balanced by ``reference`` (a bot file or checkpoint;
    default the rule set's shipped bot) at ``komi`` (default: the reference's fair komi)."""
    from ..bot.players import check_plays
    from ..bot.shipped import shipped_bot_for
    from .specs import build_agent

    if reference is None:
        bot = shipped_bot_for(game)
        reference = None if bot is None else str(bot.path)
    agent = None if reference is None else build_agent(reference)
    if agent is not None:
        check_plays(agent, game)
    if komi is not None:
        komi = check_komi(game, komi)
    elif not game.game_type_rule.has_komi:
        komi = 0
    else:
        estimate = None if agent is None else agent.komi_curve(game)
        komi = game.komi if estimate is None else estimate.komi
    game = replace(game, komi=komi)
    eval_fn = None if agent is None else agent.evaluator(VecEnv(game))
    return make_book(game, count, eval_fn, plies=plies, max_value=max_value, seed=seed,
                     reference="" if agent is None else agent.name)


def resolve_book(text: str, game: GameConfig, komi: Optional[int] = None) -> Book:
    """The book of a ``--book`` argument: a number N (the rule set's shipped book, its first N
    openings, when it has enough at this komi; else the same book drawn now) or a book file
    (which must be of ``game``'s rule set)."""
    text = text.strip()
    if text.isdigit():
        count = int(text)
        if count < 1:
            raise BookError(f"--book needs at least 1 opening, got {count}")
        shipped = shipped_book(RuleSet.of(game))
        if shipped is not None and len(shipped) >= count and komi in (None, shipped.komi):
            return shipped.first(count)
        return reference_book(game, count, komi)
    book = load_book(text)
    if book.rules != RuleSet.of(game):
        raise BookError(f"book {text} is for {book.rules}; this match is {RuleSet.of(game)}")
    return book
