"""Replay buffer (train/replay.py): ring capacity, the KataGo window, the replay ratio, symmetry-consistent
samples (the sample equals the position of the transformed game), memory per position, save and load."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from catena_zero.config import ReplayConfig
from catena_zero.game.options import GameConfig, RuleSet
from catena_zero.game.rules import Game
from catena_zero.game.spec import board_spec
from catena_zero.game.vec import EMPTY, VecEnv
from catena_zero.net.features import encode, score_scale
from catena_zero.train.replay import (
    DRAW,
    LOSS,
    WIN,
    ReplayBuffer,
    ReplayError,
    position_bytes,
    window_size,
)
from trajectories import mixture_policy, random_games

SIDE4 = GameConfig(side=4)
SMALL = ReplayConfig(capacity=100, window_min=1000, min_positions=1)


def numbered(trajectory, start: int):
    """The trajectory with version = the global index each position gets in the buffer."""
    t = trajectory.num_positions
    return dataclasses.replace(trajectory, version=np.arange(start, start + t, dtype=np.int32))


@pytest.fixture(scope="module")
def side4_games():
    return random_games(SIDE4, 8, np.random.default_rng(1))


def sampled(buffer, n, seed=0):
    batch = buffer.sample(n, np.random.default_rng(seed))
    assert batch.size == n
    return batch


def test_ring_wraps_around_and_keeps_the_newest(side4_games):
    base = side4_games.trajectory
    buffer = ReplayBuffer(SMALL, [RuleSet.of(SIDE4)])
    added = 0
    while added < 250:
        chunk = numbered(dataclasses.replace(base), added)
        buffer.add(chunk)
        added += chunk.num_positions
    assert len(buffer) == 100 and buffer.positions_added == added
    assert buffer.window == 100
    part = sampled(buffer, 2000).parts[0]
    # every sample comes from the newest 100, and its slot holds the position it claims to be
    assert part.position.min() == added - 100 and part.position.max() == added - 1
    np.testing.assert_array_equal(part.version, part.position)


def test_a_trajectory_longer_than_the_ring_keeps_its_end(side4_games):
    t = numbered(side4_games.trajectory, 0)
    assert t.num_positions > 100
    buffer = ReplayBuffer(SMALL, [RuleSet.of(SIDE4)])
    buffer.add(t)
    part = sampled(buffer, 1000).parts[0]
    assert set(part.version.tolist()) == set(range(t.num_positions - 100, t.num_positions))


def test_window_size_follows_katagos_power_law():
    cfg = ReplayConfig(window_min=100, window_alpha=0.5, window_beta=1.0)
    assert window_size(0, cfg) == 0
    assert window_size(60, cfg) == 60  # all data up to c
    assert window_size(100, cfg) == 100
    assert window_size(400, cfg) == 300  # 100 * (1 + ((400/100)**0.5 - 1) / 0.5)
    linear = ReplayConfig(window_min=100, window_alpha=1.0, window_beta=0.25)
    assert window_size(500, linear) == 200  # c + beta * (N - c)
    # KataGo's run: c = 250,000, alpha = 0.75, beta = 0.4 -> 493,790 of the first 1M positions
    katago = ReplayConfig(window_min=250_000, window_alpha=0.75, window_beta=0.4)
    assert window_size(1_000_000, katago) == 493_790
    sizes = [window_size(n, katago) for n in range(0, 5_000_000, 50_000)]
    assert sizes == sorted(sizes) and all(s <= n for s, n in zip(sizes, range(0, 5_000_000, 50_000)))
    # the initial slope past c is beta
    assert window_size(260_000, katago) - window_size(250_000, katago) == pytest.approx(4_000, rel=0.01)


def test_sampling_draws_only_from_the_window(side4_games):
    cfg = ReplayConfig(capacity=1000, window_min=50, window_alpha=0.5, window_beta=1.0, min_positions=1)
    buffer = ReplayBuffer(cfg, [RuleSet.of(SIDE4)])
    t = numbered(side4_games.trajectory, 0)
    buffer.add(t)
    n = t.num_positions
    expected = window_size(n, cfg)
    assert 50 < expected < n
    assert buffer.window == expected
    part = sampled(buffer, 4000).parts[0]
    assert part.position.min() == n - expected and part.position.max() == n - 1


def test_replay_ratio_bucket(side4_games):
    t = side4_games.trajectory
    cfg = ReplayConfig(capacity=10_000, min_positions=30, train_ratio=2.0, max_credit=500)
    buffer = ReplayBuffer(cfg, [RuleSet.of(SIDE4)])
    buffer.add(t_of(t, 20))
    assert buffer.samples_allowed() == 0  # fewer than min_positions held
    buffer.add(t_of(t, 20))
    assert buffer.samples_allowed() == 80  # 2 per position, counted from the first
    buffer.record_trained(64)
    assert buffer.samples_allowed() == 16 and buffer.steps_allowed(16) == 1 and buffer.steps_allowed(32) == 0
    buffer.add(t_of(t, 1000 // 2))
    assert buffer.samples_allowed() == 500  # capped: a slow learner does not burst
    assert buffer.stats().samples_trained == 64


def test_replay_ratio_holds_in_a_driver_loop(side4_games):
    """Self-play adds at random rates, the learner trains whole batches when allowed: the ratio holds."""
    t = side4_games.trajectory
    cfg = ReplayConfig(capacity=10_000, min_positions=50, train_ratio=3.0, max_credit=10_000)
    buffer = ReplayBuffer(cfg, [RuleSet.of(SIDE4)])
    rng = np.random.default_rng(3)
    batch = 32
    for _ in range(200):
        buffer.add(t_of(t, int(rng.integers(1, 40))))
        for _ in range(int(rng.integers(0, 6))):  # the learner runs at its own pace
            if buffer.steps_allowed(batch):
                buffer.record_trained(batch)
            assert buffer.stats().samples_trained <= 3.0 * buffer.positions_added  # never more than the ratio
    added, trained = buffer.positions_added, buffer.stats().samples_trained
    assert trained > 2.5 * added  # and the learner got nearly all of it
    assert trained + buffer.samples_allowed() == 3 * added  # nothing lost below the cap


def t_of(trajectory, n):
    """The first n positions of a trajectory (repeated as needed)."""
    idx = np.arange(n) % trajectory.num_positions
    return dataclasses.replace(trajectory, **{
        f.name: getattr(trajectory, f.name)[idx] for f in dataclasses.fields(trajectory) if f.name != "game"
    })


MIXED = [GameConfig(side=3), GameConfig(side=4, game_type="double", scoring="longest"),
         GameConfig(side=4, game_type="no_komi", scoring="quadratic")]


def test_samples_equal_the_positions_of_the_transformed_games():
    """Each sample under symmetry k is exactly the position of the game whose moves are mapped by k:
    planes, policy target and ownership alike, for several rule sets sharing one buffer."""
    rng = np.random.default_rng(7)
    records = {RuleSet.of(g).key: random_games(g, 3, rng) for g in MIXED}
    buffer = ReplayBuffer(ReplayConfig(capacity=1000, min_positions=1), [RuleSet.of(g) for g in MIXED])
    starts = {}
    for name, rec in records.items():
        starts[name] = buffer.positions_added
        buffer.add(rec.trajectory)
    batch = sampled(buffer, 120, seed=11)
    assert [p.side for p in batch.parts] == [3, 4]  # grouped by side: double and no_komi share a pass
    seen = set()
    for part in batch.parts:
        for i in range(part.size):
            name = next(n for n, s in sorted(starts.items(), key=lambda kv: -kv[1]) if part.position[i] >= s)
            game, rec = next(g for g in MIXED if RuleSet.of(g).key == name), records[name]
            row = int(part.position[i] - starts[name])
            k = int(part.symmetry[i])
            seen.add(k)
            spec = board_spec(game.side)
            image = np.append(spec.sym_map[k], spec.button_action)  # [A] where each action goes
            moves = [int(image[a]) for a in rec.actions[rec.row_game[row]]]
            ply = int(rec.row_ply[row])
            cfg = dataclasses.replace(game, komi=int(rec.komi[rec.row_game[row]]))
            env = VecEnv(game)
            state = env.from_games([Game.replay(cfg, map(spec.action_name, moves[:ply]))])
            features = encode(env, state)
            np.testing.assert_array_equal(part.planes[i], features.planes[0])
            np.testing.assert_array_equal(part.globals[i], features.globals[0])
            if part.has_policy[i]:
                legal = env.legal_actions(state)
                target = mixture_policy(legal.astype(np.float64), np.array([moves[ply]]))[0]
                np.testing.assert_allclose(part.policy[i], target, atol=2e-3)
            else:
                assert not part.policy[i].any()
            end = env.from_games([Game.replay(cfg, map(spec.action_name, moves))])
            final, mover = end.board[0], state.to_move[0]
            ownership = np.where(final == EMPTY, 0, np.where(final == mover, 1, -1))
            np.testing.assert_array_equal(part.ownership[i], ownership)
            # the outcome and margin do not depend on the symmetry
            margin = env.score_margin(end)[0] * (1 if end.to_move[0] == mover else -1)
            assert part.score[i] == pytest.approx(margin / score_scale(game))
            winner = end.winner[0]
            assert part.value[i] == (DRAW if winner == EMPTY else WIN if winner == mover else LOSS)
    assert len(seen) >= 8  # the draw covers the symmetries (with the identity among them or not)


def test_symmetries_off_gives_the_identity(side4_games):
    buffer = ReplayBuffer(dataclasses.replace(SMALL, symmetries=False), [RuleSet.of(SIDE4)])
    buffer.add(side4_games.trajectory)
    assert not sampled(buffer, 50).parts[0].symmetry.any()


def test_same_seed_same_batch(side4_games):
    buffer = ReplayBuffer(SMALL, [RuleSet.of(SIDE4)])
    buffer.add(side4_games.trajectory)
    a, b = sampled(buffer, 64, seed=5).parts[0], sampled(buffer, 64, seed=5).parts[0]
    for f in dataclasses.fields(a):
        np.testing.assert_array_equal(getattr(a, f.name), getattr(b, f.name))


def test_bytes_per_position_and_a_million_side6_positions_under_4gb():
    for side, expected in ((4, 918), (6, 2160), (10, 6300)):
        game = GameConfig(side=side)
        env = VecEnv(game)
        n = env.spec.num_cells
        # packed row int16 + policy float16 [A] + ownership int8 [N] + 13 bytes of scalars
        assert position_bytes([RuleSet.of(game)]) == env.bytes_per_game + 2 * (n + 1) + n + 13 == expected
        small = ReplayBuffer(ReplayConfig(capacity=1000), [RuleSet.of(game)])
        assert small.bytes_per_position == expected
    # np.zeros maps the pages lazily, so the real 1M-position ring costs nothing until filled
    big = ReplayBuffer(ReplayConfig(capacity=1_000_000), [RuleSet.of(GameConfig(side=6))])
    assert big.nbytes == 1_000_000 * 2160 < 4 * 10**9
    # a multi-side buffer pads to its widest rule set
    assert position_bytes([RuleSet(4, 'komi', 'standard'), RuleSet(10, 'komi', 'standard')]) == 6300


def test_bad_trajectories_name_the_problem(side4_games):
    t = side4_games.trajectory
    buffer = ReplayBuffer(SMALL, [RuleSet.of(SIDE4)])
    with pytest.raises(ValueError, match="rule set side5-komi-standard is not one of"):
        buffer.add(dataclasses.replace(t, game=GameConfig(side=5)))
    with pytest.raises(ValueError, match="rule set side4-double-standard"):
        buffer.add(dataclasses.replace(t, game=GameConfig(side=4, game_type="double")))
    with pytest.raises(ValueError, match="Trajectory.states has shape"):
        buffer.add(dataclasses.replace(t, states=t.states[:, :-1]))
    with pytest.raises(ValueError, match="outcome must be"):
        buffer.add(dataclasses.replace(t, outcome=np.full_like(t.outcome, 2)))
    bad_policy = t.policy.copy()
    bad_policy[t.has_policy] = 0
    with pytest.raises(ValueError, match="all 0 in a position with has_policy"):
        buffer.add(dataclasses.replace(t, policy=bad_policy))
    with pytest.raises(ValueError, match="empty replay buffer"):
        buffer.sample(4, np.random.default_rng(0))
    assert len(buffer) == 0  # nothing half-added


def test_save_and_load_round_trip(tmp_path, side4_games):
    rng = np.random.default_rng(2)
    games = [SIDE4, GameConfig(side=3, scoring="longest")]
    cfg = ReplayConfig(capacity=500, window_min=200, min_positions=1, train_ratio=1.5)
    buffer = ReplayBuffer(cfg, [RuleSet.of(g) for g in games])
    buffer.add(numbered(side4_games.trajectory, 0))
    buffer.add(random_games(games[1], 4, rng).trajectory)
    buffer.record_trained(100)
    path = buffer.save(tmp_path / "replay.npz")
    restored = ReplayBuffer(cfg, [RuleSet.of(g) for g in list(reversed(games))])  # other rule-set order: ids are remapped
    restored.load(path)
    assert buffer.window < len(buffer)  # only the window is saved
    assert restored.stats() == dataclasses.replace(buffer.stats(), size=buffer.window)
    a, b = sampled(buffer, 300, seed=9), sampled(restored, 300, seed=9)
    for pa, pb in zip(a.parts, b.parts):
        for f in dataclasses.fields(pa):
            np.testing.assert_array_equal(getattr(pa, f.name), getattr(pb, f.name))
    # a smaller ring keeps the newest positions
    smaller = ReplayBuffer(dataclasses.replace(cfg, capacity=50), [RuleSet.of(g) for g in games])
    smaller.load(path)
    assert len(smaller) == 50 and smaller.positions_added == buffer.positions_added


def test_load_errors_are_one_line(tmp_path, side4_games):
    buffer = ReplayBuffer(SMALL, [RuleSet.of(SIDE4)])
    buffer.add(side4_games.trajectory)
    path = buffer.save(tmp_path / "replay.npz")
    raw = path.read_bytes()
    truncated = tmp_path / "truncated.npz"
    truncated.write_bytes(raw[: len(raw) // 2])
    flipped = tmp_path / "flipped.npz"
    flipped.write_bytes(raw[:2000] + bytes(b ^ 0xFF for b in raw[2000:2100]) + raw[2100:])
    other = tmp_path / "other.npz"
    np.savez(other, x=np.zeros(3))
    cases = [(tmp_path / "missing.npz", "cannot read replay buffer"), (truncated, "not a loadable replay buffer"),
             (flipped, "not a loadable replay buffer"), (other, "not a catena-zero replay buffer")]
    for bad, fragment in cases:
        with pytest.raises(ReplayError) as err:
            ReplayBuffer(SMALL, [RuleSet.of(SIDE4)]).load(bad)
        assert fragment in str(err.value) and "\n" not in str(err.value)
    with pytest.raises(ReplayError, match="rule set side4-komi-standard, which this buffer does not have"):
        ReplayBuffer(SMALL, [RuleSet.of(GameConfig(side=5))]).load(path)


def test_positions_are_drawn_in_proportion_to_their_weight_and_train_with_weight_1(side4_games):
    """Soft-resigned positions (weight 0.1) take a tenth of a full position's share of the samples,
    weight-0 positions none, and every sample then weighs 1: the expected loss of weighted uniform
    draws, without spending whole samples on a tenth of a weight."""
    base = numbered(side4_games.trajectory, 0)
    t = base.num_positions
    weight = np.where(np.arange(t) % 3 == 0, 1.0, np.where(np.arange(t) % 3 == 1, 0.1, 0.0)).astype(np.float32)
    buffer = ReplayBuffer(ReplayConfig(capacity=10_000, window_min=10_000, min_positions=1), [RuleSet.of(SIDE4)])
    buffer.add(dataclasses.replace(base, weight=weight))
    part = sampled(buffer, 20_000).parts[0]
    drawn = weight[part.version]  # version = the position's index
    assert (part.weight == 1.0).all()
    assert not (drawn == 0).any()
    full, resigned = int((drawn == 1.0).sum()), int((drawn == np.float32(0.1)).sum())
    expected = 20_000 * 0.1 * (t // 3 + (t % 3 > 1)) / ((t + 2) // 3 + 0.1 * (t // 3 + (t % 3 > 1)))
    assert abs(resigned - expected) < 4 * np.sqrt(expected), (resigned, expected)
    assert full + resigned == 20_000


def test_a_window_of_weight_0_positions_cannot_be_sampled(side4_games):
    base = side4_games.trajectory
    buffer = ReplayBuffer(SMALL, [RuleSet.of(SIDE4)])
    buffer.add(dataclasses.replace(base, weight=np.zeros(base.num_positions, dtype=np.float32)))
    with pytest.raises(ValueError, match="no position of weight > 0"):
        buffer.sample(8, np.random.default_rng(0))
