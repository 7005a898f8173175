"""Integrity of weights: checkpoints carry a SHA-256 of their contents, checked on every
load; non-finite weights are refused when written and when read; --resume falls back to the newest
intact checkpoint. (Bot files: test_bot_file_integrity.py.)"""

from __future__ import annotations

import io
import sys

import numpy as np
import pytest
import torch

from bot_files import save_tiny_checkpoint, tiny_config
from catena_zero.artifacts.checkpoint import (Checkpoint, CheckpointError, list_checkpoints, load_checkpoint,
                                          payload_digest, save_checkpoint)


def same_checkpoint(a: Checkpoint, b: Checkpoint) -> bool:
    return (a.step == b.step and a.config == b.config and a.counters == b.counters and set(a.model) == set(b.model)
            and all(torch.equal(a.model[k], b.model[k]) for k in a.model))


def test_single_bit_flips_are_refused_or_change_nothing(tmp_path):
    """Every flipped bit (sampled over the whole file) is refused, or lands where it changes nothing
    loaded (zip padding): never a silently changed weight."""
    path = save_tiny_checkpoint(tmp_path / "run", step=3)
    original = load_checkpoint(path)
    data = path.read_bytes()
    rng = np.random.default_rng(14)
    refused = 0
    for i, bit in enumerate(rng.choice(len(data) * 8, size=60, replace=False)):
        damaged = bytearray(data)
        damaged[bit // 8] ^= 1 << (bit % 8)
        target = tmp_path / f"flip-{i}.pt"
        target.write_bytes(bytes(damaged))
        try:
            loaded = load_checkpoint(target)
        except CheckpointError as exc:
            assert "\n" not in str(exc) and str(target) in str(exc)
            refused += 1
            continue
        assert same_checkpoint(loaded, original), f"bit {bit} changed the checkpoint silently"
    assert refused >= 40  # most of the file is tensor data, checked by the digest


def test_a_changed_weight_with_a_valid_zip_is_refused(tmp_path):
    """Weights rewritten (a valid torch file, the old checksum): the digest catches it."""
    path = save_tiny_checkpoint(tmp_path / "run", step=3)
    payload = torch.load(path, weights_only=True)
    name = next(iter(payload["model"]))
    payload["model"][name] = payload["model"][name].clone()
    payload["model"][name].view(-1)[0] = 2e37
    torch.save(payload, path)
    with pytest.raises(CheckpointError, match="do not match their checksum"):
        load_checkpoint(path)
    payload["step"] = 4
    payload["model"] = torch.load(save_tiny_checkpoint(tmp_path / "other", step=3), weights_only=True)["model"]
    torch.save(payload, path)
    with pytest.raises(CheckpointError, match="checksum"):  # a plain value changed (the step)
        load_checkpoint(path)
    del payload["sha256"]
    torch.save(payload, path)
    with pytest.raises(CheckpointError, match="checksum"):
        load_checkpoint(path)


def test_the_digest_covers_types_and_order():
    base = {"a": 1, "b": [1.0, 2.0], "t": torch.zeros(2)}
    variants = [{"a": True, "b": [1.0, 2.0], "t": torch.zeros(2)}, {"a": 1, "b": (1.0, 2.0), "t": torch.zeros(2)},
                {"a": 1, "b": [2.0, 1.0], "t": torch.zeros(2)}, {"a": 1, "b": [1.0, 2.0], "t": torch.zeros(1, 2)},
                {"a": 1, "b": [1.0, 2.0], "t": torch.zeros(2, dtype=torch.float64)}, {"a": "1", "b": [1.0, 2.0], "t": torch.zeros(2)}]
    digests = {payload_digest(v) for v in variants}
    assert len(digests) == len(variants) and payload_digest(base) not in digests
    assert payload_digest(dict(reversed(list(base.items())))) == payload_digest(base)


@pytest.mark.parametrize("value", [float("nan"), float("inf"), -float("inf")])
def test_non_finite_weights_are_refused_on_write_and_on_read(tmp_path, value):
    path = save_tiny_checkpoint(tmp_path / "run", step=3)
    checkpoint = load_checkpoint(path)
    model = {k: v.clone() for k, v in checkpoint.model.items()}
    name = next(k for k, v in model.items() if v.is_floating_point())
    model[name].view(-1)[0] = value
    with pytest.raises(CheckpointError, match="not finite"):
        save_checkpoint(tmp_path / "run", Checkpoint(step=5, config=checkpoint.config, model=model))
    assert [step for step, _ in list_checkpoints(tmp_path / "run")] == [3]
    # a file written with a valid checksum over NaN weights (by another program): refused on reading
    payload = torch.load(path, weights_only=True)
    payload["model"] = model
    payload["sha256"] = payload_digest(payload)
    torch.save(payload, path)
    with pytest.raises(CheckpointError, match="non-finite weights"):
        load_checkpoint(path)


def test_export_refuses_a_damaged_checkpoint_instead_of_stamping_it(tmp_path, capsys):
    from catena_zero.cli import main

    path = save_tiny_checkpoint(tmp_path / "run", step=3)
    payload = torch.load(path, weights_only=True)
    name = next(iter(payload["model"]))
    payload["model"][name].view(-1)[0] += 1.0
    torch.save(payload, path)
    assert main(["export", str(path), "--out", str(tmp_path / "b.bot")]) == 2
    assert "checksum" in capsys.readouterr().err and not (tmp_path / "b.bot").exists()


def test_resume_falls_back_to_the_newest_intact_checkpoint_and_says_so(tmp_path, capsys):
    import dataclasses

    from catena_zero.train.driver import TrainingRun, prepare_run
    from catena_zero.train.progress import Progress

    config = tiny_config()
    config = dataclasses.replace(config, run=dataclasses.replace(config.run, root=str(tmp_path), keep_last=5))
    run_dir, config = prepare_run(config, "t", "t", resume=False)
    first = TrainingRun(config, run_dir, resume=False, progress=Progress(io.StringIO(), 60.0))
    for step in (10, 20, 30):
        first.state.counters.step = step
        first._checkpoint()
    first.log.close()
    newest = list_checkpoints(run_dir)[-1][1]
    newest.write_bytes(newest.read_bytes()[:-100])  # truncated
    resumed = TrainingRun(config, run_dir, resume=True, progress=Progress(io.StringIO(), 60.0))
    resumed.log.close()
    err = capsys.readouterr().err
    assert resumed.state.counters.step == 20 and resumed.checkpoints.last.name == "step-00000020.pt"
    assert "skipping a damaged checkpoint" in err and "step-00000030.pt" in err
    assert "resuming from step-00000020.pt" in err
    assert resumed.checkpoints.previous_weights is not None  # step 10's


def _run_with_checkpoints(tmp_path, steps=(10, 20)):
    """A tiny run folder with checkpoints at ``steps`` (and its replay.npz), made without Ray."""
    import dataclasses

    from catena_zero.train.driver import TrainingRun, prepare_run
    from catena_zero.train.progress import Progress

    config = tiny_config()
    config = dataclasses.replace(config, run=dataclasses.replace(config.run, root=str(tmp_path), keep_last=5))
    run_dir, config = prepare_run(config, "t", "t", resume=False)
    first = TrainingRun(config, run_dir, resume=False, progress=Progress(io.StringIO(), 60.0))
    for step in steps:
        first.state.counters.step = step
        first._checkpoint()
    first.log.close()
    return config, run_dir, first


def _resume(config, run_dir):
    from catena_zero.train.driver import TrainingRun, prepare_run
    from catena_zero.train.progress import Progress

    run_dir, config = prepare_run(config, "t", "t", resume=True)
    resumed = TrainingRun(config, run_dir, resume=True, progress=Progress(io.StringIO(), 60.0))
    resumed.log.close()
    return resumed


@pytest.mark.parametrize("damage", ["truncated", "garbage", "fifo"])
def test_a_damaged_replay_buffer_does_not_block_resume(tmp_path, capsys, damage):
    """Issue 25: a damaged replay.npz blocked --resume with no hint. The run now resumes from its
    checkpoint with an empty buffer, and one line says so."""
    import os

    config, run_dir, first = _run_with_checkpoints(tmp_path)
    replay = run_dir / "replay.npz"
    if damage == "truncated":
        replay.write_bytes(replay.read_bytes()[:-50])
    elif damage == "garbage":
        replay.write_bytes(b"not a zip file\n" * 100)
    else:
        replay.unlink()
        os.mkfifo(replay)  # would hang the resume forever
    capsys.readouterr()
    resumed = _resume(config, run_dir)
    err = capsys.readouterr().err
    assert resumed.state.counters.step == 20 and len(resumed.replay) == 0
    lines = [line for line in err.splitlines() if "replay" in line]
    assert len(lines) == 1 and "resuming with an empty replay buffer" in lines[0] and "replay.npz" in lines[0], err
    assert all(torch.equal(a, b) for a, b in zip(resumed.learner.weights().values(), first.learner.weights().values()))


def test_resume_removes_the_temporary_files_a_killed_write_left(tmp_path, capsys):
    """Issue 25: a SIGKILL during a replay, checkpoint or config write left ``.NAME.XXXXXXXX.tmp``
    files that no later session removed. Opening the run folder for writing removes those (only
    the atomic writer's: other files stay)."""
    config, run_dir, _ = _run_with_checkpoints(tmp_path, steps=(10,))
    stale = [run_dir / ".replay.npz.1234abcd.tmp", run_dir / ".config.yaml.deadbeef.tmp",
             run_dir / "ckpt" / ".step-00000020.pt.00ff00ff.tmp"]
    kept = [run_dir / "notes.txt", run_dir / ".replay.npz.tmp", run_dir / "ckpt" / "step-x.tmp"]
    for path in stale + kept:
        path.write_bytes(b"\0" * 1000)
    capsys.readouterr()
    resumed = _resume(config, run_dir)
    err = capsys.readouterr().err
    assert resumed.state.counters.step == 10
    assert not any(p.exists() for p in stale) and all(p.exists() for p in kept)
    assert "removed 3 temporary file(s)" in err and err.count("temporary") == 1, err


def test_the_continue_with_command_keeps_the_runs_overrides_and_is_accepted(tmp_path, capsys, monkeypatch):
    """Issue 25: the end-of-run 'continue with:' line dropped --set (and --seed), so the command it
    suggested was refused ('--resume would change ...'). It now repeats them, quoted for a shell."""
    import shlex

    import catena_zero.train.driver as driver
    from bot_files import TINY
    from catena_zero.cli import main
    from catena_zero.commands.common import program_words

    def fake_train(config, default_name, run_name=None, resume=False, **_):
        run_dir, config = driver.prepare_run(config, default_name, run_name, resume)
        return driver.RunSummary(run_dir=run_dir, checkpoint=None, step=0, positions=0, games=0, minutes=0.0,
                                 stop_reason="bound reached: 0 steps", last_eval=None, actor_restarts=0,
                                 actor_nodes=1)

    monkeypatch.setattr(driver, "train", fake_train)
    root = tmp_path / "my runs"
    argv = ["train", "--config", str(TINY), "--set", "net.channels=8", "--set", f"run.root={root}",
            "--set", "search.num_simulations=5", "--seed", "3"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    line = next(line for line in out.splitlines() if line.startswith("continue with: "))
    words = shlex.split(line[len("continue with: "):])
    start = words.index("train")
    assert words[:start] == program_words() and "--resume" in words
    assert main(words[start:]) == 0, capsys.readouterr().err
    assert (root / "tiny" / "config.yaml").exists() and not (root / "tiny-2").exists()
