"""Outputs never destroy inputs (issue 14): an output that is one of a command's inputs, or two
outputs that are the same file, are refused with one line before any work, and the files stay."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from bot_files import save_tiny_checkpoint
from catena_zero.cli import main


def one_line_error(capsys, code, fragment):
    out, err = capsys.readouterr()
    assert code == 2, (out, err)
    assert err.startswith("catena-zero: error: ") and err.count("\n") == 1 and "Traceback" not in err, err
    assert fragment in err, err


def record_file(tmp_path: Path, capsys) -> Path:
    path = tmp_path / "rec.txt"
    assert main(["random-game", "--side", "3", "--out", str(path)]) == 0
    capsys.readouterr()
    return path


def test_export_onto_its_own_checkpoint_is_refused_and_the_checkpoint_kept(tmp_path, capsys):
    ckpt = save_tiny_checkpoint(tmp_path / "run", step=3)
    before = ckpt.read_bytes()
    one_line_error(capsys, main(["export", str(ckpt), "--out", str(ckpt)]), "would destroy it")
    # the same file through a run folder, a symlink and a hard link
    link = tmp_path / "link.pt"
    link.symlink_to(ckpt)
    hard = tmp_path / "hard.pt"
    os.link(ckpt, hard)
    for source, out in ((tmp_path / "run", ckpt), (ckpt, link), (link, ckpt), (ckpt, hard),
                        (ckpt, tmp_path / "x" / ".." / "run" / "ckpt" / ckpt.name)):
        (tmp_path / "x").mkdir(exist_ok=True)
        one_line_error(capsys, main(["export", str(source), "--out", str(out)]), "would destroy it")
    assert ckpt.read_bytes() == before


def test_show_svg_onto_its_record_is_refused_and_the_record_kept(tmp_path, capsys):
    rec = record_file(tmp_path, capsys)
    before = rec.read_bytes()
    one_line_error(capsys, main(["show", str(rec), "--svg", str(rec)]), "--svg")
    assert rec.read_bytes() == before
    assert main(["show", str(rec), "--svg", str(tmp_path / "pic.svg")]) == 0  # another file is fine


def test_random_game_with_one_file_for_both_outputs_is_refused(tmp_path, capsys):
    path = tmp_path / "f"
    one_line_error(capsys, main(["random-game", "--side", "3", "--out", str(path), "--svg", str(path)]),
                   "are the same file")
    assert not path.exists()  # refused before any work
    assert main(["random-game", "--side", "3", "--out", "/dev/null", "--svg", "/dev/null"]) == 0  # special files repeat


def test_random_game_over_its_config_is_refused(tmp_path, capsys):
    config = tmp_path / "c.yaml"
    config.write_text("game:\n  side: 3\n")
    one_line_error(capsys, main(["random-game", "--config", str(config), "--out", str(config)]), "would destroy it")
    assert config.read_text() == "game:\n  side: 3\n"


def test_play_saving_over_its_bot_file_is_refused(tmp_path, capsys):
    bot = tmp_path / "b.bot"
    bot.write_bytes(b"not really a bot")
    one_line_error(capsys, main(["play", "--bot", str(bot), "--save", str(bot)]), "would destroy it")
    assert bot.read_bytes() == b"not really a bot"


def test_evaluate_refuses_a_records_folder_with_files_before_the_first_game(tmp_path, capsys, monkeypatch):
    import catena_zero.eval.arena as arena

    def no_match(*args, **kwargs):
        raise AssertionError("the match must not start")

    monkeypatch.setattr(arena, "play_match", no_match)
    folder = tmp_path / "rec"
    folder.mkdir()
    (folder / "game-0001.txt").write_text("an earlier match's record\n")
    one_line_error(capsys, main(["evaluate", "random", "greedy", "--games", "2", "--side", "3",
                                 "--save-records", str(folder)]), "already holds 1 file")
    assert (folder / "game-0001.txt").read_text() == "an earlier match's record\n"
    a_file = tmp_path / "file"
    a_file.write_text("x")
    one_line_error(capsys, main(["evaluate", "random", "greedy", "--games", "2", "--side", "3",
                                 "--save-records", str(a_file)]), "it is a file, not a folder")


def test_evaluate_writes_records_into_a_new_folder(tmp_path, capsys):
    folder = tmp_path / "new" / "rec"
    assert main(["evaluate", "random", "greedy", "--games", "2", "--side", "3", "--save-records", str(folder)]) == 0
    assert sorted(p.name for p in folder.iterdir()) == ["game-0001.txt", "game-0002.txt"]
