"""The in-loop matches (eval/inloop.py): the baselines come from the registry of player kinds
(eval/specs.py) under the names every command gives them (``mcts:K``, not the config's ``uct``)."""

from __future__ import annotations

import dataclasses

import torch

from bot_files import tiny_config
from catena_zero.eval import inloop
from catena_zero.net import model_from_config


def test_the_in_loop_baselines_are_the_registrys_players_by_their_names(monkeypatch):
    import catena_zero.eval.specs as specs

    built = []
    registry = specs.build_agent

    def recording(spec, device=None):
        built.append(spec)
        return registry(spec, device=device)

    monkeypatch.setattr(specs, "build_agent", recording)
    config = tiny_config()
    config = dataclasses.replace(config, eval=dataclasses.replace(
        config.eval, games=2, simulations=2, uct_simulations=3, opponents=("random", "uct", "previous")))
    weights = model_from_config(config.net, torch.Generator().manual_seed(1)).state_dict()
    result = inloop.evaluate_in_loop(config, weights, None, {}, seed=0, step=4)
    baselines = [spec for spec in built if not str(spec).endswith(".bot")]  # not the reference for the komi
    assert baselines == ["random", "mcts:3"]  # through the registry, by the names the commands use
    assert list(result.win_rates) == ["random", "mcts:3"] and result.step == 4  # no previous network yet
    assert all(0.0 <= rate <= 1.0 for rate in result.win_rates.values())
