"""Self-play on Ray: the only module of catena-zero that imports Ray (DESIGN.md sec. 5).

Topology: the driver process holds the learner and the replay buffer; ``num_actors`` self-play
actors each own a ``SelfPlayer`` (a vectorised batch of games, a batched search and a copy of the
network). The driver never blocks on an actor and an actor never waits for the learner:
- weights are published once per version with ``ray.put``; every actor gets the reference
  through a queued ``set_weights`` call, which Ray runs between two of its ``play`` chunks, so an
  actor picks up the newest weights between moves without anyone waiting;
- each actor always has ``run.chunks_in_flight`` (2) ``play(plies)`` chunks queued: Ray runs an
  actor's calls one after another, so while the driver is busy (up to 4 learner steps between two
  polls) the actor already plays the next chunk instead of waiting to be given it.
  ``SelfPlayPool.poll`` collects the finished chunks with ``ray.wait(timeout=...)`` and queues one
  more for each at once;
- an actor that dies (its chunk raises ``RayActorError``, or ``OutOfMemoryError`` when Ray's memory
  monitor killed it because the machine ran short of memory) is replaced by a fresh actor with the
  newest weights and counted; the other actors go on.
- an actor whose construction fails ``STARTUP_FAILURES`` times in a row (a ``net.device`` that
  its node does not have, say) is the run's error, in one line, not an endless restart.
Runs on a local embedded Ray by default (``ray.init(num_cpus=..., include_dashboard=False)``) or
joins a cluster with ``address``; actors are spread over the cluster's nodes by their resources
(``run.cpus_per_actor``, ``run.gpus_per_actor``).

Security: Ray executes whatever code a client sends it, and its servers (GCS, raylet, workers,
the runtime-env agent) listen on every interface of the machine: Ray 2.60 has no setting that
binds them to loopback (``_node_ip_address`` changes the address it advertises, and the runtime-env
agent's socket, not the others).
Two locks close them. A local Ray starts inside a network namespace of its own (``netns.py``:
root, or root in a user namespace, may make one), whose only interface is its loopback, so no
other machine (nor another namespace of this one) can reach a port of the run. And Ray's token
authentication (Ray >= 2.52): ``RAY_AUTH_MODE=token`` is set before Ray is imported, so every gRPC
and HTTP entry point of the run's Ray processes refuses a client without the token, which Ray
keeps in ``~/.ray/auth_token`` (made 0600 in a 0700 folder before Ray starts, which would make it
0644: ``private_token_file``) or takes from ``RAY_AUTH_TOKEN``; where no namespace may be made,
the token is the one lock (one line says so).
A local run refuses to start with authentication turned off; joining a cluster needs the
cluster's token and leaves the network as it is (docs/TRAINING.md).
"""

from __future__ import annotations

import atexit
import logging
import os
import re
import secrets
import stat
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Optional

import numpy as np

# Before Ray is imported: Ray reads its authentication mode once, at import (module docstring).
os.environ.setdefault("RAY_AUTH_MODE", "token")

import ray  # noqa: E402
from ray.exceptions import OutOfMemoryError, RayActorError, WorkerCrashedError  # noqa: E402

from ..config import Config, config_from_dict, config_to_dict
from ..errors import UserError
from ..game.options import RuleSet
from . import reaper
from .netns import LOOPBACK_ADDRESS, enter_private_network, leave_private_network
from .play import SelfPlayer, SelfPlayStats
from .types import Trajectory


class RayStartFailed(UserError):
    """The local Ray did not start (its own error, one line)."""


class RayNodeLost(UserError):
    """A process the local Ray cannot live without (its raylet or its GCS) died under the run
    (killed, or by the out-of-memory killer)."""


@dataclass
class _LocalRay:
    """The processes of the local Ray this driver started (Linux: read from ``/proc``)."""

    vital: dict[str, int]  # the processes Ray cannot live without, by name: "raylet" (the node's
    # manager and object store) and "GCS" (the cluster's state: the driver's core worker ends the
    # process 60 s after losing it) -> pid
    reaper: subprocess.Popen  # ends the Ray's processes when the driver ends (reaper.py)
    marker: str  # "NAME=VALUE" in the environment of every process of this Ray (reaper.py)

    def dead(self) -> Optional[str]:
        """The first vital process found dead ("Ray's raylet (pid N)"), or None."""
        for name, pid in self.vital.items():
            if reaper.start_time(pid) is None:
                return f"Ray's {name} (pid {pid})"
        return None

    def list_processes(self) -> None:
        """Tell the reaper every process now running below the driver (Ray's workers start late)."""
        lines = "".join(f"{pid} {started}\n" for pid in reaper.descendants(os.getpid())
                        if pid != self.reaper.pid and (started := reaper.start_time(pid)) is not None)
        try:
            self.reaper.stdin.write(lines.encode())
            self.reaper.stdin.flush()
        except OSError:
            pass  # the reaper is gone: nothing more to hand it

    def end(self) -> None:
        """Close the reaper's stdin: it kills whatever of the listed processes still runs."""
        self.list_processes()
        try:
            self.reaper.stdin.close()
        except OSError:
            pass
        try:
            self.reaper.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.reaper.kill()


_local_ray: Optional[_LocalRay] = None
_abandoned = False  # a local Ray died under this process and was left without ray.shutdown


def _start_reaper() -> Optional[_LocalRay]:
    """Before a local ``ray.init``: start the reaper (None off Linux). It is told the marker that
    ``start_ray`` puts in the environment Ray's processes inherit, so that a driver killed while
    Ray starts, before it could list any of them, leaves none behind (reaper.py)."""
    if not os.path.isdir("/proc/self"):
        return None
    marker = f"{reaper.MARKER}={os.getpid()}-{secrets.token_hex(8)}"
    process = subprocess.Popen([sys.executable, reaper.__file__, marker], stdin=subprocess.PIPE,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
                               close_fds=True)
    return _LocalRay(vital={}, reaper=process, marker=marker)


def _find_vital(local: _LocalRay) -> None:
    """After a local ``ray.init``: find its raylet and GCS (left unwatched unless each is found
    once) and list Ray's processes to the reaper."""
    ours = reaper.descendants(os.getpid())
    vital = {name: [pid for pid in ours if reaper.command_name(pid) == command]
             for name, command in (("raylet", "raylet"), ("GCS", "gcs_server"))}
    if all(len(pids) == 1 for pids in vital.values()):
        local.vital = {name: pids[0] for name, pids in vital.items()}
    local.list_processes()


def _dead_node() -> Optional[str]:
    """The local Ray's first vital process found dead ("Ray's raylet (pid N)"), or None (also when
    the run joined a cluster, or is off Linux)."""
    return _local_ray.dead() if _local_ray is not None else None


def check_node() -> None:
    """Raise ``RayNodeLost`` if the local Ray's raylet (or GCS) has died. Called before every Ray call that
    reaches the raylet (``ray.put``, creating an actor): Ray's core worker ends the whole driver
    process on such a call once the raylet is gone, before any Python code could write a
    checkpoint or say what happened; calls that go to an actor directly, ``ray.wait``, ``ray.get``
    and ``ray.shutdown`` go on working (measured with Ray 2.60)."""
    dead = _dead_node()
    if dead is not None:
        raise RayNodeLost(f"{dead} died under the run (killed, or by the out-of-memory killer)")


def _quiet_error_listener(worker: Any, threads_stopped: Any) -> None:
    """Stands in for Ray's driver thread that prints every error a Ray process publishes (a
    raylet's death: ~25 coloured lines of its log, a dead actor's traceback): the run says what
    it met in lines of its own (``RayNodeLost``, actor restarts, ``ActorStartError``)."""


def _narrow(path: Path, mode: int) -> None:
    """Take from ``path`` every permission bit that ``mode`` lacks (the group's and others')."""
    current = stat.S_IMODE(os.stat(path).st_mode)
    if current & ~mode:
        os.chmod(path, current & mode)


def private_token_file(create: bool) -> Optional[Path]:
    """Make the file Ray reads its token from readable by this user alone, made first if
    ``create`` (a local Ray's start) and missing; returns it (None when the token is in
    ``RAY_AUTH_TOKEN``, or there is no file and none was to be made).

    Ray 2.60 writes a new ``~/.ray/auth_token`` with ``mkdir`` and ``open``, 0755 and 0644 under
    the usual umask: whoever may enter the home folder could read the token and run code in the
    run's Ray. So the file is made here first when missing, its token written to a 0600 file in a
    0700 folder and linked into place (never over a token another run has just made); Ray then
    reads it and writes none. An existing file, and ``~/.ray``, lose their group and other bits."""
    if os.environ.get("RAY_AUTH_TOKEN"):
        return None
    named = os.environ.get("RAY_AUTH_TOKEN_PATH")
    path = Path(named) if named else Path.home() / ".ray" / "auth_token"
    try:
        if not named:
            path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            _narrow(path.parent, 0o700)
        if not path.exists():
            if named or not create:
                return None  # Ray says that the token file is missing
            fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=".auth_token.")  # 0600
            try:
                with os.fdopen(fd, "w") as f:
                    f.write(secrets.token_hex(32))  # what Ray's own generator makes: 256 random bits
                    f.flush()
                    os.fsync(f.fileno())
                try:
                    os.link(temporary, path)
                except FileExistsError:
                    pass  # another run made one meanwhile: both use it
            finally:
                os.unlink(temporary)
        _narrow(path, 0o700)
    except OSError as exc:
        raise RayStartFailed(f"cannot keep Ray's token file {path} private: {exc.strerror or exc}") from None
    return path


def start_ray(address: Optional[str], num_cpus: Optional[int]) -> None:
    """Join the cluster at ``address`` ("auto", "HOST:PORT"), or start a local embedded Ray."""
    if _abandoned:
        raise RayNodeLost("this process's local Ray died earlier and was left as it was: start a new process")
    if ray.is_initialized():
        return
    if hasattr(ray._private.worker, "listen_error_messages"):  # Ray's own name for that thread's function
        ray._private.worker.listen_error_messages = _quiet_error_listener
    quiet = dict(include_dashboard=False, log_to_driver=False, logging_level=logging.ERROR, configure_logging=True)
    if address:
        _join_ray(address, quiet)
    else:
        _start_local_ray(num_cpus, quiet)


def _join_ray(address: str, quiet: dict) -> None:
    """Connect to the running cluster at ``address``; ``ConnectionError`` in one line if it cannot."""
    private_token_file(create=False)
    try:
        ray.init(address=address, **quiet)
    except (ConnectionError, RuntimeError, ValueError) as exc:
        raise ConnectionError(f"cannot join the Ray cluster at {address!r}: {' '.join(str(exc).split())[:200]}") from None


def _start_local_ray(num_cpus: Optional[int], quiet: dict) -> None:
    """Start a Ray of this machine's own, guarded by a private token and, where allowed, a private
    network; on a failed start nothing it began is left running."""
    global _local_ray
    _guard_local_ray()
    # Ray starts its workers at niceness 15, so on a busy machine the self-play actors (the
    # main workload of a run) would lose every contest for a core; a local run's actors get
    # the driver's priority instead. A cluster's nodes keep their own settings.
    os.environ.setdefault("RAY_worker_niceness", "0")
    # A start on a starved machine makes Ray's process launcher log several ERROR lines about
    # its dashboard (which a local run does not use) before ray.init fails; the failure is said
    # in one line below, so those lines are muted while Ray starts.
    launcher = logging.getLogger("ray._private.services")
    level = launcher.level
    launcher.setLevel(logging.CRITICAL)
    local = None
    try:
        # The reaper first, and the marker in the environment every process Ray starts
        # inherits: a kill while Ray starts leaves nothing behind (reaper.py).
        local = _start_reaper()
        if local is not None:
            name, _, value = local.marker.partition("=")
            os.environ[name] = value
        ray.init(num_cpus=num_cpus or os.cpu_count(), _node_ip_address=LOOPBACK_ADDRESS, **quiet)
        if local is not None:
            _find_vital(local)
        _local_ray = local
    except BaseException as exc:
        _undo_local_start(local)
        if isinstance(exc, Exception) and not isinstance(exc, UserError):
            # Ray says a start that failed with a bare Exception ("The current node timed out
            # during startup": its raylet or GCS too slow on a busy machine). Not a bug here.
            raise RayStartFailed(f"the local Ray did not start: {' '.join(str(exc).split())[:240]} "
                                 f"(a machine short of CPU or memory can cause this; try again)") from None
        raise
    finally:
        os.environ.pop(reaper.MARKER, None)  # the driver's later children are not Ray's
        launcher.setLevel(level)


def _guard_local_ray() -> None:
    """Keep other users and machines out of the local Ray about to start: token authentication
    required, a token file only this user reads, and a network namespace of its own where allowed."""
    mode = os.environ.get("RAY_AUTH_MODE", "")
    if mode.lower() != "token":
        raise ConnectionError(f"RAY_AUTH_MODE is {mode!r}: a local run starts Ray only with token authentication, "
                              "which keeps other users and machines from running code in it (unset RAY_AUTH_MODE)")
    private_token_file(create=True)  # before Ray could write one that others may read
    # Ray's servers bind every interface and no setting binds them to loopback: a local Ray
    # starts inside a network namespace of its own, where "every interface" is its loopback
    # (netns.py). Where that is not allowed, the token above is what keeps others out, and the
    # loopback address Ray is given still keeps the one server it binds to the node's address
    # (its runtime-env agent) on loopback, and every address Ray advertises (measured, Ray 2.60).
    why_not = enter_private_network()
    if why_not is not None:
        print(f"note: the ports of Ray's GCS, raylet and workers listen on every interface of this machine, "
              f"guarded by Ray's token only (no private network: {why_not})", file=sys.stderr)


def _undo_local_start(local: Optional[_LocalRay]) -> None:
    """End what a failed local start left: Ray, the processes the reaper saw, the private network."""
    if ray.is_initialized():
        ray.shutdown()
    if local is not None:
        local.end()
    leave_private_network()


def stop_ray() -> None:
    """Shut Ray down (a local instance's processes end with it, the reaper ends what is left) and
    return to the machine's network."""
    global _local_ray
    lost = False
    if _local_ray is not None:
        _local_ray.list_processes()  # the actors' workers too, before Ray forgets them
        lost = _local_ray.dead() is not None
    if lost:
        _abandon_ray()
    elif ray.is_initialized():
        ray.shutdown()
    if _local_ray is not None:
        _local_ray.end()
        _local_ray = None
    leave_private_network()


# The exit status of a process whose local Ray died under it (commands/train.py returns it too).
RAY_LOST_STATUS = 1


def _abandon_ray() -> None:
    """Leave a Ray whose raylet died without shutting it down: ``ray.shutdown`` (and Ray's own
    exit hook, and the core worker's teardown at exit) says goodbye to the raylet, and the core
    worker answers a dead raylet by ending the process at once, or by a segmentation fault at
    exit (both measured with Ray 2.60). The reaper ends Ray's processes instead, and this process
    leaves through ``os._exit`` once everything Python-side has run: the exit hook registered
    here runs before Ray's (registered at import; exit hooks run last-registered first), after
    the standard streams are flushed."""
    global _abandoned
    _abandoned = True

    def leave() -> None:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (OSError, ValueError):
                pass
        os._exit(RAY_LOST_STATUS)

    atexit.register(leave)


# Constructions of one actor slot that may fail in a row before the run stops (a transient failure,
# a node's out-of-memory kill, is retried; a wrong device or a broken install repeats).
STARTUP_FAILURES = 3


class ActorStartError(UserError):
    """A self-play actor cannot be built (the message is the actor's own one-line error)."""


@dataclass(frozen=True)
class Chunk:
    """What one ``play`` call of an actor returns to the driver."""

    actor: int  # actor slot
    node: str  # Ray node id the actor ran on
    trajectories: list[Trajectory]
    stats: SelfPlayStats
    version: int  # weight version the chunk ended with
    komi_estimates: dict[RuleSet, int]  # the actor's fair-komi estimate per rule set
    process_cpu_seconds: float  # the actor process's CPU time so far (train/cputime.py)


class _SelfPlayActor:
    """A Ray actor around a ``SelfPlayer`` (made remote with per-actor resources in ``SelfPlayPool``)."""

    def __init__(self, config: dict, actor: int, seed: int, threads: float) -> None:
        from ..net.device import set_torch_threads

        set_torch_threads(threads)  # this actor's CPU share (run.cpus_per_actor), before the network
        self.actor = actor
        self.node = ray.get_runtime_context().get_node_id()
        self.player = SelfPlayer(config_from_dict(config), np.random.default_rng(seed))

    def set_weights(self, weights: dict, version: int) -> int:
        self.player.set_weights(weights, version)
        return version

    def play(self, plies: int) -> Chunk:
        result = self.player.play(plies)
        return Chunk(actor=self.actor, node=self.node, trajectories=result.trajectories, stats=result.stats,
                     version=self.player.version, komi_estimates=self.player.komi_estimates(),
                     process_cpu_seconds=time.process_time())


class SelfPlayPool:
    """``num_actors`` self-play actors, each with ``run.chunks_in_flight`` chunks of ``plies_per_chunk``
    moves queued."""

    def __init__(self, config: Config, seed_sequence: np.random.SeedSequence, plies_per_chunk: int = 4) -> None:
        self.config = config
        self.plies = plies_per_chunk
        self._seeds = seed_sequence
        self._config_dict = config_to_dict(config)
        run = config.run
        self._remote = ray.remote(num_cpus=run.cpus_per_actor, num_gpus=run.gpus_per_actor)(_SelfPlayActor)
        self._threads = run.cpus_per_actor
        self.in_flight = run.chunks_in_flight
        self.actors: list[Any] = []
        # chunk ref -> (actor slot, the actor it was queued on): after a restart, the dead actor's
        # other queued chunks fail too and are dropped without a second restart.
        self.pending: dict[Any, tuple[int, Any]] = {}
        self.restarts = 0
        self._failed_starts = [0] * run.num_actors  # [slot] constructions failed in a row
        self._weights: Optional[tuple[Any, int]] = None  # (object ref, version) of the newest weights
        for slot in range(run.num_actors):
            self.actors.append(self._spawn(slot))
        for slot in range(run.num_actors):
            for _ in range(self.in_flight):
                self._submit(slot)

    def _spawn(self, slot: int):
        check_node()
        seed = int(self._seeds.spawn(1)[0].generate_state(1)[0])
        # SPREAD places actors on different nodes when the cluster has several.
        actor = self._remote.options(scheduling_strategy="SPREAD").remote(self._config_dict, slot, seed, self._threads)
        if self._weights is not None:
            actor.set_weights.remote(*self._weights)
        return actor

    def _submit(self, slot: int) -> None:
        actor = self.actors[slot]
        self.pending[actor.play.remote(self.plies)] = (slot, actor)

    def publish(self, weights: dict, version: int) -> None:
        """Hand ``weights`` (a CPU state dict) to every actor; they switch between two chunks."""
        check_node()
        ref = ray.put(weights)
        self._weights = (ref, version)
        for actor in self.actors:
            actor.set_weights.remote(ref, version)

    def poll(self, timeout: float) -> list[Chunk]:
        """The chunks finished within ``timeout`` seconds (each actor gets its next one at once)."""
        check_node()  # reading a finished chunk may reach the raylet's object store
        if not self.pending:
            return []
        ready, _ = ray.wait(list(self.pending), num_returns=len(self.pending), timeout=timeout)
        chunks = []
        for ref in ready:
            slot, actor = self.pending.pop(ref)
            if actor is not self.actors[slot]:
                continue  # queued on an actor that died and was replaced: its chunk never comes
            try:
                chunks.append(ray.get(ref))  # ready: does not block
                self._failed_starts[slot] = 0
            except (RayActorError, OutOfMemoryError) as exc:  # the actor died (or Ray's memory monitor
                # killed it: the machine ran short of memory); an exception inside play (a bug) propagates
                check_node()  # ... or the node under it did: then there is nothing to restart it on
                if isinstance(exc, RayActorError):
                    self._count_failed_start(slot, exc)
                self.restarts += 1
                ray.kill(actor, no_restart=True)
                self.actors[slot] = self._spawn(slot)
                for _ in range(self.in_flight - 1):  # the replacement's queue, refilled (one more below)
                    self._submit(slot)
            self._submit(slot)
        return chunks

    def _count_failed_start(self, slot: int, exc: RayActorError) -> None:
        """Raise ``ActorStartError`` once slot ``slot``'s actor failed in its constructor
        ``STARTUP_FAILURES`` times in a row."""
        if not getattr(exc, "actor_init_failed", False):
            self._failed_starts[slot] = 0
            return
        self._failed_starts[slot] += 1
        if self._failed_starts[slot] >= STARTUP_FAILURES:
            raise ActorStartError(f"the self-play actor failed to start {STARTUP_FAILURES} times in a row: "
                                  f"{_last_error_line(str(exc))}")

    def shutdown(self) -> None:
        if _dead_node() is None:  # else the actors died with their node
            for actor in self.actors:
                ray.kill(actor, no_restart=True)
        self.actors, self.pending = [], {}


class RemoteTaskLost(UserError):
    """The process that ran a ``RemoteRunner`` call died before it answered (killed, out of memory)."""


class _Runner:
    """The Ray actor of ``RemoteRunner``: calls what it is handed."""

    def call(self, function: Callable, *args: Any) -> Any:
        return function(*args)


class RemoteRunner:
    """One Ray actor that runs functions beside the loop (the in-loop matches) without reserving a
    CPU: it shares the CPUs with the self-play actors instead of waiting for a free one.

    An actor started with the run, not a remote function: each submission of a remote function asks
    the GCS whether its code is exported (Ray 2.60, ``internal_kv_exists``), a call that waits 60 s
    for a GCS that died and then ends the driver before it could checkpoint; an actor's calls go to
    its process directly. A call is never retried (Ray's tasks are retried 3 times by default: one
    lost while the run stops, Ctrl-C reaching every process of the terminal's group, would be
    resubmitted into a Ray that is shutting down): a lost call is the caller's to skip
    (``RemoteTaskLost``), and the actor it died with is replaced at the next ``submit``."""

    def __init__(self) -> None:
        self._remote = ray.remote(num_cpus=0, max_restarts=0, max_task_retries=0)(_Runner)
        check_node()
        self._actor: Any = self._remote.remote()

    def submit(self, function: Callable, *args: Any) -> Any:
        """Start ``function(*args)`` in the actor; returns a reference for ``poll`` and ``wait``."""
        check_node()  # large arguments (the weights) go through the raylet's object store
        if self._actor is None:
            self._actor = self._remote.remote()  # the last one died with its call
        return self._actor.call.remote(function, *args)

    def poll(self, ref: Any) -> tuple[bool, Any]:
        """(True, result) if the call of ``submit`` has finished, else (False, None); never blocks.
        Raises ``RemoteTaskLost`` if its process died; the call's own exception propagates."""
        ready, _ = ray.wait([ref], timeout=0)
        return (True, self._result(ready[0])) if ready else (False, None)

    def wait(self, ref: Any) -> Any:
        """The result of a ``submit`` call, waiting for it (only outside hot loops: a run's end)."""
        return self._result(ref)

    def _result(self, ref: Any) -> Any:
        try:
            return ray.get(ref)
        except (RayActorError, OutOfMemoryError, WorkerCrashedError) as exc:
            self._actor = None  # died with the call: the next submit starts another
            raise RemoteTaskLost(f"its process died ({type(exc).__name__})") from None

    def shutdown(self) -> None:
        if self._actor is not None and _dead_node() is None:
            ray.kill(self._actor, no_restart=True)  # else it died with its node
        self._actor = None


def _last_error_line(message: str) -> str:
    """The exception line that ends a Ray error message ("UserError: net.device is ..." -> "net.device
    is ..."), without Ray's colour codes."""
    lines = [line.strip() for line in re.sub(r"\x1b\[[0-9;]*m", "", message).splitlines() if line.strip()]
    last = lines[-1] if lines else "unknown error"
    name, sep, rest = last.partition(": ")
    return rest if sep and re.fullmatch(r"[A-Za-z_][\w.]*", name) else last
