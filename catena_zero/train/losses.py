"""Training losses as a typed record (AlphaZero's policy and value terms plus KataGo's auxiliary targets).

Shape legend: B samples of one forward pass, A actions (N cells, then the button), N cells.

Each term is a weighted mean over samples, each sample counting with its ``weight`` (lower after a
soft resignation, KataGo); the value, score and ownership terms further weight cheap-search samples
(no policy target) by ``train.cheap_value_weight`` (KataGo 2019 sec. 3.1 trains on full searches only):
    policy     cross-entropy -sum_a pi_a log p_a to the search policy, over full-search positions
               only (``has_policy``; playout cap randomisation, KataGo 2019 sec. 3.1)
    value      win/draw/loss cross-entropy to the game's outcome (KataGo; AlphaZero used an MSE)
    score      Huber on the final margin / ``features.score_scale``, the unit of the score head
    ownership  per-cell cross-entropy between (1 + target) / 2 and (1 + ownership) / 2 (the tanh
               output read as a probability, KataGo's ownership loss), mean over the board's cells
    total      the sum of the four, weighted by ``TrainConfig`` (KataGo's relative weights)
Weight decay is applied by the optimiser (``learner.py``), not in ``total``; ``weight_penalty`` is
its penalty (weight_decay / 2) * |w|^2, which the run's log reads every 10 steps (not every step:
it reads every weight).

A batch of several board sides runs one forward pass per side; ``compute_losses`` takes them all
and averages over the whole batch, so mixing sides does not change the loss of a sample.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Iterable, Iterator, Sequence, Union

import torch
import torch.nn.functional as F

from ..config import TrainConfig
from ..net.model import NetOutput

Scalar = Union[torch.Tensor, float]

# (1 + ownership) / 2 is kept this far from 0 and 1, so the log stays finite when tanh saturates.
OWNERSHIP_EPS = 1e-6


@dataclass(frozen=True)
class Targets:
    """Training targets of one forward pass (``replay.BatchPart`` as tensors on the model's device)."""

    policy: torch.Tensor  # [B, A] float search policy, rows sum to 1 (0 where not has_policy)
    has_policy: torch.Tensor  # [B] bool
    value: torch.Tensor  # [B] int64 class of the outcome: 0 win, 1 draw, 2 loss (wdl_logits order)
    score: torch.Tensor  # [B] float margin / score_scale
    ownership: torch.Tensor  # [B, N] float +1 / 0 / -1
    weight: torch.Tensor  # [B] float


@dataclass(frozen=True)
class Losses:
    """Loss terms of a batch: tensors from ``compute_losses``, floats from ``floats()``."""

    total: Scalar  # weighted sum of the four terms below (what is back-propagated)
    policy: Scalar
    value: Scalar
    score: Scalar
    ownership: Scalar

    def floats(self) -> Losses:
        """The same record with Python floats (detached), for logging."""
        return Losses(**{name: value for name, value in self.items()})

    def items(self) -> Iterator[tuple[str, float]]:
        """(name, value) pairs, e.g. for TensorBoard tags ``loss/<name>``."""
        for f in fields(self):
            value = getattr(self, f.name)
            yield f.name, float(value.detach()) if isinstance(value, torch.Tensor) else float(value)

    def is_finite(self) -> bool:
        return all(torch.isfinite(torch.as_tensor(getattr(self, f.name))).all() for f in fields(self))


def policy_cross_entropy(logits: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    """[B] -sum_a target_a log softmax(logits)_a."""
    return -(target * F.log_softmax(logits, dim=-1)).sum(dim=-1)


def ownership_cross_entropy(ownership: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    """[B] mean over cells of the binary cross-entropy of (1 + target) / 2 against (1 + ownership) / 2."""
    p = ((1.0 + ownership) / 2.0).clamp(OWNERSHIP_EPS, 1.0 - OWNERSHIP_EPS)
    q = (1.0 + target) / 2.0
    return -(q * torch.log(p) + (1.0 - q) * torch.log1p(-p)).mean(dim=-1)


def weight_penalty(parameters: Iterable[torch.Tensor], weight_decay: float) -> torch.Tensor:
    """(weight_decay / 2) * sum of squares: the penalty whose gradient SGD's weight decay adds."""
    total = None
    for p in parameters:
        square = p.detach().float().pow(2).sum()
        total = square if total is None else total + square
    if total is None:
        return torch.zeros(())
    return 0.5 * weight_decay * total


def compute_losses(pairs: Sequence[tuple[NetOutput, Targets]], config: TrainConfig) -> Losses:
    """Losses over all forward passes of a batch (each pair: a pass's output and its targets)."""
    if not pairs:
        raise ValueError("compute_losses needs at least one (output, targets) pair")
    sums = {"policy": 0.0, "value": 0.0, "score": 0.0, "ownership": 0.0}
    weight_sum, policy_weight_sum = 0.0, 0.0
    for out, t in pairs:
        b = t.weight.shape[0]
        assert out.policy_logits.shape == t.policy.shape, (out.policy_logits.shape, t.policy.shape)
        assert out.ownership.shape == t.ownership.shape and out.score.shape == (b,) and out.wdl_logits.shape == (b, 3)
        w = t.weight.float()
        pw = w * t.has_policy.float()
        if config.cheap_value_weight != 1.0:  # value-type targets of cheap-search positions
            w = torch.where(t.has_policy, w, w * config.cheap_value_weight)
        # Samples without a policy target may hold anything there: zero them before the product.
        policy_target = torch.where(t.has_policy[:, None], t.policy.float(), torch.zeros_like(t.policy, dtype=torch.float32))
        sums["policy"] = sums["policy"] + (pw * policy_cross_entropy(out.policy_logits.float(), policy_target)).sum()
        sums["value"] = sums["value"] + (w * F.cross_entropy(out.wdl_logits.float(), t.value, reduction="none")).sum()
        huber = F.huber_loss(out.score.float(), t.score.float(), reduction="none", delta=config.score_huber_delta)
        sums["score"] = sums["score"] + (w * huber).sum()
        sums["ownership"] = sums["ownership"] + (w * ownership_cross_entropy(out.ownership.float(), t.ownership.float())).sum()
        weight_sum = weight_sum + w.sum()
        policy_weight_sum = policy_weight_sum + pw.sum()
    denominator = torch.clamp(torch.as_tensor(weight_sum), min=1e-12)
    policy = sums["policy"] / torch.clamp(torch.as_tensor(policy_weight_sum), min=1e-12)
    value = sums["value"] / denominator
    score = sums["score"] / denominator
    ownership = sums["ownership"] / denominator
    total = (config.policy_weight * policy + config.value_weight * value
             + config.score_weight * score + config.ownership_weight * ownership)
    return Losses(total=total, policy=policy, value=value, score=score, ownership=ownership)
