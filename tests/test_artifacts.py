"""The one loader of a trained network (artifacts/network.py): a checkpoint, a run folder and a
bot file give one record, read once; anything else is one line naming it; the run folder's
layout is named in one place."""

from __future__ import annotations

import dataclasses
import os

import pytest
import torch

from bot_files import save_tiny_checkpoint, tiny_config
from catena_zero.artifacts import layout
from catena_zero.artifacts.botfile import BotFileError, export_bot, header_from_checkpoint
from catena_zero.artifacts.checkpoint import CheckpointError, load_checkpoint
from catena_zero.artifacts.network import BOT, CHECKPOINT, NetworkFileError, load_network, weights_for
from catena_zero.bot import Bot
from catena_zero.eval.specs import build_agent, parse_agent_spec


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    root = tmp_path_factory.mktemp("artifacts")
    save_tiny_checkpoint(root / "run", step=3, seed=1)
    newest = save_tiny_checkpoint(root / "run", step=9, seed=2)
    export_bot(load_checkpoint(newest), root / "run.bot")
    return root, newest


def _same(a: dict, b: dict) -> bool:
    return set(a) == set(b) and all(torch.equal(a[k], b[k]) for k in a)


def test_a_checkpoint_a_run_folder_and_a_bot_file_give_one_record(files):
    root, newest = files
    checkpoint = load_checkpoint(newest)
    by_file, by_folder, by_bot = (load_network(p) for p in (newest, root / "run", root / "run.bot"))
    assert (by_file.kind, by_folder.kind, by_bot.kind) == (CHECKPOINT, CHECKPOINT, BOT)
    assert by_folder.path == newest and by_folder.name == "run/step-00000009" and by_bot.name == "run.bot"
    for network in (by_file, by_folder, by_bot):
        assert network.step == 9 and network.net == checkpoint.config.net
        assert network.trained_for == checkpoint.config.rule_sets() and network.game == checkpoint.config.game
        assert _same(network.weights, checkpoint.model)
    # What a checkpoint says as a bot file's header is what export writes into one.
    assert by_file.bot_header() == header_from_checkpoint(checkpoint)
    assert by_bot.bot_header() == header_from_checkpoint(checkpoint)
    model = by_bot.model()
    assert not model.training and _same(model.state_dict(), checkpoint.model)


def test_what_is_no_network_is_one_line_naming_it(files, tmp_path):
    root, _ = files
    with pytest.raises(NetworkFileError, match="no such file or folder"):
        load_network(tmp_path / "missing.bot")
    (tmp_path / "notes.txt").write_text("hello, I am not a network")
    with pytest.raises(NetworkFileError, match="neither a checkpoint .* nor an exported bot file"):
        load_network(tmp_path / "notes.txt")
    os.mkfifo(tmp_path / "fifo")
    with pytest.raises(NetworkFileError, match="not a regular file|FIFO|pipe"):
        load_network(tmp_path / "fifo")  # refused, never opened for reading (which would hang)
    (tmp_path / "empty").mkdir()
    with pytest.raises(CheckpointError, match="has no checkpoint"):
        load_network(tmp_path / "empty")
    damaged = tmp_path / "damaged.bot"
    data = bytearray((root / "run.bot").read_bytes())
    data[-3] ^= 0xFF  # a flipped bit in the last weight
    damaged.write_bytes(bytes(data))
    with pytest.raises(BotFileError, match="damaged"):
        load_network(damaged)
    # As a bot file (Bot.load): a checkpoint is not one, whatever it holds.
    with pytest.raises(BotFileError, match="not a catena-zero bot file"):
        Bot.load(files[1])


def test_init_from_takes_only_the_configs_architecture(files):
    root, newest = files
    net = tiny_config().net
    assert _same(weights_for(str(root / "run.bot"), net, "train.init_from").weights, load_checkpoint(newest).model)
    # Where the network ran is not what it is: a bot exported on a GPU starts a CPU run.
    elsewhere = dataclasses.replace(net, device="cuda", cpu_precision="bfloat16", mixed_sides="by_side")
    assert _same(weights_for(str(newest), elsewhere, "train.init_from").weights, load_checkpoint(newest).model)
    assert elsewhere.architecture() == net.architecture() and elsewhere != net
    wider = dataclasses.replace(net, channels=net.channels * 2)
    with pytest.raises(NetworkFileError, match=rf"train.init_from: .*net.channels: {net.channels} -> {net.channels * 2}"):
        weights_for(str(newest), wider, "train.init_from")


def test_a_network_spec_is_read_once(files, monkeypatch):
    """parse_agent_spec reads the file; build_agent and make_player use what it read."""
    root, _ = files
    import catena_zero.artifacts.network as network_module

    reads = []
    real = network_module.load_network

    def counting(path, *args):
        reads.append(path)
        return real(path, *args)

    monkeypatch.setattr("catena_zero.eval.specs.load_network", counting)
    for path in (root / "run.bot", root / "run"):
        reads.clear()
        spec = parse_agent_spec(str(path), simulations=2)
        agent = build_agent(spec)
        assert len(reads) == 1 and agent.step == 9 and agent.name == spec.name


def test_the_run_folder_layout_is_named_once():
    """No module but layout.py spells a run folder's names (the tensorboard program aside)."""
    import ast
    from pathlib import Path

    import catena_zero

    names = {layout.CONFIG_FILE, layout.CHECKPOINT_DIR, layout.REPLAY_FILE, layout.TENSORBOARD_DIR}
    spelled = []
    for path in Path(catena_zero.__file__).parent.rglob("*.py"):
        if path.name == "layout.py":
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Constant) and node.value in names:
                spelled.append(f"{path.name}:{node.lineno} {node.value}")
    # commands/common.py looks for the `tensorboard` program beside the Python that runs us.
    assert [s for s in spelled if not s.startswith("common.py:") or "tensorboard" not in s] == []
    assert layout.checkpoint_name(1234) == "step-00001234.pt"
    assert layout.CHECKPOINT_FILE.match(layout.checkpoint_name(7)).group(1) == "00000007"
