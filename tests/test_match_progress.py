"""A match's progress where stderr is not a terminal (a log): a plain line at most once a minute."""

import io
import re

from catena_zero.cli import main
from catena_zero.eval.progress import progress_bar


class _Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_a_log_gets_a_line_once_the_interval_has_passed_and_games_have_finished():
    # And none where nothing has finished since the last line (a ply of a long game).
    out, clock = io.StringIO(), _Clock()
    with progress_bar(40, stream=out, clock=clock, interval_s=60.0) as update:
        clock.now = 30.0
        update(5, 40)            # too soon: nothing
        assert out.getvalue() == ""
        clock.now = 61.0
        update(6, 40)
        assert out.getvalue() == "games 6 of 40 finished (1.0 min)\n"
        clock.now = 130.0
        update(6, 40)            # a ply later, no game finished since the last line: nothing
        assert out.getvalue().count("\n") == 1
        clock.now = 140.0
        update(7, 40)
        clock.now = 150.0
        update(9, 40)            # 10 s after the last line: nothing
    assert out.getvalue().splitlines()[1:] == ["games 7 of 40 finished (2.3 min)"]


def test_a_terminal_gets_a_bar_not_lines():
    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    out, clock = Terminal(), _Clock()
    with progress_bar(4, stream=out, clock=clock, interval_s=0.0) as update:
        clock.now = 120.0
        update(2, 4)
    assert "finished (" not in out.getvalue() and "/4 [" in out.getvalue()  # tqdm's bar


def test_evaluate_in_a_log_says_how_many_games_have_finished(capsys, monkeypatch):
    monkeypatch.setattr("catena_zero.eval.progress.LOG_INTERVAL_S", 0.0)
    assert main(["evaluate", "catena_zero/bots/side4.bot", "random", "--games", "4", "--sims", "2"]) == 0
    lines = capsys.readouterr().err.splitlines()
    assert lines and all(re.fullmatch(r"games [1-4] of 4 finished \(\d+\.\d min\)", line) for line in lines), lines
    counts = [int(line.split()[1]) for line in lines]
    assert counts == sorted(set(counts))  # each line reports more games than the one before
