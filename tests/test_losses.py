"""Losses (train/losses.py) on small cases worked by hand."""

from __future__ import annotations

import dataclasses
import math

import pytest
import torch

from catena_zero.config import TrainConfig
from catena_zero.net.model import NetOutput
from catena_zero.train.losses import Losses, Targets, compute_losses, ownership_cross_entropy, weight_penalty

LN2, LN3 = math.log(2.0), math.log(3.0)
ONLY = dict(policy_weight=0.0, value_weight=0.0, score_weight=0.0, ownership_weight=0.0)


def config(**weights) -> TrainConfig:
    return TrainConfig(**{**ONLY, **weights})


def output(policy, wdl=None, score=None, ownership=None) -> NetOutput:
    policy = torch.tensor(policy, dtype=torch.float32)
    b = policy.shape[0]
    return NetOutput(
        policy_logits=policy,
        wdl_logits=torch.zeros(b, 3) if wdl is None else torch.tensor(wdl, dtype=torch.float32),
        score=torch.zeros(b) if score is None else torch.tensor(score, dtype=torch.float32),
        ownership=torch.zeros(b, 2) if ownership is None else torch.tensor(ownership, dtype=torch.float32),
    )


def targets(policy, has_policy, value=None, score=None, ownership=None, weight=None) -> Targets:
    policy = torch.tensor(policy, dtype=torch.float32)
    b = policy.shape[0]
    return Targets(
        policy=policy,
        has_policy=torch.tensor(has_policy),
        value=torch.zeros(b, dtype=torch.int64) if value is None else torch.tensor(value),
        score=torch.zeros(b) if score is None else torch.tensor(score, dtype=torch.float32),
        ownership=torch.zeros(b, 2) if ownership is None else torch.tensor(ownership, dtype=torch.float32),
        weight=torch.ones(b) if weight is None else torch.tensor(weight, dtype=torch.float32),
    )


def test_policy_cross_entropy_on_full_search_positions_only():
    out = output([[0.0, 0.0], [5.0, -3.0], [0.0, math.log(3.0)]])
    # sample 0: uniform prediction, target [1, 0] -> ln 2; sample 1 has no policy target (garbage
    # in it is ignored); sample 2: prediction [1/4, 3/4], target [1/2, 1/2] -> -(ln 1/4 + ln 3/4) / 2
    t = targets([[1.0, 0.0], [0.3, 0.9], [0.5, 0.5]], [True, False, True], weight=[1.0, 7.0, 2.0])
    ce2 = -(math.log(0.25) + math.log(0.75)) / 2
    losses = compute_losses([(out, t)], config(policy_weight=1.0))
    assert float(losses.policy) == pytest.approx((1.0 * LN2 + 2.0 * ce2) / 3.0, rel=1e-6)
    assert float(losses.total) == pytest.approx(float(losses.policy))
    none = compute_losses([(out, dataclasses.replace(t, has_policy=torch.zeros(3, dtype=torch.bool)))], config())
    assert float(none.policy) == 0.0


def test_win_draw_loss_cross_entropy():
    out = output([[0.0, 0.0]] * 3, wdl=[[0.0, 0.0, 0.0], [math.log(2.0), 0.0, 0.0], [0.0, 0.0, math.log(2.0)]])
    # uniform -> ln 3 for any class; [2, 1, 1] / 4 -> win has 1/2 (ln 2); draw under [1, 1, 2] / 4 -> ln 4
    t = targets([[1.0, 0.0]] * 3, [True] * 3, value=[2, 0, 1], weight=[1.0, 1.0, 2.0])
    losses = compute_losses([(out, t)], config(value_weight=1.5))
    expected = (LN3 + LN2 + 2.0 * math.log(4.0)) / 4.0
    assert float(losses.value) == pytest.approx(expected, rel=1e-6)
    assert float(losses.total) == pytest.approx(1.5 * expected, rel=1e-6)


def test_score_huber_on_the_normalised_margin():
    out = output([[0.0, 0.0]] * 3, score=[0.5, 3.0, -1.0])
    t = targets([[1.0, 0.0]] * 3, [True] * 3, score=[0.0, 0.0, -1.0])
    # delta 1: |0.5| <= 1 -> 0.5 * 0.25 = 0.125; |3| > 1 -> 1 * (3 - 0.5) = 2.5; exact -> 0
    losses = compute_losses([(out, t)], config(score_weight=0.5))
    assert float(losses.score) == pytest.approx((0.125 + 2.5 + 0.0) / 3.0, rel=1e-6)
    assert float(losses.total) == pytest.approx(0.5 * (2.625 / 3.0), rel=1e-6)
    # delta 2: |3| -> 2 * (3 - 1) = 4
    wide = compute_losses([(out, t)], config(score_huber_delta=2.0))
    assert float(wide.score) == pytest.approx((0.125 + 4.0) / 3.0, rel=1e-6)


def test_ownership_cross_entropy_per_cell():
    own = torch.tensor([[0.0, 0.5], [0.0, -0.5]])
    tgt = torch.tensor([[1.0, 1.0], [0.0, 1.0]])
    # (1+o)/2 = [0.5, 0.75] vs [1, 1]: (ln 2 - ln 0.75) / 2;  [0.5, 0.25] vs [1/2, 1]: (ln 2 + ln 4) / 2
    per_sample = ownership_cross_entropy(own, tgt)
    assert per_sample.tolist() == pytest.approx([(LN2 - math.log(0.75)) / 2, (LN2 + math.log(4.0)) / 2], rel=1e-6)
    out = output([[0.0, 0.0]] * 2, ownership=own.tolist())
    t = targets([[1.0, 0.0]] * 2, [True] * 2, ownership=tgt.tolist(), weight=[3.0, 1.0])
    losses = compute_losses([(out, t)], config(ownership_weight=1.5))
    expected = (3.0 * per_sample[0] + per_sample[1]) / 4.0
    assert float(losses.ownership) == pytest.approx(float(expected), rel=1e-6)
    # a saturated tanh stays finite (clamped), and so does its gradient
    sat = torch.tensor([[1.0, -1.0]], requires_grad=True)
    value = ownership_cross_entropy(sat, torch.tensor([[-1.0, -1.0]]))
    value.sum().backward()
    assert torch.isfinite(value).all() and torch.isfinite(sat.grad).all()


def test_total_weights_the_terms_and_parts_average_over_the_whole_batch():
    # Two forward passes of different sides (A = 2 and A = 3): the batch loss is the mean over all samples.
    out_a = output([[0.0, 0.0]], wdl=[[0.0, 0.0, 0.0]], score=[2.0], ownership=[[0.0, 0.0]])
    t_a = targets([[1.0, 0.0]], [True], value=[0], score=[0.0], ownership=[[1.0, -1.0]])
    out_b = NetOutput(policy_logits=torch.zeros(1, 3), wdl_logits=torch.zeros(1, 3), score=torch.zeros(1),
                      ownership=torch.zeros(1, 3))
    t_b = Targets(policy=torch.tensor([[0.0, 0.0, 1.0]]), has_policy=torch.tensor([True]), value=torch.tensor([1]),
                  score=torch.tensor([0.0]), ownership=torch.zeros(1, 3), weight=torch.tensor([1.0]))
    cfg = TrainConfig(policy_weight=1.0, value_weight=1.5, score_weight=0.5, ownership_weight=1.5)
    losses = compute_losses([(out_a, t_a), (out_b, t_b)], cfg)
    policy = (LN2 + LN3) / 2
    value = LN3
    score = (1.5 + 0.0) / 2  # Huber(2) with delta 1 = 1.5
    ownership = LN2  # o = 0 gives ln 2 per cell whatever the target
    assert float(losses.policy) == pytest.approx(policy, rel=1e-6)
    assert float(losses.value) == pytest.approx(value, rel=1e-6)
    assert float(losses.score) == pytest.approx(score, rel=1e-6)
    assert float(losses.ownership) == pytest.approx(ownership, rel=1e-6)
    assert float(losses.total) == pytest.approx(policy + 1.5 * value + 0.5 * score + 1.5 * ownership, rel=1e-6)


def test_weight_penalty_is_half_decay_times_the_squared_norm():
    params = [torch.tensor([[1.0, 2.0]]), torch.tensor([[[3.0]]])]
    assert float(weight_penalty(params, 0.1)) == pytest.approx(0.5 * 0.1 * (1 + 4 + 9))
    assert float(weight_penalty([], 0.1)) == 0.0


def test_losses_record_floats_and_items():
    out = output([[0.0, 0.0]])
    losses = compute_losses([(out, targets([[1.0, 0.0]], [True]))], config(policy_weight=1.0))
    floats = losses.floats()
    assert isinstance(floats, Losses) and all(isinstance(v, float) for _, v in floats.items())
    assert dict(floats.items())["policy"] == pytest.approx(LN2)
    assert [name for name, _ in floats.items()] == ["total", "policy", "value", "score", "ownership"]
    assert floats.is_finite()
    assert not dataclasses.replace(floats, value=float("nan")).is_finite()


def test_cheap_search_positions_weigh_their_value_targets_by_cheap_value_weight():
    # Sample 0 has a full search (policy target), sample 1 a cheap one. WDL logits 0: every class
    # ln 3; sample 0's outcome is a win, sample 1's too but its logits favour a loss by ln 2 more.
    out = output([[0.0, 0.0], [0.0, 0.0]], wdl=[[0.0, 0.0, 0.0], [0.0, 0.0, LN2]])
    t = targets([[1.0, 0.0], [0.0, 0.0]], [True, False], value=[0, 0], weight=[1.0, 1.0])
    ce1 = -math.log(1.0 / 4.0)  # softmax([0, 0, ln 2]) = [1/4, 1/4, 1/2]
    full = compute_losses([(out, t)], config(value_weight=1.0, cheap_value_weight=1.0))
    assert float(full.value) == pytest.approx((LN3 + ce1) / 2, rel=1e-6)
    none = compute_losses([(out, t)], config(value_weight=1.0, cheap_value_weight=0.0))
    assert float(none.value) == pytest.approx(LN3, rel=1e-6)
    quarter = compute_losses([(out, t)], config(value_weight=1.0, cheap_value_weight=0.25))
    assert float(quarter.value) == pytest.approx((LN3 + 0.25 * ce1) / 1.25, rel=1e-6)
