"""Scoring (RULES.md R6, R8) from what is on the board: each colour's stones and the lengths of
the ribbons each colour owns. The one pure implementation: the reference engine
(``rules.Game.scores``) and the explanation of a result (``render.score_lines``) both use it;
the batched engine's vectorised copy (``vec/scores.py``) is diff-tested against it.

Colours are named here ("black", "white"), as in ``Game``'s public API.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import TYPE_CHECKING, Optional, Sequence

if TYPE_CHECKING:
    from .options import GameConfig
    from .rules import Game


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
    def of(cls, game: Game) -> LongestTally:
        """The tally of ``game``'s ribbons at its komi."""
        black, white = game.owned_lengths()
        return cls.from_lengths(black, white, game.config.komi)

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


def scores(config: GameConfig, button: Optional[str], stones: tuple[int, int],
           lengths: Optional[tuple[Sequence[int], Sequence[int]]]) -> dict[str, float]:
    """The scores of a position (R6): usable during the game and final at the end.

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
    if config.scoring == "longest":
        return LongestTally.from_lengths(lengths[0], lengths[1], config.komi).scores
    if config.scoring == "standard":
        score = {"black": float(stones[0]), "white": float(stones[1])}
    else:  # quadratic
        score = {"black": float(sum(n * n for n in lengths[0])), "white": float(sum(n * n for n in lengths[1]))}
    if button is not None:
        score[button] += 0.5
    score["white"] += config.komi
    return score
