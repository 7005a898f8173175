"""The parts of a training session (train/driver.py): its state record (``RunState``), its in-loop
evaluation schedule (train/inloop_schedule.py) and its checkpointer (train/checkpointer.py),
each without Ray (the schedule's Ray calls are replaced by synchronous stand-ins)."""

from __future__ import annotations

import dataclasses
import io

import numpy as np
import pytest
import torch

from bot_files import tiny_config
from catena_zero.game.options import GameConfig, RuleSet
from catena_zero.train import inloop_schedule
from catena_zero.train.cputime import CpuAccount
from catena_zero.train.inloop import InLoopResult
from catena_zero.train.progress import Progress


def _config(interval=5, games=2, share=0.5):
    config = tiny_config()
    return dataclasses.replace(config, eval=dataclasses.replace(config.eval, interval_steps=interval, games=games,
                                                                max_cpu_share=share))


class _Log:
    def __init__(self):
        self.points = []

    def evaluation(self, step, result):
        self.points.append((step, result))


class _Remote:
    """A stand-in for selfplay.workers.RemoteRunner: a call is the call itself."""

    def __init__(self, finished=True, lost=False):
        self.calls, self.finished, self.lost = [], finished, lost
        self.opened = self.shut = 0

    def __call__(self):  # the schedule's runner factory
        self.opened += 1
        return self

    def submit(self, function, *args):
        self.calls.append(args)
        return function(*args)

    def poll(self, ref):
        if self.lost:
            raise inloop_schedule.RemoteTaskLost("its process died (OutOfMemoryError)")
        return (True, ref) if self.finished else (False, None)

    def wait(self, ref):
        return self.poll(ref)[1] if self.finished or self.lost else ref

    def shutdown(self):
        self.shut += 1


def _evaluate(config, weights, previous, komi_estimates, seed, step=0):
    return InLoopResult(step=step, game=GameConfig(side=3), games=config.eval.games, win_rates={"random": 0.75},
                        cpu_seconds=2.0)


def _schedule(config, evaluate=_evaluate, remote=None):
    out = io.StringIO()
    log = _Log()
    schedule = inloop_schedule.InLoopSchedule(evaluate, config, np.random.SeedSequence(1), Progress(out, 60.0), log)
    schedule.open(remote or _Remote())
    return schedule, log, out


def test_the_schedule_is_due_at_its_interval_only():
    schedule, _, _ = _schedule(_config(interval=5))
    assert [s for s in range(1, 16) if schedule.due(s)] == [5, 10, 15]
    never, _, _ = _schedule(_config(interval=0))
    assert not any(never.due(s) for s in range(0, 20))


def test_one_evaluation_at_a_time_its_result_logged_and_counted():
    remote = _Remote(finished=False)
    schedule, log, out = _schedule(_config(), remote=remote)
    cpu = CpuAccount(2.0)
    asked = []
    weights = lambda: asked.append(1) or {"w": torch.zeros(1)}  # noqa: E731
    komi = {RuleSet.from_key("side3-komi-standard"): 7}
    schedule.start(5, cpu, weights, None, komi)
    schedule.start(6, cpu, weights, None, komi)  # one in flight: skipped, never queued
    assert len(remote.calls) == 1 and len(asked) == 1 and schedule.skipped == 0
    assert remote.calls[0][3] == komi and remote.calls[0][3] is not komi  # a copy travels
    schedule.poll(cpu)
    assert schedule.last is None and log.points == []  # not finished yet
    remote.finished = True
    schedule.poll(cpu)
    assert schedule.pending is None and schedule.last.step == 5 and log.points == [(5, schedule.last)]
    assert schedule.last_cpu == 2.0 and cpu.evaluation == 2.0
    assert "step 5: network scores 75% vs random" in out.getvalue()


def test_an_evaluation_over_the_cpu_share_is_skipped_unless_it_is_the_last():
    remote = _Remote()
    schedule, _, _ = _schedule(_config(share=0.01), remote=remote)
    cpu = CpuAccount(2.0)
    schedule.last_cpu = 1e6  # the next one is expected to cost far more than 1% of the session
    schedule.start(5, cpu, lambda: {}, None, {})
    assert remote.calls == [] and schedule.skipped == 1
    schedule.start(5, cpu, lambda: {}, None, {}, final=True)
    assert len(remote.calls) == 1 and schedule.skipped == 1


def test_finish_plays_the_last_evaluation_once_and_a_lost_one_is_skipped():
    remote = _Remote()
    schedule, log, _ = _schedule(_config(), remote=remote)
    cpu = CpuAccount(2.0)
    final = lambda: schedule.start(9, cpu, lambda: {}, None, {}, final=True)  # noqa: E731
    schedule.finish(9, cpu, final)
    assert [step for step, _ in log.points] == [9] and schedule.pending is None
    schedule.finish(9, cpu, final)  # the step's evaluation exists: not played again
    assert len(remote.calls) == 1
    remote.lost = True
    schedule.start(10, cpu, lambda: {}, None, {})
    schedule.poll(cpu)
    assert schedule.pending is None and schedule.skipped == 1 and len(log.points) == 1
    schedule.close()
    assert remote.opened == 1 and remote.shut == 1 and schedule.runner is None


def test_no_evaluation_without_a_function_or_games():
    remote = _Remote()
    for schedule in (_schedule(_config(), evaluate=None, remote=remote)[0],
                     _schedule(_config(games=0), remote=remote)[0]):
        def start(final=False, schedule=schedule):
            schedule.start(5, CpuAccount(2.0), lambda: pytest.fail("no weights needed"), None, {}, final=final)

        start()
        schedule.finish(5, CpuAccount(2.0), lambda: start(final=True))
        schedule.close()
        assert schedule.last is None and schedule.skipped == 0
    assert remote.calls == [] and remote.opened == 0  # no process started for matches never played


def _session(tmp_path, resume=False):
    from catena_zero.train.driver import TrainingRun, prepare_run

    config = tiny_config()
    config = dataclasses.replace(config, run=dataclasses.replace(config.run, root=str(tmp_path), keep_last=5))
    run_dir, config = prepare_run(config, "t", "t", resume=resume)
    return TrainingRun(config, run_dir, resume=resume, progress=Progress(io.StringIO(), 60.0))


def test_a_session_holds_only_its_declared_parts_and_its_state_only_its_fields(tmp_path):
    from catena_zero.train.driver import RunState

    session = _session(tmp_path)
    try:
        with pytest.raises(AttributeError):
            session.last_losses = None  # state lives in RunState, not on the session
        with pytest.raises(AttributeError):
            session.state.last_image = 3  # no field made on the fly
        assert {f.name for f in dataclasses.fields(RunState)} >= {"counters", "komi_estimates", "last_board_step"}
    finally:
        session.log.close()


def test_the_checkpointer_keeps_the_last_and_the_previous_and_resumes_from_them(tmp_path, capsys):
    session = _session(tmp_path)
    session.state.komi_estimates = {RuleSet.from_key("side3-komi-standard"): 6}
    weights = []
    for step in (10, 20):
        session.state.counters.step = step
        session._checkpoint()
        weights.append({k: v.clone() for k, v in session.learner.averaged_weights().items()})
        with torch.no_grad():
            next(iter(session.learner.model.parameters())).add_(1.0)  # the next checkpoint's weights differ
    session.log.close()
    checkpoints = session.checkpoints
    assert checkpoints.last.name == "step-00000020.pt" and (session.run_dir / "replay.npz").exists()
    assert all(torch.equal(checkpoints.previous_weights[k], weights[0][k]) for k in weights[0])
    assert checkpoints.last_learner_state() is not None
    capsys.readouterr()
    resumed = _session(tmp_path, resume=True)
    resumed.log.close()
    assert resumed.state.counters.step == 20 and resumed.checkpoints.last.name == "step-00000020.pt"
    assert all(torch.equal(resumed.checkpoints.previous_weights[k], weights[0][k]) for k in weights[0])
    assert resumed.state.komi_estimates == {RuleSet.from_key("side3-komi-standard"): 6}
    assert capsys.readouterr().err == ""  # nothing damaged, nothing said
