"""A position as a matplotlib figure (TensorBoard images, reports), in the layout of ``render.py``.

Rows are horizontal with row 1 at the bottom and each row shifted half a cell left of the one
below (R1's three adjacency directions are then right, up-left and up-right); claimed stones
(R5) are drawn with a dark rim, the last move with a red dot, cell names in every empty cell.
"""

from __future__ import annotations

import math

from .render import BoardView
from .rules import Game

_FILL = {"black": "#202020", "white": "#f4f4f4", None: "#d9b77a"}
_TEXT = {"black": "#f4f4f4", "white": "#202020", None: "#6b5330"}


def board_figure(game: Game, title: str = ""):
    """A matplotlib Figure of ``game``'s position (matplotlib is imported only here, Agg backend)."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.figure import Figure
    from matplotlib.patches import RegularPolygon

    view = BoardView.of(game)
    spec = view.spec
    figure = Figure(figsize=(4.8, 4.6), dpi=80)
    axes = figure.add_subplot(1, 1, 1)
    radius = 1 / math.sqrt(3)  # cells one unit apart
    last = view.last_move
    for index, name in enumerate(spec.names):
        x, y = view.centres[index]  # in cell radii, y down: scaled to this radius, y up
        x, y = x * radius, -y * radius
        stone = view.stones[index]
        claimed = view.claimed[index]
        axes.add_patch(RegularPolygon((x, y), 6, radius=radius * 0.97, orientation=0.0,
                                      facecolor=_FILL[stone], edgecolor="#7a4b1c" if claimed else "#a08050",
                                      linewidth=2.5 if claimed else 0.6))
        if stone is None:
            axes.text(x, y, name, ha="center", va="center", fontsize=6, color=_TEXT[None])
        if name == last:
            axes.plot([x], [y], "o", color="#d02020", markersize=4)
    axes.set_aspect("equal")
    axes.autoscale_view()
    axes.axis("off")
    caption = f"black {view.scores['black']:g} - white {view.scores['white']:g}"
    if view.is_over:
        caption += f", {view.winner or 'nobody'} wins" if view.winner else ", draw"
    axes.set_title(f"{title}\n{caption}" if title else caption, fontsize=8)
    return figure
