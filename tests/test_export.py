"""The bot file (bot/export.py): export/load round trip, what a run trained for, bad and damaged files."""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch
from safetensors.torch import save

from bot_files import save_tiny_checkpoint, signed_bot_bytes, tiny_config
from catena_zero.bot import Bot, BotFileError, RuleSet
from catena_zero.artifacts.botfile import (BOT_FORMAT, BOT_VERSION, export_bot, header_from_checkpoint,
                                    read_bot)
from catena_zero.cli import main
from catena_zero.config import config_from_dict, load_config
from catena_zero.eval.agents import NetAgent
from catena_zero.game import Game, GameConfig
from catena_zero.net.folded import FoldedNet
from catena_zero.artifacts.checkpoint import load_checkpoint
from catena_zero.artifacts.network import load_network

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    """(run folder, checkpoint path, bot file) of an untrained tiny net."""
    root = tmp_path_factory.mktemp("export")
    ckpt = save_tiny_checkpoint(root / "run", step=7)
    out = root / "tiny.bot"
    export_bot(load_checkpoint(ckpt), out)
    return root / "run", ckpt, out


def test_round_trip_keeps_header_and_weights(exported):
    _, ckpt, out = exported
    checkpoint = load_checkpoint(ckpt)
    bot_file = read_bot(out)
    assert bot_file.header == header_from_checkpoint(checkpoint)
    header = bot_file.header
    assert header.step == 7 and header.source == ckpt.name
    assert header.net == checkpoint.config.net and header.search == checkpoint.config.search
    assert header.game == checkpoint.config.game
    assert header.trained_for == (RuleSet(3, "komi", "standard"),)
    assert set(bot_file.weights) == set(checkpoint.model)
    for name, tensor in checkpoint.model.items():
        assert torch.equal(bot_file.weights[name], tensor), name
    # Exporting is deterministic: the same checkpoint gives the same metadata and weight bytes
    # (safetensors writes the metadata's keys in no fixed order, so the files are compared parsed).
    again = out.with_name("again.bot")
    export_bot(checkpoint, again)
    assert _metadata(again) == _metadata(out) and _data(again) == _data(out)


def test_same_moves_before_and_after_export(exported):
    """The bot plays, position by position, what the checkpoint plays as a network agent."""
    _, ckpt, out = exported
    checkpoint = load_checkpoint(ckpt)
    config = checkpoint.config
    player = NetAgent(load_network(checkpoint.path).model(), config.net, config.search, simulations=12)
    bot = Bot.load(out, simulations=12, device="cpu", seed=3)
    game = Game(GameConfig(side=3, komi=2))
    while not game.is_over:
        move = bot.choose(game)
        # The same search with the generator the bot derives from its seed and the position
        # (it breaks ties between equal scores at random).
        assert move == player.choose(game, bot.position_rng(game))
        game.play(move)
    assert game.move_number > 5


def test_export_command_takes_the_newest_checkpoint_of_a_run_folder(tmp_path, capsys):
    run_dir = tmp_path / "run"
    save_tiny_checkpoint(run_dir, step=3, seed=1)
    newest = save_tiny_checkpoint(run_dir, step=12, seed=2)
    out = tmp_path / "bot.safetensors"
    assert main(["export", str(run_dir), "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "step 12" in printed and str(newest) in printed
    weights = read_bot(out).weights
    for name, tensor in load_checkpoint(newest).model.items():
        assert torch.equal(weights[name], tensor)
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]  # atomic write left no temp file


def test_an_exported_bot_plays_at_a_playing_budget_unless_told_otherwise(tmp_path, capsys):
    """Issue 28: an exported bot kept the training search's budget (16 simulations in quick.yaml)
    while the shipped bots play at 400. ``export`` now writes 400 by default, ``--simulations N``
    any other, 0 the training config's; a bad value is one line and writes nothing."""
    checkpoint = save_tiny_checkpoint(tmp_path / "run", step=3)
    trained = load_checkpoint(checkpoint).config.search
    for flags, expected in (([], 400), (["--simulations", "64"], 64), (["--simulations", "0"], trained.num_simulations)):
        out = tmp_path / "bot.bot"
        assert main(["export", str(checkpoint), "--out", str(out), *flags]) == 0
        assert f"{expected} simulations" in capsys.readouterr().out
        search = read_bot(out).header.search
        assert search == dataclasses.replace(trained, num_simulations=expected)
    out.unlink()
    for bad in ("-1", "1000001"):
        assert main(["export", str(checkpoint), "--out", str(out), "--simulations", bad]) == 2
        err = capsys.readouterr().err
        assert (f"--simulations must be 0 (the source's own: a checkpoint's training config, a bot file's) "
                f"or 1..1,000,000, got {bad}") in err
        assert not out.exists()


def test_export_search_sets_the_bots_play_search_and_refuses_bad_settings_in_one_line(tmp_path, capsys):
    """--search FIELD=VALUE replaces a field of the training search in the bot's header (the rest
    stays the training config's); an unknown field, a bad value or a malformed item is one line
    and writes nothing."""
    checkpoint = save_tiny_checkpoint(tmp_path / "run", step=3)
    trained = load_checkpoint(checkpoint).config.search
    out = tmp_path / "bot.bot"
    assert main(["export", str(checkpoint), "--out", str(out), "--search", "score_utility_weight=0.3",
                 "--search", "gumbel_num_considered=12"]) == 0
    assert "400 simulations, score_utility_weight 0.3, gumbel_num_considered 12" in capsys.readouterr().out
    assert read_bot(out).header.search == dataclasses.replace(
        trained, num_simulations=400, score_utility_weight=0.3, gumbel_num_considered=12)
    out.unlink()
    for bad, fragment in (("score_utility_wait=0.3", "unknown key search.score_utility_wait (did you mean "
                                                     "search.score_utility_weight?"),
                          ("score_utility_weight=-1", "search.score_utility_weight must be >= 0, got -1"),
                          ("algorithm=foo", "search.algorithm must be"),
                          ("score_utility_weight", "--search expects FIELD=VALUE"),
                          ("search.algorithm=puct", "--search expects FIELD=VALUE"),
                          ("num_simulations=8", "give the budget with --simulations")):
        assert main(["export", str(checkpoint), "--out", str(out), "--search", bad]) == 2
        err = capsys.readouterr().err
        assert fragment in err and len(err.strip().splitlines()) == 1, err
        assert not out.exists()


def test_export_of_a_bot_file_changes_only_its_play_search(exported, tmp_path, capsys):
    """A bot file as the source: the same network, step, game and rule sets, with the search
    settings given in place of its own (a shipped bot's, tuned after its checkpoint is gone)."""
    _, _, source = exported
    before = read_bot(source)
    out = tmp_path / "interior.bot"
    assert main(["export", str(source), "--out", str(out), "--search", "gumbel_interior=puct",
                 "--simulations", "0"]) == 0, capsys.readouterr().err
    assert f"exported {source} to {out}" in capsys.readouterr().out
    after = read_bot(out)
    assert after.header == dataclasses.replace(
        before.header, search=dataclasses.replace(before.header.search, gumbel_interior="puct"))
    assert before.header.search.gumbel_interior == "gumbel"
    assert after.weights.keys() == before.weights.keys()
    assert all(torch.equal(after.weights[k], before.weights[k]) for k in before.weights)
    assert main(["export", str(out), "--out", str(tmp_path / "b.bot"), "--simulations", "64"]) == 0
    assert read_bot(tmp_path / "b.bot").header.search.num_simulations == 64
    # Bad settings, and --out on the source itself: one line, nothing written or lost.
    for argv, fragment in (([str(out), "--out", str(tmp_path / "c.bot"), "--search", "gumbel_interior=ucb"],
                            "search.gumbel_interior must be"),
                           ([str(out), "--out", str(out)], "the bot file to export")):
        data = out.read_bytes()
        assert main(["export", *argv]) == 2
        err = capsys.readouterr().err
        assert fragment in err and len(err.strip().splitlines()) == 1, err
        assert not (tmp_path / "c.bot").exists() and out.read_bytes() == data


def test_symmetry_average_is_a_play_setting_of_the_bot_file(exported, tmp_path, capsys):
    """--symmetry-average (export of a checkpoint or of a bot file): the same network and search, whose
    every evaluation is one batched forward of the 12 symmetric positions; the bot says so, and
    --no-symmetry-average turns it off again. Without the flag the source's setting is kept."""
    _, ckpt, source = exported
    before = read_bot(source)
    assert not before.header.net.symmetry_average
    averaged = tmp_path / "averaged.bot"
    assert main(["export", str(source), "--out", str(averaged), "--simulations", "0", "--symmetry-average"]) == 0
    assert "channels, averaged over 12 symmetries, trained for" in capsys.readouterr().out
    after = read_bot(averaged)
    assert after.header == dataclasses.replace(
        before.header, net=dataclasses.replace(before.header.net, symmetry_average=True))
    assert all(torch.equal(after.weights[k], before.weights[k]) for k in before.weights)
    bot = Bot.load(averaged, simulations=4, device="cpu")
    assert "averaged over 12 symmetries" in repr(bot) and "symmetries" not in repr(Bot.load(source, device="cpu"))

    def forward_batches(path) -> list[int]:
        batches = []
        hook = torch.nn.modules.module.register_module_forward_hook(
            lambda module, args, out: batches.append(args[0].shape[0]) if isinstance(module, FoldedNet) else None)
        try:
            Bot.load(path, simulations=4, device="cpu").choose(Game(GameConfig(side=3, komi=2)))
        finally:
            hook.remove()
        return batches

    assert set(forward_batches(averaged)) == {12} and set(forward_batches(source)) == {1}
    kept = tmp_path / "kept.bot"
    assert main(["export", str(averaged), "--out", str(kept), "--simulations", "0"]) == 0
    assert read_bot(kept).header == after.header
    plain = tmp_path / "plain.bot"
    assert main(["export", str(averaged), "--out", str(plain), "--simulations", "0", "--no-symmetry-average"]) == 0
    assert read_bot(plain).header == before.header
    assert main(["export", str(ckpt), "--out", str(tmp_path / "ckpt.bot"), "--symmetry-average"]) == 0
    assert read_bot(tmp_path / "ckpt.bot").header.net.symmetry_average


def test_export_refuses_weights_that_do_not_fit_and_writes_nothing(tmp_path):
    config = tiny_config()
    ckpt_path = save_tiny_checkpoint(tmp_path / "run")
    checkpoint = load_checkpoint(ckpt_path)
    wider = dataclasses.replace(config, net=dataclasses.replace(config.net, channels=24))
    out = tmp_path / "bot.file"
    out.write_bytes(b"old")
    with pytest.raises(BotFileError, match="weights do not fit"):
        export_bot(dataclasses.replace(checkpoint, config=wider), out)
    assert out.read_bytes() == b"old"


def test_trained_for_follows_the_config():
    assert tiny_config().rule_sets() == (RuleSet(3, "komi", "standard"),)
    # A self-play section that draws sides and scorings: every combination, the configured game first.
    wide = config_from_dict({"game": {"side": 4, "scoring": "longest"},
                             "selfplay": {"sides": [3, 4], "scorings": ["standard", "longest"]}})
    assert wide.rule_sets() == (
        RuleSet(4, "komi", "longest"), RuleSet(3, "komi", "standard"), RuleSet(3, "komi", "longest"),
        RuleSet(4, "komi", "standard"))
    # The shipped configs: the configured game first, and no rule set twice.
    for name in ("multi", "no_komi", "quick", "double"):
        config = load_config(REPO / "configs" / f"{name}.yaml")
        sets = config.rule_sets()
        assert sets[0] == RuleSet.of(config.game) and len(set(sets)) == len(sets), name
    assert len(load_config(REPO / "configs" / "multi.yaml").rule_sets()) > 1


def test_several_rule_sets_and_the_default_game(tmp_path):
    checkpoint = load_checkpoint(save_tiny_checkpoint(tmp_path / "run"))
    rules = [RuleSet(3, "no_komi", "standard"), RuleSet(4, "komi", "quadratic")]
    export_bot(checkpoint, tmp_path / "b.bot", trained_for=rules)
    header = read_bot(tmp_path / "b.bot").header
    assert header.trained_for == tuple(rules)
    # The run's game (side 3 komi) is not among them: the default game is the first rule set, komi 0.
    assert header.game == GameConfig(side=3, game_type="no_komi")


# ------------------------------------------------------------------------------ bad and damaged files


def one_line_error(path) -> str:
    with pytest.raises(BotFileError) as info:
        read_bot(path)
    message = str(info.value)
    assert "\n" not in message and str(path) in message, message
    return message


def test_damaged_files_are_refused_with_one_line(exported, tmp_path):
    _, _, out = exported
    data = out.read_bytes()
    header_end = 8 + int.from_bytes(data[:8], "little")
    cases = {
        "empty": b"",
        "short": data[:5],
        "cut_in_header": data[: header_end // 2],
        "cut_after_header": data[:header_end],
        "cut_in_weights": data[: (header_end + len(data)) // 2],
        "last_byte_missing": data[:-1],
        "random": np.random.default_rng(0).bytes(len(data)),
        "text": b"this is not a bot\n" * 20,
    }
    flipped = bytearray(data)
    flipped[(header_end + len(data)) // 2] ^= 0xFF  # one weight byte changed
    cases["flipped_weight_byte"] = bytes(flipped)
    for name, content in cases.items():
        path = tmp_path / f"{name}.bot"
        path.write_bytes(content)
        message = one_line_error(path)
        assert "damaged" in message or "not a catena-zero bot file" in message, (name, message)
    assert "checksum" in one_line_error(tmp_path / "flipped_weight_byte.bot")
    assert "checksum" in one_line_error(tmp_path / "last_byte_missing.bot")


def test_wrong_version_other_files_missing_and_folders(exported, tmp_path):
    run_dir, ckpt, out = exported
    bot_file = read_bot(out)
    weights = bot_file.weights
    metadata = {"format": BOT_FORMAT, "version": str(BOT_VERSION + 1), "header": "{}"}
    (tmp_path / "v2.bot").write_bytes(save(weights, metadata=metadata))
    message = one_line_error(tmp_path / "v2.bot")
    assert f"version '{BOT_VERSION + 1}'" in message and f"reads version {BOT_VERSION}" in message
    (tmp_path / "plain.safetensors").write_bytes(save(weights))  # safetensors, but not ours
    assert "not a catena-zero bot file" in one_line_error(tmp_path / "plain.safetensors")
    assert "not a catena-zero bot file" in one_line_error(ckpt)  # a checkpoint is not a bot file
    assert "cannot read" in one_line_error(tmp_path / "missing.bot")
    assert "folder" in one_line_error(run_dir)
    # A header whose settings this catena-zero does not know.
    fields = json.loads(_metadata(out)["header"])
    fields["net"]["flux_capacitors"] = 3
    (tmp_path / "unknown.bot").write_bytes(signed_bot_bytes(weights, json.dumps(fields)))
    assert "flux_capacitors" in one_line_error(tmp_path / "unknown.bot")


def _data(path: Path) -> bytes:
    data = path.read_bytes()
    return data[8 + int.from_bytes(data[:8], "little"):]


def _metadata(path: Path) -> dict:
    data = path.read_bytes()
    return json.loads(data[8:8 + int.from_bytes(data[:8], "little")])["__metadata__"]


def test_commands_report_a_bad_bot_file_in_one_line(tmp_path, capsys):
    bad = tmp_path / "bad.bot"
    bad.write_bytes(b"\x00" * 100)
    for argv in (["engine", "--bot", str(bad)], ["komi", "--bot", str(bad)]):
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert err.startswith("catena-zero: error: ") and err.count("\n") == 1 and "not a catena-zero bot" in err


def test_loading_needs_neither_ray_tensorboard_nor_the_training_code(exported):
    _, _, out = exported
    code = (
        "import sys\n"
        "from catena_zero.bot import Bot\n"
        "from catena_zero.game import Game\n"
        f"bot = Bot.load({str(out)!r}, simulations=4, device='cpu')\n"
        "bot.choose(Game(bot.game_config))\n"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in ('ray', 'tensorboard')"
        " or m.startswith('catena_zero.train') or m.startswith('torch.utils.tensorboard'))\n"
        "assert not bad, bad\n"
    )
    env = dict(os.environ, PYTHONPATH=str(REPO))
    result = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
