"""A run's checkpoints and replay file as the driver writes and resumes them.

Every checkpoint is written after the replay buffer (``replay.npz``), both atomically, so a
checkpoint never refers to newer data than the buffer beside it; then the old ones are pruned
(``run.keep_last``, ``run.keep_every``). The checkpointer remembers the last kept checkpoint
(the loss diverged: the run goes back to it) and the weights of the one before it (the in-loop
matches' ``previous`` opponent). On a resume it finds the newest intact checkpoint, skipping
damaged ones with a line each; a damaged replay file does not block the resume (one line, and
the caller starts an empty buffer). What goes into a checkpoint is the driver's to say.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Optional

from ..artifacts.checkpoint import (Checkpoint, list_checkpoints, load_checkpoint, newest_intact_checkpoint,
                                    newest_intact_checkpoint_of, prune_checkpoints, save_checkpoint)
from ..artifacts.layout import REPLAY_FILE
from ..config import RunConfig
from .replay import ReplayBuffer, ReplayError


class Checkpointer:
    """Writes a run's checkpoints and replay file and finds the one to resume from."""

    def __init__(self, run_dir: Path, run: RunConfig) -> None:
        self.run_dir = run_dir
        self.run = run  # keep_last, keep_every
        self.last: Optional[Path] = None  # the last kept checkpoint (this session's or the resumed one)
        self.previous_weights: Optional[dict] = None  # the kept checkpoint's before it, for "previous"

    def save(self, checkpoint: Checkpoint, replay: ReplayBuffer) -> None:
        """Write ``replay`` then ``checkpoint``, and prune the old checkpoints."""
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
        if len(found) > 1:
            previous, _ = newest_intact_checkpoint_of(found[:-1])
            self.previous_weights = previous.model if previous is not None else None
        return checkpoint

    def load_replay(self, replay: ReplayBuffer) -> bool:
        """Fill ``replay`` from the run's replay file when there is one; False when the file is
        damaged (one line says so; ``replay`` may then hold part of it: the caller starts an
        empty buffer)."""
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
        return True
