"""The exact solver (catena_zero/search/solver.py), checked against an independent brute force.

Values are for the player to move: +1 win, 0 draw, -1 loss (R6, R8); a child's value is negated
only when the player to move changes (R8 double turns keep the mover, R4 the button passes it).
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from positions import random_position

from catena_zero.game import Game, GameConfig
from catena_zero.game.vec import VecEnv
from catena_zero.search.solver import LOSS, WIN, Solver, SolverEvaluator

SIDE2_CONFIGS = [
    GameConfig(side=2, game_type=game_type, scoring=scoring, komi=komi)
    for game_type, scoring, komi in [
        ("komi", "standard", 0),
        ("komi", "standard", 3),
        ("komi", "longest", 1),
        ("komi", "quadratic", 5),
        ("no_komi", "standard", 0),
        ("double", "standard", 0),
        ("double", "longest", 0),
    ]
]


def brute_force(game: Game) -> int:
    """Plain negamax over every line: no table, no cut-off (the solver's independent oracle)."""
    if game.is_over:
        return int(game.result_value(game.to_move))
    best = LOSS
    for move in game.legal_moves():
        child = game.copy()
        child.play(move)
        value = brute_force(child)
        best = max(best, value if child.to_move == game.to_move else -value)
    return best


@pytest.mark.parametrize("config", SIDE2_CONFIGS, ids=lambda c: f"{c.game_type}-{c.scoring}-komi{c.komi}")
def test_side2_values_match_brute_force(config):
    rng = np.random.default_rng(0)
    solver = Solver()
    for plies in [1, 1, 2, 2, 3, 4, 5]:
        game = random_position(config, plies, rng)
        assert solver.value(game) == brute_force(game), game.history


@pytest.mark.parametrize("config", SIDE2_CONFIGS[:1] + SIDE2_CONFIGS[5:6], ids=["komi", "double"])
def test_side2_opening_matches_brute_force(config):
    game = Game(config)
    solution = Solver().solve(game)
    for move, value in solution.move_values.items():
        child = game.copy()
        child.play(move)
        exact = brute_force(child)
        assert value == (exact if child.to_move == game.to_move else -exact), move


def test_solution_is_consistent_and_optimal_play_achieves_it():
    """value = best move value; following best moves for both sides ends with that result."""
    rng = np.random.default_rng(1)
    for config in [GameConfig(side=3), GameConfig(side=3, game_type="double"), GameConfig(side=3, komi=2)]:
        solver = Solver()
        for _ in range(3):
            game = random_position(config, 8, rng)
            if game.is_over:
                continue
            solution = solver.solve(game)
            assert solution.value == max(solution.move_values.values())
            assert set(solution.best_moves) == {m for m, v in solution.move_values.items() if v == solution.value}
            assert list(solution.move_values) == game.legal_moves()
            mover = game.to_move
            line = game.copy()
            while not line.is_over:
                line.play(solver.solve(line).best_moves[0])
            assert line.result_value(mover) == solution.value


def test_finished_game_has_its_result_and_no_moves():
    game = random_position(GameConfig(side=2), 20, np.random.default_rng(2))
    assert game.is_over
    solution = Solver().solve(game)
    assert solution.value == game.result_value(game.to_move)
    assert solution.best_moves == () and solution.move_values == {}


def test_button_that_decides_the_game():
    """Side 3, standard, komi 0: White's only winning move is the button (its half point, R6)."""
    game = Game.replay(GameConfig(side=3), ["D4", "A2", "C4", "A1", "C5", "E3", "D3"])
    solution = Solver().solve(game)
    assert solution.value == WIN and solution.best_moves == ("button",)
    assert brute_force(game) == WIN


def test_solver_evaluator_returns_exact_values():
    config = GameConfig(side=2, game_type="double")
    env = VecEnv(config)
    rng = np.random.default_rng(3)
    games = [random_position(config, plies, rng) for plies in (1, 2, 3, 1, 2)]
    games = [g for g in games if not g.is_over]
    evaluation = SolverEvaluator(env)(env.from_games(games))
    assert evaluation.value.tolist() == [brute_force(g) for g in games]
    legal = env.legal_actions(env.from_games(games))
    np.testing.assert_allclose(evaluation.priors.sum(axis=1), 1.0, rtol=1e-6)
    assert (evaluation.priors[~legal] == 0).all()


def test_full_table_is_an_error():
    with pytest.raises(RuntimeError, match="solver table is full"):
        Solver(max_positions=10).value(Game(GameConfig(side=3)))


@pytest.mark.slow
def test_side3_opening_solved_exactly():
    """The whole side-3 game (about 260k positions, ~20 s): consistent with its children."""
    game = Game(GameConfig(side=3))
    solver = Solver()
    solution = solver.solve(game)
    for move in game.legal_moves()[:3] + ["button"]:
        child = game.copy()
        child.play(move)
        child_value = solver.solve(child).value
        assert solution.move_values[move] == -child_value
    assert solution.value == max(solution.move_values.values())


def test_margin_solver_agrees_with_the_outcome_solver_and_the_fair_komi():
    from catena_zero.search.solver import MarginSolver, exact_fair_komi

    config = GameConfig(side=2)
    margins, outcomes = MarginSolver(), Solver()
    # The empty board: Black wins at komi 2 and loses at 3, so its best margin at komi 0 lies
    # between; the button's half point makes it 2.5 (R6).
    assert exact_fair_komi(config) == (2, 3)
    assert margins.margin(Game(config)) == 2.5
    rng = np.random.default_rng(3)
    for _ in range(40):
        game = Game(dataclasses.replace(config, komi=int(rng.integers(0, 6))))
        while not game.is_over and rng.random() < 0.8:
            game.play(str(rng.choice(game.legal_moves())))
        if game.is_over:
            continue
        margin = margins.margin(game)
        assert np.sign(margin) == outcomes.value(game), game.history  # no draws: the half point
        best, kept = margins.optimal_moves(game)
        assert kept == margin and best
        for move in game.legal_moves():  # an optimal move keeps the margin, the others lose some
            assert (margins.move_margin(game, move) == margin) == (move in best)
    with pytest.raises(ValueError, match="longest"):
        margins.margin(Game(GameConfig(side=2, scoring="longest")))
