"""Hostile input files and arguments: networks whose finite weights overflow, books and index files
built to break their readers, run folders with a FIFO where a file belongs, a kill between a
checkpoint's two writes, and the arguments that once ended in an internal error (exit 70)."""

from __future__ import annotations

import pytest
import torch

from bot_files import save_tiny_checkpoint, tiny_config
from catena_zero.artifacts.botfile import BotFileError, export_bot
from catena_zero.artifacts.checkpoint import CheckpointError, load_checkpoint
from catena_zero.artifacts.network import load_network
from catena_zero.bot import Bot
from catena_zero.cli import main
from catena_zero.net import model_from_config


def one_line_error(capsys, argv) -> str:
    """Run the CLI; it must end with status 2 and one ``catena-zero: error:`` line, which is returned."""
    code = main(argv)
    _, err = capsys.readouterr()
    assert code == 2, err
    assert err.startswith("catena-zero: error: ") and err.count("\n") == 1 and "Traceback" not in err, err
    return err


# ------------------------------------------------------------------------------ weights that overflow


def _overflowing_model():
    """A tiny network whose weights are all finite but whose outputs are not: two layers scaled by
    1e30 multiply to 1e60, beyond float32 (3.4e38)."""
    model = model_from_config(tiny_config().net, torch.Generator().manual_seed(1))
    with torch.no_grad():
        model.stem.weight.mul_(1e30)
        model.blocks[0].conv1.weight.mul_(1e30)
    assert all(bool(torch.isfinite(p).all()) for p in model.state_dict().values() if p.is_floating_point())
    return model


@pytest.fixture(scope="module")
def overflowing(tmp_path_factory):
    root = tmp_path_factory.mktemp("overflow")
    checkpoint = save_tiny_checkpoint(root / "run", model=_overflowing_model())
    export_bot(load_checkpoint(checkpoint), root / "overflow.bot")  # its weights are finite: written
    return checkpoint, root / "overflow.bot"


def test_finite_weights_whose_outputs_overflow_are_refused_at_load(overflowing, tmp_path):
    checkpoint, bot = overflowing
    with pytest.raises(CheckpointError, match="outputs are not finite .* the weights overflow"):
        load_network(checkpoint)
    with pytest.raises(BotFileError, match="overflow.bot: its network's outputs are not finite"):
        load_network(bot)
    with pytest.raises(BotFileError, match="outputs are not finite"):
        Bot.load(bot)  # play, engine and serve load their bot this way
    # A sound network of the same shape loads (the probe does not refuse what it should not).
    save_tiny_checkpoint(tmp_path / "sound")
    assert load_network(tmp_path / "sound").step == 7


def test_a_match_with_an_overflowing_network_is_one_line_not_exit_70(overflowing, capsys):
    _, bot = overflowing
    err = one_line_error(capsys, ["evaluate", str(bot), "random", "--games", "2"])
    assert "outputs are not finite" in err
