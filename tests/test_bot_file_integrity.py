"""Bot files that are damaged or crafted: the checksum covers the header, every header
field's type and range is checked, tensor shapes are compared with the header before any network
is built, non-finite weights are refused on writing and reading. Each is one BotFileError line."""

from __future__ import annotations

import json
import resource

import numpy as np
import pytest
import torch

from bot_files import save_tiny_checkpoint, signed_bot_bytes
from catena_zero.bot import BotFileError
from catena_zero.artifacts.botfile import bot_bytes, export_bot, parse_bot, read_bot
from catena_zero.artifacts.checkpoint import load_checkpoint


@pytest.fixture(scope="module")
def bot(tmp_path_factory):
    """(bytes, header fields, weights) of an exported untrained tiny net (side 3, 16 channels)."""
    root = tmp_path_factory.mktemp("bot")
    out = root / "tiny.bot"
    export_bot(load_checkpoint(save_tiny_checkpoint(root / "run", step=7)), out)
    data = out.read_bytes()
    size = int.from_bytes(data[:8], "little")
    fields = json.loads(json.loads(data[8:8 + size])["__metadata__"]["header"])
    return data, fields, read_bot(out).weights


def refused(data: bytes, fragment: str = "") -> str:
    with pytest.raises(BotFileError) as info:
        parse_bot(data)
    message = str(info.value)
    assert "\n" not in message and fragment in message, message
    return message


def test_one_flipped_bit_in_the_header_is_refused(bot):
    """The default komi 0 -> 4 ('0' ^ 4 = '4') and the simulations 16 -> 17 ('6' ^ 1 = '7'), and a
    sample of all header bits: refused, or (a bit in JSON whitespace) the same header."""
    data, fields, _ = bot
    size = int.from_bytes(data[:8], "little")
    table = data[8:8 + size]
    original = parse_bot(data).header
    for needle, bit in ((b'\\"komi\\": 0', 4), (b'\\"num_simulations\\": ', 1)):
        at = table.index(needle) + len(needle) - (1 if needle.endswith(b"0") else 0)
        if not needle.endswith(b"0"):
            at += 1  # the last digit of the count
        damaged = bytearray(data)
        damaged[8 + at] ^= bit
        refused(bytes(damaged))
    rng = np.random.default_rng(14)
    for bit in rng.choice(size * 8, size=200, replace=False):
        damaged = bytearray(data)
        damaged[8 + bit // 8] ^= 1 << (bit % 8)
        try:
            header = parse_bot(bytes(damaged)).header
        except BotFileError as exc:
            assert "\n" not in str(exc)
            continue
        assert header == original, bit


def crafted(bot, **changes) -> bytes:
    _, fields, weights = bot
    header = {**fields}
    for key, value in changes.items():
        section, _, name = key.partition("__")
        if name:
            header[section] = {**header[section], name: value}
        else:
            header[key] = value
    return signed_bot_bytes(weights, json.dumps(header))


@pytest.mark.parametrize("changes, fragment", [
    ({"step": float("inf")}, "step must be a whole number"),
    ({"step": -1}, "step must be a whole number"),
    ({"step": True}, "step must be a whole number"),
    ({"step": 3.0}, "step must be a whole number"),
    ({"step": 10**30}, "step must be a whole number"),
    ({"trained_for": "abc"}, "trained_for must be a list"),
    ({"trained_for": []}, "trained_for must be a list"),
    ({"trained_for": ["abc"]}, "trained_for entries"),
    ({"trained_for": [{"side": "3", "game_type": "komi", "scoring": "standard"}]}, "side must be an integer"),
    ({"trained_for": [{"side": 3, "game_type": "komi", "scoring": "standard", "x": 1}]}, "trained_for entries"),
    ({"source": 12}, "source must be a string"),
    ({"catena_zero": ["x"]}, "catena_zero must be a string"),
    ({"net": "abc"}, "net must be a mapping"),
    ({"surprise": 1}, "unknown field"),
    ({"net__channels": 200_000}, "net.channels must be in"),
    ({"net__blocks": "6"}, "net.blocks must be an integer"),
    ({"search__temperature": float("inf")}, "search.temperature must be a finite number"),
    ({"search__num_simulations": 10**12}, "search.num_simulations must be in"),
    ({"game__komi": 99}, "komi must be in 0..15"),
    ({"game__side": 4}, "not among the rule sets"),
])
def test_crafted_headers_are_refused_in_one_line(bot, changes, fragment):
    refused(crafted(bot, **changes), fragment)


def test_missing_header_fields_and_deep_nesting_are_one_line(bot):
    _, fields, weights = bot
    for key in ("step", "net", "search", "game", "trained_for"):
        refused(signed_bot_bytes(weights, json.dumps({k: v for k, v in fields.items() if k != key})), "missing field")
    refused(signed_bot_bytes(weights, "[" * 100_000 + "]" * 100_000), "nested too deeply")
    deep = json.dumps({**fields, "source": 0})[:-1] + ', "x": ' + "[" * 100_000 + "]" * 100_000 + "}"
    refused(signed_bot_bytes(weights, deep), "nested too deeply")
    refused(signed_bot_bytes(weights, '{"step": 1'), "header is unreadable")


def test_shapes_are_compared_with_the_header_before_any_network_is_built(bot):
    """A header claiming a big network (in range, 1024 channels x 128 blocks: about 1.2e9
    parameters, 5 GB if built) over the tiny net's weights (16 channels): refused without the memory."""
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    message = refused(crafted(bot, net__channels=1024, net__blocks=128), "weights do not fit its network config")
    assert "(16," in message or "missing" in message or "unexpected" in message
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before < 500_000  # KiB: no 5 GB network
    refused(crafted(bot, net__channels=32), "weights do not fit")
    _, fields, weights = bot
    fewer = dict(list(weights.items())[1:])
    refused(signed_bot_bytes(fewer, json.dumps(fields)), "missing")
    more = {**weights, "extra.weight": torch.zeros(2)}
    refused(signed_bot_bytes(more, json.dumps(fields)), "unexpected")
    half = {k: (v.half() if v.is_floating_point() else v) for k, v in weights.items()}
    refused(signed_bot_bytes(half, json.dumps(fields)), "float16")


@pytest.mark.parametrize("value", [float("nan"), float("inf")])
def test_non_finite_weights_are_refused_on_write_and_read(bot, value):
    _, fields, weights = bot
    broken = {k: v.clone() for k, v in weights.items()}
    name = next(k for k, v in broken.items() if v.is_floating_point())
    broken[name].view(-1)[0] = value
    header = parse_bot(bot[0]).header
    with pytest.raises(BotFileError, match="not finite"):
        bot_bytes(header, broken)
    refused(signed_bot_bytes(broken, json.dumps(fields)), "non-finite weights")


def test_the_same_bot_is_always_the_same_bytes(bot):
    # safetensors orders the metadata by a fresh random hash each call (8 orders in 10 calls seen):
    # without the sorting, twelve writes of one bot agreeing would be a 1-in-24^11 chance.
    data, _, weights = bot
    header = parse_bot(data).header
    writes = {bot_bytes(header, weights) for _ in range(12)}
    assert writes == {data}
    size = int.from_bytes(data[:8], "little")
    assert list(json.loads(data[8:8 + size])["__metadata__"]) == ["format", "header", "sha256", "version"]
    assert parse_bot(data).header == header


def _with_table(data: bytes, change) -> bytes:
    """``data`` with its safetensors JSON header changed by ``change(table)`` (in place), padded
    with spaces to at least its former length (the data section is unchanged)."""
    size = int.from_bytes(data[:8], "little")
    table = json.loads(data[8:8 + size])
    change(table)
    text = json.dumps(table, separators=(",", ":")).encode()
    new_size = max(size, len(text))
    return new_size.to_bytes(8, "little") + text.ljust(new_size, b" ") + data[8 + size:]


def _swap_two_same_shaped(table: dict) -> tuple[str, str]:
    """Swap the offsets of the first two tensors of one shape and dtype (two conv weights)."""
    seen = {}
    for name, entry in table.items():
        if name == "__metadata__":
            continue
        key = (entry["dtype"], tuple(entry["shape"]))
        if key in seen and entry["shape"]:
            other = seen[key]
            table[name]["data_offsets"], table[other]["data_offsets"] = (table[other]["data_offsets"],
                                                                         table[name]["data_offsets"])
            return other, name
        seen[key] = name
    raise AssertionError("no two tensors of one shape")


def test_swapping_two_same_shaped_tensors_offsets_is_refused(bot):
    """Issue 25: the checksum did not cover the tensor table, so swapping the offsets of two
    same-shaped tensors gave a file that loaded as another network. Version 3 covers it."""
    data, _, weights = bot
    swapped = _with_table(data, _swap_two_same_shaped)
    refused(swapped, "checksum")
    names = []
    _with_table(data, lambda table: names.extend(_swap_two_same_shaped(table)))
    assert not torch.equal(weights[names[0]], weights[names[1]])  # the swap would have changed the network


def test_version_2_files_still_load_and_a_swap_in_them_is_refused(bot, tmp_path):
    """Version 2 (the shipped bots, written before version 3) loads; its checksum omits the
    table, so a table not laid out as safetensors writes one is refused."""
    from pathlib import Path

    from catena_zero.bots import __file__ as bots_init

    _, fields, weights = bot
    old = signed_bot_bytes(weights, json.dumps(fields), version="2")
    loaded = parse_bot(old)
    assert all(torch.equal(loaded.weights[k], weights[k]) for k in weights)
    refused(_with_table(old, _swap_two_same_shaped), "tensor table was changed")

    def swap_two_int64_scalars(table):  # two batch-norm counters: the same shape, bytes and dtype
        ints = sorted((e["data_offsets"][0], n) for n, e in table.items() if n != "__metadata__" and e["dtype"] == "I64")
        if len(ints) >= 2:
            a, b = ints[0][1], ints[1][1]
            table[a]["data_offsets"], table[b]["data_offsets"] = table[b]["data_offsets"], table[a]["data_offsets"]
    refused(_with_table(old, swap_two_int64_scalars), "tensor table was changed")
    for shipped in sorted(Path(bots_init).parent.glob("*.bot")):
        data = shipped.read_bytes()
        assert parse_bot(data, shipped).header.step > 0
        refused(_with_table(data, _swap_two_same_shaped), "")


def test_a_bot_file_is_read_headers_first(bot, tmp_path):
    """Issue 25: a 3 GB sparse bot file took 24 s to refuse (read whole first). Now the 8-byte
    length and the JSON header are checked first, and only the data its table describes (and its
    network needs) is read."""
    import os
    import time

    data, fields, weights = bot
    cases = {}
    zeros = tmp_path / "zeros.bot"
    with open(zeros, "wb") as f:
        f.truncate(3 * 10**9)
    cases[zeros] = "not a catena-zero bot file"
    padded = tmp_path / "padded.bot"
    padded.write_bytes(data)
    with open(padded, "r+b") as f:
        f.truncate(3 * 10**9)  # a good file followed by gigabytes
    cases[padded] = "bytes follow the tensors its table describes"

    def claim_gigabytes(table):  # a table claiming 3 GB for the tiny network: refused before any read
        name = next(n for n in table if n != "__metadata__")
        table[name]["data_offsets"][1] = 3 * 10**9
    claimed = tmp_path / "claimed.bot"
    claimed.write_bytes(_with_table(data, claim_gigabytes))
    with open(claimed, "r+b") as f:
        f.truncate(3 * 10**9)
    cases[claimed] = "its tensor table's offsets span"
    for path, fragment in cases.items():
        started = time.perf_counter()
        with pytest.raises(BotFileError) as info:
            read_bot(path)
        assert fragment in str(info.value) and "\n" not in str(info.value), str(info.value)
        assert time.perf_counter() - started < 2.0, path
        os.unlink(path)
    fifo = tmp_path / "fifo.bot"
    os.mkfifo(fifo)
    with pytest.raises(BotFileError, match="is a FIFO"):
        read_bot(fifo)
