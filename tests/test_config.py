"""Config loading: defaults, YAML files, and one-line errors for unknown keys and bad values."""

from pathlib import Path

import pytest

from catena_zero.config import Config, ConfigError, config_from_dict, load_config
from catena_zero.game import GameConfig
from catena_zero.game.options import GAME_TYPES, SCORINGS

CONFIGS = Path(__file__).resolve().parent.parent / "configs"


def test_defaults_and_shipped_configs(tmp_path):
    assert config_from_dict({}) == Config()
    for name in ["default", "tiny"]:
        cfg = load_config(CONFIGS / f"{name}.yaml")
        assert isinstance(cfg.game, GameConfig)
    assert load_config(CONFIGS / "tiny.yaml").game.side == 3


def test_overrides_merge():
    cfg = load_config(CONFIGS / "default.yaml", {"game": {"side": 4}, "search": {"num_simulations": 8}})
    assert cfg.game.side == 4 and cfg.game.game_type == "komi"
    assert cfg.search.num_simulations == 8


@pytest.mark.parametrize(
    "data,fragment",
    [
        ({"gmae": {}}, "unknown key gmae"),
        ({"search": {"num_simulation": 8}}, "unknown key search.num_simulation"),
        ({"game": {"side": 11}}, "side must be in 2..10"),
        ({"game": {"game_type": "double", "komi": 3}}, "has no komi"),
        ({"game": {"komi": 16}}, "komi must be in 0..15"),
        ({"net": {"blocks": "six"}}, "net.blocks must be an integer"),
        ({"net": {"device": "tpu"}}, "net.device"),
        ({"search": {"algorithm": "alphabeta"}}, "search.algorithm"),
        ({"search": {"dirichlet_fraction": 1.5}}, "dirichlet_fraction"),
        ({"search": {"tree_reuse": "yes"}}, "true or false"),
        ({"game": [1, 2]}, "game must be a mapping"),
    ],
)
def test_bad_values_name_the_key(data, fragment):
    with pytest.raises(ConfigError) as err:
        config_from_dict(data)
    assert fragment in str(err.value)
    assert "\n" not in str(err.value)


def test_bad_files(tmp_path):
    with pytest.raises(ConfigError, match="cannot read config"):
        load_config(tmp_path / "missing.yaml")
    bad = tmp_path / "bad.yaml"
    bad.write_text("game: {side: [\n")
    with pytest.raises(ConfigError, match="invalid YAML"):
        load_config(bad)
    bad.write_text("- 1\n- 2\n")
    with pytest.raises(ConfigError, match="top level must be a mapping"):
        load_config(bad)
    quadratic = tmp_path / "q.yaml"
    quadratic.write_text("game: {scoring: quadratic, komi: 600}\n")
    assert load_config(quadratic).game.komi == 600


# ---------------------------------------------------------------------- training sections, --set

from catena_zero.config import config_diff, config_to_yaml, parse_overrides  # noqa: E402


def test_set_overrides_parse_as_yaml_scalars_and_validate_like_the_file():
    overrides = parse_overrides(["run.max_minutes=5", "selfplay.sides=[4, 5]", "seed=3", "run.address=auto"])
    assert overrides == {"run": {"max_minutes": 5, "address": "auto"}, "selfplay": {"sides": [4, 5]}, "seed": 3}
    cfg = config_from_dict(overrides)
    assert cfg.run.max_minutes == 5.0 and cfg.selfplay.sides == (4, 5) and cfg.seed == 3
    with pytest.raises(ConfigError, match="did you mean run.max_minutes"):
        config_from_dict(parse_overrides(["run.max_minute=5"]))
    with pytest.raises(ConfigError, match="run.num_actors must be >= 1"):
        config_from_dict(parse_overrides(["run.num_actors=0"]))
    with pytest.raises(ConfigError, match="selfplay.sides entries must be in 2..10"):
        config_from_dict(parse_overrides(["selfplay.sides=[4, 11]"]))
    with pytest.raises(ConfigError, match="train.batch_size must be an integer"):
        config_from_dict(parse_overrides(["train.batch_size=big"]))
    for bad in ("run.max_minutes", "=5", "run..x=1"):
        with pytest.raises(ConfigError, match="--set"):
            parse_overrides([bad])


def test_duplicate_yaml_keys_are_an_error(tmp_path):
    path = tmp_path / "dup.yaml"
    path.write_text("game:\n  side: 4\n  side: 5\n")
    with pytest.raises(ConfigError, match=r"dup.yaml: duplicate key 'side' at line 3"):
        load_config(path)


def test_config_round_trips_through_yaml_and_diffs_name_the_keys(tmp_path):
    cfg = load_config(CONFIGS / "multi.yaml")
    path = tmp_path / "saved.yaml"
    path.write_text(config_to_yaml(cfg))
    assert load_config(path) == cfg
    changed = config_from_dict({**parse_overrides(["net.channels=16", "run.max_steps=7"])})
    assert config_diff(Config(), changed) == ["net.channels: 64 -> 16", "run.max_steps: None -> 7"]


def test_every_shipped_config_loads():
    names = sorted(p.stem for p in CONFIGS.glob("*.yaml"))
    assert {"quick", "side6", "side10", "longest", "quadratic", "no_komi", "double", "multi"} <= set(names)
    for name in names:
        load_config(CONFIGS / f"{name}.yaml")
    # side6_all trains one network for every game type and scoring of the standard board.
    rule_sets = load_config(CONFIGS / "side6_all.yaml").rule_sets()
    assert len(rule_sets) == 9 and {r.side for r in rule_sets} == {6}
    assert {(r.game_type, r.scoring) for r in rule_sets} == {(t, c) for t in GAME_TYPES for c in SCORINGS}
    # sides trains one network for the sides without a specialist bot, each side unpadded.
    sides = load_config(CONFIGS / "sides.yaml")
    assert [r.side for r in sides.rule_sets()] == [7, 5, 8] and sides.net.mixed_sides == "by_side"


def test_negative_seed_is_refused_for_every_command():
    with pytest.raises(ConfigError, match="seed must be a whole number >= 0, got -1"):
        config_from_dict({"seed": -1})


def test_rule_set_is_the_options_komi_aside_with_a_stable_key():
    from catena_zero.game.options import RuleSet

    game = GameConfig(side=4, scoring="longest", komi=3)
    rules = RuleSet.of(game)
    assert rules == RuleSet(4, "komi", "longest") and rules.covers(game) and rules.covers(rules.game())
    assert not rules.covers(GameConfig(side=4, game_type="double", scoring="longest"))
    assert rules.game(komi=3) == game and rules.game().komi == 0
    # The key is stored in checkpoints (fair komi per rule set), replay files and TensorBoard tags.
    assert rules.key == "side4-komi-longest" and RuleSet.from_key(rules.key) == rules
    assert RuleSet.from_key("side6-no_komi-standard") == RuleSet(6, "no_komi", "standard")
    with pytest.raises(ValueError, match="not a rule-set key"):
        RuleSet.from_key("six-komi-standard")
    assert str(rules) == "side 4 komi longest"
    with pytest.raises(ValueError, match="scoring must be one of"):
        RuleSet(4, "komi", "shortest")
    with pytest.raises(ValueError, match="side must be in 2..10"):
        RuleSet(11, "komi", "standard")


def test_exponent_notation_without_a_dot_is_a_number_in_files_and_in_set(tmp_path):
    # PyYAML (YAML 1.1) reads 1e-4 as the string "1e-4"; a float field takes it as the number.
    path = tmp_path / "c.yaml"
    path.write_text("train:\n  learning_rate: 1e-4\n")
    assert load_config(path).train.learning_rate == 1e-4
    config = load_config(path, parse_overrides(["train.weight_decay=6E-5", "train.learning_rate=+2e1"]))
    assert (config.train.weight_decay, config.train.learning_rate) == (6e-5, 20.0)
    with pytest.raises(ConfigError, match="train.learning_rate must be a number, got '1e'"):
        load_config(path, parse_overrides(["train.learning_rate=1e"]))
    with pytest.raises(ConfigError, match="run.name must be"):  # a string field keeps the string
        load_config(path, parse_overrides(["run.name=1e4/x"]))


def test_a_komi_is_judged_by_one_rule_whether_it_comes_from_a_config_or_a_flag():
    """GameConfig and check_komi (evaluate/book's --komi) share komi_problem: the same order of
    checks (a game type without komi first, then the range) and the same words, naming the source."""
    from catena_zero.errors import UserError
    from catena_zero.game.options import check_komi

    for game_type, komi, words in (("double", 99, "has no komi"), ("no_komi", 3, "has no komi"),
                                   ("komi", 16, "komi must be in 0..15")):
        with pytest.raises(UserError) as from_config:
            GameConfig(game_type=game_type, komi=komi)
        with pytest.raises(UserError) as from_flag:
            check_komi(GameConfig(game_type=game_type), komi)
        assert words in str(from_config.value) and words in str(from_flag.value)
    with pytest.raises(UserError, match="got komi=99$"):
        GameConfig(game_type="double", komi=99)
    with pytest.raises(UserError, match="got --komi 99$"):
        check_komi(GameConfig(game_type="double"), 99)
