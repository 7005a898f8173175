"""Test helper: ``Trajectory`` records of random games, with the move lists that produced them.

The policy target of a position is a mixture that can be recomputed from the game alone (so a test
can rebuild it on the transformed game): half on the move played, half uniform over the legal
actions. Outcome, score and ownership are the final results from the mover's side, as self-play
records them.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from catena_zero.game.options import GameConfig, komi_range
from catena_zero.game.vec import EMPTY, VecEnv
from catena_zero.selfplay.types import Trajectory


@dataclass(frozen=True)
class RandomGames:
    trajectory: Trajectory
    actions: list[list[int]]  # per game, the actions played in order
    komi: np.ndarray  # [games] komi of each game
    row_game: np.ndarray  # [T] game of each position
    row_ply: np.ndarray  # [T] moves played before the position


def mixture_policy(legal: np.ndarray, played: np.ndarray) -> np.ndarray:
    """[B, A] half on the move played, half uniform over the legal actions."""
    policy = 0.5 * legal / legal.sum(axis=1, keepdims=True)
    policy[np.arange(len(played)), played] += 0.5
    return policy


def random_games(game: GameConfig, games: int, rng: np.random.Generator, full_search: float = 0.5,
                 version: int = 0, max_plies: int | None = None) -> RandomGames:
    """``games`` uniformly random games of ``game``'s rules, each with a random komi, as one Trajectory."""
    env = VecEnv(game)
    lo, hi = komi_range(game.scoring) if game.game_type == "komi" else (0, 0)
    komi = rng.integers(lo, min(hi, 15) + 1, size=games)
    state = env.reset(games, komi)
    rows, policies, row_game, row_ply = [], [], [], []
    actions: list[list[int]] = [[] for _ in range(games)]
    ply = 0
    while not state.done.all() and (max_plies is None or ply < max_plies):
        active = np.flatnonzero(~state.done)
        legal = env.legal_actions(state)[active]
        chosen = np.where(legal, rng.random(legal.shape), -1.0).argmax(axis=1)
        rows.append(state.data[active].copy())
        policies.append(mixture_policy(legal, chosen))
        row_game.append(active)
        row_ply.append(np.full(active.size, ply))
        step = np.zeros(games, dtype=np.int64)
        step[active] = chosen
        env.step(state, step)
        for g, a in zip(active, chosen):
            actions[g].append(int(a))
        ply += 1
    data = np.concatenate(rows)
    row_game = np.concatenate(row_game)
    mover = _movers(env, data)  # [T] player to move in each position
    final_board = state.board[row_game]  # [T, N] final owners
    winner = state.winner[row_game]
    end_mover = state.to_move[row_game]
    end_margin = env.score_margin(state)[row_game]
    outcome = np.where(winner == EMPTY, 0, np.where(winner == mover, 1, -1)).astype(np.int8)
    score = np.where(mover == end_mover, end_margin, -end_margin).astype(np.float32)
    ownership = np.where(final_board == EMPTY, 0, np.where(final_board == mover[:, None], 1, -1)).astype(np.int8)
    t = data.shape[0]
    has_policy = rng.random(t) < full_search
    policy = np.concatenate(policies).astype(np.float16)
    policy[~has_policy] = 0
    trajectory = Trajectory(
        game=game,
        states=data,
        policy=policy,
        has_policy=has_policy,
        outcome=outcome,
        score=score,
        ownership=ownership,
        weight=np.ones(t, dtype=np.float32),
        version=np.full(t, version, dtype=np.int32),
    )
    return RandomGames(trajectory=trajectory, actions=actions, komi=komi, row_game=row_game,
                       row_ply=np.concatenate(row_ply))


def _movers(env: VecEnv, rows: np.ndarray) -> np.ndarray:
    state = env.reset(rows.shape[0])
    state.data[:] = rows
    return state.to_move
