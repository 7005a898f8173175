"""Benchmark: single-game thinking speed of an exported bot (``Bot.choose``, batch 1).

For side 4 and side 6, an untrained default network (``NetConfig()``: 6 blocks x 64 channels) is
exported to a temporary bot file and loaded with ``Bot.load(simulations=S)`` on the CPU. Each
measurement times ``Bot.analyze`` (the search ``choose`` runs, plus reading its tree) from
the empty board and from positions 4 and 10 random moves in, and reports simulations per second
of the fastest of ``REPEATS`` searches per position, summed over positions (other processes on a
shared machine only ever slow a run down). The baseline, measured in the same run, is the network
alone: ``NetEvaluator`` calls per second on one position (what a search of one game can at most
reach, since every simulation evaluates one leaf); the gap is the search's own cost (environment
steps, tree bookkeeping). Both are measured with 1 torch thread and with torch's default.

Run: .venv/bin/python scripts/bench_bot.py [--simulations 128] [--sides 4 6] [--threads 1 2]
The last line reads ``bench_bot: side 6, S sims: T thread(s) B sims/s (network alone E evals/s,
search overhead P%) ...`` for the largest side measured.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import numpy as np
import torch

from catena_zero.bot import Bot, RuleSet
from catena_zero.artifacts.botfile import BotHeader, write_bot
from catena_zero.bot.players import RandomPlayer
from catena_zero.config import NetConfig, SearchConfig
from catena_zero.game import Game, GameConfig
from catena_zero.game.vec import VecEnv
from catena_zero.net import NetEvaluator, model_from_config
from catena_zero.net.features import INPUT_LAYOUT_VERSION

import _machine  # scripts/_machine.py: the CPU and the instruction set beside every figure

REPEATS = 3
OPENINGS = (0, 4, 10)


def positions(side: int) -> list[Game]:
    rng = np.random.default_rng(0)
    out = []
    for moves in OPENINGS:
        game = Game(GameConfig(side=side))
        for _ in range(moves):
            game.play(RandomPlayer().choose(game, rng))
        out.append(game)
    return out


def network_rate(model: torch.nn.Module, side: int) -> float:
    """NetEvaluator calls per second at batch 1 (fastest of REPEATS rounds of 20 calls)."""
    env = VecEnv(GameConfig(side=side))
    net = NetConfig(device="cpu")
    evaluator = NetEvaluator(model, env, net)
    state = env.from_games([positions(side)[-1]])
    evaluator(state)
    best = float("inf")
    for _ in range(REPEATS):
        start = time.perf_counter()
        for _ in range(20):
            evaluator(state)
        best = min(best, (time.perf_counter() - start) / 20)
    return 1.0 / best


def bot_rate(path: Path, side: int, simulations: int) -> float:
    bot = Bot.load(path, simulations=simulations, device="cpu")
    games = positions(side)
    bot.analyze(games[0])  # warm-up: allocations, first forward passes
    total_sims, total_seconds = 0, 0.0
    for game in games:
        best = float("inf")
        for _ in range(REPEATS):
            start = time.perf_counter()
            info = bot.analyze(game)
            best = min(best, time.perf_counter() - start)
        total_sims += info.simulations
        total_seconds += best
    return total_sims / total_seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--simulations", type=int, default=128)
    parser.add_argument("--sides", type=int, nargs="+", default=[4, 6])
    parser.add_argument("--threads", type=int, nargs="+", default=sorted({1, torch.get_num_threads()}))
    args = parser.parse_args()
    net = NetConfig(device="cpu")
    machine = _machine.describe()
    print(machine.line())
    summary = ""
    with tempfile.TemporaryDirectory() as folder:
        for side in args.sides:
            model = model_from_config(net, torch.Generator().manual_seed(0))
            header = BotHeader(step=0, net=net, search=SearchConfig(), game=GameConfig(side=side),
                               trained_for=(RuleSet(side, "komi", "standard"),), input_layout=INPUT_LAYOUT_VERSION)
            path = write_bot(Path(folder) / f"side{side}.bot", header, model.state_dict())
            parts = []
            for threads in args.threads:
                torch.set_num_threads(threads)
                evals = network_rate(model, side)
                sims = bot_rate(path, side, args.simulations)
                overhead = 100.0 * (1.0 - sims / evals)
                line = (f"{threads} thread(s) {sims:.0f} sims/s (network alone {evals:.0f} evals/s, "
                        f"search overhead {overhead:.0f}%)")
                print(f"side {side}, {args.simulations} simulations per move: {line}", flush=True)
                parts.append(line)
            summary = f"bench_bot {machine.tag()}: side {side}, {args.simulations} sims: " + "; ".join(parts)
    print(summary)


if __name__ == "__main__":
    main()
