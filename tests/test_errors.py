"""User errors against bugs (errors.py, cli.main): a ``UserError`` or ``OSError`` is one line
``catena-zero: error: ...`` with exit status 2; any other exception is a one-line internal error
with exit status 70, its traceback only with ``--debug`` or ``CATENA_ZERO_DEBUG=1``; inputs that
used to reach a plain ``ValueError`` are still user errors; the engine and the page answer bad
input and treat a bug as a bug."""

from __future__ import annotations

import io
import sys
import types

import pytest

from catena_zero import cli
from catena_zero.bot.engine import Engine
from catena_zero.bot.shipped import SHIPPED_DIR
from catena_zero.cli import main
from catena_zero.commands import random_game
from catena_zero.errors import UserError
from catena_zero.game import GameConfig
from catena_zero.game.notation import parse_move

BOT = str(SHIPPED_DIR / "side4.bot")  # a real bot file, so the error is the flag's, not a missing file
BUG_NOTE = "(this is a bug in catena-zero; please report it with the command you ran"


@pytest.fixture(autouse=True)
def no_debug_env(monkeypatch):
    monkeypatch.delenv(cli.DEBUG_ENV, raising=False)


def run(argv, capsys, monkeypatch, stdin: str = ""):
    monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def assert_user_error(code, err, fragment):
    assert code == 2, err
    assert err.startswith("catena-zero: error: ") and err.count("\n") == 1, err
    assert "Traceback" not in err and "internal error" not in err and fragment in err, err


def raising(exc: BaseException):
    def run_command(args):
        raise exc
    return run_command


# ------------------------------------------------------------------------------- the classes


def test_the_error_family_keeps_its_old_bases():
    """Every exception class of the package is a UserError (and a ValueError) or a named signal:
    tests/test_architecture.py walks the package for them. Here: the bases callers relied on."""
    from catena_zero.train.learner import TrainingDiverged

    assert issubclass(TrainingDiverged, RuntimeError)  # callers that caught RuntimeError still do
    assert not issubclass(ValueError, UserError)


# ------------------------------------------------------------------------------- cli.main


def test_a_user_error_is_one_line_with_status_2(capsys, monkeypatch):
    code, _, err = run(["random-game", "--side", "12"], capsys, monkeypatch)
    assert_user_error(code, err, "side must be in 2..10")


def test_a_user_error_raised_by_a_command_is_one_line(capsys, monkeypatch):
    monkeypatch.setattr(random_game, "run", raising(UserError("the thing is wrong")))
    code, _, err = run(["random-game"], capsys, monkeypatch)
    assert_user_error(code, err, "catena-zero: error: the thing is wrong")


def test_an_os_error_is_a_user_error(tmp_path, capsys, monkeypatch):
    code, _, err = run(["random-game", "--config", str(tmp_path / "missing.yaml")], capsys, monkeypatch)
    assert_user_error(code, err, "cannot read config")
    monkeypatch.setattr(random_game, "run", raising(PermissionError(13, "Permission denied", "out.txt")))
    code, _, err = run(["random-game"], capsys, monkeypatch)
    assert_user_error(code, err, "Permission denied")


@pytest.mark.parametrize("exc", [ZeroDivisionError("division by zero"), ValueError("a plain value error"),
                                 RuntimeError("a plain runtime error"), KeyError("key"), TypeError("bad type")])
def test_a_bug_is_an_internal_error_with_status_70_and_no_traceback(exc, capsys, monkeypatch):
    monkeypatch.setattr(random_game, "run", raising(exc))
    code, _, err = run(["random-game"], capsys, monkeypatch)
    assert code == cli.EX_SOFTWARE == 70, err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    name = type(exc).__name__
    assert err.startswith(f"catena-zero: internal error: {name}: {cli.one_line(exc)} {BUG_NOTE}"), err
    assert err.rstrip().endswith("rerun with --debug or CATENA_ZERO_DEBUG=1 for the traceback)"), err


def test_a_bug_without_a_message_names_its_type(capsys, monkeypatch):
    monkeypatch.setattr(random_game, "run", raising(AssertionError()))
    code, _, err = run(["random-game"], capsys, monkeypatch)
    assert code == 70 and err.startswith(f"catena-zero: internal error: AssertionError {BUG_NOTE}"), err


@pytest.mark.parametrize("argv", [["--debug", "random-game"], ["random-game", "--debug"],
                                  ["random-game", "--side", "3", "--debug"]])
def test_debug_flag_prints_the_traceback_of_a_bug(argv, capsys, monkeypatch):
    monkeypatch.setattr(random_game, "run", raising(ZeroDivisionError("boom")))
    code, _, err = run(argv, capsys, monkeypatch)
    assert code == 70
    assert err.startswith("Traceback (most recent call last):") and "ZeroDivisionError: boom\n" in err, err
    assert "in run_command" in err  # the frame that raised
    last = err.rstrip("\n").splitlines()[-1]
    assert last.startswith(f"catena-zero: internal error: ZeroDivisionError: boom {BUG_NOTE}"), err
    assert "rerun with" not in last and "the traceback above" in last


@pytest.mark.parametrize("value, shown", [("1", True), ("yes", True), ("0", False), ("", False)])
def test_debug_environment_variable(value, shown, capsys, monkeypatch):
    monkeypatch.setenv(cli.DEBUG_ENV, value)
    monkeypatch.setattr(random_game, "run", raising(ZeroDivisionError("boom")))
    code, _, err = run(["random-game"], capsys, monkeypatch)
    assert code == 70 and ("Traceback" in err) == shown, err
    assert err.rstrip("\n").splitlines()[-1].startswith("catena-zero: internal error: ZeroDivisionError: boom")


def test_debug_shows_the_traceback_of_a_user_error_too(capsys, monkeypatch):
    code, _, err = run(["--debug", "random-game", "--side", "12"], capsys, monkeypatch)
    assert code == 2 and err.startswith("Traceback (most recent call last):"), err
    last = err.rstrip("\n").splitlines()[-1]
    assert last.startswith("catena-zero: error: ") and "side must be in 2..10" in last, err


def test_debug_after_a_double_dash_is_not_the_flag():
    assert not cli.debug_wanted(["play", "--", "--debug"])
    assert cli.debug_wanted(["play", "--debug", "--"])


def test_interrupt_and_broken_pipe_are_unchanged(capsys, monkeypatch):
    monkeypatch.setattr(random_game, "run", raising(KeyboardInterrupt()))
    code, _, err = run(["random-game"], capsys, monkeypatch)
    assert code == 130 and err == "\ncatena-zero: interrupted\n"


def test_help_lists_the_debug_flag(capsys):
    assert main(["--help"]) == 0
    assert "--debug" in capsys.readouterr().out


# ------------------------------------------- user inputs that used to reach a plain ValueError


@pytest.mark.parametrize(
    "argv, fragment",
    [
        (["evaluate", "mcts:0", "random", "--games", "2"], "needs a positive simulation count"),
        (["evaluate", "random", "nonexistent-agent", "--games", "2"], "unknown player kind 'nonexistent-agent'"),
        (["evaluate", "random", "greedy", "--games", "2", "--side", "3", "--komi", "99"], "komi must be in 0..15"),
        (["evaluate", "random", "greedy", "--games", "2", "--side", "3", "--game-type", "double", "--komi", "2"],
         "has no komi"),
        (["play", "--opponent", "mcts:0"], "positive simulation count"),
        (["play", "--opponent", "mcts"], "needs a simulation count"),
        (["play", "--side", "3", "--komi", "99"], "komi must be in 0..15"),
        (["komi", "--around", "-1"], "--around must be >= 0"),
        (["komi", "--bot", BOT, "--device", "gpu"], "argument --device: must be auto, cpu, cuda or cuda:i, got 'gpu'"),
        (["komi", "--bot", BOT, "--simulations", "0"], "simulations must be a positive whole number"),
        (["komi", "--bot", BOT, "--threads", "0"], "argument --threads: must be in 1..256"),
        (["komi", "--bot", BOT, "--bot-seed", "-1"], "seed must be a non-negative whole number"),
        (["serve", "--bot", BOT, "--port", "70000"], "port must be in 0..65535"),
        (["serve", "--bot", BOT, "--max-seconds", "inf"], "max_seconds must be a number of seconds > 0"),
        (["serve", "--bot", "/nonexistent/x.bot"], "does not exist"),
    ],
)
def test_user_inputs_that_reached_plain_value_errors_are_still_user_errors(argv, fragment, capsys, monkeypatch):
    code, _, err = run(argv, capsys, monkeypatch)
    assert_user_error(code, err, fragment)


@pytest.mark.parametrize("event, fragment", [("C03", "line 8"), ("Z9", "line 8"), ("komi x", "line 8")])
def test_a_record_with_a_bad_event_is_a_user_error(event, fragment, tmp_path, capsys, monkeypatch):
    rec = tmp_path / "r.txt"
    header = "catena-record 1\nside 3\ngame_type komi\nscoring standard\nkomi 0\nstart play\n"
    rec.write_text(f"{header}events\n{event}\nend\n")
    code, _, err = run(["show", str(rec)], capsys, monkeypatch)
    assert_user_error(code, err, fragment)


def test_binary_standard_input_to_show_is_a_user_error(capsys, monkeypatch):
    stdin = io.TextIOWrapper(io.BytesIO(b"catena-record 1\n\xff\xfe\n"), encoding="utf-8")
    monkeypatch.setattr(sys, "stdin", stdin)
    code = main(["show", "-"])
    assert_user_error(code, capsys.readouterr().err, "standard input: not a text record")


def test_bad_notation_raises_a_user_error():
    for text in ("Z99", "D05", "", "komi 3", 5):
        with pytest.raises(UserError):
            parse_move(text, 6)
    with pytest.raises(UserError, match="komi must be in"):
        GameConfig(side=3, komi=99)


# ------------------------------------------------------------------ the engine's '?' replies


@pytest.fixture
def engine():
    return Engine(types.SimpleNamespace(game_config=GameConfig(side=3)))  # these commands never ask the bot


@pytest.mark.parametrize("line, fragment", [("play black Z9", "not a cell of the side-3 board"),
                                            ("play black komi", "set-up choice"),
                                            ("options side 99", "side must be in 2..10"), ("komi 99", "komi must be")])
def test_engine_answers_bad_input_with_a_question_mark(engine, line, fragment):
    reply = engine.handle(line)
    assert reply is not None and not reply.ok and fragment in reply.text, reply
    assert engine.game.history == []


def test_engine_reports_a_bug_as_an_internal_error(engine):
    def broken(args):
        raise ValueError("a plain value error")
    engine._commands["name"] = broken
    engine.stderr = io.StringIO()
    reply = engine.handle("7 name")  # a bug does not end a GUI's session: it answers, with the command's id
    assert (reply.ok, reply.id, reply.text) == (False, 7, "internal error: ValueError: a plain value error")
    assert "Traceback" in engine.stderr.getvalue()
    out, err = io.StringIO(), io.StringIO()
    assert engine.run(io.StringIO("name\nprotocol_version\n"), out, err) == 0
    assert out.getvalue() == "? internal error: ValueError: a plain value error\n\n= 2\n\n"  # and it goes on
    assert "Traceback" in err.getvalue()
