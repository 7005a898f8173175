"""The network's input layout has a version (net/features.py ``INPUT_LAYOUTS``), recorded in
checkpoints and bot files: files without it are layout 1; a network of an older layout that lacks
only one-hot slots of records added since loads with zero weights for them (and the same outputs
on the rule sets it knew); any other is refused in one line through the one loader."""

from __future__ import annotations

import io
import json

import pytest
import torch

from bot_files import save_tiny_checkpoint, signed_bot_bytes, tiny_config
from catena_zero.artifacts.botfile import BotFileError, export_bot, read_bot
from catena_zero.artifacts.checkpoint import Checkpoint, CheckpointError, load_checkpoint, payload_digest, save_checkpoint
from catena_zero.artifacts.network import load_network
from catena_zero.game.options import GAME_TYPES, SCORINGS
from catena_zero.game.vec import VecEnv
from catena_zero.net import features
from catena_zero.net.features import (GLOBAL_SCORING, INPUT_LAYOUT_VERSION, NUM_GLOBALS, NUM_PLANES, InputLayout,
                                      encode)

LAST_SCORING = GLOBAL_SCORING + len(SCORINGS) - 1  # the slot the fictional older layout below lacks


def _payload(path):
    return torch.load(path, weights_only=True)


def _rewrite(path, payload: dict) -> None:
    """Write ``payload`` back with a valid checksum (what a file of another version would hold)."""
    payload["sha256"] = payload_digest(payload)
    buffer = io.BytesIO()
    torch.save(payload, buffer)
    path.write_bytes(buffer.getvalue())


def test_the_code_reads_its_own_layout_and_records_it(tmp_path):
    assert features.INPUT_LAYOUT.num_globals == NUM_GLOBALS and features.INPUT_LAYOUT.planes == NUM_PLANES
    assert features.INPUT_LAYOUT.global_positions(features.INPUT_LAYOUT).tolist() == list(range(NUM_GLOBALS))
    path = save_tiny_checkpoint(tmp_path / "run")
    assert _payload(path)["input_layout"] == INPUT_LAYOUT_VERSION == load_checkpoint(path).input_layout
    export_bot(load_checkpoint(path), tmp_path / "t.bot")
    bot = read_bot(tmp_path / "t.bot")
    assert bot.header.input_layout == INPUT_LAYOUT_VERSION
    assert json.loads(bot_header_text(tmp_path / "t.bot"))["input_layout"] == INPUT_LAYOUT_VERSION


def bot_header_text(path) -> str:
    data = path.read_bytes()
    size = int.from_bytes(data[:8], "little")
    return json.loads(data[8:8 + size])["__metadata__"]["header"]


def test_files_that_record_no_layout_are_layout_1(tmp_path):
    path = save_tiny_checkpoint(tmp_path / "run")
    payload = _payload(path)
    del payload["input_layout"]
    _rewrite(path, payload)
    assert load_checkpoint(path).input_layout == 1
    assert load_network(path).step == 7
    export_bot(load_checkpoint(path), tmp_path / "t.bot")
    fields = json.loads(bot_header_text(tmp_path / "t.bot"))
    del fields["input_layout"]
    old = tmp_path / "old.bot"
    old.write_bytes(signed_bot_bytes(read_bot(tmp_path / "t.bot").weights, json.dumps(fields)))
    assert read_bot(old).header.input_layout == 1
    assert load_network(old).step == 7


def test_a_network_of_an_unknown_layout_is_refused_in_one_line(tmp_path):
    path = save_tiny_checkpoint(tmp_path / "run")
    export_bot(load_checkpoint(path), tmp_path / "t.bot")
    payload = _payload(path)
    payload["input_layout"] = 99
    _rewrite(path, payload)
    reason = "its network has input layout 99; this catena-zero reads layout 1: play it with the newer catena-zero"
    with pytest.raises(CheckpointError, match=reason) as refused:
        load_network(path)
    assert "\n" not in str(refused.value) and str(path) in str(refused.value)
    fields = json.loads(bot_header_text(tmp_path / "t.bot"))
    for bad, why in ((99, reason), ("1", "input layout '1'"), (0, "input layout 0; .*: retrain it")):
        fields["input_layout"] = bad
        other = tmp_path / "other.bot"
        other.write_bytes(signed_bot_bytes(read_bot(tmp_path / "t.bot").weights, json.dumps(fields)))
        with pytest.raises(BotFileError, match=why) as refused:
            load_network(other)
        assert "\n" not in str(refused.value) and str(other) in str(refused.value)


@pytest.fixture
def older_layout(monkeypatch):
    """A fictional history: layout 1 lacked the last scoring's slot, layout 2 (the code's) adds it
    and pads layout 1's networks (``pads_from`` 1), or not (``pads_from`` 2)."""
    def install(pads_from: int) -> None:
        old = InputLayout(1, planes=NUM_PLANES, game_types=len(GAME_TYPES), scorings=len(SCORINGS) - 1, pads_from=1)
        now = InputLayout(2, planes=NUM_PLANES, game_types=len(GAME_TYPES), scorings=len(SCORINGS), pads_from=pads_from)
        monkeypatch.setattr(features, "INPUT_LAYOUTS", (old, now))
        monkeypatch.setattr(features, "INPUT_LAYOUT", now)
        monkeypatch.setattr(features, "INPUT_LAYOUT_VERSION", now.version)
    return install


def _older_files(tmp_path):
    """(a checkpoint, a bot file) of layout 1 (its global inputs without the last scoring's slot),
    and the network of the code's layout they were cut from."""
    config = tiny_config()
    path = save_tiny_checkpoint(tmp_path / "now", config=config)
    export_bot(load_checkpoint(path), tmp_path / "now.bot")
    full = load_checkpoint(path).model
    keep = [i for i in range(NUM_GLOBALS) if i != LAST_SCORING]
    cut = {**full, "global_in.weight": full["global_in.weight"][:, keep].clone()}
    checkpoint = save_checkpoint(tmp_path / "old", Checkpoint(step=7, config=config, model=cut, input_layout=1))
    fields = json.loads(bot_header_text(tmp_path / "now.bot"))
    fields["input_layout"] = 1
    bot = tmp_path / "old.bot"
    bot.write_bytes(signed_bot_bytes(cut, json.dumps(fields)))
    return checkpoint, bot, full


def test_an_older_layout_loads_with_zero_weights_for_the_new_slots(tmp_path, older_layout):
    checkpoint, bot, full = _older_files(tmp_path)
    original = load_network(tmp_path / "now.bot").model()  # before the fiction: it is layout 1 in fact
    older_layout(pads_from=1)
    config = tiny_config().game
    env = VecEnv(config)
    state = env.reset(2)
    env.step(state, env.legal_actions(state)[:, :env.spec.num_cells].argmax(axis=1))
    inputs = encode(env, state)
    assert inputs.globals[:, LAST_SCORING].sum() == 0  # a rule set the older network knew
    for path in (checkpoint, bot):
        network = load_network(path)
        weight = network.weights["global_in.weight"]
        assert weight.shape == full["global_in.weight"].shape and not weight[:, LAST_SCORING].any()
        keep = [i for i in range(NUM_GLOBALS) if i != LAST_SCORING]
        assert torch.equal(weight[:, keep], full["global_in.weight"][:, keep])
        args = (torch.from_numpy(inputs.planes), torch.from_numpy(inputs.globals))
        with torch.inference_mode():
            got, want = network.model()(*args), original(*args)
        for name in ("policy_logits", "wdl_logits", "score"):
            assert torch.allclose(getattr(got, name), getattr(want, name), rtol=0, atol=1e-6), name
    # A bot exported from the older checkpoint is written in the code's layout.
    export_bot(load_checkpoint(checkpoint), tmp_path / "re.bot")
    again = read_bot(tmp_path / "re.bot")
    assert again.header.input_layout == 2 and again.weights["global_in.weight"].shape[1] == NUM_GLOBALS


def test_an_older_layout_that_cannot_be_padded_is_refused_in_one_line(tmp_path, older_layout):
    checkpoint, bot, _ = _older_files(tmp_path)
    older_layout(pads_from=2)
    for path, error in ((checkpoint, CheckpointError), (bot, BotFileError)):
        with pytest.raises(error, match=r"its network has input layout 1; this catena-zero reads layout 2: "
                                        r"retrain it for this version") as refused:
            load_network(path)
        assert "\n" not in str(refused.value) and str(path) in str(refused.value)
