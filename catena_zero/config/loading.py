"""Configs in and out: building checked sections from plain dicts and YAML text, ``--set``
overrides, YAML output and diffs.

Unknown keys, wrong types and bad values raise ``ConfigError`` with a one-line message naming
the key; loading has no side effects.
"""

from __future__ import annotations

import dataclasses
import difflib
import math
import re
import types
import typing
from pathlib import Path
from typing import Any, Optional

from ..errors import UserError
from ..fileio import MAX_CONFIG_BYTES, read_input
from ..messages import quote
from .ranges import check_ranges
from .sections import STAGE_SECTIONS, Config, ConfigError, NetConfig, StageConfig, _check, hidden_character

_MAX_STRING = 4096  # characters of a string value (PATH_MAX); no valid one is longer
# Digits of an integer value: the largest valid one (a seed, 2**63 - 1) has 19. Longer ones stay
# text when read (Python refuses to convert over 4,300 digits at all) and are refused by name.
_MAX_INT_DIGITS = 100


def _shown(value: Any) -> str:
    """A YAML value as an error message shows it: YAML's words for null, lists and mappings;
    at most a few dozen characters of a scalar (``messages.quote``)."""
    if value is None:
        return "nothing (null)"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int) and value.bit_length() > 4 * _MAX_INT_DIGITS:  # str() of it may raise
        return f"an integer of about {int(value.bit_length() * math.log10(2)) + 1:,} digits"
    if isinstance(value, (list, tuple)):
        return "a list"
    if isinstance(value, dict):
        return "a mapping"
    return quote(value)


# A number in exponent notation without a dot (1e-4, 2E+3), which PyYAML's YAML 1.1 reads as a string.
_EXPONENT_ONLY = re.compile(r"[+-]?[0-9]+[eE][+-]?[0-9]+")
# What YAML 1.1 reads as a number but no person means so: base 60 (1:30 is 90) and a leading zero
# (octal: 010 is 8; 09 is a string). The loader keeps them as text (``_load_yaml``): a string field
# gets what was written, a number field refuses it saying what to write (``_number_text_problem``).
_SEXAGESIMAL = re.compile(r"[0-9][0-9_]*(:[0-5]?[0-9])+(\.[0-9_]*)?")
_LEADING_ZERO = re.compile(r"0[0-9_]+")
_INTEGER_TEXT = re.compile(r"[0-9][0-9_]*|0x[0-9a-fA-F_]+|0b[01_]+")


def _number_text_problem(text: str, key: str) -> Optional[str]:
    """The message for number-like ``text`` in the number field ``key``, when it is a form the
    loader keeps as text (see ``_SEXAGESIMAL``); None for other text."""
    sign, digits = ("-" if text.strip().startswith("-") else ""), text.strip().lstrip("+-")
    if _SEXAGESIMAL.fullmatch(digits):
        parts = digits.replace("_", "").split(":")
        read = ""
        if len(digits) < 40:
            read = f" (it would read as {sign}{sum(float(p or 0) * 60 ** i for i, p in enumerate(reversed(parts))):g})"
        return f"{key}: {quote(text)} is a base-60 number to YAML 1.1{read}; write one plain number instead"
    if _LEADING_ZERO.fullmatch(digits) and len(digits) <= _MAX_INT_DIGITS:
        meant = sign + (digits.replace("_", "").lstrip("0") or "0")
        return (f"{key}: {quote(text)} has a leading zero, which YAML 1.1 reads as octal (010 is 8) or as "
                f"text (09); write {meant}")
    if _INTEGER_TEXT.fullmatch(digits) and len(digits) > _MAX_INT_DIGITS:
        return f"{key} is too long to be valid: an integer of {len(digits):,} digits, got {quote(text)}"
    return None


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
    elif annotation in (int, float) and isinstance(value, str) and _number_text_problem(value, key):
        raise ConfigError(_number_text_problem(value, key))
    elif annotation is int:
        _check(isinstance(value, int) and not isinstance(value, bool), f"{key} must be an integer, got {_shown(value)}")
        # From a dict (a checkpoint, code): no valid value is this long, and messages could not show it.
        _check(value.bit_length() <= 4 * _MAX_INT_DIGITS,
               f"{key} is too long to be valid: {_shown(value)}")
    elif annotation is float:
        if isinstance(value, str) and _EXPONENT_ONLY.fullmatch(value.strip()):
            value = float(value)  # YAML 1.1 reads 1e-4 (no dot) as a string; people write it so
        _check(isinstance(value, (int, float)) and not isinstance(value, bool), f"{key} must be a number, got {_shown(value)}")
        try:
            value = float(value)
        except OverflowError:  # an integer beyond any float
            raise ConfigError(f"{key} must be a finite number, got {_shown(value)}") from None
        _check(math.isfinite(value), f"{key} must be a finite number, got {_shown(value)}")
    elif annotation is str:
        _check(isinstance(value, str), f"{key} must be a string, got {_shown(value)}")
        # Sections echo bad values in their messages: keep megabyte strings out of them.
        _check(len(value) <= _MAX_STRING, f"{key} is too long to be valid, got {_shown(value)}")
        # Names, paths, devices: none holds ESC, NUL or a bidi override (they hide or reorder text).
        hidden = hidden_character(value)
        _check(hidden is None, f"{key} must not contain control or formatting characters, got {hidden}")
    elif origin is tuple:  # tuple[X, ...] fields: a YAML list (or one scalar) of X
        item_type = typing.get_args(annotation)[0]
        items = value if isinstance(value, (list, tuple)) else [value]
        value = tuple(_coerce(item, item_type, f"{key}[{i}]") for i, item in enumerate(items))
    return value


def section_from_dict(cls: type, data: Any, prefix: str = "") -> Any:
    """Any frozen config dataclass (``Config``, a section, an ablation plan) from a plain dict:
    unknown keys, wrong types and bad values are ``ConfigError``s naming ``prefix`` + the key."""
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
        if cls is Config and name == "stages":
            _check(isinstance(value, (list, tuple)) or value is None,
                   f"stages must be a list of stages, got {_shown(value)}")
            kwargs[name] = tuple(_stage_from_dict(item, f"stages[{i}]") for i, item in enumerate(value or ()))
        elif dataclasses.is_dataclass(hint):
            kwargs[name] = section_from_dict(hint, value, f"{prefix}{name}.")
        else:
            kwargs[name] = _coerce(value, hint, f"{prefix}{name}")
    try:
        section = cls(**kwargs)
    except ConfigError:
        raise
    except UserError as exc:  # GameConfig raises UserError, not ConfigError
        raise ConfigError(f"{prefix.rstrip('.') or 'config'}: {exc}") from None
    check_ranges(section, prefix)
    return section


def config_to_dict(config: Any) -> dict:
    """A config (or section) as plain nested dicts, the inverse of ``config_from_dict``."""
    data = dataclasses.asdict(config)
    if isinstance(config, Config):
        data["stages"] = [_stage_to_dict(stage) for stage in config.stages]
    return data


def config_from_dict(data: dict) -> Config:
    config = section_from_dict(Config, data or {}, "")
    stage_configs(config)  # a stage that does not build, or that the network cannot take: refused now
    search_settings_of(config.finish.search)
    return config


def search_settings_of(items: tuple[str, ...] | list[str], where: str = "finish.search",
                       budget: str = "as finish.simulations") -> dict:
    """``FIELD=VALUE`` settings of a search (``export --search``, ``finish.search``) as {field: value},
    each value read as a YAML scalar; ``ConfigError`` naming ``where`` for a malformed item, an
    unknown field or a bad value, and for ``num_simulations`` (the budget is given ``budget``)."""
    for item in items:
        field, sep, _ = item.partition("=")
        field = field.strip()
        _check(bool(sep) and bool(field) and "." not in field,
               f"{where} expects FIELD=VALUE with a search field (e.g. score_utility_weight=0.3), got {item!r}")
        _check(field != "num_simulations", f"{where} num_simulations: give the budget {budget}")
    settings = parse_overrides([f"search.{item}" for item in items]).get("search", {})
    if settings:
        section_from_dict(Config, {"search": settings}, "")
    return settings


# -- stages ------------------------------------------------------------------------------------------

_STAGE_SCALARS = tuple(f.name for f in dataclasses.fields(StageConfig) if f.name != "changes")


def _stage_from_dict(data: Any, where: str) -> StageConfig:
    """A stage as YAML writes it: its name, bound and ``keep_replay`` beside the sections it
    changes (``net: {blocks: 8}``), flattened to (dotted key, value) pairs."""
    _check(isinstance(data, dict), f"{where} must be a mapping (name, a bound, the sections it changes), "
                                   f"got {_shown(data)}")
    changes: list[tuple[str, Any]] = []
    for key, value in data.items():
        if key in _STAGE_SCALARS:
            continue
        _check(key in STAGE_SECTIONS, f"{where}: unknown key {_shown(key)} (a stage has {', '.join(_STAGE_SCALARS)} "
                                      f"and the sections it changes: {', '.join(STAGE_SECTIONS)})")
        _check(isinstance(value, dict) and bool(value), f"{where}.{key} must be a mapping of the keys the stage "
                                                        f"changes, got {_shown(value)}")
        for name, item in value.items():
            _check(not isinstance(item, dict), f"{where}.{key}.{name}: a stage sets values, got a mapping")
            changes.append((f"{key}.{name}", tuple(item) if isinstance(item, list) else item))
    scalars = {key: value for key, value in data.items() if key in _STAGE_SCALARS}
    try:
        stage = section_from_dict(StageConfig, scalars, f"{where}.")
        check_ranges(stage, "stages.")  # NUMERIC_RANGES names a stage's numbers "stages.KEY"
    except ConfigError as exc:
        message = str(exc).replace("stages.", f"{where}.", 1)
        raise ConfigError(message if message.startswith(where) else f"{where}: {message}") from None
    return dataclasses.replace(stage, changes=tuple(changes))


def _stage_to_dict(stage: StageConfig) -> dict:
    """The inverse of ``_stage_from_dict``."""
    out: dict = {name: getattr(stage, name) for name in _STAGE_SCALARS}
    for key, value in stage.changes:
        section, name = key.split(".", 1)
        out.setdefault(section, {})[name] = list(value) if isinstance(value, tuple) else value
    return out


def stage_configs(config: Config) -> tuple[Config, ...]:
    """The config each stage of ``config`` trains with, in order: the config with the changes of
    stages 1..k applied, without ``stages`` and ``finish`` (the driver adds each stage's bound and
    where its network starts). One config, ``config`` itself, for a run without stages.

    ``ConfigError`` (one line naming the stage) for a change that does not build, a ``train.init_from``
    after the first stage (a stage starts from the one before), and a change the network cannot
    take: only ``net.blocks`` may change, and only grow (``train.init_deepen``)."""
    if not config.stages:
        return (config,)
    base = config_to_dict(config)
    base["stages"], base["finish"] = [], {}
    out: list[Config] = []
    for i, stage in enumerate(config.stages):
        where = f"stage {i + 1} ({stage.name!r})"
        # Its run bound is its own (counted from its start: the driver shifts it); the config's run.max_*
        # bound the whole run.
        key, value = stage.bound
        base["run"].update({f"max_{k}": None for k in ("steps", "positions", "minutes", "cpu_minutes")})
        base["run"][f"max_{key}"] = value
        for key, value in stage.changes:
            _check(i == 0 or not key.startswith("train.init_"),
                   f"{where}: {key} is for the first stage only (a later stage starts from the network the one "
                   f"before it ended with)")
            section, name = key.split(".", 1)
            base[section][name] = list(value) if isinstance(value, tuple) else value
        try:
            built = section_from_dict(Config, base, "")
        except ConfigError as exc:
            raise ConfigError(f"{where}: {exc}") from None
        if out:
            _check_network_takes(out[-1].net, built.net, where)
        out.append(built)
    return tuple(out)


def _check_network_takes(before: NetConfig, after: NetConfig, where: str) -> None:
    """``ConfigError`` when the network a stage ends with cannot start the next one: another
    architecture than more blocks (the input layout is the same for every rule set)."""
    for name in NetConfig.ARCHITECTURE:
        old, new = getattr(before, name), getattr(after, name)
        if name == "blocks":
            _check(new >= old, f"{where}: net.blocks {old} -> {new}: the network cannot take a smaller tower "
                               f"(a stage may only add blocks)")
        else:
            _check(new == old, f"{where}: net.{name} {old} -> {new}: the network cannot take it "
                               f"(a stage may only add blocks, net.blocks)")


def load_config(path: str | Path, overrides: dict | None = None, overrides_from: str = "the command line") -> Config:
    """Load a YAML config; ``overrides`` is a nested dict merged on top (e.g. from CLI flags).

    A ``ConfigError`` names where the bad value came from: the file, or (when the file alone is a
    valid config) ``overrides_from``, so ``--set run.max_minuts=1`` is not blamed on the file."""
    path = Path(path)
    data = read_yaml_file(path, "config")
    try:
        return config_from_dict(_merge(data, overrides or {}))
    except ConfigError as exc:
        source = str(path)
        if overrides:
            try:
                config_from_dict(data)
                source = f"{overrides_from}, over {path}"
            except ConfigError:
                pass  # the file itself is at fault
        raise ConfigError(f"{exc} (from {source})") from None


def read_yaml_file(path: str | Path, kind: str) -> dict:
    """The top-level mapping of a YAML file of ``kind`` (a config, an ablation plan) read as configs
    are: a regular file of at most MAX_CONFIG_BYTES (a FIFO or /dev/zero is refused, not read), keys
    given once, YAML 1.1's octal and base-60 numbers and overlong integers kept as text (so the
    field's type check refuses them); a one-line ``ConfigError`` naming the file otherwise."""
    import yaml

    path = Path(path)
    try:
        text = read_input(path, kind, MAX_CONFIG_BYTES, ConfigError).decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path}: not a text file (invalid UTF-8 at byte {exc.start}); "
                          f"a {kind} is YAML text") from None
    try:
        data = _load_yaml(text) or {}
    except ConfigError as exc:
        raise ConfigError(f"{path}: {exc}") from None
    except RecursionError:  # YAML's composer recurses once per level of nesting
        raise ConfigError(f"{path}: invalid YAML: nested too deeply (a config is a few levels deep)") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}" if mark else ""
        if isinstance(exc, yaml.reader.ReaderError):  # a character YAML does not allow, e.g. NUL
            code = exc.character if isinstance(exc.character, int) else ord(exc.character)
            where = f": character U+{code:04X} at position {exc.position} is not allowed in YAML text"
        raise ConfigError(f"{path}: invalid YAML{where}") from None
    _check(isinstance(data, dict), f"{path}: top level must be a mapping")
    return data


def _load_yaml(text: str) -> Any:
    """``yaml.safe_load`` that rejects a key given twice in one mapping ("last one wins" hides typos)."""
    import yaml

    class StrictLoader(yaml.SafeLoader):
        pass

    def construct_mapping(loader: yaml.SafeLoader, node: yaml.MappingNode, deep: bool = False) -> dict:
        seen: set = set()
        for key_node, _ in node.value:
            key = loader.construct_object(key_node, deep=deep)
            if not isinstance(key, (str, int, float, bool)) and key is not None:  # `? [a, b]`
                raise ConfigError(f"a key must be a plain name, got {_shown(key)} at line {key_node.start_mark.line + 1}")
            if key in seen:
                raise ConfigError(f"duplicate key {key!r} at line {key_node.start_mark.line + 1}")
            seen.add(key)
        return yaml.SafeLoader.construct_mapping(loader, node, deep=deep)

    def construct_int(loader: yaml.SafeLoader, node: yaml.ScalarNode) -> Any:
        text = loader.construct_scalar(node)
        digits = text.replace("_", "").lstrip("+-")
        if ":" in digits or _LEADING_ZERO.fullmatch(digits) or len(digits) > _MAX_INT_DIGITS:
            return text  # base 60, octal, or too long to convert: text (see _SEXAGESIMAL)
        return yaml.SafeLoader.construct_yaml_int(loader, node)

    def construct_float(loader: yaml.SafeLoader, node: yaml.ScalarNode) -> Any:
        text = loader.construct_scalar(node)
        return text if ":" in text else yaml.SafeLoader.construct_yaml_float(loader, node)

    StrictLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, construct_mapping)
    StrictLoader.add_constructor("tag:yaml.org,2002:int", construct_int)
    StrictLoader.add_constructor("tag:yaml.org,2002:float", construct_float)
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
            value = _load_yaml(text) if text.strip() else None  # the file's reading: 010 and 1:30 stay text
        except (yaml.YAMLError, RecursionError, TypeError, ConfigError):  # TypeError: a complex key, `{[a]: 1}`
            raise ConfigError(f"--set {key}: cannot parse value {quote(text)}") from None
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

