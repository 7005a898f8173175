"""Writing outputs (fileio.py): atomic for regular files, and what ``> FILE`` does otherwise:
symlinks followed, the umask respected, ``-`` and ``/dev/stdout`` are standard output, special
files written in place."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from catena_zero.fileio import check_writable, write_text_atomic, writes_to_stdout

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def umask():
    """Set a umask for one test and restore the old one."""
    old = os.umask(0o022)
    yield lambda mask: os.umask(mask)
    os.umask(old)


def mode(path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


@pytest.mark.parametrize("mask, expected", [(0o022, 0o644), (0o077, 0o600), (0o002, 0o664)])
def test_new_files_get_the_umask_permissions(tmp_path, umask, mask, expected):
    umask(mask)
    write_text_atomic(tmp_path / "g.txt", "x\n")
    assert mode(tmp_path / "g.txt") == expected


def test_existing_file_keeps_its_permissions_and_no_temp_file_is_left(tmp_path, umask):
    path = tmp_path / "g.txt"
    path.write_text("old\n")
    path.chmod(0o640)
    write_text_atomic(path, "new\n")
    assert path.read_text() == "new\n" and mode(path) == 0o640
    assert sorted(p.name for p in tmp_path.iterdir()) == ["g.txt"]


def test_symlink_is_followed_and_stays_a_link(tmp_path):
    real = tmp_path / "records" / "real.txt"
    real.parent.mkdir()
    real.write_text("old\n")
    link = tmp_path / "g.txt"
    link.symlink_to(Path("records") / "real.txt")
    write_text_atomic(link, "new\n")
    assert link.is_symlink() and real.read_text() == "new\n"
    assert sorted(p.name for p in real.parent.iterdir()) == ["real.txt"]  # the temp file went beside the target
    dangling = tmp_path / "d.txt"
    dangling.symlink_to("records/created.txt")
    write_text_atomic(dangling, "made\n")
    assert dangling.is_symlink() and (real.parent / "created.txt").read_text() == "made\n"


def test_dash_is_standard_output(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert writes_to_stdout("-")
    write_text_atomic("-", "to stdout\n")
    assert capsys.readouterr().out == "to stdout\n"
    assert not (tmp_path / "-").exists()


def test_special_files_are_written_in_place(tmp_path):
    write_text_atomic("/dev/null", "gone\n")  # replacing /dev/null by a file would break the machine
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    got = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_text()))
    reader.start()
    write_text_atomic(fifo, "through the pipe\n")
    reader.join(timeout=10)
    assert got == ["through the pipe\n"] and stat.S_ISFIFO(os.stat(fifo).st_mode)


@pytest.mark.parametrize("target", ["/dev/stdout", "/proc/self/fd/1"])
def test_dev_stdout_redirected_to_a_file_appends_to_what_was_printed(tmp_path, target):
    """With stdout redirected to a file, writing /dev/stdout must neither replace that file
    (the shell's descriptor would then point at a deleted one) nor truncate what was printed."""
    out = tmp_path / "out.txt"
    code = ("import sys; from catena_zero.fileio import write_text_atomic; print('before', flush=True); "
            f"write_text_atomic({target!r}, 'record\\n'); print('after')")
    with open(out, "w") as f:
        subprocess.run([sys.executable, "-c", code], stdout=f, check=True, cwd=ROOT,
                       env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert out.read_text() == "before\nrecord\nafter\n"


def test_dev_stdout_into_a_pipe(tmp_path):
    code = "from catena_zero.fileio import write_text_atomic; write_text_atomic('/dev/stdout', 'piped\\n')"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.stdout == "piped\n"


def test_errors_name_the_path(tmp_path):
    with pytest.raises(OSError, match=r"cannot write .*missing/g.txt: No such file or directory"):
        write_text_atomic(tmp_path / "missing" / "g.txt", "x")
    with pytest.raises(OSError, match="Is a directory"):
        write_text_atomic(tmp_path, "x")


def test_check_writable_before_a_long_task(tmp_path):
    check_writable(tmp_path / "new.txt")  # a new file in an existing folder
    check_writable("-")
    check_writable("/dev/null")
    assert not (tmp_path / "new.txt").exists()  # checking creates nothing
    with pytest.raises(OSError, match=r"cannot write .*nope/g.txt: No such file or directory"):
        check_writable(tmp_path / "nope" / "g.txt")
    with pytest.raises(OSError, match="Is a directory"):
        check_writable(tmp_path)


# ------------------------------------------------------------------------------ reading


def test_open_input_refuses_special_files_and_big_files_before_reading(tmp_path):
    from catena_zero.errors import UserError
    from catena_zero.fileio import open_input, read_input

    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)  # opening it for reading would block until a writer comes: refused at once
    with pytest.raises(UserError, match=r"^record .*pipe is a FIFO \(named pipe\), not a regular file$"):
        open_input(fifo, "record", 100)
    with pytest.raises(UserError, match=r"^config /dev/zero is a character device, not a regular file$"):
        read_input("/dev/zero", "config", 100)
    with pytest.raises(UserError, match="is a folder, not a regular file"):
        read_input(tmp_path, "config", 100)
    with pytest.raises(UserError, match=r"^cannot read config .*nope\.yaml: No such file or directory$"):
        read_input(tmp_path / "nope.yaml", "config", 100)
    huge = tmp_path / "huge.yaml"
    with open(huge, "wb") as f:
        f.truncate(3 * 10**9)  # sparse: no disk used, and none of it may be read
    with pytest.raises(UserError, match=r"huge\.yaml is 3,000,000,000 bytes; a config is at most 100$"):
        read_input(huge, "config", 100)
    small = tmp_path / "small.yaml"
    small.write_bytes(b"x" * 100)
    assert read_input(small, "config", 100) == b"x" * 100


def test_remove_stale_temp_files_takes_only_the_writers_own(tmp_path):
    from catena_zero.fileio import remove_stale_temp_files

    names = [".replay.npz.0a1b2c3d.tmp", ".config.yaml.ffffffff.tmp", "replay.npz", ".replay.npz.tmp",
             ".replay.npz.0A1B2C3D.tmp", "x.0a1b2c3d.tmp", ".keep.0a1b2c3d.tmp.bak"]
    for name in names:
        (tmp_path / name).write_text("x")
    (tmp_path / ".dir.0a1b2c3d.tmp").mkdir()
    removed = remove_stale_temp_files(tmp_path)
    assert sorted(p.name for p in removed) == [".config.yaml.ffffffff.tmp", ".replay.npz.0a1b2c3d.tmp"]
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(set(names + [".dir.0a1b2c3d.tmp"])
                                                                - {p.name for p in removed})
    assert remove_stale_temp_files(tmp_path / "missing") == []


def _special_inputs(tmp_path: Path) -> dict[str, Path]:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    huge = tmp_path / "huge"
    with open(huge, "wb") as f:
        f.truncate(3 * 10**9)
    return {"fifo": fifo, "zero": Path("/dev/zero"), "huge": huge}


@pytest.mark.parametrize("kind", ["fifo", "zero", "huge"])
@pytest.mark.parametrize("argv, fragment", [
    (["show", "{}"], "record"),
    (["random-game", "--config", "{}"], "config"),
    (["engine", "--bot", "{}"], ""),
    (["export", "{}", "--out", "{out}"], ""),  # named as any network file (a checkpoint or a bot file), as evaluate does
    (["evaluate", "{}", "random", "--games", "2"], ""),
    (["ablate", "{}", "--no-train", "--results", "-"], "ablation plan"),
])
def test_commands_refuse_a_fifo_dev_zero_or_a_huge_file_in_one_line_and_at_once(tmp_path, capsys, kind, argv,
                                                                                fragment):
    """Issue 25: a FIFO hung every command, /dev/zero or a 3 GB file was read whole first (24 s
    for a sparse bot file). Each is now one line, within a second or two (a hang is ended by a
    watchdog that opens the FIFO for writing, and fails the test)."""
    import time

    from catena_zero.cli import main

    path = _special_inputs(tmp_path)[kind]
    out = tmp_path / "out.bot"
    args = [a.format(path, out=out) for a in argv]
    released = []

    def watchdog() -> None:
        time.sleep(20)
        if kind == "fifo" and not finished:
            released.append(True)
            os.close(os.open(path, os.O_WRONLY))  # meets the blocked reader: it reads an empty file

    finished = False
    threading.Thread(target=watchdog, daemon=True).start()
    started = time.perf_counter()
    code = main(args)
    finished = True
    seconds = time.perf_counter() - started
    err = capsys.readouterr().err
    assert not released, "the command blocked on the FIFO"
    assert code == 2 and err.startswith("catena-zero: error: ") and err.count("\n") == 1, err
    assert str(path) in err and fragment in err, err
    assert seconds < 10, seconds
