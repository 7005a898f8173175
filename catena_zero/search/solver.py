"""Exact solver for tiny boards: negamax with a transposition table over the reference engine.

Shape legend: B games (``SolverEvaluator``), A actions (N cells + button).

The test oracle for search: it returns the exact game value (+1 win, 0 draw, -1 loss for the
player to move, R6/R8) and every optimal move. Only outcomes matter (not the margin), so a node
stops at its first winning move ("win cut-off", alpha-beta with the window (-1, 1) and the
three values win/draw/loss); every stored value is exact, so the table needs no bounds.
Positions are keyed by ``Game.position_key()`` (board after claims, mover, pending second stone,
button), which determines everything else about the position (RULES.md R3: legality and
claims follow from the stones). The value of a child is negated only when the player to move
changes (a double turn's first stone keeps the mover, R8; the button passes the turn, R4).

Practical range: the whole game on side 2 (7 cells, a few hundred positions) in milliseconds;
side 3 (19 cells) from the empty board in about 20 s (260k positions), and positions a few
stones in within a second.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ..game.rules import Game
from ..evalfn import Evaluation

if TYPE_CHECKING:
    from ..game.options import GameConfig
    from ..game.vec import EnvState, VecEnv

WIN, DRAW, LOSS = 1, 0, -1


def _child_value(game: Game, move: str, value_of):
    """``value_of`` the position after ``move``, for ``game``'s mover: negated only when the
    player to move changes (not within a double turn, R8; after the end, the child's mover is
    who would move next, R10)."""
    child = game.copy()
    child.play(move)
    value = value_of(child)
    return value if child.to_move == game.to_move else -value


@dataclass(frozen=True)
class Solution:
    """The exact value of a position and all moves that achieve it."""

    value: int  # WIN / DRAW / LOSS for the player to move
    best_moves: tuple[str, ...]  # optimal moves in notation, in legal_moves() order; () when over
    move_values: dict[str, int]  # every legal move's exact value for the player to move


class Solver:
    """Memoised negamax over ``Game``; one table per solver (positions of any one GameConfig)."""

    def __init__(self, max_positions: int = 5_000_000) -> None:
        self.max_positions = max_positions
        self._table: dict[tuple, int] = {}

    @property
    def positions(self) -> int:
        """Positions solved so far (transposition table entries)."""
        return len(self._table)

    def value(self, game: Game) -> int:
        """Exact value of ``game`` for its player to move."""
        if game.is_over:
            return int(game.result_value(game.to_move))
        key = (game.config, game.position_key())
        known = self._table.get(key)
        if known is not None:
            return known
        best = LOSS
        for move in game.legal_moves():
            best = max(best, self._move_value(game, move))
            if best == WIN:
                break
        if len(self._table) >= self.max_positions:
            raise RuntimeError(
                f"solver table is full ({self.max_positions} positions): the position is too large to solve"
            )
        self._table[key] = best
        return best

    def solve(self, game: Game) -> Solution:
        """Exact value and every optimal move (each root move is solved exactly, no cut-off)."""
        if game.is_over:
            return Solution(int(game.result_value(game.to_move)), (), {})
        values = {m: self._move_value(game, m) for m in game.legal_moves()}
        best = max(values.values())
        return Solution(best, tuple(m for m, v in values.items() if v == best), values)

    def _move_value(self, game: Game, move: str) -> int:
        return _child_value(game, move, self.value)


class SolverEvaluator:
    """EvalFn with exact values (uniform priors, score 0): lets tests check search against the solver."""

    def __init__(self, env: "VecEnv", solver: Solver | None = None) -> None:
        self.env = env
        self.solver = solver if solver is not None else Solver()

    def __call__(self, state: "EnvState") -> Evaluation:
        legal = self.env.legal_actions(state)
        priors = legal / np.maximum(legal.sum(axis=1, keepdims=True), 1)
        value = [self.solver.value(self.env.to_game(state, i)) for i in range(state.batch_size)]
        return Evaluation(
            priors=priors.astype(np.float32),
            value=np.array(value, np.float32),
            score=np.zeros(state.batch_size, np.float32),
        )


def first_player_wins(config: "GameConfig", komi: int, solver: Solver | None = None) -> bool:
    """Whether Black, moving first on the empty board, wins at ``komi`` with perfect play."""
    from dataclasses import replace

    return (solver or Solver()).value(Game(replace(config, komi=komi))) == WIN


def exact_fair_komi(config: "GameConfig") -> tuple[int, int]:
    """(k, k + 1) for game type komi: Black wins with perfect play at komi k and loses at k + 1.

    Komi only shifts the final margin, so Black wins at komi k iff the optimal margin at komi 0,
    M, exceeds k: the wins are a prefix of the komi range, found by bisection (a few solves). With
    the button's half point (R6, standard scoring) M is a whole number and a half, so k and k + 1
    leave the same margin, 1/2, to one side or the other: both are fair, and no komi is fairer.
    Raises ValueError when Black wins (or loses) over the whole range.
    """
    from ..game.options import komi_range

    if not config.game_type_rule.has_komi:
        raise ValueError(f"the fair komi exists only under game type komi (R7), not {config.game_type!r}")
    lo, hi = komi_range(config.scoring)
    if not first_player_wins(config, lo):
        raise ValueError(f"Black loses at komi {lo} already: no fair komi in {lo}..{hi}")
    if first_player_wins(config, hi):
        raise ValueError(f"Black wins even at komi {hi}: no fair komi in {lo}..{hi}")
    win, loss = lo, hi  # Black wins at `win`, loses at `loss`
    while loss - win > 1:
        middle = (win + loss) // 2
        if first_player_wins(config, middle):
            win = middle
        else:
            loss = middle
    return win, loss


class MarginSolver:
    """Memoised negamax over the final score margin (R6), for the margin-optimal moves of a position.

    ``margin(game)`` is the best final margin (mover's score minus the opponent's, komi included) the
    player to move can force; a move is margin-optimal when it keeps that margin. Unlike ``Solver``
    nothing can be cut off (every move's margin is needed), so it visits every position reachable
    from the root: side 3 from the empty board is a few million; positions a few stones in are fast.
    Standard and quadratic scoring (margins are sums of points); longest scoring is not a margin.
    """

    def __init__(self, max_positions: int = 20_000_000) -> None:
        self.max_positions = max_positions
        self._table: dict[tuple, float] = {}

    @property
    def positions(self) -> int:
        return len(self._table)

    def margin(self, game: Game) -> float:
        """The best final margin the player to move can force in ``game``."""
        if not game.config.scoring_rule.has_margin:
            raise ValueError("longest scoring has no score margin to optimise (R6); use Solver")
        if game.is_over:
            return self._final_margin(game, game.to_move)
        key = (game.config, game.position_key())
        known = self._table.get(key)
        if known is not None:
            return known
        best = max(self.move_margin(game, move) for move in game.legal_moves())
        if len(self._table) >= self.max_positions:
            raise RuntimeError(f"margin solver table is full ({self.max_positions} positions)")
        self._table[key] = best
        return best

    def move_margin(self, game: Game, move: str) -> float:
        """The final margin for ``game``'s mover after ``move`` and best play by both."""
        return _child_value(game, move, self.margin)

    def optimal_moves(self, game: Game) -> tuple[list[str], float]:
        """(every margin-optimal move, in ``legal_moves`` order; the margin they keep)."""
        margins = {m: self.move_margin(game, m) for m in game.legal_moves()}
        best = max(margins.values())
        return [a for a, m in margins.items() if m == best], best

    @staticmethod
    def _final_margin(game: Game, mover: str) -> float:
        scores = game.scores()  # {"black": ..., "white": ...}, komi and the button included (R6)
        other = "white" if mover == "black" else "black"
        return float(scores[mover] - scores[other])
