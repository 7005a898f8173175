"""When a run's in-loop matches run, and what is done with their result.

Every ``eval.interval_steps`` learner steps the driver asks for one evaluation (the function it
was handed, ``inloop.InLoopEvaluation``), run beside the loop in a Ray actor started with the run
(``selfplay.workers.RemoteRunner``). One at a time: a slow evaluation makes the next one skipped,
never queued; one that would take the session's evaluation CPU time over ``eval.max_cpu_share``
(its estimate: the last one's CPU seconds) is skipped too, and so is one whose process died. At
the end of a run that reached its bound, the matches in flight are waited for, or played then if
none ran at the final step. A result goes to the TensorBoard log, the progress line and the CPU
account. Apart from ``inloop.py`` (what the driver is handed and gets back) so that the readers
of ``InLoopResult`` (``eval/inloop.py``, ``runlog.py``) import neither Ray nor this.
"""

from __future__ import annotations

from typing import Any, Callable, Optional

import numpy as np

from ..config import Config
from ..game.options import RuleSet
from ..selfplay.workers import RemoteRunner, RemoteTaskLost
from .cputime import CpuAccount
from .inloop import InLoopEvaluation, InLoopResult
from .progress import Progress
from .runlog import RunLog


class InLoopSchedule:
    """The in-loop evaluations of one session: the one in flight, the last result, those skipped."""

    def __init__(self, evaluate: Optional[InLoopEvaluation], config: Config, seeds: np.random.SeedSequence,
                 progress: Progress, log: RunLog) -> None:
        self.evaluate = evaluate  # the in-loop matches (eval/inloop.py); None: no learning curve
        self.config = config
        self.seeds = seeds  # each evaluation's seed is spawned from it
        self.progress = progress
        self.log = log
        self.runner: Optional[RemoteRunner] = None  # where the matches run (``open``)
        self.pending: Optional[tuple[Any, int]] = None  # (Ray reference, step) of the matches in flight
        self.last: Optional[InLoopResult] = None
        self.last_cpu = 0.0  # CPU seconds of the last evaluation (the next one's estimate)
        self.skipped = 0  # over the CPU share, or lost
        self.recorded = 0  # evaluations played and recorded: the points of this session's learning curve

    def open(self, runner_factory: Callable[[], RemoteRunner] = RemoteRunner) -> None:
        """Start the process the matches run in, once the run's Ray has started (none when the
        run has no in-loop matches)."""
        if self._plays():
            self.runner = runner_factory()

    def close(self) -> None:
        """End the process the matches ran in."""
        if self.runner is not None:
            self.runner.shutdown()
            self.runner = None

    def _plays(self) -> bool:
        """Whether the run has in-loop matches (a function to play them, and games to play)."""
        return self.evaluate is not None and bool(self.config.eval.games)

    def due(self, step: int) -> bool:
        """Whether ``step`` is one of ``eval.interval_steps``'s (0: never)."""
        interval = self.config.eval.interval_steps
        return bool(interval) and step % interval == 0

    def start(self, step: int, cpu: CpuAccount, weights: Callable[[], dict], previous: Optional[dict],
              komi_estimates: dict[RuleSet, int], final: bool = False) -> None:
        """Start the matches of the network ``weights()`` gives (asked only when they start) at
        ``step``, unless some are in flight or they would exceed the CPU share (``final``: the
        run's last, always played)."""
        if not self._plays() or self.pending is not None:
            return  # one at a time: a slow evaluation is skipped, never queued
        if not final and not cpu.evaluation_allowed(self.config.eval.max_cpu_share, self.last_cpu):
            self.skipped += 1  # over its CPU share: self-play and the learner come first
            return
        assert self.runner is not None, "InLoopSchedule.open comes first"
        seed = int(self.seeds.spawn(1)[0].generate_state(1)[0])
        ref = self.runner.submit(self.evaluate, self.config, weights(), previous, dict(komi_estimates), seed, step)
        self.pending = (ref, step)

    def poll(self, cpu: CpuAccount) -> None:
        """Record the matches in flight if they have finished; never blocks."""
        if self.pending is None:
            return
        try:
            done, result = self.runner.poll(self.pending[0])
        except RemoteTaskLost as exc:
            self._lost(exc)
            return
        if done:
            self._record(result, self.pending[1], cpu)
            self.pending = None

    def finish(self, step: int, cpu: CpuAccount, start_final: Callable[[], None]) -> None:
        """At the end of a run: wait for the matches in flight, or play them now (``start_final``)
        if none ran at ``step`` yet."""
        try:
            if self.pending is None and self.config.eval.games and (self.last is None or self.last.step != step):
                start_final()
            if self.pending is not None:
                self.progress.note("finishing the in-loop evaluation ...")
                ref, started = self.pending
                self._record(self.runner.wait(ref), started, cpu)
                self.pending = None
        except RemoteTaskLost as exc:
            self._lost(exc)
        except KeyboardInterrupt:
            self.pending = None

    def _lost(self, exc: RemoteTaskLost) -> None:
        """The matches' process died (out of memory, killed): skip them; the next ones start at their interval."""
        self.progress.note(f"step {self.pending[1]}: in-loop evaluation lost: {exc}; skipped")
        self.pending = None
        self.skipped += 1

    def _record(self, result: InLoopResult, step: int, cpu: CpuAccount) -> None:
        self.last = result
        self.recorded += 1
        self.last_cpu = result.cpu_seconds
        cpu.evaluation += result.cpu_seconds
        self.log.evaluation(step, result)
        self.progress.note(f"step {step}: {result.describe()}")
