"""CPU accounting of a run (train/cputime.py): shares by hand, actor restarts, the evaluation bound."""

from __future__ import annotations

import os
import subprocess
import sys
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


def test_ray_processes_are_reported_apart_from_idle():
    report = CpuReport(wall=100.0, cpus=2.0, selfplay_search=30.0, inference=90.0, learner=40.0, evaluation=10.0,
                       driver_other=5.0, positions=1200, ray_processes=6.0)
    assert report.idle == pytest.approx(19.0) and report.used == pytest.approx(175.0)  # not in the CPU bound
    assert report.shares()["ray_processes"] == pytest.approx(0.03)
    assert sum(report.shares().values()) == pytest.approx(1.0)
    assert "ray processes 3%, other processes 0%, idle 10%" in report.describe()


def test_other_processes_on_the_machine_are_reported_apart_from_idle(tmp_path, monkeypatch):
    report = CpuReport(wall=100.0, cpus=2.0, selfplay_search=30.0, inference=50.0, learner=40.0, evaluation=10.0,
                       driver_other=5.0, positions=1200, ray_processes=5.0, others=40.0)
    assert report.idle == pytest.approx(20.0) and report.used == pytest.approx(135.0)
    assert report.shares()["other_processes"] == pytest.approx(0.2) and sum(report.shares().values()) == pytest.approx(1.0)
    assert "other processes 20%, idle 10%" in report.describe()
    # /proc/stat's first line: busy is everything but idle and iowait, in clock ticks.
    stat = tmp_path / "stat"
    stat.write_text("cpu  100 20 30 500 40 5 5 0 0 0\ncpu0 1 2 3 4\n")
    ticks = os.sysconf("SC_CLK_TCK")
    from catena_zero.train.cputime import machine_busy_seconds

    assert machine_busy_seconds(str(stat)) == pytest.approx(160 / ticks)
    assert machine_busy_seconds(str(tmp_path / "missing")) is None


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="reads /proc (Linux)")
def test_a_busy_neighbour_is_counted_as_other_processes_not_idle():
    account = CpuAccount(cpus=float(os.cpu_count() or 1))
    neighbour = subprocess.Popen([sys.executable, "-c", "import time\nt = time.time()\nwhile time.time() - t < 1.5: pass"])
    neighbour.wait()
    report = account.report(ray_processes=True)
    assert report.others >= 0.5, report  # the neighbour's second and a half of CPU, give or take the rest of the machine


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="reads /proc (Linux)")
def test_a_busy_child_that_reports_nothing_is_counted_as_ray_processes_not_idle():
    # Ray's raylet and GCS run below the driver and report nothing: their CPU must not read as idle.
    account = CpuAccount(cpus=2.0)
    child = subprocess.Popen([sys.executable, "-c", "import time\nt = time.process_time()\n"
                              "while time.process_time() - t < 0.5: pass\ninput()"], stdin=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 30
        while account.report(ray_processes=True).ray_processes < 0.5 and time.monotonic() < deadline:
            time.sleep(0.05)
        report = account.report(ray_processes=True)
        assert report.ray_processes >= 0.5
        account.add_actor(0, report.ray_processes, 0.0, 0)  # the same seconds reported by an actor ...
        assert account.report(ray_processes=True).ray_processes < 0.1  # ... are the actor's, not Ray's
        assert account.report().ray_processes == 0.0  # the loop's cheap report does not read /proc
    finally:
        child.stdin.close()
        child.wait(timeout=10)
