"""The bot file: one self-contained file with a trained network and what it needs to play.

``catena-zero export CHECKPOINT|RUN_DIR --out FILE`` writes it (``export_bot``); ``Bot.load``
(``bot.py``) reads it (``read_bot``). Loading needs torch and safetensors only: no Ray, no
TensorBoard and none of the training code (``catena_zero.train`` is never imported here).

Layout: a safetensors file (weights that cannot execute code when loaded, unlike a pickle).
Its ``__metadata__`` (string to string, the format's only place for text) holds
    format    "catena-zero-bot"   (BOT_FORMAT)
    version   "2"                 (BOT_VERSION)
    header    JSON of the ``BotHeader`` below
    sha256    the SHA-256 of the format, the version, the header text and the tensor data section
              (``bot_digest``): a damaged or truncated file, or a changed setting (a flipped bit in
              the default komi), is caught before anything is used (safetensors itself checks
              offsets, not contents).
The tensors are the network's state dict (``CatenaNet``), on the CPU, all finite.

Reading checks, in this order and before any network is built: the checksum; every header field's
type and range (``_header_from_fields``; the network and search settings as a config file's); the
tensors' names, shapes and dtypes against the network the header describes (``_check_shapes``, on
PyTorch's "meta" device, which allocates nothing); that every weight is finite.

Header fields (``BotHeader``):
    step            learner steps of the checkpoint it was exported from
    net             the network config (``NetConfig`` fields); the device is chosen at load time
    search          the default search settings (``SearchConfig`` fields)
    game            the game options it plays by default (``GameConfig``: side, game type,
                    scoring, komi)
    trained_for     the rule sets (side, game type, scoring) it was trained on; komi is not part of
                    a rule set: the network takes it as an input (DESIGN.md sec. 4)
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
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Iterable, Optional

from .. import __version__
from ..config import Config, ConfigError, NetConfig, SearchConfig, config_from_dict
from ..errors import UserError
from ..fileio import write_bytes_atomic
from ..game.options import GameConfig, RuleSet
from ..messages import quote

if TYPE_CHECKING:
    import torch

    from ..train.checkpoint import Checkpoint  # only for the type: nothing from train is imported

BOT_FORMAT = "catena-zero-bot"
BOT_VERSION = 2  # 2: the checksum covers the header
_HEADER_LIMIT = 100_000_000  # safetensors' own limit on the JSON header (bytes)
_MAX_STEP = 2**53  # learner steps a header may claim (a float-exact integer; real runs: < 10**8)
_MAX_TEXT = 4096  # characters of the source and version strings
_MAX_RULE_SETS = 1000  # 9 sides x 3 game types x 3 scorings = 81 exist
_HEADER_KEYS = ("format", "version", "catena_zero", "step", "source", "net", "search", "game", "trained_for")


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
        return (f"step {self.step}, network {self.net.blocks} blocks x {self.net.channels} channels, "
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


def header_from_checkpoint(checkpoint: "Checkpoint", trained_for: Optional[Iterable[RuleSet]] = None) -> BotHeader:
    """The bot header of a checkpoint (``train.checkpoint.Checkpoint``: step, config, path)."""
    config: Config = checkpoint.config
    rules = _unique(trained_for) if trained_for is not None else config.rule_sets()
    return BotHeader(
        step=int(checkpoint.step),
        net=config.net,
        search=config.search,
        game=_default_game(config, rules),
        trained_for=rules,
        source=checkpoint.path.name if getattr(checkpoint, "path", None) is not None else "",
    )


def export_bot(checkpoint: "Checkpoint", out: str | Path, trained_for: Optional[Iterable[RuleSet]] = None) -> BotHeader:
    """Write the bot file of ``checkpoint`` to ``out`` atomically; returns its header.

    The weights are checked against the network config first (``BotFileError`` if they do not fit),
    so a bot file that was written always loads.
    """
    header = header_from_checkpoint(checkpoint, trained_for)
    weights = _fitted_weights(header.net, checkpoint.model, str(getattr(checkpoint, "path", None) or "checkpoint"))
    write_bot(out, header, weights)
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
    }
    return json.dumps(data, sort_keys=True)


def bot_digest(version: str, header_text: str, data_section: bytes) -> str:
    """The checksum of a bot file: SHA-256 of its format, version, header text and tensor data,
    each length-prefixed (so no two different files give the same byte stream)."""
    h = hashlib.sha256()
    for part in (BOT_FORMAT.encode(), version.encode(), header_text.encode("utf-8", "surrogatepass")):
        h.update(len(part).to_bytes(8, "little") + part)
    h.update(data_section)
    return h.hexdigest()


def bot_bytes(header: BotHeader, weights: dict) -> bytes:
    """The bytes of a bot file (safetensors with the metadata of the module docstring).

    ``BotFileError`` if a weight is not finite: such a bot could only fail mid-game."""
    from safetensors.torch import save

    bad = _non_finite(weights)
    if bad is not None:
        raise BotFileError(f"refusing to write a bot file: weight {bad} is not finite (NaN or inf)")
    text = _header_json(header)

    def serialise(digest: str) -> bytes:
        return save(weights, metadata={"format": BOT_FORMAT, "version": str(BOT_VERSION), "header": text,
                                       "sha256": digest})

    # The data section does not depend on the metadata (offsets are relative to its start), so the
    # digest over a first serialisation's data is the digest of the final one.
    first = serialise("")
    final = serialise(bot_digest(str(BOT_VERSION), text, _data_section(first)))
    assert _data_section(final) == _data_section(first)
    return final


def _non_finite(weights: dict) -> Optional[str]:
    """The name of the first floating tensor with a NaN or an infinity, None when all are finite."""
    import torch

    for name, tensor in weights.items():
        if tensor.is_floating_point() and tensor.numel() and not bool(torch.isfinite(tensor).all()):
            return name
    return None


def write_bot(out: str | Path, header: BotHeader, weights: dict) -> Path:
    """Write a bot file atomically (``fileio``): readers see the old file or the new one."""
    return write_bytes_atomic(out, bot_bytes(header, weights))


def _data_section(data: bytes) -> bytes:
    return data[8 + int.from_bytes(data[:8], "little"):]


# ------------------------------------------------------------------------------ reading


def read_bot(path: str | Path) -> BotFile:
    """Read and check a bot file; ``BotFileError`` (one line) if anything is wrong with it."""
    path = Path(path)
    try:
        data = path.read_bytes()
    except IsADirectoryError:
        raise BotFileError(f"{path} is a folder, not a bot file (export one with 'catena-zero export')") from None
    except OSError as exc:
        raise BotFileError(f"cannot read bot file {path}: {exc.strerror or exc}") from None
    return parse_bot(data, path)


def parse_bot(data: bytes, path: Optional[Path] = None) -> BotFile:
    """``read_bot`` on bytes already read (``path`` only names the file in messages)."""
    where = str(path) if path is not None else "bot file"
    metadata = _read_metadata(data, where)
    version = metadata.get("version")
    if version != str(BOT_VERSION):
        raise BotFileError(f"{where} has bot format version {version!r}; this catena-zero reads version {BOT_VERSION}")
    text = metadata.get("header")
    if not isinstance(text, str) or metadata.get("sha256") != bot_digest(version, text, _data_section(data)):
        raise BotFileError(f"{where} is damaged or truncated: its contents do not match their checksum")
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
    _check_shapes(header.net, weights, where)
    bad = _non_finite(weights)
    if bad is not None:
        raise BotFileError(f"{where} holds non-finite weights ({bad} is NaN or inf): the network is broken")
    return BotFile(header=header, weights=weights, path=path)


def _read_metadata(data: bytes, where: str) -> dict:
    """The safetensors ``__metadata__`` of a catena-zero bot file, checked for the format name."""
    not_bot = f"{where} is not a catena-zero bot file (damaged, truncated, or another kind of file)"
    if len(data) < 8:
        raise BotFileError(not_bot)
    size = int.from_bytes(data[:8], "little")
    if size < 2 or size > _HEADER_LIMIT or 8 + size > len(data):
        raise BotFileError(not_bot)
    try:
        table = json.loads(data[8:8 + size].decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError):
        raise BotFileError(not_bot) from None
    metadata = table.get("__metadata__") if isinstance(table, dict) else None
    if not isinstance(metadata, dict) or metadata.get("format") != BOT_FORMAT:
        raise BotFileError(not_bot)
    return metadata


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
    try:
        config = config_from_dict({"game": fields["game"], "net": fields["net"], "search": fields["search"]})
        trained_for = _unique(RuleSet(**entry) for entry in rules)
        return BotHeader(step=step, net=config.net, search=config.search, game=config.game, trained_for=trained_for,
                         source=fields.get("source", ""), catena_zero=fields.get("catena_zero", ""))
    except ConfigError as exc:
        raise BotFileError(f"{where}: its settings are not valid for this catena-zero: {exc}") from None
    except (TypeError, ValueError) as exc:  # RuleSet and GameConfig check their fields (ValueError)
        raise bad(" ".join(str(exc).split())[:200]) from None


def expected_shapes(net: NetConfig) -> dict[str, tuple[tuple[int, ...], str]]:
    """(shape, dtype) of every tensor of the network ``net`` describes, built on PyTorch's "meta"
    device: no memory for weights is allocated, whatever the config claims."""
    import torch

    from ..net import model_from_config

    with torch.device("meta"):
        model = model_from_config(net)
    return {name: (tuple(t.shape), str(t.dtype)) for name, t in model.state_dict().items()}


def _check_shapes(net: NetConfig, weights: dict, where: str) -> None:
    """``BotFileError`` unless ``weights`` has exactly the tensors of ``net``'s network."""
    expected = expected_shapes(net)
    missing, extra = sorted(set(expected) - set(weights)), sorted(set(weights) - set(expected))
    if missing or extra:
        which = f"missing {missing[0]}" if missing else f"unexpected {quote(extra[0])}"
        raise BotFileError(f"{where}: weights do not fit its network config ({which})")
    for name, (shape, dtype) in expected.items():
        got = weights[name]
        if tuple(got.shape) != shape or str(got.dtype) != dtype:
            raise BotFileError(f"{where}: weights do not fit its network config ({name} is {tuple(got.shape)} "
                               f"{got.dtype}, the config's network has {shape} {dtype})")
