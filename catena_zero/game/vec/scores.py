"""Scores of packed game rows (R6): the scoring record's formulas (``game/scoring.py``) applied to
the rows, for the whole array and for one row.

The formulas are the record's; this module only reads what they ask of a batch (``Boards``) off
the packed rows, and picks the cheaper formula for one row held as a Python list.

Shape legend: R packed rows, N cells, W row width (``layout.py``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..colours import BLACK, COLOUR_NAMES, EMPTY, WHITE

if TYPE_CHECKING:
    from ..scoring import ScoringRule
    from .layout import _Layout


class _PackedBoards:
    """``scoring.Boards`` of packed rows ``data`` [R, W], each part read when a formula asks."""

    __slots__ = ("data", "lay")

    def __init__(self, data: np.ndarray, lay: _Layout) -> None:
        self.data = data
        self.lay = lay

    def komi(self) -> np.ndarray:
        return self.data[:, self.lay.komi].astype(np.int64)

    def button(self) -> np.ndarray:
        return self.data[:, self.lay.button]

    def stones(self) -> tuple[np.ndarray, np.ndarray]:
        colour = self.data[:, self.lay.colour:self.lay.colour + self.lay.n]
        return (colour == BLACK).sum(axis=1), (colour == WHITE).sum(axis=1)

    def ribbons(self) -> tuple[np.ndarray, np.ndarray]:
        # ribbons are their roots; owner = majority colour (claimed ribbons are monochrome),
        # a tied unclaimed ribbon counts for nobody
        data, lay, n = self.data, self.lay, self.lay.n
        colour = data[:, lay.colour:lay.colour + n]
        is_root = (data[:, lay.label:lay.label + n] == np.arange(n)) & (colour != EMPTY)
        black = data[:, lay.black:lay.black + n].astype(np.int64)
        white = data[:, lay.white:lay.white + n].astype(np.int64)
        majority = np.where(black > white, BLACK, np.where(white > black, WHITE, EMPTY))
        return black + white, np.where(is_root, majority, EMPTY)


def _scores(data: np.ndarray, lay: _Layout) -> np.ndarray:
    """[R, 2] float32 [black, white] scores of packed rows ``data`` [R, W] (R6)."""
    return lay.rules.scoring_rule.batch_scores(_PackedBoards(data, lay))


def _row_scores(F: list, lay: _Layout, rule: ScoringRule) -> tuple[float, float]:
    """(black, white) scores of one packed row as a Python list (the one-row engine, and the
    outcomes of a handful of rollouts) under ``rule``, the layout's scoring (looked up once by a
    caller looping over rows): the record's scalar formula when it reads only the stones
    (counting a list beats building an array), else ``_scores`` of the one row."""
    if rule.reads_lengths:
        black, white = _scores(np.array([F], dtype=np.int16), lay)[0].tolist()
        return black, white
    board = F[lay.colour:lay.colour + lay.n]
    return rule.scores(F[lay.komi], COLOUR_NAMES.get(F[lay.button]), (board.count(BLACK), board.count(WHITE)), None)
