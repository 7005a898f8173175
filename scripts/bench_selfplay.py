"""Self-play throughput on Ray: positions per second with 1 and 2 actors, and the inference share.

    python scripts/bench_selfplay.py [--config configs/side6.yaml] [--seconds 60] [--games 64]

What it measures: a local Ray with 2 CPUs; a ``SelfPlayPool`` of N actors (1 CPU and 1 torch
thread each) playing the config's self-play (playout caps, Gumbel search, the untrained network
of the config); after one warm-up chunk per actor it counts the plies (positions) the actors
report over ``--seconds`` of wall time. The inference share is the time the actors spent inside
the network's evaluation divided by their chunk time. The baseline is the 1-actor run of the same
invocation; scaling = P2 / P1 (2.0 is perfect on 2 cores).
"""

from __future__ import annotations

import argparse
import dataclasses
import time

import numpy as np

from catena_zero.config import load_config
from catena_zero.selfplay import workers


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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", default="configs/side6.yaml")
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--games", type=int, default=64, help="games per actor")
    args = parser.parse_args()
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
    print(f"bench_selfplay: side {side}: 1 worker {p1:.1f} pos/s, 2 workers {p2:.1f} pos/s, "
          f"scaling {p2 / p1:.2f}, inference share {share2:.0%}")


if __name__ == "__main__":
    main()
