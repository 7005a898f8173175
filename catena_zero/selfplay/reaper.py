"""The end of a local Ray's processes, however the driver that started them ends.

A local Ray's GCS and raylet share the driver's fate (Ray starts them with ``PR_SET_PDEATHSIG``),
but the two agents the raylet starts (``ray::DashboardAgent``, ``ray::RuntimeEnvAgent``) do not:
when the raylet dies they first report its death to the GCS, which is gone too when the driver
was killed, and wait out that call's fixed 60 s timeout (Ray 2.60, measured: 62 s, ~85 MB each).
No code of the driver runs after a SIGKILL, so the driver starts this small process (``python
reaper.py``, standard library only, in a session of its own so that Ctrl-C of the terminal does
not reach it) beside its Ray. The driver writes the processes of its Ray to the reaper's stdin,
one ``PID START`` line each (``START``: the process's start time in clock ticks since boot, so a
recycled pid is never killed); when stdin ends, because the driver closed it after
``ray.shutdown`` or because the driver died, the reaper kills whichever of them is still running.

A list cannot hold what the driver never saw: killed while ``ray.init`` still runs, it has listed
nothing, and the agents outlived such a kill by 72 s. So the driver starts the reaper before
``ray.init`` and, while Ray starts, sets an environment variable ``MARKER=VALUE`` (``VALUE``
random, one per start) that every process of that Ray inherits at its start, the agents and
workers the raylet starts included; when stdin ends, the reaper also kills every process whose
environment (``/proc/PID/environ``, readable for this user's processes only) holds that entry.

Linux only (``/proc``); ``workers.start_ray`` does without it elsewhere. Also imported by
``workers`` for ``descendants`` and ``start_time``, and by ``train/cputime`` for ``cpu_seconds``
(the CPU of Ray's own processes, which a run's CPU line reports apart from idle).
"""

from __future__ import annotations

import os
import signal
import sys
import time
from typing import Optional


def _stat(pid: int | str) -> Optional[list[str]]:
    """The fields of ``/proc/PID/stat`` from field 3 (the state) on, or None when it is gone: the
    one reading of the file, after "(comm)", which may hold spaces."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            stat = f.read().decode("ascii", "replace")
    except OSError:
        return None
    return stat[stat.rfind(")") + 2:].split() or None


def start_time(pid: int) -> Optional[str]:
    """Process ``pid``'s start time (field 22 of ``/proc/PID/stat``), or None when it is gone or a
    zombie (dead, not yet collected by its parent)."""
    fields = _stat(pid)
    if fields is None or fields[0] in ("Z", "X"):
        return None
    return fields[19]


def cpu_seconds(pid: int) -> float:
    """CPU seconds (user + system, fields 14 and 15 of ``/proc/PID/stat``) process ``pid`` has used
    so far; 0 when it is gone."""
    fields = _stat(pid)
    return 0.0 if fields is None else (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def descendants(pid: int) -> list[int]:
    """Every running process below ``pid`` (children, their children, ...)."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        fields = _stat(entry)
        if fields is not None:
            children.setdefault(int(fields[1]), []).append(int(entry))
    found, queue = [], [pid]
    while queue:
        for child in children.get(queue.pop(), []):
            found.append(child)
            queue.append(child)
    return found


def command_name(pid: int) -> str:
    """The process's name (``/proc/PID/comm``: "raylet", "gcs_server", "ray::IDLE", ...), "" if gone."""
    try:
        with open(f"/proc/{pid}/comm", "rb") as f:
            return f.read().decode("utf-8", "replace").strip()
    except OSError:
        return ""


MARKER = "CATENA_ZERO_RAY"  # the environment variable that marks one local Ray's processes


def marked(entry: str) -> list[int]:
    """Every process whose environment holds ``entry`` (``NAME=VALUE``), this one aside; the
    environment is the one the process started with, and a zombie's reads empty."""
    wanted = entry.encode()
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit() or int(name) == os.getpid():
            continue
        try:
            with open(f"/proc/{name}/environ", "rb") as f:
                environment = f.read()
        except OSError:
            continue  # gone, or another user's
        if wanted in environment.split(b"\0"):
            found.append(int(name))
    return found


def kill_marked(entry: str, settle: float = 0.25) -> int:
    """SIGKILL every process ``marked`` with ``entry``, and again ``settle`` seconds after a
    round that found none (a child the dead driver had forked becomes marked only once it has
    started its program); returns how many were killed (each once, however many rounds saw it:
    a process killed stays marked until it is gone)."""
    killed: set[int] = set()
    while True:
        found = marked(entry)
        if not found:
            time.sleep(settle)
            found = marked(entry)
            if not found:
                return len(killed)
        for pid in found:
            try:
                os.kill(pid, signal.SIGKILL)
                killed.add(pid)
            except OSError:
                pass  # ended meanwhile
        time.sleep(0.01)  # a killed process takes a moment to go: no busy loop over it


def kill_listed(lines) -> int:
    """Read ``PID START`` lines to their end, then SIGKILL each listed process that still runs with
    that start time; returns how many were killed."""
    listed: dict[int, str] = {}
    for line in lines:
        words = line.split()
        if len(words) == 2 and words[0].isdigit():
            listed[int(words[0])] = words[1]
    killed = 0
    for pid, started in listed.items():
        if start_time(pid) == started:
            try:
                os.kill(pid, signal.SIGKILL)
                killed += 1
            except OSError:
                pass  # ended meanwhile
    return killed


if __name__ == "__main__":
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the driver's to handle
    kill_listed(sys.stdin)
    if len(sys.argv) > 1:  # python reaper.py MARKER=VALUE
        kill_marked(sys.argv[1])
