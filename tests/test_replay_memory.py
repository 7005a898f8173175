"""A replay buffer too big for the machine is refused in one line, naming the size and the limit,
before anything is allocated and before Ray starts."""

from __future__ import annotations

import dataclasses
import sys

import pytest

from catena_zero.cli import main
from catena_zero.config import ReplayConfig
from catena_zero.game.options import GameConfig, RuleSet
from catena_zero.train import replay as replay_module
from catena_zero.train.replay import ReplayBuffer, ReplayError, machine_memory

ROOT = __import__("pathlib").Path(__file__).resolve().parent.parent


def test_the_estimate_is_the_real_size_of_the_ring():
    games = [GameConfig(side=3), GameConfig(side=6, scoring="quadratic")]
    buffer = ReplayBuffer(ReplayConfig(capacity=100, window_min=10, min_positions=1), [RuleSet.of(g) for g in games])
    width, actions, cells = replay_module._widest(buffer._rules)
    assert replay_module.ring_bytes_per_position(width, actions, cells) == buffer.bytes_per_position


def test_a_ring_bigger_than_memory_is_refused_before_allocating(monkeypatch):
    monkeypatch.setattr(replay_module, "machine_memory", lambda: 2**30)  # a 1 GiB machine
    with pytest.raises(ReplayError) as info:
        ReplayBuffer(ReplayConfig(capacity=10_000_000), [RuleSet.of(GameConfig(side=6))])
    message = str(info.value)
    assert "\n" not in message and "replay.capacity 10,000,000 needs" in message and "1.0 GiB" in message


def test_train_with_a_huge_capacity_is_one_line_before_ray_starts(monkeypatch, capsys, tmp_path):
    from catena_zero.selfplay import workers

    monkeypatch.setattr(workers, "start_ray", lambda *a, **k: pytest.fail("Ray must not start"))
    assert (machine_memory() or 0) > 0  # the real figure is known here
    monkeypatch.setattr(replay_module, "machine_memory", lambda: 2**30)  # the same on any machine: 1 GiB
    capacity = 100_000_000  # the issue's --set replay.capacity=100000000
    code = main(["train", "--config", str(ROOT / "configs" / "tiny.yaml"), "--set", f"replay.capacity={capacity}",
                 "--set", f"run.root={tmp_path}"])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and "Traceback" not in err, err
    assert "replay.capacity 100,000,000 needs" in err and "of memory" in err
