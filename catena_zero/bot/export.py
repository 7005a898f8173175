"""The bot file: one self-contained file with a trained network and what it needs to play.

``catena-zero export CHECKPOINT|RUN_DIR --out FILE`` writes it (``export_bot``); ``Bot.load``
(``bot.py``) reads it (``read_bot``). Loading needs torch and safetensors only: no Ray, no
TensorBoard and none of the training code (``catena_zero.train`` is never imported here).

Layout: a safetensors file (weights that cannot execute code when loaded, unlike a pickle).
Its ``__metadata__`` (string to string, the format's only place for text) holds
    format    "catena-zero-bot"   (BOT_FORMAT)
    version   "1"                 (BOT_VERSION)
    header    JSON of the ``BotHeader`` below, plus ``data_sha256``: the SHA-256 of the tensor
              data section, so a damaged or truncated file is caught before any weight is used
              (safetensors itself checks offsets, not contents).
The tensors are the network's state dict (``CatenaNet``), on the CPU.

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
from typing import TYPE_CHECKING, Any, Iterable, Optional

from .. import __version__
from ..config import Config, ConfigError, NetConfig, SearchConfig, config_from_dict
from ..fileio import write_bytes_atomic
from ..game.options import GameConfig

if TYPE_CHECKING:
    import torch

    from ..train.checkpoint import Checkpoint  # only for the type: nothing from train is imported

BOT_FORMAT = "catena-zero-bot"
BOT_VERSION = 1
_HEADER_LIMIT = 100_000_000  # safetensors' own limit on the JSON header (bytes)


class BotFileError(ValueError):
    """A bot file is missing, not a bot file, of an unknown version, damaged, or does not fit."""


@dataclass(frozen=True)
class RuleSet:
    """The options a network was trained for, komi aside (komi is a network input)."""

    side: int
    game_type: str
    scoring: str

    def __post_init__(self) -> None:
        GameConfig(side=self.side, game_type=self.game_type, scoring=self.scoring)  # ValueError if invalid

    @classmethod
    def of(cls, config: GameConfig) -> RuleSet:
        return cls(config.side, config.game_type, config.scoring)

    def covers(self, config: GameConfig) -> bool:
        """Whether a game under ``config`` (any komi) is one this rule set describes."""
        return (config.side, config.game_type, config.scoring) == (self.side, self.game_type, self.scoring)

    def __str__(self) -> str:
        return f"side {self.side} {self.game_type} {self.scoring}"


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


def trained_for_from_config(config: Config) -> tuple[RuleSet, ...]:
    """The rule sets a run's config trains on: every combination of ``selfplay.sides``,
    ``selfplay.game_types`` and ``selfplay.scorings`` (an empty list means ``config.game``'s value),
    as self-play draws them (``selfplay/play.py``, ``rule_sets``), ``config.game``'s own first.
    """
    game = config.game
    selfplay = getattr(config, "selfplay", None)
    sides = getattr(selfplay, "sides", None) or (game.side,)
    game_types = getattr(selfplay, "game_types", None) or (game.game_type,)
    scorings = getattr(selfplay, "scorings", None) or (game.scoring,)
    rules = [RuleSet(int(s), str(t), str(c)) for s in sides for t in game_types for c in scorings]
    first = [RuleSet.of(game)] if RuleSet.of(game) in rules else []  # the configured game leads
    return _unique(first + rules)


def _rule_set(entry: Any) -> RuleSet:
    if isinstance(entry, dict):
        return RuleSet(int(entry["side"]), str(entry["game_type"]), str(entry["scoring"]))
    return RuleSet(int(entry.side), str(entry.game_type), str(entry.scoring))


def _unique(rules: Iterable[RuleSet]) -> tuple[RuleSet, ...]:
    return tuple(dict.fromkeys(rules))


def _default_game(config: Config, trained_for: tuple[RuleSet, ...]) -> GameConfig:
    """``config.game`` if it is a trained rule set, else the first trained rule set at komi 0."""
    if any(r.covers(config.game) for r in trained_for):
        return config.game
    first = trained_for[0]
    return GameConfig(side=first.side, game_type=first.game_type, scoring=first.scoring)


# ------------------------------------------------------------------------------ writing


def header_from_checkpoint(checkpoint: "Checkpoint", trained_for: Optional[Iterable[RuleSet]] = None) -> BotHeader:
    """The bot header of a checkpoint (``train.checkpoint.Checkpoint``: step, config, path)."""
    config: Config = checkpoint.config
    rules = _unique(trained_for) if trained_for is not None else trained_for_from_config(config)
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
    from ..net import model_from_config

    model = model_from_config(net)
    try:
        model.load_state_dict(weights)
    except (RuntimeError, TypeError, AttributeError) as exc:
        first = str(exc).strip().splitlines()[0][:200] if str(exc).strip() else type(exc).__name__
        raise BotFileError(f"{where}: weights do not fit its network config: {first}") from None
    return {name: tensor.detach().cpu().contiguous().clone() for name, tensor in model.state_dict().items()}


def _header_json(header: BotHeader, digest: str) -> str:
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
        "data_sha256": digest,
    }
    return json.dumps(data, sort_keys=True)


def bot_bytes(header: BotHeader, weights: dict) -> bytes:
    """The bytes of a bot file (safetensors with the metadata of the module docstring)."""
    from safetensors.torch import save

    def serialise(digest: str) -> bytes:
        metadata = {"format": BOT_FORMAT, "version": str(BOT_VERSION), "header": _header_json(header, digest)}
        return save(weights, metadata=metadata)

    # The data section does not depend on the metadata (offsets are relative to its start), so the
    # digest of a first serialisation is the digest of the final one.
    first = serialise("")
    digest = hashlib.sha256(_data_section(first)).hexdigest()
    final = serialise(digest)
    assert _data_section(final) == _data_section(first)
    return final


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
    try:
        fields = json.loads(metadata["header"])
        if not isinstance(fields, dict):
            raise TypeError("the header is not a JSON object")
    except (KeyError, TypeError, json.JSONDecodeError) as exc:
        raise BotFileError(f"{where} is damaged: its header is unreadable ({exc})") from None
    digest = hashlib.sha256(_data_section(data)).hexdigest()
    if fields.get("data_sha256") != digest:
        raise BotFileError(f"{where} is damaged or truncated: its weights do not match their checksum")
    header = _header_from_fields(fields, where)
    try:
        from safetensors.torch import load

        weights = load(data)
    except Exception as exc:  # safetensors raises its own error type for bad offsets and dtypes
        reason = " ".join(str(exc).split())[:200] or type(exc).__name__
        raise BotFileError(f"{where} is damaged: its weights cannot be read ({reason})") from None
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
    try:
        config = config_from_dict({"game": fields["game"], "net": fields["net"], "search": fields["search"]})
        rules = _unique(_rule_set(entry) for entry in fields["trained_for"])
        return BotHeader(
            step=int(fields["step"]),
            net=config.net,
            search=config.search,
            game=config.game,
            trained_for=rules,
            source=str(fields.get("source", "")),
            catena_zero=str(fields.get("catena_zero", "")),
        )
    except ConfigError as exc:
        raise BotFileError(f"{where}: its settings are not valid for this catena-zero: {exc}") from None
    except (KeyError, TypeError, ValueError) as exc:
        raise BotFileError(f"{where} is missing or has a bad header field: {exc}") from None
