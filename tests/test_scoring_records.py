"""A scoring record carries its own formulas (game/scoring.py): the scores of one position, of a
batch of positions, and the explanation of a result. A scoring type added as one more record is
scored by both engines and explained, with no other module changed."""

from __future__ import annotations

import random

import numpy as np
import pytest

from catena_zero.game import scoring
from catena_zero.game.colours import BLACK, WHITE
from catena_zero.game.options import GameConfig
from catena_zero.game.render import score_lines
from catena_zero.game.rules import Game
from catena_zero.game.scoring import SCORING_RULES, PointScoring, scoring_rule
from catena_zero.game.vec import VecEnv


class RibbonCount(PointScoring):
    """A scoring no engine knows: a colour's points are the ribbons it owns."""

    def points(self, stones, lengths):
        return len(lengths[0]), len(lengths[1])

    def batch_points(self, boards):
        _, owner = boards.ribbons()
        return (owner == BLACK).sum(axis=1), (owner == WHITE).sum(axis=1)

    def points_term(self, stones, lengths, alone):
        return f"{len(lengths)} ribbons"


@pytest.fixture
def ribbon_count(monkeypatch):
    """The record above under the name "ribbons", for as long as the test runs."""
    record = RibbonCount("ribbons", len(SCORING_RULES), 15, summary="the ribbons you own.")
    monkeypatch.setitem(scoring._BY_NAME, record.name, record)
    return record


def _random_games(config: GameConfig, count: int, seed: int) -> list[Game]:
    """``count`` games of ``config``, each stopped at a random move (finished ones included)."""
    rnd = random.Random(seed)
    games = []
    for _ in range(count):
        game = Game(config)
        stop = rnd.randrange(1, 3 * config.side * (config.side - 1) + 3)
        while not game.is_over and len(game.history) < stop:
            moves = game.legal_moves()
            game.play(moves[rnd.randrange(len(moves))])
        games.append(game)
    return games


@pytest.mark.parametrize("side", [3, 4])
def test_a_new_scoring_record_is_scored_by_both_engines_and_explained(ribbon_count, side):
    config = GameConfig(side=side, scoring="ribbons", komi=2)
    assert config.scoring_rule is ribbon_count
    games = _random_games(config, 40, seed=side)
    assert any(g.is_over for g in games) and not all(g.is_over for g in games)
    env = VecEnv(config)
    batched = env.from_games(games).scores
    for game, row in zip(games, batched.tolist()):
        black, white = (len(lengths) for lengths in game.owned_lengths())
        holder = game.button_holder
        expected = {"black": black + 0.5 * (holder == "black"), "white": white + 0.5 * (holder == "white") + 2}
        assert game.scores() == expected
        assert row == [expected["black"], expected["white"]]
        line, = score_lines(game)
        assert line.startswith(f"ribbons scoring (R6): black {black} ribbons")
        assert f"white {white} ribbons + komi 2" in line and line.endswith(f"= {expected['white']:g}")
    finished = env.reset(3)  # a handful: the one-row engine decides the winners, by the record too
    env.play_out(finished, np.random.default_rng(side))
    names = {BLACK: "black", WHITE: "white"}
    for i, (row, winner) in enumerate(zip(finished.scores.tolist(), finished.winner.tolist())):
        game = env.to_game(finished, i)
        assert game.scores() == dict(zip(("black", "white"), row))
        assert names.get(winner) == game.winner


@pytest.mark.parametrize("rule", SCORING_RULES, ids=lambda rule: rule.name)
def test_each_records_batch_formula_is_its_scalar_formula(rule):
    """Through the engines' own inputs: stones, owned lengths, komi and button of random positions."""
    config = GameConfig(side=4, scoring=rule.name, komi=min(rule.komi_max, 9))
    games = _random_games(config, 60, seed=rule.index)
    batched = VecEnv(config).from_games(games).scores
    for game, row in zip(games, batched.tolist()):
        board = [game.stone_at(name) for name in game.spec.names]
        stones = (board.count("black"), board.count("white"))
        scalar = rule.scores(config.komi, game.button_holder, stones, game.owned_lengths())
        assert row == list(scalar) and game.scores() == dict(zip(("black", "white"), scalar))
        assert f"= {scalar[0]:g}" in score_lines(game)[0] or not rule.has_margin


def test_an_unregistered_name_is_still_refused():
    with pytest.raises(ValueError, match="scoring must be one of standard, longest, quadratic; got 'ribbons'"):
        scoring_rule("ribbons")
