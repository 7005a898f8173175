"""Configuration: one frozen dataclass per component, composed into ``Config``, loaded from YAML.

Every field has a documented default; unknown keys and bad values raise ``ConfigError``
with a one-line message naming the offending key. Loading has no side effects.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional

from .game.options import GameConfig


class ConfigError(ValueError):
    """A configuration file or value is invalid (the message names the key)."""


def _check(cond: bool, message: str) -> None:
    if not cond:
        raise ConfigError(message)


@dataclass(frozen=True)
class NetConfig:
    """Residual tower over hex planes with KataGo-style global pooling (net/model.py)."""

    blocks: int = 6  # residual blocks; AlphaZero used 20-40, small towers suit CPU training
    channels: int = 64  # trunk width; AlphaZero 256
    global_pool_every: int = 3  # every k-th block has a global pooling branch (KataGo 2019, sec. 3)
    head_channels: int = 32  # channels of the policy / value head convolutions
    value_hidden: int = 128  # hidden units of the value, score and global heads
    symmetry_average: bool = False  # average inference over the 12 board symmetries
    device: str = "auto"  # "auto" = CUDA when available, else CPU; or "cpu", "cuda", "cuda:1"
    mixed_precision: bool = True  # bfloat16/float16 autocast on CUDA only; CPU always float32

    def __post_init__(self) -> None:
        _check(self.blocks >= 1, f"net.blocks must be >= 1, got {self.blocks}")
        _check(self.channels >= 8, f"net.channels must be >= 8, got {self.channels}")
        _check(self.global_pool_every >= 0, f"net.global_pool_every must be >= 0, got {self.global_pool_every}")
        _check(self.head_channels >= 1, f"net.head_channels must be >= 1, got {self.head_channels}")
        _check(self.value_hidden >= 1, f"net.value_hidden must be >= 1, got {self.value_hidden}")
        _check(
            self.device == "auto" or self.device == "cpu" or self.device.startswith("cuda"),
            f"net.device must be 'auto', 'cpu' or 'cuda[:i]', got {self.device!r}",
        )


@dataclass(frozen=True)
class SearchConfig:
    """Batched MCTS (search/). Defaults follow AlphaZero (PUCT) and mctx (Gumbel)."""

    algorithm: str = "gumbel"  # "gumbel" (Danihelka et al. 2022) or "puct" (AlphaZero)
    num_simulations: int = 32  # Gumbel improves the policy with as few as 8-32 simulations
    # PUCT (AlphaZero pseudocode): c(s) = log((1 + N + c_base) / c_base) + c_init
    c_puct_init: float = 1.25
    c_puct_base: float = 19652.0
    dirichlet_alpha: Optional[float] = None  # None = 10 / number of legal moves (DESIGN.md sec. 3)
    dirichlet_fraction: float = 0.25  # root noise mixing in self-play (AlphaZero)
    temperature: float = 1.0  # move sampling temperature for the first temperature_moves moves
    temperature_moves: int = 8  # afterwards the most visited action is played
    # Gumbel: considered root actions (mctx max_num_considered_actions = 16), and
    # sigma(q) = (c_visit + max N) * c_scale * q_hat (paper eq. 8; mctx maxvisit_init = 50 and
    # value_scale = 0.1: with q_hat min-max rescaled to [0, 1], the paper's c_scale = 1 lets q
    # swamp the prior logits after a handful of visits, so we take mctx's 0.1)
    gumbel_num_considered: int = 16
    gumbel_c_visit: float = 50.0
    gumbel_c_scale: float = 0.1
    tree_reuse: bool = True  # keep the chosen child's subtree for the next move

    def __post_init__(self) -> None:
        _check(self.algorithm in ("gumbel", "puct"), f"search.algorithm must be 'gumbel' or 'puct', got {self.algorithm!r}")
        _check(self.num_simulations >= 1, f"search.num_simulations must be >= 1, got {self.num_simulations}")
        _check(self.c_puct_init > 0, f"search.c_puct_init must be > 0, got {self.c_puct_init}")
        _check(self.c_puct_base > 0, f"search.c_puct_base must be > 0, got {self.c_puct_base}")
        _check(
            self.dirichlet_alpha is None or self.dirichlet_alpha > 0,
            f"search.dirichlet_alpha must be > 0 or null, got {self.dirichlet_alpha}",
        )
        _check(0 <= self.dirichlet_fraction <= 1, f"search.dirichlet_fraction must be in [0, 1], got {self.dirichlet_fraction}")
        _check(self.temperature >= 0, f"search.temperature must be >= 0, got {self.temperature}")
        _check(self.temperature_moves >= 0, f"search.temperature_moves must be >= 0, got {self.temperature_moves}")
        _check(self.gumbel_num_considered >= 1, f"search.gumbel_num_considered must be >= 1, got {self.gumbel_num_considered}")
        _check(self.gumbel_c_visit > 0, f"search.gumbel_c_visit must be > 0, got {self.gumbel_c_visit}")
        _check(self.gumbel_c_scale > 0, f"search.gumbel_c_scale must be > 0, got {self.gumbel_c_scale}")


@dataclass(frozen=True)
class ReplayConfig:
    """Replay buffer (train/replay.py): a ring of compact positions, a growing window, a replay ratio.

    The window follows KataGo's power law (Wu 2019, appendix; python/shuffle.py): with N positions
    generated, training samples the newest ``c * (1 + beta * ((N / c)**alpha - 1) / alpha)`` of them
    (all N while N <= c), so early, bad data leaves the window quickly while the window keeps growing.
    """

    capacity: int = 1_000_000  # positions held (ring); AlphaZero kept the newest 1M games (pseudocode)
    window_min: int = 50_000  # c: the window is all data up to c positions; KataGo c = 250,000 (19x19 Go)
    window_alpha: float = 0.75  # alpha: the window grows as N**alpha; KataGo 0.75
    window_beta: float = 0.4  # beta: window growth per new position at N = c; KataGo 0.4
    min_positions: int = 5_000  # no training until the buffer holds this many; KataGo waits for c rows
    # Samples the learner may train per position added (KataGo train.py -max-train-bucket-per-new-data 4;
    # AlphaZero trained each position about once). The allowance is a bucket: each new position adds
    # train_ratio samples, each trained sample takes one out.
    train_ratio: float = 4.0
    # Most samples the bucket can hold: a learner that fell behind does not burst to catch up
    # (KataGo -max-train-bucket-size; its synchronous loop uses 500,000).
    max_credit: int = 100_000
    symmetries: bool = True  # each sample gets one of the 12 board symmetries at random (AlphaGo Zero: Go's 8; AlphaZero none)

    def __post_init__(self) -> None:
        _check(self.capacity >= 1, f"replay.capacity must be >= 1, got {self.capacity}")
        _check(self.window_min >= 1, f"replay.window_min must be >= 1, got {self.window_min}")
        _check(0 < self.window_alpha <= 1, f"replay.window_alpha must be in (0, 1], got {self.window_alpha}")
        _check(self.window_beta >= 0, f"replay.window_beta must be >= 0, got {self.window_beta}")
        _check(self.min_positions >= 1, f"replay.min_positions must be >= 1, got {self.min_positions}")
        _check(self.train_ratio > 0, f"replay.train_ratio must be > 0, got {self.train_ratio}")
        _check(self.max_credit >= 1, f"replay.max_credit must be >= 1, got {self.max_credit}")


@dataclass(frozen=True)
class TrainConfig:
    """Learner (train/learner.py, train/losses.py): optimiser, learning-rate schedule, loss weights."""

    batch_size: int = 256  # samples per step; KataGo 256, AlphaZero 4096
    optimizer: str = "sgd"  # "sgd" (momentum, AlphaZero and KataGo) or "adamw" (set learning_rate ~1e-3)
    learning_rate: float = 0.02  # peak rate; KataGo 6e-5 per sample (0.015 at batch 256), AlphaZero 0.2 at 4096
    momentum: float = 0.9  # SGD momentum (AlphaZero, KataGo); AdamW beta1
    # L2 on conv and linear weights (not biases or batch-norm), applied by the optimiser: coupled for
    # SGD, i.e. the gradient of (weight_decay / 2) * |w|^2; decoupled for AdamW. KataGo's c * |w|^2 with
    # c = 3e-5 is weight_decay 6e-5; AlphaGo Zero's c = 1e-4 is 2e-4.
    weight_decay: float = 6e-5
    lr_schedule: str = "constant"  # "constant", "cosine" or "step", after the warmup
    warmup_steps: int = 100  # linear warmup from 0; KataGo 2019 instead trains its first 5M samples at 1/3 of the rate
    lr_decay_steps: int = 100_000  # cosine: steps after warmup to reach the floor; step: steps per drop
    lr_decay_factor: float = 0.1  # cosine: floor as a fraction of the peak; step: factor per drop (AlphaZero 0.1)
    max_grad_norm: float = 5.0  # clip the global gradient norm to this (0 = off); neither paper clips
    # Loss weights (KataGo 2019 sec. 3-4: policy 1, game outcome c_g = 1.5, ownership c_o = 1.5 / b^2
    # summed over the b^2 cells, i.e. 1.5 on the per-cell mean).
    policy_weight: float = 1.0  # cross-entropy to the search policy, full-search positions only
    value_weight: float = 1.5  # win/draw/loss cross-entropy; KataGo c_g = 1.5 (AlphaZero: MSE, weight 1)
    # Huber on margin / score_scale; KataGo 2019 learns a score distribution instead (pdf and cdf
    # terms, 0.02 each), so there is no paper value for this scalar form.
    score_weight: float = 0.5
    score_huber_delta: float = 1.0  # Huber's delta in score_scale units (15 points on standard scoring)
    ownership_weight: float = 1.5  # per-cell cross-entropy on (1 + ownership) / 2, mean over cells; KataGo 1.5
    device: str = "auto"  # learner device: "auto" = CUDA when available, else CPU; or "cpu", "cuda[:i]"
    mixed_precision: bool = True  # bfloat16 autocast of the forward pass on CUDA only; losses in float32

    def __post_init__(self) -> None:
        _check(self.batch_size >= 1, f"train.batch_size must be >= 1, got {self.batch_size}")
        _check(self.optimizer in ("sgd", "adamw"), f"train.optimizer must be 'sgd' or 'adamw', got {self.optimizer!r}")
        _check(self.learning_rate > 0, f"train.learning_rate must be > 0, got {self.learning_rate}")
        _check(0 <= self.momentum < 1, f"train.momentum must be in [0, 1), got {self.momentum}")
        _check(self.weight_decay >= 0, f"train.weight_decay must be >= 0, got {self.weight_decay}")
        _check(
            self.lr_schedule in ("constant", "cosine", "step"),
            f"train.lr_schedule must be 'constant', 'cosine' or 'step', got {self.lr_schedule!r}",
        )
        _check(self.warmup_steps >= 0, f"train.warmup_steps must be >= 0, got {self.warmup_steps}")
        _check(self.lr_decay_steps >= 1, f"train.lr_decay_steps must be >= 1, got {self.lr_decay_steps}")
        _check(0 < self.lr_decay_factor <= 1, f"train.lr_decay_factor must be in (0, 1], got {self.lr_decay_factor}")
        _check(self.max_grad_norm >= 0, f"train.max_grad_norm must be >= 0, got {self.max_grad_norm}")
        for name in ("policy_weight", "value_weight", "score_weight", "ownership_weight"):
            _check(getattr(self, name) >= 0, f"train.{name} must be >= 0, got {getattr(self, name)}")
        _check(self.score_huber_delta > 0, f"train.score_huber_delta must be > 0, got {self.score_huber_delta}")
        _check(
            self.device == "auto" or self.device == "cpu" or self.device.startswith("cuda"),
            f"train.device must be 'auto', 'cpu' or 'cuda[:i]', got {self.device!r}",
        )


@dataclass(frozen=True)
class Config:
    """Root configuration, one section per component."""

    game: GameConfig = field(default_factory=GameConfig)
    net: NetConfig = field(default_factory=NetConfig)
    search: SearchConfig = field(default_factory=SearchConfig)
    replay: ReplayConfig = field(default_factory=ReplayConfig)
    train: TrainConfig = field(default_factory=TrainConfig)
    seed: int = 0  # root of every np.random.Generator / torch.Generator of a run


def _coerce(value: Any, annotation: Any, key: str) -> Any:
    """Check a YAML scalar against a field's type (ints for int fields, etc.)."""
    if isinstance(annotation, str):
        annotation = eval(annotation, {"Optional": Optional}, {})  # from __future__ annotations
    origin = typing.get_origin(annotation)
    if origin in (typing.Union, types.UnionType):
        args = typing.get_args(annotation)
        if value is None and type(None) in args:
            return None
        annotation = next(a for a in args if a is not type(None))
    if annotation is bool:
        _check(isinstance(value, bool), f"{key} must be true or false, got {value!r}")
    elif annotation is int:
        _check(isinstance(value, int) and not isinstance(value, bool), f"{key} must be an integer, got {value!r}")
    elif annotation is float:
        _check(isinstance(value, (int, float)) and not isinstance(value, bool), f"{key} must be a number, got {value!r}")
        value = float(value)
    elif annotation is str:
        _check(isinstance(value, str), f"{key} must be a string, got {value!r}")
    return value


def _build(cls: type, data: Any, prefix: str) -> Any:
    _check(isinstance(data, dict), f"{prefix.rstrip('.') or 'config'} must be a mapping, got {type(data).__name__}")
    fields = {f.name: f for f in dataclasses.fields(cls)}
    unknown = sorted(set(data) - set(fields))
    if unknown:
        raise ConfigError(f"unknown key {prefix}{unknown[0]} (known: {', '.join(fields)})")
    kwargs = {}
    hints = typing.get_type_hints(cls)
    for name, value in data.items():
        hint = hints[name]
        if dataclasses.is_dataclass(hint):
            kwargs[name] = _build(hint, value, f"{prefix}{name}.")
        else:
            kwargs[name] = _coerce(value, hint, f"{prefix}{name}")
    try:
        return cls(**kwargs)
    except ConfigError:
        raise
    except ValueError as exc:  # GameConfig raises plain ValueError
        raise ConfigError(f"{prefix.rstrip('.') or 'config'}: {exc}") from None


def config_to_dict(config: Any) -> dict:
    """A config (or section) as plain nested dicts, the inverse of ``config_from_dict``."""
    return dataclasses.asdict(config)


def config_from_dict(data: dict) -> Config:
    return _build(Config, data or {}, "")


def load_config(path: str | Path, overrides: dict | None = None) -> Config:
    """Load a YAML config; ``overrides`` is a nested dict merged on top (e.g. from CLI flags)."""
    import yaml

    path = Path(path)
    try:
        text = path.read_text()
    except OSError as exc:
        raise ConfigError(f"cannot read config {path}: {exc.strerror}") from None
    try:
        data = yaml.safe_load(text) or {}
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}" if mark else ""
        raise ConfigError(f"{path}: invalid YAML{where}") from None
    _check(isinstance(data, dict), f"{path}: top level must be a mapping")
    return config_from_dict(_merge(data, overrides or {}))


def _merge(base: dict, extra: dict) -> dict:
    out = dict(base)
    for key, value in extra.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = _merge(out[key], value)
        else:
            out[key] = value
    return out
