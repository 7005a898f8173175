"""Progress of a training run in the terminal: a tqdm bar on a terminal, plain lines in a log file."""

from __future__ import annotations

import time
from typing import TextIO


class Progress:
    """Shows the learner step against the run's bounds, with a few rates and the last evaluation.

    On a terminal (``out.isatty()``) a tqdm bar over the tightest bound (steps, or minutes, or
    positions) with its ETA; otherwise one plain line every ``interval`` seconds, so a log file
    stays readable.
    """

    def __init__(self, out: TextIO, interval: float) -> None:
        self.out = out
        self.interval = interval
        self.bar = None
        self._last_line = 0.0
        self._bounds: dict[str, float] = {}
        self._started = 0.0
        self._start_step = 0
        self._seconds_before = 0.0
        self._done_at_start: dict[str, float] = {}

    def start(self, step: int, bounds: dict[str, float], seconds_before: float = 0.0,
              done: dict[str, float] | None = None) -> None:
        """``seconds_before``: training time of the run's earlier sessions (a resume), which
        counts against the minutes bound. ``done``: how far the run is toward its other bounds
        (``positions``, ``cpu_minutes``), whose ETAs extrapolate this session's rate."""
        self._bounds = bounds
        self._seconds_before = seconds_before
        self._done_at_start = dict(done or {})
        self._started = time.perf_counter()
        self._start_step = step
        self._last_line = self._started
        if self.out.isatty():
            from tqdm import tqdm

            total = bounds.get("steps")
            self.bar = tqdm(total=total, initial=step, unit="step", file=self.out, dynamic_ncols=True,
                            desc="training", smoothing=0.1)

    def update(self, step: int, fields: dict[str, str], done: dict[str, float] | None = None) -> None:
        """``done``: the run's current ``positions`` and ``cpu_minutes`` (as in ``start``)."""
        now = time.perf_counter()
        if self.bar is not None:
            self.bar.n = step
            minutes = (self._seconds_before + now - self._started) / 60
            if "minutes" in self._bounds:
                fields = {"min": f"{minutes:.1f}/{self._bounds['minutes']:g}", **fields}
            self.bar.set_postfix(fields, refresh=False)
            if now - self._last_line > 0.5:  # redraw at most twice a second
                self.bar.refresh()
                self._last_line = now
            return
        if now - self._last_line >= self.interval:
            self._last_line = now
            elapsed = now - self._started
            rate = (step - self._start_step) / max(elapsed, 1e-9)
            text = " ".join(f"{k} {v}" for k, v in fields.items())
            eta = self._eta(step, rate, elapsed, done or {})
            print(f"[{elapsed / 60:5.1f} min] step {step} ({rate:.2f}/s) {text}{eta}", file=self.out, flush=True)

    def _eta(self, step: int, rate: float, elapsed: float, done: dict[str, float]) -> str:
        etas = []
        if "steps" in self._bounds and rate > 0:
            etas.append((self._bounds["steps"] - step) / rate)
        if "minutes" in self._bounds:
            etas.append(self._bounds["minutes"] * 60 - self._seconds_before - elapsed)
        for kind in ("positions", "cpu_minutes"):  # at this session's rate so far
            if kind in self._bounds and kind in done and kind in self._done_at_start and elapsed > 0:
                kind_rate = (done[kind] - self._done_at_start[kind]) / elapsed
                if kind_rate > 0:
                    etas.append((self._bounds[kind] - done[kind]) / kind_rate)
        return f" eta {max(min(etas), 0) / 60:.1f} min" if etas else ""

    def note(self, text: str) -> None:
        """A message above the bar (or a plain line)."""
        if self.bar is not None:
            self.bar.write(text, file=self.out)
        else:
            print(text, file=self.out, flush=True)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
            self.bar = None
