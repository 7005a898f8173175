"""The reference engine agrees with a naive, literal reading of RULES.md (tests/naive_rules.py).

The oracle recomputes everything from scratch (flood fills, trial placements), so it shares
no logic with the incremental engine. Random games on small boards, for all 9 option
combinations, compared after every move: legal moves (R3, R4, R8), every cell after
claiming (R5), side to move, the end (R4, R8), and at the end scores, winner, button (R6).
"""

import itertools

import numpy as np
import pytest

from catena_zero.game import Game, GameConfig
from naive_rules import NaiveGame

COMBOS = list(itertools.product(["komi", "no_komi", "double"], ["standard", "longest", "quadratic"]))


def play_both(side, game_type, scoring, komi, rng):
    game = Game(GameConfig(side=side, game_type=game_type, scoring=scoring, komi=komi))
    naive = NaiveGame(side, game_type, scoring, komi)
    names = game.spec.names
    while True:
        assert game.legal_moves() == naive.legal_moves()
        assert [game.stone_at(c) for c in names] == [
            {0: None, 1: "black", 2: "white"}[v] for v in naive.board
        ]
        assert game.to_move == {1: "black", 2: "white"}[naive.to_move]
        assert game.is_over == naive.over
        if naive.over:
            break
        moves = naive.legal_moves()
        # Take the button rarely so that games also end without it (R6 assignment).
        cells = [m for m in moves if m != "button"]
        move = "button" if ("button" in moves and rng.random() < 0.05) or not cells else rng.choice(cells)
        game.play(move)
        naive.play(move)
    assert game.scores() == naive.scores()
    assert game.winner == naive.winner()
    assert game.button_holder == {0: None, 1: "black", 2: "white"}[naive.button]
    return len(game.history)


@pytest.mark.parametrize("game_type,scoring", COMBOS)
def test_engine_matches_naive_oracle(game_type, scoring):
    rng = np.random.default_rng(abs(hash((game_type, scoring))) % 2**32)
    for side, games in [(2, 30), (3, 12), (4, 3)]:
        for _ in range(games):
            hi = 0 if game_type != "komi" else (40 if scoring == "quadratic" else 6)
            play_both(side, game_type, scoring, int(rng.integers(0, hi + 1)), rng)


@pytest.mark.slow
@pytest.mark.parametrize("game_type,scoring", COMBOS)
def test_engine_matches_naive_oracle_many(game_type, scoring):
    rng = np.random.default_rng(7)
    for side, games in [(2, 300), (3, 150), (4, 40), (5, 10)]:
        for _ in range(games):
            hi = 0 if game_type != "komi" else (40 if scoring == "quadratic" else 6)
            play_both(side, game_type, scoring, int(rng.integers(0, hi + 1)), rng)
