"""Self-play throughput on Ray: positions per second with 1 and 2 actors, and the inference share.

    python scripts/bench_selfplay.py [--config configs/side6.yaml] [--seconds 60] [--games 64]

What it measures: a local Ray with 2 CPUs; a ``SelfPlayPool`` of N actors (1 CPU and 1 torch
thread each) playing the config's self-play (playout caps, Gumbel search, the untrained network
of the config); after one warm-up chunk per actor it counts the plies (positions) the actors
report over ``--seconds`` of wall time. The inference share is the time the actors spent inside
the network's evaluation divided by their chunk time. The baseline is the 1-actor run of the same
invocation; scaling = P2 / P1 (2.0 is perfect on 2 cores).

``--standalone`` instead measures one ``SelfPlayer`` in this process (1 torch thread) with a
shipped network (``--bot``, default the side-4 bot; quick.yaml's self-play), in positions per
CPU-second of the process (``time.process_time``, so other jobs on the machine slow it little),
the way a run's actor plays: 4-ply chunks, and between two chunks

- ``no weights``: nothing (self-play alone, the figure standalone benchmarks quoted);
- ``weights, trees dropped``: ``set_weights`` with ``selfplay.reset_trees_on_new_weights: true``
  (the baseline: what an actor did inside a run, where new weights arrive about every chunk);
- ``weights, trees kept``: ``set_weights`` with the default (``false``).

Rounds of ``--plies`` plies alternate the three (paired, so a drifting machine load falls on all),
and each figure is the median over ``--rounds`` rounds.
"""

from __future__ import annotations

import argparse
import dataclasses
import statistics
import time

import numpy as np

from catena_zero.config import load_config
from catena_zero.selfplay import workers

import _machine  # scripts/_machine.py: the CPU and the instruction set beside every figure


def measure(config, actors: int, seconds: float) -> tuple[float, float]:
    config = dataclasses.replace(config, run=dataclasses.replace(config.run, num_actors=actors, cpus_per_actor=1))
    pool = workers.SelfPlayPool(config, np.random.SeedSequence(0), plies_per_chunk=2)
    try:
        warm = set()
        while len(warm) < actors:  # first chunk of every actor: tree allocation, first forwards
            warm |= {chunk.actor for chunk in pool.poll(timeout=1.0)}
        plies, chunk_seconds, inference = 0, 0.0, 0.0
        started = time.perf_counter()
        while time.perf_counter() - started < seconds:
            for chunk in pool.poll(timeout=0.5):
                plies += chunk.stats.plies
                chunk_seconds += chunk.stats.seconds
                inference += chunk.stats.inference_seconds
        elapsed = time.perf_counter() - started
    finally:
        pool.shutdown()
    return plies / elapsed, inference / max(chunk_seconds, 1e-9)


def standalone(args) -> None:
    import torch

    from catena_zero.artifacts.network import load_network
    from catena_zero.net.device import set_torch_threads
    from catena_zero.selfplay.play import SelfPlayer

    set_torch_threads(1)
    network = load_network(args.bot)
    config = load_config(args.config or "configs/quick.yaml", {"net": dataclasses.asdict(network.net)})
    modes = {"no weights": None, "weights, trees dropped": True, "weights, trees kept": False}
    players = {}
    for mode, reset in modes.items():
        selfplay = dataclasses.replace(config.selfplay, reset_trees_on_new_weights=bool(reset))
        model = network.model()
        player = SelfPlayer(dataclasses.replace(config, selfplay=selfplay), np.random.default_rng(0), model=model)
        player.play(8)  # warm-up: trees allocated, first forwards
        players[mode] = (player, {k: v.clone() for k, v in model.state_dict().items()})
    rates: dict[str, list[float]] = {mode: [] for mode in modes}
    for _ in range(args.rounds):
        for mode, reset in modes.items():
            player, weights = players[mode]
            positions, started = 0, time.process_time()
            for chunk in range(args.plies // 4):
                if reset is not None:
                    player.set_weights(weights, player.version + 1)
                positions += player.play(4).stats.plies
            rates[mode].append(positions / (time.process_time() - started))
    median = {mode: statistics.median(r) for mode, r in rates.items()}
    base = median["weights, trees dropped"]
    side = config.game.side
    print(f"standalone self-play, side {side}, {config.selfplay.games_per_actor} games, {args.bot}: median of "
          f"{args.rounds} rounds of {args.plies} plies, positions per CPU-second of this process")
    for mode, rate in median.items():
        spread = f"{min(rates[mode]):.0f}-{max(rates[mode]):.0f}"
        print(f"  {mode:<24} {rate:8.1f}  (rounds {spread}; {rate / base:.2f}x the trees-dropped baseline)")
    print(f"bench_selfplay {_machine.describe().tag()}: standalone side {side}: trees kept "
          f"{median['weights, trees kept']:.1f} positions per "
          f"CPU-second vs trees dropped {base:.1f} (speed-up {median['weights, trees kept'] / base:.2f}x), "
          f"no weights {median['no weights']:.1f}")
    del torch


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", default=None, help="default configs/side6.yaml (configs/quick.yaml standalone)")
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--games", type=int, default=None, help="games per actor (default 64; standalone: the config's)")
    parser.add_argument("--standalone", action="store_true", help="one SelfPlayer in this process (module notes)")
    parser.add_argument("--bot", default="catena_zero/bots/side4.bot", help="the network of --standalone")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--plies", type=int, default=48, help="plies per round (--standalone)")
    args = parser.parse_args()
    print(_machine.describe().line())
    if args.standalone:
        standalone(args)
        return
    args.config = args.config or "configs/side6.yaml"
    config = load_config(args.config, {"selfplay": {"games_per_actor": args.games or 64}})
    config = load_config(args.config, {"selfplay": {"games_per_actor": args.games}})
    side = config.game.side
    workers.start_ray(None, 2)
    try:
        p1, share1 = measure(config, 1, args.seconds)
        print(f"side {side}: 1 actor : {p1:8.1f} positions/s, inference {share1:.1%} of actor time", flush=True)
        p2, share2 = measure(config, 2, args.seconds)
        print(f"side {side}: 2 actors: {p2:8.1f} positions/s, inference {share2:.1%} of actor time", flush=True)
    finally:
        workers.stop_ray()
    print(f"bench_selfplay {_machine.describe().tag()}: side {side}: 1 worker {p1:.1f} pos/s, 2 workers {p2:.1f} pos/s, "
          f"scaling {p2 / p1:.2f}, inference share {share2:.0%}")


if __name__ == "__main__":
    main()
