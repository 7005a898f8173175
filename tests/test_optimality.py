"""Optimal-move shares by exhaustive search (eval/optimality.py) on side 2, where the solvers are instant."""

import numpy as np
import pytest

from catena_zero.eval.arena import GameOutcome
from catena_zero.eval.optimality import OptimalShare, judge_moves, judge_position
from catena_zero.game.options import GameConfig
from catena_zero.game.rules import Game
from catena_zero.search.solver import MarginSolver, Solver
from positions import played_actions

SIDE2 = GameConfig(side=2, komi=0)


def _play(a_choice, b_choice, a_black, opening, rng):
    """A finished side-2 game after the ``opening`` moves: A's moves from ``a_choice``, B's from
    ``b_choice``, as the arena records it (action indices)."""
    game = Game.replay(SIDE2, list(opening))
    while not game.is_over:
        a_moves = (game.to_move == "black") == a_black
        game.play((a_choice if a_moves else b_choice)(game, rng))
    actions = tuple(played_actions(game))
    return GameOutcome(index=0, a_black=a_black, opening=actions[:len(opening)], actions=actions,
                       winner=0, black_score=0.0, white_score=0.0)


def test_a_margin_optimal_player_scores_every_move_and_random_does_not():
    margins = MarginSolver()
    best = lambda game, rng: margins.optimal_moves(game)[0][0]
    rand = lambda game, rng: str(rng.choice(game.legal_moves()))
    rng = np.random.default_rng(0)
    games = [_play(best, rand, a_black=i % 2 == 0, opening=(), rng=rng) for i in range(8)]
    a, b = judge_moves(games, SIDE2, margins=margins)
    plies = sum(len(g.actions) for g in games)
    assert a.moves + b.moves == plies  # every move judged once, for the player who made it
    assert a.share("margin") == 1.0 and a.share("outcome") == 1.0
    assert b.share("margin") < 1.0  # random misses the best margin somewhere in 8 games
    assert b.margin_optimal <= b.outcome_optimal  # the margin test is the stricter one


def test_the_opening_is_not_judged():
    rand = lambda game, rng: str(rng.choice(game.legal_moves()))
    rng = np.random.default_rng(1)
    first = Game(SIDE2).legal_moves()[0]
    outcome = _play(rand, rand, a_black=True, opening=(first,), rng=rng)
    a, b = judge_moves([outcome], SIDE2)
    assert a.moves + b.moves == len(outcome.actions) - 1


def test_margin_optimal_implies_outcome_optimal_on_every_move_of_random_games():
    solver, margins = Solver(), MarginSolver()
    rng = np.random.default_rng(2)
    for _ in range(20):
        game = Game(SIDE2)
        while not game.is_over:
            for move in game.legal_moves():
                judged = judge_position(game, move, solver, margins)
                assert judged.margin_optimal <= judged.outcome_optimal
            game.play(str(rng.choice(game.legal_moves())))


def test_shares_intervals_and_bad_input():
    share = OptimalShare(moves=20, outcome_optimal=19, margin_optimal=15)
    assert share.share("margin") == 0.75 and share.share("outcome") == 0.95
    lo, hi = share.interval("margin")
    assert lo < 0.75 < hi
    with pytest.raises(ValueError, match="'outcome' or 'margin'"):
        share.share("best")
    with pytest.raises(ValueError, match="longest scoring"):
        judge_moves([], GameConfig(side=2, scoring="longest"))
    with pytest.raises(ValueError, match="not legal"):
        judge_position(Game(SIDE2), "Z99", Solver(), MarginSolver())
