"""The training progress line: its ETA counts the earlier sessions of a resumed run."""

import io

from catena_zero.train.progress import Progress


def _line(seconds_before: float) -> str:
    out = io.StringIO()
    progress = Progress(out, interval=0.0)
    progress.start(step=100, bounds={"minutes": 60.0}, seconds_before=seconds_before)
    progress.update(step=110, fields={"loss": "1.0"})
    return out.getvalue()


def test_eta_of_a_fresh_run_is_the_whole_bound():
    assert " eta 60.0 min" in _line(0.0)


def test_eta_of_a_resumed_run_subtracts_the_time_already_trained():
    # 30 minutes trained before the resume: 30 are left, not 60.
    assert " eta 30.0 min" in _line(30 * 60.0)


def test_eta_never_goes_negative():
    assert " eta 0.0 min" in _line(90 * 60.0)


def test_eta_of_a_cpu_bound_run_extrapolates_its_cpu_rate(monkeypatch):
    # A run bounded by 49 CPU-minutes (and a loose 1000-minute wall bound) that used 2 CPU-minutes
    # in its first minute has 47 / 2 = 23.5 minutes left, not the wall bound's 999.
    clock = iter([0.0, 60.0])
    monkeypatch.setattr("catena_zero.train.progress.time.perf_counter", lambda: next(clock))
    out = io.StringIO()
    progress = Progress(out, interval=0.0)
    progress.start(step=0, bounds={"minutes": 1000.0, "cpu_minutes": 49.0}, done={"cpu_minutes": 0.0})
    progress.update(step=10, fields={}, done={"cpu_minutes": 2.0})
    assert " eta 23.5 min" in out.getvalue()


def test_eta_of_a_positions_bound_extrapolates_the_positions_rate(monkeypatch):
    clock = iter([0.0, 30.0])
    monkeypatch.setattr("catena_zero.train.progress.time.perf_counter", lambda: next(clock))
    out = io.StringIO()
    progress = Progress(out, interval=0.0)
    progress.start(step=0, bounds={"positions": 10_000.0}, done={"positions": 1_000.0})
    progress.update(step=10, fields={}, done={"positions": 2_000.0})  # 1,000 per 30 s: 8,000 left
    assert " eta 4.0 min" in out.getvalue()
