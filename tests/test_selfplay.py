"""Self-play (selfplay/play.py): targets from the mover's view, playout caps, auto-reset, komi and
rule randomisation, soft resignation bookkeeping; and the Ray pool (selfplay/workers.py)."""

from __future__ import annotations

import numpy as np

from catena_zero.config import config_from_dict
from catena_zero.game.options import komi_range
from catena_zero.game.vec_env import EMPTY, VecEnv
from catena_zero.selfplay.play import SelfPlayer, SelfPlayStats, rule_sets

TINY = {
    "game": {"side": 3},
    "net": {"blocks": 1, "channels": 8, "head_channels": 4, "value_hidden": 8, "global_pool_every": 0},
    "search": {"num_simulations": 4, "gumbel_num_considered": 4},
    "selfplay": {"games_per_actor": 6, "cheap_simulations": 2, "full_search_prob": 0.5},
}


def _config(**sections):
    data = {k: dict(v) for k, v in TINY.items()}
    for key, value in sections.items():
        data.setdefault(key, {}).update(value)
    return config_from_dict(data)


def _movers(env: VecEnv, rows: np.ndarray) -> np.ndarray:
    state = env.reset(rows.shape[0])
    state.data[:] = rows
    return state.to_move, state.move_number, state


def test_trajectory_targets_are_from_the_movers_view():
    config = _config()
    player = SelfPlayer(config, np.random.default_rng(1))
    result = player.play(40)
    assert result.stats.games >= 6
    [trajectory] = result.trajectories
    env = VecEnv(trajectory.game)
    mover, move_number, states = _movers(env, trajectory.states)
    starts = np.flatnonzero(move_number == 0)
    assert starts.size == result.stats.games  # every finished game starts on an empty board
    assert result.stats.game_plies == trajectory.num_positions
    bounds = list(starts) + [trajectory.num_positions]
    for begin, end in zip(bounds[:-1], bounds[1:]):
        game_mover = mover[begin:end]
        assert (move_number[begin:end] == np.arange(end - begin)).all()  # consecutive plies of one game
        outcome, score, own = trajectory.outcome[begin:end], trajectory.score[begin:end], trajectory.ownership[begin:end]
        same = game_mover == game_mover[0]
        # The same result, margin and ownership seen from two sides: equal for the same mover, negated otherwise.
        assert (np.where(same, outcome, -outcome) == outcome[0]).all()
        assert np.allclose(np.where(same, score, -score), score[0])
        assert (np.where(same[:, None], own, -own) == own[0]).all()
        # The final owners fill the board exactly where the last position's stones and the final
        # stone are: every stone of the last recorded position is owned by someone at the end.
        last_board = states.board[end - 1]
        assert (own[-1][last_board != EMPTY] != 0).all()
        # Winner by margin (standard scoring has no ties with the button, R6).
        assert np.sign(score[0]) == outcome[0]
    # Playout caps: policy targets exactly on full searches, each a distribution over legal actions.
    has = trajectory.has_policy
    assert 0 < has.sum() < has.size
    sums = trajectory.policy.astype(np.float32).sum(axis=1)
    assert np.allclose(sums[has], 1.0, atol=1e-2) and (sums[~has] == 0).all()
    legal = env.legal_actions(states)
    assert (trajectory.policy[has][~legal[has]] == 0).all()


def test_auto_reset_keeps_every_slot_busy_and_komi_is_randomised():
    config = _config(selfplay={"games_per_actor": 8, "komi_spread_prob": 1.0})
    player = SelfPlayer(config, np.random.default_rng(2))
    result = player.play(60)
    # Each ply plays one move in each of the 8 slots: finished games were replaced at once.
    assert result.stats.plies == 60 * 8
    [trajectory] = result.trajectories
    env = VecEnv(trajectory.game)
    _, move_number, states = _movers(env, trajectory.states)
    komi = states.komi[move_number == 0]
    lo, hi = komi_range("standard")
    assert komi.min() >= lo and komi.max() <= hi and len(set(komi.tolist())) > 3  # uniform draws spread


def test_rule_randomisation_covers_every_rule_set():
    config = _config(selfplay={"games_per_actor": 8, "sides": [2, 3], "scorings": ["standard", "longest"]})
    assert len(rule_sets(config)) == 4
    player = SelfPlayer(config, np.random.default_rng(3))
    result = player.play(30)
    seen = {(t.game.side, t.game.scoring) for t in result.trajectories}
    assert seen == {(2, "standard"), (2, "longest"), (3, "standard"), (3, "longest")}
    assert set(player.fair_komi()) == {"side2-komi-standard", "side2-komi-longest", "side3-komi-standard",
                                      "side3-komi-longest"}


def test_same_seed_same_games():
    config = _config()
    a = SelfPlayer(config, np.random.default_rng(7)).play(20).trajectories[0]
    b = SelfPlayer(config, np.random.default_rng(7)).play(20).trajectories[0]
    assert np.array_equal(a.states, b.states) and np.array_equal(a.policy, b.policy)


def test_soft_resignation_downweights_and_counts_false_resignations():
    # Threshold 0.01: an untrained net's root values cross it at once, so games "resign" quickly.
    config = _config(selfplay={"resign_threshold": 0.01, "resign_consecutive": 1, "resign_weight": 0.25,
                               "resign_disabled_share": 0.5, "games_per_actor": 8})
    player = SelfPlayer(config, np.random.default_rng(4))
    result = player.play(60)
    s = result.stats
    assert s.resignations + s.resign_checks > 0
    assert 0 <= s.false_resignations <= s.resign_checks
    [trajectory] = result.trajectories
    low = trajectory.weight < 1
    assert low.any() and np.allclose(trajectory.weight[low], 0.25)
    assert not trajectory.has_policy[low].any()  # resigned games play on with cheap searches only


def test_weights_and_versions_are_recorded():
    config = _config()
    player = SelfPlayer(config, np.random.default_rng(5))
    player.play(5)
    weights = {k: v.clone() for k, v in player.model.state_dict().items()}
    player.set_weights(weights, version=17)
    result = player.play(40)
    versions = np.concatenate([t.version for t in result.trajectories])
    assert set(versions.tolist()) <= {0, 17} and 17 in versions


def test_stats_add_field_by_field():
    a = SelfPlayStats(plies=2, games=1, seconds=1.5)
    b = SelfPlayStats(plies=3, black_wins=1, seconds=0.5)
    assert a + b == SelfPlayStats(plies=5, games=1, black_wins=1, seconds=2.0)
