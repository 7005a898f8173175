"""A training run end to end: self-play actors on Ray feed the replay buffer, the learner trains on
it, checkpoints and TensorBoard record it, small matches draw the learning curve.

The driver loop never blocks on self-play nor self-play on the learner (DESIGN.md sec. 5):
1. collect the self-play chunks that finished (``SelfPlayPool.poll``, ``ray.wait`` with a timeout)
   and add their positions to the replay buffer;
2. train as many steps as the replay ratio allows now (``ReplayBuffer.steps_allowed``), a few
   at a time so that step 1 comes round often; when it allows none, wait on step 1 instead;
3. publish the weights to the actors every ``run.publish_interval_steps`` steps (versioned: every
   position records the version that played it, and the staleness is logged);
4. checkpoint every ``run.checkpoint_interval`` steps (atomic files; the replay buffer too), run
   the in-loop matches every ``eval.interval_steps`` in a Ray actor beside the loop (the evaluation
   is handed in by the caller, ``train(evaluate=...)``: it lives in ``eval/inloop.py``), skipped
   when they would take more than ``eval.max_cpu_share`` of the session's CPU time (``cputime.py``);
5. stop at the first bound reached (``run.max_steps/max_positions/max_minutes/max_cpu_minutes``, the last the CPU time
   of all the run's processes, ``cputime.py``), on Ctrl-C or on a
   diverged loss, always with a final checkpoint (the last good one when the loss diverged).

Who does what: this module owns the loop, resume and checkpoints; ``runlog.py`` the TensorBoard log;
``cputime.py`` the CPU accounting; ``selfplay/workers.py`` everything that touches Ray. The process's
torch threads are the command's to set (``learner_threads``): library code leaves them alone.
"""

from __future__ import annotations

import dataclasses
import os
import signal
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

import numpy as np
import torch

from ..artifacts.checkpoint import Checkpoint, list_checkpoints, newest_intact_checkpoint
from ..artifacts.layout import CHECKPOINT_DIR, CONFIG_FILE, REPLAY_FILE, RUN_LOCK_FILE
from ..artifacts.network import weights_for
from ..config import RESUMABLE_KEYS, Config, ConfigError, NetConfig, RunConfig, config_diff, config_to_yaml, load_config
from ..config.loading import stage_configs
from ..errors import UserError
from ..fileio import lock_folder, release_folder, remove_stale_temp_files, write_text_atomic
from ..game.options import RuleSet
from ..net import CatenaNet, model_from_weights
from ..selfplay.workers import RayNodeLost, SelfPlayPool, start_ray, stop_ray
from .checkpointer import Checkpointer
from .cputime import CpuAccount, CpuReport
from .inloop import InLoopEvaluation, InLoopResult
from .inloop_schedule import InLoopSchedule
from .learner import Learner, TrainingDiverged
from .losses import Losses
from .progress import Progress
from .replay import ReplayBuffer, ReplayError
from .runlog import RunLog, SelfPlayWindow
from .stages import StageStart, keeps_replay, session_config, stage_bound



class RunError(UserError):
    """A run cannot start or resume (the message says why, in one line)."""


class NothingToDo(Exception):
    """A resume whose run already reached its (new) bounds: nothing was started or written."""

    def __init__(self, run_dir: Path, step: int, bound: Optional["Bound"], stages: int = 0) -> None:
        reached = f"its bound ({bound.describe()})" if bound is not None else f"the end of its {stages} stages"
        super().__init__(f"{run_dir} already reached {reached} at step {step}")
        self.run_dir, self.step, self.bound = run_dir, step, bound


@dataclass(frozen=True)
class RunSummary:
    """How a run ended: what the README's main command prints at the end."""

    run_dir: Path
    checkpoint: Optional[Path]
    step: int
    positions: int
    games: int
    minutes: float
    stop_reason: str
    last_eval: Optional[InLoopResult]
    actor_restarts: int
    actor_nodes: int  # distinct Ray nodes the self-play chunks of this session came from
    cpu: Optional[CpuReport] = None  # where this session's CPU time went
    evaluations_skipped: int = 0  # in-loop evaluations skipped to stay within eval.max_cpu_share
    evaluations: int = 0  # in-loop evaluations played this session (the learning curve's new points)
    bound: Optional[Bound] = None  # the bound that ended the run (None: interrupted or stopped)
    stage: Optional[StageStart] = None  # a staged run: the stage this session trained in
    cpu_hours: float = 0.0  # CPU time of the whole run so far, all its sessions and stages
    stages_done: bool = False  # a staged run that ended its last stage (its recipe's end comes next)


def prepare_run(config: Config, default_name: str, run_name: Optional[str], resume: bool) -> tuple[Path, Config]:
    """The run folder and the config to train with; writes ``config.yaml`` for a new run.

    On ``resume`` the saved config is used; the given one may differ only in the bounds
    (``RESUMABLE_KEYS``), which are taken from it.
    """
    name = run_name or config.run.name or default_name
    if "/" in name or name in ("", ".", ".."):
        raise RunError(f"run name must be a plain folder name, got {name!r}")
    if resume:
        run_dir = Path(config.run.root) / name
        config = _resumed_config(config, run_dir, name)
    else:
        # No name was asked for: a second run of the same config gets the next free name.
        name = _free_run_name(config.run.root, name) if not (run_name or config.run.name) else name
        run_dir = Path(config.run.root) / name
        if list_checkpoints(run_dir):
            raise RunError(f"run folder {run_dir} already has checkpoints: continue it with --resume, "
                           "or choose another --run-name")
        config = _with_run_name(config, name)
    run_dir.mkdir(parents=True, exist_ok=True)
    # One writer per run folder, for this process's life (released by the kernel at its end, SIGKILL
    # included): a second train of the run is refused before it deletes or overwrites anything.
    lock_folder(run_dir, RUN_LOCK_FILE, f"run folder {run_dir}")
    _remove_stale_temp_files(run_dir)
    write_text_atomic(run_dir / CONFIG_FILE, config_to_yaml(config))
    return run_dir, config


def _free_run_name(root: str, name: str) -> str:
    """``name`` if its folder under ``root`` has no checkpoints, else the first ``name-2``, ``name-3``
    ... whose folder has none."""
    if not list_checkpoints(Path(root) / name):
        return name
    return next(f"{name}-{i}" for i in range(2, 10**6) if not list_checkpoints(Path(root) / f"{name}-{i}"))


def _resumed_config(config: Config, run_dir: Path, name: str) -> Config:
    """The config a resume of ``run_dir`` trains with: the saved one, with ``config``'s bounds, its
    recipe's end (``finish``) and where its network runs; ``RunError`` if ``config`` changes
    anything else, ``NothingToDo`` if the run already reached the bounds."""
    saved_path = run_dir / CONFIG_FILE
    if not saved_path.exists():
        raise RunError(f"nothing to resume: {saved_path} does not exist")
    try:
        saved = load_config(saved_path)
    except ConfigError as exc:
        raise RunError(f"cannot resume {run_dir}: {exc}") from None
    wanted = _with_run_name(config, name)
    # train.init_from (and init_replay, init_deepen) only decide a run's first network and buffer: a
    # resume need not repeat them.
    # Where and how the network runs (net.device, precision ...) is not part of the run: a
    # run started on a GPU continues on a CPU (NetConfig.ARCHITECTURE is what the weights fit).
    runtime = tuple(f"net.{f.name}" for f in dataclasses.fields(NetConfig) if f.name not in NetConfig.ARCHITECTURE)
    # A recipe's end (finish.*) comes after the training: it may change too.
    differing = [d for d in config_diff(saved, wanted)
                 if d.split(":")[0] not in RESUMABLE_KEYS + runtime + ("train.init_from", "train.init_replay", "train.init_deepen")
                 and not d.startswith("finish.")]
    if differing:
        raise RunError(f"--resume would change {run_dir}'s config; only the bounds "
                       f"({', '.join(RESUMABLE_KEYS)}) and where the network runs (net.device, its precision) "
                       f"may change: {'; '.join(differing)}")
    bounds = {key.split(".")[1]: getattr(config.run, key.split(".")[1]) for key in RESUMABLE_KEYS}
    resumed = dataclasses.replace(_replace_run(saved, **bounds), finish=wanted.finish)
    resumed = dataclasses.replace(resumed, net=dataclasses.replace(
        wanted.net, **{part: getattr(saved.net, part) for part in NetConfig.ARCHITECTURE}))
    if not resumed.stages:  # a staged run's stages say what is left (_run_stages)
        _check_work_left(run_dir, resumed)
    return resumed


def _check_work_left(run_dir: Path, config: Config) -> None:
    """``NothingToDo`` when the newest intact checkpoint's counters already reach ``config``'s
    bounds: a resume would only repeat the final evaluation and write a second point at its step."""
    checkpoint, _ = newest_intact_checkpoint(run_dir)
    if checkpoint is None:
        return  # nothing intact: TrainingRun says so
    bound = bound_reached(config.run, _Counters.of(checkpoint))
    if bound is not None:
        raise NothingToDo(run_dir, checkpoint.step, bound)


def _remove_stale_temp_files(run_dir: Path) -> None:
    """Delete what a killed session's atomic writes left (``.replay.npz.XXXXXXXX.tmp``, MBs here
    and GBs at scale; ``fileio.remove_stale_temp_files``) in the run folder and its checkpoint
    folder, before this session writes there; one line says so. No session of the run is
    writing now: two at once on one folder would overwrite each other's checkpoints anyway."""
    removed = [p for folder in (run_dir, run_dir / CHECKPOINT_DIR) for p in remove_stale_temp_files(folder)]
    if removed:
        print(f"removed {len(removed)} temporary file(s) left in {run_dir} by an interrupted write "
              f"({', '.join(sorted(p.name for p in removed)[:3])}{', ...' if len(removed) > 3 else ''})",
              file=sys.stderr)


def _replace_run(config: Config, **changes) -> Config:
    return dataclasses.replace(config, run=dataclasses.replace(config.run, **changes))


def _with_run_name(config: Config, name: str) -> Config:
    return _replace_run(config, name=name)


@dataclass(frozen=True)
class StartingPoint:
    """Where a new run (or a staged run's new stage) starts: the network at ``source`` ("" for random
    weights), deepened to the config's blocks when ``deepen``, with its run's replay buffer when ``replay``."""

    source: str = ""
    deepen: bool = False
    replay: bool = False

    @classmethod
    def of(cls, config: Config) -> "StartingPoint":
        """The config's own: ``train.init_from``, ``train.init_deepen``, ``train.init_replay``."""
        t = config.train
        return cls(t.init_from, t.init_deepen, t.init_replay)


@dataclass(frozen=True)
class Bound:
    """A bound of a run that its counters reached: ``key`` (one of ``RESUMABLE_KEYS``) and its value."""

    key: str
    value: float

    _UNITS = {"run.max_steps": "steps", "run.max_positions": "positions", "run.max_minutes": "minutes",
              "run.max_cpu_minutes": "CPU minutes"}

    def describe(self) -> str:
        return f"{self.value:g} {self._UNITS[self.key]}"

    def extended(self) -> str:
        """``KEY=VALUE`` that doubles it: what to add to a resume to go on training."""
        value = self.value * 2
        return f"{self.key}={int(value) if float(value).is_integer() else value:g}"


def bound_reached(run: RunConfig, c: "_Counters") -> Optional[Bound]:
    """The first of ``run``'s bounds that the counters ``c`` reached, None for none."""
    if run.max_steps is not None and c.step >= run.max_steps:
        return Bound("run.max_steps", run.max_steps)
    if run.max_positions is not None and c.positions >= run.max_positions:
        return Bound("run.max_positions", run.max_positions)
    if run.max_minutes is not None and c.seconds >= run.max_minutes * 60:
        return Bound("run.max_minutes", run.max_minutes)
    if run.max_cpu_minutes is not None and c.cpu_seconds >= run.max_cpu_minutes * 60:
        return Bound("run.max_cpu_minutes", run.max_cpu_minutes)
    return None


@dataclass
class _Counters:
    """Running totals of a run (saved in every checkpoint's ``counters``)."""

    step: int = 0
    positions: int = 0
    games: int = 0
    samples: int = 0
    seconds: float = 0.0  # training time over all sessions of the run (resumes add up)
    cpu_seconds: float = 0.0  # CPU time of all the run's processes over all sessions (cputime.py)

    def as_dict(self) -> dict[str, float]:
        return {"positions": self.positions, "games": self.games, "samples": self.samples, "seconds": self.seconds,
                "cpu_seconds": self.cpu_seconds}

    @classmethod
    def of(cls, checkpoint: Checkpoint) -> "_Counters":
        """The totals a checkpoint saved (``as_dict``), at its step."""
        c = checkpoint.counters
        return cls(step=checkpoint.step, positions=int(c.get("positions", 0)), games=int(c.get("games", 0)),
                   samples=int(c.get("samples", 0)), seconds=float(c.get("seconds", 0.0)),
                   cpu_seconds=float(c.get("cpu_seconds", 0.0)))


@dataclass(frozen=True)
class _SessionClock:
    """When a session began and the run's time totals before it (a resume adds its own to them)."""

    started: float  # time.perf_counter() at the session's start
    seconds_before: float
    cpu_seconds_before: float


@dataclass(slots=True)  # slots: a misspelt or new field fails at once instead of appearing on the fly
class RunState:
    """What one session of a run changes as it goes, in one record (``counters`` is what every
    checkpoint saves of it; the learner, the replay buffer and the RNG keep their own state)."""

    counters: _Counters = field(default_factory=_Counters)
    window: SelfPlayWindow = field(default_factory=SelfPlayWindow)  # self-play since the last TensorBoard point
    komi_estimates: dict[RuleSet, int] = field(default_factory=dict)  # self-play's fair komi per rule set
    nodes: set[str] = field(default_factory=set)  # Ray nodes that self-play ran on
    last_losses: Optional[Losses] = None  # the last learner step's (the progress line)
    last_board_step: Optional[int] = None  # the step of the last self-play board drawn to TensorBoard
    bound: Optional[Bound] = None  # the bound reached, once reached


class TrainingRun:
    """One session of a run (a fresh start or a resume), driven by ``run()``: the loop over its
    parts, the state it changes (``RunState``), the checkpoints (``Checkpointer``) and the in-loop
    matches (``InLoopSchedule``)."""

    # Every attribute of a session is declared here: none is made on the fly (an assignment to
    # another name fails), so this list is the whole of what a session holds.
    __slots__ = ("config", "run_dir", "progress", "rule_sets", "rng", "actor_seeds", "cpus", "learner", "replay",
                 "state", "cpu", "checkpoints", "log", "evaluations", "stage", "start_from")

    def __init__(self, config: Config, run_dir: Path, resume: bool, progress: Progress,
                 evaluate: Optional[InLoopEvaluation] = None, stage: Optional[StageStart] = None,
                 start_from: Optional[StartingPoint] = None) -> None:
        """``stage``: the stage of a staged run this session trains in (``train/stages.py``); a stage
        that begins now (not ``resume``) carries on the run's counters from its start.
        ``start_from``: the network (and buffer) a new run or stage starts from; default the config's
        ``train.init_from`` (a later stage's is the checkpoint the stage before ended with: its
        config keeps the run's own origin, which CPU-hours count from)."""
        self.config = config
        self.start_from = start_from or StartingPoint.of(config)
        self.run_dir = run_dir
        self.progress = progress
        self.stage = stage
        self.rule_sets = config.rule_sets()
        # Each stage draws its own streams (the same seed gives the same run, stage by stage).
        entropy = config.seed if stage is None or stage.index == 0 else [config.seed, stage.index]
        learner_seed, replay_seed, actor_seed, eval_seed = np.random.SeedSequence(entropy).spawn(4)
        self.rng = np.random.default_rng(replay_seed)
        self.actor_seeds = actor_seed
        self.cpus = float(config.run.num_cpus or os.cpu_count() or 1)
        generator = torch.Generator().manual_seed(int(learner_seed.generate_state(1)[0]))
        # A resume takes its checkpoint's network; a new run (or one killed before its first
        # checkpoint) starts from train.init_from's, else from a random one.
        restoring = resume and bool(list_checkpoints(run_dir))
        # The buffer's file is found before the network is loaded, so a wrong source fails first.
        replay_source = self._replay_source() if not restoring and self.start_from.replay else None
        start = None if restoring or not self.start_from.source else self._initial_model(generator)
        self.learner = Learner(config.net, config.train, generator, model=start)
        self.replay = ReplayBuffer(config.replay, self.rule_sets)
        if replay_source is not None:
            self._initial_replay(replay_source)
        self.state = RunState()
        if stage is not None and not restoring:  # a stage that begins: the run goes on from its start
            self.state.counters = _Counters(step=stage.step, positions=stage.positions, games=stage.games,
                                            samples=stage.samples, seconds=stage.seconds,
                                            cpu_seconds=stage.cpu_seconds)
        self.cpu = CpuAccount(self.cpus)  # anew when the loop starts: this session's CPU time
        self.checkpoints = Checkpointer(run_dir, config.run)
        if restoring:
            self._restore()
        beginning = not resume and (stage is None or stage.index == 0)
        self.log = RunLog(run_dir, self.state.counters.step, config if beginning else None)
        if stage is not None and not restoring:
            self.log.stage(self.state.counters.step, stage.index, stage.label(), config)
        self.evaluations = InLoopSchedule(evaluate, config, eval_seed, progress, self.log)

    # -- resume ----------------------------------------------------------------------------------

    def _initial_model(self, generator: torch.Generator) -> CatenaNet:
        """The network ``train.init_from`` names (a checkpoint, a run folder or a bot file, of the
        config's architecture, or deepened to it with ``train.init_deepen``), for a new learner (a
        fresh optimiser, and a weight average that starts at it: ``Learner`` copies its model's state)."""
        source, deepen = self.start_from.source, self.start_from.deepen
        start = weights_for(source, self.config.net, "train.init_from", deepen=deepen, generator=generator)
        model = model_from_weights(self.config.net, start.weights)
        grown = start.deepened_from is not None
        print(f"starting from the network of {source}"
              + (f", deepened from {start.deepened_from} to {self.config.net.blocks} blocks" if grown else ""),
              file=sys.stderr)
        return model

    def _replay_source(self) -> Path:
        """The replay file of the run ``train.init_from`` names (a run folder, or a checkpoint in
        its ``ckpt/``); ``RunError`` when there is none."""
        source = Path(self.start_from.source)
        if source.is_dir():
            folder = source
        elif source.parent.name == CHECKPOINT_DIR:
            folder = source.parent.parent
        else:
            raise RunError(f"train.init_replay: train.init_from {str(source)!r} is not a run folder or one of its "
                           f"checkpoints, so it has no replay buffer (a bot file keeps none)")
        path = folder / REPLAY_FILE
        if not path.exists():
            raise RunError(f"train.init_replay: {folder} has no {REPLAY_FILE} to start from")
        return path

    def _initial_replay(self, path: Path) -> None:
        """Fill the buffer from ``path``; ``RunError`` when it does not load."""
        try:
            self.replay.load(path)
        except ReplayError as exc:
            raise RunError(f"train.init_replay: {exc}") from None
        print(f"starting from the replay buffer of {path.parent}: {len(self.replay):,} positions", file=sys.stderr)

    def _restore(self) -> None:
        """Load the newest intact checkpoint (the caller saw that the folder has one)."""
        checkpoint = self.checkpoints.restore()
        if checkpoint is None:
            found = list_checkpoints(self.run_dir)
            raise RunError(f"cannot resume {self.run_dir}: none of its {len(found)} checkpoint(s) is intact")
        self.learner.load_state_dict(checkpoint.extra["learner"])
        self.state.counters = _Counters.of(checkpoint)
        self.rng.bit_generator.state = checkpoint.extra["rng"]
        # "fair_komi": the checkpoint's key for self-play's estimates (a file format: kept)
        self.state.komi_estimates = {RuleSet.from_key(key): int(komi)
                                     for key, komi in checkpoint.extra.get("fair_komi", {}).items()}
        if not self.checkpoints.load_replay(self.replay):
            self.replay = ReplayBuffer(self.config.replay, self.rule_sets)  # what a failed load left: dropped
        previous, ours = self.checkpoints.previous_weights, self.learner.weights()
        if previous is not None and {k: v.shape for k, v in previous.items()} != {k: v.shape for k, v in ours.items()}:
            self.checkpoints.previous_weights = None  # the stage before's smaller network: not this one's "previous"

    # -- the loop --------------------------------------------------------------------------------

    def run(self) -> RunSummary:
        start_ray(self.config.run.address, self.config.run.num_cpus)
        counters = self.state.counters
        clock = _SessionClock(time.perf_counter(), counters.seconds, counters.cpu_seconds)
        self.cpu = CpuAccount(self.cpus)
        stop_reason = "interrupted"
        pool = None
        previous_sigterm = signal.signal(signal.SIGTERM, _raise_keyboard_interrupt)
        try:
            pool = SelfPlayPool(self.config, self.actor_seeds)
            stop_reason = self._loop(pool, clock)
        except KeyboardInterrupt:
            stop_reason = "interrupted (Ctrl-C)"
        except RayNodeLost as exc:  # the learner's state is intact: checkpoint it below
            stop_reason = f"lost: {exc}"
        except TrainingDiverged as exc:
            stop_reason = f"stopped: {exc}; the last good checkpoint is kept"
            self.learner.load_state_dict(self._last_good_state())
        finally:
            signal.signal(signal.SIGTERM, previous_sigterm)
            restarts, cpu = self._end_session(stop_reason, pool, clock)
        return RunSummary(run_dir=self.run_dir, checkpoint=self.checkpoints.last, step=counters.step,
                          positions=counters.positions, games=counters.games,
                          minutes=counters.seconds / 60, stop_reason=stop_reason, last_eval=self.evaluations.last,
                          actor_restarts=restarts, actor_nodes=len(self.state.nodes),
                          cpu=cpu, evaluations_skipped=self.evaluations.skipped, bound=self.state.bound,
                          evaluations=self.evaluations.recorded,
                          stage=self.stage, cpu_hours=counters.cpu_seconds / 3600)

    def _loop(self, pool: SelfPlayPool, clock: _SessionClock) -> str:
        """Collect self-play, train and evaluate until a bound is reached; returns why it stopped."""
        config, counters = self.config, self.state.counters
        pool.publish(self._selfplay_weights(), counters.step)
        self.evaluations.open()
        self.progress.start(counters.step, config.run.bounds(), counters.seconds, self._done(counters))
        while True:
            self._count_time(clock)
            stop_reason = self._bound_reached()
            if stop_reason:
                return stop_reason
            trainable = self.replay.steps_allowed(config.train.batch_size)
            self._collect(pool.poll(timeout=0.0 if trainable else 0.25))
            for _ in range(min(trainable, 4, self._steps_left())):
                self._train_step(pool)
            self.evaluations.poll(self.cpu)
            self.progress.update(counters.step, self._progress_fields(pool), self._done(counters))

    def _count_time(self, clock: _SessionClock) -> None:
        """The run's wall-clock and CPU time totals, this session's so far added."""
        counters = self.state.counters
        counters.seconds = clock.seconds_before + time.perf_counter() - clock.started
        counters.cpu_seconds = clock.cpu_seconds_before + self.cpu.report().used

    def _end_session(self, stop_reason: str, pool: Optional[SelfPlayPool],
                     clock: _SessionClock) -> tuple[int, CpuReport]:
        """The last checkpoint (not after a diverged loss), the final in-loop matches (at a bound),
        then everything closed and Ray stopped; returns the actors' restarts and the session's CPU time."""
        self._count_time(clock)
        if not stop_reason.startswith("stopped"):
            self._checkpoint()
        if stop_reason.startswith("bound"):
            self.evaluations.finish(self.state.counters.step, self.cpu, lambda: self._start_eval(final=True))
        self.progress.close()
        restarts = pool.restarts if pool is not None else 0
        cpu = self.cpu.report(ray_processes=True)  # while Ray's processes still run
        self.evaluations.close()
        if pool is not None:
            pool.shutdown()
        stop_ray()
        self.log.close()
        return restarts, cpu

    def _run_progress(self) -> float:
        """How far the run (a staged run: its stage) is toward the first bound it will reach, 0..1
        (0 without bounds): what ``train.lr_decay_over_run`` decays over."""
        c, s = self.state.counters, self.stage or StageStart(0, 1, "")
        done = {"steps": c.step - s.step, "positions": c.positions - s.positions,
                "minutes": (c.seconds - s.seconds) / 60, "cpu_minutes": (c.cpu_seconds - s.cpu_seconds) / 60}
        began = {"steps": s.step, "positions": s.positions, "minutes": s.seconds / 60, "cpu_minutes": s.cpu_seconds / 60}
        return min(1.0, max((done[k] / max(bound - began[k], 1e-9) for k, bound in self.config.run.bounds().items()),
                            default=0.0))

    @staticmethod
    def _done(counters) -> dict[str, float]:
        """The run's progress toward its positions and CPU bounds (the progress line's ETA)."""
        return {"positions": counters.positions, "cpu_minutes": counters.cpu_seconds / 60}

    def _steps_left(self) -> int:
        bound = self.config.run.max_steps
        return bound - self.state.counters.step if bound is not None else 1 << 30

    def _bound_reached(self) -> str:
        bound = bound_reached(self.config.run, self.state.counters)
        if bound is None:
            return ""
        self.state.bound = bound
        return f"bound reached: {bound.describe()}"

    def _collect(self, chunks) -> None:
        state = self.state
        counters = state.counters
        for chunk in chunks:
            state.nodes.add(chunk.node)
            for trajectory in chunk.trajectories:
                self.replay.add(trajectory)
                counters.positions += trajectory.num_positions
                state.window.staleness_sum += float((counters.step - trajectory.version).sum())
                state.window.staleness_count += trajectory.num_positions
            counters.games += chunk.stats.games
            state.window.stats = state.window.stats + chunk.stats
            self.cpu.add_actor(chunk.actor, chunk.process_cpu_seconds, chunk.stats.inference_cpu_seconds,
                               chunk.stats.plies)
            state.komi_estimates.update(chunk.komi_estimates)
            if chunk.trajectories and self._board_due():
                self.log.board(counters.step, chunk.trajectories[0])

    def _board_due(self) -> bool:
        """True once every ``run.sample_game_interval_steps`` learner steps (0: never): time to
        draw a self-play board."""
        interval, step = self.config.run.sample_game_interval_steps, self.state.counters.step
        if interval <= 0:
            return False
        if self.state.last_board_step is None or step - self.state.last_board_step >= interval:
            self.state.last_board_step = step
            return True
        return False

    def _train_step(self, pool) -> None:
        config, counters = self.config, self.state.counters
        cpu_started = time.process_time()
        batch = self.replay.sample(config.train.batch_size, self.rng)
        losses = self.learner.step(batch, self._run_progress())
        self.cpu.learner += time.process_time() - cpu_started
        self.replay.record_trained(config.train.batch_size)
        counters.step += 1
        counters.samples += config.train.batch_size
        step = counters.step
        self.state.last_losses = losses
        if step % config.run.publish_interval_steps == 0:
            pool.publish(self._selfplay_weights(), step)
        if step % 10 == 0:
            self.log.losses(step, losses, self.learner.learning_rate(), self.learner.weight_penalty(),
                            self.learner.last_grad_norm)
        if step % config.run.checkpoint_interval == 0:
            self._checkpoint()
        if self.evaluations.due(step):
            self._start_eval()
        if step % 50 == 0:
            self._log_selfplay()

    def _selfplay_weights(self) -> dict:
        """What the actors play: the average, unless ``train.ema_selfplay`` is false (then the raw weights)."""
        return self.learner.averaged_weights() if self.config.train.ema_selfplay else self.learner.weights()

    def _start_eval(self, final: bool = False) -> None:
        """The in-loop matches of the averaged network at this step (``InLoopSchedule.start``)."""
        self.evaluations.start(self.state.counters.step, self.cpu, self.learner.averaged_weights,
                               self.checkpoints.previous_weights, self.state.komi_estimates, final=final)

    # -- checkpoints -----------------------------------------------------------------------------

    def _checkpoint(self) -> None:
        """A checkpoint of this step, with what a resume needs (``Checkpointer.save``)."""
        state = self.state
        checkpoint = Checkpoint(
            step=state.counters.step,
            config=self.config,
            model=self.learner.averaged_weights(),  # the average when train.ema_decay > 0
            optimizer=None,
            counters={**state.counters.as_dict(), **(self.stage.as_counters() if self.stage else {})},
            extra={"learner": self.learner.state_dict(), "rng": self.rng.bit_generator.state,
                   "fair_komi": {rules.key: komi for rules, komi in state.komi_estimates.items()}},
        )
        self.checkpoints.save(checkpoint, self.replay)

    def _last_good_state(self) -> dict:
        state = self.checkpoints.last_learner_state()
        if state is None:
            raise RunError("the loss diverged before the first checkpoint; lower train.learning_rate")
        return state

    # -- TensorBoard and the progress line -------------------------------------------------------

    def _log_selfplay(self) -> None:
        state = self.state
        self.log.selfplay(state.counters.step, state.window, len(self.replay), self.replay.window,
                          state.counters.positions, state.komi_estimates, self.cpu.report(ray_processes=True),
                          self.evaluations.skipped)
        state.window = SelfPlayWindow()

    def _progress_fields(self, pool) -> dict[str, str]:
        counters = self.state.counters
        fields = {"stage": self.stage.label()} if self.stage is not None else {}
        fields.update({"pos": f"{counters.positions:,}", "games": f"{counters.games:,}"})
        if self.state.last_losses is not None:
            fields["loss"] = f"{float(self.state.last_losses.total):.3f}"
        if self.evaluations.last is not None:
            fields["eval"] = self.evaluations.last.short()
        if pool.restarts:
            fields["restarts"] = str(pool.restarts)
        return fields


def _raise_keyboard_interrupt(signum, frame) -> None:
    raise KeyboardInterrupt


def learner_threads(config: Config) -> int:
    """Torch threads for the process that runs the learner: the CPUs the actors leave free, one at
    least (torch's default of all cores fights the actors for them: 4-5x slower measured on 2 cores)."""
    run = config.run
    free = (run.num_cpus or os.cpu_count() or 1) - run.num_actors * run.cpus_per_actor
    return max(1, int(free))


def train(config: Config, default_name: str, run_name: Optional[str] = None, resume: bool = False,
          progress: Optional[Progress] = None, evaluate: Optional[InLoopEvaluation] = None) -> RunSummary:
    """Run (or resume) training; returns how it ended. ``evaluate``: the in-loop matches
    (``eval.inloop.evaluate_in_loop``), None for none."""
    run_dir, config = prepare_run(config, default_name, run_name, resume)  # takes the run folder's lock
    progress = progress or Progress(sys.stdout, config.run.log_interval_seconds)
    try:
        if config.stages:
            return _run_stages(config, run_dir, resume, progress, evaluate)
        return TrainingRun(config, run_dir, resume, progress, evaluate).run()
    finally:
        release_folder(run_dir, RUN_LOCK_FILE)  # the lock prepare_run took: handed back


def _run_stages(recipe: Config, run_dir: Path, resume: bool, progress: Progress,
                evaluate: Optional[InLoopEvaluation]) -> RunSummary:
    """Train a staged run's stages in order, each in its own session (``train/stages.py``), from the
    one its newest checkpoint was written in; the summary of the last session. ``NothingToDo`` when
    the run already ended its last stage (or reached a bound of the whole run)."""
    configs = stage_configs(recipe)
    checkpoint, _ = newest_intact_checkpoint(run_dir) if resume else (None, [])
    start = StageStart.first(recipe) if checkpoint is None else StageStart.of_counters(recipe, checkpoint.counters)
    inside = checkpoint is not None  # resume inside the stage the newest checkpoint was written in
    init_from: Optional[Path] = None
    while True:
        if inside:
            counters = _Counters.of(checkpoint)
            whole = bound_reached(recipe.run, counters)
            if whole is not None:
                raise NothingToDo(run_dir, checkpoint.step, whole)
            if bound_reached(stage_bound(configs[start.index], start), counters) is not None:  # it ended there
                if start.index == len(configs) - 1:
                    raise NothingToDo(run_dir, checkpoint.step, None, len(configs))
                start, inside, init_from = StageStart.next_after(recipe, start, checkpoint.step, checkpoint.counters), False, checkpoint.path
                continue
        config = session_config(recipe, configs[start.index], start)
        start_from = None
        if init_from is not None:  # deepened only where the stage adds blocks (stage_configs allows nothing else)
            start_from = StartingPoint(str(init_from), deepen=True, replay=keeps_replay(recipe, configs, start.index))
        if not inside:
            progress.note(f"stage {start.label()}: {recipe.stages[start.index].describe()}"
                          + (f", from step {start.step}" if start.index else ""))
        summary = TrainingRun(config, run_dir, inside, progress, evaluate, stage=start, start_from=start_from).run()
        checkpoint, _ = newest_intact_checkpoint(run_dir) if summary.bound is not None else (None, [])
        stage_done = (checkpoint is not None
                      and bound_reached(stage_bound(configs[start.index], start), _Counters.of(checkpoint)) is not None)
        if not stage_done or start.index == len(configs) - 1:
            return dataclasses.replace(summary, stages_done=stage_done)
        start, inside, init_from = StageStart.next_after(recipe, start, checkpoint.step, checkpoint.counters), False, checkpoint.path
