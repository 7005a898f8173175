"""Config loading: defaults, YAML files, and one-line errors for unknown keys and bad values."""

from pathlib import Path

import pytest

from catena_zero.config import Config, ConfigError, config_from_dict, load_config
from catena_zero.game import GameConfig

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
