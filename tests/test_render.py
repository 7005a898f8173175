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
from catena_zero.game.match import Match
from catena_zero.game.records import board_of
from catena_zero.game.scoring import LongestTally
from catena_zero.game.render import render_ascii, render_svg, status_lines
from naive_rules import NaiveGame
from events import ev, evs, texts  # noqa: F401

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


def read_names(text: str, side: int, cell_chars: str = ".-XOxo") -> dict[str, tuple[int, int]]:
    """Read every cell's name off a ``hex`` layout ASCII board as a person does: follow the
    cell's column diagonally (one line up and one character left, or down and right) past the
    other cells to a letter at each end, and its row sideways to a row number.

    Returns cell name -> (line, character) of the cell. ``cell_chars`` are the characters of
    cells; on boards with a column 'O' (side 8 and up) read empty boards, with only '.'.
    """
    lines = text.splitlines()[: 2 * side + 1]  # the board: 2n - 1 rows and a letter line each side

    def at(y: int, x: int) -> str:
        return lines[y][x] if 0 <= y < len(lines) and 0 <= x < len(lines[y]) else " "

    def walk(y: int, x: int, dy: int, dx: int) -> tuple[int, int]:
        while at(y + dy, x + dx) in cell_chars:
            y, x = y + dy, x + dx
        return y + dy, x + dx

    def number_at(y: int, x: int) -> str | None:
        if not at(y, x).isdigit():
            return None
        lo = hi = x
        while at(y, lo - 1).isdigit():
            lo -= 1
        while at(y, hi + 1).isdigit():
            hi += 1
        return lines[y][lo:hi + 1]

    names = {}
    for y, line in enumerate(lines):
        for x, char in enumerate(line):
            if char not in cell_chars:
                continue
            letters = {at(*walk(y, x, d, d)) for d in (-1, 1)}
            assert len(letters) == 1, (y, x, letters, text)  # the same letter at both ends
            letter = letters.pop()
            assert letter.isalpha() and letter.isupper(), (y, x, letter, text)
            numbers = {number_at(*walk(y, x, 0, d)) for d in (-2, 2)} - {None}
            assert len(numbers) == 1, (y, x, numbers, text)
            name = letter + numbers.pop()
            assert name not in names, (name, text)
            names[name] = (y, x)
    return names


def column_labels(text: str, side: int, y: int, x: int) -> str:
    """The name a ``columns`` board gives the character at (line y, x): the letters straight
    above and below it (first and last board lines) and the numbers at both ends of its line."""
    lines = text.splitlines()[: 2 * side +1]
    top, bottom = lines[0][x:x + 1], lines[-1][x:x + 1]
    assert top == bottom and top.isalpha() and top.isupper(), (y, x, top, bottom, text)
    words = lines[y].split()
    assert words[0] == words[-1] and words[0].isdigit(), (y, words, text)
    return top + words[0]


@pytest.mark.parametrize("side", range(2, 11))
def test_every_cell_name_is_in_its_own_screen_column_and_line(side):
    """The default board: a stone on any cell of sides 2-10 stands on the one screen column
    whose letter (above and below) and the one line whose number (both ends) name that cell."""
    spec = Game(GameConfig(side=side)).spec
    for name in spec.names:
        text = render_ascii(Game.replay(GameConfig(side=side), [name]), legend=False)
        lines = text.splitlines()
        found = [(y, line.index("X")) for y, line in enumerate(lines) if "X" in line]
        assert len(found) == 1 and lines[found[0][0]].count("X") == 1, (name, text)
        assert column_labels(text, side, *found[0]) == name, text


def column_positions(side: int) -> dict[str, tuple[int, int]]:
    """Cell name -> (line, character) on a ``columns`` board (each cell located by a stone)."""
    out = {}
    for name in Game(GameConfig(side=side)).spec.names:
        lines = render_ascii(Game.replay(GameConfig(side=side), [name]), legend=False).splitlines()
        out[name] = next((y, line.index("X")) for y, line in enumerate(lines) if "X" in line)
    return out


@pytest.mark.parametrize("side", [2, 4, 7])
def test_columns_layout_follows_hex_adjacency(side):
    """R1 directions on the default board: (+1,0) two characters right, (0,+1) straight up one
    line, (+1,+1) one line up and two characters right."""
    spec = Game(GameConfig(side=side)).spec
    positions = column_positions(side)
    for name, (c, r) in zip(spec.names, spec.coords.tolist()):
        y, x = positions[name]
        for (dc, dr), (dy, dx) in (((1, 0), (0, 2)), ((0, 1), (-1, 0)), ((1, 1), (-1, 2))):
            other = f"{chr(65 + c + dc)}{r + dr + 1}"
            if other in positions:
                assert positions[other] == (y + dy, x + dx), (name, other)


@pytest.mark.parametrize("side", range(2, 11))
def test_every_cell_name_reads_off_the_hex_board(side):
    """The ``hex`` option: column letters at both ends of each (diagonal) column, row numbers
    on each row's line: every cell's name is read off the board, each cell once, none made up."""
    game = Game(GameConfig(side=side))
    names = read_names(render_ascii(game, legend=False, layout="hex"), side, cell_chars=".")
    assert set(names) == set(game.spec.names)


def test_corner_stones_read_back_where_they_were_placed():
    """The issue's check: stones on the six corners A1, F11, A6, K11, F1, K6 of side 6."""
    game = Game(GameConfig(side=6))
    corners = ["A1", "F11", "A6", "K11", "F1", "K6"]
    for move in corners:
        game.play(move)
    text = render_ascii(game, legend=False)
    lines = text.splitlines()
    positions = column_positions(6)
    for k, cell in enumerate(corners):
        y, x = positions[cell]
        assert lines[y][x] == "XO"[k % 2], (cell, text)
        assert column_labels(text, 6, y, x) == cell
    # F1 (bottom right) and F11 (top left) share one column: straight above each other.
    (y1, x1), (y11, x11) = positions["F1"], positions["F11"]
    assert y1 - y11 == 10 and x1 == x11
    hex_text = render_ascii(game, legend=False, layout="hex")
    hex_positions = read_names(render_ascii(Game(GameConfig(side=6)), legend=False, layout="hex"), 6)
    assert read_names(hex_text, 6) == hex_positions  # the stones do not change where names are read
    (y1, x1), (y11, x11) = hex_positions["F1"], hex_positions["F11"]
    assert y1 - y11 == x1 - x11 == 10


def naive_unplayable(game: Game) -> set[str]:
    """Empty cells R3 forbids, by the naive oracle (every empty cell once the game is over)."""
    naive = NaiveGame(game.config.side, game.config.game_type, game.config.scoring)
    board = [{"black": 1, "white": 2, None: 0}[game.stone_at(n)] for n in game.spec.names]
    return {n for i, n in enumerate(game.spec.names)
            if board[i] == 0 and (game.is_over or not naive.legal_cell(board, i))}


@pytest.mark.parametrize("layout", ["columns", "hex"])
@pytest.mark.parametrize("config", [GameConfig(side=3), GameConfig(side=4, game_type="double"),
                                    GameConfig(side=6, scoring="quadratic", komi=30)])
def test_ascii_shows_every_stone_claim_dead_cell_and_last_move(config, layout):
    """Every cell shows its stone (X black, O white, lower case once claimed, R5), '.' if it is
    empty and playable, '-' if nobody can ever play there (R3, by the naive oracle)."""
    empty = Game(config)
    if layout == "columns":
        positions = column_positions(config.side)
    else:
        positions = read_names(render_ascii(empty, legend=False, layout="hex"), config.side, cell_chars=".")
    saw_dead = False
    for game in random_positions(config, seed=3, stride=3 if config.side == 6 else 1):
        text = render_ascii(game, layout=layout)
        lines = text.splitlines()
        board = {name: lines[y][x] for name, (y, x) in positions.items()}
        claimed = claimed_cells(game)
        dead = naive_unplayable(game)
        saw_dead |= bool(dead)
        for name, char in board.items():
            colour = game.stone_at(name)
            expected = ("-" if name in dead else ".") if colour is None else {"black": "X", "white": "O"}[colour]
            if name in claimed:
                expected = expected.lower()
            assert char == expected, (name, text)
        board_lines = "\n".join(lines[: 2 * config.side + 1])  # rows and letter lines
        marked = re.findall(r"\((.)\)", board_lines)
        last = game.last_move
        if last is None or last == "button":
            assert marked == []
        else:
            assert len(marked) == 1 and marked[0].upper() == {"black": "X", "white": "O"}[game.stone_at(last)]
            assert f"last move: {last}" in text
        assert "- empty but never playable (R3)" in text  # the legend names the glyph
        key = [line for line in lines if line.startswith(("X black", "last move", "a cell touches"))]
        assert len(key) == (3 if layout == "columns" else 2) and max(map(len, key)) <= 80, text
    assert saw_dead


@pytest.mark.parametrize("side", [2, 4, 7])
def test_ascii_layout_follows_hex_adjacency(side):
    """R1 directions on the hex option: (+1,0) two characters right on the same line, (0,+1)
    one line up and one character left, (+1,+1) one line up and one character right."""
    game = Game(GameConfig(side=side))
    positions = read_names(render_ascii(game, legend=False, layout="hex"), side, cell_chars=".")
    spec = game.spec
    for name, (c, r) in zip(spec.names, spec.coords.tolist()):
        y, x = positions[name]
        for (dc, dr), (dy, dx) in (((1, 0), (0, 2)), ((0, 1), (-1, -1)), ((1, 1), (-1, 1))):
            other = f"{chr(65 + c + dc)}{r + dr + 1}"
            if other in positions:
                assert positions[other] == (y + dy, x + dx), (name, other)


def test_unknown_layout_is_refused():
    with pytest.raises(ValueError, match="layout must be one of columns, hex"):
        render_ascii(Game(GameConfig(side=3)), layout="round")


def test_side_10_board_fits_an_80_column_terminal():
    for layout in ("columns", "hex"):
        text = render_ascii(Game(GameConfig(side=10)), layout=layout)
        assert max(len(line) for line in text.splitlines()[:21]) <= 80, text


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


# ------------------------------------------------------------------- what the result says

# Side-3 games of tests/test_scoring.py. FIVE_AND_FIVE ends with a White and a Black
# five-stone ribbon, White placing last (so Black gets the button by R6); MIXED with Black
# {2, 1, 1} and White {2, 2, 1}, Black placing last (White gets the button).
FIVE_AND_FIVE = ["A2", "C3", "E3", "B1", "C2", "B3", "D5", "C5", "E5", "E4"]
MIXED = ["C4", "B2", "A3", "D3", "C5", "A1", "C1", "E5", "E3"]


def final_status(moves, scoring, komi=0, match=None) -> list[str]:
    game = Game.replay(GameConfig(side=3, scoring=scoring, komi=komi), moves)
    assert game.is_over
    return status_lines(game, match)


def test_game_over_says_once_who_won_and_who_has_the_button():
    lines = final_status(FIVE_AND_FIVE, "standard")
    assert lines[0] == "game over: black wins (black 5.5, white 5); button: black, by R6 (white placed the last stone)"
    assert lines[1] == "standard scoring (R6): black 5 stones + 0.5 button = 5.5; white 5 stones = 5"
    assert sum(line.startswith("game over") for line in lines) == 1
    taken = ["A2", "button", *FIVE_AND_FIVE[1:]]  # White takes the button on move 2 and keeps it
    game = Game.replay(GameConfig(side=3), taken[:2])
    assert "button: white" in status_lines(game)[0]
    game = Game.replay(GameConfig(side=3, komi=1), taken)  # legality ignores colour: it ends as before
    assert game.is_over and status_lines(game)[0].endswith("; button: white took it (move 2)")
    quadratic = final_status(MIXED, "quadratic", komi=3)
    assert quadratic[1] == ("quadratic scoring (R6): black ribbons 2, 1 x2 squared = 6; "
                            "white ribbons 2 x2, 1 squared (9) + komi 3 + 0.5 button = 12.5")


def test_longest_result_explains_cancelled_pairs_the_longest_left_and_komi():
    # Two five-stone ribbons cancel; nothing is left, so the button decides (R6).
    lines = final_status(FIVE_AND_FIVE, "longest")
    assert lines[0].startswith("game over: black wins on the button (black 0, white 0); button: black, by R6")
    assert lines[1:] == ["longest scoring (R6): black's ribbons 5; white's 5",
                         "cancelled in equal pairs: 5; left: black none, white none",
                         "no ribbon is left: the button holder, black, wins (R6)"]
    # Komi 1 lengthens White's five to six: nothing cancels and White's six is longest.
    lines = final_status(FIVE_AND_FIVE, "longest", komi=1)
    assert lines[1:] == ["longest scoring (R6): black's ribbons 5; white's 5+1 komi",
                         "no two ribbons of opposite colours have equal length: none cancel",
                         "longest ribbon left: white's 6 (5 + komi 1), so white scores 6, the other 0"]
    # Black {2, 1, 1} against White {2, 2, 1}: a pair of 2s and a pair of 1s cancel.
    lines = final_status(MIXED, "longest")
    assert lines[0].startswith("game over: white wins (black 0, white 2); button: white, by R6")
    assert lines[1:] == ["longest scoring (R6): black's ribbons 2, 1 x2; white's 2 x2, 1",
                         "cancelled in equal pairs: 2, 1; left: black 1, white 2",
                         "longest ribbon left: white's 2, so white scores 2, the other 0"]


@pytest.mark.parametrize("komi", [0, 2, 7])
def test_longest_tally_agrees_with_the_engine(komi):
    """Conformance: the explanation's verdict is the engine's score on random finished games."""
    for seed in range(40):
        double = seed % 4 == 0  # no komi, no button (R8): nothing left is a draw
        config = GameConfig(side=4, scoring="longest", komi=0 if double else komi,
                            game_type="double" if double else "komi")
        game = list(random_positions(config, seed=seed))[-1]
        tally = LongestTally.from_lengths(*game.owned_lengths(), komi=game.config.komi)
        scores = game.scores()
        if tally.leader is None:
            assert scores == {"black": 0.0, "white": 0.0}
        else:
            top = (tally.left_black if tally.leader == "black" else tally.left_white)[0]
            assert scores[tally.leader] == top and game.winner == tally.leader
        assert len(tally.black) + len(tally.white) == len(game.ribbons())
        assert sorted(tally.cancelled * 2 + tally.left_black + tally.left_white) == sorted(
            tally.black + ((tally.white[0] + tally.komi,) + tally.white[1:] if tally.white else ()))


def test_status_follows_the_set_up_of_a_match():
    """Before play (R7) the status names the set-up step, not a player to move; then the seats."""
    match = Match(GameConfig(side=3))
    assert status_lines(board_of(match), match)[0].startswith("set-up (R7): the first player chooses the komi")
    match.apply(ev("komi 7"))
    line = status_lines(match.game, match)[0]
    assert line == "set-up (R7): komi 7 chosen; the second player chooses black or white"
    assert "to move" not in render_ascii(match.game, match=match)
    match.apply(ev("colour black"))
    assert status_lines(match.game, match)[0].startswith("black (second player) to move")
    no_komi = Match(GameConfig(side=3, game_type="no_komi"))
    no_komi.apply(ev("C3"))
    assert "'swap'" in status_lines(no_komi.game, no_komi)[0]


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


@pytest.mark.parametrize("config", [GameConfig(side=3), GameConfig(side=4, game_type="double"),
                                    GameConfig(side=5, scoring="longest", komi=4)])
def test_svg_marks_unplayable_cells_and_stones_a_claim_took_over(config):
    """As the page does: hatching on empty cells nobody can place on again (R3), and on a stone a
    claim took over (R5) a dot of the colour that placed it, found here by replaying the moves."""
    seen_converted = seen_dead = 0
    for game in random_positions(config, seed=11, stride=3):
        root = parse_svg(render_svg(game))
        placed, replay = {}, Game(game.config)
        for move in game.history:
            if move != "button":
                placed[move] = replay.to_move
            replay.play(move)
        converted = {name: colour for name, colour in placed.items() if game.stone_at(name) != colour}
        dots = {e.get("data-cell"): e.get("class").split()[1] for e in by_class(root, "converted")}
        assert dots == converted
        dead = {game.spec.names[i] for i in game.unplayable_cells() if game.stone_at(game.spec.names[i]) is None}
        assert {e.get("data-cell") for e in by_class(root, "unplayable")} == dead
        seen_converted += bool(converted)
        seen_dead += bool(dead)
    assert seen_converted and seen_dead  # the positions had both to show


def test_a_small_board_is_not_lost_in_a_picture_sized_by_its_caption():
    """The caption wraps to the board's width: a finished side-3 game's long result lines make
    the picture taller, not several boards wide."""
    game = next(g for g in random_positions(GameConfig(side=3), seed=3, stride=1) if g.is_over)
    root = parse_svg(render_svg(game))
    cells = by_class(root, "cell")
    xs = [float(v.split(",")[0]) for c in cells for v in c.get("points").split()]
    board = max(xs) - min(xs)
    assert float(root.get("width")) < 1.8 * board, (root.get("width"), board)  # it was 3x and more
    words = " ".join(e.text for e in by_class(root, "caption")).split()
    assert words[:len(" ".join(status_lines(game)).split())] == " ".join(status_lines(game)).split()  # all of it


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
    letters = sorted(e.text for e in by_class(root, "column"))
    assert letters == sorted("ABCDE" * 2)  # each column labelled at both ends
    assert sorted(e.text for e in by_class(root, "row")) == ["1", "2", "3", "3", "4", "5"]
    assert len(by_class(root, "guide")) == len(letters)
    caption = " ".join(e.text for e in by_class(root, "caption"))  # wrapped to the board's width
    assert caption.startswith("black to move") and caption == " ".join(status_lines(game))
    bare = parse_svg(render_svg(game, coordinates=False, caption=False))
    assert by_class(bare, "coord") == [] and by_class(bare, "caption") == [] and by_class(bare, "guide") == []
    with pytest.raises(ValueError, match="cell_radius"):
        render_svg(game, cell_radius=0)


@pytest.mark.parametrize("side", [2, 3, 6, 10])
def test_every_cell_name_reads_off_the_svg(side):
    """As on the ASCII board: from any cell, going along its column (A1 -> A2) either way
    reaches the column's letter, and going along its row (A1 -> B1) reaches the row's number."""
    root = parse_svg(render_svg(Game(GameConfig(side=side))))
    centres = {}
    for poly in by_class(root, "cell"):
        pts = np.array([[float(v) for v in p.split(",")] for p in poly.get("points").split()])
        centres[poly.get("data-cell")] = pts.mean(axis=0)
    labels = [(e.text, np.array([float(e.get("x")), float(e.get("y"))])) for e in by_class(root, "coord")]
    cells = np.array(list(centres.values()))

    def label_along(p, step):
        q = p
        while True:
            q = q + step
            for text, at in labels:
                if np.linalg.norm(at - q) < 0.5:
                    return text
            if np.min(np.linalg.norm(cells - q, axis=1)) > 0.5:
                return None  # off the board without meeting a label

    column = centres["A2"] - centres["A1"]
    row = centres["B1"] - centres["A1"]
    for name, p in centres.items():
        assert label_along(p, column) == label_along(p, -column) == name[0], name
        numbers = {t for t in (label_along(p, row), label_along(p, -row)) if t and t.isdigit()}
        assert numbers == {name[1:]}, name  # a row meets a letter at the end without a number


def test_one_stone_is_not_stones():
    """Standard scoring's explanation counts "1 stone", not "1 stones"."""
    game = Game.replay(GameConfig(side=3), ["C4", "D3", "C1", "A1", "D2", "A2", "B4", "E5", "C3", "B1"])
    assert game.is_over and sum(game.stone_at(n) == "white" for n in game.spec.names) == 1
    line = status_lines(game)[1]
    for colour in ("black", "white"):
        count = sum(game.stone_at(n) == colour for n in game.spec.names)
        assert f"{colour} {count} stone{'' if count == 1 else 's'} " in line, line
    assert " 1 stones" not in line
