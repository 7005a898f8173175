"""What made a trained network: its step, its training time and the CPU time it took, read off
its checkpoint's counters (``counters['seconds']``, ``counters['cpu_seconds']``: every process of
the run, all sessions, ``train/cputime.py``) and, up the chain of ``train.init_from``, off the
networks its run started from.

A curriculum's stages add up (run C from B's checkpoint, B from A's: C + B + A), so runs that
started differently compare at equal CPU (the ladder's CPU-hours, ``eval/curves.py``) and a shipped
bot's index entry says what made it from nothing. A bot file keeps no counters, so a chain through
one counts the stages after it only, and says from where it stops being known (``TrainingCpu``).

Readers: the ladder (``run_provenance``: every kept checkpoint of a run), the recipe's end and the
shipped bots' index (``training_cpu_seconds``: one checkpoint).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Optional

from ..errors import UserError

if TYPE_CHECKING:
    from ..config import Config

MAX_CHAIN = 16  # init_from links followed; a chain this long is a loop of run folders started from each other


@dataclass(frozen=True)
class TrainingCpu:
    """The CPU time that made a network: what is known of it, and where the chain of
    ``train.init_from`` stops being known (module docstring)."""

    seconds: float  # the known part: the run's own CPU and its predecessors' up to the first unknown one
    unknown_from: str = ""  # the first init_from up the chain whose CPU is not known ("" when all is known)

    @property
    def complete(self) -> bool:
        return not self.unknown_from

    def after(self, own: float) -> "TrainingCpu":
        """The CPU of a run of ``own`` seconds that started from the network this counts."""
        return TrainingCpu(own + self.seconds, self.unknown_from)


@dataclass(frozen=True)
class Provenance:
    """One kept checkpoint of a run: its step, training time and the CPU that made it."""

    step: int
    path: Path
    seconds: float  # training time (``run_provenance``)
    cpu: Optional[TrainingCpu]  # None: the run has a checkpoint written before runs counted their CPU


def own_cpu_seconds(counters: dict) -> Optional[float]:
    """A checkpoint's ``cpu_seconds``, None when it has none (0: written before runs counted CPU)."""
    own = counters.get("cpu_seconds")
    return float(own) if isinstance(own, (int, float)) and own > 0 else None


def training_cpu_seconds(counters: dict, config: "Config") -> Optional[TrainingCpu]:
    """The CPU time that made a checkpoint: its ``counters['cpu_seconds']`` plus what the network
    its run started from took (``inherited_cpu``). None for a checkpoint written before runs
    counted their CPU."""
    own = own_cpu_seconds(counters)
    if own is None:
        return None
    return inherited_cpu(config).after(own)


def inherited_cpu(config: "Config", _depth: int = 0) -> TrainingCpu:
    """The CPU time that made the network a run started from (``train.init_from``, a checkpoint or
    a run folder, whose newest checkpoint counts): that checkpoint's ``cpu_seconds`` plus what it
    inherited in turn. Nothing for a run from random weights. The chain stops being known at a bot
    file (which keeps no counters), a source gone or unreadable since, or a checkpoint written
    before runs counted their CPU. A relative ``init_from`` is read from the current folder, as
    training did."""
    from .checkpoint import load_checkpoint
    from .network import CHECKPOINT, network_kind

    source = config.train.init_from
    if not source:
        return TrainingCpu(0.0)
    unknown = TrainingCpu(0.0, source)
    if _depth >= MAX_CHAIN:
        return unknown
    try:
        if network_kind(Path(source)) != CHECKPOINT:
            return unknown
        checkpoint = load_checkpoint(source)
    except UserError:
        return unknown
    own = own_cpu_seconds(checkpoint.counters)
    if own is None:
        return unknown
    return inherited_cpu(checkpoint.config, _depth + 1).after(own)


def run_provenance(run_dir: Path) -> list[Provenance]:
    """The run's kept checkpoints, oldest first. Training time: each checkpoint's
    ``counters['seconds']`` when every one has it, else its file's modification time counted from
    the first one's. CPU: its own plus what its run inherited (read once: the same for all); None
    for all of them when one was written before runs counted CPU (no CPU axis rather than a
    partial one)."""
    from .checkpoint import list_checkpoints, load_checkpoint

    found = list_checkpoints(run_dir)
    loaded = [load_checkpoint(path) for _, path in found]
    counted = [c.counters.get("seconds") for c in loaded]
    if found and all(isinstance(s, (int, float)) for s in counted):
        seconds = [float(s) for s in counted]
    else:
        mtimes = [path.stat().st_mtime for _, path in found]
        seconds = [t - min(mtimes) for t in mtimes]
    own = [own_cpu_seconds(c.counters) for c in loaded]
    cpu: list[Optional[TrainingCpu]] = [None] * len(found)
    if found and None not in own:
        before = inherited_cpu(loaded[-1].config)  # the run's start
        cpu = [before.after(s) for s in own if s is not None]
    return [Provenance(step=step, path=path, seconds=s, cpu=c) for (step, path), s, c in zip(found, seconds, cpu)]
