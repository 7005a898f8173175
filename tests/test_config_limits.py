"""Config values that are absurd or hostile (issue 14): non-finite floats, numbers out of their
documented range, complex YAML keys, deep nesting; arbitrary YAML values (hypothesis) give a
config or one ConfigError line, never another exception."""

from __future__ import annotations

import dataclasses
import typing

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from catena_zero.cli import main
from catena_zero.config import (NUMERIC_RANGES, Config, ConfigError, config_from_dict, config_to_dict, load_config,
                                parse_overrides)


def numeric_fields() -> dict[str, type]:
    """Dotted key -> int or float of every numeric field of every section (and the root)."""
    found = {}
    hints = typing.get_type_hints(Config)
    for f in dataclasses.fields(Config):
        section = hints[f.name]
        if not dataclasses.is_dataclass(section):
            found[f.name] = section
            continue
        for g in dataclasses.fields(section):
            kind = typing.get_type_hints(section)[g.name]
            if typing.get_origin(kind) is typing.Union:  # Optional[int]
                kind = next(a for a in typing.get_args(kind) if a is not type(None))
            if kind in (int, float):
                found[f"{f.name}.{g.name}"] = kind
    return found


def test_every_numeric_field_has_a_documented_range_holding_its_default():
    fields = numeric_fields()
    assert sorted(set(fields) - set(NUMERIC_RANGES)) == []  # a new numeric field needs its range
    assert sorted(set(NUMERIC_RANGES) - set(fields)) == []  # no range of a field that is gone
    defaults = config_to_dict(Config())
    for key, (lo, hi) in NUMERIC_RANGES.items():
        section, _, name = key.rpartition(".")
        value = defaults[section][name] if section else defaults[name]
        assert value is None or lo <= value <= hi, key


def _error(data: dict) -> str:
    with pytest.raises(ConfigError) as info:
        config_from_dict(data)
    message = str(info.value)
    assert "\n" not in message
    return message


@pytest.mark.parametrize("key", ["train.learning_rate", "search.temperature", "search.c_puct_base",
                                 "replay.train_ratio", "run.max_minutes", "selfplay.komi_std"])
@pytest.mark.parametrize("value", [float("inf"), -float("inf"), float("nan"), 10**400])
def test_non_finite_floats_are_refused(key, value):
    section, name = key.split(".")
    assert f"{key} must be a finite number" in _error({section: {name: value}})


@pytest.mark.parametrize("key, value", [("net.channels", 200_000), ("net.blocks", 10_000), ("replay.capacity", 10**12),
                                        ("search.num_simulations", 10**12), ("train.learning_rate", 1e30),
                                        ("search.temperature", 1e300), ("seed", 2**64)])
def test_absurd_values_are_refused_naming_the_range(key, value):
    section, _, name = key.rpartition(".")
    data = {section: {name: value}} if section else {name: value}
    assert f"{key} must be in" in _error(data)


def test_yaml_files_with_infinities_complex_keys_or_deep_nesting_are_one_line(tmp_path, capsys):
    cases = {
        "inf.yaml": ("train:\n  learning_rate: .inf\n", "train.learning_rate must be a finite number"),
        "temp.yaml": ("search:\n  temperature: .inf\n", "search.temperature must be a finite number"),
        "nan.yaml": ("search:\n  temperature: .nan\n", "search.temperature must be a finite number"),
        "cap.yaml": ("replay:\n  capacity: 1e12\n", "replay.capacity must be an integer"),
        "complex.yaml": ("? [a, b]\n: 1\n", "a key must be a plain name"),
        "complex2.yaml": ("game:\n  ? {side: 3}\n  : 1\n", "a key must be a plain name"),
        "deep.yaml": ("game: " + "[" * 50_000 + "]" * 50_000 + "\n", "nested too deeply"),
        "deepmap.yaml": ("game: " + "{a: " * 50_000 + "1" + "}" * 50_000 + "\n", "nested too deeply"),
    }
    for name, (text, fragment) in cases.items():
        path = tmp_path / name
        path.write_text(text)
        with pytest.raises(ConfigError, match=fragment.replace(".", r"\.")):
            load_config(path)
        assert main(["random-game", "--config", str(path)]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "Traceback" not in err and fragment in err, (name, err)


@pytest.mark.parametrize("item, fragment", [("replay.capacity=1e12", "replay.capacity must be an integer"),
                                            ("train.learning_rate=.inf", "must be a finite number"),
                                            ("net.channels=200000", "net.channels must be in"),
                                            ("game.side=" + "[" * 50_000, "cannot parse value"),
                                            ("game.side={[a]: 1}", "cannot parse value")])
def test_set_overrides_with_absurd_values_are_one_line(item, fragment):
    with pytest.raises(ConfigError) as info:
        config_from_dict(parse_overrides([item]))
    assert fragment in str(info.value) and "\n" not in str(info.value)


# ------------------------------------------------------------------------------ property-based

_KEYS = sorted(NUMERIC_RANGES) + ["game.scoring", "game.game_type", "net.device", "search.algorithm",
                                  "selfplay.sides", "eval.opponents", "run.name", "search.dirichlet_alpha"]
_scalars = (st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20)
            | st.sampled_from(["komi", "standard", "cpu", "gumbel", "random", "1e12", ".inf"]))
_values = st.recursive(_scalars, lambda inner: st.lists(inner, max_size=4)
                       | st.dictionaries(st.text(max_size=5), inner, max_size=3), max_leaves=8)


@given(st.dictionaries(st.sampled_from(_KEYS), _values, max_size=4))
def test_arbitrary_values_give_a_config_or_one_line(assignments):
    data: dict = {}
    for key, value in assignments.items():
        section, _, name = key.rpartition(".")
        (data.setdefault(section, {}) if section else data)[name] = value
    try:
        config = config_from_dict(data)
    except ConfigError as exc:
        assert "\n" not in str(exc) and len(str(exc)) < 600
        return
    for key, (lo, hi) in NUMERIC_RANGES.items():  # whatever was accepted is in range
        section, _, name = key.rpartition(".")
        value = getattr(getattr(config, section), name) if section else getattr(config, name)
        assert value is None or lo <= value <= hi


@given(st.text(max_size=200))
def test_arbitrary_yaml_text_gives_a_config_or_one_line(text):
    import tempfile
    from pathlib import Path

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "c.yaml"
        path.write_text(text, encoding="utf-8", errors="surrogatepass")
        try:
            load_config(path)
        except ConfigError as exc:
            assert "\n" not in str(exc)


@pytest.mark.slow
@settings(max_examples=2000)
@given(st.dictionaries(st.sampled_from(_KEYS), _values, max_size=6))
def test_arbitrary_values_many_examples(assignments):
    test_arbitrary_values_give_a_config_or_one_line.hypothesis.inner_test(assignments)
