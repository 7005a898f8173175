"""A private network for a local run: Ray's servers reachable from this machine's loopback only.

Ray's GCS, raylet, workers and agents bind their gRPC and HTTP servers to every interface
(``0.0.0.0`` / ``::``); no Ray setting binds them to loopback (``_node_ip_address`` changes only the
address they advertise), and Ray runs whatever code a connected client sends. A local run needs no
network at all: every one of its processes is a child of the driver on this machine. So before a
local Ray starts, the driver moves into a network namespace of its own (Linux ``unshare``, the
same isolation a container gets), whose only interface is its own loopback; every process Ray
starts inherits it. "Every interface" is then that loopback alone, unreachable from other
machines and from this machine's other network namespaces, and the driver returns to the
machine's network when Ray is shut down (``setns``).

A network namespace needs ``CAP_SYS_ADMIN`` (root, or root mapped in a user namespace: ``unshare
--user --map-root-user catena-zero train ...``). Without it, or off Linux, the run goes on with
Ray's token authentication alone (``workers.start_ray``); ``enter_private_network`` says why.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import errno
import fcntl
import os
import socket
import struct
import sys
from typing import Optional

CLONE_NEWNET = 0x40000000  # <sched.h>
SIOCGIFFLAGS = 0x8913  # <linux/sockios.h>
SIOCSIFFLAGS = 0x8914
IFF_UP = 0x1  # <net/if.h>
LOOPBACK = b"lo"
# The address a local Ray inside the namespace advertises. Not 127.0.0.1: Ray replaces that one
# ("localhost") by a probe for the machine's outside address, which in a namespace with no route
# fails with a warning on every start. Every address of 127.0.0.0/8 is the loopback's (RFC 1122).
LOOPBACK_ADDRESS = "127.0.0.2"

_saved_namespace: Optional[int] = None  # a descriptor of the machine's network while the driver is away


def _libc():
    return ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)


def _call(result: int, what: str) -> None:
    if result != 0:
        code = ctypes.get_errno()
        raise OSError(code, f"{what}: {os.strerror(code)}")


def _bring_up_loopback() -> None:
    """A new network namespace's loopback starts down: nothing could connect, Ray included."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        request = struct.pack("16sh", LOOPBACK, 0)
        flags = struct.unpack("16sh", fcntl.ioctl(s.fileno(), SIOCGIFFLAGS, request))[1]
        fcntl.ioctl(s.fileno(), SIOCSIFFLAGS, struct.pack("16sh", LOOPBACK, flags | IFF_UP))


def in_private_network() -> bool:
    """Whether this process is in the namespace ``enter_private_network`` made."""
    return _saved_namespace is not None


def enter_private_network() -> Optional[str]:
    """Move this thread (and every process it starts from now on) into a new network namespace
    with its loopback up; None when done, else why not (one line; nothing changed)."""
    global _saved_namespace
    if _saved_namespace is not None:
        return None
    if not sys.platform.startswith("linux"):
        return f"network namespaces are a Linux feature (this is {sys.platform})"
    try:
        saved = os.open("/proc/self/ns/net", os.O_RDONLY | os.O_CLOEXEC)
    except OSError as exc:
        return f"cannot open /proc/self/ns/net: {exc.strerror or exc}"
    libc = _libc()
    try:
        _call(libc.unshare(CLONE_NEWNET), "unshare(CLONE_NEWNET)")
    except OSError as exc:
        os.close(saved)
        hint = " (it needs root, or a user namespace: unshare --user --map-root-user)" \
            if exc.errno in (errno.EPERM, errno.EACCES) else ""
        return f"{exc.strerror}{hint}"
    try:
        _bring_up_loopback()
    except OSError as exc:
        libc.setns(saved, CLONE_NEWNET)  # back to the machine's network: a namespace without loopback is no use
        os.close(saved)
        return f"cannot set up the loopback of a new network namespace: {exc.strerror or exc}"
    _saved_namespace = saved
    return None


def leave_private_network() -> None:
    """Return this thread to the machine's network (a no-op outside a private one). Call it once
    the processes started inside are gone (Ray shut down): the namespace then ends with them."""
    global _saved_namespace
    if _saved_namespace is None:
        return
    saved, _saved_namespace = _saved_namespace, None
    try:
        _call(_libc().setns(saved, CLONE_NEWNET), "setns")
    finally:
        os.close(saved)
