"""Writing files so that nothing on disk is ever half-written: every output of the project goes
through ``write_bytes_atomic`` / ``write_text_atomic`` (records, pictures, checkpoints, tables);
and reading them so that nothing hangs or fills memory: every input file goes through
``open_input`` / ``read_input`` (see "Reading" below).

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

Reading: ``open_input`` opens an input file (a config, record, bot file, checkpoint, replay
buffer) only when it is a regular file of at most its kind's size (``MAX_CONFIG_BYTES`` ...; the
callers name theirs). A FIFO would block the read until some writer comes, forever in practice;
``/dev/zero`` or a terminal never ends; a huge file would be read into memory before any of its
bytes is checked. The file is opened with ``O_NONBLOCK`` (opening a FIFO cannot block) and its
type and size are checked on the open descriptor (``fstat``: no race with a rename). Every
problem is the caller's error class, one line naming the file: "cannot read KIND PATH: reason",
"KIND PATH is a FIFO (named pipe), not a regular file", "KIND PATH is N bytes; a KIND is at most M".
``read_json`` reads a JSON input file (an index, a results file) that way and checks what it
holds before any caller walks it: UTF-8, nested at most ``MAX_JSON_DEPTH`` deep (a deeper one
would overflow a recursive walk, the parser's own included), every number finite (JSON has no NaN,
yet Python's parser takes ``NaN``, ``Infinity`` and ``1e999``, which is inf).

A temporary file of an interrupted ``write_bytes_atomic`` (a SIGKILL between its creation and the
rename) is ``.NAME.XXXXXXXX.tmp`` beside the target; ``remove_stale_temp_files`` deletes those of
a folder that its owner is about to write again (a run folder on resume).
"""

from __future__ import annotations

import json
import math
import os
import re
import secrets
import stat
import sys
from pathlib import Path
from typing import Any, BinaryIO, Iterator, Optional, TextIO

from .errors import UserError

STDOUT = "-"  # the path that means standard output
_FD_DIR = re.compile(r"^/proc/[^/]+/(task/[^/]+/)?fd$")  # /proc/self/fd, where /dev/fd and /dev/stdout lead
_MAX_LINKS = 40  # as the kernel's ELOOP limit
_TEMP_NAME = re.compile(r"^\.(.+)\.[0-9a-f]{8}\.tmp$")  # what _replace names its temporary files

# The most an input file of each kind may hold (bytes); a bigger one is refused before it is read.
MAX_CONFIG_BYTES = 1 << 20  # a config is a few kB of YAML
MAX_RECORD_BYTES = 16 << 20  # a record is a few kB (a side-10 game has a few hundred events), comments included
MAX_JSON_BYTES = 64 << 20  # a results or cache file (ladder, ablate's matches): kB to a few MB
MAX_BOT_HEADER_BYTES = 16 << 20  # a bot file's JSON header (tensor table and settings): tens of kB
MAX_LINE_CHARS = 1 << 16  # a typed or piped command line (engine, play): a few dozen characters
MAX_JSON_DEPTH = 32  # nesting of a JSON input file (read_json): the project's files nest 3 or 4 deep


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


def write_bytes_atomic(path: str | os.PathLike, data: bytes, *, own: bool = False) -> Path:
    """Write ``data`` to ``path`` (see the module docstring); returns ``Path(path)``.

    ``own``: ``path`` is one of the program's own files (a run folder's replay buffer), never a
    person's choice of output: what stands there and is not a regular file (a FIFO, a device, a
    symlink to one) is replaced by the new file, never opened: writing a FIFO would wait for a
    reader, forever in practice, and stop the run at its next checkpoint.

    Any failure is an ``OSError`` whose message names ``path`` ("cannot write PATH: reason").
    """
    name = os.fspath(path)
    try:
        if not own and (name == STDOUT or writes_to_stdout(name)):
            _write_stdout(data)
            return Path(name)
        try:
            st = os.stat(name)  # follows symlinks
        except FileNotFoundError:
            st = None  # a new file, or a dangling symlink whose target is created
        if st is not None and stat.S_ISDIR(st.st_mode):
            raise IsADirectoryError(21, "Is a directory")
        special = (st is not None and not stat.S_ISREG(st.st_mode)) or _names_a_descriptor(name)
        if special and own:
            _replace(os.path.abspath(name), data, None)  # the entry itself (FIFO, link) replaced
        elif special:
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


# ------------------------------------------------------------------------------ reading


def _file_type(mode: int) -> str:
    """What a file that is not a regular one is, in words."""
    for test, words in ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a FIFO (named pipe)"),
                        (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
                        (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return words
    return "not a regular file"


def _check_input(name: str, info: os.stat_result, kind: str, limit: Optional[int], error: type) -> None:
    if not stat.S_ISREG(info.st_mode):
        raise error(f"{kind} {name} is {_file_type(info.st_mode)}, not a regular file")
    if limit is not None and info.st_size > limit:
        raise error(f"{kind} {name} is {info.st_size:,} bytes; a {kind} is at most {limit:,}")


def open_input(path: str | os.PathLike, kind: str, limit: Optional[int], error: type = UserError) -> BinaryIO:
    """``path`` opened for reading (binary, blocking) once it is known to be a regular file of at
    most ``limit`` bytes (None: any size, for files read lazily, headers first, such as zip
    archives); ``error(message)`` otherwise, one line naming ``kind`` and the file (see the module
    docstring). The file is not opened at all when ``stat`` already says it is not a regular file."""
    name = os.fspath(path)
    try:
        info = os.stat(name)
    except OSError as exc:
        raise error(f"cannot read {kind} {name}: {exc.strerror or exc}") from None
    _check_input(name, info, kind, limit, error)
    try:
        fd = os.open(name, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        raise error(f"cannot read {kind} {name}: {exc.strerror or exc}") from None
    try:
        _check_input(name, os.fstat(fd), kind, limit, error)  # the file opened, not one renamed over it
        os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def read_input(path: str | os.PathLike, kind: str, limit: int, error: type = UserError) -> bytes:
    """The bytes of an input file of at most ``limit`` bytes (``open_input``); never more than
    ``limit`` are read, should the file grow while it is read."""
    with open_input(path, kind, limit, error) as f:
        try:
            data = f.read(limit + 1)
        except OSError as exc:
            raise error(f"cannot read {kind} {os.fspath(path)}: {exc.strerror or exc}") from None
    if len(data) > limit:
        raise error(f"{kind} {os.fspath(path)} is more than {limit:,} bytes; a {kind} is at most {limit:,}")
    return data


def _shape(value: Any) -> tuple[int, Optional[float]]:
    """How deep ``value`` (parsed JSON) nests (0 for a scalar) and its first number that is not
    finite (None when all are); walked without recursion."""
    deepest, bad, stack = 0, None, [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, (dict, list)):
            deepest = max(deepest, depth + 1)
            stack.extend((child, depth + 1) for child in (item.values() if isinstance(item, dict) else item))
        elif isinstance(item, float) and not math.isfinite(item) and bad is None:
            bad = item
    return deepest, bad


def read_json(path: str | os.PathLike, kind: str, limit: int, error: type = UserError,
              max_depth: int = MAX_JSON_DEPTH, finite: bool = True) -> Any:
    """The JSON value of an input file of at most ``limit`` bytes (``read_input``), nested at most
    ``max_depth`` deep, every number finite (``finite`` False: a file whose writer stores
    infinities, such as an Elo of a match won 100%, may hold them); ``error(message)`` otherwise,
    one line naming ``kind`` and the file (module docstring). What the value must be (an object,
    its fields) is the caller's."""
    name = os.fspath(path)
    data = read_input(path, kind, limit, error)
    try:
        value = json.loads(data.decode("utf-8"))  # NaN, Infinity and 1e999 read as floats: refused below
    except UnicodeDecodeError:
        raise error(f"{kind} {name} is not UTF-8 text") from None
    except RecursionError:
        raise error(f"{kind} {name} is nested more than {max_depth} deep") from None
    except ValueError as exc:  # json.JSONDecodeError: the line and column of the fault
        raise error(f"{name} is not a readable {kind} (JSON): {' '.join(str(exc).split())[:200]}") from None
    depth, bad = _shape(value)
    if depth > max_depth:
        raise error(f"{kind} {name} is nested more than {max_depth} deep")
    if bad is not None and finite:
        raise error(f"{kind} {name} holds a number that is not finite ({bad})")
    return value


def bounded_lines(stream: TextIO, limit: int = MAX_LINE_CHARS) -> Iterator[Optional[str]]:
    """The lines of a text stream as ``for line in stream`` gives them, but never more than
    ``limit`` characters (and a newline) held: a longer line (a program writing without
    newlines, ``/dev/zero``) is read through and dropped in pieces of ``limit``, and yields
    ``None`` in its place, so the caller can answer it as a bad line and go on with the next."""
    while True:
        line = stream.readline(limit + 1)
        if not line:
            return
        if len(line) <= limit or line[limit:] == "\n":  # at most ``limit`` characters before its newline
            yield line
            continue
        while line and not line.endswith("\n"):  # the rest of the long line, a piece at a time
            line = stream.readline(limit)
        yield None


def remove_stale_temp_files(folder: str | os.PathLike) -> list[Path]:
    """Delete the temporary files that interrupted ``write_bytes_atomic`` calls left in ``folder``
    (``.NAME.XXXXXXXX.tmp``, regular files only; nothing else is touched); returns their paths.

    Call it only for a folder whose writer is not running (a run folder before its session
    starts): a temporary file being written now has the same name as a stale one."""
    removed = []
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return removed
    for entry in entries:
        if _TEMP_NAME.match(entry.name) and entry.is_file(follow_symlinks=False):
            try:
                os.unlink(entry.path)
            except FileNotFoundError:
                continue
            removed.append(Path(entry.path))
    return removed


class FolderLock:
    """An exclusive lock on a folder, held while this process runs: ``flock`` on a lock file in it,
    which the kernel releases when the holder dies (SIGKILL included), so a lock is never left
    stale. The file holds the holder's pid, which ``FolderBusy`` names."""

    def __init__(self, path: Path, handle: BinaryIO) -> None:
        self.path, self._handle = path, handle

    def release(self) -> None:
        _HELD.pop(self.path, None)
        if not self._handle.closed:
            self._handle.close()  # closing the descriptor releases the flock


# The folder locks this process holds, by lock file: the lock lives as long as its open file, so
# something must keep it open, and a second ``lock_folder`` of the same folder in this process (a
# run trained, then resumed, by one process) is the same writer, not another.
_HELD: dict[Path, FolderLock] = {}


class FolderBusy(UserError):
    """Another live process holds the folder's lock (the message names its pid)."""


def lock_folder(folder: str | os.PathLike, name: str, what: str) -> FolderLock:
    """Take ``folder/name``'s exclusive lock without waiting; ``FolderBusy`` (one line naming ``what``
    and the holder's pid) when another process holds it. The lock lasts until ``release`` or the
    end of this process; descriptors are not inherited by the processes it starts (Python's
    default), so a child left behind never keeps it."""
    import fcntl

    path = (Path(folder) / name).resolve()
    if path in _HELD:
        return _HELD[path]
    handle = open(path, "a+b")  # never truncated before the lock is ours: the holder's pid stays readable
    try:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        handle.seek(0)
        holder = handle.read(32).decode("ascii", "replace").strip() or "unknown"
        handle.close()
        raise FolderBusy(f"{what} is in use by another process (pid {holder}); one process writes a "
                         f"{what.split()[0]} folder at a time") from None
    handle.seek(0)
    handle.truncate()
    handle.write(f"{os.getpid()}\n".encode())
    handle.flush()
    _HELD[path] = FolderLock(path, handle)
    return _HELD[path]


def release_folder(folder: str | os.PathLike, name: str) -> None:
    """Hand back the lock ``lock_folder(folder, name, ...)`` took in this process (none held: nothing)."""
    held = _HELD.get((Path(folder) / name).resolve())
    if held is not None:
        held.release()
