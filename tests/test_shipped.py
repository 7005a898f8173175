"""Shipped bots (catena_zero/bot/shipped.py): the bot for a rule set, specialists first, the index."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from bot_files import save_tiny_checkpoint, tiny_config
from catena_zero.artifacts.botfile import export_bot
from catena_zero.bot.shipped import SHIPPED_DIR, shipped_bot_for, shipped_bots
from catena_zero.game import GameConfig, RuleSet
from catena_zero.artifacts.checkpoint import load_checkpoint


def _bot(tmp_path, name: str, step: int, trained_for, game=None):
    config = tiny_config(**(game or {}))
    checkpoint = load_checkpoint(save_tiny_checkpoint(tmp_path / f"run-{name}", step=step, config=config))
    (tmp_path / "bots").mkdir(exist_ok=True)
    export_bot(checkpoint, tmp_path / "bots" / f"{name}.bot", trained_for=trained_for)


def test_the_bot_for_a_rule_set_prefers_a_specialist_then_more_training(tmp_path):
    folder = tmp_path / "bots"
    assert shipped_bot_for(GameConfig(side=3), folder) is None
    side3 = RuleSet(3, "komi", "standard")
    longest3 = RuleSet(3, "komi", "longest")
    _bot(tmp_path, "multi", 900, [side3, longest3], game={"scoring": "longest"})  # a generalist, longer trained
    _bot(tmp_path, "side3-early", 100, [side3])
    _bot(tmp_path, "side3", 300, [side3])
    (folder / "index.json").write_text(json.dumps({"side3.bot": {"strength": "a measured line"}}))
    assert [b.name for b in shipped_bots(folder)] == ["multi.bot", "side3-early.bot", "side3.bot"]
    best = shipped_bot_for(GameConfig(side=3, komi=7), folder)
    assert best.name == "side3.bot" and best.strength == "a measured line"
    assert "the shipped bot side3.bot" in best.describe() and "a measured line" in best.describe()
    assert shipped_bot_for(GameConfig(side=3, scoring="longest"), folder).name == "multi.bot"
    assert shipped_bot_for(GameConfig(side=4), folder) is None
    # A network fine-tuned on one rule set from the generalist whose default game it is: fewer
    # steps than the generalist, but the specialist there.
    _bot(tmp_path, "longest3", 200, [longest3], game={"scoring": "longest"})
    assert shipped_bot_for(GameConfig(side=3, scoring="longest"), folder).name == "longest3.bot"
    assert shipped_bot_for(GameConfig(side=3), folder).name == "side3.bot"


def test_a_damaged_shipped_bot_is_an_error_naming_it(tmp_path):
    _bot(tmp_path, "side3", 300, [RuleSet(3, "komi", "standard")])
    path = tmp_path / "bots" / "side3.bot"
    data = bytearray(path.read_bytes())
    data[-5] ^= 0x10
    path.write_bytes(bytes(data))
    with pytest.raises(ValueError, match="side3.bot"):
        shipped_bots(tmp_path / "bots")


def test_every_bot_in_the_shipped_folder_loads_and_is_indexed():
    index = json.loads((SHIPPED_DIR / "index.json").read_text()) if (SHIPPED_DIR / "index.json").exists() else {}
    for bot in shipped_bots():
        assert bot.name in index and index[bot.name]["strength"], bot.name


# ----------------------------------------------------------------------- the commands without --bot


@pytest.fixture
def shipped_folder(tmp_path, monkeypatch):
    """A shipped-bots folder holding one side-3 bot, in place of catena_zero/bots/."""
    import catena_zero.bot.shipped as shipped

    _bot(tmp_path, "side3", 300, [RuleSet(3, "komi", "standard")])
    (tmp_path / "bots" / "index.json").write_text(json.dumps({"side3.bot": {"strength": "measured here"}}))
    monkeypatch.setattr(shipped, "SHIPPED_DIR", tmp_path / "bots")
    return tmp_path / "bots"


def _run(argv, capsys, monkeypatch, stdin=""):
    import io
    import sys

    from catena_zero.cli import main

    monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def test_play_opponent_bot_plays_the_shipped_bot_and_says_which(shipped_folder, capsys, monkeypatch):
    code, out, err = _run(["play", "--side", "3", "--opponent", "bot", "--simulations", "2"], capsys, monkeypatch,
                          stdin="quit\n")
    assert code == 0
    assert err.startswith("catena-zero play: side3.bot (step ") and len(err.strip().splitlines()) == 1  # one line
    assert "the bot side3.bot" in out


def test_without_a_shipped_bot_for_the_rules_the_line_says_what_ships(shipped_folder, capsys, monkeypatch):
    code, _, err = _run(["play", "--side", "4", "--opponent", "bot"], capsys, monkeypatch)
    assert code == 2 and len(err.strip().splitlines()) == 1
    assert "no shipped bot for side 4 komi standard (shipped bots cover: side 3 komi standard)" in err
    assert "catena-zero export" in err


def test_engine_and_komi_take_the_shipped_bot(shipped_folder, capsys, monkeypatch):
    code, out, err = _run(["engine", "--side", "3", "--simulations", "2", "--device", "cpu"], capsys, monkeypatch,
                          stdin="name\nquit\n")
    assert code == 0 and "catena-zero engine: side3.bot (" in err and err.count("\n") == 1 and "catena-zero" in out
    # No rule flags and nothing shipped for the standard board: the one shipped bot there is.
    code, out, err = _run(["komi", "--device", "cpu"], capsys, monkeypatch)
    assert code == 0 and "side3.bot" in err and out.startswith("fair komi")
    # --table alone: one table over every shipped bot, a row per rule set.
    code, out, err = _run(["komi", "--table", "--device", "cpu"], capsys, monkeypatch)
    assert code == 0, err
    rows = out.splitlines()
    assert rows[0].startswith("| bot | side |") and len(rows) == 3 and rows[2].startswith("| side3.bot | 3 | standard |")


def test_komi_table_without_any_shipped_bot_is_one_line(tmp_path, capsys, monkeypatch):
    import catena_zero.bot.shipped as shipped

    (tmp_path / "bots").mkdir()
    monkeypatch.setattr(shipped, "SHIPPED_DIR", tmp_path / "bots")
    code, _, err = _run(["komi", "--table"], capsys, monkeypatch)
    assert code == 2 and len(err.strip().splitlines()) == 1 and "no bot ships with this installation" in err


def test_serve_without_a_bot_serves_every_shipped_bot_the_one_for_the_rules_first():
    import argparse

    from catena_zero.bot.shipped import shipped_bots
    from catena_zero.commands.serve import shipped_paths

    every = {b.path for b in shipped_bots()}
    for side in (4, 6):
        paths = shipped_paths(argparse.Namespace(side=side, game_type=None, scoring=None))
        assert paths[0].name == f"side{side}.bot" and set(paths) == every and len(paths) == len(every)


def test_every_shipped_bot_names_its_recipe_which_trains_its_rules():
    """Each shipped bot's index entry names a recipe in configs/recipes/ (one ``train`` makes it); the
    recipe loads, its last stage trains the bot's default rule set, and its end plays a panel."""
    from catena_zero.bot.shipped import shipped_bots
    from catena_zero.config import load_config
    from catena_zero.config.loading import stage_configs
    from catena_zero.game.options import RuleSet

    root = Path(__file__).resolve().parent.parent
    bots = shipped_bots()
    assert bots
    for bot in bots:
        assert bot.recipe.startswith("configs/recipes/"), bot.name
        recipe = load_config(root / bot.recipe)
        last = stage_configs(recipe)[-1]
        assert RuleSet.of(bot.header.game) in last.rule_sets(), bot.name
        assert recipe.stages and recipe.finish.panel, bot.name
