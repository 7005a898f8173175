"""Scores and outcomes of packed game rows (R6): the whole-array version and the one-row one.

The batched copy of ``game/scoring.py`` (the pure reference), vectorised over rows and
diff-tested against it (tests/test_vec_env.py, test_scoring.py).

Shape legend: R packed rows, N cells, W row width (``layout.py``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..colours import BLACK, EMPTY, WHITE

if TYPE_CHECKING:
    from .layout import _Layout


def _standard_row_scores(F: list, lay: _Layout) -> tuple[float, float]:
    """(black, white) standard scores of one packed row as a Python list (``_scores``'
    standard branch on a list: for the one-row engine and a handful of rollouts)."""
    board = F[lay.colour:lay.colour + lay.n]
    button = F[lay.button]
    black = board.count(BLACK) + 0.5 * (button == BLACK)
    white = board.count(WHITE) + 0.5 * (button == WHITE) + F[lay.komi]
    return black, white


def _scores(data: np.ndarray, lay: _Layout) -> np.ndarray:
    """[R, 2] float32 [black, white] scores of packed rows ``data`` [R, W] (brief, R6)."""
    n = lay.n
    rule = lay.rules.scoring_rule
    colour = data[:, lay.colour:lay.colour + n]
    komi = data[:, lay.komi].astype(np.float64)
    button = data[:, lay.button]
    out = np.zeros((data.shape[0], 2), dtype=np.float64)
    if rule.counts_stones:
        out[:, 0] = (colour == BLACK).sum(axis=1)
        out[:, 1] = (colour == WHITE).sum(axis=1)
    else:
        # ribbons are their roots; owner = majority colour (claimed ribbons are monochrome),
        # a tied unclaimed ribbon counts for nobody
        is_root = (data[:, lay.label:lay.label + n] == np.arange(n)) & (colour != EMPTY)
        black = data[:, lay.black:lay.black + n].astype(np.int64)
        white = data[:, lay.white:lay.white + n].astype(np.int64)
        length = black + white
        majority = np.where(black > white, BLACK, np.where(white > black, WHITE, EMPTY))
        owner = np.where(is_root, majority, EMPTY)
        if rule.squares_lengths:
            out[:, 0] = (length ** 2 * (owner == BLACK)).sum(axis=1)
            out[:, 1] = (length ** 2 * (owner == WHITE)).sum(axis=1)
        else:  # longest
            return _longest_scores(length, owner, data[:, lay.komi].astype(np.int64), n)
    out[:, 0] += 0.5 * (button == BLACK)
    out[:, 1] += 0.5 * (button == WHITE) + komi
    return out.astype(np.float32)


def _longest_scores(length: np.ndarray, owner: np.ndarray, komi: np.ndarray, n: int) -> np.ndarray:
    """R6 longest: komi on one of White's longest ribbons, cancel equal-length opposite pairs;
    the colour of the longest remaining ribbon scores its length, the other 0."""
    rows = length.shape[0]
    bins = n + 1 + int(komi.max(initial=0))
    off = np.arange(rows, dtype=np.int64)[:, None] * bins
    white_len = np.where(owner == WHITE, length, 0)
    longest_white = white_len.max(axis=1, initial=0)
    is_black, is_white = owner == BLACK, owner == WHITE
    count_b = np.bincount((off + length)[is_black], minlength=rows * bins).reshape(rows, bins)
    count_w = np.bincount((off + length)[is_white], minlength=rows * bins).reshape(rows, bins)
    has_white = longest_white > 0
    wr = np.flatnonzero(has_white)
    count_w[wr, longest_white[wr]] -= 1
    count_w[wr, longest_white[wr] + komi[wr]] += 1
    # per length, cancelling pairs leaves only the surplus colour; the top such length wins
    surplus = count_b - count_w
    nonzero = surplus != 0
    top = bins - 1 - np.argmax(nonzero[:, ::-1], axis=1)
    any_left = nonzero.any(axis=1)
    top_colour = np.where(surplus[np.arange(rows), top] > 0, 0, 1)
    out = np.zeros((rows, 2), dtype=np.float32)
    left = np.flatnonzero(any_left)
    out[left, top_colour[left]] = top[left]
    return out
