"""Progress of a long command: a tqdm bar on stderr when it is a terminal, else a plain line a minute.

A match or a game review left in the background (``nohup ... > log``) has no terminal to draw a
bar on; without the plain lines its log stayed empty until the report, 35 minutes later for a
40-game match against ``mcts:10000``. A line is written only when something has finished since
the last one, so a log grows by at most one line a minute.
"""

from __future__ import annotations

import contextlib
import sys
import time
from typing import Callable, Iterator, Optional, TextIO

LOG_INTERVAL_S = 60.0  # between two plain progress lines where stderr is not a terminal


@contextlib.contextmanager
def progress_bar(total: int, description: str = "games", *, stream: Optional[TextIO] = None,
                 clock: Callable[[], float] = time.monotonic,
                 interval_s: Optional[float] = None) -> Iterator[Callable[[int, int], None]]:
    """Yields ``update(finished, total)`` for ``play_match(progress=...)``.

    On a terminal it draws a bar; elsewhere it writes ``games 12 of 40 finished (3.1 min)`` at most
    every ``interval_s`` seconds (default ``LOG_INTERVAL_S``), and only when the count has grown.
    """
    stream = sys.stderr if stream is None else stream
    if not stream.isatty():
        yield _log_lines(stream, description, clock, LOG_INTERVAL_S if interval_s is None else interval_s)
        return
    from tqdm import tqdm

    bar = tqdm(total=total, unit="game", desc=description, file=stream, leave=False)

    def update(finished: int, _total: int) -> None:
        bar.update(finished - bar.n)

    try:
        yield update
    finally:
        bar.close()


def _log_lines(stream: TextIO, description: str, clock: Callable[[], float],
               interval_s: float) -> Callable[[int, int], None]:
    start = clock()
    last_time, last_count = start, 0

    def update(finished: int, total: int) -> None:
        nonlocal last_time, last_count
        now = clock()
        if finished <= last_count or now - last_time < interval_s:
            return
        last_time, last_count = now, finished
        print(f"{description} {finished} of {total} finished ({(now - start) / 60:.1f} min)", file=stream,
              flush=True)

    return update
