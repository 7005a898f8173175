"""Catena rules (RULES.md): options, board geometry, colours, the reference engine, scoring, the match protocol."""

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
