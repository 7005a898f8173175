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
    # Keep the chosen child's subtree for the next move. Measured in self-play-like use (side 6,
    # Gumbel, S = 32, scripts/bench_search.py --tree-reuse): about 3 kept root visits per move
    # (10% of S) for +14-15% time with a zero-cost evaluator (batch 64 and 256), and no
    # measurable cost with the default network on CPU (it takes ~95% of the time): on by default
    # (CPU self-play, bots); turn it off where the search dominates (cheap evaluators, fast GPU).
    tree_reuse: bool = True
    # Score utility (KataGo, Wu 2019 sec. 4.1): search maximises value + w * (2/pi) *
    # arctan(score / (scale * unit)), unit = sqrt(cells) (quadratic scoring: cells), see
    # search/utility.py. KataGo's staticScoreUtilityFactor 0.1 and static scale 2.0; 0 = win/loss only.
    score_utility_weight: float = 0.1
    score_utility_scale: float = 2.0

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
        _check(self.score_utility_weight >= 0, f"search.score_utility_weight must be >= 0, got {self.score_utility_weight}")
        _check(self.score_utility_scale > 0, f"search.score_utility_scale must be > 0, got {self.score_utility_scale}")


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
