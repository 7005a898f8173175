"""Test helpers for the bot tests: checkpoints of untrained tiny nets, and a hand-made network whose
value and score are known functions of komi (so the fair komi follows by hand)."""

from __future__ import annotations

import dataclasses
import math
from pathlib import Path

import torch

from catena_zero.config import Config, load_config
from catena_zero.game.options import GAME_TYPES
from catena_zero.net import model_from_config
from catena_zero.net.features import GLOBAL_GAME_TYPE, GLOBAL_KOMI, PLANE_THEIRS
from catena_zero.net.model import MaskedBatchNorm2d
from catena_zero.artifacts.checkpoint import Checkpoint, save_checkpoint

TINY = Path(__file__).resolve().parent.parent / "configs" / "tiny.yaml"


def tiny_config(**game) -> Config:
    config = load_config(TINY)
    config = dataclasses.replace(config, net=dataclasses.replace(config.net, device="cpu"))
    return dataclasses.replace(config, game=dataclasses.replace(config.game, **game)) if game else config


def save_tiny_checkpoint(run_dir: Path, step: int = 7, seed: int = 1, config: Config | None = None,
                         model: torch.nn.Module | None = None) -> Path:
    """An untrained tiny net (configs/tiny.yaml, side 3) saved as a checkpoint of ``run_dir``."""
    config = config or tiny_config()
    model = model or model_from_config(config.net, torch.Generator().manual_seed(seed))
    return save_checkpoint(run_dir, Checkpoint(step=step, config=config, model=model.state_dict()))


def komi_model(config: Config, even: float, steepness: float, theirs_weight: float = 0.0) -> torch.nn.Module:
    """A hand-made net: with z = even - k_mover - theirs_weight * (opponent stones) / cells, where
    k_mover is the komi as Black (0 as White), its value is tanh(steepness * z) and its score margin z.

    How: every weight is zero except a path through three trunk channels, constant over the board:
    channel 0 = komi as Black (global input GLOBAL_KOMI is -k/15 for Black, so weight -15; ReLU keeps
    0 for White), channel 1 = 1 (the game-type one-hot), channel 2 = the opponent-stone plane. The
    residual blocks add 0, batch norms are identities, the value head's masked mean pools give
    (k, 1, stones / cells); the hidden layer passes them on and the WDL logits are (s z, -30, -s z),
    so P(win) - P(loss) = tanh(s z) up to e^-30; the score output is z / 15 (score_scale 15).
    The policy is uniform.
    """
    model = model_from_config(config.net)
    with torch.no_grad():
        for p in model.parameters():
            p.zero_()
        for module in model.modules():
            if isinstance(module, MaskedBatchNorm2d):
                module.reset_parameters()  # weight 1, bias 0, running mean 0, variance 1
        model.global_in.weight[0, GLOBAL_KOMI] = -15.0
        for i in range(len(GAME_TYPES)):
            model.global_in.weight[1, GLOBAL_GAME_TYPE + i] = 1.0
        model.stem.weight[2, PLANE_THEIRS, 1, 1] = 1.0
        for c in range(3):
            model.value.conv.weight[c, c, 0, 0] = 1.0
            model.value.hidden.weight[c, c] = 1.0  # pooled features start with the means
        z = torch.tensor([-1.0, even, -theirs_weight])  # z's coefficients of the pooled (k, 1, stones / cells)
        model.value.wdl.weight[0, :3] = steepness * z
        model.value.wdl.weight[2, :3] = -steepness * z
        model.value.wdl.bias[1] = -30.0
        model.value.score.weight[0, :3] = z / 15.0
    return model.eval()


def komi_model_value(even: float, steepness: float, komi: int) -> float:
    """What ``komi_model`` says for Black on the empty board at ``komi`` (by hand)."""
    return math.tanh(steepness * (even - komi))




def signed_bot_bytes(weights: dict, header_text: str, version: str | None = None) -> bytes:
    """A bot file with this header text (crafted, e.g. a hostile one) and a valid checksum: what
    an attacker who knows the format writes, so the checks behind the checksum are reached."""
    from safetensors.torch import save

    import json

    from catena_zero.artifacts.botfile import BOT_FORMAT, BOT_VERSION, bot_digest, tensor_table_text

    version = str(BOT_VERSION) if version is None else version
    first = save(weights, metadata={"format": BOT_FORMAT, "version": version, "header": header_text, "sha256": ""})
    size = int.from_bytes(first[:8], "little")
    data = first[8 + size:]
    table = None if version == "2" else tensor_table_text(json.loads(first[8:8 + size]))
    return save(weights, metadata={"format": BOT_FORMAT, "version": version, "header": header_text,
                                   "sha256": bot_digest(version, header_text, data, table)})
