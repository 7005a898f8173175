"""Checkpoints of a training run: one file per kept step, loadable without running code.

A run folder ``checkpoints/<run>/`` holds ``config.yaml`` and ``ckpt/step-00001234.pt`` (``layout.py``). Each
checkpoint file is ``torch.save`` of a dict of tensors and plain Python values only, so it loads
with ``torch.load(weights_only=True)``: a damaged or hostile file cannot execute code. Files are
written atomically (``fileio``), so a run killed at any moment leaves only whole checkpoints.

Integrity: ``sha256`` is the SHA-256 of everything else the file holds (``payload_digest``: every
tensor's dtype, shape and bytes, every plain value, in a fixed order), checked on every load, so
a flipped bit anywhere (a weight, the step, the config) is refused instead of loading a silently
changed network. Non-finite weights (NaN, inf) are refused when writing and when reading.

Contents (``CHECKPOINT_FORMAT``, version ``CHECKPOINT_VERSION``):
    format, version    identify the file
    sha256             the digest of all the fields below and ``format``, ``version``
    step               learner steps done
    config             the run's full config as a plain dict (``config.config_to_dict``)
    model              the network's state dict
    input_layout       the version of the network's input layout (``net.features.INPUT_LAYOUTS``);
                       files written before it was recorded have none, and are layout 1
    optimizer          the optimiser's state dict (None in a weights-only checkpoint)
    counters           plain numbers: positions generated, games, samples trained, seconds ...
    extra              plain values any component stores to resume (RNG states, schedules ...)
"""

from __future__ import annotations

import hashlib
import io
import math
import struct
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional

import torch

from ..config import Config, ConfigError, config_from_dict, config_to_dict
from ..errors import UserError
from ..fileio import open_input, write_bytes_atomic
from ..net.features import INPUT_LAYOUT_VERSION, recorded_layout
from .layout import CHECKPOINT_DIR, CHECKPOINT_FILE, checkpoint_name

CHECKPOINT_FORMAT = "catena-zero-checkpoint"
CHECKPOINT_VERSION = 2  # 2: with the sha256 of the contents


class CheckpointError(UserError):
    """A checkpoint file or run folder is missing, damaged or incompatible (one-line message)."""


@dataclass(frozen=True)
class Checkpoint:
    """What one checkpoint file holds (see the module docstring)."""

    step: int
    config: Config
    model: dict[str, torch.Tensor]
    optimizer: Optional[dict] = None
    counters: dict[str, float] = field(default_factory=dict)
    extra: dict[str, Any] = field(default_factory=dict)
    path: Optional[Path] = None  # where it was loaded from (None when built in memory)
    input_layout: int = INPUT_LAYOUT_VERSION  # the version of ``model``'s input layout (net/features.py)


def _digest_into(h, value: Any) -> None:
    """Feed ``value`` (tensors and plain values, nested) to the hash ``h`` unambiguously: a type
    tag, then a length or fixed-size encoding, so different contents never give the same stream."""
    if isinstance(value, torch.Tensor):
        t = value.detach().cpu().contiguous()
        h.update(b"T" + str(t.dtype).encode() + repr(tuple(t.shape)).encode())
        raw = t.reshape(-1).view(torch.uint8).numpy().tobytes() if t.numel() else b""
        h.update(struct.pack("<Q", len(raw)) + raw)
    elif value is None:
        h.update(b"N")
    elif isinstance(value, bool):
        h.update(b"B1" if value else b"B0")
    elif isinstance(value, int):
        text = str(value).encode()
        h.update(b"I" + struct.pack("<Q", len(text)) + text)
    elif isinstance(value, float):
        h.update(b"F" + struct.pack("<d", value))
    elif isinstance(value, (str, bytes)):
        raw = value.encode("utf-8", "surrogatepass") if isinstance(value, str) else value
        h.update((b"S" if isinstance(value, str) else b"Y") + struct.pack("<Q", len(raw)) + raw)
    elif isinstance(value, (list, tuple)):
        h.update((b"L" if isinstance(value, list) else b"U") + struct.pack("<Q", len(value)))
        for item in value:
            _digest_into(h, item)
    elif isinstance(value, dict):
        items = sorted(value.items(), key=lambda kv: (type(kv[0]).__name__, str(kv[0])))
        h.update(b"D" + struct.pack("<Q", len(items)))
        for key, item in items:
            _digest_into(h, key)
            _digest_into(h, item)
    else:
        raise TypeError(f"a checkpoint holds tensors and plain values only, not {type(value).__name__}")


def payload_digest(payload: dict) -> str:
    """SHA-256 (hex) of a checkpoint payload without its ``sha256`` field."""
    h = hashlib.sha256()
    _digest_into(h, {k: v for k, v in payload.items() if k != "sha256"})
    return h.hexdigest()


def non_finite_tensor(tensors: Any, prefix: str = "") -> Optional[str]:
    """The name of the first floating tensor in ``tensors`` (nested dicts/lists) with a NaN or an
    infinity, None when all are finite."""
    if isinstance(tensors, torch.Tensor):
        if tensors.is_floating_point() and tensors.numel() and not bool(torch.isfinite(tensors).all()):
            return prefix or "a tensor"
        return None
    if isinstance(tensors, float) and not math.isfinite(tensors):
        return prefix or "a value"
    items = tensors.items() if isinstance(tensors, dict) else enumerate(tensors) if isinstance(tensors, (list, tuple)) else ()
    for key, item in items:
        found = non_finite_tensor(item, f"{prefix}.{key}" if prefix else str(key))
        if found is not None:
            return found
    return None


def save_checkpoint(run_dir: str | Path, checkpoint: Checkpoint) -> Path:
    """Write ``checkpoint`` into ``run_dir/ckpt/`` atomically; returns its path.

    ``CheckpointError`` if a weight (or optimiser state) is NaN or infinite: such a network can
    only fail later, mid-game, so it is never written.
    """
    bad = non_finite_tensor({"model": checkpoint.model, "optimizer": checkpoint.optimizer})
    if bad is not None:
        raise CheckpointError(f"refusing to write checkpoint step {checkpoint.step}: {bad} is not finite (NaN or inf)")
    folder = Path(run_dir) / CHECKPOINT_DIR
    folder.mkdir(parents=True, exist_ok=True)
    payload = {
        "format": CHECKPOINT_FORMAT,
        "version": CHECKPOINT_VERSION,
        "step": int(checkpoint.step),
        "config": config_to_dict(checkpoint.config),
        "model": {k: v.detach().cpu() for k, v in checkpoint.model.items()},
        "input_layout": int(checkpoint.input_layout),
        "optimizer": checkpoint.optimizer,
        "counters": dict(checkpoint.counters),
        "extra": dict(checkpoint.extra),
    }
    payload["sha256"] = payload_digest(payload)
    buffer = io.BytesIO()
    torch.save(payload, buffer)
    return write_bytes_atomic(folder / checkpoint_name(checkpoint.step), buffer.getvalue())


def load_checkpoint(path: str | Path, map_location: str | torch.device = "cpu") -> Checkpoint:
    """Load a checkpoint file, or a run folder's newest one; ``CheckpointError`` names what is wrong."""
    path = resolve_checkpoint(path)
    # A regular file (a FIFO would hang, /dev/zero never end), of any size: torch reads the zip's
    # directory at its end first, then each record it lists, never the whole file at once.
    with open_input(path, "checkpoint", None, CheckpointError) as f:
        try:
            payload = torch.load(f, map_location=map_location, weights_only=True)
        except (OSError, EOFError) as exc:
            raise CheckpointError(f"cannot read checkpoint {path}: {exc}") from None
        except Exception as exc:  # pickle/zip errors of a truncated, corrupted or code-carrying file
            reason = " ".join(str(exc).split())[:200] or type(exc).__name__
            raise CheckpointError(f"{path} is not a loadable checkpoint (damaged or not a checkpoint): {reason}") from None
    if not isinstance(payload, dict) or payload.get("format") != CHECKPOINT_FORMAT:
        raise CheckpointError(f"{path} is not a catena-zero checkpoint")
    if payload.get("version") != CHECKPOINT_VERSION:
        raise CheckpointError(
            f"{path} has checkpoint version {payload.get('version')!r}; this catena-zero reads version {CHECKPOINT_VERSION}")
    try:
        intact = payload.get("sha256") == payload_digest(payload)
    except TypeError as exc:
        raise CheckpointError(f"{path} is damaged: {exc}") from None
    if not intact:
        raise CheckpointError(f"{path} is damaged: its contents do not match their checksum")
    if not isinstance(payload.get("model"), dict):
        raise CheckpointError(f"{path} is missing or has a bad field: model")
    bad = non_finite_tensor({"model": payload["model"], "optimizer": payload.get("optimizer")})
    if bad is not None:
        raise CheckpointError(f"{path} holds non-finite weights ({bad} is NaN or inf): the network is broken")
    layout = recorded_layout(payload, CheckpointError, str(path))
    try:
        config = config_from_dict(payload["config"])
        return Checkpoint(
            step=int(payload["step"]),
            config=config,
            model=payload["model"],
            optimizer=payload.get("optimizer"),
            counters=payload.get("counters") or {},
            extra=payload.get("extra") or {},
            path=path,
            input_layout=layout,
        )
    except ConfigError as exc:
        raise CheckpointError(f"{path}: its config is not valid for this catena-zero: {exc}") from None
    except (KeyError, TypeError, ValueError) as exc:
        raise CheckpointError(f"{path} is missing or has a bad field: {exc}") from None


def newest_intact_checkpoint(run_dir: str | Path, map_location: str | torch.device = "cpu"
                             ) -> tuple[Optional[Checkpoint], list[str]]:
    """The newest checkpoint of a run folder that loads (checksum, finite weights), and one line
    for each newer one skipped as damaged; (None, lines) when no checkpoint loads."""
    return newest_intact_checkpoint_of(list_checkpoints(run_dir), map_location)


def newest_intact_checkpoint_of(found: list[tuple[int, Path]], map_location: str | torch.device = "cpu"
                                ) -> tuple[Optional[Checkpoint], list[str]]:
    """``newest_intact_checkpoint`` over (step, path) pairs, oldest first (``list_checkpoints``)."""
    skipped = []
    for _, path in reversed(found):
        try:
            return load_checkpoint(path, map_location), skipped
        except CheckpointError as exc:
            skipped.append(str(exc))
    return None, skipped


def list_checkpoints(run_dir: str | Path) -> list[tuple[int, Path]]:
    """(step, path) of every checkpoint of a run folder, oldest first."""
    folder = Path(run_dir) / CHECKPOINT_DIR
    if not folder.is_dir():
        return []
    found = []
    for entry in folder.iterdir():
        match = CHECKPOINT_FILE.match(entry.name)
        if match:
            found.append((int(match.group(1)), entry))
    return sorted(found)


def resolve_checkpoint(path: str | Path) -> Path:
    """A checkpoint file as given, or the newest checkpoint of a run folder."""
    path = Path(path)
    if path.is_dir():
        found = list_checkpoints(path)
        if not found:
            raise CheckpointError(f"run folder {path} has no checkpoint (expected {path / CHECKPOINT_DIR}/step-*.pt)")
        return found[-1][1]
    if not path.exists():
        raise CheckpointError(f"no such checkpoint or run folder: {path}")
    return path


def prune_checkpoints(run_dir: str | Path, keep_last: int, keep_every: int) -> list[Path]:
    """Delete checkpoints except the newest ``keep_last`` and every ``keep_every``-th step (0: none).

    The kept-for-good ones are what the ladder plays; returns the deleted paths.
    """
    found = list_checkpoints(run_dir)
    newest = {step for step, _ in found[-keep_last:]} if keep_last > 0 else set()
    deleted = []
    for step, path in found:
        if step in newest or (keep_every > 0 and step % keep_every == 0):
            continue
        path.unlink(missing_ok=True)
        deleted.append(path)
    return deleted
