"""The game-type records (game/gametypes.py ``GameType``, R7, R8): every game type the options
name has one, what each says matches the rules played by both engines and the match, and no
module outside the record decides anything by comparing a value with a game-type name."""

from __future__ import annotations

import argparse
import ast
from pathlib import Path

import numpy as np
import pytest

import catena_zero
from catena_zero.errors import UserError
from catena_zero.game.gametypes import DOUBLE, GAME_TYPE_RULES, KOMI, NO_KOMI, GameType, game_type_rule
from catena_zero.game.match import Match
from catena_zero.game.options import GAME_TYPES, GameConfig, RuleSet
from catena_zero.game.rules import Game
from catena_zero.game.vec import VecEnv

PACKAGE = Path(catena_zero.__file__).resolve().parent
RECORD = PACKAGE / "game" / "gametypes.py"  # the one module that may compare game-type names
NAMES = {"komi", "no_komi", "double"}
RECORD_CONSTANTS = {"KOMI", "NO_KOMI", "DOUBLE"}
# A match's phase (game/match.py ``Match.phase``) is also spelled "komi", and is not a game type:
# a comparison whose other side is a ``phase`` is about the match, not the rules.
PHASES = {"phase"}


def test_every_game_type_the_options_name_has_its_record():
    assert GAME_TYPES == ("komi", "no_komi", "double")  # the order of the network's one-hot input
    assert [rule.name for rule in GAME_TYPE_RULES] == list(GAME_TYPES)
    for index, name in enumerate(GAME_TYPES):
        rule = game_type_rule(name)
        assert isinstance(rule, GameType) and rule.name == name and rule.index == index
        assert GameConfig(game_type=name).game_type_rule is rule
        assert RuleSet(6, name, "standard").game_type_rule is rule
    assert GameConfig().game_type_rule is KOMI  # the default game type


def test_an_unknown_game_type_is_a_one_line_user_error():
    for bad in ("Komi", "", "no-komi", None, 0):
        with pytest.raises(UserError, match=r"^game_type must be one of komi, no_komi, double; got ") as info:
            game_type_rule(bad)
        assert "\n" not in str(info.value)
    with pytest.raises(UserError, match="game_type must be one of"):
        GameConfig(game_type="single")
    with pytest.raises(UserError, match="game_type must be one of"):
        RuleSet(6, "single", "standard")


def _game_type_choices(parser: argparse.ArgumentParser):
    """(command, choices) of every --game-type option of ``parser`` and its subcommands."""
    for action in parser._actions:
        if "--game-type" in action.option_strings:
            yield parser.prog, action.choices
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                yield from _game_type_choices(sub)


def test_every_command_line_choice_of_game_type_has_its_record():
    from catena_zero.cli import build_parser

    found = list(_game_type_choices(build_parser()))
    assert len(found) >= 5  # play, train, evaluate, komi, serve, ... take --game-type
    for command, choices in found:
        assert tuple(choices) == GAME_TYPES, command


# R7, R8 read by hand: (record, the first player chooses a komi, the second may swap, two stones
# a turn, a button, the colours fixed before play, the button legal on the empty board)
RULES = [
    (KOMI, True, False, False, True, False, True),
    (NO_KOMI, False, True, False, True, False, False),
    (DOUBLE, False, False, True, False, True, False),
]


@pytest.mark.parametrize("rule, komi, swap, two, button, fixed, button_at_start", RULES)
def test_the_records_say_what_the_rules_say(rule, komi, swap, two, button, fixed, button_at_start):
    assert (rule.has_komi, rule.has_swap, rule.two_stones_a_turn, rule.has_button) == (komi, swap, two, button)
    assert (rule.fixed_colours, rule.button_at_start) == (fixed, button_at_start)


@pytest.mark.parametrize("rule, komi, swap, two, button, fixed, button_at_start", RULES)
def test_both_engines_and_the_match_play_what_the_record_says(rule, komi, swap, two, button, fixed,
                                                               button_at_start):
    config = GameConfig(side=3, game_type=rule.name)
    # R7/R8: a komi only where the first player chooses one.
    if komi:
        assert GameConfig(side=3, game_type=rule.name, komi=1).komi == 1
    else:
        with pytest.raises(UserError, match=f"game type '{rule.name}' has no komi"):
            GameConfig(side=3, game_type=rule.name, komi=1)
    env = VecEnv(config)
    for engine_button, after_stone in (_buttons_of_game(config), _buttons_of_env(env)):
        assert engine_button == button_at_start
        assert after_stone == button  # once Black's first stone is down, wherever there is a button
    # R8: after Black's one opening stone, White places two stones in a row.
    game = Game(config)
    game.play("A1")
    game.play("B2")
    assert (game.to_move == "white") == two
    # R7: the match starts with the komi choice; the colours are known at once only under R8.
    match = Match(config)
    assert (match.phase == "komi") == komi
    assert (match.colour_of("first") == "black") == fixed


def _buttons_of_game(config: GameConfig) -> tuple[bool, bool]:
    game = Game(config)
    at_start = game.can_take_button()
    game.play("A1")
    return at_start, game.can_take_button()


def _buttons_of_env(env: VecEnv) -> tuple[bool, bool]:
    state = env.reset(2)
    at_start = bool(env.legal_actions(state)[0, -1])
    env.step(state, np.array([0, 0]))
    return at_start, bool(env.legal_actions(state)[0, -1])


def test_the_one_hot_game_type_input_is_the_records_index():
    from catena_zero.net.features import GLOBAL_GAME_TYPE, encode

    for rule in GAME_TYPE_RULES:
        env = VecEnv(GameConfig(side=3, game_type=rule.name))
        one_hot = encode(env, env.reset(1)).globals[0][GLOBAL_GAME_TYPE:GLOBAL_GAME_TYPE + len(GAME_TYPE_RULES)]
        assert one_hot.tolist() == [1.0 if i == rule.index else 0.0 for i in range(len(GAME_TYPE_RULES))]


def test_the_rules_in_brief_give_every_game_type_its_line():
    from catena_zero.terminal.texts import RULES_TEXT

    r7_r8 = RULES_TEXT.split("\nR7 ")[1]
    flat = " ".join(line.strip() for line in r7_r8.replace("R8 ", "").splitlines())
    for rule in GAME_TYPE_RULES:
        assert f"{rule.name}: {rule.summary}" in flat


def _names_game_types(node: ast.AST) -> bool:
    """Whether ``node`` is a game type's name: the literal (``"double"``), a record's ``.name``
    (``DOUBLE.name``), or a literal tuple, list or set of them alone (a collection mixing in
    other words, such as ``("komi", "seed")`` of a ladder entry's fields, is not about game types)."""
    if isinstance(node, ast.Constant):
        return node.value in NAMES
    if isinstance(node, ast.Attribute):
        return node.attr == "name" and isinstance(node.value, ast.Name) and node.value.id in RECORD_CONSTANTS
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return bool(node.elts) and all(_names_game_types(e) for e in node.elts)
    return False


def _is_phase(node: ast.AST) -> bool:
    """Whether ``node`` is a match's phase (``phase``, ``match.phase``)."""
    name = node.attr if isinstance(node, ast.Attribute) else node.id if isinstance(node, ast.Name) else ""
    return name in PHASES


def _compared_game_types(source: str, path: Path) -> list[str]:
    """Where ``source`` compares a value with a game type's name (==, !=, in, not in, a match case)."""
    found = []
    for node in ast.walk(ast.parse(source, str(path))):
        if isinstance(node, ast.Compare) and any(isinstance(op, (ast.Eq, ast.NotEq, ast.In, ast.NotIn))
                                                 for op in node.ops):
            sides = (node.left, *node.comparators)
            if any(_names_game_types(side) for side in sides) and not any(_is_phase(side) for side in sides):
                found.append(f"{path}:{node.lineno}: {ast.unparse(node)}")
        elif isinstance(node, ast.MatchValue) and _names_game_types(node.value):
            found.append(f"{path}:{node.lineno}: case {ast.unparse(node.value)}")
    return found


def test_no_module_outside_the_record_compares_game_type_names():
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.resolve() != RECORD.resolve():
            found += _compared_game_types(path.read_text(encoding="utf-8"), path.relative_to(PACKAGE))
    assert not found, "ask game/gametypes.py's GameType instead:\n" + "\n".join(found)


@pytest.mark.parametrize("source", [
    'if config.game_type == "komi":\n    pass',
    'x = 0 if game.game_type != "komi" else k',
    'double = config.game_type == "double"',
    'if rules.game_type in ("no_komi", "double"):\n    pass',
    'if game_type not in ["komi"]:\n    pass',
    'ok = "no_komi" == kind',
    'if config.game_type == NO_KOMI.name:\n    pass',
    'match config.game_type:\n    case "double":\n        pass',
])
def test_the_check_catches_the_old_ways(source):
    assert _compared_game_types(source, Path("old.py"))


@pytest.mark.parametrize("source", [
    'ok = name in ("komi", "seed")',  # field names, not game types
    'if match.phase == "komi":\n    pass',  # the match's phase

    'line = f"game-type {rules.game_type}"',
    'same = a.game_type == b.game_type',
    'rule = game_type_rule(config.game_type)',
])
def test_the_check_leaves_other_words_alone(source):
    assert not _compared_game_types(source, Path("new.py"))
