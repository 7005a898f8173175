"""One default for bot files: ``ship`` and ``export`` write the search a bot's strength is measured
at (``PLAY_SIMULATIONS``, 400 a move) unless told otherwise, and both print the search they wrote,
so a bot is never shipped at a training budget (16 simulations in quick.yaml) by leaving out a flag."""

from __future__ import annotations

import pytest

from catena_zero.artifacts.botfile import PLAY_SIMULATIONS, read_bot
from catena_zero.cli import main
from bot_files import save_tiny_checkpoint


@pytest.fixture
def checkpoint(tmp_path):
    return save_tiny_checkpoint(tmp_path / "run", step=3)


def test_ship_and_export_write_and_print_the_same_default_search(tmp_path, checkpoint, capsys):
    folder = tmp_path / "bots"
    folder.mkdir()
    assert main(["export", str(checkpoint), "--out", str(tmp_path / "e.bot")]) == 0
    exported = capsys.readouterr().out
    assert main(["ship", str(checkpoint), "s", "--folder", str(folder)]) == 0, capsys.readouterr().err
    shipped = capsys.readouterr().out
    for out, said in ((tmp_path / "e.bot", exported), (folder / "s.bot", shipped)):
        search = read_bot(out).header.search
        assert search.num_simulations == PLAY_SIMULATIONS == 400
        assert f"default search: {search.algorithm}, 400 simulations" in said
    # A bot file shipped again keeps the rule: 400 unless said, 0 its own, N as given.
    for flags, expected in (([], 400), (["--simulations", "0"], 400), (["--simulations", "32"], 32)):
        assert main(["ship", str(folder / "s.bot"), "t", "--folder", str(folder), *flags]) == 0
        assert f"default search: gumbel, {expected} simulations" in capsys.readouterr().out
        assert read_bot(folder / "t.bot").header.search.num_simulations == expected
    assert main(["ship", str(folder / "t.bot"), "u", "--folder", str(folder), "--simulations", "0"]) == 0
    assert read_bot(folder / "u.bot").header.search.num_simulations == 32  # 0: the source's own
    assert main(["ship", str(checkpoint), "v", "--folder", str(folder), "--simulations", "-1"]) == 2
    assert "--simulations must be 0 (the source's own" in capsys.readouterr().err
