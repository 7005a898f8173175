"""How often a player's moves are optimal by exhaustive search (side 2 and 3, standard scoring).

Two meanings of optimal, both exact (``search/solver.py``):
- **outcome-optimal**: the move keeps the best result the mover can force at the match's komi
  (win, draw or loss; ``Solver``). In a won position every winning move counts, however small
  its margin; in a lost one every move is optimal.
- **margin-optimal**: the move keeps the best final score margin the mover can force
  (``MarginSolver``), the stricter test: every point counts, as R6's scores do.

``judge_moves`` replays the games of a match (``arena.play_match``) and judges every move after
the random opening, for the player who made it. The solvers' tables are kept between positions
and games, so the first position of a side-3 game costs the most (the margin solver visits
every position reachable from it) and the rest come almost free.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Sequence

from ..game.options import GameConfig
from ..game.rules import Game
from ..game.spec import board_spec
from ..search.solver import MarginSolver, Solver
from .arena import GameOutcome
from .ratings import score_interval


@dataclass(frozen=True)
class OptimalShare:
    """One player's judged moves."""

    moves: int
    outcome_optimal: int
    margin_optimal: int

    def share(self, kind: str) -> float:
        return self._count(kind) / self.moves if self.moves else float("nan")

    def interval(self, kind: str) -> tuple[float, float]:
        """Wilson 95% interval of the share (``ratings.score_interval``, no draws)."""
        hits = self._count(kind)
        return score_interval(hits, 0, self.moves - hits)

    def _count(self, kind: str) -> int:
        if kind not in ("outcome", "margin"):
            raise ValueError(f"optimality kind is 'outcome' or 'margin', not {kind!r}")
        return self.outcome_optimal if kind == "outcome" else self.margin_optimal

    def __add__(self, other: "OptimalShare") -> "OptimalShare":
        return OptimalShare(self.moves + other.moves, self.outcome_optimal + other.outcome_optimal,
                            self.margin_optimal + other.margin_optimal)


NONE = OptimalShare(0, 0, 0)


def judge_position(game: Game, move: str, solver: Solver, margins: MarginSolver) -> OptimalShare:
    """Whether ``move`` (R10 notation) is outcome- and margin-optimal for ``game``'s player to move."""
    solution = solver.solve(game)
    if move not in solution.move_values:
        raise ValueError(f"move {move!r} is not legal in this position")
    best_margin_moves, _ = margins.optimal_moves(game)
    return OptimalShare(moves=1, outcome_optimal=int(move in solution.best_moves),
                        margin_optimal=int(move in best_margin_moves))


def judge_moves(outcomes: Sequence[GameOutcome], game: GameConfig, solver: Optional[Solver] = None,
                margins: Optional[MarginSolver] = None) -> tuple[OptimalShare, OptimalShare]:
    """(A's, B's) judged moves over ``outcomes`` (games of ``game``, with the match's komi),
    every move after each game's opening."""
    if not game.scoring_rule.has_margin:
        raise ValueError("longest scoring has no score margin (R6): margin-optimal moves are undefined")
    solver = solver or Solver()
    margins = margins or MarginSolver()
    a_total, b_total = NONE, NONE
    for outcome in outcomes:
        names = board_spec(game.side).action_name
        position = Game.replay(game, [names(a) for a in outcome.opening])
        for move in (names(a) for a in outcome.actions[len(outcome.opening):]):
            judged = judge_position(position, move, solver, margins)
            if (position.to_move == "black") == outcome.a_black:
                a_total += judged
            else:
                b_total += judged
            position.play(move)
    return a_total, b_total
