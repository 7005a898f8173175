"""The ablation command (eval/ablation.py, commands/ablate.py): a plan's variants train with the
same seeds for the same CPU time, each final network is measured, each row is decided by a
Holm-corrected test, the table goes into a Markdown section between markers, and a second call
trains nothing again."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from catena_zero.cli import main
from catena_zero.config import ConfigError
from catena_zero.eval.ablation import AblationPlan, TrainedVariant, load_plan, variant_configs
from catena_zero.eval.ablation_decision import decide, holm, pool
from catena_zero.eval.reports import write_section

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
        "cpu_minutes": 0.1,
        "seeds": 1,
        "baseline": "baseline",
        "variants": {"baseline": {}, "ema": {"train.ema_decay": 0.5}},
        "evaluation": {"opponent": "random", "komi": 0, "book": 2, "simulations": 2, "baseline_games": 2},
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


def test_variants_share_the_seeds_and_differ_only_by_their_overrides(tmp_path):
    plan = load_plan(_plan(tmp_path, seeds=3, seed=5))
    configs = variant_configs(plan, "tiny")
    # seed by seed, the baseline first in each batch
    assert list(configs) == [("baseline", 5), ("ema", 5), ("baseline", 6), ("ema", 6), ("baseline", 7), ("ema", 7)]
    assert configs[("baseline", 6)].seed == configs[("ema", 6)].seed == 6
    assert configs[("ema", 5)].train.ema_decay == 0.5 and configs[("baseline", 5)].train.ema_decay == 0.0
    ema = configs[("ema", 7)].run
    assert ema.max_cpu_minutes == 0.1 and ema.max_minutes is None and ema.name == "ablate-tiny-ema-seed7"
    wall = variant_configs(load_plan(_plan(tmp_path, cpu_minutes=None, minutes=0.2)), "tiny")
    assert wall[("ema", 0)].run.max_minutes == 0.2 and wall[("ema", 0)].run.max_cpu_minutes is None


def test_a_plan_has_exactly_one_bound_and_at_least_one_seed(tmp_path):
    with pytest.raises(ConfigError, match="one of cpu_minutes"):
        load_plan(_plan(tmp_path, minutes=3))
    with pytest.raises(ConfigError, match="one of cpu_minutes"):
        load_plan(_plan(tmp_path, cpu_minutes=None))
    with pytest.raises(ConfigError, match="seeds must be >= 1"):
        load_plan(_plan(tmp_path, seeds=0))


def test_the_plan_base_applies_to_every_variant_before_its_own_overrides(tmp_path):
    plan = load_plan(_plan(tmp_path, base={"train.ema_decay": 0.25, "train.batch_size": 8}))
    configs = variant_configs(plan, "tiny")
    assert configs[("baseline", 0)].train.ema_decay == 0.25 and configs[("ema", 0)].train.ema_decay == 0.5
    assert configs[("baseline", 0)].train.batch_size == configs[("ema", 0)].train.batch_size == 8
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
    assert "ablate: training baseline seed 0 for 0.1 CPU-minutes" in out and "ablate: training ema seed 0" in out
    rows = json.loads((tmp_path / "runs" / "ablate-tiny.json").read_text())
    assert [r["name"] for r in rows] == ["baseline", "ema"]
    for row in rows:
        (run,) = row["runs"]
        t = run["vs_opponent"]
        assert t["wins"] + t["draws"] + t["losses"] == 4 and sum(t["pairs"]) == 2  # a 2-opening book, twice each
        assert run["cpu_minutes"] >= 0.1 - 1 / 60 and run["step"] >= 0
    assert rows[0]["vs_baseline"] is None and rows[0]["decision"] == "baseline"
    assert sum(rows[1]["vs_baseline"]["pairs"]) == 2
    assert rows[1]["decision"] == "none: 1 seed(s), a decision needs 3"
    text = results.read_text()
    assert "| ema | `train.ema_decay=0.5` | 1 |" in text and "Reproduce: `catena-zero ablate" in text
    tallies = [(r["vs_opponent"], r["vs_baseline"]) for r in rows]
    played = tmp_path / "runs" / "ablate-tiny-matches.json"
    assert len(json.loads(played.read_text())) == 3
    # Again, the matches played anew in two processes: nothing to train, the same table.
    played.unlink()
    assert main(["ablate", str(plan), "--results", str(results), "--jobs", "2"]) == 0
    out = capsys.readouterr().out
    assert "ablate: training" not in out and out.count("already trained") == 2
    assert "3 matches of 2 book openings x 2 at komi 0, 2 at a time" in out and "ablate: ema seed 0 vs baseline: +" in out
    assert "(3/3)" in out
    again = json.loads((tmp_path / "runs" / "ablate-tiny.json").read_text())
    assert [(r["vs_opponent"], r["vs_baseline"]) for r in again] == tallies
    # A third time: every match was played, none is played again.
    assert main(["ablate", str(plan), "--results", str(results)]) == 0
    out = capsys.readouterr().out
    assert "0 matches of 2 book openings" in out and "(3 played before)" in out and "vs baseline: +" not in out
    third = json.loads((tmp_path / "runs" / "ablate-tiny.json").read_text())
    assert [(r["vs_opponent"], r["vs_baseline"]) for r in third] == tallies
    # --no-train with a second seed: its runs have not trained, so they are left out, nothing trains
    assert main(["ablate", str(plan), "--results", "-", "--seeds", "2", "--no-train"]) == 0
    out = capsys.readouterr().out
    assert "ablate: training" not in out and "ema seed 1 has not trained its 0.1 CPU-minutes: left out" in out
    assert "0 matches of 2 book openings" in out and not (tmp_path / "runs" / "ablate-tiny-ema-seed1").exists()


def _tally(pairs: tuple[int, int, int, int, int]) -> dict:
    """A match's tally from its pair counts: a pair of 1 point as a win and a loss, 1/2 as a draw
    and a loss, 3/2 as a win and a draw."""
    score = (0.5 * pairs[1] + pairs[2] + 1.5 * pairs[3] + 2 * pairs[4]) / (2 * sum(pairs))
    return {"wins": pairs[2] + pairs[3] + 2 * pairs[4], "draws": pairs[1] + pairs[3],
            "losses": 2 * pairs[0] + pairs[1] + pairs[2], "pairs": list(pairs), "score": score}


def test_holm_adjusts_step_down_as_worked_by_hand():
    # p = 0.01, 0.04, 0.03 (m = 3): sorted 0.01 x3 = 0.03; 0.03 x2 = 0.06; 0.04 x1 = 0.04 -> max(0.06, 0.04)
    assert holm([0.01, 0.04, 0.03]) == pytest.approx([0.03, 0.06, 0.06])
    assert holm([0.5]) == [0.5] and holm([0.6, 0.9]) == pytest.approx([1.0, 1.0])


def test_pooled_error_is_the_larger_of_match_noise_and_seed_spread():
    steady = pool([_tally((0, 0, 10, 10, 0))] * 3)  # every seed scored 62.5%: no spread
    assert steady.score == pytest.approx(0.625) and steady.spread == 0.0
    assert steady.stderr == pytest.approx(0.125 / (60 ** 0.5))  # pair sd of 1/2 or 3/4: 0.125, over 60 pairs
    spread = pool([_tally((0, 0, 20, 0, 0)), _tally((0, 0, 0, 20, 0)), _tally((0, 0, 0, 0, 20))])
    # seeds at 50%, 75%, 100%: the pairs are each constant, the seeds are not
    assert spread.spread == pytest.approx(0.25) and spread.stderr == pytest.approx(0.25 / 3 ** 0.5)


def test_decide_needs_three_seeds_and_corrects_for_the_rows(tmp_path):
    plan = load_plan(_plan(tmp_path, seeds=3, variants={"baseline": {}, "a": {"train.ema_decay": 0.5},
                                                         "b": {"train.ema_decay": 0.9}}))
    trained = [TrainedVariant(name, seed, tmp_path, tmp_path / "c.pt", 10, 100, 1.0, 2.0)
               for seed in range(3) for name in ("baseline", "a", "b")]
    strong, even = (0, 2, 10, 20, 8), (5, 5, 10, 5, 5)
    tallies = {}
    for seed in range(3):
        for name in ("baseline", "a", "b"):
            tallies[(name, seed, "opponent")] = _tally(even)
        tallies[("a", seed, "baseline")] = _tally(strong)
        tallies[("b", seed, "baseline")] = _tally(even)
    rows = {r.name: r for r in decide(plan, trained, tallies)}
    assert rows["baseline"].decision == "baseline" and rows["baseline"].p_holm is None
    assert rows["a"].decision == "better" and rows["a"].p_holm < 0.05
    assert rows["b"].decision == "no difference shown" and rows["b"].p_holm == pytest.approx(1.0)
    # two seeds only: no decision, however clear the matches
    rows = {r.name: r for r in decide(plan, [t for t in trained if t.seed < 2], tallies)}
    assert rows["a"].decision == "none: 2 seed(s), a decision needs 3" and rows["a"].p_holm is None
    # a row with too few seeds is not in the family: the others are corrected over one row fewer
    alone = decide(plan, [t for t in trained if t.name != "b" or t.seed == 0], tallies)
    assert {r.name: r.p_holm for r in alone}["a"] == pytest.approx(pool([_tally(strong)] * 3).p_value())


def test_ablate_refuses_fewer_than_one_job(tmp_path, capsys):
    assert main(["ablate", str(_plan(tmp_path)), "--jobs", "0"]) == 2
    assert "--jobs must be at least 1, got 0" in capsys.readouterr().err


def test_every_shipped_plan_loads_and_its_variants_are_valid_configs():
    plans = sorted((ROOT / "configs" / "ablations").glob("*.yaml"))
    assert plans
    for path in plans:
        plan = load_plan(path)
        configs = variant_configs(plan, path.stem)
        assert {name for name, _ in configs} == set(plan.variants) and len(configs) == len(plan.variants) * plan.seeds


@pytest.mark.parametrize("line, fragment", [
    ("seeds: " + "1" * 5000, "seeds is too long to be valid"),
    ("cpu_minutes: 1:30", "base-60 number"),
    ("seeds: 03", "leading zero"),
    ("seeds: 3\nseeds: 4", "duplicate key 'seeds'"),
])
def test_a_plan_is_read_as_configs_are(tmp_path, line, fragment):
    """Issue 25: a plan went through yaml.safe_load, so 5,000 digits were an internal error and
    1:30 read as 90; it is now read as a config is (read_yaml_file)."""
    path = tmp_path / "plan.yaml"
    path.write_text(f"config: configs/quick.yaml\n{line}\nvariants: {{baseline: {{}}}}\n")
    with pytest.raises(ConfigError) as err:
        load_plan(path)
    assert fragment in str(err.value) and "\n" not in str(err.value) and len(str(err.value)) < 300
