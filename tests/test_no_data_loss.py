"""Outputs never destroy inputs: an output that is one of a command's inputs, or two
outputs that are the same file, are refused with one line before any work, and the files stay."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from bot_files import save_tiny_checkpoint
from catena_zero.cli import main


def one_line_error(capsys, code, fragment):
    out, err = capsys.readouterr()
    assert code == 2, (out, err)
    assert err.startswith("catena-zero: error: ") and err.count("\n") == 1 and "Traceback" not in err, err
    assert fragment in err, err


def record_file(tmp_path: Path, capsys) -> Path:
    path = tmp_path / "rec.txt"
    assert main(["random-game", "--side", "3", "--out", str(path)]) == 0
    capsys.readouterr()
    return path


def test_export_onto_its_own_checkpoint_is_refused_and_the_checkpoint_kept(tmp_path, capsys):
    ckpt = save_tiny_checkpoint(tmp_path / "run", step=3)
    before = ckpt.read_bytes()
    one_line_error(capsys, main(["export", str(ckpt), "--out", str(ckpt)]), "would destroy it")
    # the same file through a run folder, a symlink and a hard link
    link = tmp_path / "link.pt"
    link.symlink_to(ckpt)
    hard = tmp_path / "hard.pt"
    os.link(ckpt, hard)
    for source, out in ((tmp_path / "run", ckpt), (ckpt, link), (link, ckpt), (ckpt, hard),
                        (ckpt, tmp_path / "x" / ".." / "run" / "ckpt" / ckpt.name)):
        (tmp_path / "x").mkdir(exist_ok=True)
        one_line_error(capsys, main(["export", str(source), "--out", str(out)]), "would destroy it")
    assert ckpt.read_bytes() == before


def test_show_svg_onto_its_record_is_refused_and_the_record_kept(tmp_path, capsys):
    rec = record_file(tmp_path, capsys)
    before = rec.read_bytes()
    one_line_error(capsys, main(["show", str(rec), "--svg", str(rec)]), "--svg")
    assert rec.read_bytes() == before
    assert main(["show", str(rec), "--svg", str(tmp_path / "pic.svg")]) == 0  # another file is fine


def test_random_game_with_one_file_for_both_outputs_is_refused(tmp_path, capsys):
    path = tmp_path / "f"
    one_line_error(capsys, main(["random-game", "--side", "3", "--out", str(path), "--svg", str(path)]),
                   "are the same file")
    assert not path.exists()  # refused before any work
    assert main(["random-game", "--side", "3", "--out", "/dev/null", "--svg", "/dev/null"]) == 0  # special files repeat


def test_random_game_over_its_config_is_refused(tmp_path, capsys):
    config = tmp_path / "c.yaml"
    config.write_text("game:\n  side: 3\n")
    one_line_error(capsys, main(["random-game", "--config", str(config), "--out", str(config)]), "would destroy it")
    assert config.read_text() == "game:\n  side: 3\n"


def test_play_saving_over_its_bot_file_is_refused(tmp_path, capsys):
    bot = tmp_path / "b.bot"
    bot.write_bytes(b"not really a bot")
    one_line_error(capsys, main(["play", "--bot", str(bot), "--save", str(bot)]), "would destroy it")
    assert bot.read_bytes() == b"not really a bot"


def test_evaluate_refuses_a_records_folder_with_files_before_the_first_game(tmp_path, capsys, monkeypatch):
    import catena_zero.eval.arena as arena

    def no_match(*args, **kwargs):
        raise AssertionError("the match must not start")

    monkeypatch.setattr(arena, "play_match", no_match)
    folder = tmp_path / "rec"
    folder.mkdir()
    (folder / "game-0001.txt").write_text("an earlier match's record\n")
    one_line_error(capsys, main(["evaluate", "random", "greedy", "--games", "2", "--side", "3",
                                 "--save-records", str(folder)]), "already holds 1 file")
    assert (folder / "game-0001.txt").read_text() == "an earlier match's record\n"
    a_file = tmp_path / "file"
    a_file.write_text("x")
    one_line_error(capsys, main(["evaluate", "random", "greedy", "--games", "2", "--side", "3",
                                 "--save-records", str(a_file)]), "it is a file, not a folder")


def test_evaluate_writes_records_into_a_new_folder(tmp_path, capsys):
    folder = tmp_path / "new" / "rec"
    assert main(["evaluate", "random", "greedy", "--games", "2", "--side", "3", "--save-records", str(folder)]) == 0
    assert sorted(p.name for p in folder.iterdir()) == ["game-0001.txt", "game-0002.txt"]


# Issue 25: every command that writes checks its outputs against all its inputs (a run folder's
# files included) and that it can write them, before any work.


def run_folder(tmp_path: Path) -> Path:
    """A run folder as train leaves it: config.yaml, replay.npz and two checkpoints."""
    run = tmp_path / "run"
    save_tiny_checkpoint(run, step=3)
    save_tiny_checkpoint(run, step=5)
    (run / "config.yaml").write_text("game:\n  side: 3\n")
    (run / "replay.npz").write_bytes(b"the replay buffer")
    return run


def snapshot(folder: Path) -> dict:
    return {p.relative_to(folder): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_export_into_its_run_folder_is_refused_and_the_run_kept(tmp_path, capsys):
    """`export RUN --out RUN/config.yaml` replaced the run's config (and replay.npz, an older
    checkpoint): the run could not resume. Any path inside the run is refused, through the run
    folder or one of its checkpoints, before the checkpoint loads."""
    run = run_folder(tmp_path)
    before = snapshot(run)
    older = sorted((run / "ckpt").glob("step-*.pt"))[0]
    for source in (run, older, run / "ckpt" / "step-00000005.pt"):
        for out in (run / "config.yaml", run / "replay.npz", older, run / "new.bot", run / "ckpt" / "new.bot",
                    tmp_path / "x" / ".." / "run" / "config.yaml"):
            (tmp_path / "x").mkdir(exist_ok=True)
            one_line_error(capsys, main(["export", str(source), "--out", str(out)]), "destroy")
    link = tmp_path / "link"
    link.symlink_to(run / "config.yaml")
    one_line_error(capsys, main(["export", str(run), "--out", str(link)]), "lies inside")
    assert snapshot(run) == before
    assert main(["export", str(run), "--out", str(tmp_path / "bot")]) == 0  # outside the run: fine
    capsys.readouterr()


def test_export_to_an_unwritable_place_is_refused_before_the_checkpoint_loads(tmp_path, capsys, monkeypatch):
    import catena_zero.artifacts.checkpoint as checkpoint

    run = run_folder(tmp_path)
    monkeypatch.setattr(checkpoint, "load_checkpoint", lambda *a: pytest.fail("the checkpoint must not load"))
    one_line_error(capsys, main(["export", str(run), "--out", str(tmp_path / "nope" / "bot")]),
                   "cannot write")
    one_line_error(capsys, main(["export", str(run), "--out", str(tmp_path)]), "Is a directory")


def test_other_commands_refuse_outputs_inside_a_run_folder(tmp_path, capsys):
    """Not only export: random-game, show, play, book and evaluate's records stay out of a run."""
    run = run_folder(tmp_path)
    before = snapshot(run)
    rec = record_file(tmp_path, capsys)
    cases = [
        ["random-game", "--side", "3", "--out", str(run / "replay.npz")],
        ["random-game", "--side", "3", "--svg", str(run / "ckpt" / "step-00000003.pt")],
        ["show", str(rec), "--svg", str(run / "config.yaml")],
        ["play", "--side", "3", "--save", str(run / "config.yaml")],
        ["book", "--reference", str(run), "--openings", "1", "--out", str(run / "config.yaml")],
        ["evaluate", str(run), "random", "--games", "2", "--save-records", str(run / "records")],
        ["evaluate", "random", "greedy", "--side", "3", "--games", "2", "--save-records", str(run / "ckpt")],
    ]
    for argv in cases:
        one_line_error(capsys, main(argv), "lies inside")
    assert snapshot(run) == before and not (run / "records").exists()


def test_evaluate_refuses_an_uncreatable_records_folder_before_the_first_game(tmp_path, capsys, monkeypatch):
    import catena_zero.eval.arena as arena

    monkeypatch.setattr(arena, "play_match", lambda *a, **k: pytest.fail("the match must not start"))
    (tmp_path / "file").write_text("x")
    one_line_error(capsys, main(["evaluate", "random", "greedy", "--games", "2", "--side", "3",
                                 "--save-records", str(tmp_path / "file" / "rec")]), "is a file, not a folder")


def _ablation_plan(tmp_path: Path) -> Path:
    config = tmp_path / "base.yaml"
    config.write_text(f"game:\n  side: 3\nrun:\n  root: {tmp_path / 'runs'}\n")
    plan = tmp_path / "plan.yaml"
    plan.write_text(f"config: {config}\ncpu_minutes: 0.1\nseeds: 1\nvariants:\n  baseline: {{}}\n")
    return plan


@pytest.mark.parametrize("target", ["plan.yaml", "base.yaml", "runs/ablate-plan.json", "runs/ablate-plan-matches.json",
                                    "runs/ablate-plan-baseline-seed0/RESULTS.md", "run/config.yaml",
                                    "nope/RESULTS.md", "binary.bin", "."])
def test_ablate_checks_its_results_file_before_any_training(tmp_path, capsys, monkeypatch, target):
    """`ablate PLAN --results PLAN` overwrote the plan after hours of training, and an unwritable
    --results was found only then: every such --results is refused before the first run trains."""
    import catena_zero.eval.ablation as ablation

    monkeypatch.setattr(ablation, "train_variants", lambda *a, **k: pytest.fail("training must not start"))
    plan = _ablation_plan(tmp_path)
    run_folder(tmp_path)
    (tmp_path / "runs").mkdir()
    for name in ("ablate-plan.json", "ablate-plan-matches.json"):
        (tmp_path / "runs" / name).write_text("[]\n")
    (tmp_path / "binary.bin").write_bytes(b"\xff\xfe\x00")
    before = snapshot(tmp_path)
    fragments = {"plan.yaml": "is the plan (", "base.yaml": "is the plan's config (",
                 "runs/ablate-plan.json": "is the plan's results (", "runs/ablate-plan-matches.json": "played matches",
                 "runs/ablate-plan-baseline-seed0/RESULTS.md": "lies among the plan's runs",
                 "run/config.yaml": "lies inside the run folder", "nope/RESULTS.md": "cannot write",
                 "binary.bin": "is not a text file", ".": "Is a directory"}
    code = main(["ablate", str(plan), "--results", str(tmp_path / target)])
    one_line_error(capsys, code, fragments[target])
    assert snapshot(tmp_path) == before


def test_ladder_refuses_an_input_among_its_outputs_and_an_unwritable_folder_before_playing(tmp_path, capsys,
                                                                                          monkeypatch):
    import catena_zero.eval.ladder as ladder

    monkeypatch.setattr(ladder, "run_ladder", lambda *a, **k: pytest.fail("the ladder must not start"))
    run = run_folder(tmp_path)
    (run / "ladder").mkdir()
    (run / "ladder" / "ratings.md").write_text("# an opening book by mistake\n")
    one_line_error(capsys, main(["ladder", str(run), "--book", str(run / "ladder" / "ratings.md")]),
                   "--book")
    assert (run / "ladder" / "ratings.md").read_text() == "# an opening book by mistake\n"
    (run / "tensorboard").write_text("a file where the ladder's TensorBoard folder goes")
    one_line_error(capsys, main(["ladder", str(run)]), "is a file, not a folder")


def test_train_refuses_a_run_folder_inside_the_run_it_starts_from(tmp_path, capsys, monkeypatch):
    import catena_zero.train.driver as driver

    monkeypatch.setattr(driver, "train", lambda *a, **k: pytest.fail("training must not start"))
    run = run_folder(tmp_path)
    before = snapshot(run)
    config = tmp_path / "c.yaml"
    config.write_text(f"run:\n  root: {run}\ntrain:\n  init_from: {run}\n")
    one_line_error(capsys, main(["train", "--config", str(config), "--run-name", "ckpt"]), "lies inside the run")
    config.write_text(f"run:\n  root: {tmp_path / 'file' / 'runs'}\n")
    (tmp_path / "file").write_text("x")
    one_line_error(capsys, main(["train", "--config", str(config)]), "is a file, not a folder")
    assert snapshot(run) == before


# A person who is not root meets "Permission denied" where root (this machine's CI user) never
# does: the checks behind every writing command run here without root's power over files, on a
# read-only folder and a read-only file. As root, the child runs in a user namespace of its own
# (``unshare --user``): it keeps its user id for the files it opens (so it can still reach an
# interpreter under /root) but loses the capability that lets root write where the mode says no.
_AS_ANOTHER_USER = r"""
import sys
from catena_zero.cli import main
from catena_zero.commands.common import check_folder_writable
from catena_zero.fileio import check_writable

ro, rofile = sys.argv[1], sys.argv[2]
for check, path in ((check_writable, ro + "/new.txt"), (check_writable, rofile),
                    (check_folder_writable, ro + "/run"), (check_folder_writable, ro)):
    try:
        check(path)
        print("allowed", path)
    except OSError as exc:
        print("refused", exc)
print("rc", main(["random-game", "--side", "3", "--out", ro + "/g.txt"]))
print("rc", main(["random-game", "--side", "3", "--out", rofile]))
print("rc", main(["train", "--config", "configs/quick.yaml", "--set", "run.root=" + ro, "--set", "run.max_steps=1"]))
"""


def test_read_only_folders_and_files_are_refused_before_any_work_for_a_user_who_is_not_root(tmp_path):
    import shutil
    import subprocess
    import sys
    import tempfile

    root = Path(__file__).resolve().parent.parent
    # Not under pytest's tmp_path: as root that is a 0700 folder another user cannot enter.
    base = Path(tempfile.mkdtemp(prefix="catena-perm-"))
    try:
        base.chmod(0o755)
        ro = base / "ro"
        ro.mkdir()
        (ro / "kept.txt").write_text("kept")
        ro.chmod(0o555)
        rofile = base / "rofile.txt"
        rofile.write_text("kept")
        rofile.chmod(0o444)
        powerless = []
        if os.geteuid() == 0:
            if shutil.which("unshare") is None:
                pytest.skip("running as root, and no unshare(1) to give up root's power over files")
            powerless = ["unshare", "--user"]
        done = subprocess.run([*powerless, sys.executable, "-c", _AS_ANOTHER_USER, str(ro), str(rofile)], cwd=root,
                              env={**os.environ, "PYTHONPATH": str(root), "HOME": str(base)},
                              capture_output=True, text=True, timeout=120)
        lines = done.stdout.splitlines()
        assert done.returncode == 0, done.stderr
        assert lines[:4] == [f"refused cannot write {ro}/new.txt: Permission denied",
                             f"refused cannot write {rofile}: Permission denied",
                             f"refused cannot write into {ro}/run: Permission denied ({ro} is not writable)",
                             f"refused cannot write into {ro}: Permission denied ({ro} is not writable)"], lines
        assert lines[4:] == ["rc 2", "rc 2", "rc 2"], (lines, done.stderr)
        errors = done.stderr.splitlines()
        assert len(errors) == 3 and all(e.startswith("catena-zero: error: ") for e in errors), errors
        assert "Permission denied" in errors[0] and "Permission denied" in errors[1] and str(ro) in errors[2]
        assert "Traceback" not in done.stderr
        assert sorted(p.name for p in ro.iterdir()) == ["kept.txt"] and rofile.read_text() == "kept"
    finally:
        (base / "ro").chmod(0o755)
        shutil.rmtree(base)
