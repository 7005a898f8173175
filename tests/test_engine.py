"""The GTP-style protocol (bot/engine.py): every command, ids, replies, and bad commands and arguments
answered with '?' and the state unchanged; one end-to-end session through ``catena-zero engine``."""

from __future__ import annotations

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
    return engine.config, engine.game.actions, engine.finished


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
        with pytest.raises(AssertionError):
            ok(engine, "final_score")
        analysis = ok(engine, "analyze 3").splitlines()
        head = analysis[0].split()
        assert head[0:2] == ["to_move", colour] and head[2] == "value" and head[6] == "best"
        assert 1 <= len(analysis) - 1 <= 3 and analysis[1].split()[0] == head[7]
        move = ok(engine, f"genmove {colour}")
        assert move == bot.select_move(reference) == head[7]
        reference.play(move)
        assert engine.game.actions == reference.actions
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
    "final_score", "final_score now", "analyze 0", "analyze x", "analyze 1 2",
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


# ----------------------------------------------------------------- GTP's own commands (issue 28)


def test_boardsize_is_options_side(engine):
    ok(engine, "boardsize 3")
    assert engine.config.side == 3 and engine.game.move_number == 0
    before = state(engine)
    for line in ("boardsize 4", "boardsize", "boardsize x"):  # side 4: the bot was not trained for it
        assert not engine.handle(line).ok and state(engine) == before, line


def test_time_settings_turn_the_clock_into_a_thinking_time(engine, monkeypatch):
    from catena_zero.bot.engine import CLOCK_LEAST_SECONDS, CLOCK_MARGIN_SECONDS

    asked = []
    monkeypatch.setattr(engine.bot, "select_move",
                        lambda game, seconds=None, simulations=None: asked.append(seconds) or game.legal_moves()[0])
    ok(engine, "genmove black")
    assert asked == [None]  # no time control: the bot's own budget
    ok(engine, "clear_board")
    ok(engine, "time_settings 60 10 5")
    empty = len(engine.game.legal_cells())
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
        assert engine.config.side == side and engine.bot.supports(engine.config)
        steps[side] = engine.bot.header.step
        ok(engine, "genmove black")
    assert len(set(steps.values())) == 3  # three shipped bots, each loaded once
    assert engine.bot is first  # back on side 6: the bot the engine started with, not a second copy
    assert bot_for(GameConfig(side=4)) is bot_for(GameConfig(side=4))
    assert bot_for(GameConfig(side=7)).supports(GameConfig(side=7))  # side5-7-8.bot
    assert bot_for(GameConfig(side=9)) is None  # none ships: the engine keeps its bot and says why
    assert engine.handle("boardsize 9").text.startswith("this bot was trained for side 6")
    # A bot file named on the command line is the only bot: no switch.
    fixed = Engine(bot_for(GameConfig(side=6)))
    assert fixed.handle("boardsize 4").text.startswith("this bot was trained for side 6")
