"""The measuring and shipping tools as commands: ``komi-check``, ``optimal-moves`` and
``ship``. Bad input is one line and status 2, never a traceback; scripts/ keeps thin entry points."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from bot_files import save_tiny_checkpoint, tiny_config
from catena_zero.artifacts.botfile import read_bot
from catena_zero.bot.shipped import SHIPPED_DIR, shipped_bots
from catena_zero.cli import COMMANDS, main
from catena_zero.eval.shipping import index_readme

ROOT = Path(__file__).resolve().parent.parent


def one_line_error(capsys, argv: list[str], fragment: str) -> None:
    code = main(argv)
    out, err = capsys.readouterr()
    assert code == 2, (out, err)
    assert err.startswith("catena-zero: error: ") and err.count("\n") == 1 and "Traceback" not in err, err
    assert fragment in err, err


@pytest.mark.parametrize("argv, fragment", [
    (["komi-check", "random", "--komis", "5"], "--komis is LO-HI"),
    (["komi-check", "random", "--komis", "a-b"], "--komis is LO-HI"),
    (["komi-check", "random", "--komis", "9-3"], "LO <= HI"),
    (["komi-check", "random", "--side", "2", "--komis", "0-99"], "komi is 0..15"),
    (["komi-check", "random", "--games", "0"], "--games must be at least 1"),
    (["komi-check", "random", "--sims", "0"], "--sims must be at least 1"),
    (["komi-check", "random"], "names no fair komi"),
    (["komi-check", "mcts"], "needs a simulation count"),
    (["komi-check", "no/such/run"], "no/such/run"),
    (["optimal-moves", "random", "random", "--side", "4"], "--side must be 2 or 3"),
    (["optimal-moves", "random", "random", "--games", "0"], "--games must be at least 1"),
    (["optimal-moves", "random", "random", "--komi", "99"], "komi"),
    (["optimal-moves", "random", "nobody"], "nobody"),
    (["ship", "--folder", "no/such/folder"], "not a folder"),
])
def test_bad_input_is_one_line_and_status_2(capsys, argv, fragment):
    one_line_error(capsys, argv, fragment)


def test_optimal_moves_on_side_2_judges_both_players(capsys):
    assert main(["optimal-moves", "random", "greedy", "--side", "2", "--komi", "1", "--games", "2"]) == 0
    last = capsys.readouterr().out.strip().splitlines()[-1]
    assert last.startswith("optimal-moves: random ") and "; greedy " in last and "outcome-optimal" in last


@pytest.fixture
def folder(tmp_path):
    folder = tmp_path / "bots"
    folder.mkdir()
    return folder


def test_ship_writes_the_bot_its_index_entry_and_the_readme(tmp_path, folder, capsys):
    run = tmp_path / "run"
    save_tiny_checkpoint(run, step=5)
    argv = ["ship", str(run), "tiny", "--folder", str(folder), "--simulations", "20", "--trained", "a minute",
            "--strength", "weak", "--default-rules", "side3-komi-standard"]
    assert main(argv) == 0, capsys.readouterr().err
    (bot,) = shipped_bots(folder)
    assert bot.name == "tiny.bot" and bot.header.search.num_simulations == 20 and bot.strength == "weak"
    assert json.loads((folder / "index.json").read_text())["tiny.bot"]["trained"] == "a minute"
    assert "| `tiny.bot` |" in (folder / "README.md").read_text()
    assert "ship: index of 1 bot(s)" in capsys.readouterr().out
    assert main(["ship", str(run), "plain", "--folder", str(folder), "--simulations", "0"]) == 0  # the checkpoint's
    assert shipped_bots(folder)[0].header.search.num_simulations == tiny_config().search.num_simulations
    assert shipped_bots(folder)[0].header.search.score_utility_weight == tiny_config().search.score_utility_weight
    assert main(["ship", str(run), "plain", "--folder", str(folder), "--search", "score_utility_weight=0.3"]) == 0
    assert shipped_bots(folder)[0].header.search.score_utility_weight == 0.3  # the bot's play search


def test_ship_and_export_write_one_bot_file_of_a_checkpoint_and_of_a_bot_file(tmp_path, folder, capsys):
    """One writer (artifacts/export.py): the same source and play settings give the same bytes."""
    run = tmp_path / "run"
    save_tiny_checkpoint(run, step=5)
    settings = ["--simulations", "20", "--search", "gumbel_interior=puct"]
    assert main(["ship", str(run), "tiny", "--folder", str(folder), *settings]) == 0, capsys.readouterr().err
    assert main(["export", str(run), "--out", str(tmp_path / "tiny.bot"), *settings]) == 0, capsys.readouterr().err
    assert (folder / "tiny.bot").read_bytes() == (tmp_path / "tiny.bot").read_bytes()
    again = ["--simulations", "30", "--symmetry-average"]
    assert main(["ship", str(folder / "tiny.bot"), "again", "--folder", str(folder), *again]) == 0
    assert main(["export", str(folder / "tiny.bot"), "--out", str(tmp_path / "again.bot"), *again]) == 0
    assert (folder / "again.bot").read_bytes() == (tmp_path / "again.bot").read_bytes()
    out = capsys.readouterr().out
    assert f"exported {folder / 'tiny.bot'} to {tmp_path / 'again.bot'}: step 5" in out


def test_ship_of_a_shipped_bot_changes_its_play_search_and_keeps_its_index_entry(tmp_path, folder, capsys):
    run = tmp_path / "run"
    save_tiny_checkpoint(run, step=5)
    assert main(["ship", str(run), "tiny", "--folder", str(folder), "--trained", "a minute",
                 "--strength", "weak"]) == 0, capsys.readouterr().err
    entry = json.loads((folder / "index.json").read_text())["tiny.bot"]
    weights = read_bot(folder / "tiny.bot").weights
    assert main(["ship", str(folder / "tiny.bot"), "tiny", "--folder", str(folder), "--search",
                 "gumbel_interior=puct", "--strength", "stronger"]) == 0, capsys.readouterr().err
    (bot,) = shipped_bots(folder)
    assert bot.header.search.gumbel_interior == "puct" and bot.header.step == 5
    assert json.loads((folder / "index.json").read_text())["tiny.bot"] == {**entry, "strength": "stronger"}
    assert all(torch.equal(read_bot(folder / "tiny.bot").weights[k], w) for k, w in weights.items())
    assert "stronger" in (folder / "README.md").read_text()
    assert "symmetries" not in (folder / "README.md").read_text()
    assert main(["ship", str(folder / "tiny.bot"), "tiny", "--folder", str(folder), "--symmetry-average"]) == 0
    (bot,) = shipped_bots(folder)
    assert bot.header.net.symmetry_average and bot.header.search.gumbel_interior == "puct"
    assert "| 2x16, averaged over 12 symmetries |" in (folder / "README.md").read_text()


def test_ship_records_the_positions_and_cpu_hours_the_checkpoint_measured(tmp_path, folder, capsys):
    import dataclasses

    import torch

    from catena_zero.artifacts.checkpoint import Checkpoint, load_checkpoint, save_checkpoint
    from catena_zero.net import model_from_config

    def checkpoint(run, counters, init_from=""):
        config = tiny_config()
        config = dataclasses.replace(config, train=dataclasses.replace(config.train, init_from=init_from))
        model = model_from_config(config.net, torch.Generator().manual_seed(1))
        return save_checkpoint(run, Checkpoint(step=9, config=config, model=model.state_dict(), counters=counters))

    first = tmp_path / "first"
    checkpoint(first, {"positions": 1000, "cpu_seconds": 3600.0})
    assert main(["ship", str(first), "first", "--folder", str(folder)]) == 0, capsys.readouterr().err
    # A second stage from the first run's folder counts its CPU; one from a bot file cannot.
    second = tmp_path / "second"
    checkpoint(second, {"positions": 2500, "cpu_seconds": 5400.0}, init_from=str(first))
    assert main(["ship", str(second), "second", "--folder", str(folder)]) == 0, capsys.readouterr().err
    third = tmp_path / "third"
    checkpoint(third, {"positions": 300, "cpu_seconds": 1800.0}, init_from=str(folder / "first.bot"))
    assert main(["ship", str(third), "third", "--folder", str(folder)]) == 0, capsys.readouterr().err
    # A fourth from the third's folder adds the third's CPU and still names the bot file up the chain.
    fourth = tmp_path / "fourth"
    checkpoint(fourth, {"positions": 200, "cpu_seconds": 900.0}, init_from=str(third))
    assert main(["ship", str(fourth), "fourth", "--folder", str(folder)]) == 0, capsys.readouterr().err
    old = tmp_path / "old"
    save_tiny_checkpoint(old, step=3)  # written before runs counted positions and CPU
    assert main(["ship", str(old), "old", "--folder", str(folder)]) == 0, capsys.readouterr().err
    index = json.loads((folder / "index.json").read_text())
    assert index["first.bot"]["positions"] == 1000 and index["first.bot"]["cpu_hours"] == 1.0
    assert index["second.bot"]["cpu_hours"] == 2.5 and index["second.bot"]["cpu_hours_complete"] is True
    assert index["third.bot"]["cpu_hours"] == 0.5 and index["third.bot"]["cpu_hours_complete"] is False
    assert index["third.bot"]["cpu_hours_unknown_from"] == str(folder / "first.bot")
    assert index["fourth.bot"]["cpu_hours"] == 0.75 and index["fourth.bot"]["cpu_hours_complete"] is False
    assert index["fourth.bot"]["cpu_hours_unknown_from"] == str(folder / "first.bot")
    assert "cpu_hours_unknown_from" not in index["second.bot"]
    assert "cpu_hours" not in index["old.bot"]
    bots = {b.name: b for b in shipped_bots(folder)}
    assert (bots["second.bot"].positions, bots["second.bot"].cpu_hours) == (2500, 2.5)
    assert bots["old.bot"].cpu_hours is None and bots["third.bot"].init_from.endswith("first.bot")
    readme = (folder / "README.md").read_text()
    assert "| 2,500 | 2.50 |" in readme and "| 300 | 0.50 + first.bot's |" in readme and "| 0 | - |" in readme
    assert "| 200 | 0.75 + first.bot's |" in readme  # not "+ third's": the third's CPU is in the 0.75
    assert load_checkpoint(second).counters["positions"] == 2500


@pytest.mark.parametrize("argv, fragment", [
    (["ship"], "CHECKPOINT and NAME are needed"),
    (["ship", "RUN", "a/b"], "plain file name"),
    (["ship", "RUN", "x.bot"], "plain file name"),
    (["ship", "RUN", "x", "--simulations", "-1"], "--simulations must be 0 (the source's own"),
    (["ship", "RUN", "x", "--default-rules", "six"], "not a rule-set key"),
    (["ship", "RUN", "x", "--search", "c_puct_init=0"], "search.c_puct_init must be > 0"),
    (["ship", "RUN", "x", "--default-rules", "side6-komi-standard"], "not trained for it"),
])
def test_ship_refuses_bad_input_in_one_line_and_writes_nothing(tmp_path, folder, capsys, argv, fragment):
    save_tiny_checkpoint(tmp_path / "run", step=5)
    argv = [str(tmp_path / "run") if word == "RUN" else word for word in argv] + ["--folder", str(folder)]
    one_line_error(capsys, argv, fragment)
    assert list(folder.iterdir()) == []


def test_the_shipped_readme_is_what_ship_writes():
    assert index_readme(shipped_bots()) == (SHIPPED_DIR / "README.md").read_text()


@pytest.mark.parametrize("script, command", [("fair_komi", "komi-check"), ("optimal_moves", "optimal-moves"),
                                             ("ship_bot", "ship")])
def test_the_old_scripts_are_thin_entry_points_of_the_commands(script, command):
    assert command in COMMANDS
    text = (ROOT / "scripts" / f"{script}.py").read_text()
    assert f'main(["{command}", *sys.argv[1:]])' in text and "argparse" not in text
    done = subprocess.run([sys.executable, str(ROOT / "scripts" / f"{script}.py"), "--help"], capture_output=True,
                          text=True, cwd=ROOT, timeout=120)
    assert done.returncode == 0 and f"catena-zero {command}" in done.stdout, done.stderr
