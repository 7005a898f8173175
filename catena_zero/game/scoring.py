"""Scoring (RULES.md R6, R8): one record per scoring type, the one place it is described (name,
input index, komi range, rules-in-brief line) with its three formulas: the scores of a position
(``scores``, the reference: ``Game.scores``), of a batch (``batch_scores``, numpy: the batched
engine through ``vec/scores.py``, diff-tested against the reference in test_vec_env.py and
test_scoring*.py) and the lines that explain a result (``explain``: ``render.score_lines``).

Everything asks ``scoring_rule(name)`` instead of comparing names. A new scoring type is a subclass
and its instance in ``SCORING_RULES``, and one more slot in the network's input layout
(``net/features.py``, ``INPUT_LAYOUTS``). Colours are named ("black", "white") as in ``Game``'s
API; the batched formulas read the engines' colour codes (``colours.py``).
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from collections import Counter
from dataclasses import dataclass
from typing import ClassVar, Optional, Protocol, Sequence

import numpy as np

from ..errors import UserError
from .colours import BLACK, WHITE

COLOURS = ("black", "white")  # the order of stones, lengths and the batched scores' columns


class Boards(Protocol):
    """What a vectorised formula asks of R positions, read lazily (``vec/scores.py`` reads them off
    packed rows). ``ribbons``: at each ribbon's root cell its length and its owner (majority
    colour); the owner is EMPTY on every other cell and on a tied ribbon. N: cells."""

    def komi(self) -> np.ndarray: ...  # [R] int64
    def button(self) -> np.ndarray: ...  # [R] the holder's colour code, EMPTY while nobody holds it
    def stones(self) -> tuple[np.ndarray, np.ndarray]: ...  # ([R], [R]) Black's, White's stones
    def ribbons(self) -> tuple[np.ndarray, np.ndarray]: ...  # ([R, N] int64 length, [R, N] owner)


@dataclass(frozen=True)
class ScoringRule(ABC):
    """One scoring type of R6. The formulas' inputs: ``komi``; ``button``, its holder ("black",
    "white", None); ``stones``, (Black's, White's) stones on the board; ``lengths``, (Black's,
    White's) owned ribbon lengths (``Game.owned_lengths``: a ribbon counts for its majority
    colour, a tied unclaimed one for nobody), which may be None when ``reads_lengths`` is false.
    """

    name: str  # as in GameConfig.scoring, record headers and rule-set keys (stored text: keep it)
    index: int  # position in SCORING_RULES, the network's one-hot input of the scoring (trained weights: never reorder)
    komi_max: int  # the komi is a whole number in 0..komi_max (R6)
    summary: str  # its R6 line of the rules in brief (RULES_TEXT), without the name

    # Whether the scores are sums of points, so that their difference is a margin to optimise
    # (false for longest: the leader scores one ribbon's length, the other 0).
    has_margin: ClassVar[bool] = True
    # Whether the formulas read the owned ribbons' lengths (finding the owners costs a walk over
    # the ribbons; the stones are counted cheaply, so a formula of stones alone has fast paths).
    reads_lengths: ClassVar[bool] = True

    @property
    def komi_range(self) -> tuple[int, int]:  # inclusive
        return (0, self.komi_max)

    @property
    def komi_scale(self) -> float:
        """This scoring's komi points per point of the standard 0..15 range (self-play's komi
        spread is given in those points): 1, or 1000 / 15 for quadratic."""
        return self.komi_max / STANDARD.komi_max

    def margin_unit(self, cells: int) -> float:
        """The natural size of a score margin on a board of ``cells`` cells (the search's score
        unit, KataGo's sqrt(area)): sqrt(N) when points count cells."""
        return math.sqrt(cells)

    @abstractmethod
    def scores(self, komi: int, button: Optional[str], stones: tuple[int, int],
               lengths: Optional[tuple[Sequence[int], Sequence[int]]]) -> tuple[float, float]:
        """(Black's, White's) scores: usable during the game and final at the end."""

    @abstractmethod
    def batch_scores(self, boards: Boards) -> np.ndarray:
        """[R, 2] float32 [black, white]: ``scores`` of each of R positions."""

    @abstractmethod
    def explain(self, komi: int, button: Optional[str], stones: tuple[int, int],
                lengths: tuple[Sequence[int], Sequence[int]]) -> list[str]:
        """How the scores come about (R6, R8): lines for people."""


@dataclass(frozen=True)
class PointScoring(ScoringRule, ABC):
    """A scoring that counts points for each colour, adds the button's half point to its holder's
    and the komi to White's: the difference of the scores is a margin in points."""

    @abstractmethod
    def points(self, stones: tuple[int, int],
               lengths: Optional[tuple[Sequence[int], Sequence[int]]]) -> tuple[float, float]:
        """(Black's, White's) points before the button and the komi."""

    @abstractmethod
    def batch_points(self, boards: Boards) -> tuple[np.ndarray, np.ndarray]:
        """([R], [R]) ``points`` of a batch."""

    @abstractmethod
    def points_term(self, stones: int, lengths: Sequence[int], alone: bool) -> str:
        """How one colour's points are counted, for ``explain`` ("12 stones"); ``alone``: no
        button or komi term follows it."""

    def scores(self, komi, button, stones, lengths):
        black, white = self.points(stones, lengths)
        return float(black) + 0.5 * (button == "black"), float(white) + 0.5 * (button == "white") + komi

    def batch_scores(self, boards):
        black, white = self.batch_points(boards)
        button = boards.button()
        out = np.empty((black.shape[0], 2), dtype=np.float64)
        out[:, 0] = black
        out[:, 1] = white
        out[:, 0] += 0.5 * (button == BLACK)
        out[:, 1] += 0.5 * (button == WHITE) + boards.komi()
        return out.astype(np.float32)

    def explain(self, komi, button, stones, lengths):
        scores = self.scores(komi, button, stones, lengths)
        parts = []
        for i, colour in enumerate(COLOURS):
            extras = [f"komi {komi}"] if colour == "white" and komi else []
            if button == colour:
                extras.append("0.5 button")
            terms = [self.points_term(stones[i], lengths[i], alone=not extras), *extras]
            parts.append(f"{colour} " + " + ".join(terms) + f" = {scores[i]:g}")
        return [f"{self.name} scoring (R6): {parts[0]}; {parts[1]}"]


@dataclass(frozen=True)
class StandardScoring(PointScoring):
    """R6 standard: a colour's points are its stones on the board."""

    reads_lengths: ClassVar[bool] = False

    def points(self, stones, lengths):
        return stones

    def batch_points(self, boards):
        return boards.stones()

    def points_term(self, stones, lengths, alone):
        return f"{stones} stone" + ("" if stones == 1 else "s")


@dataclass(frozen=True)
class QuadraticScoring(PointScoring):
    """R6 quadratic: a colour's points are the sum of its owned ribbons' lengths squared."""

    def margin_unit(self, cells: int) -> float:
        """Points square lengths, so a margin's natural size is the board's cells, N."""
        return float(cells)

    def points(self, stones, lengths):
        return sum(n * n for n in lengths[0]), sum(n * n for n in lengths[1])

    def batch_points(self, boards):
        length, owner = boards.ribbons()
        squared = length ** 2
        return (squared * (owner == BLACK)).sum(axis=1), (squared * (owner == WHITE)).sum(axis=1)

    def points_term(self, stones, lengths, alone):
        term = f"ribbons {lengths_text(sorted(lengths, reverse=True))} squared"
        return term if alone else term + f" ({sum(n * n for n in lengths)})"


@dataclass(frozen=True)
class LongestScoring(ScoringRule):
    """R6 longest: the komi is added to one of White's longest ribbons, equal-length pairs of
    opposite colours cancel; the colour with the longest ribbon left scores its length, the other
    0 (both 0 if none is left: then the button decides, R6/R8). No margin: only who leads counts."""

    has_margin: ClassVar[bool] = False

    def scores(self, komi, button, stones, lengths):
        scores = LongestTally.from_lengths(lengths[0], lengths[1], komi).scores
        return scores["black"], scores["white"]

    def batch_scores(self, boards):
        # per length, cancelling pairs leaves only the surplus colour; the top such length wins
        length, owner = boards.ribbons()
        komi = boards.komi()
        rows = length.shape[0]
        bins = length.shape[1] + 1 + int(komi.max(initial=0))
        index = np.arange(rows, dtype=np.int64)[:, None] * bins + length
        count_b = np.bincount(index[owner == BLACK], minlength=rows * bins).reshape(rows, bins)
        count_w = np.bincount(index[owner == WHITE], minlength=rows * bins).reshape(rows, bins)
        longest_white = np.where(owner == WHITE, length, 0).max(axis=1, initial=0)
        wr = np.flatnonzero(longest_white > 0)  # the komi goes on one of White's longest
        count_w[wr, longest_white[wr]] -= 1
        count_w[wr, longest_white[wr] + komi[wr]] += 1
        surplus = count_b - count_w
        nonzero = surplus != 0
        top = bins - 1 - np.argmax(nonzero[:, ::-1], axis=1)
        left = np.flatnonzero(nonzero.any(axis=1))
        out = np.zeros((rows, 2), dtype=np.float32)
        out[left, np.where(surplus[left, top[left]] > 0, 0, 1)] = top[left]
        return out

    def explain(self, komi, button, stones, lengths):
        t = LongestTally.from_lengths(lengths[0], lengths[1], komi)
        shown_komi = t.komi if t.komi_ribbon is not None else 0
        lines = [f"{self.name} scoring (R6): black's ribbons {lengths_text(t.black)}; "
                 f"white's {lengths_text(t.white, shown_komi)}"]
        if komi and t.komi_ribbon is None:
            lines[0] += f" (komi {komi} has no ribbon to go to)"
        if t.cancelled:
            lines.append(f"cancelled in equal pairs: {lengths_text(t.cancelled)}; "
                         f"left: black {lengths_text(t.left_black)}, white {lengths_text(t.left_white)}")
        else:
            lines.append("no two ribbons of opposite colours have equal length: none cancel")
        leader = t.leader
        if leader is not None:
            top = (t.left_black if leader == "black" else t.left_white)[0]
            komi_part = (f" ({t.komi_ribbon} + komi {t.komi})"
                         if leader == "white" and t.komi and top == t.komi_ribbon + t.komi
                         and t.komi_ribbon + t.komi not in t.white else "")
            lines.append(f"longest ribbon left: {leader}'s {top}{komi_part}, so {leader} scores {top}, "
                         f"the other 0")
        elif button is not None:
            lines.append(f"no ribbon is left: the button holder, {button}, wins (R6)")
        else:
            lines.append("no ribbon is left and there is no button: a draw (R8)")
        return lines


STANDARD = StandardScoring("standard", 0, 15, summary="your stones + 0.5 for the button (+ komi for White).")
LONGEST = LongestScoring("longest", 1, 15,
                         summary="komi lengthens White's longest ribbon; equal-length pairs of opposite "
                                 "colours cancel; the longest ribbon left wins (none: the button).")
QUADRATIC = QuadraticScoring("quadratic", 2, 1000,
                             summary="the sum of your ribbons' lengths squared, + button, + komi.")
SCORING_RULES: tuple[ScoringRule, ...] = (STANDARD, LONGEST, QUADRATIC)  # in index order
_BY_NAME = {rule.name: rule for rule in SCORING_RULES}


def scoring_rule(name: str) -> ScoringRule:
    """The record of the scoring type ``name``; ``UserError`` if there is none."""
    rule = _BY_NAME.get(name) if isinstance(name, str) else None
    if rule is None:
        raise UserError(f"scoring must be one of {', '.join(_BY_NAME)}; got {name!r}")
    return rule


def lengths_text(values: Sequence[int], boosted_first: int = 0) -> str:
    """"8+2 komi, 5, 1 x3" for lengths sorted longest first (komi shown on the first one)."""
    if not values:
        return "none"
    counts = Counter(values[1:] if boosted_first else values)
    parts = [f"{values[0]}+{boosted_first} komi"] if boosted_first else []
    for length in sorted(counts, reverse=True):
        k = counts[length]
        parts.append(f"{length} x{k}" if k > 1 else f"{length}")
    return ", ".join(parts)


@dataclass(frozen=True)
class LongestTally:
    """R6 "longest" scoring step by step: each colour's ribbon lengths, the komi added to one of
    White's longest, the equal pairs that cancel, what is left, and so the scores.

    Lengths are sorted longest first; a ribbon counts for its majority colour (at the end
    every ribbon is claimed and monochrome; a tied unclaimed ribbon counts for nobody).
    """

    black: tuple[int, ...]
    white: tuple[int, ...]  # before komi
    komi: int
    komi_ribbon: Optional[int]  # length of the White ribbon the komi is added to; None if White has none
    cancelled: tuple[int, ...]  # one entry per cancelled pair
    left_black: tuple[int, ...]
    left_white: tuple[int, ...]  # after komi

    @classmethod
    def from_lengths(cls, black: Sequence[int], white: Sequence[int], komi: int) -> LongestTally:
        """The tally of the lengths of Black's and White's ribbons (any order) at ``komi``."""
        black = sorted(black, reverse=True)
        white = sorted(white, reverse=True)
        boosted = ([white[0] + komi] + white[1:]) if white else []
        b, w = Counter(black), Counter(boosted)
        cancelled = sorted((n for n in b if n in w for _ in range(min(b[n], w[n]))), reverse=True)
        left_b = sorted((n for n in b for _ in range(b[n] - min(b[n], w[n]))), reverse=True)
        left_w = sorted((n for n in w for _ in range(w[n] - min(b[n], w[n]))), reverse=True)
        return cls(tuple(black), tuple(white), komi, white[0] if white else None,
                   tuple(cancelled), tuple(left_b), tuple(left_w))

    @property
    def leader(self) -> Optional[str]:
        """The owner of the longest ribbon left, None when nothing is left (then the button
        decides, or it is a draw without one)."""
        top_b = self.left_black[0] if self.left_black else 0
        top_w = self.left_white[0] if self.left_white else 0
        if top_b == top_w:  # both 0: lengths left over are never equal across colours
            return None
        return "black" if top_b > top_w else "white"

    @property
    def scores(self) -> dict[str, float]:
        """The leader scores the length of its longest ribbon left, the other 0 (both 0 when
        nothing is left)."""
        result = {"black": 0.0, "white": 0.0}
        leader = self.leader
        if leader is not None:
            result[leader] = float((self.left_black if leader == "black" else self.left_white)[0])
        return result

