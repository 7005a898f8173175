"""The engine protocol against hostile input: huge numeric ids and arguments are answered
with '?', and arbitrary lines (hypothesis) never raise, never end the session but for quit, and
always get one well-formed reply."""

from __future__ import annotations

import io
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot_files import save_tiny_checkpoint
from catena_zero.bot import Bot, RuleSet
from catena_zero.bot.engine import MAX_DIGITS, Engine
from catena_zero.artifacts.botfile import export_bot
from catena_zero.artifacts.checkpoint import load_checkpoint

REPLY = re.compile(r"^[=?][0-9]*( [^\n]*)?\n([^\n]+\n)*\n$")


@pytest.fixture(scope="module")
def bot(tmp_path_factory):
    root = tmp_path_factory.mktemp("engine-props")
    out = root / "tiny.bot"
    rules = [RuleSet(3, "komi", "standard"), RuleSet(3, "double", "quadratic")]
    export_bot(load_checkpoint(save_tiny_checkpoint(root / "run")), out, trained_for=rules)
    return Bot.load(out, simulations=2, device="cpu")


def session(bot, lines: list[str]) -> tuple[str, str]:
    out, err = io.StringIO(), io.StringIO()
    assert Engine(bot).run(io.StringIO("".join(line + "\n" for line in lines)), out, err) == 0
    return out.getvalue(), err.getvalue()


@pytest.mark.parametrize("line", ["9" * 4300 + " name", "9" * 5000, "1" * (MAX_DIGITS + 1) + " name",
                                  "komi " + "9" * 5000, "options side " + "9" * 5000, "analyze " + "9" * 5000,
                                  "options side \u00b2", "komi \u0663", "analyze \u00b2"])
def test_huge_or_odd_numbers_are_answered_without_a_traceback(bot, line):
    out, err = session(bot, [line, "name"])
    replies = out.split("\n\n")[:-1]
    assert len(replies) == 2 and replies[0].startswith("?") and "internal error" not in out, out
    assert replies[1] == "= catena-zero" and err == "", err


def test_an_id_of_the_most_digits_is_echoed(bot):
    out, _ = session(bot, ["9" * MAX_DIGITS + " name"])
    assert out == f"={'9' * MAX_DIGITS} catena-zero\n\n"


_words = st.sampled_from(["play", "genmove", "komi", "options", "side", "type", "scoring", "undo", "analyze",
                          "final_score", "legal_moves", "showboard", "clear_board", "gencolour", "genkomi",
                          "known_command", "black", "white", "b", "w", "A1", "C3", "button", "double", "quadratic",
                          "0", "3", "15", "-1", "9" * 5000, "\u00b2", "#", "\x1b[31m", "\x00", "\u2028"])
_lines = st.lists(_words | st.text(max_size=12), max_size=6).map(" ".join) | st.text(max_size=40)


@given(st.lists(_lines, min_size=1, max_size=8))
def test_arbitrary_lines_never_raise_and_get_well_formed_replies(bot, lines):
    lines = [line.replace("\n", " ").replace("\r", " ") for line in lines if not line.split("#")[0].strip().startswith("quit")]
    out, err = session(bot, lines + ["name"])
    assert "internal error" not in out and err == "", (lines, out, err)
    for reply in re.findall(r"[=?][^\n]*\n(?:[^\n]+\n)*\n", out):
        assert REPLY.match(reply), reply
    assert out.endswith("= catena-zero\n\n")  # the session went on to the end


@pytest.mark.slow
@settings(max_examples=1000)
@given(st.lists(_lines, min_size=1, max_size=12))
def test_arbitrary_lines_many_examples(bot, lines):
    test_arbitrary_lines_never_raise_and_get_well_formed_replies.hypothesis.inner_test(bot, lines)


def test_error_lines_carry_no_terminal_escapes_or_control_characters(capsys):
    """Torch's coloured messages (ANSI escapes) reach users through error lines: they are stripped."""
    from catena_zero.cli import main
    from catena_zero.messages import one_line

    assert one_line("\x1b[1m\x1b[31mRuntimeError\x1b[0m: bad\x00 size\n\tmismatch\u2028x") == "RuntimeError: bad size mismatch x"
    import catena_zero.commands.random_game as random_game

    from catena_zero.errors import UserError

    def coloured(args, error=UserError):
        raise error("\x1b[31mError(s) in loading state_dict\x1b[0m:\x07 size mismatch")

    original = random_game.run
    random_game.run = coloured
    try:
        assert main(["random-game"]) == 2
        err = capsys.readouterr().err
        assert err == "catena-zero: error: Error(s) in loading state_dict: size mismatch\n", repr(err)
        random_game.run = lambda args: coloured(args, RuntimeError)  # a bug's line is cleaned too
        assert main(["random-game"]) == 70
        err = capsys.readouterr().err
        assert err.startswith("catena-zero: internal error: RuntimeError: Error(s) in loading state_dict: size "
                              "mismatch (this is a bug") and err.count("\n") == 1, repr(err)
    finally:
        random_game.run = original
