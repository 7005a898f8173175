"""The terminal's no_komi set-up (R7) as a person meets it: the same kind of advice as the komi
choice (is the first stone worth taking, which opening stone is fair), one spelling of the choice
('white' or 'swap') wherever it is asked, the board again once the colours are settled, and one
line about the bot it plays (not the shipped bots' index paragraph)."""

from __future__ import annotations

import pytest

from catena_zero.bot import Bot
from catena_zero.game import Game, GameConfig
from catena_zero.game.render import render_ascii
from test_commands import run
from web_helpers import make_bot_file

NO_KOMI = GameConfig(side=3, game_type="no_komi")


@pytest.fixture(scope="module")
def bot_path(tmp_path_factory):
    return make_bot_file(tmp_path_factory.mktemp("bot"))


def play(bot_path, capsys, monkeypatch, seat: str, stdin: str):
    return run(["play", "--bot", str(bot_path), "--device", "cpu", "--simulations", "2", "--side", "3",
                "--game-type", "no_komi", "--seat", seat], capsys, stdin=stdin, monkeypatch=monkeypatch)


def test_the_second_player_is_told_whether_the_first_stone_is_worth_taking(bot_path, capsys, monkeypatch):
    code, out, err = play(bot_path, capsys, monkeypatch, "second", "moves\nwhite\nquit\n")
    assert code == 0
    bot = Bot.load(bot_path, device="cpu")
    stone = bot.choose_first_stone(NO_KOMI)
    game = Game(NO_KOMI)
    game.play(stone)
    verdict = "yes: it would swap ('swap')" if bot.choose_swap(game) else "no: it would keep White ('white')"
    text = " ".join(out.split())
    assert f"Is Black's stone on {stone} worth taking? The bot's heads say {verdict}." in text
    assert "Why it matters: keeping White gives you the next move" in text
    # One spelling of the choice: the intro, the board's line, 'moves' and help say 'white' / 'swap'.
    assert "choose: 'white' keeps White, 'swap' takes over Black and its stone" in out
    assert "('colour white')" not in out and "legal: colour white" not in out
    # The colours settled by keeping White: the board again, with White to move.
    after = out.split("second player: colour white\n", 1)[1]
    assert render_ascii(game, legend=False).splitlines()[0] in after
    assert "white (second player) to move" in after
    # One line about the bot on stderr: its file, step, rules and search.
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"catena-zero play: {bot_path.name} (step 0, "), err


def test_the_first_player_is_told_a_fair_opening_stone(bot_path, capsys, monkeypatch):
    code, out, _ = play(bot_path, capsys, monkeypatch, "first", "quit\n")
    assert code == 0
    stone = Bot.load(bot_path, device="cpu").choose_first_stone(NO_KOMI)
    text = " ".join(out.split())
    assert f"The bot's estimate of a fair opening stone: {stone} (the one its heads put closest to even" in text
    assert "Why it matters: the second player then keeps White or takes over Black and your stone" in text


def test_the_shipped_bot_is_introduced_in_one_line(capsys, monkeypatch):
    code, out, err = run(["play", "--opponent", "bot", "--side", "3", "--device", "cpu", "--simulations", "2"],
                         capsys, stdin="quit\n", monkeypatch=monkeypatch)
    assert code == 0
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("catena-zero play: side3.bot (step "), err
    assert len(lines[0]) <= 200 and "trained" not in lines[0]
