"""Benchmark: forward time of the default network (catena_zero/net) against a plain conv tower.

Shape legend: B positions per forward pass, C planes, G grid width (11 on side 6).

For B in (1, 64, 256) on side 6, times ``CatenaNet(NetConfig())`` forward passes (eval mode,
``torch.inference_mode``, float32, the CPU unless CUDA is present) on encoded positions 10
random moves into a game, and, as the baseline measured in the same run, a plain residual
tower of the same depth and width (unmasked 3x3 ``nn.Conv2d`` + BatchNorm + ReLU, no global
pooling, no heads). The ratio shows what hex masking, masked normalisation, global pooling
and the heads cost on top of the convolutions. Each row is the fastest of repeated timings
(other processes on a shared machine only ever slow a run down).

Run: .venv/bin/python scripts/bench_net.py [--batches 1 64 256]
The last line reads ``bench_net: side 6 batch B: network X ms, plain tower Y ms, ratio R``
for the largest batch.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import torch
from torch import nn

from catena_zero.config import NetConfig
from catena_zero.game import GameConfig
from catena_zero.game.vec_env import VecEnv, random_legal_actions
from catena_zero.net import encode, model_from_config, num_parameters
from catena_zero.net.device import resolve_device

SIDE = 6
OPENING_MOVES = 10
MIN_SECONDS = 1.5  # repeat each timing for at least this long


def plain_tower(config: NetConfig, in_planes: int) -> nn.Module:
    """The baseline: a residual tower of plain 3x3 convolutions, as wide and deep as ``config``."""

    class Block(nn.Module):
        def __init__(self, channels: int) -> None:
            super().__init__()
            self.body = nn.Sequential(
                nn.Conv2d(channels, channels, 3, padding=1, bias=False), nn.BatchNorm2d(channels), nn.ReLU(),
                nn.Conv2d(channels, channels, 3, padding=1, bias=False), nn.BatchNorm2d(channels),
            )

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return torch.relu(x + self.body(x))

    stem = nn.Conv2d(in_planes, config.channels, 3, padding=1)
    return nn.Sequential(stem, *[Block(config.channels) for _ in range(config.blocks)])


def best_seconds(fn) -> float:
    """Fastest of repeated calls of ``fn`` (after a warm-up), over at least MIN_SECONDS."""
    fn()
    best, started = float("inf"), time.perf_counter()
    while time.perf_counter() - started < MIN_SECONDS:
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batches", type=int, nargs="+", default=[1, 64, 256])
    args = parser.parse_args()

    config = NetConfig()
    device = resolve_device(config.device)
    env = VecEnv(GameConfig(side=SIDE))
    rng = np.random.default_rng(0)
    state = env.reset(max(args.batches))
    for _ in range(OPENING_MOVES):
        env.step(state, random_legal_actions(env.legal_actions(state), rng))
    features = encode(env, state)
    model = model_from_config(config, torch.Generator().manual_seed(0)).to(device).eval()
    baseline = plain_tower(config, features.planes.shape[1]).to(device).eval()
    print(f"bench_net: side {SIDE}, NetConfig() = {config.blocks} blocks x {config.channels} channels, "
          f"{num_parameters(model):,} parameters; torch {torch.__version__} on {device}, "
          f"{torch.get_num_threads()} threads; float32, inference_mode")
    print(f"{'batch':>5}  {'network ms':>10}  {'plain tower ms':>14}  {'ratio':>5}  {'positions/s':>11}")
    line = ""
    for batch in args.batches:
        planes = torch.as_tensor(features.planes[:batch], device=device)
        globals_ = torch.as_tensor(features.globals[:batch], device=device)

        def sync() -> None:
            if device.type == "cuda":
                torch.cuda.synchronize(device)

        with torch.inference_mode():
            net = best_seconds(lambda: (model(planes, globals_), sync()))
            plain = best_seconds(lambda: (baseline(planes), sync()))
        print(f"{batch:>5}  {net * 1e3:>10.2f}  {plain * 1e3:>14.2f}  {net / plain:>5.2f}  {batch / net:>11,.0f}")
        line = f"bench_net: side {SIDE} batch {batch}: network {net * 1e3:.1f} ms, plain tower {plain * 1e3:.1f} ms, ratio {net / plain:.2f}"
    print(line)


if __name__ == "__main__":
    main()
