"""Test helpers: random positions of the reference engine, and its position in the integer form
the vectorised environment and the naive oracle speak (``Game`` itself speaks R10 notation)."""

import numpy as np

from catena_zero.game import Game, GameConfig
from catena_zero.game.colours import COLOUR_CODES, EMPTY


def random_position(config: GameConfig, plies: int, rng: np.random.Generator) -> Game:
    """The game after up to ``plies`` uniformly random moves (fewer if it ends first)."""
    game = Game(config)
    for _ in range(plies):
        if game.is_over:
            break
        moves = game.legal_moves()
        game.play(moves[int(rng.integers(len(moves)))])
    return game


def code(colour: str | None) -> int:
    """The colour code of a colour name, EMPTY for None (nobody)."""
    return EMPTY if colour is None else COLOUR_CODES[colour]


def board_codes(game: Game) -> np.ndarray:
    """[N] int8 colour codes of every cell (after claims)."""
    return np.array([code(game.stone_at(name)) for name in game.spec.names], dtype=np.int8)


def legal_actions(game: Game) -> list[int]:
    """The legal moves as action indices (cells, then N for the button), sorted."""
    return [game.spec.action(move) for move in game.legal_moves()]


def legal_cells(game: Game) -> list[int]:
    """The cells among the legal moves, as indices."""
    return [a for a in legal_actions(game) if a != game.spec.button_action]


def legal_mask(game: Game) -> np.ndarray:
    """[A] bool, True on legal actions (last entry: the button)."""
    mask = np.zeros(game.spec.num_actions, dtype=bool)
    mask[legal_actions(game)] = True
    return mask


def played_actions(game: Game) -> list[int]:
    """The moves played, as action indices."""
    return [game.spec.action(move) for move in game.history]


def play_action(game: Game, action: int) -> None:
    """Play the move of action index ``action``."""
    game.play(game.spec.action_name(int(action)))
