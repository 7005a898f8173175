"""Learner (train/learner.py): steps reduce the loss, schedules, divergence detection, state round trip."""

from __future__ import annotations

import dataclasses
import io
import math

import numpy as np
import pytest
import torch

from catena_zero.config import NetConfig, ReplayConfig, TrainConfig
from catena_zero.game.options import GameConfig, RuleSet
from catena_zero.train.learner import Learner, TrainingDiverged, learning_rate
from catena_zero.train.replay import Batch, ReplayBuffer
from trajectories import random_games

TINY = NetConfig(blocks=1, channels=16, global_pool_every=1, head_channels=8, value_hidden=16)
FAST = TrainConfig(optimizer="adamw", learning_rate=3e-3, warmup_steps=0, device="cpu")


@pytest.fixture(scope="module")
def batch() -> Batch:
    """48 samples of side 3 and side 4 positions (two forward passes)."""
    games = [GameConfig(side=3), GameConfig(side=4, scoring="longest")]
    rng = np.random.default_rng(0)
    buffer = ReplayBuffer(ReplayConfig(capacity=2000, min_positions=1), [RuleSet.of(g) for g in games])
    for g in games:
        buffer.add(random_games(g, 6, rng).trajectory)
    return buffer.sample(48, rng)


def learner(config: TrainConfig = FAST, seed: int = 0) -> Learner:
    return Learner(TINY, config, generator=torch.Generator().manual_seed(seed))


def test_a_few_steps_reduce_the_loss(batch):
    assert len(batch.parts) == 2
    for cfg, steps in ((FAST, 15), (dataclasses.replace(FAST, optimizer="sgd", learning_rate=0.05), 10)):
        model = learner(cfg)
        first = model.step(batch)
        for _ in range(steps - 1):
            last = model.step(batch)
        assert model.state_dict()["step"] == steps
        assert last.total < 0.8 * first.total, (cfg.optimizer, first, last)
        assert last.policy < first.policy and last.value < first.value


def test_same_seed_same_training(batch):
    a, b = learner(seed=3), learner(seed=3)
    for _ in range(2):
        assert a.step(batch) == b.step(batch)
    assert learner(seed=4).step(batch) != learner(seed=3).step(batch)


def test_learning_rate_schedules_by_hand():
    warm = TrainConfig(learning_rate=0.1, warmup_steps=4)
    assert [learning_rate(warm, s) for s in range(6)] == pytest.approx([0.025, 0.05, 0.075, 0.1, 0.1, 0.1])
    cosine = TrainConfig(learning_rate=1.0, warmup_steps=0, lr_schedule="cosine", lr_decay_steps=100, lr_decay_factor=0.1)
    assert learning_rate(cosine, 0) == pytest.approx(1.0)
    assert learning_rate(cosine, 50) == pytest.approx(0.1 + 0.9 * 0.5)
    assert learning_rate(cosine, 100) == pytest.approx(0.1) and learning_rate(cosine, 1000) == pytest.approx(0.1)
    over_run = TrainConfig(learning_rate=1.0, warmup_steps=0, lr_schedule="cosine", lr_decay_over_run=True)
    assert learning_rate(over_run, 5, run_progress=0.0) == pytest.approx(1.0)  # the step count does not matter
    assert learning_rate(over_run, 5, run_progress=0.5) == pytest.approx(0.1 + 0.9 * 0.5)
    assert learning_rate(over_run, 5, run_progress=1.0) == pytest.approx(0.1)
    step = TrainConfig(learning_rate=0.2, warmup_steps=10, lr_schedule="step", lr_decay_steps=100, lr_decay_factor=0.1)
    assert learning_rate(step, 109) == pytest.approx(0.2)
    assert learning_rate(step, 110) == pytest.approx(0.02) and learning_rate(step, 310) == pytest.approx(0.0002)
    # The annealed finish: over the last 20% of the run the schedule's rate falls linearly to a tenth.
    anneal = TrainConfig(learning_rate=0.5, warmup_steps=0, anneal_share=0.2, lr_decay_factor=0.1)
    assert learning_rate(anneal, 7, run_progress=0.8) == pytest.approx(0.5)
    assert learning_rate(anneal, 7, run_progress=0.9) == pytest.approx(0.5 * (1 - 0.9 * 0.5))
    assert learning_rate(anneal, 7, run_progress=1.0) == pytest.approx(0.05)
    stepped = dataclasses.replace(step, anneal_share=0.5)  # on top of any schedule
    assert learning_rate(stepped, 110, run_progress=0.75) == pytest.approx(0.02 * (1 - 0.9 * 0.5))


def test_the_optimiser_uses_the_schedule_and_clips(batch):
    cfg = dataclasses.replace(FAST, warmup_steps=10, max_grad_norm=1e-3)
    model = learner(cfg)
    model.step(batch)
    assert model.optimizer.param_groups[0]["lr"] == pytest.approx(3e-4)
    assert model.learning_rate() == pytest.approx(6e-4)
    before = [p.detach().clone() for p in model.model.parameters()]
    model.step(batch)
    grads = [p.grad for p in model.model.parameters() if p.grad is not None]
    clipped = math.sqrt(sum(float(g.pow(2).sum()) for g in grads))
    assert clipped == pytest.approx(1e-3, rel=1e-3) and model.last_grad_norm > 1e-3
    assert any(not torch.equal(a, p) for a, p in zip(before, model.model.parameters()))


def test_weight_decay_skips_biases_and_norms():
    model = learner(dataclasses.replace(FAST, weight_decay=0.01))
    decayed, plain = model.optimizer.param_groups
    assert decayed["weight_decay"] == 0.01 and plain["weight_decay"] == 0.0
    assert all(p.ndim >= 2 for p in decayed["params"]) and all(p.ndim == 1 for p in plain["params"])


def nan_planes(batch: Batch) -> Batch:
    part = batch.parts[0]
    planes = part.planes.copy()
    planes[0, 1, 1, 1] = np.nan
    return dataclasses.replace(batch, parts=(dataclasses.replace(part, planes=planes),) + batch.parts[1:])


def test_nan_raises_training_diverged_and_keeps_the_weights(batch):
    model = learner()
    model.step(batch)
    state = {k: v.clone() for k, v in model.model.state_dict().items()}
    with pytest.raises(TrainingDiverged, match="training diverged at step 1: a loss is not finite") as err:
        model.step(nan_planes(batch))
    assert "\n" not in str(err.value)
    assert model.state_dict()["step"] == 1
    for k, v in model.model.state_dict().items():  # weights and batch-norm statistics untouched
        assert torch.equal(v, state[k]), k


def test_a_non_finite_gradient_raises_too(batch):
    model = learner()
    param = next(model.model.parameters())
    handle = param.register_hook(lambda g: g * float("inf"))
    before = {k: v.clone() for k, v in model.model.state_dict().items()}
    with pytest.raises(TrainingDiverged, match="gradient norm is"):
        model.step(batch)
    handle.remove()
    assert all(torch.equal(v, before[k]) for k, v in model.model.state_dict().items())
    model.step(batch)  # and it can go on


def test_state_round_trip_through_a_safe_load(batch):
    a = learner(dataclasses.replace(FAST, optimizer="sgd", learning_rate=0.05, warmup_steps=5))
    for _ in range(3):
        a.step(batch)
    buffer = io.BytesIO()
    torch.save(a.state_dict(), buffer)
    buffer.seek(0)
    state = torch.load(buffer, weights_only=True)  # tensors and plain values only
    b = learner(dataclasses.replace(FAST, optimizer="sgd", learning_rate=0.05, warmup_steps=5), seed=99)
    b.load_state_dict(state)
    assert b.state_dict()["step"] == 3 and b.learning_rate() == a.learning_rate()
    assert a.step(batch) == b.step(batch)  # same weights, momentum and schedule: the same next step
    for (k, va), vb in zip(a.model.state_dict().items(), b.model.state_dict().values()):
        assert torch.equal(va, vb), k


def test_state_that_does_not_fit_is_one_line_error(batch):
    a = learner()
    with pytest.raises(ValueError, match="optimizer 'adamw'"):
        learner(dataclasses.replace(FAST, optimizer="sgd")).load_state_dict(a.state_dict())
    other = Learner(dataclasses.replace(TINY, channels=8), FAST)
    with pytest.raises(ValueError, match="does not fit this network") as err:
        other.load_state_dict(a.state_dict())
    assert "\n" not in str(err.value)
    with pytest.raises(ValueError, match="not a catena-zero learner state"):
        a.load_state_dict({"model": {}})


def test_weights_are_a_cpu_copy(batch):
    model = learner()
    weights = model.weights()
    assert all(v.device.type == "cpu" for v in weights.values())
    snapshot = {k: v.clone() for k, v in weights.items()}
    model.step(batch)
    assert all(torch.equal(weights[k], snapshot[k]) for k in weights)  # not aliased to the training weights
    assert any(not torch.equal(weights[k], v) for k, v in model.weights().items())


@pytest.mark.parametrize("data,fragment", [
    ({"train": {"optimizer": "adam"}}, "train.optimizer must be 'sgd' or 'adamw'"),
    ({"train": {"lr_schedule": "linear"}}, "train.lr_schedule"),
    ({"train": {"lr_decay_over_run": True}}, "train.lr_decay_over_run needs train.lr_schedule 'cosine'"),
    ({"train": {"lr_schedule": "cosine", "lr_decay_over_run": True}, "run": {"max_minutes": None}},
     "train.lr_decay_over_run needs a run bound"),
    ({"train": {"learning_rate": 0}}, "train.learning_rate must be > 0"),
    ({"train": {"anneal_share": 1.5}}, "train.anneal_share must be in [0, 1]"),
    ({"train": {"anneal_share": 0.2}, "run": {"max_minutes": None}}, "train.anneal_share needs a run bound"),
    ({"train": {"device": "tpu"}}, "train.device"),
    ({"train": {"batch_size": 2.5}}, "train.batch_size must be an integer"),
    ({"train": {"lr": 0.1}}, "unknown key train.lr"),
    ({"replay": {"window_alpha": 1.5}}, "replay.window_alpha must be in (0, 1]"),
    ({"replay": {"capacity": 0}}, "replay.capacity must be >= 1"),
    ({"replay": {"symmetries": "yes"}}, "true or false"),
])
def test_train_and_replay_config_errors_name_the_key(data, fragment):
    from catena_zero.config import ConfigError, config_from_dict

    with pytest.raises(ConfigError) as err:
        config_from_dict(data)
    assert fragment in str(err.value) and "\n" not in str(err.value)


def test_train_and_replay_sections_load_from_yaml(tmp_path):
    from catena_zero.config import load_config

    path = tmp_path / "run.yaml"
    path.write_text("train: {optimizer: adamw, learning_rate: 0.001}\nreplay: {capacity: 5000, train_ratio: 2}\n")
    cfg = load_config(path)
    assert cfg.train.optimizer == "adamw" and cfg.train.learning_rate == 0.001 and cfg.train.batch_size == 256
    assert cfg.replay.capacity == 5000 and cfg.replay.train_ratio == 2.0


def test_weight_average_by_hand(batch):
    config = dataclasses.replace(FAST, ema_decay=0.9)
    a = learner(config)
    assert [a.average_decay(s) for s in (1, 2, 100)] == [pytest.approx(0.1), pytest.approx(2 / 11), 0.9]
    start = a.weights()
    assert all(torch.equal(start[k], v) for k, v in a.averaged_weights().items())  # no step yet: the start
    a.step(batch)
    after_one = a.weights()
    a.step(batch)
    after_two = a.weights()
    d1, d2 = a.average_decay(1), a.average_decay(2)
    average = a.averaged_weights()
    for name, value in average.items():
        if not value.is_floating_point():
            assert torch.equal(value, after_two[name])  # counters are copied
            continue
        expected = d2 * (d1 * start[name] + (1 - d1) * after_one[name]) + (1 - d2) * after_two[name]
        assert torch.allclose(value, expected, atol=1e-6), name
    assert not all(torch.equal(average[k], after_two[k]) for k in average if average[k].is_floating_point())
    # Off: the average is the raw weights.
    b = learner()
    b.step(batch)
    assert all(torch.equal(v, b.weights()[k]) for k, v in b.averaged_weights().items())


def test_weight_average_survives_a_checkpoint(batch):
    config = dataclasses.replace(FAST, ema_decay=0.9)
    a = learner(config)
    for _ in range(3):
        a.step(batch)
    buffer = io.BytesIO()
    torch.save(a.state_dict(), buffer)
    buffer.seek(0)
    b = learner(config, seed=5)
    b.load_state_dict(torch.load(buffer, weights_only=True))
    for k, v in a.averaged_weights().items():
        assert torch.equal(v, b.averaged_weights()[k]), k
    a.step(batch), b.step(batch)
    for k, v in a.averaged_weights().items():
        assert torch.equal(v, b.averaged_weights()[k]), k


@pytest.mark.skipif(torch.cuda.device_count() > 99, reason="needs a machine without a 100th CUDA device")
def test_an_absent_learner_device_is_an_error_naming_train_device():
    from catena_zero.errors import UserError

    with pytest.raises(UserError) as err:
        Learner(TINY, dataclasses.replace(FAST, device="cuda:99"))
    assert str(err.value).startswith("train.device is 'cuda:99' but") and "\n" not in str(err.value)


@pytest.mark.slow
def test_a_compiled_training_step_trains_the_same_network(batch):
    """train.compile: the compiled forward (and backward) gives the uncompiled step's losses and weights.
    SGD, not AdamW: Adam's normalised step moves a weight whose gradient is ~0 by +-lr on the sign of
    its float rounding, which would hide a real difference in that noise."""
    sgd = dataclasses.replace(FAST, optimizer="sgd", learning_rate=0.05)
    plain, compiled = learner(sgd), learner(dataclasses.replace(sgd, compile=True))
    for _ in range(2):
        a, b = plain.step(batch), compiled.step(batch)
        assert b.total == pytest.approx(a.total, rel=1e-4, abs=1e-5)
    for (name, x), y in zip(plain.model.state_dict().items(), compiled.model.state_dict().values()):
        assert torch.allclose(x.float(), y.float(), rtol=1e-3, atol=1e-4), name
