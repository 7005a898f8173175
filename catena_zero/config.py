"""Configuration: one frozen dataclass per component, composed into ``Config``, loaded from YAML.

Every field has a documented default; unknown keys and bad values raise ``ConfigError``
with a one-line message naming the offending key. Loading has no side effects.
"""

from __future__ import annotations

import dataclasses
import difflib
import types
import typing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional

from .game.options import GAME_TYPES, MAX_SIDE, MIN_SIDE, SCORINGS, GameConfig
from .messages import quote


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
class SelfPlayConfig:
    """Self-play games (selfplay/play.py): batch, playout caps, komi and rule randomisation, resignation."""

    games_per_actor: int = 128  # G games each actor keeps in flight (auto-reset slots); 64-512 suit a CPU
    # Playout cap randomisation (KataGo 2019, sec. 3.1): with probability p a move gets the full
    # search (search.num_simulations) and records a policy target; otherwise a cheap search whose
    # position trains only value-type targets. KataGo: p = 0.25, 600 vs 100 playouts.
    full_search_prob: float = 0.25
    cheap_simulations: int = 8
    # Komi per game (KataGo 2019, sec. 3.4 randomises komi): with probability komi_spread_prob
    # uniform over the scoring's range (R6), else normal around the current fair-komi estimate.
    komi_spread_prob: float = 0.2
    komi_std: float = 2.0  # in komi points (quadratic scoring: scaled by its range / 15)
    # Rule randomisation (KataGo trains one net for many rule sets): each game draws its side,
    # scoring and game type from these lists; empty = the game section's value.
    sides: tuple[int, ...] = ()
    scorings: tuple[str, ...] = ()
    game_types: tuple[str, ...] = ()
    # Soft resignation (KataGo 2019, sec. 5): once the mover's root value stays below
    # -resign_threshold for resign_consecutive moves, the game goes on with cheap searches and its
    # later positions get weight resign_weight; resign_disabled_share of games never resign, and
    # among them a "would have resigned" game won by the resigning side is a false resignation.
    resign_threshold: float = 0.9
    resign_consecutive: int = 3
    resign_weight: float = 0.1
    resign_disabled_share: float = 0.1  # AlphaGo Zero played 10% of games without resignation

    def __post_init__(self) -> None:
        _check(self.games_per_actor >= 1, f"selfplay.games_per_actor must be >= 1, got {self.games_per_actor}")
        _check(0 < self.full_search_prob <= 1, f"selfplay.full_search_prob must be in (0, 1], got {self.full_search_prob}")
        _check(self.cheap_simulations >= 1, f"selfplay.cheap_simulations must be >= 1, got {self.cheap_simulations}")
        _check(0 <= self.komi_spread_prob <= 1, f"selfplay.komi_spread_prob must be in [0, 1], got {self.komi_spread_prob}")
        _check(self.komi_std >= 0, f"selfplay.komi_std must be >= 0, got {self.komi_std}")
        for side in self.sides:
            _check(isinstance(side, int) and MIN_SIDE <= side <= MAX_SIDE,
                   f"selfplay.sides entries must be in {MIN_SIDE}..{MAX_SIDE}, got {side!r}")
        for scoring in self.scorings:
            _check(scoring in SCORINGS, f"selfplay.scorings entries must be one of {', '.join(SCORINGS)}; got {scoring!r}")
        for game_type in self.game_types:
            _check(game_type in GAME_TYPES, f"selfplay.game_types entries must be one of {', '.join(GAME_TYPES)}; got {game_type!r}")
        _check(0 < self.resign_threshold <= 1, f"selfplay.resign_threshold must be in (0, 1], got {self.resign_threshold}")
        _check(self.resign_consecutive >= 1, f"selfplay.resign_consecutive must be >= 1, got {self.resign_consecutive}")
        _check(0 <= self.resign_weight <= 1, f"selfplay.resign_weight must be in [0, 1], got {self.resign_weight}")
        _check(0 <= self.resign_disabled_share <= 1,
               f"selfplay.resign_disabled_share must be in [0, 1], got {self.resign_disabled_share}")


@dataclass(frozen=True)
class EvalConfig:
    """In-loop evaluation (train/driver.py): small matches that draw the learning curve."""

    interval_steps: int = 200  # learner steps between evaluations (0: only at the end)
    games: int = 20  # games per opponent, colours alternating
    simulations: int = 32  # the network's search, without noise
    uct_simulations: int = 200  # K of the classic UCT baseline mcts:K
    opponents: tuple[str, ...] = ("random", "uct", "previous")  # "previous": the last kept checkpoint

    def __post_init__(self) -> None:
        _check(self.interval_steps >= 0, f"eval.interval_steps must be >= 0, got {self.interval_steps}")
        _check(self.games >= 0, f"eval.games must be >= 0, got {self.games}")
        _check(self.simulations >= 1, f"eval.simulations must be >= 1, got {self.simulations}")
        _check(self.uct_simulations >= 1, f"eval.uct_simulations must be >= 1, got {self.uct_simulations}")
        for name in self.opponents:
            _check(name in ("random", "uct", "previous"),
                   f"eval.opponents entries must be random, uct or previous; got {name!r}")


@dataclass(frozen=True)
class RunConfig:
    """One training run (train/driver.py): where it lives, when it stops, how it is spread over Ray."""

    name: str = ""  # run folder checkpoints/<name>; "" = the config file's name
    root: str = "checkpoints"  # parent folder of run folders
    # Bounds: the run stops at the first one reached (null = no bound); they may change on --resume.
    max_steps: Optional[int] = None
    max_positions: Optional[int] = None
    max_minutes: Optional[float] = None
    checkpoint_interval: int = 100  # learner steps between checkpoints (and one at the end)
    keep_last: int = 3  # newest checkpoints kept
    keep_every: int = 500  # every k-th step is kept for good (what the ladder plays); 0 = none
    address: Optional[str] = None  # Ray cluster address ("auto", "HOST:PORT"); null = local embedded Ray
    num_cpus: Optional[int] = None  # CPUs of the local Ray instance; null = all of this machine
    num_actors: int = 1  # self-play actors
    cpus_per_actor: float = 1.0
    gpus_per_actor: float = 0.0
    learner_device: str = "auto"  # "auto" = CUDA when available, else CPU
    log_interval_seconds: float = 20.0  # plain progress lines when the output is not a terminal
    sample_game_interval_steps: int = 200  # a rendered self-play board in TensorBoard every k steps

    def __post_init__(self) -> None:
        _check("/" not in self.name and self.name not in (".", ".."), f"run.name must be a plain folder name, got {self.name!r}")
        for key in ("max_steps", "max_positions"):
            value = getattr(self, key)
            _check(value is None or value >= 1, f"run.{key} must be >= 1 or null, got {value}")
        _check(self.max_minutes is None or self.max_minutes > 0, f"run.max_minutes must be > 0 or null, got {self.max_minutes}")
        _check(self.checkpoint_interval >= 1, f"run.checkpoint_interval must be >= 1, got {self.checkpoint_interval}")
        _check(self.keep_last >= 1, f"run.keep_last must be >= 1, got {self.keep_last}")
        _check(self.keep_every >= 0, f"run.keep_every must be >= 0, got {self.keep_every}")
        _check(self.num_cpus is None or self.num_cpus >= 1, f"run.num_cpus must be >= 1 or null, got {self.num_cpus}")
        _check(self.num_actors >= 1, f"run.num_actors must be >= 1, got {self.num_actors}")
        _check(self.cpus_per_actor > 0, f"run.cpus_per_actor must be > 0, got {self.cpus_per_actor}")
        _check(self.gpus_per_actor >= 0, f"run.gpus_per_actor must be >= 0, got {self.gpus_per_actor}")
        _check(
            self.learner_device == "auto" or self.learner_device == "cpu" or self.learner_device.startswith("cuda"),
            f"run.learner_device must be 'auto', 'cpu' or 'cuda[:i]', got {self.learner_device!r}",
        )
        _check(self.log_interval_seconds > 0, f"run.log_interval_seconds must be > 0, got {self.log_interval_seconds}")
        _check(self.sample_game_interval_steps >= 0,
               f"run.sample_game_interval_steps must be >= 0, got {self.sample_game_interval_steps}")


# Keys that may change when a run is resumed (its bounds); everything else must match.
RESUMABLE_KEYS = ("run.max_steps", "run.max_positions", "run.max_minutes")

@dataclass(frozen=True)
class Config:
    """Root configuration, one section per component."""

    game: GameConfig = field(default_factory=GameConfig)
    net: NetConfig = field(default_factory=NetConfig)
    search: SearchConfig = field(default_factory=SearchConfig)
    selfplay: SelfPlayConfig = field(default_factory=SelfPlayConfig)
    eval: EvalConfig = field(default_factory=EvalConfig)
    run: RunConfig = field(default_factory=RunConfig)
    seed: int = 0  # root of every np.random.Generator / torch.Generator of a run


_MAX_STRING = 4096  # characters of a string value (PATH_MAX); no valid one is longer


def _shown(value: Any) -> str:
    """A YAML value as an error message shows it: YAML's words for null, lists and mappings;
    at most a few dozen characters of a scalar (``messages.quote``)."""
    if value is None:
        return "nothing (null)"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (list, tuple)):
        return "a list"
    if isinstance(value, dict):
        return "a mapping"
    return quote(value)


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
        _check(isinstance(value, bool), f"{key} must be true or false, got {_shown(value)}")
    elif annotation is int:
        _check(isinstance(value, int) and not isinstance(value, bool), f"{key} must be an integer, got {_shown(value)}")
    elif annotation is float:
        _check(isinstance(value, (int, float)) and not isinstance(value, bool), f"{key} must be a number, got {_shown(value)}")
        value = float(value)
    elif annotation is str:
        _check(isinstance(value, str), f"{key} must be a string, got {_shown(value)}")
        # Sections echo bad values in their messages: keep megabyte strings out of them.
        _check(len(value) <= _MAX_STRING, f"{key} is too long to be valid, got {_shown(value)}")
    elif origin is tuple:  # tuple[X, ...] fields: a YAML list (or one scalar) of X
        item_type = typing.get_args(annotation)[0]
        items = value if isinstance(value, (list, tuple)) else [value]
        value = tuple(_coerce(item, item_type, f"{key}[{i}]") for i, item in enumerate(items))
    return value


def _build(cls: type, data: Any, prefix: str) -> Any:
    if data is None and prefix:
        data = {}  # a section with nothing under it ("game:" with every key commented out): defaults
    _check(isinstance(data, dict),
           f"{prefix.rstrip('.') or 'config'} must be a mapping of keys to values, got {_shown(data)}")
    fields = {f.name: f for f in dataclasses.fields(cls)}
    unknown = sorted(set(data) - set(fields), key=str)
    if unknown:
        name = str(unknown[0])
        close = difflib.get_close_matches(name, list(fields), n=1)
        hint = f"did you mean {prefix}{close[0]}? " if close else ""
        shown = name if len(name) <= 40 else quote(name)
        raise ConfigError(f"unknown key {prefix}{shown} ({hint}known: {', '.join(fields)})")
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
        text = path.read_bytes().decode("utf-8")
    except OSError as exc:
        raise ConfigError(f"cannot read config {path}: {exc.strerror}") from None
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path}: not a text file (invalid UTF-8 at byte {exc.start}); "
                          "a config is YAML text") from None
    try:
        data = _load_yaml(text) or {}
    except ConfigError as exc:
        raise ConfigError(f"{path}: {exc}") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}" if mark else ""
        if isinstance(exc, yaml.reader.ReaderError):  # a character YAML does not allow, e.g. NUL
            code = exc.character if isinstance(exc.character, int) else ord(exc.character)
            where = f": character U+{code:04X} at position {exc.position} is not allowed in YAML text"
        raise ConfigError(f"{path}: invalid YAML{where}") from None
    _check(isinstance(data, dict), f"{path}: top level must be a mapping")
    return config_from_dict(_merge(data, overrides or {}))


def _load_yaml(text: str) -> Any:
    """``yaml.safe_load`` that rejects a key given twice in one mapping ("last one wins" hides typos)."""
    import yaml

    class StrictLoader(yaml.SafeLoader):
        pass

    def construct_mapping(loader: yaml.SafeLoader, node: yaml.MappingNode, deep: bool = False) -> dict:
        seen: set = set()
        for key_node, _ in node.value:
            key = loader.construct_object(key_node, deep=deep)
            if key in seen:
                raise ConfigError(f"duplicate key {key!r} at line {key_node.start_mark.line + 1}")
            seen.add(key)
        return yaml.SafeLoader.construct_mapping(loader, node, deep=deep)

    StrictLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, construct_mapping)
    return yaml.load(text, Loader=StrictLoader)


def parse_overrides(items: list[str]) -> dict:
    """``["a.b=value", ...]`` (``--set``) as a nested dict; each value is parsed as a YAML scalar.

    The keys are validated when the result is merged into a config (``config_from_dict``).
    """
    import yaml

    out: dict = {}
    for item in items:
        key, sep, text = item.partition("=")
        key = key.strip()
        _check(bool(sep) and bool(key), f"--set expects KEY=VALUE (e.g. run.max_minutes=5), got {item!r}")
        parts = key.split(".")
        _check(all(parts), f"--set key {key!r} has an empty part")
        try:
            value = yaml.safe_load(text) if text.strip() else None
        except yaml.YAMLError:
            raise ConfigError(f"--set {key}: cannot parse value {text!r}") from None
        _check(not isinstance(value, dict), f"--set {key}: the value must be a scalar or a list, got a mapping")
        node = out
        for part in parts[:-1]:
            node = node.setdefault(part, {})
            _check(isinstance(node, dict), f"--set {key}: {part} is set both as a value and as a section")
        node[parts[-1]] = value
    return out


def config_to_yaml(config: Config) -> str:
    """The config as YAML text that ``load_config`` reads back to an equal config."""
    import yaml

    def plain(value: Any) -> Any:
        if isinstance(value, dict):
            return {k: plain(v) for k, v in value.items()}
        if isinstance(value, (tuple, list)):
            return [plain(v) for v in value]
        return value

    return yaml.safe_dump(plain(config_to_dict(config)), sort_keys=False)


def config_diff(a: Config, b: Config) -> list[str]:
    """Dotted keys whose values differ between two configs (``a.b: old -> new``)."""
    out: list[str] = []

    def walk(x: Any, y: Any, prefix: str) -> None:
        if dataclasses.is_dataclass(x):
            for f in dataclasses.fields(x):
                walk(getattr(x, f.name), getattr(y, f.name), f"{prefix}{f.name}.")
        elif x != y:
            out.append(f"{prefix.rstrip('.')}: {x!r} -> {y!r}")

    walk(a, b, "")
    return out


def _merge(base: dict, extra: dict) -> dict:
    out = dict(base)
    for key, value in extra.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = _merge(out[key], value)
        else:
            out[key] = value
    return out
