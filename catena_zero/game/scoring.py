"""Scoring (RULES.md R6, R8): the record of each scoring type, and the scores from what is on
the board (each colour's stones and the lengths of the ribbons each colour owns).

``ScoringRule`` is the one place a scoring type is described: its name, komi range, how its
points are counted, whether a margin means anything, its line of the rules in brief. Every
consumer (the options, both engines, the search's score unit, the features, self-play's komi
spread, the solvers, the explanations) asks ``scoring_rule(name)`` instead of comparing names.

``scores`` is the one pure implementation: the reference engine (``rules.Game.scores``) and the
explanation of a result (``render.score_lines``) both use it; the batched engine's vectorised
copy (``vec/scores.py``) is diff-tested against it.

Colours are named here ("black", "white"), as in ``Game``'s public API.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass
from typing import Optional, Sequence

from ..errors import UserError


@dataclass(frozen=True)
class ScoringRule:
    """One scoring type of R6 and what the rest of the house asks of it.

    Points are either counted from the stones (standard), or from the owned ribbons' lengths:
    squared and summed (quadratic), or the longest one left after cancelling (longest). The first
    two add the button's half point and White's komi to a sum, so the difference of the scores
    is a margin in points; longest scores only the leader's one ribbon, so it has none.
    """

    name: str  # as in GameConfig.scoring, record headers and rule-set keys (stored text: keep it)
    index: int  # position in SCORINGS, the network's one-hot input of the scoring (trained weights: never reorder)
    komi_max: int  # the komi is a whole number in 0..komi_max (R6)
    counts_stones: bool  # the points are stones on the board, so the ribbons' lengths are not needed
    squares_lengths: bool  # the points are the owned ribbons' lengths squared: a margin is in cells squared
    summary: str  # its R6 line of the rules in brief (commands/play.py), without the name

    @property
    def komi_range(self) -> tuple[int, int]:
        """Inclusive komi range (R6: 0-15, or 0-1000 for quadratic)."""
        return (0, self.komi_max)

    @property
    def has_margin(self) -> bool:
        """Whether the scores are sums of points, so that their difference is a margin to optimise
        (false for longest: the leader scores one ribbon's length, the other 0)."""
        return self.counts_stones or self.squares_lengths

    @property
    def komi_scale(self) -> float:
        """This scoring's komi points per point of the standard 0..15 range (self-play's komi
        spread is given in those points): 1, or 1000 / 15 for quadratic."""
        return self.komi_max / STANDARD.komi_max

    def margin_unit(self, cells: int) -> float:
        """The natural size of a score margin on a board of ``cells`` cells (the search's score
        unit, KataGo's sqrt(area)): sqrt(N) when points count cells, N when they square lengths."""
        return float(cells) if self.squares_lengths else math.sqrt(cells)


STANDARD = ScoringRule("standard", 0, 15, counts_stones=True, squares_lengths=False,
                       summary="your stones + 0.5 for the button (+ komi for White).")
LONGEST = ScoringRule("longest", 1, 15, counts_stones=False, squares_lengths=False,
                      summary="komi lengthens White's longest ribbon; equal-length pairs of opposite "
                              "colours cancel; the longest ribbon left wins (none: the button).")
QUADRATIC = ScoringRule("quadratic", 2, 1000, counts_stones=False, squares_lengths=True,
                        summary="the sum of your ribbons' lengths squared, + button, + komi.")
SCORING_RULES = (STANDARD, LONGEST, QUADRATIC)  # in index order
_BY_NAME = {rule.name: rule for rule in SCORING_RULES}


def scoring_rule(name: str) -> ScoringRule:
    """The record of the scoring type ``name``; ``UserError`` if there is none."""
    rule = _BY_NAME.get(name) if isinstance(name, str) else None
    if rule is None:
        raise UserError(f"scoring must be one of {', '.join(_BY_NAME)}; got {name!r}")
    return rule


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


def scores(rule: ScoringRule, komi: int, button: Optional[str], stones: tuple[int, int],
           lengths: Optional[tuple[Sequence[int], Sequence[int]]]) -> dict[str, float]:
    """The scores of a position (R6) under scoring ``rule`` at ``komi``: usable during the game
    and final at the end.

    ``button``: its holder ("black", "white", None); ``stones``: (Black's, White's) stones on
    the board, which standard scoring counts; ``lengths``: (Black's, White's) owned ribbon
    lengths (``Game.owned_lengths``), which the other scorings read (may be None under standard).

    standard: stones of the colour + 0.5 button + komi for White.
    quadratic: sum of length**2 over owned ribbons + 0.5 button + komi for White; a
        ribbon's owner is its majority colour (a tied unlimited ribbon counts for nobody).
    longest: komi added to one of White's longest ribbons, equal-length opposite-colour
        pairs cancelled; the colour with the longest remaining ribbon scores its length,
        the other 0 (both 0 if none remains: then the button decides, R6/R8).
    """
    if not rule.has_margin:  # longest
        return LongestTally.from_lengths(lengths[0], lengths[1], komi).scores
    if rule.counts_stones:
        score = {"black": float(stones[0]), "white": float(stones[1])}
    else:  # quadratic
        score = {"black": float(sum(n * n for n in lengths[0])), "white": float(sum(n * n for n in lengths[1]))}
    if button is not None:
        score[button] += 0.5
    score["white"] += komi
    return score
