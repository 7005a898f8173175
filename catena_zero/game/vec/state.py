"""The typed views of packed game rows: ``EnvState`` (B games of one ``VecEnv``) and
``RibbonInfo`` (the per-cell ribbon features the network reads).

Shape legend: B games, N cells, W packed row width (``layout.py``, which documents every field).
Each property is a read-only snapshot (a copy) of a column slice of the packed rows; the scores
are computed on demand by ``scores.py``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .layout import _Layout
from .scores import _scores

@dataclass(eq=False)
class EnvState:
    """B games of one ``VecEnv``. ``data`` is the packed state; the named properties are
    typed read-only snapshots (copies) of it. Change games only through ``VecEnv``.

    A state belongs to every ``VecEnv`` with the same rules (side, game type, scoring). It
    pickles as its packed rows plus those rules (``_Layout.__reduce__``), about ``data.nbytes``
    + 200 bytes, and is valid again after unpickling in any process (Ray).
    """

    data: np.ndarray  # [B, W] int16 packed rows, layout in the module docstring
    layout: _Layout = field(repr=False)

    @property
    def batch_size(self) -> int:
        return self.data.shape[0]

    def _block(self, offset: int, size: int) -> np.ndarray:
        return self.data[:, offset:offset + size]

    @property
    def board(self) -> np.ndarray:
        """[B, N] int8 colour of every cell now (after claims); at the end the final owners."""
        return self._block(self.layout.colour, self.layout.n).astype(np.int8)

    @property
    def to_move(self) -> np.ndarray:
        """[B] int8 BLACK/WHITE to move; after the end, who would move next (R10)."""
        return self.data[:, self.layout.to_move].astype(np.int8)

    @property
    def move_number(self) -> np.ndarray:
        """[B] int32 moves played (stones and the button)."""
        return self.data[:, self.layout.move_number].astype(np.int32)

    @property
    def pending_second(self) -> np.ndarray:
        """[B] bool double (R8): the next stone is the second of a two-stone turn."""
        m = self.data[:, self.layout.move_number]
        if not self.layout.double:
            return np.zeros(self.batch_size, dtype=bool)
        # Black's opening stone is move 1; then each turn is stones (2t, 2t+1).
        return (m >= 2) & (m % 2 == 0) & (self.data[:, self.layout.done] == 0)

    @property
    def button(self) -> np.ndarray:
        """[B] int8 button holder, EMPTY if not taken; after the end the R6 assignment."""
        return self.data[:, self.layout.button].astype(np.int8)

    @property
    def done(self) -> np.ndarray:
        """[B] bool the game is over."""
        return self.data[:, self.layout.done] != 0

    @property
    def winner(self) -> np.ndarray:
        """[B] int8 where done: EMPTY (0) for a draw, BLACK or WHITE; 0 while running."""
        return self.data[:, self.layout.winner].astype(np.int8)

    @property
    def komi(self) -> np.ndarray:
        """[B] int32 komi of each game (R6, R7)."""
        return self.data[:, self.layout.komi].astype(np.int32)

    @property
    def history(self) -> np.ndarray:
        """[B, N+1] int16 actions played in order, -1 padded."""
        return self._block(self.layout.history, self.layout.n + 1).copy()

    @property
    def scores(self) -> np.ndarray:
        """[B, 2] float32 [black, white] scores as defined by the rules (R6, docs/RULES.md), current during
        the game and final at the end. Computed on demand, O(B * N)."""
        return _scores(self.data, self.layout)


@dataclass(frozen=True)
class RibbonInfo:
    """Per-cell ribbon features for the network, all [B, N]; zero on empty cells."""

    is_end: np.ndarray  # [B, N] bool the stone is an end of its ribbon (R2)
    limited: np.ndarray  # [B, N] bool its ribbon is claimed: limited (R5), or R8's final claim
    length: np.ndarray  # [B, N] int16 stones in its ribbon
    black: np.ndarray  # [B, N] int16 black stones in its ribbon
    white: np.ndarray  # [B, N] int16 white stones in its ribbon
    growth: np.ndarray  # [B, N] int16 distinct legal (R3) cells next to its ribbon's ends
