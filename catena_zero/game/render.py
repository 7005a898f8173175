"""Pictures of a position: ASCII for terminals, SVG for files, web pages and TensorBoard.

Shape legend: ``N`` cells on the board (91 on side 6), in notation order (spec.py).

Both pictures use the same layout (RULES.md R1): rows are horizontal with row 1 at the
bottom, and each row is shifted half a cell left of the one below, so the three adjacency
directions of R1 are (+1, 0) right, (0, +1) up-left and (+1, +1) up-right; columns run
diagonally up-left from their letter. The board is a hexagon with flat top and bottom edges.

Stones in a limited (claimed, R5) ribbon are drawn distinctly from live stones: lower case in
ASCII, a line through the chain in SVG, because a claimed ribbon never changes again and the
reader should see at a glance what is still contested. The last move is marked in both.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from xml.sax.saxutils import escape

from .options import GameConfig
from .rules import Game
from .spec import COLUMN_LETTERS, BoardSpec

EMPTY_CHAR = "."
STONE_CHARS = {"black": "X", "white": "O"}  # live stones; claimed stones are lower case


@dataclass(frozen=True)
class BoardView:
    """Everything a picture shows, read once from a Game (so renderers never touch rules).

    stones:   [N] "black" / "white" / None per cell
    claimed:  [N] True where the stone belongs to a claimed ribbon (limited, R5; or R8's end claim)
    chains:   the claimed ribbons with two or more stones, each as cell indices in chain order
    """

    config: GameConfig
    spec: BoardSpec
    stones: tuple[str | None, ...]  # [N]
    claimed: tuple[bool, ...]  # [N]
    chains: tuple[tuple[int, ...], ...]
    last_move: str | None  # notation of the last move ("D5", "button"), None before any move
    moves_played: int
    to_move: str
    second_stone: bool  # double (R8): the player to move places the second stone of a turn
    button_holder: str | None
    is_over: bool
    winner: str | None  # only meaningful when is_over (None = draw)
    scores: dict[str, float]  # {"black": ..., "white": ...} (R6, brief's definition)

    @classmethod
    def of(cls, game: Game) -> "BoardView":
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
        return cls(
            config=game.config,
            spec=spec,
            stones=stones,
            claimed=tuple(claimed),
            chains=tuple(chains),
            last_move=history[-1] if history else None,
            moves_played=len(history),
            to_move=game.to_move,
            second_stone=game.pending_second,
            button_holder=game.button_holder,
            is_over=game.is_over,
            winner=game.winner if game.is_over else None,
            scores=dict(game.scores()),
        )


def status_line(view: BoardView) -> str:
    """One line: whose turn (or the result), the button, and the scores (R6)."""
    scores = f"black {_num(view.scores['black'])}, white {_num(view.scores['white'])}"
    if view.is_over:
        outcome = "draw" if view.winner is None else f"{view.winner} wins"
        return f"game over: {outcome} ({scores})"
    turn = f"{view.to_move} to move" + (" (second stone of the turn)" if view.second_stone else "")
    parts = [turn]
    if view.config.has_button:
        parts.append(f"button: {view.button_holder or 'not taken'}")
    parts.append(f"score {scores}")
    return "; ".join(parts)


def _num(x: float) -> str:
    return f"{x:g}"


# ----------------------------------------------------------------------------------- ASCII


def _ascii_x(side: int, c: int, r: int) -> int:
    """Character column of cell (c, r): two characters per cell, half a cell per row (+1 margin)."""
    return 2 * c - r + side


def render_ascii(game: Game, *, legend: bool = True) -> str:
    """The position as text: stones X/O (x/o once claimed), the last move in parentheses.

    Row numbers are written on the left of each row; column letters below the bottom row
    (A..) and along the lower-right edge (for the columns that start higher up).
    """
    view = BoardView.of(game)
    spec, n = view.spec, view.spec.side
    g = spec.grid_size
    width = 4 * n + 1  # the right-most column letter sits at _ascii_x(n, g - 1, n - 1) = 4n - 2
    lines = {r: [" "] * width for r in range(-1, g)}
    for i, (c, r) in enumerate(spec.coords.tolist()):
        colour = view.stones[i]
        char = EMPTY_CHAR if colour is None else STONE_CHARS[colour]
        lines[r][_ascii_x(n, c, r)] = char.lower() if view.claimed[i] else char
    for c in range(g):
        # A column's letter sits where its cell below the board would be.
        r = -1 if c < n else c - n
        lines[r][_ascii_x(n, c, r)] = COLUMN_LETTERS[c]
    if view.last_move not in (None, "button"):
        c, r = spec.coords[spec.cell(view.last_move)].tolist()
        x = _ascii_x(n, c, r)
        lines[r][x - 1], lines[r][x + 1] = "(", ")"
    label_width = len(str(g))
    out = []
    for r in range(g - 1, -2, -1):
        label = str(r + 1) if r >= 0 else ""
        out.append(f"{label:>{label_width}} " + "".join(lines[r]).rstrip())
    if legend:
        last = view.last_move or "none"
        marked = " (in parentheses)" if view.last_move not in (None, "button") else ""
        out.append(f"X black, O white, x o claimed (limited ribbon); last move: {last}{marked}")
        out.append(status_line(view))
    return "\n".join(out) + "\n"


# ------------------------------------------------------------------------------------- SVG

BOARD_FILL, BOARD_EDGE = "#e3c58c", "#8a6a3a"
STONE_FILL = {"black": "#1b1b1b", "white": "#f7f7f2"}
STONE_EDGE = {"black": "#000000", "white": "#555555"}
# A claimed chain is marked in the colour that contrasts with its stones.
CHAIN_STROKE = {"black": "#c8c8c8", "white": "#4a4a4a"}
LAST_MOVE_STROKE = "#e0301e"


def render_svg(
    game: Game,
    *,
    cell_radius: float = 20.0,
    coordinates: bool = True,
    caption: bool = True,
) -> str:
    """A standalone SVG document of the position (pointy-top hexagons, same layout as ASCII).

    Elements carry classes for styling and tests: ``cell`` polygons (``data-cell="D5"``),
    ``stone black|white`` circles (``claimed`` added in a limited ribbon), ``chain`` lines
    through each claimed ribbon of two or more stones, ``claim`` dots on claimed stones,
    ``last-move`` ring, ``coord`` labels and ``caption`` lines (status, last move).
    """
    if cell_radius <= 0:
        raise ValueError(f"cell_radius must be > 0, got {cell_radius}")
    view = BoardView.of(game)
    spec, n, R = view.spec, view.spec.side, float(cell_radius)
    g = spec.grid_size
    w = math.sqrt(3.0) * R  # distance between neighbouring cell centres

    def centre(c: float, r: float) -> tuple[float, float]:
        # Row r is shifted half a cell left per row and 1.5 R higher; y grows downwards in SVG.
        return w * (c - r / 2.0), -1.5 * R * r

    xs, ys = zip(*(centre(c, r) for c, r in spec.coords.tolist()))
    margin = (1.6 if coordinates else 0.2) * R + R
    font = 0.55 * R
    captions = _caption_lines(view) if caption else []
    # Widen the picture (board centred) when the caption would not fit: ~0.6 em per character.
    text_width = max((0.6 * font * len(line) for line in captions), default=0.0) + 2 * R
    board_width = max(xs) - min(xs) + 2 * margin
    width = max(board_width, text_width)
    left, top = min(xs) - margin - (width - board_width) / 2.0, min(ys) - margin
    caption_height = 1.3 * font * len(captions) + (0.5 * R if captions else 0.0)
    height = max(ys) - min(ys) + 2 * margin + caption_height

    def at(c: float, r: float) -> tuple[float, float]:
        x, y = centre(c, r)
        return x - left, y - top

    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" version="1.1" width="{width:.1f}" height="{height:.1f}" '
        f'viewBox="0 0 {width:.1f} {height:.1f}" font-family="sans-serif">',
        f"<title>Catena, side {n}, {escape(view.config.game_type)}, {escape(view.config.scoring)} scoring</title>",
        f'<rect class="background" x="0" y="0" width="{width:.1f}" height="{height:.1f}" fill="#ffffff"/>',
    ]
    hexagon = [(R * math.cos(math.radians(a)), R * math.sin(math.radians(a))) for a in range(-90, 270, 60)]
    for i, (c, r) in enumerate(spec.coords.tolist()):
        x, y = at(c, r)
        points = " ".join(f"{x + dx:.1f},{y + dy:.1f}" for dx, dy in hexagon)
        parts.append(
            f'<polygon class="cell" data-cell="{spec.names[i]}" points="{points}" '
            f'fill="{BOARD_FILL}" stroke="{BOARD_EDGE}" stroke-width="{0.06 * R:.2f}"/>'
        )
    if coordinates:
        size = 0.6 * R
        for r in range(g):
            c_first = max(0, r - (n - 1))
            x, y = at(c_first - 1, r)
            parts.append(_text(x, y, str(r + 1), size, "coord"))
        for c in range(g):
            x, y = at(c, -1 if c < n else c - n)
            parts.append(_text(x, y, COLUMN_LETTERS[c], size, "coord"))
    for i, colour in enumerate(view.stones):
        if colour is None:
            continue
        x, y = at(*spec.coords[i].tolist())
        claimed = " claimed" if view.claimed[i] else ""
        parts.append(
            f'<circle class="stone {colour}{claimed}" data-cell="{spec.names[i]}" cx="{x:.1f}" cy="{y:.1f}" '
            f'r="{0.72 * R:.1f}" fill="{STONE_FILL[colour]}" stroke="{STONE_EDGE[colour]}" stroke-width="{0.06 * R:.2f}"/>'
        )
    # Claimed ribbons are monochrome after R5, so one contrasting stroke per chain suffices.
    for chain in view.chains:
        owner = view.stones[chain[0]]
        points = " ".join("{:.1f},{:.1f}".format(*at(*spec.coords[i].tolist())) for i in chain)
        parts.append(
            f'<polyline class="chain {owner}" points="{points}" fill="none" stroke="{CHAIN_STROKE[owner]}" '
            f'stroke-width="{0.16 * R:.2f}" stroke-linecap="round" stroke-linejoin="round"/>'
        )
    for i, colour in enumerate(view.stones):
        if colour is not None and view.claimed[i]:
            x, y = at(*spec.coords[i].tolist())
            parts.append(
                f'<circle class="claim" data-cell="{spec.names[i]}" cx="{x:.1f}" cy="{y:.1f}" '
                f'r="{0.16 * R:.1f}" fill="{CHAIN_STROKE[colour]}"/>'
            )
    if view.last_move not in (None, "button"):
        x, y = at(*spec.coords[spec.cell(view.last_move)].tolist())
        parts.append(
            f'<circle class="last-move" data-cell="{view.last_move}" cx="{x:.1f}" cy="{y:.1f}" r="{0.82 * R:.1f}" '
            f'fill="none" stroke="{LAST_MOVE_STROKE}" stroke-width="{0.14 * R:.2f}"/>'
        )
    for k, line in enumerate(captions):
        y = height - caption_height + 1.3 * font * (k + 0.5)
        parts.append(_text(width / 2.0, y, line, font, "caption"))
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


def _caption_lines(view: BoardView) -> list[str]:
    lines = [status_line(view)]
    if view.last_move is not None:
        lines.append(f"last move: {view.last_move} ({view.moves_played} moves played)")
    return lines


def _text(x: float, y: float, text: str, size: float, cls: str) -> str:
    return (
        f'<text class="{cls}" x="{x:.1f}" y="{y:.1f}" font-size="{size:.1f}" text-anchor="middle" '
        f'dominant-baseline="central" fill="#333333">{escape(text)}</text>'
    )
