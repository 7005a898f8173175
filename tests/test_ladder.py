"""The ladder (eval/ladder.py, ``catena-zero ladder``): schedules, the results file that re-runs
add to, ratings outputs (CSV, Markdown, PNG, TensorBoard), refits, pruned checkpoints, bad input."""

from __future__ import annotations

import csv
import json
import os

import pytest

from catena_zero.cli import main
from catena_zero.eval.ladder import (
    LadderError,
    LadderPlayer,
    checkpoint_players,
    load_results,
    run_ladder,
    schedule,
    spread_checkpoints,
)
from test_arena import assert_one_line_error, make_run


def players(*ids):
    return [LadderPlayer(id=i, kind="checkpoint", step=int(i[1:])) if i.startswith("s") else
            LadderPlayer(id=i, kind="baseline") for i in ids]


def test_schedules_by_hand():
    ps = players("random", "greedy", "s1", "s2", "s3")
    assert schedule(ps, "gauntlet") == [
        ("greedy", "random"),
        ("s1", "random"), ("s1", "greedy"),
        ("s2", "random"), ("s2", "greedy"), ("s2", "s1"),
        ("s3", "random"), ("s3", "greedy"), ("s3", "s2"),
    ]
    round_robin = schedule(ps, "round-robin")
    assert len(round_robin) == 10 and len({frozenset(p) for p in round_robin}) == 10  # every pair once
    with pytest.raises(LadderError, match="unknown ladder mode"):
        schedule(ps, "swiss")


def test_spread_checkpoints_by_hand():
    # Training times 0, 10, 20, 30, 40, 100 s: three spread over time are the first (0), the one
    # nearest 50 (40) and the newest (100); every checkpoint when there are fewer than asked.
    ps = [LadderPlayer(id=f"s{i}", kind="checkpoint", step=i, seconds=t)
          for i, t in enumerate([0, 10, 20, 30, 40, 100])]
    assert [p.id for p in spread_checkpoints(ps, 3)] == ["s0", "s4", "s5"]
    assert [p.id for p in spread_checkpoints(ps, 6)] == [p.id for p in ps]
    # Bunched times still give exactly the count asked for.
    bunched = [LadderPlayer(id=f"b{i}", kind="checkpoint", step=i, seconds=0.0) for i in range(5)]
    assert len(spread_checkpoints(bunched, 4)) == 4
    with pytest.raises(LadderError, match="at least 2"):
        spread_checkpoints(ps, 1)


def read_scalars(folder):
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    events = EventAccumulator(str(folder))
    events.Reload()
    return {tag: [(e.step, e.value) for e in events.Scalars(tag)] for tag in events.Tags()["scalars"]}


def test_ladder_writes_ratings_and_a_rerun_adds_games(tmp_path):
    run = make_run(tmp_path / "run", steps=(10, 20))
    first = run_ladder(run, games=2, simulations=2, baselines=("random", "greedy"))
    assert [(m.a, m.b) for m in first.played] == [
        ("greedy", "random"), ("step-00000010", "random"), ("step-00000010", "greedy"),
        ("step-00000020", "random"), ("step-00000020", "greedy"), ("step-00000020", "step-00000010")]
    assert all(m.games == 2 for m in first.played)
    results = load_results(run / "ladder" / "results.json")
    assert len(results.matches) == 6 and results.settings["simulations"] == 2
    # the outputs
    with open(run / "ladder" / "ratings.csv") as f:
        rows = list(csv.DictReader(f))
    assert [r["player"] for r in rows] == ["random", "greedy", "step-00000010", "step-00000020"]
    assert float(rows[0]["elo"]) == 0.0 and float(rows[0]["elo_stderr"]) == 0.0
    assert [r["step"] for r in rows[2:]] == ["10", "20"] and [r["seconds"] for r in rows[2:]] == ["20.0", "40.0"]
    assert int(rows[2]["games"]) == 6 and int(rows[1]["games"]) == 6
    for r in rows:
        assert float(r["elo_low95"]) <= float(r["elo"]) <= float(r["elo_high95"])
        assert float(r["elo"]) == pytest.approx(first.fit.rating(r["player"]), abs=0.05)
    md = (run / "ladder" / "ratings.md").read_text()
    assert "| player | step | training time | CPU-hours | Elo | 95% interval | games | score |" in md
    assert "| random |  |  |  | 0 | anchor |" in md and "| step-00000020 | 20 | 0.7 min |  |" in md
    assert [r["cpu_hours"] for r in rows] == ["", "", "", ""]  # make_run's checkpoints count no CPU
    png = (run / "ladder" / "ratings.png").read_bytes()
    assert png.startswith(b"\x89PNG") and len(png) > 10_000
    scalars = read_scalars(run / "tensorboard" / "ladder")
    assert [s for s, _ in scalars["ladder/elo"]] == [10, 20]
    assert [v for _, v in scalars["ladder/elo"]] == pytest.approx([first.fit.rating("step-00000010"),
                                                                     first.fit.rating("step-00000020")], abs=1e-3)
    # a re-run adds games to the same pairs (new openings: the seed follows the games played)
    second = run_ladder(run, games=2, baselines=("random", "greedy"))  # the stored --sims is reused
    results = load_results(run / "ladder" / "results.json")
    assert len(results.matches) == 12 and sum(m.games for m in results.matches) == 24
    assert results.games_between("step-00000020", "greedy") == 4
    assert {m.seed for m in results.matches[:6]}.isdisjoint(m.seed for m in results.matches[6:])
    assert second.fit.games[second.fit.index("step-00000010")] == 12
    # the TensorBoard events were replaced, not duplicated
    assert [s for s, _ in read_scalars(run / "tensorboard" / "ladder")["ladder/elo"]] == [10, 20]
    assert len(list((run / "tensorboard" / "ladder").glob("events.out.tfevents.*"))) == 1


def test_refit_without_playing_and_pruned_checkpoints_keep_their_games(tmp_path):
    run = make_run(tmp_path / "run", steps=(1, 2))
    with pytest.raises(LadderError, match="no games yet"):
        run_ladder(run, play=False)
    run_ladder(run, games=2, simulations=1, baselines=("random",))
    (run / "ckpt" / "step-00000001.pt").unlink()  # pruned by training since
    report = run_ladder(run, play=False)  # default baselines: greedy and mcts:200 never played here
    assert report.played == ()
    assert {"greedy", "mcts:200"}.isdisjoint(p.id for p in report.players)
    ids = [p.id for p in report.players]
    assert "step-00000001" in ids and report.fit.games[report.fit.index("step-00000001")] == 4
    pruned = next(p for p in report.players if p.id == "step-00000001")
    assert pruned.step == 1 and pruned.path is None


def test_training_time_falls_back_to_file_times(tmp_path):
    run = tmp_path / "run"
    make_run(run, steps=(1, 2))
    from catena_zero.artifacts.checkpoint import Checkpoint, load_checkpoint, save_checkpoint

    old = load_checkpoint(run / "ckpt" / "step-00000002.pt")  # rewrite without counters
    save_checkpoint(run, Checkpoint(step=2, config=old.config, model=old.model))
    os.utime(run / "ckpt" / "step-00000001.pt", (1000, 1000))
    os.utime(run / "ckpt" / "step-00000002.pt", (1090, 1090))
    assert [p.seconds for p in checkpoint_players(run)] == [0.0, 90.0]


def test_ladder_command_and_its_one_line_errors(tmp_path, capsys):
    run = make_run(tmp_path / "run", steps=(3,))
    code = main(["ladder", str(run), "--games", "2", "--sims", "1", "--baselines", "random,mcts:2", "--mode", "round-robin"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "[3/3] step-00000003 vs mcts:2:" in out and "ladder: 3 matches played now, 6 games in all" in out
    assert "random  Elo       0   anchor" in out
    (tmp_path / "empty").mkdir()
    cases = [
        (["ladder", str(tmp_path / "missing")], "no such run folder"),
        (["ladder", str(tmp_path / "empty")], "has no checkpoint"),
        (["ladder", str(run), "--sims", "5"], "was played with simulations 1, not 5"),
        (["ladder", str(run), "--games", "0"], "at least 1"),
        (["ladder", str(run), "--mode", "swiss"], "invalid choice"),
        (["ladder", str(run), "--checkpoints", "1"], "--checkpoints must be at least 2"),
        (["ladder", str(run), "--baselines", "random,foo"], "unknown player kind 'foo'"),
        (["ladder", str(run), "--baselines", f"random,{run}"], "ladder baselines are random, greedy, mcts:K and bot files"),
    ]
    for argv, fragment in cases:
        assert_one_line_error(main(argv), capsys.readouterr().err, fragment)
    (run / "ladder" / "results.json").write_text('{"format": "catena-zero-ladder", "version": 1, "matches": [{"a": 1}]')
    assert_one_line_error(main(["ladder", str(run)]), capsys.readouterr().err, "not a readable ladder results file")
    (run / "ladder" / "results.json").write_text(json.dumps({"format": "catena-zero-ladder", "version": 9}))
    assert_one_line_error(main(["ladder", str(run)]), capsys.readouterr().err, "version 9")


def test_a_ladder_over_a_book_plays_one_komi_and_the_books_next_openings(tmp_path):
    from catena_zero.eval.book import shipped_book
    from catena_zero.game.options import RuleSet

    run = make_run(tmp_path / "run", steps=(10, 20))
    book = shipped_book(RuleSet(3, "komi", "standard"))
    first = run_ladder(run, games=4, simulations=2, baselines=("random", "catena_zero/bots/side3.bot"), book="4")
    assert all(m.games == 4 and m.komi == book.komi for m in first.played)  # one komi: the book's
    assert ("step-00000010", "side3.bot") in [(m.a, m.b) for m in first.played]  # a bot file on the panel
    settings = load_results(run / "ladder" / "results.json").settings
    assert settings["komi"] == book.komi and settings["book"].startswith("book of 4 openings")
    run_ladder(run, games=4, baselines=("random", "catena_zero/bots/side3.bot"), book="4")  # the other two
    with pytest.raises(LadderError, match="has played 4 of the book's 4 openings; 2 more do not fit"):
        run_ladder(run, games=4, baselines=("random",), book="4")
    with pytest.raises(LadderError, match="--games must be even"):
        run_ladder(run, games=3, baselines=("random",), book="4")
    with pytest.raises(LadderError, match="was played with book"):
        run_ladder(run, games=4, baselines=("random",), book="6")  # another book: another ladder


# ----------------------------------------------------------------------------- CPU-hours and curves


def with_cpu(run, cpu_by_step, init_from=""):
    """Rewrite ``run``'s checkpoints with CPU counters (and a ``train.init_from``)."""
    import dataclasses

    from catena_zero.artifacts.checkpoint import Checkpoint, load_checkpoint, save_checkpoint

    for step, cpu in cpu_by_step.items():
        old = load_checkpoint(run / "ckpt" / f"step-{step:08d}.pt")
        config = dataclasses.replace(old.config, train=dataclasses.replace(old.config.train, init_from=init_from))
        save_checkpoint(run, Checkpoint(step=step, config=config, model=old.model,
                                        counters={**old.counters, "cpu_seconds": cpu}))
    return run


def test_cpu_hours_count_the_network_a_run_started_from(tmp_path):
    from catena_zero.artifacts.provenance import TrainingCpu, inherited_cpu

    first = with_cpu(make_run(tmp_path / "first", steps=(1, 2)), {1: 300.0, 2: 600.0})
    # A curriculum's second stage, started from the first run's folder (its newest checkpoint, 600 s):
    second = with_cpu(make_run(tmp_path / "second", steps=(5, 6)), {5: 360.0, 6: 720.0}, init_from=str(first))
    assert [p.cpu_seconds for p in checkpoint_players(first)] == [300.0, 600.0]
    assert [p.cpu_seconds for p in checkpoint_players(second)] == [960.0, 1320.0]
    # and a third stage from the second's step-5 checkpoint: 360 + 600 inherited
    third = with_cpu(make_run(tmp_path / "third", steps=(9,)), {9: 60.0},
                     init_from=str(second / "ckpt" / "step-00000005.pt"))
    assert [p.cpu_seconds for p in checkpoint_players(third)] == [1020.0]
    import dataclasses
    import shutil

    from catena_zero.artifacts.botfile import export_bot
    from catena_zero.artifacts.checkpoint import load_checkpoint

    assert inherited_cpu(load_checkpoint(third).config) == TrainingCpu(960.0)
    # Not known: a bot file keeps no counters; a source gone since.
    bot = tmp_path / "first.bot"
    export_bot(load_checkpoint(first), bot)
    from_bot = with_cpu(make_run(tmp_path / "from-bot", steps=(3,)), {3: 120.0}, init_from=str(bot))
    assert inherited_cpu(load_checkpoint(from_bot).config) == TrainingCpu(0.0, str(bot))
    # a later stage of that run counts the stages after the bot file and names the bot file
    after_bot = with_cpu(make_run(tmp_path / "after-bot", steps=(4,)), {4: 30.0},
                         init_from=str(from_bot / "ckpt" / "step-00000003.pt"))
    assert inherited_cpu(load_checkpoint(after_bot).config) == TrainingCpu(120.0, str(bot))
    assert [(p.cpu_seconds, p.cpu_complete) for p in checkpoint_players(after_bot)] == [(150.0, False)]
    assert [(p.cpu_seconds, p.cpu_complete) for p in checkpoint_players(from_bot)] == [(120.0, False)]  # its own only
    assert all(p.cpu_complete for p in checkpoint_players(second))
    run_ladder(from_bot, games=2, simulations=1, baselines=("random",))
    assert "CPU-hours leave out a network this run descends from" in (from_bot / "ladder" / "ratings.md").read_text()
    with open(from_bot / "ladder" / "ratings.csv") as f:
        assert [r["cpu_hours_complete"] for r in csv.DictReader(f)] == ["", "0"]
    shutil.rmtree(first)
    assert inherited_cpu(load_checkpoint(second).config) == TrainingCpu(0.0, str(first))
    # a run from random weights inherits nothing
    config = load_checkpoint(third).config
    assert inherited_cpu(dataclasses.replace(config, train=dataclasses.replace(config.train, init_from=""))) == TrainingCpu(0.0)


def test_curves_put_runs_on_one_chart_by_cpu_hours(tmp_path, capsys):
    from catena_zero.eval.curves import read_curve

    a = with_cpu(make_run(tmp_path / "a", steps=(1, 2)), {1: 1800.0, 2: 3600.0})
    b = with_cpu(make_run(tmp_path / "b", steps=(4,)), {4: 1800.0}, init_from=str(a / "ckpt" / "step-00000001.pt"))
    for run in (a, b):
        run_ladder(run, games=2, simulations=1, baselines=("random", "greedy"))
    curve = read_curve(b)
    assert curve.run == "b" and [(p.step, p.cpu_hours) for p in curve.points] == [(4, 1.0)]
    assert [name for name, _ in curve.baselines] == ["random", "greedy"]
    with open(a / "ladder" / "ratings.csv") as f:
        rows = list(csv.DictReader(f))
    assert [r["cpu_hours"] for r in rows[2:]] == ["0.5", "1.0"]
    assert "| step-00000002 | 2 | 0.1 min | 1.00 |" in (a / "ladder" / "ratings.md").read_text()
    assert "CPU-hours count this run's CPU only" not in (a / "ladder" / "ratings.md").read_text()
    out = tmp_path / "curves.png"
    assert main(["curves", str(a), str(b), "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "| a | 2 | 1.00 |" in printed and "| b | 4 | 1.00 |" in printed and "| greedy |" in printed
    assert out.read_bytes().startswith(b"\x89PNG") and out.stat().st_size > 10_000
    # relative to a panel member: every rating of a run minus that run's rating of it
    from catena_zero.eval.curves import relative_to

    greedy = dict(curve.baselines)["greedy"]
    shifted = relative_to(curve, "greedy")
    assert dict(shifted.baselines)["greedy"] == 0.0 and dict(shifted.baselines)["random"] == -greedy
    assert shifted.points[0].elo == pytest.approx(curve.points[0].elo - greedy)
    assert main(["curves", str(a), str(b), "--out", str(out), "--relative-to", "greedy"]) == 0
    assert "| greedy | 0 | 0 |" in capsys.readouterr().out


def assert_curves_error(capsys, argv, fragment):
    code = main(argv)
    assert_one_line_error(code, capsys.readouterr().err, fragment)


def test_curves_one_line_errors(tmp_path, capsys):
    no_cpu = make_run(tmp_path / "no-cpu", steps=(1,))
    unrated = make_run(tmp_path / "unrated", steps=(1,))
    run_ladder(no_cpu, games=2, simulations=1, baselines=("random",))
    out = str(tmp_path / "c.png")
    assert_curves_error(capsys, ["curves", str(unrated), "--out", out], "has no ladder yet")
    assert_curves_error(capsys, ["curves", str(no_cpu), "--out", out], "has no CPU-hours")
    assert_curves_error(capsys, ["curves", str(tmp_path / "none"), "--out", out], "no such run folder")
    a = make_run(tmp_path / "a", steps=(1,))
    with_cpu(a, {1: 60.0})
    run_ladder(a, games=2, simulations=1, baselines=("random",))
    assert_curves_error(capsys, ["curves", str(a), "--out", out, "--relative-to", "mcts:9"], "no panel member 'mcts:9'")
    ratings = no_cpu / "ladder" / "ratings.csv"
    ratings.write_text(ratings.read_text().replace("cpu_hours", "cpu"))
    assert_curves_error(capsys, ["curves", str(no_cpu), "--out", out], "--no-play")
    ratings.write_text("player,kind,step,cpu_hours,elo,elo_stderr\nstep-1,checkpoint,1,0.5,nan,1\n")
    assert_curves_error(capsys, ["curves", str(no_cpu), "--out", out], "not finite")
    # the chart may not be written into a run folder (its inputs)
    assert_curves_error(capsys, ["curves", str(unrated), "--out", str(unrated / "c.png")], "lies inside")
    assert not (tmp_path / "c.png").exists()
