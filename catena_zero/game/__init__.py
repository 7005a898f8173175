"""Catena rules (RULES.md): options, board geometry, the reference engine, the match protocol."""

from .match import Match
from .options import GameConfig, RuleSet
from .rules import BLACK, EMPTY, WHITE, Game, GameNotOver, IllegalMove, Ribbon
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
