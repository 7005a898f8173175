"""Hostile input files and arguments: networks whose finite weights overflow, books and index files
built to break their readers, run folders with a FIFO where a file belongs, a kill between a
checkpoint's two writes, and the arguments that once ended in an internal error (exit 70)."""

from __future__ import annotations

import json

import pytest
import torch

from bot_files import save_tiny_checkpoint, tiny_config
from catena_zero.artifacts.botfile import BotFileError, export_bot
from catena_zero.artifacts.checkpoint import CheckpointError, load_checkpoint
from catena_zero.artifacts.network import load_network
from catena_zero.bot import Bot
from catena_zero.cli import main
from catena_zero.net import model_from_config


def one_line_error(capsys, argv) -> str:
    """Run the CLI; it must end with status 2 and one ``catena-zero: error:`` line, which is returned."""
    code = main(argv)
    _, err = capsys.readouterr()
    assert code == 2, err
    assert err.startswith("catena-zero: error: ") and err.count("\n") == 1 and "Traceback" not in err, err
    return err


# ------------------------------------------------------------------------------ weights that overflow


def _overflowing_model():
    """A tiny network whose weights are all finite but whose outputs are not: two layers scaled by
    1e30 multiply to 1e60, beyond float32 (3.4e38)."""
    model = model_from_config(tiny_config().net, torch.Generator().manual_seed(1))
    with torch.no_grad():
        model.stem.weight.mul_(1e30)
        model.blocks[0].conv1.weight.mul_(1e30)
    assert all(bool(torch.isfinite(p).all()) for p in model.state_dict().values() if p.is_floating_point())
    return model


@pytest.fixture(scope="module")
def overflowing(tmp_path_factory):
    root = tmp_path_factory.mktemp("overflow")
    checkpoint = save_tiny_checkpoint(root / "run", model=_overflowing_model())
    export_bot(load_checkpoint(checkpoint), root / "overflow.bot")  # its weights are finite: written
    return checkpoint, root / "overflow.bot"


def test_finite_weights_whose_outputs_overflow_are_refused_at_load(overflowing, tmp_path):
    checkpoint, bot = overflowing
    with pytest.raises(CheckpointError, match="outputs are not finite .* the weights overflow"):
        load_network(checkpoint)
    with pytest.raises(BotFileError, match="overflow.bot: its network's outputs are not finite"):
        load_network(bot)
    with pytest.raises(BotFileError, match="outputs are not finite"):
        Bot.load(bot)  # play, engine and serve load their bot this way
    # A sound network of the same shape loads (the probe does not refuse what it should not).
    save_tiny_checkpoint(tmp_path / "sound")
    assert load_network(tmp_path / "sound").step == 7


def test_a_match_with_an_overflowing_network_is_one_line_not_exit_70(overflowing, capsys):
    _, bot = overflowing
    err = one_line_error(capsys, ["evaluate", str(bot), "random", "--games", "2"])
    assert "outputs are not finite" in err


# ------------------------------------------------------------------------------ books


def _shipped_side3_book_text() -> str:
    from catena_zero.eval.book import shipped_book_path
    from catena_zero.game.options import RuleSet

    return shipped_book_path(RuleSet(3, "komi", "standard")).read_text(encoding="utf-8")


def _an_opening_not_in(book) -> str:
    """A legal 2-ply opening of ``book``'s rule set that is not in it up to symmetry, in notation."""
    import numpy as np

    from catena_zero.eval.book import candidate_openings
    from catena_zero.game.vec import VecEnv

    env = VecEnv(book.game)
    have = {env.spec.canonical_actions(o) for o in book.openings}
    for candidate in candidate_openings(env, 2, book.komi, np.random.default_rng(0)):
        opening = tuple(int(a) for a in candidate)
        if env.spec.canonical_actions(opening) not in have:
            return " ".join(env.spec.action_name(a) for a in opening)
    raise AssertionError("the book holds every 2-ply opening")


@pytest.mark.parametrize("separator", ["\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029", "\r"])
def test_a_line_break_other_than_newline_inside_a_comment_adds_no_opening(separator):
    from catena_zero.eval.book import parse_book

    text = _shipped_side3_book_text()
    book = parse_book(text)
    first = next(line for line in text.split("\n") if "#" in line and not line.startswith("catena"))
    hidden = first + separator + _an_opening_not_in(book)  # inside the first opening's comment
    tampered = parse_book(text.replace(first, hidden, 1))
    assert len(tampered) == len(book) and tampered.openings == book.openings


def test_a_books_reference_is_printed_with_its_control_characters_escaped(tmp_path, capsys):
    from catena_zero.eval.book import load_book

    lines = _shipped_side3_book_text().split("\n")
    header, openings = lines[:9], [line for line in lines[9:13]]
    assert header[-1].startswith("reference ")
    header[-1] = "reference side3.bot\x1b[2J\x1b]0;owned\x07\x08\u2028end"
    path = tmp_path / "escape.book"
    path.write_text("\n".join(header + openings) + "\n", encoding="utf-8")
    book = load_book(path)
    assert book.reference == "side3.bot\\x1b[2J\\x1b]0;owned\\x07\\x08\\u2028end"
    assert book.describe().isprintable()
    code = main(["evaluate", "random", "random", "--side", "3", "--book", str(path)])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "side3.bot\\x1b[2J" in out
    assert not any(ch in out + err for ch in "\x1b\x07\x08\u2028")
    # Written again, the reference stays one line of the header.
    again = tmp_path / "again.book"
    again.write_text(book.text(), encoding="utf-8")
    assert load_book(again).reference == book.reference and len(load_book(again)) == len(book)


def test_a_book_that_is_a_fifo_is_refused_not_read(tmp_path):
    import os

    from catena_zero.eval.book import BookError, load_book

    os.mkfifo(tmp_path / "fifo.book")
    with pytest.raises(BookError, match="FIFO"):
        load_book(tmp_path / "fifo.book")


# ------------------------------------------------------------------------------ JSON input files


def _deep(depth: int) -> str:
    return "[" * depth + "]" * depth


LADDER_HEAD = '{"format": "catena-zero-ladder", "version": 1, "settings": {}, "matches": '
MATCH = {"a": "random", "b": "greedy", "a_wins": 1, "draws": 0, "b_wins": 1, "komi": 7, "komi_source": "config",
         "seed": 3, "seconds": 1.5}


@pytest.mark.parametrize("case, matches, fragment", [
    ("deep", _deep(100_000), "nested more than"),
    ("nan", json.dumps([MATCH]).replace("1.5", "NaN"), "not finite"),
    ("overflow", json.dumps([MATCH]).replace("1.5", "1e999"), "not finite"),
    ("string count", {**MATCH, "a_wins": "3"}, "a_wins must be a whole number"),
    ("bool count", {**MATCH, "draws": True}, "draws must be a whole number"),
    ("negative", {**MATCH, "b_wins": -1}, "b_wins must be a whole number >= 0"),
    ("list entry", [1, 2], "a match is an object"),
    ("matches not a list", '{"a": 1}', "a list of matches"),
])
def test_ladder_results_are_read_with_size_depth_type_and_finiteness_checks(tmp_path, case, matches, fragment):
    from catena_zero.eval.ladder import LadderError, load_results

    path = tmp_path / "results.json"
    body = matches if isinstance(matches, str) else json.dumps([matches] if isinstance(matches, dict) else [matches])
    path.write_text(LADDER_HEAD + body + "}", encoding="utf-8")
    with pytest.raises(LadderError, match=fragment):
        load_results(path)
    path.write_text(LADDER_HEAD + json.dumps([MATCH]) + "}", encoding="utf-8")
    assert load_results(path).matches[0].seconds == 1.5  # a sound file still reads


def test_ladder_results_that_are_a_fifo_or_too_big_are_refused(tmp_path):
    import os

    from catena_zero.eval.ladder import LadderError, load_results
    from catena_zero.fileio import MAX_JSON_BYTES

    os.mkfifo(tmp_path / "fifo.json")
    with pytest.raises(LadderError, match="FIFO"):
        load_results(tmp_path / "fifo.json")
    with open(tmp_path / "big.json", "wb") as f:
        f.truncate(MAX_JSON_BYTES + 1)  # sparse: no disk
    with pytest.raises(LadderError, match="at most"):
        load_results(tmp_path / "big.json")


def _bots_folder(tmp_path, index: str | None):
    import shutil

    folder = tmp_path / "bots"
    folder.mkdir()
    shutil.copy("catena_zero/bots/side3.bot", folder / "side3.bot")
    if index is not None:
        (folder / "index.json").write_text(index, encoding="utf-8")
    return folder


@pytest.mark.parametrize("index, fragment", [
    ('{"side3.bot": ' + _deep(100_000) + "}", "nested more than"),
    ('{"side3.bot": {"cpu_hours": NaN}}', "not finite"),
    ('{"side3.bot": [1, 2, 3]}', "not an object of fields"),
    ('{"side3.bot": {"trained": ["a", "list"]}}', "trained of 'side3.bot' must be one line of printable text"),
    ('{"side3.bot": {"strength": "90%\\u001b[2J"}}', "strength of 'side3.bot' must be one line of printable text"),
    ('["side3.bot"]', "not a bot index"),
])
def test_ships_index_is_read_with_depth_type_and_finiteness_checks(tmp_path, capsys, index, fragment):
    folder = _bots_folder(tmp_path, index)
    err = one_line_error(capsys, ["ship", "--index-only", "--folder", str(folder)])
    assert fragment in err
    err = one_line_error(capsys, ["ship", str(folder / "side3.bot"), "again", "--folder", str(folder)])
    assert fragment in err


def test_ships_index_that_is_a_fifo_or_too_big_is_refused_not_read(tmp_path, capsys):
    import os

    from catena_zero.fileio import MAX_CONFIG_BYTES

    folder = _bots_folder(tmp_path, None)
    os.mkfifo(folder / "index.json")
    assert "FIFO" in one_line_error(capsys, ["ship", "--index-only", "--folder", str(folder)])
    os.unlink(folder / "index.json")
    with open(folder / "index.json", "wb") as f:
        f.truncate(MAX_CONFIG_BYTES + 1)
    assert "at most" in one_line_error(capsys, ["ship", "--index-only", "--folder", str(folder)])


# ------------------------------------------------------------------------------ the run folder's replay file


def _replay_setup(tmp_path):
    """A run folder with a tiny config, a side-4 replay buffer with positions numbered by their
    index (``version``) and some samples trained, and its checkpointer."""
    import dataclasses

    import numpy as np

    from catena_zero.config import ReplayConfig
    from catena_zero.game.options import GameConfig, RuleSet
    from catena_zero.train.checkpointer import Checkpointer
    from catena_zero.train.replay import ReplayBuffer
    from trajectories import random_games

    config = tiny_config()
    replay_config = ReplayConfig(capacity=10_000, window_min=10_000, min_positions=1, train_ratio=2.0)
    games = random_games(GameConfig(side=4), 6, np.random.default_rng(3)).trajectory
    trajectory = dataclasses.replace(games, version=np.arange(games.num_positions, dtype=np.int32))

    def buffer():
        return ReplayBuffer(replay_config, [RuleSet(4, "komi", "standard")])

    run = tmp_path / "run"
    run.mkdir()
    return config, buffer, trajectory, Checkpointer(run, config.run), run


def _checkpoint(config, step):
    from catena_zero.artifacts.checkpoint import Checkpoint

    model = model_from_config(config.net, torch.Generator().manual_seed(step))
    return Checkpoint(step=step, config=config, model=model.state_dict(), counters={"positions": 0})


def _tampered_npz(path, **changes):
    import numpy as np

    with np.load(path, allow_pickle=False) as npz:
        data = {key: npz[key] for key in npz.files}
    data.update(changes)
    with open(path, "wb") as f:
        np.savez(f, **data)


@pytest.mark.parametrize("changes, fragment", [
    ({"credit": float("nan")}, "credit is not a finite number"),
    ({"credit": float("inf")}, "credit is not a finite number"),
    ({"credit": "plenty"}, "credit is not a finite number"),
    ({"credit": [1.0, 2.0]}, "credit is not a finite number"),
    ({"counters": [1.5, 2.0]}, "counters are not two whole numbers"),
    ({"counters": [5, 6, 7]}, "counters are not two whole numbers"),
    ({"counters": [-5, 0]}, "counters are not two whole numbers"),
    ({"format_version": [1, 1]}, "replay format version ?"),
    ({"format": 7}, "not a catena-zero replay buffer"),
])
def test_a_replay_files_counters_and_credit_are_checked_and_a_resume_goes_on(tmp_path, capsys, changes, fragment):
    import numpy as np

    from catena_zero.train.replay import ReplayError

    config, buffer, trajectory, checkpointer, run = _replay_setup(tmp_path)
    replay = buffer()
    replay.add(trajectory)
    checkpointer.save(_checkpoint(config, 5), replay)
    _tampered_npz(run / "replay.npz", **{k: np.array(v) for k, v in changes.items()})
    with pytest.raises(ReplayError, match=fragment.replace("?", r"\?")):
        buffer().load(run / "replay.npz")
    # The resume: one warning line and an empty buffer that trains, never a crash in every session.
    from catena_zero.train.checkpointer import Checkpointer

    resumed = Checkpointer(run, config.run)
    assert resumed.restore().step == 5
    fresh = buffer()
    assert resumed.load_replay(fresh) is False
    assert fresh.samples_allowed() >= 0 and "resuming with an empty replay buffer" in capsys.readouterr().err


def test_a_fifo_at_the_replay_file_neither_hangs_the_next_checkpoint_nor_a_resume(tmp_path, capsys):
    import os
    import threading

    config, buffer, trajectory, checkpointer, run = _replay_setup(tmp_path)
    replay = buffer()
    replay.add(trajectory)
    os.mkfifo(run / "replay.npz")
    from catena_zero.train.checkpointer import Checkpointer

    resumed = Checkpointer(run, config.run)  # a resume finds the FIFO first: refused, not read
    assert resumed.load_replay(buffer()) is False
    assert "FIFO" in capsys.readouterr().err
    saving = threading.Thread(target=checkpointer.save, args=(_checkpoint(config, 5), replay), daemon=True)
    saving.start()
    saving.join(30)
    if saving.is_alive():  # blocked in the FIFO's open: a reader releases it, then the test fails
        with open(os.open(run / "replay.npz", os.O_RDONLY | os.O_NONBLOCK), "rb") as f:
            saving.join(5)
            f.read()
        pytest.fail("the checkpoint waited for a reader of the FIFO at replay.npz")
    assert (run / "replay.npz").is_file() and len(list((run / "ckpt").iterdir())) == 1
    again = buffer()
    assert Checkpointer(run, config.run).load_replay(again) and again.positions_added == trajectory.num_positions


def test_after_a_kill_between_the_replay_file_and_the_checkpoint_their_counters_agree(tmp_path, capsys):
    import dataclasses

    import numpy as np

    from catena_zero.train.checkpointer import Checkpointer

    config, buffer, trajectory, checkpointer, run = _replay_setup(tmp_path)
    replay = buffer()
    replay.add(trajectory)
    replay.record_trained(30)
    checkpointer.save(_checkpoint(config, 5), replay)
    def counted(buffer):
        return buffer.positions_added, buffer.stats().samples_trained, buffer.samples_allowed()

    at_checkpoint = counted(replay)
    # The next checkpoint: the replay file is written, then the run is killed before the checkpoint.
    later = trajectory.num_positions
    replay.add(dataclasses.replace(trajectory, version=trajectory.version + later))
    replay.record_trained(50)
    replay.save(run / "replay.npz")
    assert replay.positions_added == 2 * later
    resumed = Checkpointer(run, config.run)
    assert resumed.restore().step == 5
    restored = buffer()
    assert resumed.load_replay(restored)
    assert counted(restored) == at_checkpoint  # positions, samples and credit as the checkpoint counted
    assert len(restored) == later
    assert f"{later:,} newer position(s) are dropped" in capsys.readouterr().err
    drawn = restored.sample(500, np.random.default_rng(0))
    assert all((part.version < later).all() for part in drawn.parts)  # none of the uncounted positions
    # A replay file written with its checkpoint is kept whole.
    checkpointer.save(_checkpoint(config, 9), replay)
    whole = Checkpointer(run, config.run)
    assert whole.restore().step == 9
    again = buffer()
    assert whole.load_replay(again) and counted(again) == counted(replay) and len(again) == 2 * later


# ------------------------------------------------------------------------------ arguments that ended as exit 70


def test_a_non_ascii_output_path_under_an_ascii_output_encoding_is_no_internal_error(tmp_path):
    import os
    import subprocess
    import sys

    out = tmp_path / "partie-é.txt"
    env = {**os.environ, "PYTHONIOENCODING": "ascii"}
    code = ("import sys; from catena_zero.cli import main; "
            "sys.exit(main(['random-game', '--side', '3', '--seed', '1', '--out', sys.argv[1]]))")
    done = subprocess.run([sys.executable, "-c", code, str(out)], env=env, capture_output=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert out.is_file() and b"partie-\\xe9.txt" in done.stdout  # said, escaped
    # An error naming such a path is one line as well.
    code = "import sys; from catena_zero.cli import main; sys.exit(main(['show', sys.argv[1]]))"
    done = subprocess.run([sys.executable, "-c", code, str(tmp_path / "absent-é.txt")], env=env,
                          capture_output=True, timeout=120)
    assert done.returncode == 2 and done.stderr.count(b"\n") == 1 and b"absent-\\xe9.txt" in done.stderr


@pytest.mark.parametrize("argv, fragment", [
    (["NAME=bad\nname"], "NAME must be one line of printable text"),
    (["--strength", "90%\x1b[31m red"], "--strength must be one line of printable text"),
    (["--trained", "an hour\u2028of training"], "--trained must be one line of printable text"),
    (["--strength", "bytes \udcff of another encoding"], "--strength must be one line of printable text"),
])
def test_ship_refuses_a_name_or_index_text_that_is_not_one_printable_line(tmp_path, capsys, argv, fragment):
    folder = _bots_folder(tmp_path, None)
    name = argv[0][5:] if argv[0].startswith("NAME=") else "fine"
    flags = [] if argv[0].startswith("NAME=") else argv
    err = one_line_error(capsys, ["ship", str(folder / "side3.bot"), name, "--folder", str(folder), *flags])
    assert fragment in err
    assert sorted(p.name for p in folder.iterdir()) == ["side3.bot"]  # nothing written


@pytest.mark.parametrize("argv", [
    ["analyze", "RECORD", "--device", "tpu"],
    ["analyze", "RECORD", "--device", "cuda:x"],
    ["evaluate", "random", "random", "--side", "3", "--device", "gpu\x1b"],
])
def test_a_bad_device_is_named_as_the_flag(tmp_path, capsys, argv):
    record = tmp_path / "game.txt"
    assert main(["random-game", "--side", "3", "--seed", "1", "--out", str(record)]) == 0
    capsys.readouterr()
    err = one_line_error(capsys, [str(record) if a == "RECORD" else a for a in argv])
    assert "argument --device: must be auto, cpu, cuda or cuda:i" in err and "net.device" not in err


def test_analyze_of_a_record_no_shipped_bot_plays_takes_no_other_rules_bot(tmp_path, capsys):
    record = tmp_path / "side10.txt"
    assert main(["random-game", "--side", "10", "--seed", "1", "--out", str(record)]) == 0
    capsys.readouterr()
    code = main(["analyze", str(record)])
    out, err = capsys.readouterr()
    assert code == 2 and "side3.bot" not in out + err.split("(shipped bots cover")[0], out + err
    assert err.startswith("catena-zero: error: no shipped bot for side 10 komi standard") and err.count("\n") == 1


@pytest.mark.parametrize("cache", [
    '{"k": ' + _deep(100_000) + "}",
    '{"k": {"wins": "3", "draws": 0, "losses": 1, "pairs": [0, 0, 1, 0, 1], "score": 0.5, "interval": [0, 1], '
    '"elo": 0.0, "elo_interval": [-100, 100], "komi": 7}}',
    '{"k": [1, 2]}',
])
def test_ablates_match_cache_with_nesting_or_a_string_game_count_counts_as_not_played(tmp_path, cache):
    from catena_zero.eval.ablation_matches import _read_played

    path = tmp_path / "matches.json"
    path.write_text(cache, encoding="utf-8")
    assert _read_played(path) == {}
    good = {"wins": 3, "draws": 0, "losses": 1, "pairs": [0, 0, 1, 0, 1], "score": 0.75, "interval": [0.2, 1.0],
            "elo": float("inf"), "elo_interval": [-100.0, float("inf")], "komi": 7}
    path.write_text(json.dumps({"k": good}), encoding="utf-8")  # Infinity: what json writes of a 100% Elo
    assert _read_played(path) == {"k": good}
