"""Board geometry (RULES.md R1, R10): cell counts, coordinates, adjacency, symmetries."""

import numpy as np
import pytest

from catena_zero.game.spec import HEX_DIRECTIONS, NUM_SYMMETRIES, board_spec, num_cells


@pytest.mark.parametrize("side,count", [(2, 7), (3, 19), (4, 37), (5, 61), (6, 91), (10, 271)])
def test_r1_cell_count(side, count):
    assert num_cells(side) == count
    assert board_spec(side).num_cells == count


def test_r1_side6_columns():
    """R1: on side 6, column A holds A1-A6, B holds B1-B7, F holds F1-F11, K holds K6-K11."""
    names = set(board_spec(6).names)
    col = lambda letter: sorted(int(n[1:]) for n in names if n[0] == letter)
    assert col("A") == list(range(1, 7))
    assert col("B") == list(range(1, 8))
    assert col("F") == list(range(1, 12))
    assert col("K") == list(range(6, 12))
    assert "L1" not in names and "A7" not in names


def test_r10_notation_roundtrip_and_order():
    spec = board_spec(10)
    assert spec.names[spec.cell("A10")] == "A10"
    assert "I5" in spec.names  # R1: no letter is skipped
    keys = [(n[0], int(n[1:])) for n in spec.names]
    assert keys == sorted(keys)  # notation order = (column, row)
    for bad in ["", "a1", "A0", "A11", "Z1", "A", "1A", None]:
        with pytest.raises(ValueError):
            spec.cell(bad)


@pytest.mark.parametrize("side", [2, 3, 6, 10])
def test_r1_adjacency(side):
    spec = board_spec(side)
    n = spec.num_cells
    coords = {tuple(map(int, c)): i for i, c in enumerate(spec.coords)}
    for i, (c, r) in enumerate(spec.coords):
        expected = {coords[(c + dc, r + dr)] for dc, dr in HEX_DIRECTIONS if (c + dc, r + dr) in coords}
        got = {int(j) for j in spec.neighbours[i] if j < n}
        assert got == expected
        assert spec.degree[i] == len(expected)
    assert (spec.neighbours[n] == n).all()  # sentinel row


@pytest.mark.parametrize("side", [2, 3, 6])
def test_r1_twelve_symmetries_preserve_adjacency(side):
    spec = board_spec(side)
    n = spec.num_cells
    edges = {(i, int(j)) for i in range(n) for j in spec.neighbours[i] if j < n}
    images = set()
    for k in range(NUM_SYMMETRIES):
        f = spec.sym_map[k]
        assert sorted(f) == list(range(n))
        assert {(int(f[i]), int(f[j])) for i, j in edges} == edges
        images.add(tuple(f))
        x = np.arange(n)
        y = spec.transform(x, k)
        assert (y[f] == x).all()  # value of cell i lands on its image
        a = spec.transform(np.arange(n + 1), k)
        assert a[n] == n  # the button action is fixed
    assert len(images) == NUM_SYMMETRIES
    assert (spec.sym_map[0] == np.arange(n)).all()


def test_grid_maps():
    spec = board_spec(4)
    g = spec.grid_size
    assert spec.board_mask.sum() == spec.num_cells
    for i, (c, r) in enumerate(spec.coords):
        assert spec.cell_to_grid[i] == r * g + c
        assert spec.grid_to_cell[r * g + c] == i


def test_r10_action_names():
    spec = board_spec(6)
    assert spec.action_name(spec.cell("D5")) == "D5"
    assert spec.action_name(spec.button_action) == "button"
    assert [spec.action_name(a) for a in np.arange(spec.num_cells)] == list(spec.names)
