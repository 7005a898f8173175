"""Where a training run's CPU time goes: self-play search, network inference, the learner, the
in-loop evaluation, the rest of the driver, Ray's own processes, and idle (what nobody used of
wall time x CPUs).

Each process measures its own CPU time with ``time.process_time``: a self-play actor reports its
process's running total and its inference seconds with every chunk (``selfplay/workers.Chunk``),
the in-loop evaluation its own seconds (``InLoopResult.cpu_seconds``), and the driver its
learner steps and its whole process. On 2 cores these shares decide the split of learner and actors
(docs/TRAINING.md), so they are logged to TensorBoard (``cpu/*``) and printed at the end of a run.
Ray's own processes (raylet, GCS, agents, idle workers' start-up) report nothing; on Linux their CPU
is read from ``/proc`` as what the driver's descendants used beyond the actors and the evaluation
(``CpuAccount.report(ray_processes=True)``), so that idle is only what nobody used. It is not part
of ``used`` (``run.max_cpu_minutes``), which stays the run's own work. What the machine's other
processes took over the session is read from ``/proc/stat`` (every CPU's busy time, less the run's
own and its Ray's), so that a run on a busy machine says so: idle is then what nobody used at all.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field, replace

from ..selfplay import reaper


@dataclass(frozen=True)
class CpuReport:
    """CPU seconds of one session of a run, by use; ``idle`` is wall x cpus minus the rest."""

    wall: float  # seconds of the session
    cpus: float  # CPUs the run had (run.num_cpus, else this machine's)
    selfplay_search: float  # the actors' CPU time less inference: search, environment, bookkeeping
    inference: float  # the actors' network evaluations
    learner: float  # the driver's training steps (sampling, forward, backward, optimiser)
    evaluation: float  # the in-loop matches
    driver_other: float  # the rest of the driver process: replay, polling, checkpoints, TensorBoard
    positions: int  # self-play positions made in the session
    ray_processes: float = 0.0  # Ray's own processes (raylet, GCS, agents, idle workers), Linux; not in used
    others: float = 0.0  # the machine's other processes over the session (/proc/stat, Linux); not in used

    @property
    def used(self) -> float:
        """CPU seconds of every process of the session together (what ``run.max_cpu_minutes`` counts)."""
        return self.selfplay_search + self.inference + self.learner + self.evaluation + self.driver_other

    @property
    def idle(self) -> float:
        return max(0.0, self.wall * self.cpus - self.used - self.ray_processes - self.others)

    @property
    def positions_per_selfplay_cpu_second(self) -> float:
        return self.positions / max(self.selfplay_search + self.inference, 1e-9)

    def shares(self) -> dict[str, float]:
        """Each use as a share of wall x cpus (TensorBoard ``cpu/share_<use>``)."""
        total = max(self.wall * self.cpus, 1e-9)
        return {"selfplay_search": self.selfplay_search / total, "inference": self.inference / total,
                "learner": self.learner / total, "evaluation": self.evaluation / total,
                "driver_other": self.driver_other / total, "ray_processes": self.ray_processes / total,
                "other_processes": self.others / total, "idle": self.idle / total}

    def describe(self) -> str:
        """One line for the end of a run."""
        parts = ", ".join(f"{name.replace('_', ' ')} {share:.0%}" for name, share in self.shares().items())
        return (f"CPU time ({self.cpus:g} CPUs x {self.wall / 60:.1f} min): {parts}; "
                f"{self.positions_per_selfplay_cpu_second:.1f} positions per self-play CPU-second")


@dataclass
class CpuAccount:
    """Running CPU totals of a session, fed by the driver loop."""

    cpus: float
    learner: float = 0.0
    evaluation: float = 0.0
    inference: float = 0.0
    positions: int = 0
    started: float = field(default_factory=time.perf_counter)
    driver_started: float = field(default_factory=time.process_time)
    _actor_latest: dict[int, float] = field(default_factory=dict)  # slot -> the process's running total
    _actor_retired: float = 0.0  # totals of actor processes that were replaced
    # CPU seconds the driver's descendants had used when the session started (a resumed session's
    # driver starts with none; a test's may have some)
    _below_at_start: float = field(default_factory=lambda: _cpu_below(os.getpid()))
    # the machine's busy CPU seconds (every process) and its CPUs when the session started
    _machine_at_start: float = field(default_factory=lambda: machine_busy_seconds())

    def add_actor(self, slot: int, process_seconds: float, inference_seconds: float, positions: int) -> None:
        """A chunk's figures: its actor process's running CPU total and the chunk's inference."""
        last = self._actor_latest.get(slot, 0.0)
        if process_seconds < last:  # a new process in this slot (the old one died): keep the old total
            self._actor_retired += last
        self._actor_latest[slot] = process_seconds
        self.inference += inference_seconds
        self.positions += positions

    def report(self, ray_processes: bool = False) -> CpuReport:
        """The session so far; ``ray_processes``: also read Ray's own processes from ``/proc`` (a
        few ms, so for the end of a session and the TensorBoard log, not every loop)."""
        actors = self._actor_retired + sum(self._actor_latest.values())
        driver = time.process_time() - self.driver_started
        report = CpuReport(wall=time.perf_counter() - self.started, cpus=self.cpus,
                           selfplay_search=max(0.0, actors - self.inference), inference=self.inference,
                           learner=self.learner, evaluation=self.evaluation,
                           driver_other=max(0.0, driver - self.learner), positions=self.positions,
                           ray_processes=self._ray_processes() if ray_processes else 0.0)
        if not ray_processes:
            return report
        # Only where the run's CPUs are the machine's (a cluster's Ray, or run.num_cpus below the
        # machine's, leaves the rest of the machine to others by design).
        machine = os.cpu_count() or 1
        if self.cpus != machine or self._machine_at_start is None:
            return report
        busy = (machine_busy_seconds() or 0.0) - self._machine_at_start
        others = max(0.0, busy - report.used - report.ray_processes)
        return replace(report, others=min(others, max(0.0, report.wall * report.cpus - report.used - report.ray_processes)))

    def _ray_processes(self) -> float:
        """CPU seconds of the driver's descendants since the session started beyond what the actors
        and the evaluation reported: Ray's raylet, GCS and agents (0 off Linux, or when the Ray is a
        cluster's, whose processes are not below this one)."""
        below = _cpu_below(os.getpid())
        return max(0.0, below - self._below_at_start - sum(self._actor_latest.values()) - self.evaluation)

    def evaluation_allowed(self, max_share: float, expected_seconds: float) -> bool:
        """Would one more evaluation of ``expected_seconds`` keep evaluation within ``max_share``
        of the session's wall x cpus? (The first one is always allowed: its cost is unknown.)"""
        budget = max_share * self.cpus * (time.perf_counter() - self.started)
        return self.evaluation + expected_seconds <= budget


def machine_busy_seconds(path: str = "/proc/stat") -> float | None:
    """Seconds every CPU of this machine has been busy since boot (user, nice, system, irq, softirq,
    steal: the ``cpu`` line of ``/proc/stat`` less idle and iowait); None off Linux."""
    try:
        with open(path) as f:
            fields = f.readline().split()
    except OSError:
        return None
    if not fields or fields[0] != "cpu":
        return None
    ticks = [int(x) for x in fields[1:9]] + [0] * max(0, 8 - len(fields[1:9]))
    user, nice, system, idle, iowait, irq, softirq, steal = ticks
    return (user + nice + system + irq + softirq + steal) / os.sysconf("SC_CLK_TCK")


def _cpu_below(pid: int) -> float:
    """CPU seconds of the running processes below ``pid`` (0 off Linux)."""
    if not os.path.isdir("/proc/self"):
        return 0.0
    return sum(reaper.cpu_seconds(child) for child in reaper.descendants(pid))
