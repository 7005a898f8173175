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

A network namespace needs ``CAP_SYS_ADMIN`` (root). Without it, a process may still make a user
namespace in which it is root, and the network namespace inside it (what ``unshare --user
--map-root-user --net`` does); but the kernel lets only a process with one thread enter a new user
namespace (``EINVAL`` otherwise), and a driver that has imported numpy or torch has several (their
thread pools). Such a process stays in the user namespace and its network for the rest of its life
(setns back to the machine's network needs ``CAP_SYS_ADMIN`` there). A driver with threads can be
started inside one instead: ``unshare --user --map-root-user catena-zero train ...``. Without
either, or off Linux, the run goes on with Ray's token authentication alone
(``workers.start_ray``); ``enter_private_network`` says why.
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
CLONE_NEWUSER = 0x10000000
SIOCGIFFLAGS = 0x8913  # <linux/sockios.h>
SIOCSIFFLAGS = 0x8914
IFF_UP = 0x1  # <net/if.h>
LOOPBACK = b"lo"
# The address a local Ray advertises. Not 127.0.0.1: Ray replaces that one ("localhost") by a
# probe for the machine's outside address, which in a namespace with no route fails with a warning
# on every start, and outside one binds the runtime-env agent's port to that outside address.
# Every address of 127.0.0.0/8 is the loopback's (RFC 1122).
LOOPBACK_ADDRESS = "127.0.0.2"

_saved_namespace: Optional[int] = None  # a descriptor of the machine's network while the driver is away
_for_life = False  # in a user namespace of its own, whose network the process cannot leave


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
    return _saved_namespace is not None or _for_life


def enter_private_network() -> Optional[str]:
    """Move this thread (and every process it starts from now on) into a new network namespace
    with its loopback up (without root, the whole process, into a user namespace too, for good);
    None when done, else why not (one line; nothing changed, unless the user namespace was made
    but could not be set up)."""
    global _saved_namespace
    if in_private_network():
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
        if exc.errno in (errno.EPERM, errno.EACCES):
            return _enter_user_namespace(libc, exc.strerror)
        return exc.strerror
    try:
        _bring_up_loopback()
    except OSError as exc:
        libc.setns(saved, CLONE_NEWNET)  # back to the machine's network: a namespace without loopback is no use
        os.close(saved)
        return f"cannot set up the loopback of a new network namespace: {exc.strerror or exc}"
    _saved_namespace = saved
    return None


def _write(path: str, text: str) -> None:
    with open(path, "w") as f:
        f.write(text)


def _enter_user_namespace(libc, refused: str) -> Optional[str]:
    """Without root: a user namespace in which this process is root (its own user and group mapped
    to 0, as ``unshare --map-root-user``), and a network namespace inside it with its loopback up;
    None when done, else why not (one line, ``refused`` the plain namespace's refusal)."""
    global _for_life
    threads = len(os.listdir("/proc/self/task"))
    if threads > 1:
        return (f"{refused}: it needs root, or a user namespace, which only a process with one thread may enter "
                f"(this one has {threads}); start the command as unshare --user --map-root-user COMMAND")
    uid, gid = os.geteuid(), os.getegid()
    try:
        _call(libc.unshare(CLONE_NEWUSER | CLONE_NEWNET), "unshare(CLONE_NEWUSER)")
    except OSError as exc:
        return f"{refused} (it needs root), and no user namespace may be made here either: {exc.strerror}"
    # From here on there is no way back: the process stays in these namespaces.
    _for_life = True
    try:
        _write("/proc/self/setgroups", "deny")  # the kernel's condition for an unprivileged gid_map
        _write("/proc/self/uid_map", f"0 {uid} 1")
        _write("/proc/self/gid_map", f"0 {gid} 1")
        _bring_up_loopback()
    except OSError as exc:
        return f"cannot set up the user namespace this process is now in: {exc.strerror or exc}"
    return None


def leave_private_network() -> None:
    """Return this thread to the machine's network (a no-op outside a private one, and inside a
    user namespace's, which is for life). Call it once the processes started inside are gone (Ray
    shut down): the namespace then ends with them."""
    global _saved_namespace
    if _saved_namespace is None:
        return
    saved, _saved_namespace = _saved_namespace, None
    try:
        _call(_libc().setns(saved, CLONE_NEWNET), "setns")
    finally:
        os.close(saved)
