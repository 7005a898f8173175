"""The bot file: one self-contained file with a trained network and what it needs to play.

``catena-zero export CHECKPOINT|RUN_DIR --out FILE`` writes it (``export_bot``); ``Bot.load``
(``bot.py``) reads it (``read_bot``). Loading needs torch and safetensors only: no Ray, no
TensorBoard and none of the training code (``catena_zero.train`` is never imported here).

Layout: a safetensors file (weights that cannot execute code when loaded, unlike a pickle).
Its ``__metadata__`` (string to string, the format's only place for text) holds
    format    "catena-zero-bot"   (BOT_FORMAT)
    version   "3"                 (BOT_VERSION)
    header    JSON of the ``BotHeader`` below
    sha256    the SHA-256 of the format, the version, the header text, the tensor table and the
              tensor data section (``bot_digest``): a damaged or truncated file, a changed setting
              (a flipped bit in the default komi), or a changed table (two same-shaped tensors'
              offsets swapped: the same bytes read as another network) is caught before anything
              is used (safetensors itself checks that offsets fit, not which tensor has which).
              The table is every tensor's name, dtype, shape and offsets, as canonical JSON
              (``tensor_table_text``: sorted keys, no spaces), so it does not depend on how the
              writer spaced its JSON.
The tensors are the network's state dict (``CatenaNet``), on the CPU, all finite. The metadata
entries are in sorted key order (``_sorted_metadata``), so one bot is always the same bytes.

Version 2 (the checksum without the tensor table; the bots shipped before version 3) is still
read: its table must be laid out the way safetensors writes one (``_check_written_layout``: one
run of offsets per dtype, wider dtypes first, names in order within each), which fixes every
offset once the names, dtypes and shapes are known, and those are checked against the header's
network (below), which its checksum covers. A swap of two tensors' offsets breaks that order.

Reading (``read_bot``), headers first, so that nothing big is read before it is known to belong:
a regular file (``fileio.open_input``: a FIFO or /dev/zero is refused, not read); the 8-byte
length and the JSON header, at most ``fileio.MAX_BOT_HEADER_BYTES``; the format and the version;
the size of the data the tensor table describes, which must be the rest of the file, and, when
the header's settings read, the network they describe (names, shapes, dtypes, total bytes); only
then the tensor data. Then, in this order and before any network is built: the checksum; every
header field's type and range (``_header_from_fields``; the network and search settings as a
config file's); the tensors' names, shapes and dtypes against the network the header describes
(``_check_shapes``, on PyTorch's "meta" device, which allocates nothing); that every weight is
finite.

Header fields (``BotHeader``):
    step            learner steps of the checkpoint it was exported from
    net             the network config (``NetConfig`` fields); the device is chosen at load time
    search          the default search settings (``SearchConfig`` fields)
    game            the game options it plays by default (``GameConfig``: side, game type,
                    scoring, komi)
    trained_for     the rule sets (side, game type, scoring) it was trained on; komi is not part of
                    a rule set: the network takes it as an input (DESIGN.md sec. 4)
    input_layout    the version of its network's input layout (``net.features.INPUT_LAYOUTS``);
                    files written before it was recorded have none, and are layout 1
    source          the checkpoint's file name (for people; nothing reads it)
    catena_zero     the package version that wrote it

Every problem with a file raises ``BotFileError`` (a ``ValueError``) with one line naming the
file and what is wrong: missing, not a bot file, an unknown version, damaged or truncated,
weights that do not fit the network config.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Iterable, Optional

from .. import __version__
from ..config import Config, ConfigError, NetConfig, SearchConfig, config_from_dict
from ..errors import UserError
from ..fileio import MAX_BOT_HEADER_BYTES, open_input, write_bytes_atomic
from ..game.options import GameConfig, RuleSet
from ..messages import quote

if TYPE_CHECKING:
    import torch

    from .checkpoint import Checkpoint

BOT_FORMAT = "catena-zero-bot"
BOT_VERSION = 3  # 2: the checksum covers the header; 3: and the tensor table (names, dtypes, shapes, offsets)
_READABLE_VERSIONS = ("2", str(BOT_VERSION))  # 2: its table is checked by its layout (module docstring)
_HEADER_LIMIT = MAX_BOT_HEADER_BYTES  # safetensors' own limit is 100 MB; a bot's header is tens of kB
# Bytes per element of safetensors' dtypes (the ones a state dict can hold).
_ITEMSIZE = {"F64": 8, "I64": 8, "U64": 8, "F32": 4, "I32": 4, "U32": 4, "F16": 2, "BF16": 2, "I16": 2,
             "U16": 2, "I8": 1, "U8": 1, "BOOL": 1, "F8_E5M2": 1, "F8_E4M3": 1}
_TORCH_DTYPE = {"F64": "torch.float64", "I64": "torch.int64", "F32": "torch.float32", "I32": "torch.int32",
                "F16": "torch.float16", "BF16": "torch.bfloat16", "I16": "torch.int16", "I8": "torch.int8",
                "U8": "torch.uint8", "BOOL": "torch.bool"}
_MAX_STEP = 2**53  # learner steps a header may claim (a float-exact integer; real runs: < 10**8)
_MAX_TEXT = 4096  # characters of the source and version strings
_MAX_RULE_SETS = 1000  # 9 sides x 3 game types x 3 scorings = 81 exist
_HEADER_KEYS = ("format", "version", "catena_zero", "step", "source", "net", "search", "game", "trained_for",
                "input_layout")


class BotFileError(UserError):
    """A bot file is missing, not a bot file, of an unknown version, damaged, or does not fit."""


@dataclass(frozen=True)
class BotHeader:
    """What a bot file says about its network (see the module docstring)."""

    step: int
    net: NetConfig
    search: SearchConfig
    game: GameConfig
    trained_for: tuple[RuleSet, ...]
    input_layout: int  # the version of its network's input layout (net/features.py)
    source: str = ""
    catena_zero: str = __version__

    def __post_init__(self) -> None:
        if not self.trained_for:
            raise ValueError("a bot must be trained for at least one rule set")
        if not any(r.covers(self.game) for r in self.trained_for):
            raise ValueError(f"the default game ({self.game}) is not among the rule sets it was trained for")

    def describe(self) -> str:
        """One line for people: step, network size, rule sets."""
        rules = ", ".join(str(r) for r in self.trained_for)
        return (f"step {self.step}, network {self.net.blocks} blocks x {self.net.channels} channels"
                f"{averaging_label(self.net)}, "
                f"trained for {rules}")


@dataclass(frozen=True)
class BotFile:
    """A bot file as read: its header and the network's weights (CPU tensors)."""

    header: BotHeader
    weights: dict[str, "torch.Tensor"]
    path: Optional[Path] = None


# ------------------------------------------------------------------------------ what a run trained for


def _unique(rules: Iterable[RuleSet]) -> tuple[RuleSet, ...]:
    return tuple(dict.fromkeys(rules))


def _default_game(config: Config, trained_for: tuple[RuleSet, ...]) -> GameConfig:
    """``config.game`` if it is a trained rule set, else the first trained rule set at komi 0."""
    if any(r.covers(config.game) for r in trained_for):
        return config.game
    first = trained_for[0]
    return first.game()


# ------------------------------------------------------------------------------ writing


# The search budget an exported bot plays with unless told otherwise: the shipped bots' (their
# strength in docs/RESULTS.md is measured at it). A training config's search is far smaller (16
# simulations in quick.yaml), a budget for generating games, not for playing a person.
PLAY_SIMULATIONS = 400


def play_search(search: SearchConfig, simulations: Optional[int] = None,
                settings: Optional[dict] = None) -> SearchConfig:
    """The search a bot plays with: the training config's ``search`` with ``simulations`` a move
    (None: keep its budget) and ``settings`` (search field -> value, e.g. ``{"score_utility_weight":
    0.3}``, from ``--search``) in place of its own. A training config's search is tuned for making
    games cheaply, and a bot's can be tuned at play (docs/RESULTS.md measures the shipped side6.bot's
    settings head to head). ``ConfigError``: an unknown field or a bad value, named as
    ``search.FIELD``."""
    fields = {**dataclasses.asdict(search), **(settings or {})}
    if simulations is not None:
        fields["num_simulations"] = simulations
    return config_from_dict({"search": fields}).search


def play_net(net: NetConfig, symmetry_average: Optional[bool] = None) -> NetConfig:
    """The network settings a bot plays with: ``net`` with ``symmetry_average`` (None: keep its own)
    in place of its own. Averaging every evaluation over the 12 board symmetries (``net.inference``:
    one forward of 12 times the positions) steadies the value a search backs up. The network's work
    grows 12-fold: side6.bot's forward of one position (where a forward's fixed cost dominates) took
    3 times as long, of 20 positions (a match's batch) 14 times (docs/RESULTS.md). The weights are
    the same either way."""
    if symmetry_average is None:
        return net
    return dataclasses.replace(net, symmetry_average=bool(symmetry_average))


def averaging_label(net: NetConfig) -> str:
    """", averaged over 12 symmetries" for a network that averages its evaluations (``play_net``),
    else "": how the header, the bot and the shipped bots' index say it."""
    return ", averaged over 12 symmetries" if net.symmetry_average else ""


def header_from_checkpoint(checkpoint: "Checkpoint", trained_for: Optional[Iterable[RuleSet]] = None,
                           simulations: Optional[int] = None, search_settings: Optional[dict] = None,
                           symmetry_average: Optional[bool] = None) -> BotHeader:
    """The bot header of a checkpoint (``checkpoint.Checkpoint``: step, config, path); its search is
    ``play_search`` of the training config's with ``simulations`` and ``search_settings``, its
    network ``play_net`` of the training config's with ``symmetry_average``."""
    from ..net.features import INPUT_LAYOUT_VERSION

    config: Config = checkpoint.config
    rules = _unique(trained_for) if trained_for is not None else config.rule_sets()
    search = play_search(config.search, simulations, search_settings)
    return BotHeader(
        step=int(checkpoint.step),
        net=play_net(config.net, symmetry_average),
        search=search,
        game=_default_game(config, rules),
        trained_for=rules,
        input_layout=INPUT_LAYOUT_VERSION,  # write_checkpoint_bot writes the weights in the code's layout
        source=checkpoint.path.name if checkpoint.path is not None else "",
    )


def export_bot(checkpoint: "Checkpoint", out: str | Path, trained_for: Optional[Iterable[RuleSet]] = None,
               simulations: Optional[int] = None, search_settings: Optional[dict] = None,
               symmetry_average: Optional[bool] = None) -> BotHeader:
    """Write the bot file of ``checkpoint`` to ``out`` atomically; returns its header. Its default
    search is the training config's, with ``simulations`` a move when given (``PLAY_SIMULATIONS``
    is what ``catena-zero export`` gives) and ``search_settings`` (``play_search``); its network
    averages over the symmetries as ``symmetry_average`` says (``play_net``).

    The weights are checked against the network config first (``BotFileError`` if they do not fit),
    so a bot file that was written always loads.
    """
    header = header_from_checkpoint(checkpoint, trained_for, simulations, search_settings, symmetry_average)
    return write_checkpoint_bot(out, header, checkpoint)


def write_checkpoint_bot(out: str | Path, header: BotHeader, checkpoint: "Checkpoint") -> BotHeader:
    """Write ``checkpoint``'s weights as the bot of ``header`` to ``out`` atomically, the weights
    checked against the header's network first (``BotFileError`` if they do not fit)."""
    from ..net.model import weights_in_current_layout

    where = str(checkpoint.path or "checkpoint")
    weights = weights_in_current_layout(checkpoint.model, checkpoint.input_layout, BotFileError, where)
    write_bot(out, header, _fitted_weights(header.net, weights, where))
    return header


def reexport_bot(bot: BotFile, out: str | Path, simulations: Optional[int] = None,
                 search_settings: Optional[dict] = None, symmetry_average: Optional[bool] = None) -> BotHeader:
    """Write ``bot``'s network to ``out`` with the way it plays changed (``play_search`` and
    ``play_net`` of its own): a shipped bot's play settings, tuned after its checkpoint is gone.
    Everything else of its header (step, network shape, default game, rule sets, source) is kept."""
    header = dataclasses.replace(bot.header, search=play_search(bot.header.search, simulations, search_settings),
                                 net=play_net(bot.header.net, symmetry_average))
    write_bot(out, header, bot.weights)
    return header


def _fitted_weights(net: NetConfig, weights: dict, where: str) -> dict:
    """The state dict of a ``net`` model loaded with ``weights`` (contiguous CPU tensors)."""
    from ..net import WeightsMismatch, model_from_weights

    if isinstance(weights, dict) and all(hasattr(t, "shape") for t in weights.values()):
        _check_shapes(net, weights, where)  # before a network of the config's size is built
    try:
        model = model_from_weights(net, weights)
    except WeightsMismatch as exc:
        raise BotFileError(f"{where}: {exc}") from None
    return {name: tensor.detach().cpu().contiguous().clone() for name, tensor in model.state_dict().items()}


def _header_json(header: BotHeader) -> str:
    data = {
        "format": BOT_FORMAT,
        "version": BOT_VERSION,
        "catena_zero": header.catena_zero,
        "step": header.step,
        "source": header.source,
        "net": dataclasses.asdict(header.net),
        "search": dataclasses.asdict(header.search),
        "game": dataclasses.asdict(header.game),
        "trained_for": [dataclasses.asdict(r) for r in header.trained_for],
        "input_layout": header.input_layout,
    }
    return json.dumps(data, sort_keys=True)


def bot_digest(version: str, header_text: str, data_section: bytes, tensor_table: Optional[str] = None) -> str:
    """The checksum of a bot file: SHA-256 of its format, version, header text, tensor table
    (``tensor_table_text``; version 3, None for version 2) and tensor data, each length-prefixed
    (so no two different files give the same byte stream)."""
    h = hashlib.sha256()
    parts = [BOT_FORMAT.encode(), version.encode(), header_text.encode("utf-8", "surrogatepass")]
    if tensor_table is not None:
        parts.append(tensor_table.encode("utf-8", "surrogatepass"))
    for part in parts:
        h.update(len(part).to_bytes(8, "little") + part)
    h.update(data_section)
    return h.hexdigest()


def tensor_table_text(table: dict) -> str:
    """The tensor table of a safetensors header (every entry but ``__metadata__``: name -> dtype,
    shape, data_offsets) as canonical JSON, the form the version-3 checksum covers."""
    entries = {name: entry for name, entry in table.items() if name != "__metadata__"}
    return json.dumps(entries, sort_keys=True, separators=(",", ":"), ensure_ascii=True)


def _table(data: bytes) -> dict:
    """The JSON header of safetensors bytes this module wrote."""
    return json.loads(data[8:8 + int.from_bytes(data[:8], "little")])


def bot_bytes(header: BotHeader, weights: dict) -> bytes:
    """The bytes of a bot file (safetensors with the metadata of the module docstring).

    ``BotFileError`` if a weight is not finite: such a bot could only fail mid-game."""
    from safetensors.torch import save

    from .checkpoint import non_finite_tensor

    bad = non_finite_tensor(weights)
    if bad is not None:
        raise BotFileError(f"refusing to write a bot file: weight {bad} is not finite (NaN or inf)")
    text = _header_json(header)

    def serialise(digest: str) -> bytes:
        return save(weights, metadata={"format": BOT_FORMAT, "version": str(BOT_VERSION), "header": text,
                                       "sha256": digest})

    # The data section and the tensor table do not depend on the metadata (offsets are relative to
    # the data's start), so the digest over a first serialisation's is the digest of the final one.
    first = serialise("")
    table = tensor_table_text(_table(first))
    final = _sorted_metadata(serialise(bot_digest(str(BOT_VERSION), text, _data_section(first), table)))
    assert _data_section(final) == _data_section(first) and tensor_table_text(_table(final)) == table
    return final


def _sorted_metadata(data: bytes) -> bytes:
    """``data`` with its ``__metadata__`` entries in sorted key order, so that the same bot is always
    the same bytes (and a re-exported shipped bot shows no change in git): safetensors writes them
    from a Rust HashMap, whose order is random, each call anew. The rewritten JSON is spaced as
    safetensors spaces it (none), so it is never longer; it is padded with spaces, as safetensors
    pads, to the old header's length, and the data section is not touched."""
    size = int.from_bytes(data[:8], "little")
    table = _table(data)
    ordered = {"__metadata__": dict(sorted(table.pop("__metadata__").items())), **table}
    text = json.dumps(ordered, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    assert len(text) <= size, "the canonical safetensors header came out longer than the written one"
    return data[:8] + text.ljust(size) + data[8 + size:]


def write_bot(out: str | Path, header: BotHeader, weights: dict) -> Path:
    """Write a bot file atomically (``fileio``): readers see the old file or the new one."""
    return write_bytes_atomic(out, bot_bytes(header, weights))


def _data_section(data: bytes) -> bytes:
    return data[8 + int.from_bytes(data[:8], "little"):]


# ------------------------------------------------------------------------------ reading


def read_bot(path: str | Path) -> BotFile:
    """Read and check a bot file, headers first (module docstring); ``BotFileError`` (one line)
    if anything is wrong with it."""
    path = Path(path)
    where = str(path)
    if path.is_dir():
        raise BotFileError(f"{path} is a folder, not a bot file (export one with 'catena-zero export')")
    with open_input(path, "bot file", None, BotFileError) as f:
        try:
            size = os.fstat(f.fileno()).st_size
            prefix = f.read(8)
            length = int.from_bytes(prefix, "little") if len(prefix) == 8 else 0
            if length < 2 or length > _HEADER_LIMIT or 8 + length > size:
                raise BotFileError(_not_bot(where))
            head = prefix + f.read(length)
            table = _read_table(head, where)
            _check_version(table["__metadata__"], where)
            declared = _declared_data_length(table, where)
            if size - len(head) > declared:
                raise BotFileError(f"{where} is damaged: {size - len(head) - declared:,} bytes follow the tensors "
                                   "its table describes")
            _check_table_fits(table, declared, where)
            data = head + f.read(declared)  # what the table describes, and no more
        except OSError as exc:
            raise BotFileError(f"cannot read bot file {path}: {exc.strerror or exc}") from None
    return parse_bot(data, path)


def parse_bot(data: bytes, path: Optional[Path] = None) -> BotFile:
    """``read_bot`` on bytes already read (``path`` only names the file in messages)."""
    where = str(path) if path is not None else "bot file"
    table = _read_table(data, where)
    metadata = table["__metadata__"]
    version = _check_version(metadata, where)
    _declared_data_length(table, where)
    text = metadata.get("header")
    covered = tensor_table_text(table) if version != "2" else None
    if not isinstance(text, str) or metadata.get("sha256") != bot_digest(version, text, _data_section(data), covered):
        raise BotFileError(f"{where} is damaged or truncated: its contents do not match their checksum")
    if version == "2":
        _check_written_layout(table, where)
    try:
        fields = json.loads(text)
        if not isinstance(fields, dict):
            raise TypeError("the header is not a JSON object")
    except (TypeError, ValueError, RecursionError) as exc:  # RecursionError: nested too deep
        reason = "nested too deeply" if isinstance(exc, RecursionError) else " ".join(str(exc).split())[:200]
        raise BotFileError(f"{where} is damaged: its header is unreadable ({reason})") from None
    header = _header_from_fields(fields, where)
    try:
        from safetensors.torch import load

        weights = load(data)
    except Exception as exc:  # safetensors raises its own error type for bad offsets and dtypes
        reason = " ".join(str(exc).split())[:200] or type(exc).__name__
        raise BotFileError(f"{where} is damaged: its weights cannot be read ({reason})") from None
    _check_shapes(header.net, weights, where, header.input_layout)
    from .checkpoint import non_finite_tensor

    bad = non_finite_tensor(weights)
    if bad is not None:
        raise BotFileError(f"{where} holds non-finite weights ({bad} is NaN or inf): the network is broken")
    return BotFile(header=header, weights=weights, path=path)


def _not_bot(where: str) -> str:
    return f"{where} is not a catena-zero bot file (damaged, truncated, or another kind of file)"


def _read_table(data: bytes, where: str) -> dict:
    """The safetensors JSON header of a catena-zero bot file (its ``__metadata__`` checked for
    the format name); ``data`` holds at least the header."""
    if len(data) < 8:
        raise BotFileError(_not_bot(where))
    size = int.from_bytes(data[:8], "little")
    if size < 2 or size > _HEADER_LIMIT or 8 + size > len(data):
        raise BotFileError(_not_bot(where))
    try:
        table = json.loads(data[8:8 + size].decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError):
        raise BotFileError(_not_bot(where)) from None
    metadata = table.get("__metadata__") if isinstance(table, dict) else None
    if not isinstance(metadata, dict) or metadata.get("format") != BOT_FORMAT:
        raise BotFileError(_not_bot(where))
    return table


def _check_version(metadata: dict, where: str) -> str:
    version = metadata.get("version")
    if version not in _READABLE_VERSIONS:
        raise BotFileError(f"{where} has bot format version {version!r}; this catena-zero reads version "
                           f"{BOT_VERSION} (and version 2)")
    return version


def _entries(table: dict) -> dict:
    return {name: entry for name, entry in table.items() if name != "__metadata__"}


def _declared_data_length(table: dict, where: str) -> int:
    """The bytes of tensor data the table describes (its largest end offset), after checking that
    every entry has a dtype, a shape and two offsets."""
    end = 0
    for name, entry in _entries(table).items():
        offsets = entry.get("data_offsets") if isinstance(entry, dict) else None
        shape = entry.get("shape") if isinstance(entry, dict) else None
        if (not isinstance(offsets, list) or len(offsets) != 2 or not isinstance(shape, list)
                or not isinstance(entry.get("dtype"), str)
                or not all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in offsets + shape)
                or offsets[0] > offsets[1]):
            raise BotFileError(f"{where} is damaged: its tensor table is unreadable (entry {quote(name)})")
        end = max(end, offsets[1])
    return end


@dataclass(frozen=True)
class _Entry:
    """A tensor as the table describes it, for ``_check_shapes`` before any data is read."""

    shape: tuple
    dtype: str


def _check_table_fits(table: dict, declared: int, where: str) -> None:
    """Before the data is read: when the header's settings read, the table's tensors must be the
    network they describe, and ``declared`` its size in bytes (a crafted table claiming gigabytes
    for a small network is refused here). Settings that do not read are reported after the
    checksum, as for any file."""
    try:
        fields = json.loads(table["__metadata__"].get("header"))
        header = _header_from_fields(fields, where) if isinstance(fields, dict) else None
    except (BotFileError, TypeError, ValueError, RecursionError):
        return
    if header is None:
        return
    entries = {name: _Entry(tuple(entry["shape"]), _TORCH_DTYPE.get(entry["dtype"], entry["dtype"]))
               for name, entry in _entries(table).items()}
    _check_shapes(header.net, entries, where, header.input_layout)
    needed = sum(math.prod(entry["shape"]) * _ITEMSIZE.get(entry["dtype"], 1) for entry in _entries(table).values())
    if declared != needed:
        raise BotFileError(f"{where} is damaged: its tensor table's offsets span {declared:,} bytes, "
                           f"its tensors need {needed:,}")


def _check_written_layout(table: dict, where: str) -> None:
    """A version-2 table must be laid out as safetensors writes one: by offset, one run per dtype,
    wider dtypes first, names ascending within a run (module docstring)."""
    ordered = sorted(_entries(table).items(), key=lambda item: tuple(item[1]["data_offsets"]))
    finished: set[str] = set()  # dtypes whose run has ended
    for (before, previous), (name, entry) in zip(ordered, ordered[1:]):
        if entry["dtype"] == previous["dtype"]:
            in_order = name > before
        else:
            finished.add(previous["dtype"])
            in_order = (entry["dtype"] not in finished
                        and _ITEMSIZE.get(entry["dtype"], 1) <= _ITEMSIZE.get(previous["dtype"], 1))
        if not in_order:
            raise BotFileError(f"{where} is damaged: its tensors are not where a bot file stores them "
                               "(its tensor table was changed)")


def _header_from_fields(fields: dict, where: str) -> BotHeader:
    """The ``BotHeader`` of a header's JSON fields, every field's type and range checked."""
    def bad(message: str) -> BotFileError:
        return BotFileError(f"{where} has a bad header field: {message}")

    unknown = sorted(set(fields) - set(_HEADER_KEYS), key=str)
    if unknown:
        raise bad(f"unknown field {quote(unknown[0])}")
    missing = [key for key in ("step", "net", "search", "game", "trained_for") if key not in fields]
    if missing:
        raise bad(f"missing field {missing[0]!r}")
    step = fields["step"]
    if isinstance(step, bool) or not isinstance(step, int) or not 0 <= step <= _MAX_STEP:
        raise bad(f"step must be a whole number in 0..{_MAX_STEP}, got {quote(step)}")
    for key in ("source", "catena_zero"):
        value = fields.get(key, "")
        if not isinstance(value, str) or len(value) > _MAX_TEXT:
            raise bad(f"{key} must be a string of at most {_MAX_TEXT} characters, got {quote(value)}")
    for key in ("net", "search", "game"):
        if not isinstance(fields[key], dict):
            raise bad(f"{key} must be a mapping of settings, got {quote(fields[key])}")
    rules = fields["trained_for"]
    if not isinstance(rules, list) or not 1 <= len(rules) <= _MAX_RULE_SETS:
        raise bad(f"trained_for must be a list of 1..{_MAX_RULE_SETS} rule sets, got {quote(rules)}")
    for entry in rules:
        if not isinstance(entry, dict) or set(entry) != {"side", "game_type", "scoring"}:
            raise bad(f"trained_for entries must be {{side, game_type, scoring}}, got {quote(entry)}")
    from ..net.features import recorded_layout

    layout = recorded_layout(fields, BotFileError, where)
    try:
        config = config_from_dict({"game": fields["game"], "net": fields["net"], "search": fields["search"]})
        trained_for = _unique(RuleSet(**entry) for entry in rules)
        return BotHeader(step=step, net=config.net, search=config.search, game=config.game, trained_for=trained_for,
                         input_layout=layout, source=fields.get("source", ""), catena_zero=fields.get("catena_zero", ""))
    except ConfigError as exc:
        raise BotFileError(f"{where}: its settings are not valid for this catena-zero: {exc}") from None
    except (TypeError, ValueError) as exc:  # RuleSet and GameConfig check their fields (ValueError)
        raise bad(" ".join(str(exc).split())[:200]) from None


def expected_shapes(net: NetConfig, layout_version: int = 0) -> dict[str, tuple[tuple[int, ...], str]]:
    """(shape, dtype) of every tensor of the network ``net`` describes, reading input layout
    ``layout_version`` (0: the code's; a known one, ``net.features.input_layout``), built on
    PyTorch's "meta" device: no memory for weights is allocated, whatever the config claims."""
    import torch

    from ..net import CatenaNet
    from ..net.features import INPUT_LAYOUT, input_layout

    layout = input_layout(layout_version) if layout_version else INPUT_LAYOUT
    with torch.device("meta"):
        model = CatenaNet(net, num_planes=layout.planes, num_globals=layout.num_globals)
    return {name: (tuple(t.shape), str(t.dtype)) for name, t in model.state_dict().items()}


def _check_shapes(net: NetConfig, weights: dict, where: str, layout_version: int = 0) -> None:
    """``BotFileError`` unless ``weights`` has exactly the tensors of ``net``'s network reading input
    layout ``layout_version`` (0: the code's)."""
    expected = expected_shapes(net, layout_version)
    missing, extra = sorted(set(expected) - set(weights)), sorted(set(weights) - set(expected))
    if missing or extra:
        which = f"missing {missing[0]}" if missing else f"unexpected {quote(extra[0])}"
        raise BotFileError(f"{where}: weights do not fit its network config ({which})")
    for name, (shape, dtype) in expected.items():
        got = weights[name]
        if tuple(got.shape) != shape or str(got.dtype) != dtype:
            raise BotFileError(f"{where}: weights do not fit its network config ({name} is {tuple(got.shape)} "
                               f"{got.dtype}, the config's network has {shape} {dtype})")
