"""Game types (RULES.md R7, R8): the record of each, beside the scoring records (``scoring.py``).

``GameType`` is the one place a game type is described: its name, whether the first player
chooses a komi, whether the second may swap after Black's opening stone, whether a turn is two
stones, whether there is a button, its line of the rules in brief. Every consumer (the options,
both engines, the match's set-up, the features, self-play, the solvers, the bots, the pages)
asks ``game_type_rule(name)`` (or ``GameConfig.game_type_rule``) instead of comparing names.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import UserError


@dataclass(frozen=True)
class GameType:
    """One game type of R7/R8 and what the rest of the house asks of it.

    Before play the colours are settled one of three ways: the first player chooses the komi
    and the second a colour (komi); the first player places Black's opening stone and the second
    keeps White or swaps to take Black and that stone (no_komi); or nothing is chosen, the
    first player is Black (double, which also plays two stones a turn and has no button).
    """

    name: str  # as in GameConfig.game_type, record headers, book files and rule-set keys (stored text: keep it)
    index: int  # position in GAME_TYPE_RULES, the network's one-hot input of the game type (trained weights: never reorder)
    has_komi: bool  # R7: the first player chooses the komi, the second a colour; otherwise the komi is 0
    has_swap: bool  # R7: the first player places Black's opening stone, the second keeps White or swaps
    two_stones_a_turn: bool  # R8: one stone for Black's first turn, then two stones per turn
    has_button: bool  # R4: a player may take the button once; R8: not in double
    summary: str  # its R7/R8 line of the rules in brief (terminal/texts.py), without the name

    @property
    def fixed_colours(self) -> bool:
        """Whether the colours are fixed before play: the first player is Black, no set-up choice (R8)."""
        return not (self.has_komi or self.has_swap)

    @property
    def button_at_start(self) -> bool:
        """Whether the button may be taken on the empty board (R4); under no_komi only after
        Black's opening stone, which the swap is about (R7)."""
        return self.has_button and not self.has_swap


KOMI = GameType("komi", 0, has_komi=True, has_swap=False, two_stones_a_turn=False, has_button=True,
                summary="the first player sets the komi, the second picks a colour.")
NO_KOMI = GameType("no_komi", 1, has_komi=False, has_swap=True, two_stones_a_turn=False, has_button=True,
                   summary="the first player places Black's first stone, the second keeps White or "
                           "swaps ('swap') to take Black and that stone.")
DOUBLE = GameType("double", 2, has_komi=False, has_swap=False, two_stones_a_turn=True, has_button=False,
                  summary="one stone for Black's first turn, then two stones per turn, no button and "
                          "no komi; equal results are a draw.")
GAME_TYPE_RULES = (KOMI, NO_KOMI, DOUBLE)  # in index order
_BY_NAME = {rule.name: rule for rule in GAME_TYPE_RULES}


def game_type_rule(name: str) -> GameType:
    """The record of the game type ``name``; ``UserError`` if there is none."""
    rule = _BY_NAME.get(name) if isinstance(name, str) else None
    if rule is None:
        raise UserError(f"game_type must be one of {', '.join(_BY_NAME)}; got {name!r}")
    return rule
