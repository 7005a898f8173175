"""Pictures of positions (game/render.py): ASCII and SVG show every stone where R1 puts it,
claimed ribbons (R5) distinctly, and the last move."""

from __future__ import annotations

import math
import re
import xml.etree.ElementTree as ET

import numpy as np
import pytest

from catena_zero.bot.players import RandomPlayer
from catena_zero.game import Game, GameConfig
from catena_zero.game.render import render_ascii, render_svg

SVG = "{http://www.w3.org/2000/svg}"


def random_positions(config: GameConfig, seed: int, stride: int = 1):
    """Every ``stride``-th position of one random game, including the empty and the final board."""
    rng = np.random.default_rng(seed)
    game, player = Game(config), RandomPlayer()
    yield game.copy()
    while not game.is_over:
        game.play(player.choose(game, rng))
        if game.is_over or game.move_number % stride == 0:
            yield game.copy()


def claimed_cells(game: Game) -> set[str]:
    return {c for r in game.ribbons() if r.claimed or r.limited for c in r.cells}


# ------------------------------------------------------------------------------- ASCII


def ascii_board(text: str, side: int) -> dict[str, str]:
    """Read an ASCII board back: cell name -> character, from the row-labelled lines.

    Row r lists its cells left to right from column max(0, r - (side - 1)) (R1), so the
    k-th token of a row is a known cell; a trailing single capital letter is a column label.
    """
    g = 2 * side - 1
    cells = {}
    rows_seen = set()
    for line in text.splitlines():
        m = re.match(r"^\s*(\d+) (.*)$", line)
        if not m:
            continue
        r = int(m.group(1)) - 1
        rows_seen.add(r)
        tokens = m.group(2).replace("(", " ").replace(")", " ").split()
        first = max(0, r - (side - 1))
        last = min(g - 1, r + side - 1)
        row_cells = [f"{chr(65 + c)}{r + 1}" for c in range(first, last + 1)]
        assert len(tokens) in (len(row_cells), len(row_cells) + 1), line
        if len(tokens) == len(row_cells) + 1:  # column letter of the column starting below
            assert tokens[-1] == chr(65 + last + 1), line
        cells.update(zip(row_cells, tokens))
    assert rows_seen == set(range(g))
    return cells


@pytest.mark.parametrize("config", [GameConfig(side=3), GameConfig(side=4, game_type="double"),
                                    GameConfig(side=6, scoring="quadratic", komi=30)])
def test_ascii_shows_every_stone_claim_and_last_move(config):
    """Every cell shows its stone (X black, O white, lower case once claimed, R5) or '.'."""
    for game in random_positions(config, seed=3, stride=3 if config.side == 6 else 1):
        text = render_ascii(game)
        board = ascii_board(text, config.side)
        claimed = claimed_cells(game)
        assert set(board) == set(game.spec.names)
        for name, char in board.items():
            colour = game.stone_at(name)
            expected = "." if colour is None else {"black": "X", "white": "O"}[colour]
            if name in claimed:
                expected = expected.lower()
            assert char == expected, (name, text)
        board_lines = "\n".join(text.splitlines()[: 2 * config.side])  # rows + column letters
        marked = re.findall(r"\((.)\)", board_lines)
        last = game.last_move
        if last is None or last == "button":
            assert marked == []
        else:
            assert len(marked) == 1 and marked[0].upper() == {"black": "X", "white": "O"}[game.stone_at(last)]
            assert f"last move: {last}" in text


def _char_position(text: str, row: int, char: str) -> tuple[int, int]:
    """(line, column) of the first ``char`` on the line of board row ``row`` (1-based)."""
    for y, line in enumerate(text.splitlines()):
        m = re.match(r"^\s*(\d+) ", line)
        if m and int(m.group(1)) == row:
            return y, line.index(char, m.end())
    raise AssertionError(f"no row {row}")


def test_ascii_layout_follows_hex_adjacency():
    """R1 directions on screen: (+1,0) two characters right on the same line, (0,+1) one
    line up and one character left, (+1,+1) one line up and one character right."""
    game = Game(GameConfig(side=4))
    for move in ("D4", "E4", "D5"):  # Black D4, White E4 = D4 + (1,0), Black D5 = D4 + (0,1)
        game.play(move)
    text = render_ascii(game, legend=False)
    y, x = _char_position(text, 4, "X")
    assert _char_position(text, 4, "O") == (y, x + 2)
    assert _char_position(text, 5, "X") == (y - 1, x - 1)
    game = Game(GameConfig(side=4))
    for move in ("D4", "E5"):  # White E5 = D4 + (1,1)
        game.play(move)
    text = render_ascii(game, legend=False)
    y, x = _char_position(text, 4, "X")
    assert _char_position(text, 5, "O") == (y - 1, x + 1)


def test_ascii_status_line_reports_turn_button_and_result():
    game = Game(GameConfig(side=3, komi=2))
    game.play("C3")
    game.play("button")
    text = render_ascii(game)
    assert "black to move" in text and "button: white" in text
    assert "last move: button" in text and "(" not in "".join(text.splitlines()[:6])
    finished = list(random_positions(GameConfig(side=3), seed=1))[-1]
    text = render_ascii(finished)
    s = finished.scores()
    assert f"game over: {finished.winner} wins" in text
    assert f"black {s['black']:g}, white {s['white']:g}" in text


# --------------------------------------------------------------------------------- SVG


def parse_svg(text: str) -> ET.Element:
    root = ET.fromstring(text)  # raises on malformed XML
    assert root.tag == f"{SVG}svg"
    return root


def by_class(root: ET.Element, cls: str) -> list[ET.Element]:
    return [e for e in root.iter() if cls in e.get("class", "").split()]


@pytest.mark.parametrize("config", [GameConfig(side=3), GameConfig(side=5, game_type="double"),
                                    GameConfig(side=6, scoring="longest", komi=4)])
def test_svg_cells_stones_claims_and_last_move(config):
    for game in random_positions(config, seed=7, stride=4):
        root = parse_svg(render_svg(game))
        cells = by_class(root, "cell")
        assert sorted(c.get("data-cell") for c in cells) == sorted(game.spec.names)
        stones = {e.get("data-cell"): e for e in by_class(root, "stone")}
        expected = {n: game.stone_at(n) for n in game.spec.names if game.stone_at(n)}
        assert set(stones) == set(expected)
        claimed = claimed_cells(game)
        for name, colour in expected.items():
            classes = stones[name].get("class").split()
            assert colour in classes
            assert ("claimed" in classes) == (name in claimed)
        assert {e.get("data-cell") for e in by_class(root, "claim")} == claimed
        chains = [r for r in game.ribbons() if (r.claimed or r.limited) and r.length > 1]
        assert len(by_class(root, "chain")) == len(chains)
        last = by_class(root, "last-move")
        if game.last_move in (None, "button"):
            assert last == []
        else:
            assert [e.get("data-cell") for e in last] == [game.last_move]
            stone = stones[game.last_move]
            assert (last[0].get("cx"), last[0].get("cy")) == (stone.get("cx"), stone.get("cy"))


def test_svg_cells_tile_the_hexagon_with_r1_adjacency():
    """Cell centres of R1 neighbours are exactly one cell apart; all other pairs further."""
    game = Game(GameConfig(side=4))
    root = parse_svg(render_svg(game, cell_radius=10))
    centres = {}
    for poly in by_class(root, "cell"):
        pts = np.array([[float(v) for v in p.split(",")] for p in poly.get("points").split()])
        assert pts.shape == (6, 2)
        centres[poly.get("data-cell")] = pts.mean(axis=0)
    spec = game.spec
    step = 10 * math.sqrt(3)
    for i, a in enumerate(spec.names):
        nbrs = {spec.names[j] for j in spec.neighbours[i] if j != spec.pad}
        for b in spec.names:
            if b == a:
                continue
            d = float(np.linalg.norm(centres[a] - centres[b]))
            if b in nbrs:
                assert d == pytest.approx(step, abs=0.2)
            else:
                assert d > step * 1.5
    # Row 1 is the bottom row (larger SVG y), column A the left of it.
    assert centres["A1"][1] > centres["A4"][1] and centres["A1"][0] < centres["D1"][0]


def test_svg_options_and_labels():
    game = Game(GameConfig(side=3))
    root = parse_svg(render_svg(game))
    labels = {e.text for e in by_class(root, "coord")}
    assert labels == {"1", "2", "3", "4", "5", "A", "B", "C", "D", "E"}
    assert "black to move" in by_class(root, "caption")[0].text and len(by_class(root, "caption")) == 1
    bare = parse_svg(render_svg(game, coordinates=False, caption=False))
    assert by_class(bare, "coord") == [] and by_class(bare, "caption") == []
    with pytest.raises(ValueError, match="cell_radius"):
        render_svg(game, cell_radius=0)
