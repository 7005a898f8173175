"""Catena's rules (RULES.md R1-R10), read in one place.

- ``options``: ``GameConfig`` (the R9 options of one game) and ``RuleSet`` (the options komi aside);
- ``gametypes`` and ``scoring``: the records of R7/R8's game types and R6's scoring types, each
  with the behaviour the rest of the house asks of it (no module compares their names);
- ``spec``: a board's geometry and symmetries, built once per side; ``colours``: the colour codes;
- ``rules``: ``Game``, the readable reference engine; ``vec/``: ``VecEnv``, the one fast copy of
  it, many games as one packed array (a differential test keeps the two identical);
- ``match``: ``Match``, the R7 set-up around a game, its ``Phase``; ``notation``: ``Event``, R10's
  events as typed records, read from text at the edge;
- ``records``: the ``catena-record 1`` files; ``render``: the board as text and SVG, the status
  and score lines; ``figure``: the board as a matplotlib figure.
"""

from .colours import BLACK, EMPTY, WHITE
from .match import Match
from .options import GameConfig, RuleSet
from .rules import Game, GameNotOver, IllegalMove, Ribbon
from .spec import BoardSpec, board_spec

__all__ = [
    "GameConfig",
    "RuleSet",
    "BoardSpec",
    "board_spec",
    "Game",
    "GameNotOver",
    "IllegalMove",
    "Match",
    "Ribbon",
    "EMPTY",
    "BLACK",
    "WHITE",
]
