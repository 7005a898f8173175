"""Configuration: one frozen dataclass per component, composed into ``Config``, loaded from YAML.

Every field has a documented default; unknown keys and bad values raise ``ConfigError`` with a
one-line message naming the offending key. Loading has no side effects.

    fields.py    how a field declares what it takes (``number``, ``one_of``, ...), and the checks read from it
    sections.py  the dataclasses (``Config`` and its sections), each field with its declaration
    ranges.py    the documented range of every numeric field (``NUMERIC_RANGES``), gathered from them
    loading.py   dicts and YAML in and out, ``--set`` overrides, diffs
"""

from ..game.options import GameConfig
from .loading import (
    config_diff,
    config_from_dict,
    config_to_dict,
    config_to_yaml,
    load_config,
    parse_overrides,
    section_from_dict,
)
from .ranges import NUMERIC_RANGES
from .sections import (
    RESUMABLE_KEYS,
    Config,
    ConfigError,
    EvalConfig,
    NetConfig,
    ReplayConfig,
    RunConfig,
    SearchConfig,
    SelfPlayConfig,
    TrainConfig,
)

__all__ = [
    "Config", "ConfigError", "GameConfig", "NetConfig", "SearchConfig", "SelfPlayConfig", "ReplayConfig",
    "TrainConfig", "EvalConfig", "RunConfig", "RESUMABLE_KEYS", "NUMERIC_RANGES",
    "config_diff", "config_from_dict", "config_to_dict", "config_to_yaml", "load_config", "parse_overrides",
    "section_from_dict",
]
