"""CPU accounting of a run (train/cputime.py): shares by hand, actor restarts, the evaluation bound."""

from __future__ import annotations

import time

import pytest

from catena_zero.train.cputime import CpuAccount, CpuReport


def test_report_shares_and_idle_by_hand():
    report = CpuReport(wall=100.0, cpus=2.0, selfplay_search=30.0, inference=90.0, learner=40.0, evaluation=10.0,
                       driver_other=5.0, positions=1200)
    assert report.idle == pytest.approx(25.0)
    shares = report.shares()
    assert shares["inference"] == pytest.approx(0.45) and shares["idle"] == pytest.approx(0.125)
    assert sum(shares.values()) == pytest.approx(1.0)
    assert report.positions_per_selfplay_cpu_second == pytest.approx(10.0)
    assert "inference 45%" in report.describe() and "10.0 positions per self-play CPU-second" in report.describe()


def test_actor_totals_survive_a_replaced_actor():
    account = CpuAccount(cpus=2.0)
    account.add_actor(0, 10.0, 6.0, 100)
    account.add_actor(0, 25.0, 9.0, 100)  # the same process, later: its running total
    account.add_actor(1, 4.0, 2.0, 50)
    account.add_actor(0, 3.0, 1.0, 10)  # slot 0's process died and a new one started
    report = account.report()
    assert report.inference == pytest.approx(18.0)
    assert report.selfplay_search == pytest.approx(25.0 + 4.0 + 3.0 - 18.0)
    assert report.positions == 260


def test_evaluation_is_allowed_only_within_its_share(monkeypatch):
    clock = [1000.0]
    monkeypatch.setattr(time, "perf_counter", lambda: clock[0])
    account = CpuAccount(cpus=2.0, started=clock[0])
    assert account.evaluation_allowed(0.1, 0.0)  # nothing spent, cost unknown: the first one runs
    clock[0] += 100.0  # 100 s x 2 CPUs: a 10% share is 20 CPU-seconds
    account.evaluation = 15.0
    assert account.evaluation_allowed(0.1, 5.0)
    assert not account.evaluation_allowed(0.1, 6.0)
    clock[0] += 100.0
    assert account.evaluation_allowed(0.1, 25.0)
