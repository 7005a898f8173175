"""Progress of a match in the terminal: a tqdm bar on stderr when it is a terminal, nothing otherwise."""

from __future__ import annotations

import contextlib
import sys
from typing import Callable, Iterator


@contextlib.contextmanager
def progress_bar(total: int, description: str = "games") -> Iterator[Callable[[int, int], None]]:
    """Yields ``update(finished, total)`` for ``play_match(progress=...)``; a bar only on a terminal."""
    if not sys.stderr.isatty():
        yield lambda finished, total: None
        return
    from tqdm import tqdm

    bar = tqdm(total=total, unit="game", desc=description, file=sys.stderr, leave=False)

    def update(finished: int, _total: int) -> None:
        bar.update(finished - bar.n)

    try:
        yield update
    finally:
        bar.close()
