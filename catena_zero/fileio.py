"""Writing files so that nothing on disk is ever half-written: every output of the project goes
through ``write_bytes_atomic`` / ``write_text_atomic`` (records, pictures, checkpoints, tables).

A regular file is written as a temporary file in the target's directory, flushed to disk and
renamed over the target (``os.replace`` is atomic on POSIX), so a reader or a crash sees the old
file or the new one, never a mixture. What a person expects of ``> FILE`` holds as well:

- a symlink is followed and its *target* is replaced (the link stays a link);
- a new file gets the usual permissions (0666 less the umask, as the kernel applies it to
  ``open``), an existing file keeps its own;
- ``-`` means standard output, and so does any path that names the file standard output
  already is (``/dev/stdout``, or the file it was redirected to);
- special files (terminals, pipes, ``/dev/null``, ``/dev/fd/N``) cannot be renamed over and are
  written directly.
"""

from __future__ import annotations

import os
import re
import secrets
import stat
import sys
from pathlib import Path

STDOUT = "-"  # the path that means standard output
_FD_DIR = re.compile(r"^/proc/[^/]+/(task/[^/]+/)?fd$")  # /proc/self/fd, where /dev/fd and /dev/stdout lead
_MAX_LINKS = 40  # as the kernel's ELOOP limit


def _stdout_stat() -> os.stat_result | None:
    """The stat of the file behind ``sys.stdout``, None when it has no file descriptor (tests)."""
    try:
        return os.fstat(sys.stdout.fileno())
    except (AttributeError, OSError, ValueError):
        return None


def writes_to_stdout(path: str | os.PathLike) -> bool:
    """Whether writing ``path`` writes standard output: ``-``, ``/dev/stdout``, or the very file
    stdout is redirected to. Commands send their own messages to stderr then."""
    if os.fspath(path) == STDOUT:
        return True
    out = _stdout_stat()
    if out is None:
        return False
    try:
        return os.path.samestat(os.stat(path), out)
    except (OSError, ValueError):
        return False


def _names_a_descriptor(path: str) -> bool:
    """Whether following ``path``'s symlinks passes through an open-descriptor link
    (``/dev/fd/3``, ``/dev/stderr``): such a path must be opened, never renamed over."""
    current = os.path.abspath(path)
    for _ in range(_MAX_LINKS):
        if _FD_DIR.match(os.path.realpath(os.path.dirname(current))):
            return True
        if not os.path.islink(current):
            return False
        current = os.path.normpath(os.path.join(os.path.dirname(current), os.readlink(current)))
    return False


def _write_stdout(data: bytes) -> None:
    sys.stdout.flush()
    buffer = getattr(sys.stdout, "buffer", None)
    if buffer is not None:
        buffer.write(data)
        buffer.flush()
    else:
        sys.stdout.write(data.decode("utf-8"))
        sys.stdout.flush()


def _write_direct(path: str, data: bytes) -> None:
    with open(path, "wb") as f:
        f.write(data)


def _replace(target: str, data: bytes, mode: int | None) -> None:
    """Write ``data`` to a temporary file beside ``target`` and rename it over ``target``.

    ``mode`` None: a new file, created 0666 so that the kernel applies the umask; otherwise
    the existing file's permission bits, set exactly.
    """
    directory, name = os.path.split(target)
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0)
    while True:
        tmp = os.path.join(directory, f".{name}.{secrets.token_hex(4)}.tmp")
        try:
            fd = os.open(tmp, flags, 0o666)
            break
        except FileExistsError:
            continue
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            if mode is not None:
                os.fchmod(f.fileno(), mode)
            os.fsync(f.fileno())
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def write_bytes_atomic(path: str | os.PathLike, data: bytes) -> Path:
    """Write ``data`` to ``path`` (see the module docstring); returns ``Path(path)``.

    Any failure is an ``OSError`` whose message names ``path`` ("cannot write PATH: reason").
    """
    name = os.fspath(path)
    try:
        if name == STDOUT or writes_to_stdout(name):
            _write_stdout(data)
            return Path(name)
        try:
            st = os.stat(name)  # follows symlinks
        except FileNotFoundError:
            st = None  # a new file, or a dangling symlink whose target is created
        if st is not None and stat.S_ISDIR(st.st_mode):
            raise IsADirectoryError(21, "Is a directory")
        if (st is not None and not stat.S_ISREG(st.st_mode)) or _names_a_descriptor(name):
            _write_direct(name, data)
        else:
            _replace(os.path.realpath(name), data, None if st is None else stat.S_IMODE(st.st_mode))
    except BrokenPipeError:
        raise  # standard output closed by the reader (`| head`): the CLI treats it as a normal end
    except OSError as exc:
        raise OSError(f"cannot write {name}: {exc.strerror or exc}") from None
    return Path(name)


def write_text_atomic(path: str | os.PathLike, text: str) -> Path:
    """Write ``text`` (UTF-8) to ``path`` atomically; see ``write_bytes_atomic``."""
    return write_bytes_atomic(path, text.encode("utf-8"))


def check_writable(path: str | os.PathLike) -> None:
    """Raise the ``OSError`` that writing ``path`` later would raise for a missing or read-only
    folder, or a folder in place of a file; checked before a long task (a game) that ends by
    writing it. Creates nothing."""
    name = os.fspath(path)
    if name == STDOUT:
        return
    try:
        if os.path.isdir(name):
            raise IsADirectoryError(21, "Is a directory")
        if os.path.exists(name):
            if not os.access(name, os.W_OK):
                raise PermissionError(13, "Permission denied")
            if stat.S_ISREG(os.stat(name).st_mode) and not _names_a_descriptor(name):
                folder = os.path.dirname(os.path.realpath(name)) or "."
                if not os.access(folder, os.W_OK | os.X_OK):
                    raise PermissionError(13, "Permission denied (its folder is not writable)")
            return
        folder = os.path.dirname(os.path.realpath(name)) or "."
        if not os.path.isdir(folder):
            raise FileNotFoundError(2, "No such file or directory")
        if not os.access(folder, os.W_OK | os.X_OK):
            raise PermissionError(13, "Permission denied")
    except OSError as exc:
        raise OSError(f"cannot write {name}: {exc.strerror or exc}") from None
