"""Each config field declares what it takes once, beside the field (config/fields.py), and that
declaration is what is enforced: walking every section, a value at each end of a number's declared
range is accepted and one just outside is refused naming the key; every choice of a choice field
is accepted and another refused; NUMERIC_RANGES is the declarations' table."""

from __future__ import annotations

import dataclasses
import math
import typing

import pytest

from catena_zero.config import NUMERIC_RANGES, Config, ConfigError, NetConfig, config_from_dict
from catena_zero.config.fields import Rule, number, problems, rule_of
from catena_zero.config.sections import GAME_RANGES


def declared() -> list[tuple[str, str, type, Rule]]:
    """(section, field, its type, its Rule) of every declared field; section "" is the root."""
    found = []
    hints = typing.get_type_hints(Config)
    for f in dataclasses.fields(Config):
        owner = hints[f.name]
        if typing.get_origin(owner) is tuple:  # stages: a list of stages (tests/test_stages.py checks them)
            continue
        if not dataclasses.is_dataclass(owner):
            owner, section, fields = Config, "", [f]
        else:
            section, fields = f.name, dataclasses.fields(owner)
        for g in fields:
            rule = rule_of(g)
            if rule is not None:
                kind = typing.get_type_hints(owner)[g.name]
                if typing.get_origin(kind) is typing.Union:  # Optional[int]
                    kind = next(a for a in typing.get_args(kind) if a is not type(None))
                found.append((section, g.name, kind, rule))
    return found


NUMBERS = [(s, n, k, r) for s, n, k, r in declared() if r.span is not None]
CHOICES = [(s, n, k, r) for s, n, k, r in declared() if r.choices]


def _key(section: str, name: str) -> str:
    return f"{section}.{name}" if section else name


def _load(section: str, name: str, value) -> Config:
    """A config with one value set; the run gets a bound, which train.anneal_share needs (a check
    across sections), unless that bound is the field set."""
    data: dict = {"run": {"max_steps": 10}}
    (data.setdefault(section, {}) if section else data)[name] = value
    return config_from_dict(data)


def _value(config: Config, section: str, name: str):
    return getattr(getattr(config, section) if section else config, name)


def _refused(section: str, name: str, value) -> str:
    with pytest.raises(ConfigError) as info:
        _load(section, name, value)
    message = str(info.value)
    assert message.startswith(f"{_key(section, name)} must be ") and "\n" not in message, message
    return message


def test_the_walk_finds_every_section_and_every_number():
    sections = {s for s, _, _, _ in declared()}
    assert sections == {"", "net", "search", "selfplay", "replay", "train", "eval", "run", "finish"}
    # The table is the declarations' (and the game section's, which the game layer checks itself).
    table = {_key(s, n): r.span for s, n, _, r in NUMBERS}
    table.update({f"game.{name}": span for name, span in GAME_RANGES.items()})
    # A stage's numbers (stages.*) are its own section's, checked per stage (tests/test_stages.py).
    assert {key: span for key, span in NUMERIC_RANGES.items() if not key.startswith("stages.")} == table


@pytest.mark.parametrize("section, name, kind, rule", NUMBERS, ids=[_key(s, n) for s, n, _, _ in NUMBERS])
def test_each_number_takes_its_declared_range_and_refuses_just_outside_it(section, name, kind, rule):
    lo, hi = rule.span
    low_ok, high_ok = rule.ok(lo), rule.ok(hi)  # a strict bound (> 0, < 1) refuses its own end
    step = (lambda x, way: x + way) if kind is int else (lambda x, way: math.nextafter(x, way * math.inf))
    inside_lo, inside_hi = (lo, hi) if kind is int else (lo if low_ok else step(lo, 1), hi if high_ok else step(hi, -1))
    for value in (inside_lo, inside_hi):
        assert _value(_load(section, name, value), section, name) == value
    below = step(lo, -1) if low_ok else lo
    above = step(hi, 1) if high_ok else hi
    assert _refused(section, name, below)
    assert _refused(section, name, above)


@pytest.mark.parametrize("section, name, kind, rule", CHOICES, ids=[_key(s, n) for s, n, _, _ in CHOICES])
def test_each_choice_field_takes_its_declared_choices_and_refuses_another(section, name, kind, rule):
    entries = typing.get_origin(kind) is tuple
    for choice in rule.choices:
        config = _load(section, name, [choice] if entries else choice)
        assert _value(config, section, name) == ((choice,) if entries else choice)
    if entries:
        with pytest.raises(ConfigError, match=rf"^{section}\.{name} entries must be .*'nonsense'$"):
            _load(section, name, ["nonsense"])
    else:
        assert _refused(section, name, "nonsense").endswith("got 'nonsense'")


def test_list_entries_and_devices_are_checked_by_their_declarations():
    with pytest.raises(ConfigError, match=r"^selfplay\.sides entries must be in 2\.\.10, got 11$"):
        config_from_dict({"selfplay": {"sides": [3, 11]}})
    assert config_from_dict({"selfplay": {"sides": [2, 10]}}).selfplay.sides == (2, 10)
    for key in ("net", "train"):
        assert getattr(config_from_dict({key: {"device": "cuda:1"}}), key).device == "cuda:1"
        with pytest.raises(ConfigError, match=rf"^{key}\.device must be 'auto', 'cpu' or 'cuda\[:i\]', got 'gpu'$"):
            config_from_dict({key: {"device": "gpu"}})
    with pytest.raises(ConfigError, match=r"^run\.name must be a plain folder name, got '\.\.'$"):
        config_from_dict({"run": {"name": ".."}})


def test_the_meaningful_bounds_hold_on_every_construction_not_only_when_loaded():
    """dataclasses.replace (a --run-name, code) runs the declared checks too; only the documented
    range's top (the absurd) waits for the loader."""
    with pytest.raises(ConfigError, match=r"^net\.blocks must be >= 1, got 0$"):
        dataclasses.replace(NetConfig(), blocks=0)
    assert NetConfig(blocks=10_000).blocks == 10_000  # over 128, refused only when loaded:
    with pytest.raises(ConfigError, match=r"^net\.blocks must be in 1\.\.128, got 10000$"):
        config_from_dict({"net": {"blocks": 10_000}})


def test_the_words_of_a_message_are_derived_from_the_declaration():
    @dataclasses.dataclass(frozen=True)
    class Section:
        a: int = number(1, ge=1, up_to=10)
        b: float = number(0.5, gt=0, le=1)
        c: float = number(0.5, ge=0, lt=1)
        d: typing.Optional[float] = number(None, gt=0, up_to=5)
        e: int = number(0, ge=0, up_to=9, noun="a whole number")

    assert list(problems(Section(), "s.")) == []
    bad = Section(a=0, b=0.0, c=1.0, d=-1.0, e=-1)
    assert list(problems(bad, "s.")) == [
        "s.a must be >= 1, got 0", "s.b must be in (0, 1], got 0.0", "s.c must be in [0, 1), got 1.0",
        "s.d must be > 0 or null, got -1.0", "s.e must be a whole number >= 0, got -1"]
    assert [rule_of(f).span for f in dataclasses.fields(Section)] == [(1, 10), (0, 1), (0, 1), (0, 5), (0, 9)]
