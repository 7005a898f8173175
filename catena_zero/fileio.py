"""Writing files so that nothing on disk is ever half-written: every output of the project goes
through ``write_bytes_atomic`` / ``write_text_atomic`` (records, pictures, checkpoints, tables).

A temporary file in the target's directory is written, flushed to disk and renamed over the
target (``os.replace`` is atomic on POSIX), so a reader or a crash sees the old file or the new
one, never a mixture.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def write_bytes_atomic(path: str | os.PathLike, data: bytes) -> Path:
    """Write ``data`` to ``path`` atomically (temp file in the same directory, fsync, rename)."""
    path = Path(path)
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    except OSError as exc:
        raise OSError(f"cannot write {path}: {exc.strerror}") from None
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except OSError as exc:
        Path(tmp).unlink(missing_ok=True)
        raise OSError(f"cannot write {path}: {exc.strerror}") from None
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path


def write_text_atomic(path: str | os.PathLike, text: str) -> Path:
    """Write ``text`` (UTF-8) to ``path`` atomically; see ``write_bytes_atomic``."""
    return write_bytes_atomic(path, text.encode("utf-8"))
