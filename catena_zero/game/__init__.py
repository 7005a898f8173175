"""Catena rules (RULES.md): options, board geometry, the reference engine."""

from .options import GameConfig
from .spec import BoardSpec, board_spec

__all__ = ["GameConfig", "BoardSpec", "board_spec"]
