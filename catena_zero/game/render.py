"""Pictures of a position: ASCII for terminals, SVG for files, web pages and TensorBoard; and the
lines that say what a position means (whose turn, the set-up step, the result and why).

Shape legend: ``N`` cells on the board (91 on side 6), in notation order (spec.py).

The SVG picture and the ASCII ``hex`` layout share the shape of RULES.md R1: rows are
horizontal with row 1 at the bottom, and each row is shifted half a cell left of the one below,
so the three adjacency directions of R1 are (+1, 0) right, (0, +1) up-left and (+1, +1)
up-right. A column (fixed letter) then runs diagonally up-left, and the board is a hexagon with
flat top and bottom edges. In that layout the labels sit on the ring of cells just outside the
board, each on the line it names: column letters at both ends of the column (one step
down-right of its first cell, one step up-left of its last), row numbers on the row's own line
(left of rows 1..n, right of rows n..2n-1).

The ASCII default, the ``columns`` layout, shears the same board so that columns are vertical:
every column's letter stands straight above and below it, and every row's number at both ends
of its line, so a cell's name is read off its own screen column and its own line, with no
diagonal to follow (a person following a diagonal across 10+ rows of side 10 slips a column).
The R1 directions are then (+1, 0) right, (0, +1) straight up and (+1, +1) up-right, and the
board's outline is a hexagon with two vertical edges.

Empty cells where nobody can ever play (R3 forbids them for good) have their own glyph,
``-``, so they do not look like the playable ``.``.

Stones in a limited (claimed, R5) ribbon are drawn distinctly from live stones: lower case in
ASCII, a line through the chain in SVG, because a claimed ribbon never changes again and the
reader should see at a glance what is still contested. The last move is marked in both.
"""

from __future__ import annotations

import math
import textwrap
from dataclasses import dataclass
from typing import Optional
from xml.sax.saxutils import escape

from .match import Match, Phase
from .options import GameConfig, komi_range
from .rules import Game
from .spec import BUTTON, COLUMN_LETTERS, BoardSpec

EMPTY_CHAR = "."
DEAD_CHAR = "-"  # an empty cell nobody can ever play (R3)
LAYOUTS = ("columns", "hex")  # ASCII layouts: vertical columns (default), the hexagon of R1
STONE_CHARS = {"black": "X", "white": "O"}  # live stones; claimed stones are lower case


# ------------------------------------------------------------------------- what a position means


def _num(x: float) -> str:
    return f"{x:g}"


def button_note(game: Game) -> Optional[str]:
    """Who has the button and how (R4 taken during the game, or R6 given at the end); None
    without a button (double) or while nobody has it."""
    holder = game.button_holder
    if holder is None:
        return None
    history = game.history
    if BUTTON in history:
        return f"button: {holder} took it (move {history.index(BUTTON) + 1})"
    if game.is_over:
        placer = "white" if holder == "black" else "black"
        return f"button: {holder}, by R6 ({placer} placed the last stone)"
    return f"button: {holder}"


def score_lines(game: Game) -> list[str]:
    """How the scores come about (R6, R8): the scoring record's explanation of the position."""
    board = [game.stone_at(name) for name in game.spec.names]
    stones = (board.count("black"), board.count("white"))
    return game.config.scoring_rule.explain(game.config.komi, game.button_holder, stones, game.owned_lengths())


def hex_centre(col: float, row: float, radius: float = 1.0) -> tuple[float, float]:
    """The centre of cell (col, row), 0-based (R1), in the one layout every picture draws (the
    SVG, the matplotlib figure, the page): pointy-top hexagons of ``radius`` (centre to corner),
    rows horizontal, row 1 at the bottom, each row half a cell left of the one below and 1.5
    radii higher; y grows downwards, as in SVG. Off-board (col, row) place the edge labels."""
    w = math.sqrt(3.0) * radius  # distance between neighbouring cell centres
    return w * (col - row / 2.0), -1.5 * radius * row


@dataclass(frozen=True)
class BoardView:
    """Everything a picture shows, read once from a Game (so renderers never touch rules).

    stones:   [N] "black" / "white" / None per cell
    claimed:  [N] True where the stone belongs to a claimed ribbon (limited, R5; or R8's end claim)
    unplayable: [N] True on empty cells where nobody can ever place again (R3; all once over)
    chains:   the claimed ribbons with two or more stones, each as cell indices in chain order
    placed:   [N] the colour that placed each stone (None on empty cells): it differs from
              ``stones`` where a claim took the stone over (R5), which pictures mark
    move:     [N] the move number (1-based) that placed each stone, None on empty cells
    status:   the lines under the board: whose turn or which set-up step (R7), the button; at
              the end the result, who has the button and how, and how the scores come about
    centres:  [N] (x, y) of each cell's centre in cell radii, y down (``hex_centre``)
    """

    config: GameConfig
    spec: BoardSpec
    stones: tuple[str | None, ...]  # [N]
    claimed: tuple[bool, ...]  # [N]
    unplayable: tuple[bool, ...]  # [N]
    chains: tuple[tuple[int, ...], ...]
    placed: tuple[str | None, ...]  # [N]
    move: tuple[int | None, ...]  # [N]
    last_move: str | None  # notation of the last move ("D5", "button"), None before any move
    moves_played: int
    to_move: str
    second_stone: bool  # double (R8): the player to move places the second stone of a turn
    button_holder: str | None
    is_over: bool
    winner: str | None  # only meaningful when is_over (None = draw)
    scores: dict[str, float]  # {"black": ..., "white": ...} (R6, brief's definition)
    status: tuple[str, ...]
    centres: tuple[tuple[float, float], ...]  # [N]

    @classmethod
    def of(cls, game: Game, match: Optional[Match] = None) -> "BoardView":
        spec = game.spec
        stones = tuple(game.stone_at(name) for name in spec.names)
        claimed = [False] * spec.num_cells
        chains = []
        for ribbon in game.ribbons():
            # R5 claims every ribbon that becomes limited; R8 claims the rest at the end of a
            # double game. Claimed ribbons are monochrome and final.
            if not (ribbon.claimed or ribbon.limited):
                continue
            cells = tuple(ribbon.indices)
            for i in cells:
                claimed[i] = True
            if len(cells) > 1:
                chains.append(cells)  # Ribbon.indices are in chain order
        history = list(game.history)
        unplayable = [False] * spec.num_cells
        for i in game.unplayable_cells():
            unplayable[i] = True
        placed: list[str | None] = [None] * spec.num_cells
        move: list[int | None] = [None] * spec.num_cells
        replay = Game(game.config)  # who placed each stone: the mover of its move (R8: two a turn)
        for k, played in enumerate(history, start=1):
            if played != BUTTON:
                index = spec.cell(played)
                placed[index], move[index] = replay.to_move, k
            replay.play(played)
        return cls(
            config=game.config,
            spec=spec,
            stones=stones,
            claimed=tuple(claimed),
            unplayable=tuple(unplayable),
            chains=tuple(chains),
            placed=tuple(placed),
            move=tuple(move),
            last_move=history[-1] if history else None,
            moves_played=len(history),
            to_move=game.to_move,
            second_stone=game.pending_second,
            button_holder=game.button_holder,
            is_over=game.is_over,
            winner=game.winner if game.is_over else None,
            scores=dict(game.scores()),
            status=tuple(status_lines(game, match)),
            centres=tuple(hex_centre(c, r) for c, r in spec.coords.tolist()),
        )


def _seat(match: Optional[Match], colour: str) -> str:
    """" (first player)" when a match has given ``colour`` to a seat, else ""."""
    if match is None:
        return ""
    seat = match.player_of(colour)
    return f" ({seat} player)" if seat else ""


def status_lines(game: Game, match: Optional[Match] = None) -> list[str]:
    """The lines under a board. With the ``match`` the game belongs to (R7), they name the
    set-up step still to come and the seats; at the end they give the result once, who has
    the button and how, and how the scores come about."""
    scores = f"black {_num(game.scores()['black'])}, white {_num(game.scores()['white'])}"
    if match is not None and match.phase in (Phase.KOMI, Phase.COLOUR):
        config = match.config
        if match.phase is Phase.KOMI:
            lo, hi = komi_range(config.scoring)
            return [f"set-up (R7): the first player chooses the komi, {lo}..{hi}; then the second a colour"]
        komi = match.game.config.komi
        if config.game_type_rule.has_swap:
            return ["set-up (R7): the second player keeps White ('white') or takes Black ('swap')"]
        return [f"set-up (R7): komi {komi} chosen; the second player chooses black or white"]
    button = button_note(game)
    if game.is_over:
        winner = game.winner
        if winner is None:
            outcome = "a draw"
        else:
            decided = " on the button" if game.scores()["black"] == game.scores()["white"] else ""
            outcome = f"{winner}{_seat(match, winner)} wins{decided}"
        first = f"game over: {outcome} ({scores})"
        if button is not None:
            first += f"; {button}"
        return [first, *score_lines(game)]
    turn = f"{game.to_move}{_seat(match, game.to_move)} to move"
    if game.pending_second:
        turn += " (second stone of the turn)"
    parts = [turn]
    if game.config.game_type_rule.has_button:
        parts.append(f"button: {game.button_holder or 'not taken'}")
    parts.append(f"score {scores}")
    return ["; ".join(parts)]


# ----------------------------------------------------------------------------------- ASCII


def _ring(spec: BoardSpec) -> tuple[dict[tuple[int, int], str], dict[tuple[int, int], str]]:
    """Label positions on the ring just outside the board, as (column, row) off-board cells:
    column letters at both ends of each column, row numbers left of rows 1..n and right of
    rows n..2n-1 (module docstring). Returns (letters, numbers)."""
    n, g = spec.side, spec.grid_size
    letters, numbers = {}, {}
    for c in range(g):
        first, last = max(0, c - (n - 1)), min(g - 1, c + n - 1)
        letters[(c, first - 1)] = COLUMN_LETTERS[c]  # one step down-right of its first cell
        letters[(c, last + 1)] = COLUMN_LETTERS[c]  # one step up-left of its last cell
    for r in range(g):
        if r <= n - 1:
            numbers[(-1, r)] = str(r + 1)  # left of A(r+1), the row's first cell
        if r >= n - 1:
            numbers[(g, r)] = str(r + 1)  # right of the row's last cell, in the last column
    assert not set(letters) & set(numbers)
    return letters, numbers


def render_ascii(game: Game, *, legend: bool = True, match: Optional[Match] = None,
                 layout: str = "columns", key: bool = True) -> str:
    """The position as text: stones X/O (x/o once claimed), ``.`` an empty cell, ``-`` an empty
    cell nobody can ever play (R3), the last move in parentheses, column letters and row
    numbers around the board (module docstring).

    ``layout`` "columns" (default) draws columns vertically, each letter above and below its
    column; "hex" draws R1's hexagon with columns running diagonally. ``legend`` adds the key
    and the status lines (``status_lines``; with ``match`` they name the set-up step and the
    seats); ``key`` False leaves out the key's lines that never change (what the characters mean,
    how cells are named and touch), for a terminal that has shown them once."""
    if layout not in LAYOUTS:
        raise ValueError(f"layout must be one of {', '.join(LAYOUTS)}; got {layout!r}")
    view = BoardView.of(game, match)
    spec = view.spec
    chars = []
    for i in range(spec.num_cells):
        colour = view.stones[i]
        if colour is None:
            chars.append(DEAD_CHAR if view.unplayable[i] else EMPTY_CHAR)
        else:
            chars.append(STONE_CHARS[colour].lower() if view.claimed[i] else STONE_CHARS[colour])
    draw = _columns_board if layout == "columns" else _hex_board
    out = draw(spec, chars, view.last_move)
    if legend:
        last = view.last_move or "none"
        marked = " (in parentheses)" if view.last_move not in (None, BUTTON) else ""
        if not key:
            out.append(f"last move: {last}{marked}")
        elif layout == "columns":
            out.append("X black, O white, x o claimed (R5); . empty, - empty but never playable (R3)")
            out.append(f"last move: {last}{marked}; names: letter above/below, number left/right")
            out.append("a cell touches six: left, right, up, down, up-right and down-left (R1)")
        else:
            out.append("X black, O white, x o claimed (R5); . empty, - empty but never playable (R3)")
            out.append(f"last move: {last}{marked}; columns run diagonally (\\) to their letters")
        out.extend(view.status)
    return "\n".join(out) + "\n"


def _mark_last(lines: list[list[str]], y: int, x: int) -> None:
    lines[y][x - 1], lines[y][x + 1] = "(", ")"


def _columns_board(spec: BoardSpec, chars: list[str], last_move: Optional[str]) -> list[str]:
    """The sheared board: column c at character 2c + wide + 2 on every line, row r on line
    g - r (row 1 at the bottom), letters on the first and last lines, numbers at both ends
    (two characters from the nearest cell, so a last-move parenthesis never touches one)."""
    g = spec.grid_size
    wide = len(str(g))  # row numbers have up to 2 digits

    def x_of(c: int) -> int:
        return wide + 2 + 2 * c

    right = x_of(g - 1) + 3  # where the numbers on the right start
    lines = [[" "] * (right + wide) for _ in range(g + 2)]
    for c in range(g):
        lines[0][x_of(c)] = lines[g + 1][x_of(c)] = COLUMN_LETTERS[c]
    for r in range(g):
        number = str(r + 1)
        lines[g - r][wide - len(number):wide] = list(number)  # right-aligned on the left
        lines[g - r][right:right + len(number)] = list(number)
    for i, (c, r) in enumerate(spec.coords.tolist()):
        lines[g - r][x_of(c)] = chars[i]
    if last_move not in (None, BUTTON):
        c, r = spec.coords[spec.cell(last_move)].tolist()
        _mark_last(lines, g - r, x_of(c))
    return ["".join(line).rstrip() for line in lines]


def _hex_board(spec: BoardSpec, chars: list[str], last_move: Optional[str]) -> list[str]:
    """R1's hexagon: rows across, columns diagonal, labels on the ring around it (``_ring``)."""
    n, g = spec.side, spec.grid_size
    letters, numbers = _ring(spec)
    wide = len(str(g))  # row numbers have up to 2 digits

    # Character column of ring or board cell (c, r): two characters per cell, half a cell per row.
    def x_of(c: int, r: int) -> int:
        return 2 * c - r + n + wide

    def y_of(r: int) -> int:
        return g - r  # line 0 holds the letters above the top row, line g + 1 those below row 1

    width = x_of(g, n - 1) + wide + 1
    lines = [[" "] * width for _ in range(g + 2)]
    for i, (c, r) in enumerate(spec.coords.tolist()):
        lines[y_of(r)][x_of(c, r)] = chars[i]
    for (c, r), letter in letters.items():
        lines[y_of(r)][x_of(c, r)] = letter
    for (c, r), number in numbers.items():
        x = x_of(c, r)
        start = x - len(number) + 1 if c < 0 else x  # left labels end at the ring cell, right ones start there
        lines[y_of(r)][start:start + len(number)] = list(number)
    if last_move not in (None, BUTTON):
        c, r = spec.coords[spec.cell(last_move)].tolist()
        _mark_last(lines, y_of(r), x_of(c, r))
    return ["".join(line).rstrip() for line in lines]


# ------------------------------------------------------------------------------------- SVG

BOARD_FILL, BOARD_EDGE = "#e3c58c", "#8a6a3a"
STONE_FILL = {"black": "#1b1b1b", "white": "#f7f7f2"}
STONE_EDGE = {"black": "#000000", "white": "#555555"}
# A claimed chain is marked in the colour that contrasts with its stones.
CHAIN_STROKE = {"black": "#c8c8c8", "white": "#4a4a4a"}
LAST_MOVE_STROKE = "#e0301e"
UNPLAYABLE_STROKE = "#a98a55"  # the hatching of a cell nobody can place on again (R3)
COLUMN_GUIDE_STROKE = "#b89a62"  # the short diagonal tick from a letter towards its column


def render_svg(
    game: Game,
    *,
    cell_radius: float = 20.0,
    coordinates: bool = True,
    caption: bool = True,
    match: Optional[Match] = None,
) -> str:
    """A standalone SVG document of the position (pointy-top hexagons, same layout as ASCII).

    Elements carry classes for styling and tests: ``cell`` polygons (``data-cell="D5"``),
    ``stone black|white`` circles (``claimed`` added in a limited ribbon), ``chain`` lines
    through each claimed ribbon of two or more stones, ``claim`` dots on claimed stones,
    ``unplayable`` hatching on empty cells nobody can place on again (R3), ``converted`` dots (the
    colour that placed a stone a claim took over, R5), ``last-move`` ring, ``coord`` labels (``column`` letters at both ends of each column with a
    short ``guide`` tick pointing along it, ``row`` numbers) and ``caption`` lines (the status
    lines, the last move).
    """
    if cell_radius <= 0:
        raise ValueError(f"cell_radius must be > 0, got {cell_radius}")
    view = BoardView.of(game, match)
    letters, numbers = _ring(view.spec)
    frame = _SvgFrame.of(view, float(cell_radius), (letters, numbers) if coordinates else None, caption)
    parts = [
        *_svg_header(view, frame),
        *_svg_cells(view, frame),
        *(_svg_coordinates(view.spec, letters, numbers, frame) if coordinates else []),
        *_svg_unplayable(view, frame),
        *_svg_stones(view, frame),
        *_svg_chains(view, frame),  # over the stones, under the marks
        *_svg_claim_dots(view, frame),
        *_svg_converted(view, frame),
        *_svg_last_move(view, frame),
        *_svg_captions(frame),
        "</svg>",
    ]
    return "\n".join(parts) + "\n"


@dataclass(frozen=True)
class _SvgFrame:
    """Where an SVG picture puts things: its size, the cell radius, each cell's centre on the
    canvas and the caption's lines (wrapped to the picture's width) below the board."""

    radius: float  # R, centre to corner of a cell
    left: float  # the canvas origin in hex_centre's coordinates (radius R)
    top: float
    width: float
    height: float
    font: float  # the caption's font size
    captions: tuple[str, ...]
    caption_height: float
    centres: tuple[tuple[float, float], ...]  # [N] each cell's centre on the canvas

    @classmethod
    def of(cls, view: BoardView, radius: float,
           ring: Optional[tuple[dict[tuple[int, int], str], dict[tuple[int, int], str]]], caption: bool) -> "_SvgFrame":
        """The frame of ``view`` drawn with cells of ``radius``, with room for the edge labels
        ``ring`` (``_ring``'s letters and numbers; None: no labels) and the caption if ``caption``."""
        R = radius
        coords = view.spec.coords.tolist()
        points = [hex_centre(c, r, R) for c, r in coords]
        if ring is not None:
            letters, numbers = ring
            points += [hex_centre(c, r, R) for c, r in (*letters, *numbers)]
        xs, ys = zip(*points)
        margin = 1.2 * R
        font = 0.55 * R
        board_width = max(xs) - min(xs) + 2 * margin
        # The caption wraps to the board's width (~0.6 em a character), at least 40 characters a line,
        # so a small board is not lost in a picture as wide as its longest line of text.
        chars = max(40, int((board_width - 2 * R) / (0.6 * font)))
        captions = tuple(piece for line in (_caption_lines(view) if caption else [])
                         for piece in (textwrap.wrap(line, chars) or [""]))
        text_width = max((0.6 * font * len(line) for line in captions), default=0.0) + 2 * R
        width = max(board_width, text_width)
        left, top = min(xs) - margin - (width - board_width) / 2.0, min(ys) - margin
        caption_height = 1.3 * font * len(captions) + (0.5 * R if captions else 0.0)
        height = max(ys) - min(ys) + 2 * margin + caption_height
        centres = tuple((x - left, y - top) for x, y in (hex_centre(c, r, R) for c, r in coords))
        return cls(R, left, top, width, height, font, captions, caption_height, centres)

    def at(self, c: float, r: float) -> tuple[float, float]:
        """The canvas point of (column, row), 0-based, on or off the board."""
        x, y = hex_centre(c, r, self.radius)
        return x - self.left, y - self.top


def _svg_header(view: BoardView, frame: _SvgFrame) -> list[str]:
    """The document's opening tag, its title and its white background."""
    width, height = frame.width, frame.height
    return [
        f'<svg xmlns="http://www.w3.org/2000/svg" version="1.1" width="{width:.1f}" height="{height:.1f}" '
        f'viewBox="0 0 {width:.1f} {height:.1f}" font-family="sans-serif">',
        f"<title>Catena, side {view.spec.side}, {escape(view.config.game_type)}, "
        f"{escape(view.config.scoring)} scoring</title>",
        f'<rect class="background" x="0" y="0" width="{width:.1f}" height="{height:.1f}" fill="#ffffff"/>',
    ]


def _svg_cells(view: BoardView, frame: _SvgFrame) -> list[str]:
    """One hexagon per cell."""
    R = frame.radius
    hexagon = [(R * math.cos(math.radians(a)), R * math.sin(math.radians(a))) for a in range(-90, 270, 60)]
    parts = []
    for name, (x, y) in zip(view.spec.names, frame.centres):
        pts = " ".join(f"{x + dx:.1f},{y + dy:.1f}" for dx, dy in hexagon)
        parts.append(
            f'<polygon class="cell" data-cell="{name}" points="{pts}" '
            f'fill="{BOARD_FILL}" stroke="{BOARD_EDGE}" stroke-width="{0.06 * R:.2f}"/>'
        )
    return parts


def _svg_coordinates(spec: BoardSpec, letters: dict[tuple[int, int], str], numbers: dict[tuple[int, int], str],
                     frame: _SvgFrame) -> list[str]:
    """The column letters, each with a tick along its column, and the row numbers."""
    R, size, cells = frame.radius, 0.6 * frame.radius, spec_cells(spec)
    parts = []
    for (c, r), letter in letters.items():
        # A short tick from the letter towards the column's end cell (one step along the
        # column, r - 1 or r + 1) shows which way the column runs.
        (x0, y0), (x1, y1) = frame.at(c, r), frame.at(c, r - 1 if (c, r - 1) in cells else r + 1)
        a, b = 0.24, 0.46  # fractions of the way: clear of the letter and of the cell's edge
        parts.append(
            f'<line class="guide" x1="{x0 + (x1 - x0) * a:.1f}" y1="{y0 + (y1 - y0) * a:.1f}" '
            f'x2="{x0 + (x1 - x0) * b:.1f}" y2="{y0 + (y1 - y0) * b:.1f}" stroke="{COLUMN_GUIDE_STROKE}" '
            f'stroke-width="{0.08 * R:.2f}" stroke-linecap="round"/>'
        )
        parts.append(_text(x0, y0, letter, size, "coord column"))
    for (c, r), number in numbers.items():
        x, y = frame.at(c, r)
        parts.append(_text(x, y, number, size, "coord row"))
    return parts


def _svg_unplayable(view: BoardView, frame: _SvgFrame) -> list[str]:
    """Hatching on each empty cell nobody can ever place on again (R3), as the page draws it."""
    R, parts = frame.radius, []
    for i, dead in enumerate(view.unplayable):
        if dead:
            x, y = frame.centres[i]
            d = 0.45 * R
            parts.append(
                f'<path class="unplayable" data-cell="{view.spec.names[i]}" d="M{x - d:.1f},{y + d / 2:.1f} '
                f'L{x - d / 2:.1f},{y + d:.1f} M{x - d:.1f},{y - d / 2:.1f} L{x + d / 2:.1f},{y + d:.1f} '
                f'M{x - d / 2:.1f},{y - d:.1f} L{x + d:.1f},{y + d / 2:.1f} M{x + d / 2:.1f},{y - d:.1f} '
                f'L{x + d:.1f},{y - d / 2:.1f}" stroke="{UNPLAYABLE_STROKE}" stroke-width="{0.07 * R:.2f}" '
                f'stroke-linecap="round" fill="none"/>'
            )
    return parts


def _svg_stones(view: BoardView, frame: _SvgFrame) -> list[str]:
    """A circle per stone, classed ``claimed`` in a claimed ribbon."""
    R, parts = frame.radius, []
    for i, colour in enumerate(view.stones):
        if colour is None:
            continue
        x, y = frame.centres[i]
        claimed = " claimed" if view.claimed[i] else ""
        parts.append(
            f'<circle class="stone {colour}{claimed}" data-cell="{view.spec.names[i]}" cx="{x:.1f}" cy="{y:.1f}" '
            f'r="{0.72 * R:.1f}" fill="{STONE_FILL[colour]}" stroke="{STONE_EDGE[colour]}" stroke-width="{0.06 * R:.2f}"/>'
        )
    return parts


def _svg_chains(view: BoardView, frame: _SvgFrame) -> list[str]:
    """A line through each claimed ribbon of two or more stones. Claimed ribbons are monochrome
    after R5, so one contrasting stroke per chain suffices."""
    parts = []
    for chain in view.chains:
        owner = view.stones[chain[0]]
        pts = " ".join("{:.1f},{:.1f}".format(*frame.centres[i]) for i in chain)
        parts.append(
            f'<polyline class="chain {owner}" points="{pts}" fill="none" stroke="{CHAIN_STROKE[owner]}" '
            f'stroke-width="{0.16 * frame.radius:.2f}" stroke-linecap="round" stroke-linejoin="round"/>'
        )
    return parts


def _svg_claim_dots(view: BoardView, frame: _SvgFrame) -> list[str]:
    """A dot on each claimed stone (a single stone has no chain line to show its claim)."""
    parts = []
    for i, colour in enumerate(view.stones):
        if colour is not None and view.claimed[i]:
            x, y = frame.centres[i]
            parts.append(
                f'<circle class="claim" data-cell="{view.spec.names[i]}" cx="{x:.1f}" cy="{y:.1f}" '
                f'r="{0.16 * frame.radius:.1f}" fill="{CHAIN_STROKE[colour]}"/>'
            )
    return parts


def _svg_converted(view: BoardView, frame: _SvgFrame) -> list[str]:
    """On each stone a claim took over (R5), a dot of the colour that placed it, as on the page."""
    R, parts = frame.radius, []
    for i, colour in enumerate(view.stones):
        placer = view.placed[i]
        if colour is not None and placer is not None and placer != colour:
            x, y = frame.centres[i]
            parts.append(
                f'<circle class="converted {placer}" data-cell="{view.spec.names[i]}" cx="{x + 0.38 * R:.1f}" '
                f'cy="{y - 0.38 * R:.1f}" r="{0.14 * R:.1f}" fill="{STONE_FILL[placer]}" '
                f'stroke="{STONE_EDGE[placer]}" stroke-width="{0.04 * R:.2f}"/>'
            )
    return parts


def _svg_last_move(view: BoardView, frame: _SvgFrame) -> list[str]:
    """A ring round the last stone placed (none before any move, nor after taking the button)."""
    if view.last_move is None or view.last_move == BUTTON:
        return []
    x, y = frame.centres[view.spec.cell(view.last_move)]
    R = frame.radius
    return [
        f'<circle class="last-move" data-cell="{view.last_move}" cx="{x:.1f}" cy="{y:.1f}" r="{0.82 * R:.1f}" '
        f'fill="none" stroke="{LAST_MOVE_STROKE}" stroke-width="{0.14 * R:.2f}"/>'
    ]


def _svg_captions(frame: _SvgFrame) -> list[str]:
    """The caption's lines under the board, centred."""
    top = frame.height - frame.caption_height
    return [_text(frame.width / 2.0, top + 1.3 * frame.font * (k + 0.5), line, frame.font, "caption")
            for k, line in enumerate(frame.captions)]


def spec_cells(spec: BoardSpec) -> set[tuple[int, int]]:
    """The (column, row) pairs of the board's cells."""
    return {(int(c), int(r)) for c, r in spec.coords}


def _caption_lines(view: BoardView) -> list[str]:
    lines = list(view.status)
    if view.last_move is not None:
        lines.append(f"last move: {view.last_move} ({view.moves_played} moves played)")
    return lines


def _text(x: float, y: float, text: str, size: float, cls: str) -> str:
    return (
        f'<text class="{cls}" x="{x:.1f}" y="{y:.1f}" font-size="{size:.1f}" text-anchor="middle" '
        f'dominant-baseline="central" fill="#333333">{escape(text)}</text>'
    )
