"""Config values that are absurd or hostile: non-finite floats, numbers out of their
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
        if typing.get_origin(section) is tuple:  # stages: each stage's numbers, under "stages."
            section = typing.get_args(section)[0]
            for g in dataclasses.fields(section):
                kind = typing.get_type_hints(section)[g.name]
                if typing.get_origin(kind) is typing.Union:
                    kind = next(a for a in typing.get_args(kind) if a is not type(None))
                if kind in (int, float):
                    found[f"{f.name}.{g.name}"] = kind
            continue
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
        if section == "stages":  # a stage's bounds have no default (one of them is given)
            continue
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
        if section == "stages":  # each stage's own numbers
            assert all(getattr(stage, name) is None or lo <= getattr(stage, name) <= hi for stage in config.stages)
            continue
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


# Issue 25: integers over Python's 4,300-digit conversion limit, YAML 1.1's octal and base-60
# numbers, and hidden characters in names that become folders.

HUGE = "1" * 5000


def _cli_error(capsys, argv: list[str]) -> str:
    assert main(argv) == 2
    out, err = capsys.readouterr()
    assert err.startswith("catena-zero: error: ") and err.count("\n") == 1, err
    assert "internal error" not in err and len(err) < 400, err
    return err


@pytest.mark.parametrize("text", [f"seed: {HUGE}\n", f"game:\n  side: {HUGE}\n", f"run:\n  max_minutes: {HUGE}\n",
                                  f"seed: 0x{'f' * 5000}\n", f"selfplay:\n  sides: [3, {HUGE}]\n"])
def test_integers_of_thousands_of_digits_in_a_file_are_one_config_error(tmp_path, text):
    """Python refuses to convert an integer of over 4,300 digits (ValueError in PyYAML, an internal
    error): the loader keeps it as text and the field refuses it by name."""
    path = tmp_path / "c.yaml"
    path.write_text(text)
    with pytest.raises(ConfigError) as info:
        load_config(path)
    message = str(info.value)
    assert "\n" not in message and len(message) < 300, message
    assert "too long to be valid" in message and "5,00" in message, message


def test_integers_of_thousands_of_digits_in_set_or_a_dict_are_one_config_error(tmp_path, capsys):
    err = _cli_error(capsys, ["train", "--config", str(_config(tmp_path, "seed: 1\n")), "--set", f"seed={HUGE}"])
    assert "seed is too long to be valid: an integer of 5,000 digits" in err
    with pytest.raises(ConfigError, match=r"seed is too long to be valid: an integer of 5,000 digits"):
        config_from_dict(parse_overrides([f"seed={HUGE}"]))
    with pytest.raises(ConfigError, match=r"game.side is too long to be valid: an integer of about 5,000 digits"):
        config_from_dict({"game": {"side": 10**4999}})  # from a checkpoint or code: str() of it would raise


def _config(tmp_path, text: str):
    path = tmp_path / "c.yaml"
    path.write_text(text)
    return path


@pytest.mark.parametrize("text, key, fragment", [
    ("game:\n  side: 010\n", "game.side", "write 10"),
    ("game:\n  side: 09\n", "game.side", "write 9"),
    ("seed: 007\n", "seed", "write 7"),
    ("game:\n  komi: -05\n", "game.komi", "write -5"),
    ("run:\n  max_minutes: 1:30\n", "run.max_minutes", "base-60"),
    ("run:\n  max_minutes: 1:30.5\n", "run.max_minutes", "base-60"),
    ("run:\n  max_steps: 1:00:00\n", "run.max_steps", "base-60"),
])
def test_yaml_1_1_octal_and_base_60_numbers_are_refused_saying_what_to_write(tmp_path, text, key, fragment):
    """YAML 1.1 reads `side: 010` as 8 and `max_minutes: 1:30` as 90, which nobody who writes them
    means: refused, naming the key and what to write instead."""
    path = tmp_path / "c.yaml"
    path.write_text(text)
    with pytest.raises(ConfigError) as info:
        load_config(path)
    message = str(info.value)
    assert message.startswith(key) and fragment in message and "\n" not in message, message
    name = key.rpartition(".")[2]
    with pytest.raises(ConfigError, match=fragment.replace("-", r"\-")):  # --set reads values the same way
        config_from_dict(parse_overrides([f"{key}={text.split(name + ': ')[1].strip()}"]))


def test_octal_and_base_60_looking_strings_stay_as_written_and_other_forms_still_read():
    config = config_from_dict(parse_overrides(["run.name=010", "run.root=runs/1:30", "net.device=cpu"]))
    assert config.run.name == "010" and config.run.root == "runs/1:30"
    assert config_from_dict(parse_overrides(["run.name=12:30"])).run.name == "12:30"
    # What people do mean: plain integers, 0, underscores, hex, exponents, decimals with a zero.
    assert config_from_dict(parse_overrides(["game.side=0x8", "seed=0", "replay.capacity=1_000",
                                             "run.max_minutes=0.5"])).game.side == 8
    assert config_from_dict(parse_overrides(["replay.capacity=1_000"])).replay.capacity == 1000
    assert config_from_dict(parse_overrides(["run.max_minutes=0.5"])).run.max_minutes == 0.5


@pytest.mark.parametrize("char", ["\x1b", "\x00", "\u202e", "\u2066", "\u200f", "\x7f", "\x85", "\u2028", "\t"])
@pytest.mark.parametrize("key", ["run.name", "run.root", "train.init_from"])
def test_names_and_paths_with_control_or_bidi_characters_are_refused(tmp_path, char, key):
    """ESC starts a terminal sequence, U+202E reverses the text after it and NUL ends a C path (an
    internal error at mkdir): a run.name (a folder) or a path holding one is refused, one line."""
    section, name = key.split(".")
    escaped = char.encode("unicode_escape").decode("ascii")  # a double-quoted YAML escape
    path = tmp_path / "c.yaml"
    path.write_text(f'{section}:\n  {name}: "a{escaped}b"\n')
    with pytest.raises(ConfigError) as info:
        load_config(path)
    message = str(info.value)
    assert f"{key} must not contain control or formatting characters" in message, message
    assert f"U+{ord(char):04X} at position 2" in message and char not in message


def test_run_config_itself_refuses_a_hidden_character_in_its_name():
    """A --run-name or a config file's name becomes run.name by dataclasses.replace, not the loader."""
    import dataclasses

    from catena_zero.config import RunConfig

    with pytest.raises(ConfigError, match="run.name must not contain"):
        dataclasses.replace(RunConfig(), name="x\x1b[2Jy")
    assert RunConfig(name="run 2 \u00e9t\u00e9").name == "run 2 \u00e9t\u00e9"  # spaces and accents are fine


def test_train_refuses_a_run_name_with_hidden_characters_before_any_work(tmp_path, capsys, monkeypatch):
    import catena_zero.train.driver as driver

    monkeypatch.setattr(driver, "train", lambda *a, **k: pytest.fail("training must not start"))
    config = tmp_path / "c.yaml"
    config.write_text(f"run:\n  root: {tmp_path / 'runs'}\n")
    err = _cli_error(capsys, ["train", "--config", str(config), "--run-name", "a\x1b[31mb"])
    assert "--run-name must not contain control or formatting characters" in err and "U+001B at position 2" in err
    assert "\x1b" not in err and not (tmp_path / "runs").exists()
    err = _cli_error(capsys, ["train", "--config", str(config), "--run-name", "a\u202eb"])
    assert "U+202E" in err
