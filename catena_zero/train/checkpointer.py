"""A run's checkpoints and replay file as the driver writes and resumes them.

Every checkpoint is written after the replay buffer (``replay.npz``), both atomically, so a
checkpoint never refers to newer data than the buffer beside it; then the old ones are pruned
(``run.keep_last``, ``run.keep_every``). A run killed between the two writes leaves a replay file
ahead of the newest checkpoint: positions and samples the checkpoint has not counted. So each
checkpoint records the counters of the replay file written for it (``extra["replay"]``,
``ReplayCounters``), and a resume sets a replay file that is ahead back to them
(``ReplayBuffer.rewind``: the newer positions dropped), one line saying so: the buffer's counters
then agree with the checkpoint's, as if the kill had come before the replay file was written.

The checkpointer remembers the last kept checkpoint (the loss diverged: the run goes back to it)
and the weights of the one before it (the in-loop matches' ``previous`` opponent). On a resume it
finds the newest intact checkpoint, skipping damaged ones with a line each; a damaged replay file
does not block the resume (one line, and the caller starts an empty buffer). What else goes into
a checkpoint is the driver's to say.
"""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path
from typing import Optional

from ..artifacts.checkpoint import (Checkpoint, list_checkpoints, load_checkpoint, newest_intact_checkpoint,
                                    newest_intact_checkpoint_of, prune_checkpoints, save_checkpoint)
from ..artifacts.layout import REPLAY_FILE
from ..config import RunConfig
from .replay import ReplayBuffer, ReplayCounters, ReplayError

REPLAY_COUNTERS = "replay"  # the checkpoint's ``extra`` entry: the replay file's counters (module docstring)


class Checkpointer:
    """Writes a run's checkpoints and replay file and finds the one to resume from."""

    def __init__(self, run_dir: Path, run: RunConfig) -> None:
        self.run_dir = run_dir
        self.run = run  # keep_last, keep_every
        self.last: Optional[Path] = None  # the last kept checkpoint (this session's or the resumed one)
        self.previous_weights: Optional[dict] = None  # the kept checkpoint's before it, for "previous"
        self.replay_counters: Optional[ReplayCounters] = None  # the restored checkpoint's record of its replay file

    def save(self, checkpoint: Checkpoint, replay: ReplayBuffer) -> None:
        """Write ``replay`` then ``checkpoint`` (with the replay's counters), and prune the old checkpoints."""
        counters = replay.counters()
        checkpoint = dataclasses.replace(checkpoint, extra={**checkpoint.extra, REPLAY_COUNTERS: counters.as_dict()})
        replay.save(self.run_dir / REPLAY_FILE)  # first: a checkpoint never refers to newer data
        if self.last is not None and self.last.exists():
            self.previous_weights = load_checkpoint(self.last).model
        self.last = save_checkpoint(self.run_dir, checkpoint)
        prune_checkpoints(self.run_dir, self.run.keep_last, self.run.keep_every)

    def last_learner_state(self) -> Optional[dict]:
        """The learner's state in the last kept checkpoint (the last good one); None before the first."""
        return None if self.last is None else load_checkpoint(self.last).extra["learner"]

    def restore(self) -> Optional[Checkpoint]:
        """The newest intact checkpoint of the run folder, to resume from (None: none is intact),
        now the last kept one, the intact one before it giving the previous weights. Each damaged
        newer checkpoint skipped is said in one line."""
        found = list_checkpoints(self.run_dir)
        checkpoint, skipped = newest_intact_checkpoint(self.run_dir)
        for line in skipped:  # a damaged newest checkpoint: resume from the newest intact one
            print(f"warning: skipping a damaged checkpoint: {line}", file=sys.stderr)
        if checkpoint is None:
            return None
        if skipped:
            print(f"resuming from {checkpoint.path.name}, the newest intact checkpoint", file=sys.stderr)
        found = [(step, path) for step, path in found if step <= checkpoint.step]
        self.last = found[-1][1]
        self.replay_counters = ReplayCounters.from_dict(checkpoint.extra.get(REPLAY_COUNTERS))
        if len(found) > 1:
            previous, _ = newest_intact_checkpoint_of(found[:-1])
            self.previous_weights = previous.model if previous is not None else None
        return checkpoint

    def load_replay(self, replay: ReplayBuffer) -> bool:
        """Fill ``replay`` from the run's replay file when there is one, set back to the restored
        checkpoint's counters when it is ahead of them (module docstring; one line says so); False
        when the file is damaged (one line says so; ``replay`` may then hold part of it: the caller
        starts an empty buffer)."""
        path = self.run_dir / REPLAY_FILE
        if not path.exists():
            return True
        try:
            replay.load(path)
        except ReplayError as exc:
            # A damaged buffer must not block the run: its network and optimiser are the
            # checkpoint's, and self-play refills the buffer (the learner waits for it).
            print(f"warning: {exc}; resuming with an empty replay buffer (the checkpoint's network, "
                  f"optimiser and step are kept; {REPLAY_FILE} is rewritten at the next checkpoint)",
                  file=sys.stderr)
            return False
        if self.replay_counters is not None:
            dropped = replay.rewind(self.replay_counters)
            if dropped:
                print(f"{REPLAY_FILE} was written for a checkpoint after {self.last.name if self.last else 'this one'} "
                      f"(the run was stopped between the two): its {dropped:,} newer position(s) are dropped, so "
                      "that the buffer and the checkpoint count the same", file=sys.stderr)
        return True
