"""The vectorised engine's public names, kept at their old address (``game/vec/`` holds the code)."""

from .vec import BLACK, EMPTY, WHITE, EnvState, RibbonInfo, VecEnv, random_legal_actions

__all__ = ["EMPTY", "BLACK", "WHITE", "EnvState", "RibbonInfo", "VecEnv", "random_legal_actions"]
