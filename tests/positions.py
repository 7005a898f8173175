"""Test helper: random positions of the reference engine."""

import numpy as np

from catena_zero.game import Game, GameConfig


def random_position(config: GameConfig, plies: int, rng: np.random.Generator) -> Game:
    """The game after up to ``plies`` uniformly random moves (fewer if it ends first)."""
    game = Game(config)
    for _ in range(plies):
        if game.is_over:
            break
        moves = game.legal_moves()
        game.play(moves[int(rng.integers(len(moves)))])
    return game
