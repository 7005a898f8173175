"""Training runs end to end on a local Ray (train/driver.py, commands/train.py): a few steps write
checkpoints, TensorBoard events and the config; --resume continues; a changed config is refused;
a run killed with SIGKILL resumes from its last checkpoint."""

from __future__ import annotations

import dataclasses
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import torch

from catena_zero.cli import main
from catena_zero.config import load_config
from catena_zero.artifacts.checkpoint import list_checkpoints, load_checkpoint
from catena_zero.train.learner import learning_rate

ROOT = Path(__file__).resolve().parent.parent
QUICK = str(ROOT / "configs/quick.yaml")
SETTINGS = [
    "game.side=2", "net.blocks=1", "net.channels=8", "net.head_channels=4", "net.value_hidden=8",
    "net.global_pool_every=0", "search.num_simulations=2", "search.gumbel_num_considered=2",
    "selfplay.games_per_actor=8", "selfplay.cheap_simulations=1", "replay.min_positions=30",
    "replay.window_min=500", "train.batch_size=16", "train.warmup_steps=2", "eval.interval_steps=4",
    "eval.games=2", "eval.uct_simulations=4", "eval.simulations=2", "run.checkpoint_interval=3",
    "run.num_cpus=2", "run.num_actors=1", "run.log_interval_seconds=1000",
]


def _argv(root: Path, *flags: str, sets=(), name: str = "t") -> list[str]:
    argv = ["train", "--config", QUICK, "--run-name", name, "--set", f"run.root={root}", *flags]
    for item in [*SETTINGS, *sets]:
        argv += ["--set", item]
    return argv


def _last_step(run_dir: Path) -> int:
    return [step for step, _ in list_checkpoints(run_dir)][-1]


OVER_RUN = ["train.ema_decay=0.5", "train.lr_schedule=cosine", "train.lr_decay_over_run=true"]


def test_run_checkpoints_logs_and_resumes(tmp_path, capsys):
    assert main(_argv(tmp_path, sets=["run.max_steps=5", *OVER_RUN])) == 0
    run_dir = tmp_path / "t"
    out = capsys.readouterr().out
    assert "newest checkpoint:" in out and "tensorboard --logdir" in out
    assert re.search(r"last evaluation \(step \d\): network scores \d+% vs random", out), out  # played in Ray
    assert "CPU time (2 CPUs x" in out and "positions per self-play CPU-second" in out
    if os.path.isdir("/proc/self"):  # Ray's own processes, read before Ray ends, are not idle
        assert int(re.search(r"ray processes (\d+)%", out).group(1)) >= 1, out
        assert re.search(r"other processes \d+%, idle \d+%", out), out  # the machine's other work, apart
    # Five steps leave the in-loop curve a point or two: the end says how to draw it from the checkpoints.
    evaluations = int(re.search(r"learning curve: (\d) in-loop evaluation\(s\) this session", out).group(1))
    assert 1 <= evaluations < 3 and f"catena-zero ladder {run_dir} --checkpoints 6" in out
    assert f"catena-zero curves {run_dir} --out t-curve.png" in out
    steps = [step for step, _ in list_checkpoints(run_dir)]
    assert steps[-1] == 5 and 3 in steps
    checkpoint = load_checkpoint(run_dir)
    # With a weight average, the checkpoint's network is the average, not the raw weights.
    learner_state = checkpoint.extra["learner"]
    assert all(torch.equal(checkpoint.model[k], v) for k, v in learner_state["average"].items())
    assert any(not torch.equal(checkpoint.model[k], v) for k, v in learner_state["model"].items()
               if v.is_floating_point())
    assert checkpoint.counters["positions"] > 0
    assert all(torch.isfinite(v).all() for v in checkpoint.model.values() if v.is_floating_point())
    assert list((run_dir / "tensorboard").glob("events.out.tfevents.*"))
    config = load_config(run_dir / "config.yaml")
    assert config.run.max_steps == 5
    # The decay spread over the run: the last step (0-based 4) is 4/5 of the way to the bound.
    last_rate = learner_state["optimizer"]["param_groups"][0]["lr"]
    assert last_rate == pytest.approx(learning_rate(config.train, 4, run_progress=4 / 5))
    assert last_rate < 0.5 * config.train.learning_rate
    # Resume with a higher bound (bounds may change): the step count goes on from 5.
    assert main(_argv(tmp_path, "--resume", sets=["run.max_steps=8", *OVER_RUN])) == 0
    assert _last_step(run_dir) == 8
    resumed = load_checkpoint(run_dir).counters
    assert resumed["samples"] == checkpoint.counters["samples"] + 3 * 16  # 3 more batches of 16
    assert resumed["seconds"] > checkpoint.counters["seconds"]


def test_a_run_at_its_bound_says_how_to_extend_it_and_a_resume_with_nothing_to_do_writes_nothing(tmp_path, capsys):
    """Issue 28: the 'continue with:' line of a run that reached its bound re-played the final
    evaluation, wrote a second TensorBoard point at the same step and printed itself again. Now
    the run prints a resume that raises the bound it reached; a resume within the old bound says
    there is nothing to do and writes nothing; the printed command is runnable as printed."""
    import shlex

    from catena_zero.commands.common import program_words

    assert main(_argv(tmp_path, sets=["run.max_steps=3", "eval.games=0"])) == 0
    out = capsys.readouterr().out
    assert "continue with:" not in out
    line = next(line for line in out.splitlines() if line.startswith("extend it with: "))
    words = shlex.split(line[len("extend it with: "):])
    start = words.index("train")
    assert words[:start] == program_words() and words[-3:] == ["--resume", "--set", "run.max_steps=6"]
    assert "run.max_steps=3" not in words and "eval.games=0" in words  # the raised bound replaces the old
    run_dir = tmp_path / "t"
    before = {p: p.stat().st_mtime_ns for p in run_dir.rglob("*") if p.is_file()}
    assert main(_argv(tmp_path, "--resume", sets=["run.max_steps=3", "eval.games=0"])) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"nothing to do: {run_dir} already reached its bound (3 steps) at step 3; extend it with: ")
    assert out.rstrip().endswith("--resume --set run.max_steps=6") and out.count("\n") == 1
    assert {p: p.stat().st_mtime_ns for p in run_dir.rglob("*") if p.is_file()} == before  # nothing written
    assert main(words[start:]) == 0, capsys.readouterr().err
    assert _last_step(run_dir) == 6


def test_resume_refuses_a_changed_config_and_a_new_run_refuses_an_old_folder(tmp_path, capsys):
    (tmp_path / "t" / "ckpt").mkdir(parents=True)
    (tmp_path / "t" / "ckpt" / "step-00000001.pt").write_bytes(b"x")
    assert main(_argv(tmp_path, sets=["run.max_steps=1"])) == 2
    assert "already has checkpoints" in capsys.readouterr().err
    assert main(["train", "--config", QUICK, "--run-name", "none", "--resume", "--set", f"run.root={tmp_path}"]) == 2
    assert "nothing to resume" in capsys.readouterr().err
    (tmp_path / "t" / "config.yaml").write_text(Path(QUICK).read_text())
    assert main(["train", "--config", QUICK, "--run-name", "t", "--resume", "--set", f"run.root={tmp_path}",
                 "--set", "net.channels=16", "--set", "run.max_steps=9"]) == 2
    err = capsys.readouterr().err
    assert "net.channels: 32 -> 16" in err and err.count("\n") == 1


def test_resume_takes_where_the_network_runs_from_the_config_given_never_its_architecture(tmp_path):
    """A run started on a GPU continues on a CPU: net.device and the precision settings say where
    and how the weights run, not what they are (NetConfig.ARCHITECTURE), so --resume takes them
    from the config given; a different tower is still refused."""
    from catena_zero.config import load_config
    from catena_zero.train.driver import RunError, prepare_run

    def config(**net):
        return load_config(QUICK, {"run": {"root": str(tmp_path)}, "net": net})

    run_dir, _ = prepare_run(config(device="cuda", cpu_precision="float32"), "t", "t", resume=False)
    _, resumed = prepare_run(config(device="cpu", cpu_precision="bfloat16", channels_last=False), "t", "t",
                             resume=True)
    assert (resumed.net.device, resumed.net.cpu_precision, resumed.net.channels_last) == ("cpu", "bfloat16", False)
    assert resumed.net.architecture() == load_config(run_dir / "config.yaml").net.architecture()
    with pytest.raises(RunError, match="net.blocks: 4 -> 5"):
        prepare_run(config(device="cpu", blocks=5), "t", "t", resume=True)


def _parameters_close(a: dict, b: dict, tolerance: float) -> bool:
    """True when every weight (batch-norm statistics aside) of ``a`` is within ``tolerance`` of ``b``."""
    return all(float((a[k] - b[k]).abs().max()) <= tolerance for k in a
               if a[k].is_floating_point() and "running_" not in k)


def test_a_new_run_starts_from_a_bot_file_and_resumes_without_repeating_it(tmp_path, capsys):
    from catena_zero.artifacts.botfile import export_bot

    assert main(_argv(tmp_path, sets=["run.max_steps=3", "eval.games=0"])) == 0
    start = load_checkpoint(tmp_path / "t")
    bot = tmp_path / "t.bot"
    export_bot(start, bot)
    # At a vanishing learning rate three steps leave the weights where they began: the warm
    # start's first checkpoint is the bot's network, a fresh run's (same seed) is not.
    still = ["run.max_steps=3", "eval.games=0", "train.learning_rate=1e-12", "train.weight_decay=0"]
    assert main(_argv(tmp_path, sets=[*still, f"train.init_from={bot}"], name="warm")) == 0
    assert "starting from the network of" in capsys.readouterr().err
    assert _parameters_close(load_checkpoint(tmp_path / "warm").model, start.model, 1e-6)
    assert main(_argv(tmp_path, sets=still, name="cold")) == 0
    assert not _parameters_close(load_checkpoint(tmp_path / "cold").model, start.model, 1e-4)
    # A resume need not name init_from again (nor may it restart from it: the checkpoint wins).
    assert main(_argv(tmp_path, "--resume", sets=[*still[1:], "run.max_steps=5"], name="warm")) == 0
    assert _last_step(tmp_path / "warm") == 5
    assert "starting from the network of" not in capsys.readouterr().err


def _replay_counters(run: Path) -> tuple[int, int]:
    """(positions added, samples trained) of a run's saved replay buffer."""
    import numpy as np

    with np.load(run / "replay.npz") as data:
        added, trained = (int(v) for v in data["counters"])
    return added, trained


def test_a_warm_start_with_init_replay_keeps_the_source_runs_replay_buffer(tmp_path, capsys):
    from catena_zero.artifacts.botfile import export_bot
    from catena_zero.config import load_config as load
    from catena_zero.train.replay import ReplayBuffer

    assert main(_argv(tmp_path, sets=["run.max_steps=3", "eval.games=0"])) == 0
    source = load(tmp_path / "t" / "config.yaml")
    saved = ReplayBuffer(source.replay, source.rule_sets())
    saved.load(tmp_path / "t" / "replay.npz")
    assert len(saved) > 0
    capsys.readouterr()
    # From the run's newest checkpoint: the buffer comes with it; the learner's first batches can
    # come from it (min_positions is already met), so one step is enough to save a buffer that
    # holds the source's positions and the new session's.
    checkpoint = list_checkpoints(tmp_path / "t")[-1][1]
    warm = ["run.max_steps=1", "eval.games=0", f"train.init_from={checkpoint}", "train.init_replay=true"]
    assert main(_argv(tmp_path, sets=warm, name="warm")) == 0
    err = capsys.readouterr().err
    assert f"starting from the replay buffer of {tmp_path / 't'}: {len(saved):,} positions" in err
    # The buffer's counters go on from the source's: positions added (whether or not a self-play
    # chunk came before the one step) and samples trained (the source's 3 steps and this one).
    before, after = (_replay_counters(tmp_path / name) for name in ("t", "warm"))
    assert after[0] >= before[0] > 0 and after[1] == before[1] * 4 // 3
    # Without init_replay the new run's buffer counts only its own step.
    assert main(_argv(tmp_path, sets=warm[:3], name="empty")) == 0
    assert "starting from the replay buffer" not in capsys.readouterr().err
    assert _replay_counters(tmp_path / "empty")[1] == before[1] // 3
    # A bot file keeps no buffer; init_replay alone names what it needs.
    export_bot(load_checkpoint(tmp_path / "t"), tmp_path / "t.bot")
    assert main(_argv(tmp_path, sets=[*warm[:2], f"train.init_from={tmp_path / 't.bot'}", "train.init_replay=true"],
                      name="bot")) == 2
    err = capsys.readouterr().err
    assert "has no replay buffer (a bot file keeps none)" in err and err.count("\n") == 1
    assert main(_argv(tmp_path, sets=["run.max_steps=1", "train.init_replay=true"], name="alone")) == 2
    assert "train.init_replay needs train.init_from" in capsys.readouterr().err


def test_init_deepen_starts_a_deeper_network_that_plays_as_the_shallower_one(tmp_path, capsys):
    from catena_zero.artifacts.botfile import export_bot
    from catena_zero.artifacts.network import NetworkFileError, weights_for
    from catena_zero.net import model_from_weights
    from catena_zero.net.features import NUM_GLOBALS, NUM_PLANES

    assert main(_argv(tmp_path, sets=["run.max_steps=3", "eval.games=0"])) == 0
    source = load_checkpoint(tmp_path / "t")
    export_bot(source, tmp_path / "t.bot")
    capsys.readouterr()
    # A run of three blocks from the one-block bot, at a vanishing learning rate: its first
    # checkpoint holds the bot's block and two more, and gives the bot's outputs.
    still = ["run.max_steps=3", "eval.games=0", "train.learning_rate=1e-12", "train.weight_decay=0",
             "net.blocks=3", f"train.init_from={tmp_path / 't.bot'}"]
    assert main(_argv(tmp_path, sets=[*still, "train.init_deepen=true"], name="deep")) == 0
    assert "deepened from 1 to 3 blocks" in capsys.readouterr().err
    deep = load_checkpoint(tmp_path / "deep")
    assert deep.config.net.blocks == 3 and deep.config.train.init_deepen
    assert _parameters_close({k: v for k, v in deep.model.items() if k in source.model}, source.model, 1e-6)
    planes = torch.rand(3, NUM_PLANES, 3, 3, generator=torch.Generator().manual_seed(0))
    globals_ = torch.rand(3, NUM_GLOBALS, generator=torch.Generator().manual_seed(1))
    # Training mode: batch statistics, as the run's steps moved the batch norms' running ones.
    with torch.no_grad():
        before = model_from_weights(source.config.net, source.model).train()(planes, globals_)
        after = model_from_weights(deep.config.net, deep.model).train()(planes, globals_)
    assert torch.allclose(before.policy_logits, after.policy_logits, atol=1e-4)
    assert torch.allclose(before.wdl_logits, after.wdl_logits, atol=1e-4)
    # Without init_deepen another depth is refused, as is a deeper source, or init_deepen alone.
    assert main(_argv(tmp_path, sets=still, name="plain")) == 2
    err = capsys.readouterr().err
    assert "net.blocks: 1 -> 3" in err and "train.init_deepen adds blocks only" not in err and err.count("\n") == 1
    with pytest.raises(NetworkFileError, match="has 3 blocks, more than net.blocks 1: train.init_deepen only adds"):
        weights_for(str(tmp_path / "deep"), source.config.net, "train.init_from", deepen=True)
    with pytest.raises(NetworkFileError, match=r"\(train.init_deepen adds blocks only\): net.blocks: 1 -> 3; net.channels: 8 -> 16"):
        weights_for(str(tmp_path / "t.bot"), dataclasses.replace(deep.config.net, channels=16), "train.init_from",
                    deepen=True)
    # init_deepen from a network as deep as the config's starts from it as it is, and says nothing of deepening.
    assert main(_argv(tmp_path, sets=["run.max_steps=1", "eval.games=0", f"train.init_from={tmp_path / 't.bot'}",
                                      "train.init_deepen=true"], name="level")) == 0
    err = capsys.readouterr().err
    assert f"starting from the network of {tmp_path / 't.bot'}\n" in err and "deepened" not in err
    assert main(_argv(tmp_path, sets=["run.max_steps=1", "train.init_deepen=true"], name="alone")) == 2
    assert "train.init_deepen needs train.init_from" in capsys.readouterr().err


def test_init_from_reads_checkpoints_run_folders_and_bots_and_refuses_another_network(tmp_path, capsys):
    from catena_zero.artifacts.botfile import export_bot
    from catena_zero.artifacts.network import NetworkFileError, weights_for

    assert main(_argv(tmp_path, sets=["run.max_steps=3", "eval.games=0"])) == 0
    checkpoint = load_checkpoint(tmp_path / "t")
    export_bot(checkpoint, tmp_path / "t.bot")
    net = checkpoint.config.net
    for source in (tmp_path / "t", checkpoint.path, tmp_path / "t.bot"):
        assert _parameters_close(weights_for(str(source), net, "train.init_from").weights, checkpoint.model, 0.0)
    with pytest.raises(NetworkFileError, match="train.init_from: .*net.channels: 8 -> 16"):
        weights_for(str(tmp_path / "t.bot"), dataclasses.replace(net, channels=16), "train.init_from")
    with pytest.raises(NetworkFileError, match="train.init_from: no such file"):
        weights_for(str(tmp_path / "missing.bot"), net, "train.init_from")
    (tmp_path / "junk.bot").write_bytes(b"not a network")
    assert main(_argv(tmp_path, sets=["run.max_steps=3", f"train.init_from={tmp_path / 'junk.bot'}"],
                      name="junk")) == 2
    err = capsys.readouterr().err
    assert "junk.bot" in err and err.count("\n") == 1


def _background_run(tmp_path: Path, **popen) -> subprocess.Popen:
    """A run without a bound in a process (and process group) of its own."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    argv = [sys.executable, "-m", "catena_zero.cli", *_argv(tmp_path, sets=["run.max_steps=100000"])]
    return subprocess.Popen(argv, cwd=ROOT, env=env, stderr=subprocess.PIPE, start_new_session=True, **popen)


def _wait_for_checkpoint(process: subprocess.Popen, run_dir: Path, step: int = 1) -> None:
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline and (not list_checkpoints(run_dir) or _last_step(run_dir) < step):
        assert process.poll() is None, process.stderr.read().decode()[-2000:]
        time.sleep(0.2)
    assert _last_step(run_dir) >= step


def test_run_killed_with_sigkill_resumes_from_its_last_checkpoint(tmp_path):
    process = _background_run(tmp_path, stdout=subprocess.DEVNULL)
    run_dir = tmp_path / "t"
    try:
        _wait_for_checkpoint(process, run_dir, step=6)
    finally:
        os.killpg(process.pid, signal.SIGKILL)  # the driver and the Ray processes it started
        process.wait()
    killed_at = _last_step(run_dir)
    assert main(_argv(tmp_path, "--resume", sets=[f"run.max_steps={killed_at + 3}"])) == 0
    assert _last_step(run_dir) == killed_at + 3


def test_ctrl_c_checkpoints_and_leaves_no_ray_process(tmp_path):
    # The default SIGINT action, as in a terminal, even where this test runs in the background
    # (a shell starts background jobs with SIGINT ignored, and children inherit that).
    process = _background_run(tmp_path, stdout=subprocess.PIPE,
                              preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    run_dir = tmp_path / "t"
    try:
        _wait_for_checkpoint(process, run_dir)
        os.killpg(process.pid, signal.SIGINT)  # what Ctrl-C in a terminal does: the whole group
        _, err = process.communicate(timeout=120)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
    assert process.returncode == 130
    lines = err.decode().strip().splitlines()
    assert len(lines) == 1 and "interrupted at step" in lines[0] and "--resume" in lines[0], lines
    time.sleep(2)
    leftover = subprocess.run(["pgrep", "-g", str(process.pid)], capture_output=True, text=True).stdout.split()
    assert leftover == []  # no Ray process of the run's process group survives it
    assert load_checkpoint(run_dir).step >= 1


@pytest.mark.parametrize("command, name", [("raylet", "raylet"), ("gcs_server", "GCS")])
def test_a_ray_process_killed_under_a_run_ends_it_with_one_line_a_checkpoint_and_no_ray_process(tmp_path, command,
                                                                                                name):
    """Ray's core worker ends the driver itself on its next call to a dead raylet, and 60 s after
    it lost the GCS (no Python code runs: no checkpoint, Ray's log on the terminal, status 1).
    The run sees the death first, checkpoints the learner, ends the rest of its Ray and says so
    in one line."""
    from catena_zero.selfplay import reaper

    if not os.path.isdir("/proc/self"):
        pytest.skip("the raylet is found in /proc (Linux)")
    process = _background_run(tmp_path, stdout=subprocess.PIPE)
    run_dir = tmp_path / "t"
    try:
        _wait_for_checkpoint(process, run_dir)
        ray_processes = reaper.descendants(process.pid)
        started = {pid: reaper.start_time(pid) for pid in ray_processes}
        victim = [pid for pid in ray_processes if reaper.command_name(pid) == command]
        assert len(victim) == 1, [reaper.command_name(pid) for pid in ray_processes]
        os.kill(victim[0], signal.SIGKILL)
        out, err = process.communicate(timeout=120)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
    assert process.returncode == 1
    lines = err.decode().strip().splitlines()
    assert len(lines) == 1, lines  # none of Ray's log lines ("[state-dump] ...")
    assert lines[0].startswith(f"catena-zero: error: Ray's {name} (pid {victim[0]}) died under the run"), lines
    assert "--resume" in lines[0] and "state-dump" not in out.decode()
    step = int(lines[0].split(" at step ")[1].split(";")[0])
    assert _last_step(run_dir) == step >= 3  # the learner's state at the end, checkpointed
    # The reaper (a process of its own) kills what is left once the driver's pipe closes: within
    # about a second on an idle machine, longer when the cores are busy, so poll up to 15 s.
    deadline = time.monotonic() + 15.0
    alive = ray_processes
    while alive and time.monotonic() < deadline:
        time.sleep(0.25)
        alive = [pid for pid in ray_processes if reaper.start_time(pid) == started[pid]]
    assert [reaper.command_name(pid) for pid in alive] == []
    # and the run goes on from that checkpoint
    assert main(_argv(tmp_path, "--resume", sets=[f"run.max_steps={step + 2}"])) == 0
    assert _last_step(run_dir) == step + 2


@pytest.mark.slow
def test_run_on_a_two_node_cluster_spreads_its_actors(tmp_path, capsys):
    import catena_zero.selfplay.workers  # noqa: F401 (before Ray: it sets RAY_AUTH_MODE=token, which the cluster must share)
    from ray.cluster_utils import Cluster

    # Two nodes on this machine, each with its own CPU, as two machines would be.
    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 1, "include_dashboard": False})
    cluster.add_node(num_cpus=1)
    cluster.wait_for_nodes()
    try:
        assert main(_argv(tmp_path, "--address", cluster.address,
                          sets=["run.max_steps=4", "run.num_actors=2", "run.cpus_per_actor=1"])) == 0
    finally:
        cluster.shutdown()
    out = capsys.readouterr().out
    assert "self-play on 2 Ray node(s)" in out
    assert _last_step(tmp_path / "t") == 4


def test_a_cpu_minutes_bound_counts_every_process_and_adds_up_over_resumes(tmp_path, capsys):
    assert main(_argv(tmp_path, sets=["run.max_cpu_minutes=0.25", "eval.games=0"])) == 0
    out = capsys.readouterr().out
    assert "bound reached: 0.25 CPU minutes" in out
    first = load_checkpoint(tmp_path / "t").counters
    # the bound counts the actor's and the driver's CPU: more than the driver's alone could give in
    # the wall time the run took on 2 CPUs, and at least the bound
    assert 15.0 <= first["cpu_seconds"] <= 2 * first["seconds"] + 5.0
    assert main(_argv(tmp_path, "--resume", sets=["run.max_cpu_minutes=0.5", "eval.games=0"])) == 0
    assert "bound reached: 0.5 CPU minutes" in capsys.readouterr().out
    second = load_checkpoint(tmp_path / "t").counters
    assert second["cpu_seconds"] >= 30.0 and second["seconds"] > first["seconds"]


@pytest.mark.parametrize("ema_selfplay", [True, False])
def test_self_play_plays_the_average_unless_told_to_play_the_raw_weights(tmp_path, monkeypatch, ema_selfplay):
    """train.ema_selfplay false: the actors get the raw weights, while checkpoints keep the average."""
    from catena_zero.train import driver

    published = []

    class Recording(driver.SelfPlayPool):
        def publish(self, weights, version):
            published.append({k: v.clone() for k, v in weights.items()})
            super().publish(weights, version)

    monkeypatch.setattr(driver, "SelfPlayPool", Recording)
    sets = ["run.max_steps=6", "eval.games=0", "train.ema_decay=0.9", f"train.ema_selfplay={str(ema_selfplay).lower()}",
            "run.publish_interval_steps=6", "run.checkpoint_interval=6"]
    assert main(_argv(tmp_path, sets=sets)) == 0
    checkpoint = load_checkpoint(tmp_path / "t")
    raw, average = checkpoint.extra["learner"]["model"], checkpoint.extra["learner"]["average"]
    last = published[-1]
    key = next(k for k in raw if raw[k].is_floating_point() and not torch.equal(raw[k], average[k]))
    assert torch.equal(last[key], average[key] if ema_selfplay else raw[key])
    assert torch.equal(checkpoint.model[key], average[key])  # the checkpoint's network is the average either way


def _command_line(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read().replace(b"\0", b" ").decode("utf-8", "replace")
    except OSError:
        return ""


def test_a_run_killed_while_its_ray_starts_leaves_no_ray_process(tmp_path):
    """Ray's two agents (started by the raylet while ray.init still runs) outlived a SIGKILL of
    the driver during Ray's start-up by 72 s: nothing had listed them to the reaper yet. Killed
    as soon as an agent appears, the run leaves no process of its Ray running seconds later."""
    from catena_zero.selfplay import reaper

    if not os.path.isdir("/proc/self"):
        pytest.skip("Ray's processes are found in /proc (Linux)")
    argv = [sys.executable, "-m", "catena_zero.cli", "train", "--config", str(ROOT / "configs/tiny.yaml"),
            "--run-name", "t", "--set", f"run.root={tmp_path}", "--set", "run.num_cpus=1",
            "--set", "run.max_steps=100000"]
    process = subprocess.Popen(argv, cwd=ROOT, env=dict(os.environ, PYTHONPATH=str(ROOT)), stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL, start_new_session=True)
    seen: dict[int, str] = {}  # every process seen below the driver -> its start time
    try:
        deadline = time.monotonic() + 180
        agent = False
        while not agent:
            assert process.poll() is None and time.monotonic() < deadline, "the run never started its Ray's agents"
            for pid in reaper.descendants(process.pid):
                started = reaper.start_time(pid)
                if started is not None:
                    seen.setdefault(pid, started)
                    agent = agent or "/agent" in _command_line(pid)  # dashboard/agent.py, runtime_env/agent/main.py
            time.sleep(0.02)
        os.kill(process.pid, signal.SIGKILL)
        process.wait(timeout=10)
        # Ray names its session folder after the driver's pid: what the run's Ray started after
        # the last look at the driver's children is found by that name.
        session = re.compile(rf"/session_[0-9_-]+_{process.pid}/")
        deadline = time.monotonic() + 10
        while True:
            alive = [pid for pid, started in seen.items() if reaper.start_time(pid) == started]
            alive += [int(pid) for pid in os.listdir("/proc") if pid.isdigit() and int(pid) not in seen
                      and session.search(_command_line(int(pid)))]
            if not alive or time.monotonic() > deadline:
                break
            time.sleep(0.25)
        assert alive == [], [_command_line(pid)[:120] for pid in alive]
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
        for pid, started in seen.items():  # what a failure left: this test's processes only
            if reaper.start_time(pid) == started:
                os.kill(pid, signal.SIGKILL)


def test_one_writer_per_run_folder_a_second_train_is_refused_naming_the_holder(tmp_path, capsys):
    process = _background_run(tmp_path, stdout=subprocess.DEVNULL)
    run_dir = tmp_path / "t"
    try:
        _wait_for_checkpoint(process, run_dir, step=3)
        temp = run_dir / ".replay.npz.left.tmp"  # what the holder might be writing now
        temp.write_bytes(b"x")
        assert main(_argv(tmp_path, "--resume", sets=["run.max_steps=100000"])) == 2
        err = capsys.readouterr().err
        assert f"is in use by another process (pid {process.pid})" in err and err.count("\n") == 1
        assert temp.exists()  # the refused resume deleted nothing
    finally:
        os.killpg(process.pid, signal.SIGKILL)  # the kernel releases a dead holder's lock
        process.wait()
    killed_at = _last_step(run_dir)
    assert main(_argv(tmp_path, "--resume", sets=[f"run.max_steps={killed_at + 1}"])) == 0
    assert _last_step(run_dir) == killed_at + 1
