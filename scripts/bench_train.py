"""Benchmark: replay memory per position, sample + encode throughput, learner steps per second.

Shape legend: B samples per batch (``--batch``, 256 = TrainConfig.batch_size), N cells.

1. Bytes per position of ``ReplayBuffer`` on sides 4, 6 and 10 and a mixed 4+6+10 buffer (the
   arrays' real sizes), and what 1,000,000 side-6 positions take.
2. ``ReplayBuffer.sample(B)`` on side 6 (uniform draw from the window, ``encode`` of the packed
   rows, random symmetry of planes, policy and ownership), against the baseline measured in the
   same run: ``encode`` alone of B rows already gathered (what any replay of env rows must pay).
3. ``Learner.step`` (forward, losses, backward, clipping, SGD step) for the tiny net and the
   default ``NetConfig()`` on side 6 batches, against the baseline of one forward pass of the same
   batch in eval mode.

Positions come from uniformly random side-6 games. Each figure is the fastest of repeated
timings (other processes on a shared machine only slow a run down).

Run: .venv/bin/python scripts/bench_train.py [--batch 256] [--threads T]
The last line reads ``bench_train: side 6 batch B: sample+encode X samples/s (encode alone Y),
tiny net S1 steps/s, default net S2 steps/s, P bytes/position``.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import torch

from catena_zero.config import NetConfig, ReplayConfig, TrainConfig
from catena_zero.game import GameConfig
from catena_zero.game.options import RuleSet
from catena_zero.game.vec import EMPTY, VecEnv
from catena_zero.net import encode
from catena_zero.selfplay.types import Trajectory
from catena_zero.train.learner import Learner
from catena_zero.train.replay import ReplayBuffer, position_bytes

SIDE = 6
MIN_SECONDS = 2.0
TINY = NetConfig(blocks=2, channels=16, global_pool_every=1, head_channels=8, value_hidden=16)


def best_seconds(fn, min_seconds: float = MIN_SECONDS) -> float:
    """Fastest of repeated calls of ``fn`` (after a warm-up), over at least ``min_seconds``."""
    fn()
    best, started = float("inf"), time.perf_counter()
    while time.perf_counter() - started < min_seconds:
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def random_trajectory(game: GameConfig, games: int, rng: np.random.Generator) -> Trajectory:
    """Positions of uniformly random games with their final targets (policy: uniform over legal moves)."""
    env = VecEnv(game)
    state = env.reset(games, rng.integers(0, 8, size=games))
    rows, policies, owner_game = [], [], []
    while not state.done.all():
        active = np.flatnonzero(~state.done)
        legal = env.legal_actions(state)
        rows.append(state.data[active].copy())
        policies.append((legal[active] / legal[active].sum(axis=1, keepdims=True)).astype(np.float16))
        owner_game.append(active)
        env.step(state, np.where(legal, rng.random(legal.shape), -1.0).argmax(axis=1))
    data, game_of = np.concatenate(rows), np.concatenate(owner_game)
    probe = env.reset(len(data))
    probe.data[:] = data
    mover = probe.to_move
    final = state.board[game_of]
    winner = state.winner[game_of]
    t = len(data)
    return Trajectory(
        game=game, states=data, policy=np.concatenate(policies), has_policy=rng.random(t) < 0.5,
        outcome=np.where(winner == EMPTY, 0, np.where(winner == mover, 1, -1)).astype(np.int8),
        score=rng.normal(0, 5, t).astype(np.float32),
        ownership=np.where(final == EMPTY, 0, np.where(final == mover[:, None], 1, -1)).astype(np.int8),
        weight=np.ones(t, dtype=np.float32), version=np.zeros(t, dtype=np.int32),
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batch", type=int, default=TrainConfig().batch_size)
    parser.add_argument("--threads", type=int, default=None, help="torch threads (default: torch's choice)")
    args = parser.parse_args()
    if args.threads:
        torch.set_num_threads(args.threads)
    b = args.batch

    print("1. replay memory (ReplayBuffer arrays: packed env row int16, policy float16, ownership int8, scalars)")
    for sides in ((4,), (6,), (10,), (4, 6, 10)):
        games = [GameConfig(side=s) for s in sides]
        buffer = ReplayBuffer(ReplayConfig(capacity=1000), [RuleSet.of(g) for g in games])
        assert buffer.bytes_per_position == position_bytes([RuleSet.of(g) for g in games])
        label = "+".join(map(str, sides))
        print(f"   side {label:>6}: {buffer.bytes_per_position:6.0f} bytes/position, "
              f"1M positions {buffer.bytes_per_position * 1e6 / 2**30:5.2f} GiB")
    per_position = position_bytes([RuleSet.of(GameConfig(side=SIDE))])

    rng = np.random.default_rng(0)
    game = GameConfig(side=SIDE)
    trajectory = random_trajectory(game, 128, rng)
    buffer = ReplayBuffer(ReplayConfig(capacity=100_000, min_positions=1), [RuleSet.of(game)])
    while buffer.positions_added < 20_000:
        buffer.add(trajectory)
    env = VecEnv(game)
    rows = trajectory.states[rng.integers(0, trajectory.num_positions, size=b)]

    def encode_alone() -> None:
        state = env.reset(b)
        state.data[:] = rows
        encode(env, state)

    sample_s = best_seconds(lambda: buffer.sample(b, rng))
    encode_s = best_seconds(encode_alone)
    print(f"2. sample+encode, side {SIDE}, batch {b} ({buffer.window} positions in the window)")
    print(f"   ReplayBuffer.sample: {sample_s * 1e3:7.2f} ms = {b / sample_s:8.0f} samples/s")
    print(f"   encode alone (baseline): {encode_s * 1e3:7.2f} ms = {b / encode_s:8.0f} samples/s "
          f"(sampling and symmetries add {100 * (sample_s / encode_s - 1):.0f}%)")

    batch = buffer.sample(b, rng)
    print(f"3. learner, side {SIDE}, batch {b}, {torch.get_num_threads()} torch threads, device "
          f"{Learner(TINY, TrainConfig()).device}")
    rates = {}
    for name, net in (("tiny", TINY), ("default", NetConfig())):
        learner = Learner(net, TrainConfig(warmup_steps=0), generator=torch.Generator().manual_seed(0))
        step_s = best_seconds(lambda: learner.step(batch), min_seconds=4.0 if name == "default" else MIN_SECONDS)
        part = batch.parts[0]
        planes = torch.from_numpy(part.planes).to(learner.device)
        globals_ = torch.from_numpy(part.globals).to(learner.device)

        def forward() -> None:
            learner.model.eval()
            with torch.inference_mode():
                learner.model(planes, globals_)

        forward_s = best_seconds(forward)
        rates[name] = 1.0 / step_s
        print(f"   {name:>7} net ({net.blocks} blocks x {net.channels}): step {step_s * 1e3:8.1f} ms = "
              f"{1 / step_s:6.2f} steps/s = {b / step_s:7.0f} samples/s; forward alone (baseline) "
              f"{forward_s * 1e3:7.1f} ms, step/forward {step_s / forward_s:4.1f}x")
    print(f"bench_train: side {SIDE} batch {b}: sample+encode {b / sample_s:.0f} samples/s "
          f"(encode alone {b / encode_s:.0f}), tiny net {rates['tiny']:.2f} steps/s, "
          f"default net {rates['default']:.2f} steps/s, {per_position} bytes/position")


if __name__ == "__main__":
    main()
