"""The learner: the network, its optimiser and learning-rate schedule, one training step per batch.

The driver samples a ``replay.Batch``, calls ``Learner.step`` (one optimiser step, returns the
loss floats), publishes ``averaged_weights()`` to the self-play actors now and then, and checkpoints
``state_dict()`` (model, optimiser, step, the weight average; the schedule is a pure function of
the step, and under ``train.lr_decay_over_run`` of the run's progress toward its bound, which the
driver passes to each step).

With ``train.ema_decay`` > 0 the learner keeps an exponential moving average of the weights
(batch-norm statistics included), the averaged copy KataGo exports (its stochastic weight averaging):
the average of a noisy trajectory plays better than its last point. Everything outside the learner
(self-play, checkpoints' ``model``, evaluation, export) uses the average. A loss or
gradient that is not finite raises ``TrainingDiverged`` before the optimiser touches the weights,
so the weights stay those of the last good step and the run can stop on its last checkpoint.
"""

from __future__ import annotations

import contextlib
import math
from typing import Any

import torch

from ..config import NetConfig, TrainConfig
from ..errors import UserError
from ..net.device import resolve_device
from ..net.model import CatenaNet, model_from_config
from .losses import Losses, Targets, compute_losses, weight_penalty
from .replay import Batch, BatchPart

STATE_FORMAT = "catena-zero-learner"
STATE_VERSION = 1


class TrainingDiverged(UserError, RuntimeError):
    """A loss or gradient became NaN or infinite (one-line message naming the step and the terms).

    A ``UserError``: the settings cause it and the user fixes it (a lower learning rate, a smaller
    ``train.max_grad_norm``), so it is not reported as a bug; still a ``RuntimeError`` for old callers."""


def learning_rate(config: TrainConfig, step: int, run_progress: float = 0.0) -> float:
    """The learning rate of optimiser step ``step`` (0-based): linear warmup, then the schedule.

    ``run_progress``: the run's progress toward its bound, 0..1 (``train.lr_decay_over_run``,
    ``train.anneal_share``)."""
    rate = _scheduled_rate(config, step, run_progress)
    share = config.anneal_share
    if share > 0 and run_progress > 1.0 - share:  # the annealed finish: linear to lr_decay_factor
        into = min(1.0, (run_progress - (1.0 - share)) / share)
        rate *= 1.0 - (1.0 - config.lr_decay_factor) * into
    return rate


def _scheduled_rate(config: TrainConfig, step: int, run_progress: float) -> float:
    peak = config.learning_rate
    if step < config.warmup_steps:
        return peak * (step + 1) / config.warmup_steps
    t = step - config.warmup_steps
    if config.lr_schedule == "constant":
        return peak
    if config.lr_schedule == "cosine":
        floor = config.lr_decay_factor
        progress = min(1.0, run_progress if config.lr_decay_over_run else t / config.lr_decay_steps)
        return peak * (floor + (1.0 - floor) * 0.5 * (1.0 + math.cos(math.pi * progress)))
    return peak * config.lr_decay_factor ** (t // config.lr_decay_steps)  # "step" (AlphaZero's drops)


def _decays(name: str, parameter: torch.nn.Parameter) -> bool:
    """Weight decay on conv and linear weights only, not on biases or batch-norm scales (KataGo)."""
    return parameter.ndim >= 2


class Learner:
    """Owns the model and optimiser; ``step(batch)`` trains on one batch."""

    def __init__(self, net_config: NetConfig, config: TrainConfig, generator: torch.Generator | None = None,
                 model: CatenaNet | None = None) -> None:
        self.config = config
        self.net_config = net_config
        self.device = resolve_device(config.device, "train.device")
        self.model = (model if model is not None else model_from_config(net_config, generator=generator)).to(self.device)
        # train.compile: the same module compiled (its parameters are the model's own)
        self._forward = torch.compile(self.model) if config.compile else self.model
        named = [(n, p) for n, p in self.model.named_parameters() if p.requires_grad]
        self._decayed = [p for n, p in named if _decays(n, p)]
        groups = [
            {"params": self._decayed, "weight_decay": config.weight_decay},
            {"params": [p for n, p in named if not _decays(n, p)], "weight_decay": 0.0},
        ]
        self._run_progress = 0.0  # of the last step (train.lr_decay_over_run)
        lr = learning_rate(config, 0)
        if config.optimizer == "sgd":
            self.optimizer: torch.optim.Optimizer = torch.optim.SGD(groups, lr=lr, momentum=config.momentum)
        else:
            self.optimizer = torch.optim.AdamW(groups, lr=lr, betas=(config.momentum, 0.999))
        self._step = 0
        self.last_grad_norm = 0.0  # of the last step, before clipping (logged)
        # [buffer] the batch-norm statistics before a step, allocated once (load_state_dict copies in place)
        self._saved_buffers = [b.detach().clone() for b in self.model.buffers()]
        # The moving average of the model's state (on its device), None when train.ema_decay is 0.
        self._average: dict[str, torch.Tensor] | None = (
            {k: v.detach().clone() for k, v in self.model.state_dict().items()} if config.ema_decay > 0 else None)

    def learning_rate(self, run_progress: float | None = None) -> float:
        """The rate the next step uses (at the run progress of the last step unless given)."""
        return learning_rate(self.config, self._step, self._run_progress if run_progress is None else run_progress)

    def _autocast(self) -> contextlib.AbstractContextManager:
        if self.device.type != "cuda" or not self.config.mixed_precision:
            return contextlib.nullcontext()
        dtype = torch.bfloat16 if torch.cuda.is_bf16_supported() else torch.float16
        return torch.autocast(device_type="cuda", dtype=dtype)

    def _tensor(self, array) -> torch.Tensor:
        return torch.from_numpy(array).to(self.device, non_blocking=True)

    def _targets(self, part: BatchPart) -> Targets:
        return Targets(policy=self._tensor(part.policy), has_policy=self._tensor(part.has_policy),
                       value=self._tensor(part.value), score=self._tensor(part.score),
                       ownership=self._tensor(part.ownership), weight=self._tensor(part.weight))

    def losses(self, batch: Batch) -> Losses:
        """Loss tensors of ``batch`` in the model's current mode (one forward per part), no step."""
        pairs = []
        for part in batch.parts:
            with self._autocast():
                out = self._forward(self._tensor(part.planes), self._tensor(part.globals))
            pairs.append((out, self._targets(part)))
        return compute_losses(pairs, self.config)

    def weight_penalty(self) -> float:
        """(weight_decay / 2) * |w|^2 of the decayed weights: what the optimiser's decay pulls on (logged)."""
        return float(weight_penalty(self._decayed, self.config.weight_decay))

    def step(self, batch: Batch, run_progress: float = 0.0) -> Losses:
        """One optimiser step on ``batch``; returns its losses as floats. ``run_progress`` (0..1, the
        run's progress toward its bound) sets the rate under ``train.lr_decay_over_run``.

        Raises ``TrainingDiverged`` (weights untouched) when a loss or the gradient is NaN or inf.
        """
        if batch.size == 0:
            raise ValueError("cannot train on an empty batch")
        self.model.train()
        self._run_progress = run_progress
        lr = learning_rate(self.config, self._step, run_progress)
        for group in self.optimizer.param_groups:
            group["lr"] = lr
        # Batch-norm running statistics change in the forward pass: keep them to undo a bad step
        # (into buffers allocated once, not a fresh clone of each every step).
        self._save_buffers()
        losses = self.losses(batch)
        if not losses.is_finite():
            self._restore_buffers()
            terms = ", ".join(f"{name}={value:.4g}" for name, value in losses.items())
            raise TrainingDiverged(f"training diverged at step {self._step}: a loss is not finite ({terms})")
        self.optimizer.zero_grad(set_to_none=True)
        losses.total.backward()
        params = [p for g in self.optimizer.param_groups for p in g["params"]]
        max_norm = self.config.max_grad_norm if self.config.max_grad_norm > 0 else math.inf
        grad_norm = float(torch.nn.utils.clip_grad_norm_(params, max_norm))
        if not math.isfinite(grad_norm):
            self.optimizer.zero_grad(set_to_none=True)
            self._restore_buffers()
            raise TrainingDiverged(f"training diverged at step {self._step}: the gradient norm is {grad_norm} "
                                   f"(total loss {float(losses.total.detach()):.4g})")
        self.optimizer.step()
        self._step += 1
        self.last_grad_norm = grad_norm
        self._update_average()
        return losses.floats()

    def average_decay(self, step: int) -> float:
        """The EMA decay after optimiser step ``step`` (1-based): min(ema_decay, (1 + t) / (10 + t)),
        t = step - 1, so the first steps do not leave the average stuck at the random start."""
        t = step - 1
        return min(self.config.ema_decay, (1.0 + t) / (10.0 + t))

    def _update_average(self) -> None:
        if self._average is None:
            return
        decay = self.average_decay(self._step)
        with torch.no_grad():
            for name, value in self.model.state_dict().items():
                average = self._average[name]
                if average.is_floating_point():
                    average.mul_(decay).add_(value.detach(), alpha=1.0 - decay)
                else:  # counters (batch-norm's num_batches_tracked) are copied
                    average.copy_(value)

    def _save_buffers(self) -> None:
        with torch.no_grad():
            torch._foreach_copy_(self._saved_buffers, list(self.model.buffers()))

    def _restore_buffers(self) -> None:
        with torch.no_grad():
            torch._foreach_copy_(list(self.model.buffers()), self._saved_buffers)

    # ------------------------------------------------------------------ checkpoints and publishing
    def weights(self) -> dict[str, torch.Tensor]:
        """A CPU copy of the model's state dict (the raw weights the optimiser trains)."""
        return {k: v.detach().to("cpu", copy=True) for k, v in self.model.state_dict().items()}

    def averaged_weights(self) -> dict[str, torch.Tensor]:
        """A CPU copy of the weights the rest of the run uses: the moving average when
        ``train.ema_decay`` > 0, else the raw weights."""
        if self._average is None:
            return self.weights()
        return {k: v.detach().to("cpu", copy=True) for k, v in self._average.items()}

    def state_dict(self) -> dict[str, Any]:
        """Model, optimiser and step: tensors and plain values only (``torch.load(weights_only=True)``)."""
        return {
            "format": STATE_FORMAT,
            "version": STATE_VERSION,
            "step": self._step,
            "optimizer_name": self.config.optimizer,
            "model": self.weights(),
            "optimizer": self.optimizer.state_dict(),
            **({"average": self.averaged_weights()} if self._average is not None else {}),
        }

    def load_state_dict(self, state: dict[str, Any]) -> None:
        """Restore ``state_dict()``; ValueError (one line) when it does not fit this learner."""
        if not isinstance(state, dict) or state.get("format") != STATE_FORMAT:
            raise UserError("not a catena-zero learner state")
        if state.get("version") != STATE_VERSION:
            raise UserError(f"learner state version {state.get('version')!r}; this catena-zero reads {STATE_VERSION}")
        if state.get("optimizer_name") != self.config.optimizer:
            raise UserError(f"learner state was saved with optimizer {state.get('optimizer_name')!r}, "
                            f"this learner uses {self.config.optimizer!r}")
        try:
            self.model.load_state_dict(state["model"])
            self.optimizer.load_state_dict(state["optimizer"])
            if self._average is not None:  # a state saved without an average starts one from its weights
                saved = state.get("average", state["model"])
                missing = set(self._average) ^ set(saved)
                if missing:
                    raise KeyError(f"weight average keys differ: {sorted(missing)[:3]}")
                for name, average in self._average.items():
                    average.copy_(saved[name])
        except (RuntimeError, ValueError, KeyError) as exc:
            first = str(exc).strip().splitlines()[0][:200] if str(exc).strip() else type(exc).__name__
            raise UserError(f"learner state does not fit this network or optimiser: {first}") from None
        self._step = int(state["step"])
