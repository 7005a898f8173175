"""The command line (cli.py), driven through ``main([...])`` with scripted stdin: outputs, exit
statuses, records written and reloaded, re-prompts on bad input, one-line errors."""

from __future__ import annotations

import io
import sys
import xml.etree.ElementTree as ET

import numpy as np
import pytest

from catena_zero.bot.players import Player, RandomPlayer, setup_choices
from catena_zero.game.notation import EventKind
from catena_zero.cli import main
from catena_zero.terminal import play_in_terminal
from catena_zero.commands.random_game import play_random_game
from catena_zero.config import config_from_dict
from catena_zero.eval.agents import RandomAgent, UCTAgent
from catena_zero.eval.specs import PLAYER_KINDS, make_player
from catena_zero.game import Game, GameConfig
from catena_zero.game.match import Match
from catena_zero.game.records import load_record
from events import choose_event, ev, evs, texts  # noqa: F401


def run(argv, capsys, stdin: str | None = None, monkeypatch=None):
    if stdin is not None:
        monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def assert_one_line_error(code, err, fragment):
    assert code == 2
    assert err.startswith("catena-zero: error: ") and err.count("\n") == 1, err
    assert "Traceback" not in err and fragment in err, err


# ----------------------------------------------------------------------------- random-game


def test_random_game_writes_a_record_that_replays_and_an_svg(tmp_path, capsys):
    out_path, svg_path = tmp_path / "g.txt", tmp_path / "g.svg"
    code, out, err = run(["random-game", "--side", "3", "--scoring", "longest", "--komi", "2", "--seed", "4",
                          "--out", str(out_path), "--svg", str(svg_path)], capsys)
    assert code == 0 and err == ""
    record = load_record(out_path)
    expected = play_random_game(config_from_dict({"game": {"side": 3, "scoring": "longest", "komi": 2}, "seed": 4}))
    assert record.config == GameConfig(side=3, scoring="longest", komi=2)
    assert texts(record.events) == expected.history and record.result is not None
    assert f"game over: {expected.winner} wins" in out
    assert out.count("game over") == 1 and "result:" not in out  # the result once, not twice
    assert ET.parse(svg_path).getroot().tag.endswith("svg")
    # the seed decides the game
    run(["random-game", "--side", "3", "--seed", "4", "--out", str(tmp_path / "a.txt")], capsys)
    run(["random-game", "--side", "3", "--seed", "4", "--out", str(tmp_path / "b.txt")], capsys)
    assert (tmp_path / "a.txt").read_text() == (tmp_path / "b.txt").read_text()


def test_flags_override_the_config_file(tmp_path, capsys):
    cfg = tmp_path / "c.yaml"
    cfg.write_text("game:\n  side: 5\n  scoring: quadratic\n  komi: 100\nseed: 3\n")
    code, _, _ = run(["random-game", "--config", str(cfg), "--side", "3", "--out", str(tmp_path / "g.txt")], capsys)
    assert code == 0
    record = load_record(tmp_path / "g.txt")
    assert record.config == GameConfig(side=3, scoring="quadratic", komi=100)


# ----------------------------------------------------------------------------------- errors


@pytest.mark.parametrize(
    "argv, fragment",
    [
        (["fly"], "invalid choice"),
        (["random-game", "--side", "x"], "invalid int value"),
        (["random-game", "--side", "12"], "side must be in 2..10"),
        (["random-game", "--game-type", "double", "--komi", "3"], "has no komi"),
        (["random-game", "--scoring", "best"], "invalid choice"),
        (["random-game", "--config", "/nonexistent/c.yaml"], "cannot read config"),
        (["random-game", "--out", "/nonexistent/dir/g.txt", "--side", "2"], "cannot write"),
        (["show", "/nonexistent/g.txt"], "cannot read record"),
        (["train"], "--config"),
        (["play", "--opponent", "genius"], "unknown player kind 'genius'"),
        (["play", "--opponent", "random:3"], "takes no argument"),
        (["play", "--opponent", "net"], "needs trained weights"),
    ],
)
def test_errors_are_one_line_with_status_2(argv, fragment, capsys, monkeypatch):
    code, _, err = run(argv, capsys, stdin="", monkeypatch=monkeypatch)
    assert_one_line_error(code, err, fragment)


def test_bad_config_and_bad_record_are_one_line(tmp_path, capsys):
    cfg = tmp_path / "c.yaml"
    cfg.write_text("game:\n  sides: 3\n")
    code, _, err = run(["train", "--config", str(cfg)], capsys)
    assert_one_line_error(code, err, "unknown key game.sides")
    cfg.write_text("game: [1, 2\n")
    code, _, err = run(["random-game", "--config", str(cfg)], capsys)
    assert_one_line_error(code, err, "invalid YAML")
    rec = tmp_path / "r.txt"
    rec.write_text("catena-record 1\nside 3\ngame_type komi\nscoring standard\nkomi 0\nstart play\nevents\nC3\nC3\nend\n")
    code, _, err = run(["show", str(rec)], capsys)
    assert_one_line_error(code, err, "line 9: move 'C3' is illegal")


def test_help_exits_zero(capsys):
    assert main(["--help"]) == 0
    assert "random-game" in capsys.readouterr().out


# ------------------------------------------------------------------------------------ show


def test_show_prints_board_result_positions_and_svg(tmp_path, capsys):
    path = tmp_path / "g.txt"
    run(["random-game", "--side", "3", "--seed", "1", "--out", str(path)], capsys)
    record = load_record(path)
    code, out, _ = run(["show", str(path)], capsys)
    assert code == 0 and f"{len(record.events)} moves" in out  # a "play" record: every event is a move
    assert f"game over: {record.result.winner} wins" in out and out.count("game over") == 1
    assert f"last move: {record.events[-1]}" in out
    code, out, _ = run(["show", str(path), "--move", "2", "--svg", str(tmp_path / "p.svg")], capsys)
    assert code == 0 and f"position after move 2 of {len(record.events)}" in out
    assert f"last move: {record.events[1]}" in out and "game over" not in out and " to move" in out
    svg = ET.parse(tmp_path / "p.svg").getroot()
    assert len([e for e in svg.iter() if "stone" in e.get("class", "").split()]) == 2
    code, _, err = run(["show", str(path), "--move", "999"], capsys)
    assert_one_line_error(code, err, "--move must be in 0..")


def test_show_counts_moves_as_the_stones_are_and_lists_the_setup_apart(tmp_path, capsys):
    """Issue 28: `show --move N` counted set-up choices as moves, unlike the stones' numbers and
    the result. Move k is the game's k-th move; the set-up is listed apart."""
    from catena_zero.game.match import Match
    from catena_zero.game.records import save_record

    match = Match(GameConfig(side=3))
    for event in ("komi 6", "colour black", "B2", "C3", "A1"):
        match.apply(ev(event))
    path = tmp_path / "m.txt"
    save_record(path, match)
    code, out, _ = run(["show", str(path)], capsys)
    assert code == 0 and out.splitlines()[0].endswith("3 moves; set-up: komi 6, colour black")
    code, out, _ = run(["show", str(path), "--move", "2"], capsys)
    assert "position after move 2 of 3" in out and "last move: C3" in out
    code, out, _ = run(["show", str(path), "--move", "0"], capsys)
    assert "last move: none" in out and "komi 6" in out  # the set-up before the first move is made
    code, _, err = run(["show", str(path), "--move", "4"], capsys)
    assert_one_line_error(code, err, "--move must be in 0..3 (the record has 3 moves), got 4")


# ----------------------------------------------------------------------------------- train


# ------------------------------------------------------------------------------------ play


def scripted_match(config: GameConfig, seed: int) -> list[str]:
    """The events of a complete random match, to be typed by two people."""
    rng, player, match = np.random.default_rng(seed), RandomPlayer(), Match(config)
    while match.phase != "over":
        match.apply(ev(choose_event(player, match, rng)))
    return texts(match.events)


def typed(event: str) -> str:
    """How a person might type an event: cells in lower case, set-up shorthands (R7)."""
    if event.startswith("komi "):
        return event.split()[1]  # "7"
    if event.startswith("colour "):
        return event.split()[1].upper()  # "WHITE"
    return event.lower()


@pytest.mark.parametrize("config", [GameConfig(side=3), GameConfig(side=3, game_type="no_komi"),
                                    GameConfig(side=3, game_type="double", scoring="quadratic")])
def test_two_people_play_a_whole_match_and_save_it(config, tmp_path, capsys, monkeypatch):
    events = scripted_match(config, seed=8)
    stdin = "\n".join(typed(e) for e in events) + "\n"
    path = tmp_path / "m.txt"
    code, out, err = run(["play", "--side", "3", "--game-type", config.game_type, "--scoring", config.scoring,
                          "--save", str(path)], capsys, stdin=stdin, monkeypatch=monkeypatch)
    assert code == 0 and err == ""
    record = load_record(path)
    assert texts(record.events) == events and record.result is not None
    assert out.count("game over: ") == 1 and ("wins" in out or "a draw" in out)
    assert "not accepted" not in out
    # Issue 28: the key that never changes is shown with the first board, not after every move;
    # the last move and the status lines come with every board.
    assert out.count("X black, O white, x o claimed") == 1 and out.count("a cell touches six") == 1
    # Under no_komi the board comes again once the second player has kept White or swapped.
    assert out.count("last move: ") == len(record.position().history) + 1 + (config.game_type == "no_komi")


def test_bad_input_reprompts_and_commands_work(tmp_path, capsys, monkeypatch):
    config = GameConfig(side=3)
    events = scripted_match(config, seed=2)
    komi, colour, first_move = events[0], events[1], events[2]
    script = [
        "komi 99",  # out of range (R6): re-prompt
        "D5",  # not the komi phase
        "help", "moves",
        komi,
        "purple",  # not a colour
        colour,
        "", "zz", "Z9", "board", "moves",
        first_move.lower(),
        first_move,  # occupied now (R3)
        *events[3:],
    ]
    path = tmp_path / "m.txt"
    code, out, err = run(["play", "--side", "3", "--save", str(path)], capsys, stdin="\n".join(script) + "\n",
                         monkeypatch=monkeypatch)
    assert code == 0 and err == "" and "Traceback" not in out
    assert out.count("not accepted:") == 6
    assert "komi must be a whole number in 0..15" in out
    assert "cannot play 'D5' now" in out
    assert "'Z9' is not a cell of the side-3 board" in out
    assert f"{first_move} is occupied" in out
    assert "choose the komi: a whole number from 0 to 15" in out  # 'moves' in the komi phase
    assert "legal: A1 A2 A3" in out  # 'moves' in play
    assert "Commands:" in out  # help
    assert texts(load_record(path).events) == events


def test_end_of_input_and_quit_end_cleanly_and_save_unfinished(tmp_path, capsys, monkeypatch):
    path = tmp_path / "m.txt"
    code, out, err = run(["play", "--side", "3", "--save", str(path)], capsys, stdin="", monkeypatch=monkeypatch)
    assert code == 0 and err == "" and "end of input: game abandoned" in out
    assert load_record(path).events == () and load_record(path).result is None
    code, out, _ = run(["play", "--side", "3", "--komi", "5", "--save", str(path)], capsys,
                       stdin="black\nc3\nquit\nd4\n", monkeypatch=monkeypatch)
    assert code == 0 and "game abandoned" in out
    record = load_record(path)
    assert texts(record.events) == ["komi 5", "colour black", "C3"]  # --komi answers the komi choice (R7)
    assert record.first == "white" and record.result is None


class LegalTyping(io.StringIO):
    """A person who always types the first legal move (and 'white' when asked for a colour)."""

    def __init__(self, match: Match):
        super().__init__()
        self.match, self.lines = match, 0

    def readline(self, *args) -> str:
        self.lines += 1
        if self.match.phase == "komi":
            return "3\n"
        if self.match.phase == "colour":
            return "white\n"
        return self.match.game.legal_moves()[0].lower() + "\n"


@pytest.mark.parametrize("seat", ["first", "second"])
def test_person_against_random_player(seat):
    match = Match(GameConfig(side=3))
    players = {"first": None, "second": None}
    players["second" if seat == "first" else "first"] = RandomPlayer()
    out = io.StringIO()
    result = play_in_terminal(match, players, np.random.default_rng(0), LegalTyping(match), out)
    assert result.finished and match.phase == "over"
    text = out.getvalue()
    # The person acted exactly on their own turns: replaying, count the events of each seat.
    replay = Match(GameConfig(side=3))
    mine = 0
    for event in match.events:
        mine += replay.player_to_act == seat
        replay.apply(event)
    assert "not accepted" not in text
    assert text.count(" > ") == mine  # one prompt per own turn, none on the program's turns
    if seat == "first":
        assert match.events[0] == ev("komi 3")
    else:
        assert match.events[1] == ev("colour white")
    assert f"game over: {match.game.winner} ({match.player_of(match.game.winner)} player) wins" in text
    assert text.count("game over") == 1


def test_cli_play_against_random_saves_a_finished_game(tmp_path, capsys, monkeypatch):
    # The person's moves cannot be known in advance, so they quit as soon as play starts;
    # the random player has made its set-up choice by then (it is first).
    path = tmp_path / "m.txt"
    code, out, _ = run(["play", "--side", "3", "--opponent", "random", "--seat", "second", "--seed", "1",
                        "--save", str(path)], capsys, stdin="white\nquit\n", monkeypatch=monkeypatch)
    assert code == 0
    record = load_record(path)
    assert record.events[0].kind is EventKind.KOMI and record.events[1] == ev("colour white")
    assert f"first player: {record.events[0]}" in out


# --------------------------------------------------------------------------------- players


def test_random_player_is_uniform_over_legal_moves_and_seeded():
    game = Game(GameConfig(side=2))
    game.play("B2")  # R3: every other cell now touches B2, an end, so all 6 and the button are legal
    legal = game.legal_moves()
    assert len(legal) == 7
    rng = np.random.default_rng(0)
    picks = [RandomPlayer().choose(game, rng) for _ in range(7000)]
    counts = {m: picks.count(m) for m in legal}
    assert set(picks) == set(legal)
    assert all(850 < c < 1150 for c in counts.values()), counts  # 1000 expected, sd ~ 30
    again = [RandomPlayer().choose(game, np.random.default_rng(0)) for _ in range(3)]
    assert again == [RandomPlayer().choose(game, np.random.default_rng(0))] * 3
    assert isinstance(RandomPlayer(), Player)


def test_setup_choices_follow_the_match_phase():
    match = Match(GameConfig(side=3, scoring="quadratic"))
    assert texts(setup_choices(match)) == [f"komi {k}" for k in range(1001)]  # R6 range
    match.apply(ev("komi 10"))
    assert texts(setup_choices(match)) == ["colour black", "colour white"]
    no_komi = Match(GameConfig(side=3, game_type="no_komi"))
    no_komi.apply(ev("C3"))
    assert texts(setup_choices(no_komi)) == ["colour white", "swap"]  # R7
    no_komi.apply(ev("swap"))
    with pytest.raises(ValueError, match="no set-up choice in phase play"):
        setup_choices(no_komi)
    rng = np.random.default_rng(1)
    for config in (GameConfig(side=3), GameConfig(side=3, game_type="no_komi"), GameConfig(side=3, game_type="double")):
        m = Match(config)
        while m.phase != "over":
            m.apply(ev(choose_event(RandomPlayer(), m, rng)))  # IllegalMove would fail the test
        assert m.game.is_over


def test_make_player_builds_registered_kinds():
    config = config_from_dict({})
    player = make_player("random", config)
    assert isinstance(player, RandomAgent) and isinstance(player, Player)  # an agent is a player
    assert "random" in PLAYER_KINDS
    # mcts:K is the arena's UCT baseline, whatever the config's search section says.
    uct = make_player("mcts:64", config_from_dict({"search": {"algorithm": "gumbel", "c_puct_init": 3.0}}))
    assert isinstance(uct, UCTAgent) and uct.search == UCTAgent(64).search
    with pytest.raises(ValueError, match=r"unknown player kind 'alphabeta:8' \(known: random, greedy, mcts:K, net:FILE, "
                                         r"or the path of a checkpoint, a run folder or an exported bot file\)"):
        make_player("alphabeta:8", config)
    with pytest.raises(ValueError, match=r"^player kind 'mcts' needs a simulation count: write mcts:K, as in mcts:200$"):
        make_player("mcts", config)  # not "got None"
    with pytest.raises(ValueError, match="positive simulation count"):
        make_player("mcts:0", config)


def test_person_against_mcts_through_the_factory():
    """``--opponent mcts:K`` is the UCT baseline agent at batch size one, which plays whole matches."""
    config = config_from_dict({"game": {"side": 3}, "seed": 1})
    match = Match(config.game)
    players = {"first": None, "second": make_player("mcts:4", config)}
    result = play_in_terminal(match, players, np.random.default_rng(0), LegalTyping(match), io.StringIO())
    assert result.finished and match.game.is_over
    # Without choose_setup a program answers the komi choice with the configured komi (R7).
    match = Match(GameConfig(side=3, komi=6))
    players = {"first": make_player("mcts:2", config), "second": None}
    play_in_terminal(match, players, np.random.default_rng(0), io.StringIO("quit\n"), io.StringIO())
    assert texts(match.events) == ["komi 6"]


def test_play_help_lists_opponent_kinds(capsys):
    assert main(["play", "--help"]) == 0
    out = " ".join(capsys.readouterr().out.split())  # undo argparse's line wrapping
    assert "human" in out and "random (uniformly random legal moves)" in out


def test_printed_commands_name_the_program_as_it_can_be_run_from_here(tmp_path, monkeypatch):
    """Issue 28: 'continue with: catena-zero train ...' and 'tensorboard --logdir ...' gave
    "command not found" after `make train` on a fresh clone (.venv/bin is on no PATH). A hint
    names the program as it runs: its path from here, or the bare name where PATH finds it."""
    import os
    import sys

    from catena_zero.commands.common import program_words, tensorboard_words

    venv = tmp_path / "repo" / ".venv" / "bin"
    venv.mkdir(parents=True)
    for name in ("catena-zero", "tensorboard", "python"):
        (venv / name).write_text("#!/bin/sh\n")
        (venv / name).chmod(0o755)
    monkeypatch.chdir(tmp_path / "repo")
    monkeypatch.setattr(sys, "executable", str(venv / "python"))
    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    monkeypatch.setattr(sys, "argv", [".venv/bin/catena-zero", "train"])
    assert program_words() == [".venv/bin/catena-zero"] and tensorboard_words() == [".venv/bin/tensorboard"]
    (tmp_path / "elsewhere").mkdir()
    monkeypatch.chdir(tmp_path / "elsewhere")  # from a folder outside: the full path
    monkeypatch.setattr(sys, "argv", [str(venv / "catena-zero"), "train"])
    assert program_words() == [str(venv / "catena-zero")]
    monkeypatch.setenv("PATH", f"{venv}{os.pathsep}/usr/bin")  # an activated environment: the bare names
    assert program_words() == ["catena-zero"] and tensorboard_words() == ["tensorboard"]
    monkeypatch.setattr(sys, "argv", [str(tmp_path / "somewhere" / "cli.py")])  # python -m catena_zero.cli
    assert program_words() == [str(venv / "python"), "-m", "catena_zero.cli"]
    # A virtual environment's python is a link to the base interpreter: the link is what runs
    # with the environment's packages, so the hint names the link, never its target.
    (venv / "python").unlink()
    (venv / "python").symlink_to("/usr/bin/env")  # any program elsewhere stands for the base interpreter
    assert program_words() == [str(venv / "python"), "-m", "catena_zero.cli"]
    (venv / "tensorboard").unlink()
    assert tensorboard_words() == [str(venv / "python"), "-m", "tensorboard.main"]
