"""Random-play throughput of the reference engine and the vectorised environment.

Usage: .venv/bin/python scripts/bench_env.py [--seconds S] [--sides 6 10] [--batches 1 64 512 4096]

Both play complete games with uniformly random legal moves, the random choice included in
the timing. The vectorised env chooses with ``random_legal_actions`` (each row picks the
floor(u * c)-th of its c legal actions, u uniform, all rows at once) from an
``np.random.Generator``; the reference engine plays one game at a time (batch size does not
apply to it), choosing with the same generator. Wall-clock rates are the figures; rates per
CPU second are printed beside them because the machine may be shared.
The last line of the output is the headline figure:
``bench_env: side 6 batch 512: reference R moves/s, vectorised V moves/s, ratio X``.
"""

from __future__ import annotations

import argparse
import time
from dataclasses import dataclass

import numpy as np

from catena_zero.game import Game, GameConfig
from catena_zero.game.vec import VecEnv, random_legal_actions

import _machine  # scripts/_machine.py: the CPU and the instruction set beside every figure


@dataclass(frozen=True)
class Throughput:
    moves: int
    games: int
    seconds: float  # wall clock
    cpu_seconds: float  # this process's CPU time: less sensitive to a shared machine

    @property
    def moves_per_s(self) -> float:
        return self.moves / self.seconds

    @property
    def games_per_s(self) -> float:
        return self.games / self.seconds

    @property
    def moves_per_cpu_s(self) -> float:
        return self.moves / self.cpu_seconds


def bench_reference(cfg: GameConfig, seconds: float, rng: np.random.Generator) -> Throughput:
    """Whole games through ``Game`` until ``seconds`` have passed."""
    moves = games = 0
    start, cpu = time.perf_counter(), time.process_time()
    while time.perf_counter() - start < seconds:
        game = Game(cfg)
        while not game.is_over:
            legal = game.legal_moves()
            game.play(legal[int(rng.integers(len(legal)))])
            moves += 1
        games += 1
    return Throughput(moves, games, time.perf_counter() - start, time.process_time() - cpu)


def bench_vectorised(cfg: GameConfig, batch: int, seconds: float, rng: np.random.Generator) -> Throughput:
    """Whole batches of ``batch`` games through ``VecEnv`` until ``seconds`` have passed."""
    env = VecEnv(cfg)
    moves = games = 0
    start, cpu = time.perf_counter(), time.process_time()
    while time.perf_counter() - start < seconds:
        state = env.reset(batch)
        while True:
            env.step(state, random_legal_actions(env.legal_actions(state), rng))
            if state.data[:, state.layout.done].all():
                break
        moves += int(state.data[:, state.layout.move_number].sum())
        games += batch
    return Throughput(moves, games, time.perf_counter() - start, time.process_time() - cpu)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="time per measurement")
    parser.add_argument("--sides", type=int, nargs="+", default=[6, 10])
    parser.add_argument("--batches", type=int, nargs="+", default=[1, 64, 512, 4096])
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    machine = _machine.describe()
    print(machine.line())
    headline = None
    for side in args.sides:
        cfg = GameConfig(side=side)
        env = VecEnv(cfg)
        ref = bench_reference(cfg, args.seconds, rng)
        print(f"side {side}: memory per game state {env.bytes_per_game} bytes")
        print(f"side {side} reference engine: {ref.moves_per_s:,.0f} moves/s, {ref.games_per_s:,.1f} games/s "
              f"(per CPU second: {ref.moves_per_cpu_s:,.0f} moves)")
        for batch in args.batches:
            vec = bench_vectorised(cfg, batch, args.seconds, rng)
            ratio = vec.moves_per_s / ref.moves_per_s
            print(f"side {side} batch {batch:5d}: vectorised {vec.moves_per_s:12,.0f} moves/s "
                  f"{vec.games_per_s:10,.1f} games/s  ratio {ratio:6.1f}  "
                  f"(per CPU second: {vec.moves_per_cpu_s:,.0f} moves)")
            if side == 6 and batch == 512:
                headline = (f"bench_env {machine.tag()}: side 6 batch 512: reference {ref.moves_per_s:.0f} moves/s, "
                            f"vectorised {vec.moves_per_s:.0f} moves/s, ratio {ratio:.1f}")
    if headline is None:
        headline = f"bench_env {machine.tag()}: side 6 batch 512: not measured (pass --sides 6 --batches 512)"
    print(headline)


if __name__ == "__main__":
    main()
