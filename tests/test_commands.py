"""The commands as a person meets them: outputs that go where they are told (files, '-',
/dev/stdout, a pipe closed early), records kept on every way out of a game, the set-up shown
as it is, one result line, and the small helps (version, rules, seats, thinking)."""

from __future__ import annotations

import io
import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest

from catena_zero.bot.players import RandomPlayer
from catena_zero.cli import main
from catena_zero.terminal import play_in_terminal
from catena_zero.terminal.texts import RULES_TEXT
from catena_zero.game import Game, GameConfig
from catena_zero.game.render import render_ascii
from catena_zero.game.match import Match
from catena_zero.game.records import format_record, load_record, parse_record
from events import ev, evs, texts  # noqa: F401

ROOT = Path(__file__).resolve().parents[1]


def run(argv, capsys, stdin=None, monkeypatch=None):
    if stdin is not None:
        monkeypatch.setattr(sys, "stdin", stdin if not isinstance(stdin, str) else io.StringIO(stdin))
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def cli(*args, stdout=subprocess.PIPE, cwd=None, shell_tail: str = ""):
    """The real program in a subprocess (for file descriptors: /dev/stdout, pipes)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    command = [sys.executable, "-m", "catena_zero.cli", *args]
    if shell_tail:
        line = " ".join(f"'{a}'" for a in command) + shell_tail
        return subprocess.run(line, shell=True, capture_output=True, text=True, env=env, cwd=cwd)
    return subprocess.run(command, stdout=stdout, stderr=subprocess.PIPE, text=True, env=env, cwd=cwd)


# ----------------------------------------------------------------------------- outputs


def test_out_dash_writes_the_record_to_stdout_and_messages_to_stderr(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, out, err = run(["random-game", "--side", "3", "--out", "-"], capsys)
    assert code == 0
    record = parse_record(out)  # stdout is the record and nothing else
    assert record.result is not None and not (tmp_path / "-").exists()
    assert "random game:" in err and "game over:" in err
    code, out, err = run(["random-game", "--side", "3", "--out", "-", "--svg", "-"], capsys)
    assert code == 2 and "--out and --svg cannot both write to standard output" in err


def test_out_dev_stdout_redirected_to_a_file(tmp_path):
    path = tmp_path / "g.txt"
    with open(path, "w") as f:
        done = cli("random-game", "--side", "3", "--out", "/dev/stdout", stdout=f)
    assert done.returncode == 0, done.stderr
    assert parse_record(path.read_text()).result is not None  # the record alone, not replaced
    assert "game over:" in done.stderr


def test_head_closing_the_pipe_does_not_skip_the_files(tmp_path):
    done = cli("random-game", "--side", "3", "--out", "g.txt", "--svg", "g.svg", cwd=tmp_path,
               shell_tail=" | head -1")
    assert done.returncode == 0 and done.stdout.startswith("random game:"), done
    assert load_record(tmp_path / "g.txt").result is not None
    ET.parse(tmp_path / "g.svg")
    assert "Traceback" not in done.stderr


class ClosedPipe(io.StringIO):
    """A stdout whose reader has gone away (`| head` after one line)."""

    def write(self, text):
        raise BrokenPipeError(32, "Broken pipe")

    def fileno(self):
        return 1  # cli.main then points fd 1 at /dev/null (dup2 is stubbed out below)


@pytest.mark.parametrize("command", ["random-game", "show"])
def test_broken_stdout_still_writes_outputs(command, tmp_path, monkeypatch):
    record = tmp_path / "r.txt"
    assert main(["random-game", "--side", "3", "--out", str(record)]) == 0
    monkeypatch.setattr(sys, "stdout", ClosedPipe())
    monkeypatch.setattr(os, "dup2", lambda *a: None)  # cli.main redirects the real fd 1 otherwise
    if command == "random-game":
        argv = ["random-game", "--side", "3", "--out", str(tmp_path / "g.txt"), "--svg", str(tmp_path / "g.svg")]
    else:
        argv = ["show", str(record), "--svg", str(tmp_path / "g.svg")]
    assert main(argv) == 0
    ET.parse(tmp_path / "g.svg")
    if command == "random-game":
        assert load_record(tmp_path / "g.txt").result is not None


def test_show_svg_to_stdout(tmp_path, capsys):
    record = tmp_path / "r.txt"
    main(["random-game", "--side", "3", "--out", str(record)])
    capsys.readouterr()
    code, out, err = run(["show", str(record), "--svg", "-"], capsys)
    assert code == 0 and ET.fromstring(out).tag.endswith("svg") and "game over:" in err


# ------------------------------------------------------------------------- play: records


def test_save_path_is_checked_before_the_game(tmp_path, capsys, monkeypatch):
    code, out, err = run(["play", "--side", "3", "--save", str(tmp_path / "no" / "g.txt")], capsys,
                         stdin="3\nwhite\n", monkeypatch=monkeypatch)
    assert code == 2 and "cannot write" in err and "No such file or directory" in err
    assert out == ""  # not a single prompt: nothing was played and lost


class InterruptAfter(io.StringIO):
    """Types the given lines, then the person presses Ctrl-C."""

    def readline(self, *args):
        line = super().readline(*args)
        if not line:
            raise KeyboardInterrupt
        return line


def test_ctrl_c_saves_the_abandoned_game(tmp_path, capsys, monkeypatch):
    path = tmp_path / "g.txt"
    code, out, err = run(["play", "--side", "3", "--save", str(path)], capsys,
                         stdin=InterruptAfter("4\nblack\nC3\n"), monkeypatch=monkeypatch)
    assert code == 130
    assert "interrupted: game abandoned" in err and f"record saved to {path}" in err
    record = load_record(path)
    assert record.events == tuple(evs(["komi 4", "colour black", "C3"])) and record.result is None


def test_board_before_the_komi_choice_shows_the_empty_board(capsys, monkeypatch):
    """`printf 'board\\n' | catena-zero play` used to crash on the missing game (R7: none yet)."""
    code, out, err = run(["play", "--side", "3"], capsys, stdin="board\n", monkeypatch=monkeypatch)
    assert code == 0 and err == "" and "Traceback" not in out
    assert "set-up (R7): the first player chooses the komi" in out
    assert render_ascii(Game(GameConfig(side=3)), legend=False) in out  # the empty side-3 board
    assert "end of input: game abandoned" in out


def test_finished_play_prints_the_result_once_with_the_button(tmp_path, capsys, monkeypatch):
    # Two people play a side-2 game: komi 0, colour white; then B2 limits everything fast.
    match = Match(GameConfig(side=2))
    rng, player = np.random.default_rng(0), RandomPlayer()
    for event in ("komi 0", "colour white"):
        match.apply(ev(event))
    while match.phase != "over":
        match.apply(ev(player.choose(match.game, rng)))
    code, out, _ = run(["play", "--side", "2"], capsys, stdin="0\nwhite\n" + "\n".join(texts(match.events[2:])) + "\n",
                       monkeypatch=monkeypatch)
    assert code == 0 and out.count("game over:") == 1 and "result:" not in out
    line = next(l for l in out.splitlines() if l.startswith("game over:"))
    assert "button" in line and "player) wins" in line


# ------------------------------------------------------------------------ play: helpers


def test_rules_command_prints_one_screen(capsys, monkeypatch):
    code, out, _ = run(["play", "--side", "3"], capsys, stdin="rules\nquit\n", monkeypatch=monkeypatch)
    assert code == 0 and RULES_TEXT in out
    lines = RULES_TEXT.splitlines()
    assert len(lines) <= 24 and max(map(len, lines)) <= 80
    for section in ("R1", "R2", "R3", "R4", "R5", "R6", "R7", "R8"):
        assert any(line.startswith(section + " ") for line in lines), section


def test_person_is_told_seat_and_colour(capsys, monkeypatch):
    code, out, _ = run(["play", "--side", "3", "--opponent", "random", "--seat", "second", "--seed", "1"], capsys,
                       stdin="black\nquit\n", monkeypatch=monkeypatch)
    assert code == 0
    assert "You are the second player (you choose the colours after the komi); random is the first player." \
        in " ".join(out.split())
    assert "You play black." in out
    assert max(map(len, out.splitlines()[:5])) <= 80  # the introduction fits an 80-column terminal


class Terminal(io.StringIO):
    def isatty(self):
        return True


def test_thinking_indicator_only_on_a_terminal(capsys, monkeypatch):
    match = Match(GameConfig(side=2))
    players = {"first": RandomPlayer(), "second": RandomPlayer()}
    screen = Terminal()
    out = io.StringIO()
    play_in_terminal(match, players, np.random.default_rng(0), io.StringIO(), out, thinking=screen)
    moves = len(match.events)
    assert screen.getvalue().count("is thinking...") == moves
    assert screen.getvalue().count("\r\033[K") == moves  # each indicator erased again
    assert "thinking" not in out.getvalue()
    # Through the CLI with output read by a program (not a terminal): no indicator anywhere.
    code, out_text, err = run(["play", "--side", "2", "--opponent", "random"], capsys, stdin="0\nquit\n",
                              monkeypatch=monkeypatch)
    assert "thinking" not in out_text + err


# ------------------------------------------------------------------------------- show


def test_show_record_stopped_after_the_komi_choice(tmp_path, capsys):
    match = Match(GameConfig(side=3))
    match.apply(ev("komi 7"))
    path = tmp_path / "r.txt"
    path.write_text(format_record(match))
    code, out, _ = run(["show", str(path)], capsys)
    assert code == 0
    assert "komi 7; 0 moves; set-up: komi 7\n" in out  # no move yet, and the chosen komi
    assert "to move" not in out
    assert "set-up (R7): komi 7 chosen; the second player chooses black or white" in out


# ------------------------------------------------------------------------ flags and help


def test_version(capsys):
    from catena_zero import __version__

    code, out, _ = run(["--version"], capsys)
    assert code == 0 and out == f"catena-zero {__version__}\n"


def test_seed_must_not_be_negative(tmp_path, capsys):
    code, _, err = run(["random-game", "--seed", "-1"], capsys)
    assert code == 2 and err == "catena-zero: error: --seed must be a whole number >= 0, got -1\n"
    cfg = tmp_path / "c.yaml"
    cfg.write_text("seed: -3\n")
    code, _, err = run(["random-game", "--config", str(cfg)], capsys)
    assert code == 2 and f"seed must be a whole number >= 0, got -3 (from {cfg})" in err


def test_opponent_mcts_without_a_count(capsys, monkeypatch):
    code, _, err = run(["play", "--opponent", "mcts"], capsys, stdin="", monkeypatch=monkeypatch)
    assert code == 2 and "write mcts:K, as in mcts:200" in err and "None" not in err


def test_komi_help_says_what_komi_does_per_command(capsys):
    main(["play", "--help"])
    play_help = " ".join(capsys.readouterr().out.split())
    assert "answer the first player's komi choice (R7) in advance" in play_help
    main(["random-game", "--help"])
    random_help = " ".join(capsys.readouterr().out.split())
    assert "komi for White (R6), 0..15 (0..1000 for quadratic); default 0" in random_help
    assert "asks" not in random_help and "play" not in random_help.split("--komi", 1)[1].split("--seed")[0]


def test_show_reads_a_record_from_standard_input(tmp_path, capsys, monkeypatch):
    main(["random-game", "--side", "3", "--out", "-"])
    record_text = capsys.readouterr().out
    code, out, _ = run(["show", "-"], capsys, stdin=record_text, monkeypatch=monkeypatch)
    assert code == 0 and out.startswith("-: side 3") and out.count("game over:") == 1
    code, _, err = run(["show", "-"], capsys, stdin="chess\n", monkeypatch=monkeypatch)
    assert code == 2 and "standard input: line 1: not a Catena record" in err


def test_pasted_megabyte_and_bad_bytes_are_bad_moves_not_crashes(tmp_path, capsys, monkeypatch):
    path = tmp_path / "g.txt"
    # A megabyte without a newline is read through in pieces, never held whole (MAX_LINE_CHARS).
    stdin = io.TextIOWrapper(io.BytesIO(b"D" * 1_000_000 + b"\n" + b"D" * 1000 + b"\n\xff\xfe\n3\nquit\n"),
                             encoding="utf-8")
    code, out, err = run(["play", "--side", "3", "--save", str(path)], capsys, stdin=stdin, monkeypatch=monkeypatch)
    assert code == 0 and err == "" and len(out) < 10_000
    assert out.count("not accepted:") == 3 and "(1,000 characters)" in out
    assert "not accepted: the line is longer than 65,536 characters" in out
    assert load_record(path).events == (ev("komi 3"),)


class Failing(io.StringIO):
    def readline(self, *args):
        line = super().readline(*args)
        if not line:
            raise RuntimeError("the terminal went away")
        return line


def test_record_is_saved_when_play_fails(tmp_path, capsys, monkeypatch):
    path = tmp_path / "g.txt"
    monkeypatch.setattr(sys, "stdin", Failing("5\nwhite\n"))
    assert main(["play", "--side", "3", "--save", str(path)]) == 70  # a failure that is not the user's: a bug
    assert "catena-zero: internal error: RuntimeError: the terminal went away" in capsys.readouterr().err
    assert load_record(path).events == tuple(evs(["komi 5", "colour white"]))


# ----------------------------------------------------------------- for players


def test_bare_command_prints_the_usage_and_the_commands(capsys):
    code, out, err = run([], capsys)
    assert code == 2 and out == ""
    assert err.startswith("usage: catena-zero") and "commands:" in err
    from catena_zero.cli import COMMANDS

    for name in COMMANDS:
        assert f"\n  {name} " in err, name
    assert max(map(len, err.splitlines())) <= 80


def test_long_error_lines_wrap_on_a_terminal_only():
    from catena_zero.cli import error_text

    class Tty(io.StringIO):
        def isatty(self):
            return True

    line = "catena-zero: error: " + " ".join(f"word{k}" for k in range(30))
    assert error_text(line, io.StringIO()) == line  # a pipe or file: one line, for scripts
    wrapped = error_text(line, Tty()).splitlines()
    assert len(wrapped) > 1 and all(len(x) <= 80 for x in wrapped)
    assert all(x.startswith("    ") for x in wrapped[1:])
    assert " ".join(x.strip() for x in wrapped) == line


def test_evaluate_help_names_exported_bot_files(capsys):
    code, out, _ = run(["evaluate", "--help"], capsys)
    text = " ".join(out.split())
    assert "an exported bot file" in text and "bot files" in text


def test_pass_and_resign_point_to_the_button_and_quit(capsys, monkeypatch):
    code, out, _ = run(["play", "--side", "3", "--komi", "2"], capsys, stdin="white\npass\nresign\nquit\n",
                       monkeypatch=monkeypatch)
    assert code == 0
    assert "there is no pass in Catena: 'button' takes the button (R4) instead of placing a stone, once per " \
           "game; it is free now" in out
    assert "there is no resign in Catena: 'quit' abandons the game" in out


def test_komi_set_by_the_flag_is_said_so(capsys, monkeypatch):
    code, out, _ = run(["play", "--side", "3", "--komi", "5", "--opponent", "random"], capsys, stdin="quit\n",
                       monkeypatch=monkeypatch)
    text = " ".join(out.split())
    assert "You are the first player (the komi, 5, was set by --komi)" in text
    assert "you choose the komi" not in text
    assert "(R7, komi 5, set by --komi)" in text
    code, out, _ = run(["play", "--side", "3", "--opponent", "random"], capsys, stdin="quit\n",
                       monkeypatch=monkeypatch)
    assert "You are the first player (you choose the komi)" in out and "set by --komi" not in out


def test_komi_choice_says_why_it_matters_and_nothing_misleading_without_a_network(capsys, monkeypatch):
    for opponent in ("random", "mcts:2", "human"):
        code, out, _ = run(["play", "--side", "3", "--opponent", opponent], capsys, stdin="quit\n",
                           monkeypatch=monkeypatch)
        assert "Why it matters: the second player then takes whichever colour is better" in out
        assert "estimate of a fair komi" not in out  # no estimate from a program without a network


def test_komi_choice_shows_the_bots_fair_komi(tmp_path, capsys, monkeypatch):
    from catena_zero.bot import Bot
    from web_helpers import make_bot_file

    path = make_bot_file(tmp_path)
    fair = Bot.load(path, device="cpu").komi_curve(GameConfig(side=3)).komi
    code, out, _ = run(["play", "--bot", str(path), "--device", "cpu", "--simulations", "2"], capsys,
                       stdin="quit\n", monkeypatch=monkeypatch)
    assert code == 0
    assert f"The bot's estimate of a fair komi: {fair} (by its value and score heads" in " ".join(out.split())
    assert "Why it matters" in out
    # the same number the komi command prints
    code, komi_out, _ = run(["komi", "--bot", str(path), "--device", "cpu"], capsys)
    assert komi_out.startswith(f"fair komi {fair} ")


def test_opponent_net_needs_a_file(tmp_path, capsys, monkeypatch):
    code, out, err = run(["play", "--side", "3", "--opponent", "net"], capsys, stdin="", monkeypatch=monkeypatch)
    assert code == 2 and out == "" and err.count("\n") == 1
    assert "player kind 'net' needs trained weights: write net:FILE" in err and "catena-zero export" in err
    from web_helpers import make_bot_file

    path = make_bot_file(tmp_path)
    code, out, err = run(["play", "--side", "3", "--opponent", f"net:{path}", "--seat", "second", "--komi", "3"], capsys,
                         stdin="quit\n", monkeypatch=monkeypatch)
    assert code == 0, err
    assert "second player > game abandoned" in out


def test_swap_shows_the_board_again(capsys, monkeypatch):
    code, out, _ = run(["play", "--side", "2", "--game-type", "no_komi"], capsys, stdin="B2\nswap\nquit\n",
                       monkeypatch=monkeypatch)
    after = out.split("second player: swap\n", 1)[1]
    assert render_ascii(Game.replay(GameConfig(side=2, game_type="no_komi"), ["B2"]), legend=False) in after
    assert "white (first player) to move" in after


def test_save_dash_leaves_only_the_record_on_stdout(capsys, monkeypatch):
    code, out, err = run(["play", "--side", "2", "--komi", "1", "--save", "-"], capsys,
                         stdin="white\nB2\nquit\n", monkeypatch=monkeypatch)
    assert code == 0
    record = parse_record(out)  # stdout is the record and nothing else
    assert record.events == tuple(evs(["komi 1", "colour white", "B2"]))
    assert "first player" in err and "A B C" in err  # the prompts and the board went to stderr


def test_board_option_hex_draws_the_hexagon(capsys, monkeypatch):
    code, out, _ = run(["play", "--side", "3", "--board", "hex"], capsys, stdin="board\nquit\n",
                       monkeypatch=monkeypatch)
    assert render_ascii(Game(GameConfig(side=3)), legend=False, layout="hex") in out
    code, out, _ = run(["play", "--side", "3", "--board", "round"], capsys, stdin="", monkeypatch=monkeypatch)
    assert code == 2


def test_line_editing_history_and_completion_on_a_terminal():
    """Under a real pseudo-terminal: Left arrow edits the line (typing '3', Left, 'C' makes
    'C3'), Tab completes 'he' to 'help', Up recalls the previous line."""
    import pty
    import select
    import time

    env = {**os.environ, "PYTHONPATH": str(ROOT), "TERM": "xterm", "INPUTRC": "/dev/null"}
    pid, fd = pty.fork()
    if pid == 0:  # the child: the program on the terminal (double: the person is Black, to move)
        os.execve(sys.executable, [sys.executable, "-m", "catena_zero.cli", "play", "--side", "3",
                                   "--game-type", "double", "--opponent", "random"], env)
    seen = b""

    def wait_for(text: bytes, count: int = 1, timeout: float = 60.0) -> None:
        nonlocal seen
        end = time.monotonic() + timeout
        while seen.count(text) < count:
            ready, _, _ = select.select([fd], [], [], max(0.0, end - time.monotonic()))
            if not ready:
                raise AssertionError(f"never saw {text!r} x{count} in {seen.decode(errors='replace')}")
            try:
                seen += os.read(fd, 65536)
            except OSError:
                raise AssertionError(f"the program ended before {text!r}: {seen.decode(errors='replace')}")

    prompt = b"first player (black) > "
    try:
        wait_for(prompt)
        os.write(fd, b"3\x1b[DC\r")  # '3', Left, 'C'
        wait_for(b"first player (black): C3")
        wait_for(prompt, 2)  # the opponent played its two stones
        os.write(fd, b"he\t\r")  # Tab: 'help', the one command starting so
        wait_for(b"Type a move as a cell")
        wait_for(prompt, 3)
        os.write(fd, b"\x1b[A\r")  # Up: the line before, 'help', again
        wait_for(b"Type a move as a cell", 2)
        wait_for(prompt, 4)
        os.write(fd, b"quit\r")
        wait_for(b"game abandoned")
        assert b"not accepted" not in seen, seen.decode(errors="replace")
    finally:
        os.close(fd)
        os.waitpid(pid, 0)


def test_tab_completion_offers_what_may_be_typed_now():
    from catena_zero.terminal import TerminalReader, UndoableMatch

    match = UndoableMatch(GameConfig(side=3))
    reader = TerminalReader(match)

    def completions(text):
        out, k = [], 0
        while (word := reader.complete(text, k)) is not None:
            out.append(word)
            k += 1
        return out

    assert completions("ko") == ["komi"]
    match.apply(ev("komi 2"))
    assert completions("b") == ["black", "board"]
    match.apply(ev("colour white"))
    match.apply(ev("C3"))  # no longer legal: not offered
    legal = match.game.legal_moves()
    assert completions("c") == [m for m in legal if m.startswith("C")] and "C3" not in completions("c")
    assert completions("bu") == ["button"]
    assert completions("q") == ["quit"]


def test_show_board_option(tmp_path, capsys):
    game = Game.replay(GameConfig(side=3), ["C3", "B4"])
    path = tmp_path / "r.txt"
    path.write_text(format_record(game))
    for layout in ("columns", "hex"):
        code, out, _ = run(["show", str(path), "--board", layout], capsys)
        assert code == 0 and render_ascii(game, legend=False, layout=layout) in out


def test_a_bad_set_is_blamed_on_the_command_line_and_a_bad_file_on_the_file(tmp_path, capsys):
    """Issue 28: `--set run.max_minuts=1` was reported "(from configs/quick.yaml)"."""
    quick = str(Path(__file__).resolve().parent.parent / "configs" / "quick.yaml")
    code, _, err = run(["train", "--config", quick, "--set", "run.max_minuts=1"], capsys)
    assert code == 2 and "unknown key run.max_minuts" in err
    assert err.rstrip().endswith(f"(from the command line, over {quick})")
    bad = tmp_path / "bad.yaml"
    bad.write_text("run:\n  max_minuts: 3\n")
    code, _, err = run(["train", "--config", str(bad), "--set", "run.max_minutes=1"], capsys)
    assert code == 2 and "unknown key run.max_minuts" in err and err.rstrip().endswith(f"(from {bad})")
