"""The Ray self-play pool (selfplay/workers.py) on a local Ray with 2 CPUs: chunks arrive without
blocking, published weights reach the actors, a killed actor is replaced and the pool goes on."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import types
from pathlib import Path

import numpy as np
import pytest

from catena_zero.config import config_from_dict
from catena_zero.errors import UserError
from catena_zero.selfplay import netns, reaper, workers

CONFIG = {
    "game": {"side": 2},
    "net": {"blocks": 1, "channels": 8, "head_channels": 4, "value_hidden": 8, "global_pool_every": 0},
    "search": {"num_simulations": 2, "gumbel_num_considered": 2},
    "selfplay": {"games_per_actor": 4, "cheap_simulations": 1},
    "run": {"num_actors": 2, "cpus_per_actor": 1},
}


@pytest.fixture
def local_ray():
    workers.start_ray(None, 2)
    yield
    workers.stop_ray()


def _chunks_until(pool, predicate, seconds=90.0):
    deadline = time.monotonic() + seconds
    got = []
    while time.monotonic() < deadline:
        got.extend(pool.poll(timeout=0.5))
        if predicate(got):
            return got
    raise AssertionError(f"no such chunks within {seconds} s (got {len(got)})")


def test_pool_collects_chunks_takes_new_weights_and_restarts_dead_actors(local_ray):
    config = config_from_dict(CONFIG)
    pool = workers.SelfPlayPool(config, np.random.SeedSequence(0), plies_per_chunk=3)
    try:
        chunks = _chunks_until(pool, lambda got: {c.actor for c in got} == {0, 1})
        assert all(c.version == 0 for c in chunks)
        # Every actor keeps run.chunks_in_flight (2) chunks queued, so it never waits for a poll.
        assert sorted(slot for slot, _ in pool.pending.values()) == [0, 0, 1, 1]
        # New weights reach every actor between two chunks, without the driver waiting.
        from catena_zero.net import model_from_config

        pool.publish(model_from_config(config.net).state_dict(), version=5)
        _chunks_until(pool, lambda got: {c.actor for c in got if c.version == 5} == {0, 1})
        # Kill one actor (Ray ends its process): the pool replaces it (with the newest weights) and goes on.
        workers.ray.kill(pool.actors[0])
        _chunks_until(pool, lambda got: pool.restarts >= 1 and any(c.actor == 0 for c in got))
        assert pool.restarts == 1  # the dead actor's second queued chunk is dropped, not a second restart
        assert sorted(slot for slot, _ in pool.pending.values()) == [0, 0, 1, 1]
        late = _chunks_until(pool, lambda got: any(c.actor == 0 for c in got))
        assert all(c.version == 5 for c in late if c.actor == 0)
        positions = sum(t.num_positions for c in chunks for t in c.trajectories)
        assert positions > 0
    finally:
        pool.shutdown()


def test_an_actor_that_cannot_start_stops_the_pool_with_its_one_line_error(local_ray):
    """A device the node does not have fails in every actor's constructor: after STARTUP_FAILURES
    tries of a slot the pool raises the actor's own message, instead of restarting it forever."""
    import torch

    if torch.cuda.device_count() > 99:
        pytest.skip("needs a machine without a 100th CUDA device")
    config = config_from_dict({**CONFIG, "net": {**CONFIG["net"], "device": "cuda:99"}})
    pool = workers.SelfPlayPool(config, np.random.SeedSequence(0))
    try:
        with pytest.raises(workers.ActorStartError) as err:
            deadline = time.monotonic() + 120
            while time.monotonic() < deadline:
                pool.poll(timeout=0.5)
        message = str(err.value)
        assert "\n" not in message and "\x1b" not in message
        assert message.startswith(f"the self-play actor failed to start {workers.STARTUP_FAILURES} times in a row: "
                                  "net.device is 'cuda:99' but"), message
        # a slot's third failure stops the pool: no slot is restarted a third time
        assert pool.restarts <= config.run.num_actors * (workers.STARTUP_FAILURES - 1)
    finally:
        pool.shutdown()


_CLIENT = """
import sys, ray
try:
    ray.init(address=sys.argv[1], include_dashboard=False, log_to_driver=False)
    print("connected", ray.cluster_resources().get("CPU"))
except Exception as exc:
    print("refused", type(exc).__name__)
"""


def test_a_local_run_refuses_clients_without_its_token(local_ray, tmp_path):
    """Ray runs whatever a connected client sends, and its servers listen on every interface: the
    local Ray of a run takes only clients with its token (RAY_AUTH_MODE=token, workers.py)."""
    import sys

    import ray

    address = ray.get_runtime_context().gcs_address

    def client(**env):
        child = {k: v for k, v in os.environ.items() if not k.startswith("RAY_")}
        child.update(env, HOME=os.environ.get("HOME", ""))
        return subprocess.run([sys.executable, "-c", _CLIENT, address], env=child, capture_output=True,
                              text=True, timeout=120).stdout

    assert "refused" in client(RAY_AUTH_MODE="token", RAY_AUTH_TOKEN="0" * 32)  # a wrong token
    assert "refused" in client(RAY_AUTH_MODE="disabled")  # no token at all
    assert "connected 2.0" in client(RAY_AUTH_MODE="token")  # this user's token (~/.ray): it can


def _descendants(pid: int) -> list[int]:
    """``pid`` and every process below it (read from /proc: Ray's processes are the driver's children)."""
    return [pid, *reaper.descendants(pid)]


def _listening(pid: int) -> list[str]:
    """The addresses ``pid``'s listening TCP sockets are bound to, as its own network sees them."""
    inodes = set()
    for fd in os.listdir(f"/proc/{pid}/fd"):
        try:
            target = os.readlink(f"/proc/{pid}/fd/{fd}")
        except OSError:
            continue
        if target.startswith("socket:["):
            inodes.add(target[8:-1])
    bound = []
    for table in ("tcp", "tcp6"):
        for line in open(f"/proc/{pid}/net/{table}").read().splitlines()[1:]:
            fields = line.split()
            if fields[3] == "0A" and fields[9] in inodes:  # 0A: LISTEN
                bound.append(fields[1])
    return bound


_FROM_OUTSIDE = """
import ctypes, os, socket, sys
# The machine's own network (the namespace the driver left), then a connection to the run's GCS.
ctypes.CDLL("libc.so.6", use_errno=True).setns(os.open(sys.argv[1], os.O_RDONLY), 0x40000000)
port = int(sys.argv[2])
for host in ["127.0.0.1"] + sys.argv[3:]:
    try:
        socket.create_connection((host, port), timeout=5).close()
        print("reached", host)
    except OSError as exc:
        print("refused", host, type(exc).__name__)
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="network namespaces are Linux's")
def test_no_port_of_a_local_run_is_reachable_beyond_its_loopback():
    """Issue 25: Ray binds every interface. A local run's Ray lives in a network namespace whose
    only interface is its loopback (netns.py): no listening socket of the run's processes is
    bound beyond it, and from the machine's own network the run's GCS port cannot be reached
    (neither on 127.0.0.1 nor on the machine's addresses). Stopping Ray returns the driver."""

    from catena_zero.selfplay import netns

    outside = os.readlink("/proc/self/ns/net")
    # This machine's own addresses (IPv4), read before the driver leaves its network.
    addresses = sorted({a for a in subprocess.run(["hostname", "-I"], capture_output=True, text=True).stdout.split()
                        if ":" not in a})
    why_not = netns.enter_private_network()
    if why_not is not None:
        pytest.skip(f"no network namespace may be made here: {why_not}")
    netns.leave_private_network()
    earlier = set(_descendants(os.getpid()))  # children of earlier tests are not this run's
    workers.start_ray(None, 2)
    try:
        import ray

        assert netns.in_private_network() and os.readlink("/proc/self/ns/net") != outside
        processes = [os.getpid()] + [pid for pid in _descendants(os.getpid()) if pid not in earlier]
        ray_processes = processes[1:]
        assert len(ray_processes) >= 3  # the GCS, the raylet, workers and agents
        sockets = 0
        for pid in processes:
            try:
                interfaces = [line.split(":")[0].strip() for line in open(f"/proc/{pid}/net/dev").read().splitlines()[2:]]
                bound = _listening(pid)
            except OSError:
                continue  # a process that ended meanwhile
            assert os.readlink(f"/proc/{pid}/ns/net") != outside, pid
            assert interfaces == ["lo"], (pid, interfaces)  # so "every interface" is the loopback
            sockets += len(bound)
        assert sockets >= 3, sockets
        port = ray.get_runtime_context().gcs_address.rsplit(":", 1)[1]
        saved = f"/proc/{os.getpid()}/fd/{netns._saved_namespace}"
        replies = subprocess.run([sys.executable, "-c", _FROM_OUTSIDE, saved, port, *addresses], capture_output=True,
                                 text=True, timeout=60)
        lines = replies.stdout.splitlines()
        assert len(lines) == 1 + len(addresses) and all(line.startswith("refused") for line in lines), \
            (lines, replies.stderr)
    finally:
        workers.stop_ray()
    assert not netns.in_private_network() and os.readlink("/proc/self/ns/net") == outside


def test_a_local_run_will_not_start_ray_without_authentication(monkeypatch):
    monkeypatch.setenv("RAY_AUTH_MODE", "disabled")
    with pytest.raises(ConnectionError, match="RAY_AUTH_MODE is 'disabled'"):
        workers.start_ray(None, 2)


def test_a_local_ray_that_does_not_start_is_one_line_not_an_internal_error(monkeypatch, caplog):
    """Seen on a machine with 2 cores and 6 busy processes: ray.init raised a bare Exception ("The
    current node timed out during startup"), which the command line called a bug (status 70). Seen
    at nice 19: Ray's launcher first logged four ERROR lines about its dashboard."""
    import logging

    def init(*args, **kwargs):
        logging.getLogger("ray._private.services").error("Failed to start the dashboard")
        raise Exception("The current node timed out during startup. This could happen because some\n"
                        "of the raylet failed to startup or the GCS has become overloaded.")

    monkeypatch.setattr(workers.ray, "init", init)
    with pytest.raises(workers.RayStartFailed, match="^the local Ray did not start: The current node timed out "
                                                     "during startup. This could") as caught:
        workers.start_ray(None, 2)
    assert "\n" not in str(caught.value) and isinstance(caught.value, UserError)
    assert not workers.ray.is_initialized() and not netns.in_private_network()
    assert not [r for r in caplog.records if "dashboard" in r.getMessage()]  # never logged, so never printed
    assert logging.getLogger("ray._private.services").level == logging.NOTSET  # muted only while Ray starts


def test_an_actor_killed_by_rays_memory_monitor_is_replaced(local_ray, monkeypatch):
    """Ray's memory monitor kills a worker when the machine runs short of memory; its chunk then
    raises OutOfMemoryError (not RayActorError). The pool replaces that actor and goes on, instead
    of ending the run with an internal error."""
    from ray.exceptions import OutOfMemoryError

    pool = workers.SelfPlayPool(config_from_dict(CONFIG), np.random.SeedSequence(0))
    try:
        real_get, killed = workers.ray.get, []

        def get(ref, *args, **kwargs):
            if not killed and pool.pending.get(ref, (None, None))[0] is None:  # popped: a chunk being read
                killed.append(ref)
                raise OutOfMemoryError("1 worker(s) were killed due to the node running low on memory")
            return real_get(ref, *args, **kwargs)

        monkeypatch.setattr(workers.ray, "get", get)
        _chunks_until(pool, lambda got: pool.restarts == 1 and len(got) >= 2)
        assert killed and pool.restarts == 1
    finally:
        monkeypatch.undo()
        pool.shutdown()



def test_a_remote_call_whose_process_dies_is_lost_once_never_retried_and_the_next_runs(local_ray, tmp_path):
    """Ray retries a task 3 times by default; a run that stops (Ctrl-C reaches every process of
    the terminal's group) would resubmit its in-loop matches into a Ray shutting down, which
    printed a stray error line after the run's own. RemoteRunner's calls run once; a lost one says
    so, and the next call gets a fresh process."""
    runner = workers.RemoteRunner()
    marker = tmp_path / "ran"
    # A shell that leaves a mark, then kills the process that runs it (as an out-of-memory kill
    # would); functions of the standard library, since Ray's workers cannot import this module.
    ref = runner.submit(subprocess.call, ["sh", "-c", f"echo $PPID >> {marker}; kill -9 $PPID"])
    deadline = time.monotonic() + 60
    with pytest.raises(workers.RemoteTaskLost, match="its process died"):
        while time.monotonic() < deadline:
            done, _ = runner.poll(ref)
            assert not done
            time.sleep(0.1)
    time.sleep(1.0)  # a retry, had there been one, would have left a second mark by now
    killed = marker.read_text().split()
    assert len(killed) == 1
    with pytest.raises(workers.RemoteTaskLost):
        runner.wait(ref)
    assert runner.wait(runner.submit(os.getpid)) not in (int(killed[0]), os.getpid())  # a fresh process
    runner.shutdown()


def test_a_runner_call_looks_for_a_dead_raylet_before_it_reaches_ray(monkeypatch):
    """A call's large arguments (the weights) go through the raylet's object store, and Ray's core
    worker ends the driver, silently, on a call to a dead raylet: the run must see the death first."""
    class Unreached:
        def remote(self, *args):
            raise AssertionError("the call reached Ray")

    runner = object.__new__(workers.RemoteRunner)
    runner._actor = types.SimpleNamespace(call=Unreached())

    def dead():
        raise workers.RayNodeLost("Ray's raylet (pid 1) died under the run")

    monkeypatch.setattr(workers, "check_node", dead)
    with pytest.raises(workers.RayNodeLost):
        runner.submit(print, {"weights": 1})


def test_remote_calls_go_to_the_runner_s_actor_not_through_the_gcs(local_ray, monkeypatch):
    """Every submission of a Ray remote function asks the GCS whether its code is exported, a call
    that waits 60 s for a dead GCS and then ends the driver (the run could not checkpoint): the
    runner's actor is made once, and its calls never reach the function table."""
    runner = workers.RemoteRunner()
    first = runner.wait(runner.submit(os.getpid))
    from ray._private.function_manager import FunctionActorManager

    def no_export(*args, **kwargs):
        raise AssertionError("a call went through the GCS's function table")

    monkeypatch.setattr(FunctionActorManager, "export", no_export)
    monkeypatch.setattr(FunctionActorManager, "export_actor_class", no_export)
    assert [runner.wait(runner.submit(os.getpid)) for _ in range(3)] == [first] * 3  # one process
    runner.shutdown()


_DRIVER = """
import sys, time
from catena_zero.selfplay import workers
workers.start_ray(None, 1)
print("ready", flush=True)
time.sleep(600)
"""


def test_a_killed_driver_leaves_no_ray_process_behind():
    """No code of a SIGKILLed driver runs, and Ray's two agents outlived one by 62 s (they report
    the raylet's death to a GCS that died with the driver, under a fixed 60 s timeout). The
    reaper the driver started beside its Ray ends them at once."""
    if not os.path.isdir("/proc/self"):
        pytest.skip("the reaper reads /proc (Linux)")
    driver = subprocess.Popen([sys.executable, "-c", _DRIVER], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                              start_new_session=True)
    try:
        assert driver.stdout.readline() == b"ready\n"
        time.sleep(1.0)  # the agents and the prestarted workers are up
        ray_processes = reaper.descendants(driver.pid)
        names = {reaper.command_name(pid) for pid in ray_processes}
        assert {"raylet", "gcs_server", "ray::DashboardA", "ray::RuntimeEnv"} <= names, names  # comm: 15 characters
        started = {pid: reaper.start_time(pid) for pid in ray_processes}
        os.kill(driver.pid, signal.SIGKILL)
        driver.wait(timeout=10)
        deadline = time.monotonic() + 15
        alive = list(ray_processes)
        while alive and time.monotonic() < deadline:
            time.sleep(0.25)
            alive = [pid for pid in alive if reaper.start_time(pid) == started[pid]]
        assert not alive, [reaper.command_name(pid) for pid in alive]
    finally:
        if driver.poll() is None:
            os.killpg(driver.pid, signal.SIGKILL)


def test_the_reaper_kills_only_the_processes_listed_with_their_start_times():
    sleeper = subprocess.Popen(["sleep", "60"])
    other = subprocess.Popen(["sleep", "60"])
    try:
        lines = [f"{sleeper.pid} {reaper.start_time(sleeper.pid)}\n",
                 f"{other.pid} 1\n",  # the pid of a process started at another time: recycled, left alone
                 "garbage\n"]
        assert reaper.kill_listed(lines) == 1
        assert sleeper.wait(timeout=10) == -signal.SIGKILL
        assert other.poll() is None
    finally:
        sleeper.kill()
        other.kill()


def _mode(path) -> int:
    return os.stat(path).st_mode & 0o777


def test_rays_token_file_is_made_readable_by_its_user_alone(tmp_path, monkeypatch):
    """Ray 2.60 writes ~/.ray/auth_token 0644 in a 0755 folder (whoever may enter the home folder
    could read the token and run code in the run's Ray): the file is made 0600 in a 0700 folder
    before Ray starts, and one that Ray made before is narrowed, its token kept."""
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("RAY_AUTH_TOKEN", raising=False)
    monkeypatch.delenv("RAY_AUTH_TOKEN_PATH", raising=False)
    folder, token = tmp_path / ".ray", tmp_path / ".ray" / "auth_token"
    assert workers.private_token_file(create=False) is None and not token.exists()  # joining a cluster makes none
    assert workers.private_token_file(create=True) == token
    made = token.read_text()
    assert len(made) == 64 and int(made, 16) >= 0
    assert (_mode(folder), _mode(token)) == (0o700, 0o600)
    assert [p.name for p in folder.iterdir()] == ["auth_token"]  # no temporary file left
    workers.private_token_file(create=True)
    assert token.read_text() == made  # an existing token is kept
    os.chmod(folder, 0o755)  # what Ray leaves
    os.chmod(token, 0o644)
    workers.private_token_file(create=False)
    assert (_mode(folder), _mode(token), token.read_text()) == (0o700, 0o600, made)
    named = tmp_path / "elsewhere"
    named.write_text("1" * 64)
    os.chmod(named, 0o664)
    monkeypatch.setenv("RAY_AUTH_TOKEN_PATH", str(named))
    assert workers.private_token_file(create=True) == named and _mode(named) == 0o600
    monkeypatch.setenv("RAY_AUTH_TOKEN", "2" * 64)
    assert workers.private_token_file(create=True) is None  # the token is in the environment: no file


_TOKEN_RUN = """
import os, sys
from catena_zero.selfplay import workers
workers.start_ray(None, 1)
import ray
print(ray.cluster_resources().get("CPU"))
workers.stop_ray()
"""


def test_a_local_ray_starts_with_the_private_token_file(tmp_path):
    """End to end, in a fresh home folder: Ray takes the token file made before it starts (and
    writes no other), which nobody but its user may read."""
    env = {k: v for k, v in os.environ.items() if k not in ("RAY_AUTH_TOKEN", "RAY_AUTH_TOKEN_PATH")}
    env.update(HOME=str(tmp_path), PYTHONPATH=os.pathsep.join(sys.path))
    run = subprocess.run([sys.executable, "-c", _TOKEN_RUN], env=env, capture_output=True, text=True, timeout=240)
    assert run.stdout.split() == ["1.0"], run.stderr[-2000:]
    assert (_mode(tmp_path / ".ray"), _mode(tmp_path / ".ray" / "auth_token")) == (0o700, 0o600)
    assert [p.name for p in (tmp_path / ".ray").iterdir()] == ["auth_token"]


def _address(table: str, hexed: str):
    """The address of a /proc/net/tcp{,6} entry ("0100007F" is 127.0.0.1: 32-bit words in host order)."""
    import ipaddress

    raw = bytes.fromhex(hexed)
    raw = b"".join(raw[i:i + 4][::-1] for i in range(0, len(raw), 4))
    address = ipaddress.ip_address(raw)
    return address.ipv4_mapped or address if table == "tcp6" else address


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="read from /proc (Linux)")
def test_without_a_private_network_ray_is_kept_to_loopback_where_it_can_be_and_says_what_is_open(monkeypatch, capsys):
    """Where no network namespace may be made, Ray is still given a loopback address: its one
    server that binds the node's address (the runtime-env agent) then binds loopback, not the
    machine's outside address; the ports Ray binds to every interface are said in one line."""
    monkeypatch.setattr(workers, "enter_private_network", lambda: "not allowed here")
    outside = os.readlink("/proc/self/ns/net")
    earlier = set(_descendants(os.getpid()))
    workers.start_ray(None, 2)
    try:
        assert os.readlink("/proc/self/ns/net") == outside
        lines = capsys.readouterr().err.splitlines()
        assert lines == ["note: the ports of Ray's GCS, raylet and workers listen on every interface of this machine, "
                         "guarded by Ray's token only (no private network: not allowed here)"], lines
        bound = []
        for pid in [pid for pid in _descendants(os.getpid()) if pid not in earlier]:
            try:
                sockets = _listening_entries(pid)
            except OSError:
                continue  # ended meanwhile
            bound += [(reaper.command_name(pid), _address(table, address)) for table, address in sockets]
        assert len(bound) >= 3, bound
        assert [(name, str(a)) for name, a in bound if not (a.is_loopback or a.is_unspecified)] == []
        assert any(a.is_loopback for _, a in bound), bound  # the runtime-env agent's
    finally:
        workers.stop_ray()


def _listening_entries(pid: int) -> list[tuple[str, str]]:
    """(table, hex address) of ``pid``'s listening TCP sockets."""
    inodes = set()
    for fd in os.listdir(f"/proc/{pid}/fd"):
        try:
            target = os.readlink(f"/proc/{pid}/fd/{fd}")
        except OSError:
            continue
        if target.startswith("socket:["):
            inodes.add(target[8:-1])
    found = []
    for table in ("tcp", "tcp6"):
        for line in open(f"/proc/{pid}/net/{table}").read().splitlines()[1:]:
            fields = line.split()
            if fields[3] == "0A" and fields[9] in inodes:
                found.append((table, fields[1].split(":")[0]))
    return found


_USER_NAMESPACE = """
import os, socket, sys, threading
from catena_zero.selfplay import netns
if sys.argv[1] == "threads":
    threading.Thread(target=threading.Event().wait, daemon=True).start()
before = os.readlink("/proc/self/ns/net")
print(netns.enter_private_network())
if netns.in_private_network():
    with socket.socket() as server, socket.socket() as client:  # the new network's loopback is up
        server.bind((netns.LOOPBACK_ADDRESS, 0))
        server.listen()
        client.connect(server.getsockname())
    netns.leave_private_network()  # for good: no way back without root
    print(os.getuid(), netns.in_private_network(), os.readlink("/proc/self/ns/net") != before)
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="user namespaces are Linux's")
def test_without_root_a_process_with_one_thread_gets_a_private_network_in_a_user_namespace():
    """A network namespace needs root; a user can still make a user namespace, in which it is
    root, and the network namespace inside it, but only from a process with one thread (a driver
    with numpy's or torch's threads is told how to start inside one instead)."""
    command = [sys.executable, "-c", _USER_NAMESPACE]
    if os.geteuid() == 0:  # as another user, who may not make a plain network namespace
        import shutil

        if shutil.which("setpriv") is None:
            pytest.skip("needs setpriv to run as a user other than root")
        command = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", *command]
    env = dict(os.environ, PYTHONPATH=str(Path(workers.__file__).resolve().parents[2]))

    def run(mode):
        return subprocess.run([*command, mode], env=env, capture_output=True, text=True, timeout=60).stdout.splitlines()

    single = run("one")
    if single and "no user namespace may be made here" in single[0]:
        pytest.skip(f"this machine allows no user namespace: {single[0]}")
    assert single == ["None", "0 True True"], single
    threaded = run("threads")
    assert len(threaded) == 1 and "only a process with one thread may enter (this one has 2)" in threaded[0], threaded
    assert "unshare --user --map-root-user" in threaded[0]


def test_the_reaper_kills_the_processes_whose_environment_carries_its_marker():
    """What a driver killed while Ray starts could not list: every process started with the
    start's marker in its environment, and no other (reaper.py)."""
    entry = f"{reaper.MARKER}=test-{os.getpid()}-{time.monotonic_ns()}"
    name, _, value = entry.partition("=")
    marked = subprocess.Popen(["sleep", "60"], env=dict(os.environ, **{name: value}))
    other = subprocess.Popen(["sleep", "60"], env=dict(os.environ, **{name: value + "0"}))
    try:
        assert reaper.marked(entry) == [marked.pid]
        assert reaper.kill_marked(entry, settle=0.05) == 1
        assert marked.wait(timeout=10) == -signal.SIGKILL
        assert other.poll() is None
    finally:
        marked.kill()
        other.kill()
