"""Static board geometry, built once per side and shared (RULES.md R1, R10).

Shape legend used across the project:
    N  cells on the board, 3n(n-1)+1 for side n (91 on side 6)
    A  actions, N + 1: one per cell, then "take the button" (index N == BUTTON(N))
    G  axial grid width, 2n-1; the net sees a G x G grid with a board mask
    S  symmetries, 12 (6 rotations x reflection)

Cells are indexed 0..N-1 in notation order, sorted by (column, row), the order in which
``Game.legal_moves()`` lists them. Cell ``(c, r)`` (0-based column and row) exists iff
``0 <= c, r <= 2n-2`` and ``|c - r| <= n-1``; it is written column letter + row number
(``(3, 4)`` is ``D5``). Neighbour tables are padded with the sentinel index ``N``
(``spec.pad``), a cell that is never on the board, so batched code can gather through it.
"""

from __future__ import annotations

import string
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Sequence

import numpy as np

from ..errors import UserError

MIN_SIDE, MAX_SIDE = 2, 10  # the board sides the rules allow (R1, R9)

# The six neighbour offsets (dc, dr) of R1, in rotational order: rotating by 60 degrees
# maps each offset to the next one.
HEX_DIRECTIONS = ((1, 0), (1, 1), (0, 1), (-1, 0), (-1, -1), (0, -1))
NUM_SYMMETRIES = 12
BUTTON = "button"  # R10: taking the button is written "button"
COLUMN_LETTERS = string.ascii_uppercase  # A..S are enough for side 10 (19 columns)


def num_cells(side: int) -> int:
    return 3 * side * (side - 1) + 1


def _rotate60(x: int, y: int) -> tuple[int, int]:
    """Rotate centred axial coordinates by 60 degrees: (1,0)->(1,1)->(0,1)->..."""
    return x - y, x


def _symmetry(k: int, x: int, y: int) -> tuple[int, int]:
    """Symmetry k (0..11) of centred coordinates: k//6 reflections (swap axes), then k%6 rotations."""
    if k >= 6:
        x, y = y, x  # reflection: swaps (1,0) and (0,1), fixes (1,1)
    for _ in range(k % 6):
        x, y = _rotate60(x, y)
    return x, y


@dataclass(frozen=True, eq=False)
class BoardSpec:
    """Geometry of a side-n board. Build with ``board_spec(side)`` (cached, shared)."""

    side: int
    num_cells: int  # N
    grid_size: int  # G = 2n-1
    coords: np.ndarray = field(repr=False)  # [N, 2] int (column, row), 0-based
    names: tuple[str, ...] = field(repr=False)  # [N] notation, "D5"
    neighbours: np.ndarray = field(repr=False)  # [N+1, 6] int, padded with pad=N; row N is all pad
    degree: np.ndarray = field(repr=False)  # [N] number of on-board neighbours (3..6)
    cell_to_grid: np.ndarray = field(repr=False)  # [N] flat index r*G + c into the G x G grid
    grid_to_cell: np.ndarray = field(repr=False)  # [G*G] cell index, -1 off board
    board_mask: np.ndarray = field(repr=False)  # [G, G] bool, True on board cells
    sym_map: np.ndarray = field(repr=False)  # [S, N] image of cell i under symmetry k
    sym_gather: np.ndarray = field(repr=False)  # [S, N] inverse: y = x[..., sym_gather[k]]
    sym_gather_actions: np.ndarray = field(repr=False)  # [S, A] same, button fixed
    _index: dict = field(repr=False)

    @property
    def pad(self) -> int:
        """Sentinel cell index used to pad neighbour tables (never on the board)."""
        return self.num_cells

    @property
    def num_actions(self) -> int:
        return self.num_cells + 1

    @property
    def button_action(self) -> int:
        return self.num_cells

    def action_name(self, action: int) -> str:
        """R10 notation of an action index: its cell ("D5"), or "button" for ``button_action``."""
        return BUTTON if action == self.num_cells else self.names[action]

    def action(self, move: str) -> int:
        """Action index of a move in R10 notation, the inverse of ``action_name``: its cell's
        index, or ``button_action`` for "button"; ``UserError`` if it is neither."""
        return self.num_cells if move == BUTTON else self.cell(move)

    def cell(self, name: str) -> int:
        """Index of a cell written in R10 notation; ``UserError`` if malformed or off board."""
        try:
            return self._index[name]
        except (KeyError, TypeError):
            raise UserError(f"{name!r} is not a cell of the side-{self.side} board") from None

    def transform(self, x: np.ndarray, k: int) -> np.ndarray:
        """Apply symmetry k to per-cell values on the last axis ([..., N] or [..., A])."""
        gather = self.sym_gather_actions[k] if x.shape[-1] == self.num_actions else self.sym_gather[k]
        return x[..., gather]

    def canonical_actions(self, actions: Sequence[int]) -> tuple[int, ...]:
        """The smallest image of an action sequence under the 12 symmetries: one key per class, so
        two openings that are the same up to symmetry have the same key (matches, books)."""
        if not actions:
            return ()
        images = self.sym_gather_actions[:, np.asarray(actions, dtype=np.int64)]  # [S, plies]
        return min(tuple(int(a) for a in row) for row in images)


@lru_cache(maxsize=None)
def board_spec(side: int) -> BoardSpec:
    if not MIN_SIDE <= side <= MAX_SIDE:
        raise ValueError(f"side must be in {MIN_SIDE}..{MAX_SIDE}, got {side}")
    g = 2 * side - 1
    coords = _cell_coords(side)
    count = len(coords)
    index_of = {(int(c), int(r)): i for i, (c, r) in enumerate(coords)}
    names = tuple(f"{COLUMN_LETTERS[c]}{r + 1}" for c, r in coords)
    neighbours = _neighbour_table(coords, index_of)
    degree = (neighbours[:count] < count).sum(axis=1)
    cell_to_grid = coords[:, 1] * g + coords[:, 0]
    grid_to_cell = np.full(g * g, -1, dtype=np.int64)
    grid_to_cell[cell_to_grid] = np.arange(count)
    sym_map = _symmetry_map(side, coords, index_of)
    sym_gather = np.argsort(sym_map, axis=1)
    button = np.full((NUM_SYMMETRIES, 1), count, dtype=np.int64)
    return BoardSpec(
        side=side,
        num_cells=count,
        grid_size=g,
        coords=_read_only(coords),
        names=names,
        neighbours=_read_only(neighbours),
        degree=_read_only(degree),
        cell_to_grid=_read_only(cell_to_grid),
        grid_to_cell=_read_only(grid_to_cell),
        board_mask=_read_only((grid_to_cell >= 0).reshape(g, g)),
        sym_map=_read_only(sym_map),
        sym_gather=_read_only(sym_gather),
        sym_gather_actions=_read_only(np.concatenate([sym_gather, button], axis=1)),
        _index={name: i for i, name in enumerate(names)},
    )


def _cell_coords(side: int) -> np.ndarray:
    """[N, 2] int64 (column, row) of the board's cells, in notation order (by column, then row)."""
    g = 2 * side - 1
    coords = np.array([(c, r) for c in range(g) for r in range(g) if abs(c - r) <= side - 1], dtype=np.int64)
    assert len(coords) == num_cells(side)
    return coords


def _neighbour_table(coords: np.ndarray, index_of: dict[tuple[int, int], int]) -> np.ndarray:
    """[N+1, 6] int64: the cell one step along each of ``HEX_DIRECTIONS``, the pad N where that is
    off the board; row N (the pad cell's) is all pad."""
    count = len(coords)
    neighbours = np.full((count + 1, 6), count, dtype=np.int64)
    for i, (c, r) in enumerate(coords):
        for d, (dc, dr) in enumerate(HEX_DIRECTIONS):
            j = index_of.get((int(c) + dc, int(r) + dr))
            if j is not None:
                neighbours[i, d] = j
    return neighbours


def _symmetry_map(side: int, coords: np.ndarray, index_of: dict[tuple[int, int], int]) -> np.ndarray:
    """[S, N] int64: the image of each cell under each of the 12 symmetries (about the centre cell)."""
    n = side
    sym_map = np.empty((NUM_SYMMETRIES, len(coords)), dtype=np.int64)
    for k in range(NUM_SYMMETRIES):
        for i, (c, r) in enumerate(coords):
            x, y = _symmetry(k, int(c) - (n - 1), int(r) - (n - 1))
            sym_map[k, i] = index_of[(x + n - 1, y + n - 1)]
    return sym_map


def _read_only(array: np.ndarray) -> np.ndarray:
    """``array``, made read-only: a spec is shared by every game of its side."""
    array.setflags(write=False)
    return array
