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
