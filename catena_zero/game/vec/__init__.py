"""Vectorised Catena: B games stepped at once as one packed int16 array (RULES.md R1-R10).

``layout`` (the packed row), ``state`` (``EnvState``, its typed views), ``batched`` (the numpy
engine), ``row`` (the one-row engine for a handful of games), ``scores`` (R6), ``env``
(``VecEnv``, the interface).
"""

from ..colours import BLACK, EMPTY, WHITE
from .env import SMALL_BATCH, VecEnv, random_legal_actions
from .state import EnvState, RibbonInfo

__all__ = ["EMPTY", "BLACK", "WHITE", "EnvState", "RibbonInfo", "VecEnv", "random_legal_actions", "SMALL_BATCH"]
