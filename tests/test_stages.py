"""Staged configs (recipes): a config's stages, each with its own bound and the keys it changes, run
by one ``train`` in one run folder (config/loading.py ``stage_configs``, train/stages.py, the
driver); ``--resume`` continues inside the stage where the run stopped; the recipe's end writes a
bot and its summary (eval/recipe.py), which ``ship RUN NAME`` takes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from catena_zero.artifacts.checkpoint import list_checkpoints, load_checkpoint
from catena_zero.cli import main
from catena_zero.config import ConfigError, config_from_dict, config_to_yaml
from catena_zero.config.loading import stage_configs
from catena_zero.train.stages import StageStart, session_config, stage_bound

TINY = {
    "game": {"side": 2},
    "net": {"blocks": 1, "channels": 8, "head_channels": 4, "value_hidden": 8, "global_pool_every": 0},
    "search": {"num_simulations": 2, "gumbel_num_considered": 2},
    "selfplay": {"games_per_actor": 8, "cheap_simulations": 1},
    "replay": {"min_positions": 30, "window_min": 500},
    "train": {"batch_size": 16, "warmup_steps": 2, "lr_schedule": "cosine", "lr_decay_over_run": True},
    "eval": {"interval_steps": 0, "games": 0},
    "run": {"checkpoint_interval": 3, "num_cpus": 2, "num_actors": 1, "log_interval_seconds": 1000},
}


def _recipe(**extra) -> dict:
    return {**TINY, "stages": [
        {"name": "small", "steps": 6},
        {"name": "grown", "steps": 6, "net": {"blocks": 2}, "game": {"side": 3}, "selfplay": {"sides": [2, 3]},
         "search": {"num_simulations": 3}},
    ], **extra}


def test_each_stage_changes_only_its_keys_and_the_changes_add_up():
    config = config_from_dict({**TINY, "stages": [
        {"name": "a", "cpu_minutes": 10, "game": {"side": 4}},
        {"name": "b", "positions": 1000, "search": {"num_simulations": 8}},
        {"name": "c", "steps": 50, "net": {"blocks": 3}, "game": {"side": 5}},
    ]})
    a, b, c = stage_configs(config)
    assert (a.game.side, a.search.num_simulations, a.net.blocks) == (4, 2, 1)
    assert (b.game.side, b.search.num_simulations, b.net.blocks) == (4, 8, 1)  # a's side stays: changes add up
    assert (c.game.side, c.search.num_simulations, c.net.blocks) == (5, 8, 3)
    assert [s.run.bounds() for s in (a, b, c)] == [{"cpu_minutes": 10}, {"positions": 1000}, {"steps": 50}]
    assert not a.stages and not c.finish.declared()
    # The config reads back from its YAML (what config.yaml and every checkpoint keep).
    assert config_from_dict(yaml.safe_load(config_to_yaml(config))) == config
    plain = config_from_dict({**TINY, "run": {**TINY["run"], "max_steps": 5}})
    assert stage_configs(plain) == (plain,)


@pytest.mark.parametrize("stages, message", [
    ([{"name": "a", "steps": 1}, {"name": "b", "steps": 1, "net": {"blocks": 0}}], "net.blocks must be"),
    ([{"name": "a", "steps": 1, "net": {"blocks": 3}}, {"name": "b", "steps": 1, "net": {"blocks": 2}}],
     "stage 2 ('b'): net.blocks 3 -> 2: the network cannot take a smaller tower"),
    ([{"name": "a", "steps": 1}, {"name": "b", "steps": 1, "net": {"channels": 16}}],
     "stage 2 ('b'): net.channels 8 -> 16: the network cannot take it"),
    ([{"name": "a", "steps": 1}, {"name": "b", "steps": 1, "train": {"init_from": "x.bot"}}],
     "stage 2 ('b'): train.init_from is for the first stage only"),
    ([{"name": "a"}], "stage 'a' needs exactly one bound"),
    ([{"name": "a", "steps": 1, "positions": 5}], "needs exactly one bound (cpu_minutes, positions, steps), got positions, steps"),
    ([{"name": "a", "steps": 1, "run": {"max_steps": 3}}], "stages[0]: unknown key 'run'"),
    ([{"name": "a", "steps": 1, "net": {"blokcs": 3}}], "did you mean net.blocks?"),
    ([{"name": "a", "steps": 1}, {"name": "a", "steps": 2}], "two stages are named 'a'"),
    ([{"name": "a", "cpu_minutes": 1e12}], "stages[0].cpu_minutes must be in"),
    ("side4", "stages must be a list of stages"),
])
def test_a_stage_that_does_not_build_or_that_the_network_cannot_take_is_one_line(stages, message):
    with pytest.raises(ConfigError) as info:
        config_from_dict({**TINY, "stages": stages})
    assert message in str(info.value) and "\n" not in str(info.value)


def test_a_stages_bound_counts_from_where_it_begins_and_the_runs_bounds_cap_every_stage():
    recipe = config_from_dict({**_recipe(), "run": {**TINY["run"], "max_steps": 9}})
    configs = stage_configs(recipe)
    start = StageStart(1, 2, "grown", step=6, positions=100, cpu_seconds=60.0)
    session = session_config(recipe, configs[1], start)
    assert session.run.max_steps == 9  # the stage's end, 12, capped by the run's 9
    assert stage_bound(configs[1], start).bounds() == {"steps": 12}
    assert start.as_counters()["stage"] == 1 and start.label() == "2/2 grown"
    assert StageStart.of_counters(recipe, {**start.as_counters(), "positions": 5}) == start


def test_a_stage_the_network_cannot_take_is_refused_before_anything_trains(tmp_path, capsys):
    path = tmp_path / "bad.yaml"
    path.write_text(yaml.safe_dump({**TINY, "run": {**TINY["run"], "root": str(tmp_path)}, "stages": [
        {"name": "a", "steps": 3, "net": {"blocks": 2}}, {"name": "b", "steps": 3, "net": {"blocks": 1}}]}))
    assert main(["train", "--config", str(path)]) == 2
    err = capsys.readouterr().err
    assert "net.blocks 2 -> 1: the network cannot take a smaller tower" in err and err.count("\n") == 1
    assert not (tmp_path / "bad").exists()


def _train(recipe: Path, root: Path, *flags: str) -> list[str]:
    return ["train", "--config", str(recipe), "--run-name", "r", "--set", f"run.root={root}", *flags]


def test_a_staged_run_resumes_inside_its_stage_ends_in_a_bot_and_ships(tmp_path, capsys):
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    recipe = tmp_path / "recipe.yaml"
    finish = {"panel": ["random"], "pairs": 2, "simulations": 2, "komi": 2, "komi_games": 2, "book": True,
              "search": ["gumbel_interior=puct"]}
    recipe.write_text(yaml.safe_dump(_recipe(finish=finish)))
    run = tmp_path / "r"
    # The run's own bound stops it inside the second stage.
    assert main(_train(recipe, tmp_path, "--set", "run.max_steps=9")) == 0
    out, err = capsys.readouterr()
    assert "stage 1/2 small: 6 steps" in out and "stage 2/2 grown: 6 steps, from step 6" in out
    assert "deepened from 1 to 2 blocks" in err and "starting from the replay buffer" in err
    stopped = load_checkpoint(run)
    assert stopped.step == 9 and stopped.counters["stage"] == 1 and stopped.counters["stage_step"] == 6
    assert stopped.config.net.blocks == 2 and stopped.config.game.side == 3
    assert stopped.config.train.init_from == ""  # where the run began: CPU-hours count from there
    assert "recipe-result.json" not in {p.name for p in run.iterdir()}
    # A lost replay file and a resume: the second stage goes on where it stopped, not from its start.
    (run / "replay.npz").unlink()
    assert main(_train(recipe, tmp_path, "--resume", "--set", "run.max_steps=100")) == 0
    out, err = capsys.readouterr()
    assert "stage 1/2" not in out and "deepened" not in err
    assert "stage 2/2 grown: bound reached: 12 steps; that was the last stage" in out
    assert "CPU-hours of the whole run, every stage:" in out
    final = load_checkpoint(run)
    assert final.step == 12 and final.counters["stage"] == 1
    steps = [step for step, _ in list_checkpoints(run)]
    assert steps == sorted(set(steps)) and steps[-1] == 12
    # The learning curve's CPU axis runs on across the stages, from nothing (the ladder's reading).
    from catena_zero.eval.ladder import checkpoint_players

    cpu = [player.cpu_seconds for player in checkpoint_players(run)]
    assert cpu == sorted(cpu) and cpu[-1] == pytest.approx(final.counters["cpu_seconds"])
    assert all(player.cpu_complete for player in checkpoint_players(run))
    # The recipe's end: the bot, the komi check, the book and the panel, one summary.
    assert "recipe: komi 2" in out and "vs random over 2 book pairs" in out
    result = json.loads((run / "recipe-result.json").read_text())
    assert result["step"] == 12 and len(result["panel"]) == 1 and result["panel"][0]["pairs"] == 2
    assert result["recipe"] == str(recipe) and len(result["black_shares"]) == 3
    assert (run / "recipe.bot").exists() and (run / "side3-komi-standard.book").exists()
    # TensorBoard names the stage: run/stage steps from 1 to 2 where the second began.
    events = EventAccumulator(str(run / "tensorboard"))
    events.Reload()
    assert [(e.step, e.value) for e in events.Scalars("run/stage")] == [(0, 1.0), (6, 2.0)]
    # Nothing left to train: a resume says the recipe has ended.
    assert main(_train(recipe, tmp_path, "--resume", "--set", "run.max_steps=100")) == 0
    assert "the recipe has ended" in capsys.readouterr().out
    # ship RUN NAME takes the recipe's bot and its summary.
    folder = tmp_path / "bots"
    folder.mkdir()
    assert main(["ship", str(run), "mine", "--folder", str(folder)]) == 0
    entry = json.loads((folder / "index.json").read_text())["mine.bot"]
    assert entry["recipe"] == str(recipe) and entry["strength"].startswith(f"{result['panel'][0]['score']:.1%}")
    assert entry["cpu_hours"] == result["cpu_hours"] and "2 stages (small 6 steps, grown 6 steps)" in entry["trained"]
    readme = (folder / "README.md").read_text()
    assert f"`{recipe}`" in readme
    from catena_zero.artifacts.botfile import read_bot

    assert read_bot(folder / "mine.bot").header.search.gumbel_interior == "puct"
    assert read_bot(folder / "mine.bot").header.search.num_simulations == 2
