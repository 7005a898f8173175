"""The Ray self-play pool (selfplay/workers.py) on a local Ray with 2 CPUs: chunks arrive without
blocking, published weights reach the actors, a killed actor is replaced and the pool goes on."""

from __future__ import annotations

import os
import signal
import time

import numpy as np
import pytest

from catena_zero.config import config_from_dict
from catena_zero.selfplay import workers

CONFIG = {
    "game": {"side": 2},
    "net": {"blocks": 1, "channels": 8, "head_channels": 4, "value_hidden": 8, "global_pool_every": 0},
    "search": {"num_simulations": 2, "gumbel_num_considered": 2},
    "selfplay": {"games_per_actor": 4, "cheap_simulations": 1},
    "run": {"num_actors": 2, "cpus_per_actor": 1},
}


@pytest.fixture
def local_ray():
    workers.start_ray(None, 2)
    yield
    workers.stop_ray()


def _chunks_until(pool, predicate, seconds=90.0):
    deadline = time.monotonic() + seconds
    got = []
    while time.monotonic() < deadline:
        got.extend(pool.poll(timeout=0.5))
        if predicate(got):
            return got
    raise AssertionError(f"no such chunks within {seconds} s (got {len(got)})")


def test_pool_collects_chunks_takes_new_weights_and_restarts_dead_actors(local_ray):
    config = config_from_dict(CONFIG)
    pool = workers.SelfPlayPool(config, np.random.SeedSequence(0), plies_per_chunk=3)
    try:
        chunks = _chunks_until(pool, lambda got: {c.actor for c in got} == {0, 1})
        assert all(c.version == 0 for c in chunks)
        # New weights reach every actor between two chunks, without the driver waiting.
        from catena_zero.net import model_from_config

        pool.publish(model_from_config(config.net).state_dict(), version=5)
        _chunks_until(pool, lambda got: {c.actor for c in got if c.version == 5} == {0, 1})
        # Kill one actor's process: the pool replaces it (with the newest weights) and goes on.
        os.kill(pool.actor_pids()[0], signal.SIGKILL)
        _chunks_until(pool, lambda got: pool.restarts >= 1 and any(c.actor == 0 for c in got))
        assert pool.restarts == 1
        late = _chunks_until(pool, lambda got: any(c.actor == 0 for c in got))
        assert all(c.version == 5 for c in late if c.actor == 0)
        positions = sum(t.num_positions for c in chunks for t in c.trajectories)
        assert positions > 0
    finally:
        pool.shutdown()
