"""Files the README and the docs pages tell a person to write (``--out quick.bot``, ``--save game.txt``, ``--graph
review.png``, ``> g.txt``) are git-ignored where the commands are run, so following the README never
leaves untracked files for ``git add`` to pick up."""

from __future__ import annotations

import re
import shutil
import subprocess

import pytest

from web_helpers import ROOT

# A file a command writes: an output flag or a shell redirection, then a relative path.
WRITES = re.compile(r"(?:--out|--save|--save-records|--graph)[ =]([^\s`|;)]+)|(?<![\w-])>\s*([^\s`|;)>&]+)")  # not the '>' of a <placeholder>


def written_paths() -> list[str]:
    found = set()
    # RESULTS.md is the maintainers' record: its commands rewrite tracked books and figures on purpose.
    pages = [ROOT / "README.md", *sorted(p for p in (ROOT / "docs").glob("*.md") if p.name != "RESULTS.md")]
    lines = [line for page in pages for line in page.read_text(encoding="utf-8").splitlines()]
    for line in lines:
        if "catena-zero" not in line and "random-game" not in line:
            continue
        for match in WRITES.finditer(line.split(" # ")[0]):  # not the comment after a command
            path = match.group(1) or match.group(2)
            if path == "-" or path.isupper() or path.startswith(("/", "$")) or not re.search(r"[a-z]", path):
                continue  # standard output, a placeholder (FILE, DIR), an absolute path
            found.add(path)
    return sorted(found)


def test_every_file_the_readme_writes_is_git_ignored():
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.fail("this test needs git and the repository's .git")
    paths = written_paths()
    assert "quick.bot" in paths and "game.txt" in paths and len(paths) >= 5, paths
    probe = [p + "x" if p.endswith("/") else p for p in paths]  # a folder: a file inside it
    result = subprocess.run(["git", "check-ignore", "--no-index", "--stdin", "-z"], cwd=ROOT,
                            input="\0".join(probe), capture_output=True, text=True)
    ignored = set(result.stdout.split("\0")) - {""}
    assert not set(probe) - ignored, f"written by README commands but not git-ignored: {sorted(set(probe) - ignored)}"
    kept = subprocess.run(["git", "check-ignore", "--no-index", "-q", "catena_zero/bots/side6.bot"], cwd=ROOT)
    assert kept.returncode == 1  # the shipped bots stay tracked
