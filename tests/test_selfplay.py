"""Self-play (selfplay/play.py): targets from the mover's view, playout caps, auto-reset, komi and
rule randomisation, soft resignation bookkeeping; and the Ray pool (selfplay/workers.py)."""

from __future__ import annotations

import numpy as np

from catena_zero.config import config_from_dict
from catena_zero.game.options import komi_range
from catena_zero.game.vec import EMPTY, VecEnv
from catena_zero.selfplay.play import SelfPlayer, SelfPlayStats

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
    assert len(config.rule_sets()) == 4
    player = SelfPlayer(config, np.random.default_rng(3))
    result = player.play(30)
    seen = {(t.game.side, t.game.scoring) for t in result.trajectories}
    assert seen == {(2, "standard"), (2, "longest"), (3, "standard"), (3, "longest")}
    assert {rules.key for rules in player.komi_estimates()} == {"side2-komi-standard", "side2-komi-longest",
                                                          "side3-komi-standard", "side3-komi-longest"}


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


def test_resignation_counts_each_colours_moves_not_plies():
    # A lost game as the movers see it: Black (to move on even plies) reads -0.95, White +0.95.
    # Counted per ply the run would reset every ply and never reach 3; per colour it reaches 3 on
    # Black's third move (ply 4).
    config = _config(selfplay={"resign_threshold": 0.9, "resign_consecutive": 3, "games_per_actor": 2})
    player = SelfPlayer(config, np.random.default_rng(0))
    [group] = player.groups
    black, white = np.array([1, 1], np.int8), np.array([2, 2], np.int8)
    lost, won = np.array([-0.95, -0.95], np.float32), np.array([0.95, -0.5], np.float32)
    resigned_at = []
    for ply in range(6):
        if ply % 2 == 0:
            player._track_resignation(group, lost, black)
        else:
            player._track_resignation(group, won, white)  # game 1: White is not doing well either
        resigned_at.append(group.would_resign.copy())
    assert [r.tolist() for r in resigned_at[:4]] == [[EMPTY, EMPTY]] * 4
    assert resigned_at[4].tolist() == [1, 1]  # Black's third hopeless move in a row
    # One hopeful move of a colour resets that colour's run only.
    player._start_games(group, np.arange(2))
    for value, mover in ((-0.95, 1), (-0.95, 2), (-0.95, 1), (0.0, 1), (-0.95, 2), (-0.95, 1), (-0.95, 2)):
        player._track_resignation(group, np.full(2, value, np.float32), np.full(2, mover, np.int8))
    assert group.would_resign.tolist() == [2, 2]  # White: three in a row; Black's run was reset


def test_cheap_searches_go_without_root_noise(monkeypatch):
    import catena_zero.selfplay.play as play

    seen = []
    original = play.run_lockstep

    def spy(searches, evaluate_many):
        seen.extend((np.asarray(s.add_noise).copy(), np.asarray(s.num_simulations).copy()) for s in searches)
        return original(searches, evaluate_many)

    monkeypatch.setattr(play, "run_lockstep", spy)
    for cheap_noise in (False, True):
        seen.clear()
        config = _config(selfplay={"cheap_search_noise": cheap_noise, "games_per_actor": 8})
        SelfPlayer(config, np.random.default_rng(3)).play(6)
        noise = np.concatenate([n for n, _ in seen])
        full = np.concatenate([b for _, b in seen]) == config.search.num_simulations
        assert full.any() and (~full).any()
        assert (noise == (full | cheap_noise)).all()


def test_no_komi_self_play_chooses_a_balanced_first_stone():
    config = _config(game={"side": 3, "game_type": "no_komi"}, selfplay={"games_per_actor": 6})
    player = SelfPlayer(config, np.random.default_rng(8))
    result = player.play(40)
    [group] = player.groups
    distribution, black_value = group.opening, group.opening_black_value
    # By hand: the stones' values from the network, the distribution exp(-|v| / T) over them.
    env = group.env
    legal = np.flatnonzero(env.legal_actions(env.reset(1))[0])
    children = env.reset(legal.size)
    env.step(children, legal)
    values = -group.evaluator(children).value
    assert np.allclose(black_value[legal], values, atol=1e-6)
    expected = np.exp(-np.abs(values) / config.selfplay.opening_temperature)
    assert np.allclose(distribution[legal], expected / expected.sum(), atol=1e-6)
    assert distribution[env.spec.button_action] == 0
    # Every game's first position carries that distribution as its policy target.
    [trajectory] = result.trajectories
    _, move_number, _ = _movers(env, trajectory.states)
    first = move_number == 0
    assert trajectory.has_policy[first].all()
    assert np.allclose(trajectory.policy[first].astype(np.float64), distribution[None, :], atol=2e-3)
    assert result.stats.openings >= result.stats.games and 0 <= result.stats.swaps <= result.stats.openings
    # The weights change: the distribution is recomputed with them.
    player.set_weights({k: v * 0.5 if v.is_floating_point() else v for k, v in player.model.state_dict().items()}, 1)
    assert group.opening is None


def test_cpu_seconds_are_measured():
    result = SelfPlayer(_config(), np.random.default_rng(9)).play(5)
    s = result.stats
    assert 0 < s.inference_cpu_seconds <= s.cpu_seconds


def test_cheap_record_prob_zero_records_only_full_search_positions():
    """KataGo's choice: a cheap-search turn is no training sample; every recorded row has a policy,
    and each game keeps exactly its full-search positions (counted against the plies played)."""
    config = _config(selfplay={"cheap_record_prob": 0.0})
    result = SelfPlayer(config, np.random.default_rng(7)).play(30)
    (t,) = result.trajectories
    assert t.num_positions > 0 and t.has_policy.all()
    assert t.num_positions < result.stats.game_plies  # cheap turns were played, not recorded
    every = SelfPlayer(_config(), np.random.default_rng(7)).play(30)
    assert every.trajectories[0].num_positions == every.stats.game_plies  # the default keeps every position
    half = SelfPlayer(_config(selfplay={"cheap_record_prob": 0.5}), np.random.default_rng(7)).play(30)
    h = half.trajectories[0]
    cheap_kept = int((~h.has_policy).sum())
    assert 0 < cheap_kept < h.num_positions


def test_policy_openings_start_a_share_of_games_from_unrecorded_raw_policy_moves():
    side4 = {"game": {"side": 4}, "selfplay": {"games_per_actor": 24, "komi_spread_prob": 0.0, "komi_std": 0.0}}
    plain = SelfPlayer(_config(**side4), np.random.default_rng(0))
    assert (plain.groups[0].state.move_number == 0).all()  # off by default: every game starts empty
    config = _config(game=side4["game"], selfplay={**side4["selfplay"], "policy_opening_prob": 1.0,
                                                   "policy_opening_moves": 3.0, "policy_opening_temperature": 0.01})
    player = SelfPlayer(config, np.random.default_rng(0))
    group = player.groups[0]
    opened = group.state.move_number.astype(np.int64)
    assert opened.max() > 0 and opened.max() <= group.num_cells // 4
    assert (group.length == 0).all()  # nothing of the opening is recorded
    # At a temperature near 0 the raw policy's first move is its argmax on the empty board (one komi).
    empty = group.env.reset(1, group.state.komi[:1])
    best = int(np.argmax(group.evaluator(empty).priors[0]))
    assert (group.state.history[opened > 0, 0] == best).all()
    # The recorded games go on from there: their first recorded position is the opening's last.
    result = player.play(30)
    [trajectory] = result.trajectories
    _, move_number, _ = _movers(VecEnv(trajectory.game), trajectory.states)
    starts = np.flatnonzero(np.diff(move_number, prepend=10**6) != 1)  # where a game's plies begin
    assert starts.size == result.stats.games and (move_number[starts] > 0).any()


def test_policy_opening_settings_are_checked():
    import pytest
    from catena_zero.config import ConfigError

    for key, value in (("policy_opening_prob", 1.5), ("policy_opening_moves", -1), ("policy_opening_temperature", 0)):
        with pytest.raises(ConfigError, match=f"selfplay.{key}"):
            _config(selfplay={key: value})


def test_new_weights_keep_the_search_trees_unless_told_to_drop_them():
    for reset in (False, True):
        player = SelfPlayer(_config(selfplay={"reset_trees_on_new_weights": reset}), np.random.default_rng(0))
        player.play(2)
        assert all(g.search.tree is not None for g in player.groups)
        player.set_weights({k: v.clone() for k, v in player.model.state_dict().items()}, 1)
        assert all((g.search.tree is None) == reset for g in player.groups)


def test_every_rule_sets_evaluator_shares_one_fold_of_the_network():
    """One FoldedNet per SelfPlayer: a weight update refolds the network once, not once per evaluator."""
    config = _config(selfplay={"sides": [3, 4]})
    player = SelfPlayer(config, np.random.default_rng(0))
    folds = {id(g.evaluator.net) for g in player.groups}
    assert len(player.groups) == 2 and len(folds) == 1
