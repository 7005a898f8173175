"""Game options (RULES.md R9): board side, game type, scoring and komi; ``RuleSet``, the options komi aside."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from ..errors import UserError
from .gametypes import GAME_TYPE_RULES, KOMI, GameType, game_type_rule
from .scoring import SCORING_RULES, STANDARD, ScoringRule, scoring_rule
from .spec import MAX_SIDE, MIN_SIDE

GAME_TYPES = tuple(rule.name for rule in GAME_TYPE_RULES)  # komi, no_komi, double (R7, R8)
SCORINGS = tuple(rule.name for rule in SCORING_RULES)  # standard, longest, quadratic (R6)


def komi_range(scoring: str) -> tuple[int, int]:
    """Inclusive komi range for a scoring type (R6: 0-15, or 0-1000 for quadratic)."""
    return scoring_rule(scoring).komi_range


def komi_problem(game_type: str, scoring: str, komi: int, given: str) -> Optional[str]:
    """Why ``komi`` is not a komi of the rule set, in one line (``given`` names where it came from,
    "--komi 3" or "komi=3"), or None if it is. The one check behind ``check_komi`` and ``GameConfig``."""
    if not game_type_rule(game_type).has_komi and komi != 0:
        return f"game type {game_type!r} has no komi (R7/R8); got {given}"
    lo, hi = komi_range(scoring)
    if not lo <= komi <= hi:
        return f"komi must be in {lo}..{hi} for scoring {scoring!r}, got {komi}"
    return None


def check_komi(game: GameConfig, komi: int) -> int:
    """``komi`` if it is a komi of ``game``'s rule set, else UserError in one line naming the
    ``--komi`` a command was given (evaluate, book)."""
    problem = komi_problem(game.game_type, game.scoring, komi, f"--komi {komi}")
    if problem:
        raise UserError(problem)
    return komi


class _WithRecords:
    """The records of a game type (R7, R8) and a scoring (R6), for ``GameConfig`` and ``RuleSet``."""

    game_type: str
    scoring: str

    @property
    def game_type_rule(self) -> GameType:
        return game_type_rule(self.game_type)

    @property
    def scoring_rule(self) -> ScoringRule:
        return scoring_rule(self.scoring)


@dataclass(frozen=True)
class GameConfig(_WithRecords):
    """The options of one game (R9). Invalid combinations raise ``UserError`` (a ``ValueError``).

    side:      cells per board edge, 2..10 (R1); 6 is the standard board.
    game_type: komi (default), no_komi or double (R7, R8; ``game_type_rule`` says what each means).
    scoring:   standard (default), longest or quadratic (R6; ``scoring_rule`` says what each means).
    komi:      whole number added for White (R6); 0 is required for no_komi and double.
    """

    side: int = 6
    game_type: str = KOMI.name
    scoring: str = STANDARD.name
    komi: int = 0

    def __post_init__(self) -> None:
        if isinstance(self.side, bool) or not isinstance(self.side, int):
            raise UserError(f"side must be an integer, got {self.side!r}")
        if not MIN_SIDE <= self.side <= MAX_SIDE:
            raise UserError(f"side must be in {MIN_SIDE}..{MAX_SIDE}, got {self.side}")
        game_type_rule(self.game_type)  # UserError if there is no such game type
        scoring_rule(self.scoring)  # UserError if there is no such scoring
        if isinstance(self.komi, bool) or not isinstance(self.komi, int):
            raise UserError(f"komi must be a whole number, got {self.komi!r}")
        problem = komi_problem(self.game_type, self.scoring, self.komi, f"komi={self.komi}")
        if problem:
            raise UserError(problem)


@dataclass(frozen=True)
class RuleSet(_WithRecords):
    """The options that fix how a game is played, komi aside: what a network is trained for, what
    a replay buffer and self-play keep apart, what a ``VecEnv`` is built for (komi varies per game
    and is a network input). Invalid combinations raise ``UserError``, as in ``GameConfig``."""

    side: int
    game_type: str
    scoring: str

    def __post_init__(self) -> None:
        GameConfig(side=self.side, game_type=self.game_type, scoring=self.scoring)  # UserError if invalid

    @classmethod
    def of(cls, config: GameConfig) -> RuleSet:
        return cls(config.side, config.game_type, config.scoring)

    @property
    def key(self) -> str:
        """The rule set as a short name for logs, TensorBoard tags and dict keys, e.g.
        ``side6-komi-standard`` (stored in checkpoints and replay files: keep the text)."""
        return f"side{self.side}-{self.game_type}-{self.scoring}"

    def game(self, komi: int = 0) -> GameConfig:
        """A ``GameConfig`` of this rule set at ``komi``."""
        return GameConfig(side=self.side, game_type=self.game_type, scoring=self.scoring, komi=komi)

    def covers(self, config: GameConfig) -> bool:
        """Whether a game under ``config`` (any komi) is one this rule set describes."""
        return (config.side, config.game_type, config.scoring) == (self.side, self.game_type, self.scoring)

    @classmethod
    def from_key(cls, key: str) -> RuleSet:
        """The rule set of a ``key`` such as ``side6-komi-standard`` (as checkpoints store it)."""
        side, game_type, scoring = (key.split("-", 2) + ["", ""])[:3]
        if not side.startswith("side") or not side[4:].isdigit():
            raise ValueError(f"not a rule-set key: {key!r} (e.g. side6-komi-standard)")
        return cls(int(side[4:]), game_type, scoring)

    def __str__(self) -> str:
        return f"side {self.side} {self.game_type} {self.scoring}"
