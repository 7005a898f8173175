"""The scoring records (game/scoring.py ``ScoringRule``, R6): every scoring the options name has
one, its numbers are the ones the house used before the records (the network's inputs, the
search's score unit, the komi ranges and self-play's spread depend on them), and no module
outside the record decides anything by comparing scoring names."""

from __future__ import annotations

import argparse
import ast
import math
from pathlib import Path

import pytest

import catena_zero
from catena_zero.errors import UserError
from catena_zero.game.options import SCORINGS, GameConfig, RuleSet, komi_range
from catena_zero.game.scoring import SCORING_RULES, ScoringRule, scoring_rule
from catena_zero.net.features import GLOBAL_SCORING, score_scale
from catena_zero.search.utility import score_utility_unit

PACKAGE = Path(catena_zero.__file__).resolve().parent
RECORD = PACKAGE / "game" / "scoring.py"  # the one module that may name a scoring type


def test_every_scoring_the_options_name_has_its_record():
    assert SCORINGS == ("standard", "longest", "quadratic")  # the order of the network's one-hot input
    assert [rule.name for rule in SCORING_RULES] == list(SCORINGS)
    for index, name in enumerate(SCORINGS):
        rule = scoring_rule(name)
        assert isinstance(rule, ScoringRule) and rule.name == name and rule.index == index
        assert GameConfig(scoring=name).scoring_rule is rule
        assert RuleSet(6, "komi", name).game().scoring_rule is rule


def _scoring_choices(parser: argparse.ArgumentParser):
    """(command, choices) of every --scoring option of ``parser`` and its subcommands."""
    for action in parser._actions:
        if "--scoring" in action.option_strings:
            yield parser.prog, action.choices
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                yield from _scoring_choices(sub)


def test_every_command_line_choice_of_scoring_has_its_record():
    from catena_zero.cli import build_parser

    found = list(_scoring_choices(build_parser()))
    assert len(found) >= 5  # play, train, evaluate, komi, serve, ... take --scoring
    for command, choices in found:
        assert tuple(choices) == SCORINGS, command
        assert all(scoring_rule(name).name == name for name in choices)


def test_an_unknown_scoring_is_a_one_line_user_error():
    for bad in ("Standard", "", "area", None, 3):
        with pytest.raises(UserError, match=r"^scoring must be one of standard, longest, quadratic; got ") as info:
            scoring_rule(bad)
        assert "\n" not in str(info.value)
    with pytest.raises(UserError, match="scoring must be one of"):
        GameConfig(scoring="area")
    with pytest.raises(UserError, match="scoring must be one of"):
        komi_range("area")


# (name, komi range, has a margin, reads the ribbons' lengths, a margin's natural size on N cells,
# komi scale of self-play's spread)
NUMBERS = [
    ("standard", (0, 15), True, False, math.sqrt, 1.0),
    ("longest", (0, 15), False, True, math.sqrt, 1.0),
    ("quadratic", (0, 1000), True, True, float, 1000 / 15.0),
]


@pytest.mark.parametrize("name, komi, margin, lengths, unit_of, komi_scale", NUMBERS)
def test_the_records_numbers_are_the_houses(name, komi, margin, lengths, unit_of, komi_scale):
    rule = scoring_rule(name)
    assert rule.komi_range == komi_range(name) == komi
    assert (rule.has_margin, rule.reads_lengths) == (margin, lengths)
    assert rule.komi_scale == komi_scale  # exactly: self-play's komi_std * scale draws the same komi
    for side in (2, 3, 6, 10):
        cells = 3 * side * (side - 1) + 1
        game = GameConfig(side=side, scoring=name)
        assert rule.margin_unit(cells) == score_utility_unit(game) == unit_of(cells)  # the unit before the records
        assert score_scale(game) == float(komi[1])  # features: margins and komi in komi-maximum units


def test_the_one_hot_scoring_input_is_the_records_index():
    from catena_zero.game.vec import VecEnv
    from catena_zero.net.features import encode

    for rule in SCORING_RULES:
        env = VecEnv(GameConfig(side=3, scoring=rule.name))
        globals_ = encode(env, env.reset(1)).globals[0]
        one_hot = globals_[GLOBAL_SCORING:GLOBAL_SCORING + len(SCORING_RULES)]
        assert one_hot.tolist() == [1.0 if i == rule.index else 0.0 for i in range(len(SCORING_RULES))]


def test_the_rules_in_brief_give_every_scoring_its_line():
    from catena_zero.terminal.texts import RULES_TEXT

    r6 = RULES_TEXT.split("\nR6 ")[1].split("\nR7 ")[0]
    flat = " ".join(line.strip() for line in r6.splitlines())
    for rule in SCORING_RULES:
        assert f"{rule.name}: {rule.summary}" in flat


def _named_scorings(source: str, path: Path) -> list[str]:
    """Where ``source`` names a scoring type: a string literal that is exactly a scoring's name
    (``"longest"``), or an ==/!= comparison with a ``scoring`` value (``config.scoring == x``)."""
    found = []
    for node in ast.walk(ast.parse(source, str(path))):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in SCORINGS:
            found.append(f"{path}:{node.lineno}: the literal {node.value!r}")
        elif isinstance(node, ast.Compare) and any(isinstance(op, (ast.Eq, ast.NotEq)) for op in node.ops):
            for side in (node.left, *node.comparators):
                name = side.attr if isinstance(side, ast.Attribute) else side.id if isinstance(side, ast.Name) else ""
                if name == "scoring":
                    found.append(f"{path}:{node.lineno}: a comparison with {ast.unparse(side)}")
    return found


def test_no_module_outside_the_record_compares_scoring_names():
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.resolve() != RECORD.resolve():
            found += _named_scorings(path.read_text(encoding="utf-8"), path.relative_to(PACKAGE))
    assert not found, "ask game/scoring.py's ScoringRule instead:\n" + "\n".join(found)


@pytest.mark.parametrize("source", [
    'if config.scoring == "longest":\n    pass',
    'lengths = None if self.config.scoring == "standard" else 1',
    'x = (0, 1000) if scoring == "quadratic" else (0, 15)',
    'choices = ("standard", "longest", "quadratic")',
    'if game.scoring != STANDARD.name:\n    pass',
])
def test_the_check_catches_the_old_ways(source):
    assert _named_scorings(source, Path("old.py"))
