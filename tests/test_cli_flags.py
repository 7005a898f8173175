"""The rule flags (--side, --game-type, --scoring) and --threads are declared once, in
commands/common.py, and every command that has them gets them from there; torch's threads are set
by one function, ``common.set_threads``."""

from __future__ import annotations

import argparse
import io
import sys
from contextlib import redirect_stdout
from pathlib import Path

import pytest

from catena_zero import cli
from catena_zero.bot.shipped import SHIPPED_DIR
from catena_zero.commands import common
from catena_zero.game.options import GAME_TYPES, SCORINGS

FLAGS = ("--side", "--game-type", "--scoring", "--threads")
HELPERS = {"--side": common.add_rule_flags, "--game-type": common.add_rule_flags, "--scoring": common.add_rule_flags,
           "--threads": common.add_threads_flag}
COMMANDS_DIR = Path(cli.__file__).parent / "commands"
RULES = ["--game-type", "--scoring", "--side"]
# The commands that have the flags, as their --help says.
HAVE = {"play": sorted(FLAGS), "random-game": RULES, "evaluate": sorted(FLAGS), "ladder": ["--threads"],
        "book": RULES, "ablate": ["--threads"], "komi": ["--scoring", "--side", "--threads"], "analyze": ["--threads"],
        "engine": sorted(FLAGS), "analysis": sorted(FLAGS), "serve": sorted(FLAGS), "komi-check": ["--side"], "optimal-moves": ["--side"]}


def _who_adds_the_flags(monkeypatch) -> dict[str, dict[str, str]]:
    """command -> {flag: the function that added it}, building the whole command line."""
    added: dict[str, dict[str, str]] = {}
    real = argparse.ArgumentParser.add_argument

    def add_argument(self, *names, **kwargs):
        for name in names:
            if name in FLAGS:
                added.setdefault(self.prog.split()[-1], {})[name] = sys._getframe(1).f_code.co_name
        return real(self, *names, **kwargs)

    monkeypatch.setattr(argparse.ArgumentParser, "add_argument", add_argument)
    cli.build_parser()
    return added


def test_every_command_gets_its_rule_flags_and_threads_from_the_one_helper(monkeypatch):
    added = _who_adds_the_flags(monkeypatch)
    assert {command: sorted(flags) for command, flags in added.items()} == HAVE
    for command, flags in added.items():
        for flag, function in flags.items():
            assert function == HELPERS[flag].__name__, (command, flag, function)


def test_the_flags_take_what_their_one_declaration_says():
    parser = cli.build_parser()
    commands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction)).choices
    seen: dict[str, list[str]] = {}
    for name, sub in commands.items():
        for action in sub._actions:
            flag = next((s for s in action.option_strings if s in FLAGS), None)
            if flag is None:
                continue
            seen.setdefault(name, []).append(flag)
            assert (action.type, action.choices, action.default) == {
                "--side": (int, None, None), "--game-type": (None, GAME_TYPES, None),
                "--scoring": (None, SCORINGS, None), "--threads": (common.thread_count, None, 1)}[flag], (name, flag)
    assert {name: sorted(flags) for name, flags in seen.items()} == HAVE


@pytest.mark.parametrize("command", ["play", "serve", "komi", "engine", "analysis", "evaluate", "ladder", "analyze"])
@pytest.mark.parametrize("threads", ["0", "257", "100000", str(2 ** 40), "2**40", "many"])
def test_threads_out_of_range_are_one_line_for_every_command(command, threads, capsys):
    # torch aborts the process on 2**40 threads and crashes (SIGSEGV) on 100,000: refused as typed.
    assert cli.main([command, "--threads", threads]) == 2
    err = capsys.readouterr().err
    assert err.startswith("catena-zero: error: argument --threads: ") and err.count("\n") == 1, err


@pytest.mark.parametrize("command", ["play", "serve", "engine", "analysis"])
@pytest.mark.parametrize("seconds", ["inf", "nan", "-1", "0", "1e9", "soon"])
def test_seconds_per_move_must_be_a_finite_time_for_every_bot_command(command, seconds, capsys):
    assert cli.main([command, "--seconds", seconds]) == 2
    err = capsys.readouterr().err
    assert err.startswith("catena-zero: error: argument --seconds: ") and err.count("\n") == 1, err


def test_no_command_module_declares_these_flags_or_sets_torch_threads_itself():
    """A command adds the flags and sets torch's threads through common.py only (the flags'
    names may appear in messages)."""
    for path in sorted(COMMANDS_DIR.glob("*.py")):
        if path.name == "common.py":
            continue
        text = path.read_text()
        for flag in FLAGS:
            assert f'add_argument("{flag}"' not in text, (path.name, flag)
        assert "set_num_threads" not in text, path.name


@pytest.mark.parametrize("argv", [["komi", "--bot", str(SHIPPED_DIR / "side4.bot"), "--threads", "3"]])
def test_threads_are_applied_by_the_one_function(monkeypatch, argv):
    import torch

    calls: list[int] = []
    monkeypatch.setattr(torch, "set_num_threads", calls.append)
    with redirect_stdout(io.StringIO()):
        assert cli.main(argv) == 0
    assert calls == [3]
    common.set_threads(2)
    assert calls == [3, 2]


def test_the_game_commands_say_the_defaults_of_the_game():
    helps = common.game_rule_helps(defaults=True)
    assert helps == {"side": "cells per board edge, 2..10 (R1); default 6", "game_type": "R7/R8; default komi",
                     "scoring": "R6; default standard"}
    assert common.game_rule_helps(defaults=False) == {"side": "cells per board edge, 2..10 (R1)",
                                                      "game_type": "R7/R8", "scoring": "R6"}
