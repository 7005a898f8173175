"""The GTP-style protocol (bot/engine.py): every command, ids, replies, and bad commands and arguments
answered with '?' and the state unchanged; one end-to-end session through ``catena-zero engine``."""

from __future__ import annotations

import dataclasses
import io
import os
import subprocess
import sys
from pathlib import Path

import pytest

from bot_files import save_tiny_checkpoint
from catena_zero import __version__
from catena_zero.bot import Bot, RuleSet
from catena_zero.bot.engine import Engine, Reply
from catena_zero.artifacts.botfile import export_bot
from catena_zero.game import Game, GameConfig
from catena_zero.game.render import render_ascii
from catena_zero.artifacts.checkpoint import load_checkpoint
from positions import legal_cells
from catena_zero.bot.players import NO_BUDGET

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def bot_path(tmp_path_factory):
    root = tmp_path_factory.mktemp("engine")
    out = root / "tiny.bot"
    rules = [RuleSet(3, "komi", "standard"), RuleSet(3, "no_komi", "standard"), RuleSet(3, "double", "standard"),
             RuleSet(3, "komi", "quadratic")]
    export_bot(load_checkpoint(save_tiny_checkpoint(root / "run")), out, trained_for=rules)
    return out


@pytest.fixture(scope="module")
def bot(bot_path):
    return Bot.load(bot_path, simulations=4, device="cpu")


@pytest.fixture
def engine(bot):
    return Engine(bot)


def ok(engine: Engine, line: str) -> str:
    reply = engine.handle(line)
    assert reply is not None and reply.ok, (line, reply)
    return reply.text


def state(engine: Engine) -> tuple:
    return engine.config, engine.game.history, engine.finished


def test_identification_commands(engine):
    assert ok(engine, "protocol_version") == "2"
    assert ok(engine, "name") == "catena-zero"
    assert ok(engine, "version") == f"{__version__} (bot step 7)"
    commands = ok(engine, "list_commands").splitlines()
    for name in ("protocol_version", "name", "version", "list_commands", "options", "komi", "clear_board", "play",
                 "genmove", "undo", "showboard", "final_score", "analyze", "quit", "known_command", "legal_moves",
                 "genkomi", "gencolour", "boardsize", "time_settings", "time_left", "kata-analyze", "lz-analyze"):
        assert name in commands
        assert ok(engine, f"known_command {name}") == "true"
    assert ok(engine, "known_command loadsgf") == "false"


def test_options_komi_play_undo_showboard(engine):
    assert ok(engine, "options") == "side 3 type komi scoring standard komi 0"
    assert ok(engine, "komi 7") == ""
    assert engine.game.config == GameConfig(side=3, komi=7)
    assert ok(engine, "play black B2") == ""
    assert ok(engine, "play w c4") == ""  # b/w and lower case are accepted
    assert engine.game.history == ["B2", "C4"]
    assert ok(engine, "komi 3") == "" and engine.game.history == ["B2", "C4"] and engine.game.config.komi == 3
    board = ok(engine, "showboard")
    assert board == render_ascii(engine.game)
    legal = ok(engine, "legal_moves").split()
    assert legal == engine.game.legal_moves() and "button" in legal
    assert ok(engine, "play black button") == "" and engine.game.button_holder == "black"
    assert ok(engine, "undo") == "" and engine.game.history == ["B2", "C4"]
    assert ok(engine, "clear_board") == "" and engine.game.history == [] and engine.game.config.komi == 3
    assert ok(engine, "options type no_komi") == ""
    assert ok(engine, "options") == "side 3 type no_komi scoring standard komi 0"
    assert ok(engine, "options type komi scoring quadratic") == ""
    assert engine.config == GameConfig(side=3, scoring="quadratic")
    assert ok(engine, "komi 500") == ""
    assert ok(engine, "options side 3 type komi scoring standard") == ""
    assert engine.config == GameConfig(side=3)  # komi 500 is out of the standard range: back to 0


def test_genmove_analyze_and_final_score_over_a_whole_game(engine, bot):
    ok(engine, "komi 2")
    reference = Game(GameConfig(side=3, komi=2))
    while not reference.is_over:
        colour = reference.to_move
        # During the game final_score is the bot's estimate: its search's margin, Black's side.
        estimate = bot.analyze(reference, top=1)
        black = estimate.score if estimate.to_move == "black" else -estimate.score
        score = ok(engine, "final_score")
        assert score == ("0" if round(black, 1) == 0 else f"{'B' if black > 0 else 'W'}+{abs(round(black, 1)):g}")
        analysis = ok(engine, "analyze 3").splitlines()
        head = analysis[0].split()
        assert head[0:2] == ["to_move", colour] and head[2] == "value" and head[6] == "best"
        assert 1 <= len(analysis) - 1 <= 3 and analysis[1].split()[0] == head[7]
        move = ok(engine, f"genmove {colour}")
        assert move == bot.choose(reference) == head[7]
        reference.play(move)
        assert engine.game.history == reference.history
    scores = reference.scores()
    margin = abs(scores["black"] - scores["white"])
    expected = "0" if reference.winner is None else f"{reference.winner[0].upper()}+{margin:g}"
    assert ok(engine, "final_score") == expected
    for line in ("genmove black", "genmove white", "analyze", "play black A1"):
        reply = engine.handle(line)
        assert not reply.ok and "over" in reply.text


def test_genkomi_and_gencolour(engine, bot):
    komi = bot.choose_komi(GameConfig(side=3))
    assert ok(engine, "genkomi") == str(komi) and engine.config.komi == komi
    assert ok(engine, "gencolour") == bot.choose_colour(GameConfig(side=3), komi)
    ok(engine, "options type no_komi")
    ok(engine, "play black B2")
    game = Game(GameConfig(side=3, game_type="no_komi"))
    game.play("B2")
    assert ok(engine, "gencolour") == ("swap" if bot.choose_swap(game) else "white")


def test_ids_comments_blank_lines_and_reply_format(engine):
    assert engine.handle("") is None and engine.handle("   # a comment") is None
    assert str(engine.handle("12 name # trailing comment")) == "=12 catena-zero\n\n"
    assert str(engine.handle("13 frobnicate")) == "?13 unknown command: frobnicate (list_commands lists them)\n\n"
    assert str(engine.handle("14 clear_board")) == "=14\n\n"
    listing = str(engine.handle("15 list_commands"))
    assert listing.startswith("=15\nprotocol_version\n") and listing.endswith("\n\n") and "\n\n" not in listing[:-2]
    board = str(engine.handle("showboard"))
    assert board.startswith("=\n") and "\n\n" not in board[:-2]  # an empty line would end the reply
    assert str(Reply(False, "bad", 3)) == "?3 bad\n\n"


BAD_LINES = [
    "frobnicate", "boardsize 6", "Name", "42", "name extra",
    "protocol_version 2", "list_commands all", "known_command", "clear_board now", "showboard x", "undo 2",
    "options side", "options side six", "options side 11", "options side 4", "options type blitz",
    "options scoring fancy", "options colour red", "options type double scoring longest",
    "komi", "komi 7.5", "komi -1", "komi 16", "komi x", "komi 1 2",
    "play", "play black", "play black B2 C3", "play red B2", "play white B2", "play black Z9", "play black b02",
    "play black A9", "play black komi", "play black swap",
    "genmove", "genmove red", "genmove white", "genmove black white",
    "final_score now", "analyze 0", "komi 8.5", "komi -0.5", "komi +", "komi 1e1", "play black pass",
    "kata-analyze 10 maxmoves 0", "kata-analyze avoid b D4 1", "kata-analyze 10 frob 1", "kata-analyze 10 interval", "analyze x", "analyze 1 2",
    "genkomi now", "gencolour x", "undo",
]


@pytest.mark.parametrize("line", BAD_LINES)
def test_bad_commands_and_arguments_get_a_question_mark_and_change_nothing(engine, line):
    before = state(engine)
    reply = engine.handle(line)
    assert reply is not None and not reply.ok and reply.text and "\n" not in reply.text, (line, reply)
    assert str(reply).startswith("?")
    assert state(engine) == before


def test_bad_moves_in_a_position_change_nothing(engine):
    ok(engine, "play black B2")
    ok(engine, "play white B3")
    ok(engine, "play black B4")
    for line in ("play white B3", "play white C3", "play black C4", "genmove black", "genkomi", "gencolour",
                 "options type double scoring longest"):
        before = state(engine)
        reply = engine.handle(line)
        assert not reply.ok and state(engine) == before, (line, reply)
    # game type double has no komi and no colour choice; no_komi's colour comes after one stone
    ok(engine, "options type double")
    for line in ("komi 3", "genkomi", "gencolour", "play black button"):
        before = state(engine)
        assert not engine.handle(line).ok and state(engine) == before, line
    assert ok(engine, "komi 0") == ""
    ok(engine, "options type no_komi")
    for line in ("gencolour", "play black button"):
        before = state(engine)
        assert not engine.handle(line).ok and state(engine) == before, line


def test_run_loop_answers_until_quit(engine):
    stdin = io.StringIO("name\n\n# nothing\n7 play black B2\nbogus\nquit\nname\n")
    stdout, stderr = io.StringIO(), io.StringIO()
    assert engine.run(stdin, stdout, stderr) == 0
    assert stdout.getvalue() == ("= catena-zero\n\n=7\n\n? unknown command: bogus (list_commands lists them)\n\n"
                                 "=\n\n")
    assert engine.finished


class _Measured(io.StringIO):
    """A stdin that records the most characters one read asked for."""

    largest = 0

    def readline(self, size=-1):
        self.largest = max(self.largest, size if size >= 0 else 1 << 62)
        return super().readline(size)


def test_a_line_longer_than_the_limit_is_answered_once_and_never_held(engine):
    """Issue 25: a program writing without newlines made the engine hold its whole input. A line
    of more than MAX_LINE_CHARS is read in pieces, answered with one '?', and the next is served."""
    from catena_zero.fileio import MAX_LINE_CHARS

    stdin = _Measured("x" * (3 * MAX_LINE_CHARS + 5) + "\nname\n" + "y" * MAX_LINE_CHARS + "\nname\n" + "z" * 10**6)
    stdout = io.StringIO()
    assert engine.run(stdin, stdout, io.StringIO()) == 0
    replies = stdout.getvalue().split("\n\n")
    too_long = "? the line is longer than 65,536 characters; a command is one short line"
    assert replies == [too_long, "= catena-zero", "? unknown command: " + "y" * MAX_LINE_CHARS
                       + " (list_commands lists them)", "= catena-zero", too_long, ""]
    assert stdin.largest <= MAX_LINE_CHARS + 1


def test_engine_command_end_to_end(bot_path):
    commands = "protocol_version\noptions side 3 type komi scoring standard\nkomi 7\nplay black B2\n" \
               "genmove white\nundo\n3 showboard\nbad\nquit\n"
    env = dict(os.environ, PYTHONPATH=str(REPO), OMP_NUM_THREADS="1")
    result = subprocess.run(
        [sys.executable, "-m", "catena_zero.cli", "engine", "--bot", str(bot_path), "--simulations", "4",
         "--device", "cpu"], input=commands, env=env, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    replies = result.stdout.split("\n\n")
    assert replies[-1] == ""
    replies = replies[:-1]
    assert len(replies) == 9
    assert replies[0] == "= 2" and replies[1] == "=" and replies[2] == "=" and replies[3] == "="
    assert replies[4].startswith("= ") and replies[5] == "="
    assert replies[6].startswith("=3\n") and "X" in replies[6] and "O" not in replies[6].split("\n")[1:-2]
    assert replies[7].startswith("? unknown command") and replies[8] == "="
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize("encoding", ["utf-8:strict", "ascii:strict"])
def test_a_byte_that_is_not_utf8_gets_an_answer_under_a_strict_stdin(bot_path, encoding):
    """Issue 25: under PYTHONIOENCODING=utf-8:strict one bad byte ended the session with an
    internal error, earlier commands unanswered. Now it is a bad command ('?') and the session
    goes on; a reply that quotes it back does not fail on a narrow stdout either."""
    env = dict(os.environ, PYTHONPATH=str(REPO), OMP_NUM_THREADS="1", PYTHONIOENCODING=encoding)
    result = subprocess.run(
        [sys.executable, "-m", "catena_zero.cli", "engine", "--bot", str(bot_path), "--simulations", "4",
         "--device", "cpu"], input=b"name\n\xff\xfe bogus\nplay black \xc3\nname\nquit\n", env=env,
        capture_output=True, timeout=120)
    assert result.returncode == 0, result.stderr
    replies = result.stdout.decode(encoding.split(":")[0]).split("\n\n")
    assert replies[-1] == "" and len(replies) == 6, replies
    assert replies[0] == "= catena-zero" and replies[1].startswith("? unknown command")
    assert replies[2].startswith("? ") and replies[3] == "= catena-zero" and replies[4] == "="
    assert b"Traceback" not in result.stderr and b"internal error" not in result.stderr


# ----------------------------------------------------------------- GTP's own commands


def test_boardsize_is_options_side(engine):
    ok(engine, "boardsize 3")
    assert engine.config.side == 3 and engine.game.move_number == 0
    before = state(engine)
    for line in ("boardsize 4", "boardsize", "boardsize x"):  # side 4: the bot was not trained for it
        assert not engine.handle(line).ok and state(engine) == before, line


def test_time_settings_turn_the_clock_into_a_thinking_time(engine, monkeypatch):
    from catena_zero.bot.engine import CLOCK_LEAST_SECONDS, CLOCK_MARGIN_SECONDS

    asked = []
    monkeypatch.setattr(engine.bot, "choose",
                        lambda game, rng=None, budget=NO_BUDGET: asked.append(budget.seconds) or game.legal_moves()[0])
    ok(engine, "genmove black")
    assert asked == [None]  # no time control: the bot's own budget
    ok(engine, "clear_board")
    ok(engine, "time_settings 60 10 5")
    empty = len(legal_cells(engine.game))
    ok(engine, "genmove black")
    # Main time spread over the moves to come (half the empty cells), plus a period over its stones.
    assert asked[-1] == pytest.approx(60 / (empty // 2) + 10 / 5 - CLOCK_MARGIN_SECONDS)
    ok(engine, "time_left white 4 2")  # White in byo-yomi: 4 s for 2 stones
    ok(engine, "genmove white")
    assert asked[-1] == pytest.approx(2 - CLOCK_MARGIN_SECONDS)
    ok(engine, "time_left black 0 1")  # the flag nearly down: still a positive time
    ok(engine, "genmove black")
    assert asked[-1] == CLOCK_LEAST_SECONDS
    ok(engine, "time_settings 0 0 0")  # no time limit again
    ok(engine, "genmove white")
    assert asked[-1] is None
    assert not engine.handle("time_left black 5 0").ok  # no clock to set


class _Collected(io.StringIO):
    """A stdout that a test can read while the engine writes it from another thread."""

    def __init__(self):
        super().__init__()
        import threading

        self.lock = threading.Lock()

    def write(self, text):
        with self.lock:
            return super().write(text)

    def text(self) -> str:
        with self.lock:
            return self.getvalue()


@pytest.mark.parametrize("command", ["kata-analyze 5", "lz-analyze b 5"])
def test_a_streaming_analysis_reports_until_the_next_command(bot, command):
    import threading
    import time

    engine = Engine(bot)
    read, write = os.pipe()
    stdin, stdout = os.fdopen(read, "r"), _Collected()
    worker = threading.Thread(target=engine.run, args=(stdin, stdout, io.StringIO()))
    with os.fdopen(write, "w") as feed:
        feed.write(f"7 {command}\n")
        feed.flush()
        worker.start()
        deadline = time.monotonic() + 60
        while stdout.text().count("\ninfo move") < 3 and time.monotonic() < deadline:
            time.sleep(0.01)
        feed.write("name\nquit\n")
    worker.join(60)
    assert not worker.is_alive()
    replies = stdout.text().split("\n\n")
    head, *reports = replies[0].split("\n")
    assert head == "=7" and len(reports) >= 3 and replies[1:] == ["= catena-zero", "=", ""]
    for report in reports:
        fields = report.split()
        assert fields[0] == "info" and fields[1] == "move"
        moves = report.split("info ")[1:]
        for order, item in enumerate(moves):
            words = item.split()
            values = dict(zip(words[::2], words[1::2]))
            assert int(values["order"]) == order and int(values["visits"]) >= 1
            if command.startswith("lz"):
                assert 0 <= int(values["winrate"]) <= 10000 and "scoreLead" not in values
            else:
                assert 0.0 <= float(values["winrate"]) <= 1.0 and "scoreLead" in values
    totals = [sum(int(x.split()[3]) for x in r.split("info ")[1:]) for r in reports]
    assert totals[1] > totals[0]  # the search grows between reports
    assert engine.game.move_number == 0  # analysis plays nothing


def test_without_a_bot_file_boardsize_plays_the_shipped_bot_for_the_new_rules():
    """Found by hand: `catena-zero engine` without --bot answered `boardsize 4` with "this bot was
    trained for side 6" although side4.bot ships; a GTP controller cannot name a bot per size."""
    from catena_zero.cli import build_parser
    from catena_zero.bot.shipped import shipped_bot_for
    from catena_zero.commands.bot_options import load_bot
    from catena_zero.commands.engine import shipped_bots_loader

    args = build_parser().parse_args(["engine", "--simulations", "2", "--device", "cpu"])
    first = load_bot(args, str(shipped_bot_for(GameConfig(side=6)).path))
    bot_for = shipped_bots_loader(args, first)
    engine = Engine(first, bot_for)
    steps = {}
    for side in (4, 3, 6):
        ok(engine, f"boardsize {side}")
        assert engine.config.side == side and engine.bot.capabilities.plays(engine.config)
        steps[side] = engine.bot.header.step
        ok(engine, "genmove black")
    assert len(set(steps.values())) == 3  # three shipped bots, each loaded once
    assert engine.bot is first  # back on side 6: the bot the engine started with, not a second copy
    assert bot_for(GameConfig(side=4)) is bot_for(GameConfig(side=4))
    assert bot_for(GameConfig(side=7)).capabilities.plays(GameConfig(side=7))  # side5-7-8.bot
    assert bot_for(GameConfig(side=9)) is None  # none ships: the engine keeps its bot and says why
    assert engine.handle("boardsize 9").text.startswith("this bot was trained for side 6")
    # A bot file named on the command line is the only bot: no switch.
    fixed = Engine(bot_for(GameConfig(side=6)))
    assert fixed.handle("boardsize 4").text.startswith("this bot was trained for side 6")


# ------------------------------------------------------- as GTP controllers speak it, and stay responsive


def test_komi_as_controllers_send_it(engine):
    """gogui-twogtp and Sabaki send komi as a decimal: 8.0 is komi 8; a fraction or a sign is
    refused with the rule that forbids it (R6), the state unchanged."""
    ok(engine, "komi 8.0")
    assert engine.config.komi == 8
    ok(engine, "komi 3.00")
    assert engine.config.komi == 3
    ok(engine, "komi -0")
    assert engine.config.komi == 0
    before = state(engine)
    fraction, negative = engine.handle("komi 7.5"), engine.handle("4 komi -1")
    assert not fraction.ok and "7.5 is not a whole number" in fraction.text and "R6" in fraction.text
    assert str(negative).startswith("?4 komi -1 is negative") and "R6" in negative.text
    assert state(engine) == before
    assert "no pass in Catena" in engine.handle("play black pass").text


def test_final_score_during_the_game_is_the_bots_estimate(engine, bot):
    ok(engine, "komi 8")
    ok(engine, "play black B2")
    game = Game.replay(GameConfig(side=3, komi=8), ["B2"])
    info = bot.analyze(game, top=1)
    black = -info.score  # white to move: the bot's margin is White's
    expected = "0" if round(black, 1) == 0 else f"{'B' if black > 0 else 'W'}+{abs(round(black, 1)):g}"
    assert ok(engine, "final_score") == expected and engine.game.history == game.history  # nothing played


def test_a_moves_thinking_time_is_capped_whatever_the_clock_says(engine, monkeypatch):
    from catena_zero.bot.engine import MAX_MOVE_SECONDS

    asked = []
    monkeypatch.setattr(engine.bot, "choose",
                        lambda game, rng=None, budget=NO_BUDGET: asked.append(budget.seconds) or game.legal_moves()[0])
    ok(engine, "time_settings 999999999 0 0")
    ok(engine, "genmove black")
    ok(engine, "time_left white 999999999 1")  # byo-yomi: one stone in 31 years
    ok(engine, "genmove white")
    assert asked == [MAX_MOVE_SECONDS, MAX_MOVE_SECONDS]


def test_an_error_reply_keeps_the_command_id_even_for_a_bug(engine, monkeypatch):
    def broken(game, rng=None, budget=NO_BUDGET):
        raise RuntimeError("non-finite network output")

    monkeypatch.setattr(engine.bot, "choose", broken)
    stdout, stderr = io.StringIO(), io.StringIO()
    engine.run(io.StringIO("12 genmove black\n13 name\n"), stdout, stderr)
    assert stdout.getvalue() == ("?12 internal error: RuntimeError: non-finite network output\n\n"
                                 "=13 catena-zero\n\n")
    assert "Traceback" in stderr.getvalue()


def _slow_analyze(bot, seconds_per_simulation: float):
    """``bot.analyze`` as a slow machine runs it: the time a search of that size takes there,
    or its time limit; the result a real search of 4 simulations."""
    import time

    real = bot.analyze

    def analyze(game, top=10, *, simulations=None, seconds=None):
        spent = seconds if seconds is not None else simulations * seconds_per_simulation
        time.sleep(spent)
        return dataclasses.replace(real(game, top=top, simulations=4), simulations=simulations or 64, seconds=spent)

    return analyze


def test_kata_analyze_stops_within_a_second_when_the_next_command_comes(bot, monkeypatch):
    """Each report doubled its search, so after a few seconds one report took seconds and the
    next command waited for it (10.8 to 61 s measured). A report's search is now cut at
    STREAM_SLICE_SECONDS once the last one's speed says it would run longer."""
    import threading
    import time

    engine = Engine(bot)
    monkeypatch.setattr(engine.bot, "analyze", _slow_analyze(bot, 0.002))  # 512 simulations a second
    read, write = os.pipe()
    stdin, stdout = os.fdopen(read, "r"), _Collected()
    worker = threading.Thread(target=engine.run, args=(stdin, stdout, io.StringIO()))
    with os.fdopen(write, "w") as feed:
        feed.write("kata-analyze 1\n")
        feed.flush()
        worker.start()
        time.sleep(4.5)  # doubling from 16: the search of 2,048 simulations would run from 4 s to 8 s
        sent = time.monotonic()
        feed.write("name\n")
        feed.flush()
        while "= catena-zero" not in stdout.text() and time.monotonic() < sent + 30:
            time.sleep(0.01)
        waited = time.monotonic() - sent
        feed.write("quit\n")
    worker.join(30)
    assert waited < 1.0, waited
    assert stdout.text().count("info move") >= 4


def test_kata_analyze_options_maxmoves_and_ownership(bot):
    import threading
    import time

    engine = Engine(bot)
    read, write = os.pipe()
    stdin, stdout = os.fdopen(read, "r"), _Collected()
    worker = threading.Thread(target=engine.run, args=(stdin, stdout, io.StringIO()))
    with os.fdopen(write, "w") as feed:
        feed.write("kata-analyze interval 1 maxmoves 2 ownership true\n")
        feed.flush()
        worker.start()
        deadline = time.monotonic() + 60
        while "ownership" not in stdout.text() and time.monotonic() < deadline:
            time.sleep(0.01)
        feed.write("quit\n")
    worker.join(60)
    report = stdout.text().split("\n")[1]
    moves, owned = report.split(" ownership ")
    assert 1 <= moves.count("info move") <= 2 and len(owned.split()) == 5 * 5  # side 3: a 5 x 5 grid


@pytest.mark.parametrize("flags, message", [
    (["--threads", str(2**40)], "argument --threads: must be in 1..256"), (["--threads", "100000"], "argument --threads: must be in"),
    (["--threads", "0"], "argument --threads: must be in"), (["--seconds", "inf"], "argument --seconds: must be a time"),
    (["--seconds", "nan"], "argument --seconds: must be a time"), (["--seconds", "-1"], "argument --seconds: must be a time"),
    (["--seconds", "1e9"], "argument --seconds: must be a time")])
def test_engine_search_flags_are_range_checked(bot_path, capsys, monkeypatch, flags, message):
    from catena_zero.cli import main

    monkeypatch.setattr("sys.stdin", io.StringIO("name\n"))
    assert main(["engine", "--bot", str(bot_path), "--device", "cpu", *flags]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"catena-zero: error: {message}") and err.count("\n") == 1, err


def test_engine_and_analysis_say_one_line_about_the_bot(capsys, monkeypatch):
    """Not the index's research paragraph: the file, its rules and search, its strength in brief."""
    from catena_zero.cli import main

    for command in ("engine", "analysis"):
        monkeypatch.setattr("sys.stdin", io.StringIO(""))
        assert main([command, "--simulations", "2", "--device", "cpu"]) == 0
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and len(err) < 200, err
        assert err.startswith(f"catena-zero {command}: side6.bot (step ") and "% vs mcts:" in err, err


def _exchange(process, line: str) -> str:
    """Send one command, read its reply up to the empty line that ends it."""
    process.stdin.write(line + "\n")
    process.stdin.flush()
    lines = []
    while True:
        got = process.stdout.readline()
        assert got, f"the engine ended answering {line!r}"
        if got == "\n" and lines:
            return "\n".join(lines)
        lines.append(got.rstrip("\n"))


def test_a_gtp_session_as_gogui_twogtp_and_sabaki_drive_it(bot_path):
    """The commands and forms a controller sends (decimal komi, time_settings, genmove, an
    analysis stream with its pv, final_score during and after the game), over a pipe."""
    env = dict(os.environ, PYTHONPATH=str(REPO), OMP_NUM_THREADS="1")
    process = subprocess.Popen(
        [sys.executable, "-m", "catena_zero.cli", "engine", "--bot", str(bot_path), "--simulations", "8",
         "--device", "cpu"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env=env)
    try:
        assert _exchange(process, "1 protocol_version") == "=1 2"
        assert _exchange(process, "2 name") == "=2 catena-zero"
        assert _exchange(process, "3 boardsize 3") == "=3"
        assert _exchange(process, "4 clear_board") == "=4"
        assert _exchange(process, "5 komi 8.0") == "=5"
        assert _exchange(process, "6 time_settings 3 0 0") == "=6"  # a blitz: a few tenths a move
        move = _exchange(process, "7 genmove b")
        assert move.startswith("=7 ")
        assert _exchange(process, "8 final_score").split(" ")[1][:2] in ("B+", "W+", "0")
        # Sabaki's analysis: the stream until the next command, every candidate with its pv.
        process.stdin.write("9 kata-analyze w 10\n")
        process.stdin.flush()
        assert process.stdout.readline() == "=9\n"
        report = process.stdout.readline()
        assert _exchange(process, "10 name").splitlines()[-1] == "=10 catena-zero"
        infos = report.split("info ")[1:]
        assert infos
        for info in infos:
            words = info.split()
            assert words[0] == "move" and "pv" in words and words[words.index("pv") + 1] == words[1], info
        assert _exchange(process, "11 komi 7.5").startswith("?11 komi 7.5 is not a whole number")
        assert _exchange(process, "12 play w pass").startswith("?12 there is no pass")
        for _ in range(40):  # play it out: genmove for the side to move, as twogtp does
            reply = _exchange(process, "genmove b")
            if "not to move" in reply:
                reply = _exchange(process, "genmove w")
            if "over" in reply:
                break
            assert reply.startswith("= "), reply
        result = _exchange(process, "13 final_score")
        assert result.startswith("=13 ") and result.split()[1][:2] in ("B+", "W+", "0")
        assert _exchange(process, "14 quit") == "=14"
    finally:
        process.stdin.close()
        process.wait(60)
    assert process.returncode == 0 and "Traceback" not in process.stderr.read()


def test_merged_searches_add_visits_and_weight_values_by_them():
    from catena_zero.bot.bot import Analysis, MoveAnalysis, merge_analyses

    def analysis(moves, simulations):
        return Analysis(to_move="black", value=moves[0].value, score=moves[0].score, best=moves[0].move,
                        moves=tuple(moves), simulations=simulations, seconds=1.0, net_value=0.0, net_score=0.0)

    a = analysis([MoveAnalysis("A1", 30, 0.5, 2.0, 0.4, ("A1", "B1")), MoveAnalysis("B2", 10, -0.2, -1.0, 0.3)], 40)
    b = analysis([MoveAnalysis("B2", 50, 0.1, 1.0, 0.3, ("B2", "C1")), MoveAnalysis("A1", 10, 0.1, 0.0, 0.4)], 60)
    merged = merge_analyses(a, b, top=1)
    assert merged.simulations == 100 and merged.seconds == 2.0 and len(merged.moves) == 1
    best = merged.moves[0]
    assert (best.move, best.visits, best.pv) == ("B2", 60, ("B2", "C1")) and merged.best == "B2"
    assert best.value == pytest.approx((10 * -0.2 + 50 * 0.1) / 60) and merged.value == best.value
    a1 = merge_analyses(a, b, top=2).moves[1]
    assert (a1.move, a1.visits, a1.pv) == ("A1", 40, ("A1", "B1")) and a1.score == pytest.approx(1.5)
