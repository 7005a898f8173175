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
    mixed_precision: bool = True  # bfloat16 (float16 where unsupported) autocast on CUDA
    # CPU inference precision: "float32", or "bfloat16" autocast. Measured (scripts/bench_net.py) on
    # the AVX2 development CPU (no AVX512_BF16/AMX) bfloat16 is 3-6x slower than float32 and off by
    # up to 3e-4 in value: use it only on CPUs with those instructions, after measuring there.
    cpu_precision: str = "float32"
    channels_last: bool = True  # NHWC activations: CPU inference measured 1.25-1.6x faster than NCHW
    # torch.compile the inference forward: measured 1.05-1.1x over eager channels_last for the
    # default net, 1.2-1.4x for a 3x32 net, but 12-180 s of compiling per input shape
    compile: bool = False
    # Mixed-side batches in NetEvaluator.evaluate_many: "pad" = ONE forward padded to the largest grid
    # (self-play with rule randomisation keeps one network call per simulation); "by_side" = one
    # forward per board side, unpadded: measured 1.3-2x faster on the CPU with >= 64 games per side.
    mixed_sides: str = "pad"

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
        _check(
            self.cpu_precision in ("float32", "bfloat16"),
            f"net.cpu_precision must be 'float32' or 'bfloat16', got {self.cpu_precision!r}",
        )
        _check(
            self.mixed_sides in ("pad", "by_side"),
            f"net.mixed_sides must be 'pad' or 'by_side', got {self.mixed_sides!r}",
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
class Config:
    """Root configuration, one section per component."""

    game: GameConfig = field(default_factory=GameConfig)
    net: NetConfig = field(default_factory=NetConfig)
    search: SearchConfig = field(default_factory=SearchConfig)
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
