"""Regenerate the README's analysis example: ``python scripts/readme_examples.py [--check]``.

The README shows a query piped to ``catena-zero analysis`` and the shipped bot's answers. The
answers change whenever the shipped bot for the query's rules does, so they are not typed in: this
script runs the query (on the CPU, as the test does) and writes the answers under it. ``--check``
only says whether the README is up to date (exit 1 when not); ``tests/test_analysis_engine.py``
compares the same answers.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import re
import sys
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"
# The example: a fenced block whose first line pipes one query into the engine, then its answers.
EXAMPLE = re.compile(r"```\n\$ echo '(?P<query>[^']+)' \| catena-zero analysis\n(?P<out>(?:\{.*\}\n)+)```")


def find_example(text: str) -> re.Match:
    match = EXAMPLE.search(text)
    if match is None:
        raise SystemExit("readme_examples: no analysis example (```\\n$ echo '...' | catena-zero analysis) in README.md")
    return match


def answers(query: str) -> str:
    """What ``catena-zero analysis --device cpu`` answers to the query, one JSON line a turn."""
    from catena_zero.cli import main

    out = io.StringIO()
    stdin, sys.stdin = sys.stdin, io.StringIO(query + "\n")
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
            status = main(["analysis", "--device", "cpu"])
    finally:
        sys.stdin = stdin
    if status != 0:
        raise SystemExit(f"readme_examples: catena-zero analysis exited {status}")
    return out.getvalue()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only check; exit 1 when the README is out of date")
    args = parser.parse_args(argv)
    text = README.read_text(encoding="utf-8")
    match = find_example(text)
    fresh = answers(match["query"])
    if fresh == match["out"]:
        print("readme_examples: the README's analysis example is up to date")
        return 0
    if args.check:
        print("readme_examples: the README's analysis example is out of date; run python scripts/readme_examples.py")
        return 1
    README.write_text(text[:match.start("out")] + fresh + text[match.end("out"):], encoding="utf-8")
    print(f"readme_examples: the analysis example in {README} rewritten")
    return 0


if __name__ == "__main__":
    sys.exit(main())
