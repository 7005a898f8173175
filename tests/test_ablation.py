"""The ablation command (eval/ablation.py, commands/ablate.py): a plan's variants train from the
same seed for the same minutes, each final network is measured, the table goes into a Markdown
section between markers, and a second call trains nothing again."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from catena_zero.cli import main
from catena_zero.config import ConfigError
from catena_zero.eval.ablation import AblationPlan, load_plan, variant_configs, write_section

ROOT = Path(__file__).resolve().parent.parent

TINY_RUN = {
    "game": {"side": 2},
    "net": {"blocks": 1, "channels": 8, "head_channels": 4, "value_hidden": 8, "global_pool_every": 0},
    "search": {"num_simulations": 2, "gumbel_num_considered": 2},
    "selfplay": {"games_per_actor": 8, "cheap_simulations": 1},
    "replay": {"min_positions": 30, "window_min": 500},
    "train": {"batch_size": 16, "warmup_steps": 2},
    "eval": {"interval_steps": 0, "games": 0},
    "run": {"checkpoint_interval": 50, "num_cpus": 2, "num_actors": 1, "log_interval_seconds": 1000},
}


def _plan(tmp_path: Path, **changes) -> Path:
    base = dict(TINY_RUN, run={**TINY_RUN["run"], "root": str(tmp_path / "runs")})
    (tmp_path / "base.yaml").write_text(yaml.safe_dump(base))
    plan = {
        "config": str(tmp_path / "base.yaml"),
        "minutes": 0.1,
        "baseline": "baseline",
        "variants": {"baseline": {}, "ema": {"train.ema_decay": 0.5}},
        "evaluation": {"opponent": "random", "komi": 0, "games": 4, "simulations": 2, "baseline_games": 2},
        **changes,
    }
    path = tmp_path / "tiny.yaml"
    path.write_text(yaml.safe_dump(plan))
    return path


def test_plan_errors_are_one_line(tmp_path):
    with pytest.raises(ConfigError, match="baseline 'nope' is not one of the variants"):
        load_plan(_plan(tmp_path, baseline="nope"))
    with pytest.raises(ConfigError, match="unknown key"):
        load_plan(_plan(tmp_path, evaluation={"opponents": "random"}))
    plan = load_plan(_plan(tmp_path, variants={"baseline": {}, "bad": {"train.learning_rat": 1}}))
    with pytest.raises(ConfigError, match="variant bad: unknown key train.learning_rat"):
        variant_configs(plan, "tiny")


def test_variants_share_the_seed_and_differ_only_by_their_overrides(tmp_path):
    plan = load_plan(_plan(tmp_path))
    configs = variant_configs(plan, "tiny")
    assert configs["baseline"].seed == configs["ema"].seed
    assert configs["ema"].train.ema_decay == 0.5 and configs["baseline"].train.ema_decay == 0.0
    assert configs["ema"].run.max_minutes == 0.1 and configs["ema"].run.name == "ablate-tiny-ema"


def test_the_plan_base_applies_to_every_variant_before_its_own_overrides(tmp_path):
    plan = load_plan(_plan(tmp_path, base={"train.ema_decay": 0.25, "train.batch_size": 8}))
    configs = variant_configs(plan, "tiny")
    assert configs["baseline"].train.ema_decay == 0.25 and configs["ema"].train.ema_decay == 0.5
    assert configs["baseline"].train.batch_size == configs["ema"].train.batch_size == 8
    with pytest.raises(ConfigError, match="variant baseline: unknown key train.nope"):
        variant_configs(load_plan(_plan(tmp_path, base={"train.nope": 1})), "tiny")


def test_write_section_replaces_only_its_own_section(tmp_path):
    path = tmp_path / "RESULTS.md"
    path.write_text("# Results\n\nintro\n\n<!-- ablation:a -->\nold\n<!-- /ablation:a -->\n\nafter\n")
    write_section(path, "a", "<!-- ablation:a -->\nnew\n<!-- /ablation:a -->\n")
    write_section(path, "b", "<!-- ablation:b -->\nother\n<!-- /ablation:b -->\n")
    text = path.read_text()
    assert "old" not in text and "new" in text and "intro" in text and "after" in text
    assert text.index("new") < text.index("after") < text.index("other")


def test_ablate_trains_each_variant_measures_it_and_resumes_without_training(tmp_path, capsys):
    plan = _plan(tmp_path)
    results = tmp_path / "RESULTS.md"
    assert main(["ablate", str(plan), "--results", str(results)]) == 0
    out = capsys.readouterr().out
    assert "ablate: training baseline" in out and "ablate: training ema" in out
    rows = json.loads((tmp_path / "runs" / "ablate-tiny.json").read_text())
    assert [r["name"] for r in rows] == ["baseline", "ema"]
    for row in rows:
        t = row["vs_opponent"]
        assert t["wins"] + t["draws"] + t["losses"] == 4 and row["minutes"] >= 0.1 and row["step"] >= 0
    assert rows[0]["vs_baseline"] is None
    assert rows[1]["vs_baseline"]["wins"] + rows[1]["vs_baseline"]["draws"] + rows[1]["vs_baseline"]["losses"] == 2
    text = results.read_text()
    assert "| ema | `train.ema_decay=0.5` |" in text and "Reproduce: `catena-zero ablate" in text
    tallies = [(r["vs_opponent"], r["vs_baseline"]) for r in rows]
    played = tmp_path / "runs" / "ablate-tiny-matches.json"
    assert len(json.loads(played.read_text())) == 3
    # Again, the matches played anew in two processes: nothing to train, the same table.
    played.unlink()
    assert main(["ablate", str(plan), "--results", str(results), "--jobs", "2"]) == 0
    out = capsys.readouterr().out
    assert "ablate: training" not in out and out.count("already trained") == 2
    assert "3 matches of 4 games at komi 0, 2 at a time" in out and "ablate: ema vs baseline: +" in out
    assert "(3/3)" in out
    again = json.loads((tmp_path / "runs" / "ablate-tiny.json").read_text())
    assert [(r["vs_opponent"], r["vs_baseline"]) for r in again] == tallies
    # A third time: every match was played, none is played again.
    assert main(["ablate", str(plan), "--results", str(results)]) == 0
    out = capsys.readouterr().out
    assert "0 matches of 4 games" in out and "(3 played before)" in out and "vs baseline: +" not in out
    third = json.loads((tmp_path / "runs" / "ablate-tiny.json").read_text())
    assert [(r["vs_opponent"], r["vs_baseline"]) for r in third] == tallies


def test_ablate_refuses_fewer_than_one_job(tmp_path, capsys):
    assert main(["ablate", str(_plan(tmp_path)), "--jobs", "0"]) == 2
    assert "--jobs must be at least 1, got 0" in capsys.readouterr().err


def test_every_shipped_plan_loads_and_its_variants_are_valid_configs():
    plans = sorted((ROOT / "configs" / "ablations").glob("*.yaml"))
    assert plans
    for path in plans:
        plan = load_plan(path)
        configs = variant_configs(plan, path.stem)
        assert set(configs) == set(plan.variants)
