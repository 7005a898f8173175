"""The colours of stones and players: the project's colour codes and their names (RULES.md R2).

The codes are what the engines store per cell (``rules.py``, ``vec/``); the names are what the
public API, records and messages use.
"""

from __future__ import annotations

EMPTY, BLACK, WHITE = 0, 1, 2  # the project's colour codes (the reference and the batched engine)
COLOUR_NAMES = {BLACK: "black", WHITE: "white"}
COLOUR_CODES = {"black": BLACK, "white": WHITE}


def opponent(colour: int) -> int:
    return BLACK + WHITE - colour
