"""The network (catena_zero/net): hex convolution, board masking, symmetries (R1), features, evaluator.

What can rightly be asserted about symmetry (R1: the 12 board symmetries preserve every rule):
- Data augmentation is exact: encoding the position reached by playing the symmetric game equals
  transforming the encoding of the original position (features are a function of the rules state).
- The network is *not* equivariant in general: a learned hex 3x3 kernel distinguishes directions.
  It is exactly equivariant when every hex kernel is isotropic (the six neighbour taps equal),
  because everything else (1x1 convs, masked batch norm, masked pooling, cell gather) commutes with
  cell permutations; that is what the equivariance test checks, together with a control showing
  that a generic net breaks it (so the test can fail).
- Symmetry averaging at inference is then checked against its definition: the mean of the 12
  evaluations of the transformed positions, each mapped back.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
import torch

from catena_zero.config import ConfigError, NetConfig
from catena_zero.game.options import GameConfig
from catena_zero.game.spec import NUM_SYMMETRIES, board_spec
from catena_zero.game.vec import EMPTY, WHITE, VecEnv
from catena_zero.net import NUM_GLOBALS, NUM_PLANES, NetEvaluator, encode, model_from_config, transform_features
from catena_zero.net import features as F
from catena_zero.net.device import inference_autocast, resolve_device, set_torch_threads
from catena_zero.net.features import pad_features
from catena_zero.net.model import (
    PAD_LOGIT,
    Board,
    HexConv2d,
    MaskedBatchNorm2d,
    SideTables,
    WeightsMismatch,
    deepened,
    masked_global_pool,
    model_from_weights,
    num_parameters,
)

TINY = NetConfig(blocks=2, channels=16, global_pool_every=1, head_channels=8, value_hidden=16, device="cpu")


def tiny_net(seed: int = 0):
    gen = torch.Generator().manual_seed(seed)
    net = model_from_config(TINY, generator=gen)
    # Non-trivial batch-norm statistics so that eval mode exercises the affine maps.
    for module in net.modules():
        if isinstance(module, MaskedBatchNorm2d):
            module.running_mean.copy_(torch.randn(module.num_features, generator=gen) * 0.1)
            module.running_var.copy_(torch.rand(module.num_features, generator=gen) + 0.5)
    return net.eval()


def random_inputs(side: int, batch: int, seed: int = 0) -> tuple[torch.Tensor, torch.Tensor]:
    g = 2 * side - 1
    gen = torch.Generator().manual_seed(seed)
    mask = torch.tensor(board_spec(side).board_mask, dtype=torch.float32)
    planes = torch.rand(batch, NUM_PLANES, g, g, generator=gen) * mask
    return planes, torch.rand(batch, NUM_GLOBALS, generator=gen)


def random_play(env: VecEnv, batch: int, moves: int, rng: np.random.Generator, komi=None):
    """Play up to ``moves`` uniformly random legal actions in ``batch`` games."""
    state = env.reset(batch, komi=komi)
    for _ in range(moves):
        legal = env.legal_actions(state)
        actions = np.where(legal, rng.random(legal.shape), -1.0).argmax(axis=1)
        env.step(state, actions)
    return state


def replay_transformed(env: VecEnv, state, k: int):
    """The games of ``state`` with every action mapped by symmetry k (R1), replayed from the start."""
    spec = env.spec
    image = np.append(spec.sym_map[k], spec.button_action)  # [A] image of each action
    history = np.asarray(state.history)
    out = env.reset(state.batch_size, komi=np.asarray(state.komi))
    for t in range(history.shape[1]):
        if (history[:, t] < 0).all():
            break
        env.step(out, np.where(history[:, t] >= 0, image[np.maximum(history[:, t], 0)], 0))
    return out


# ---------------------------------------------------------------------------------------------
# Model


def test_hex_conv_reads_exactly_the_hex_neighbourhood():
    """R1 adjacency: a HexConv2d output at a cell depends on the cell and its six neighbours only."""
    spec = board_spec(3)
    g, n = spec.grid_size, spec.num_cells
    conv = HexConv2d(1, 1)
    with torch.no_grad():
        conv.weight.fill_(1.0)
    for i in range(n):
        impulse = torch.zeros(g * g)
        impulse[spec.cell_to_grid[i]] = 1.0
        response = conv(impulse.view(1, 1, g, g)).flatten()[torch.tensor(spec.cell_to_grid)]  # [N]
        reached = set(np.flatnonzero(response.detach().numpy()).tolist())
        expected = {i} | {int(j) for j in spec.neighbours[i] if j < n}
        assert reached == expected, spec.names[i]


def test_one_model_serves_several_sides():
    net = tiny_net()
    for side in (2, 3, 6):
        spec = board_spec(side)
        planes, globals_ = random_inputs(side, batch=3)
        out = net(planes, globals_)
        assert out.policy_logits.shape == (3, spec.num_actions)
        assert out.wdl_logits.shape == (3, 3)
        assert out.score.shape == (3,)
        assert out.ownership.shape == (3, spec.num_cells)
        assert out.ownership.abs().max() <= 1.0


@pytest.mark.parametrize("training", [False, True])
def test_off_board_grid_inputs_change_nothing(training):
    """Off-board grid cells never leak: neither into outputs nor into batch-norm statistics."""
    side = 4
    spec = board_spec(side)
    planes, globals_ = random_inputs(side, batch=5)
    noisy = planes + 100.0 * torch.rand(planes.shape) * torch.tensor(~spec.board_mask, dtype=torch.float32)
    assert not torch.equal(noisy, planes)
    outputs, stats = [], []
    for x in (planes, noisy):
        net = tiny_net().train(training)
        out = net(x, globals_)
        outputs.append(out)
        stats.append(torch.cat([m.running_mean for m in net.modules() if isinstance(m, MaskedBatchNorm2d)]))
    for name in ("policy_logits", "wdl_logits", "score", "ownership"):
        assert torch.equal(getattr(outputs[0], name), getattr(outputs[1], name)), name
    assert torch.equal(stats[0], stats[1])


def test_training_gradients_stay_on_the_board():
    side = 3
    spec = board_spec(side)
    planes, globals_ = random_inputs(side, batch=4)
    planes.requires_grad_(True)
    net = tiny_net().train()
    out = net(planes, globals_)
    (out.policy_logits.square().sum() + out.wdl_logits.sum() + out.score.sum() + out.ownership.sum()).backward()
    grad = planes.grad.flatten(2)
    assert grad[:, :, torch.tensor(spec.board_mask.ravel())].abs().sum() > 0
    assert (grad[:, :, torch.tensor(~spec.board_mask.ravel())] == 0).all()
    assert all(p.grad is not None for p in net.parameters())


def on_board_values(x: torch.Tensor, side: int) -> torch.Tensor:
    """[B, K, G, G] -> [B, K, N]: the values on the board cells only."""
    return x.flatten(2)[:, :, torch.tensor(board_spec(side).cell_to_grid)]


@pytest.mark.parametrize("side", [2, 4])
def test_global_pooling_reads_board_cells_only(side):
    """Mean and max are over the N board cells (negative values: an unmasked max would see the 0s)."""
    g, n = 2 * side - 1, board_spec(side).num_cells
    board = Board(g, torch.device("cpu"))
    x = -1.0 - torch.rand(2, 3, g, g) * board.fmask  # on board in [-2, -1), off board exactly 0
    cells = on_board_values(x, side)
    pooled = masked_global_pool(x * board.fmask, board)  # [B, 3K]
    mean = cells.mean(dim=2)
    assert torch.allclose(pooled[:, :3], mean)
    assert torch.allclose(pooled[:, 3:6], mean * (np.sqrt(n) - np.sqrt(91)) / 10)
    assert torch.equal(pooled[:, 6:], cells.amax(dim=2))


def test_masked_batch_norm_statistics_count_board_cells_only():
    """Training statistics are the on-board mean/variance, whatever the share of off-board cells."""
    side = 3
    board = Board(2 * side - 1, torch.device("cpu"))
    x = (3.0 + torch.randn(4, 2, 5, 5)) * board.fmask
    norm = MaskedBatchNorm2d(2, momentum=1.0).train()
    y = norm(x, board)
    cells = on_board_values(x, side)  # [B, K, N]
    assert torch.allclose(norm.running_mean, cells.mean(dim=(0, 2)))
    assert torch.allclose(norm.running_var, cells.transpose(0, 1).flatten(1).var(dim=1))
    normed = on_board_values(y, side)
    assert torch.allclose(normed.mean(dim=(0, 2)), torch.zeros(2), atol=1e-5)
    assert torch.equal(y * (1 - board.fmask), torch.zeros_like(y))


def isotropic_(net) -> None:
    """Make every hex kernel isotropic: the six neighbour taps of each kernel set to their mean."""
    with torch.no_grad():
        for module in net.modules():
            if isinstance(module, HexConv2d):
                ring = module.tap_mask.clone()
                ring[1, 1] = 0.0
                mean = (module.weight * ring).sum(dim=(2, 3), keepdim=True) / ring.sum()
                module.weight.copy_(module.weight * (1 - ring) + mean * ring)


def max_equivariance_error(net, side: int) -> float:
    spec = board_spec(side)
    planes, globals_ = random_inputs(side, batch=4, seed=1)
    with torch.no_grad():
        base = net(planes, globals_)
        worst = 0.0
        for k in range(NUM_SYMMETRIES):
            x = transform_features(F.Features(planes.numpy(), globals_.numpy()), spec, k)
            out = net(torch.from_numpy(x.planes), torch.from_numpy(x.globals))
            pairs = [
                (out.policy_logits, base.policy_logits[:, torch.tensor(spec.sym_gather_actions[k])]),
                (out.ownership, base.ownership[:, torch.tensor(spec.sym_gather[k])]),
                (out.wdl_logits, base.wdl_logits),
                (out.score, base.score),
            ]
            worst = max(worst, *[float((a - b).abs().max()) for a, b in pairs])
    return worst


@pytest.mark.parametrize("side", [3, 5])
def test_net_with_isotropic_hex_kernels_is_equivariant(side):
    """Transformed input -> transformed policy/ownership, same value/score (for all 12 symmetries)."""
    net = tiny_net()
    assert max_equivariance_error(net, side) > 1e-3  # control: a generic net is not equivariant
    isotropic_(net)
    assert max_equivariance_error(net, side) < 1e-5


def test_bad_input_shapes_raise():
    net = tiny_net()
    planes, globals_ = random_inputs(3, batch=2)
    with pytest.raises(ValueError, match="planes"):
        net(planes[:, :-1], globals_)
    with pytest.raises(ValueError, match="grid size"):
        net(planes[:, :, :4, :4], globals_)
    with pytest.raises(ValueError, match="globals"):
        net(planes, globals_[:, :-1])


def test_initialisation_follows_the_generator_only():
    before = torch.random.get_rng_state()
    nets = [model_from_config(TINY, generator=torch.Generator().manual_seed(s)) for s in (1, 1, 2)]
    assert torch.equal(torch.random.get_rng_state(), before)  # the global generator is untouched
    weights = [torch.cat([p.detach().flatten() for p in net.parameters()]) for net in nets]
    assert torch.equal(weights[0], weights[1]) and not torch.equal(weights[0], weights[2])


def test_num_parameters_counts_trainable_weights():
    net = tiny_net()
    assert num_parameters(net) == sum(p.numel() for p in net.parameters())
    bigger = model_from_config(NetConfig(blocks=3, channels=16, head_channels=8, value_hidden=16))
    assert num_parameters(bigger) > num_parameters(model_from_config(NetConfig(blocks=2, channels=16, head_channels=8, value_hidden=16)))


# ---------------------------------------------------------------------------------------------
# Features


def test_encode_matches_reference_engine():
    """Planes agree with the reference engine's board and ribbons (R2, R3, R5); globals with the options."""
    game_cfg = GameConfig(side=4, game_type="komi", scoring="standard", komi=5)
    env = VecEnv(game_cfg)
    spec = env.spec
    state = random_play(env, batch=6, moves=12, rng=np.random.default_rng(3), komi=5)
    feats = encode(env, state)
    g, n = spec.grid_size, spec.num_cells
    assert feats.planes.shape == (6, NUM_PLANES, g, g) and feats.planes.dtype == np.float32
    assert feats.globals.shape == (6, NUM_GLOBALS) and feats.globals.dtype == np.float32
    assert not feats.planes.reshape(6, NUM_PLANES, -1)[:, :, ~spec.board_mask.ravel()].any()
    cells = feats.planes.reshape(6, NUM_PLANES, g * g)[:, :, spec.cell_to_grid]  # [B, C, N]
    for b in range(6):
        game = env.to_game(state, b)
        me = game.to_move
        for i, name in enumerate(spec.names):
            stone = game.stone_at(name)
            assert cells[b, F.PLANE_MINE, i] == (stone == me)
            assert cells[b, F.PLANE_THEIRS, i] == (stone is not None and stone != me)
        legal = {spec.cell(m) for m in game.legal_moves() if m != "button"}
        assert set(np.flatnonzero(cells[b, F.PLANE_LEGAL]).tolist()) == legal
        for ribbon in game.ribbons():
            idx = list(ribbon.indices)
            ends = {spec.cell(c) for c in ribbon.ends}
            mine, theirs = (ribbon.black, ribbon.white) if me == "black" else (ribbon.white, ribbon.black)
            assert np.allclose(cells[b, F.PLANE_LENGTH, idx], ribbon.length / F.LENGTH_SCALE)
            assert (cells[b, F.PLANE_LIMITED, idx] == ribbon.claimed).all()
            assert (cells[b, F.PLANE_MAJORITY_MINE, idx] == (mine > theirs)).all()
            assert (cells[b, F.PLANE_MAJORITY_THEIRS, idx] == (theirs > mine)).all()
            assert {i for i in idx if cells[b, F.PLANE_END, i]} == ends
            growth = {int(j) for e in ends for j in spec.neighbours[e] if j < n and j in legal}
            assert np.allclose(cells[b, F.PLANE_GROWTH, idx], 0 if ribbon.limited else len(growth) / F.GROWTH_SCALE)
            assert (cells[b, F.PLANE_LAST_GROWTH, idx] == (not ribbon.limited and len(growth) == 1)).all()
        komi_for_me = 5 if me == "white" else -5
        assert feats.globals[b, F.GLOBAL_KOMI] == pytest.approx(komi_for_me / 15)
        holder = game.button_holder
        assert feats.globals[b, F.GLOBAL_BUTTON_OPEN] == (holder is None)
        assert feats.globals[b, F.GLOBAL_BUTTON_MINE] == (holder == me)
        assert feats.globals[b, F.GLOBAL_BUTTON_THEIRS] == (holder is not None and holder != me)
    assert (feats.globals[:, F.GLOBAL_GAME_TYPE : F.GLOBAL_GAME_TYPE + 3] == [1, 0, 0]).all()
    assert (feats.globals[:, F.GLOBAL_SCORING : F.GLOBAL_SCORING + 3] == [1, 0, 0]).all()
    assert feats.globals[0, F.GLOBAL_SIDE] == pytest.approx(2 / 8)


@pytest.mark.parametrize(
    "game_cfg",
    [
        GameConfig(side=3, game_type="komi", scoring="standard"),
        GameConfig(side=4, game_type="double", scoring="quadratic"),
        GameConfig(side=5, game_type="no_komi", scoring="longest"),
    ],
)
def test_encode_commutes_with_symmetries(game_cfg):
    """R1 data augmentation: encode(symmetric game) == transform(encode(game)), for all 12 symmetries."""
    env = VecEnv(game_cfg)
    spec = env.spec
    rng = np.random.default_rng(7)
    komi = rng.integers(0, 16, size=8) if game_cfg.game_type == "komi" else None
    state = random_play(env, batch=8, moves=spec.num_cells // 2, rng=rng, komi=komi)
    assert (np.asarray(state.board) != EMPTY).any(axis=1).all()
    feats = encode(env, state)
    for k in range(NUM_SYMMETRIES):
        sym_state = replay_transformed(env, state, k)
        assert np.array_equal(np.asarray(sym_state.board), spec.transform(np.asarray(state.board), k))
        expected = transform_features(feats, spec, k)
        got = encode(env, sym_state)
        assert np.array_equal(got.planes, expected.planes), k
        assert np.array_equal(got.globals, expected.globals), k


def test_double_pending_second_and_no_button():
    env = VecEnv(GameConfig(side=3, game_type="double"))
    state = random_play(env, batch=2, moves=2, rng=np.random.default_rng(0))  # Black's 1, White's first
    feats = encode(env, state)
    assert np.array_equal(feats.globals[:, F.GLOBAL_PENDING_SECOND], np.asarray(state.pending_second, dtype=np.float32))
    assert np.asarray(state.pending_second).all() and (np.asarray(state.to_move) == WHITE).all()
    assert not feats.globals[:, F.GLOBAL_BUTTON_OPEN : F.GLOBAL_BUTTON_THEIRS + 1].any()  # R8: no button


# ---------------------------------------------------------------------------------------------
# Evaluator


def test_evaluator_priors_values_and_device():
    env = VecEnv(GameConfig(side=3))
    state = random_play(env, batch=16, moves=6, rng=np.random.default_rng(1))
    evaluator = NetEvaluator(tiny_net(), env, TINY)
    assert next(evaluator.model.parameters()).device.type == "cpu"
    assert not evaluator.model.training
    ev = evaluator(state)
    legal = env.legal_actions(state)
    assert ev.priors.shape == legal.shape and ev.priors.dtype == np.float32
    assert np.allclose(ev.priors.sum(axis=1), 1.0, atol=1e-5)
    assert (ev.priors[~legal] == 0).all() and (ev.priors[legal] > 0).all()
    assert ev.value.shape == (16,) and ev.value.dtype == np.float32
    assert (np.abs(ev.value) <= 1).all()
    assert ev.score.shape == (16,) and np.isfinite(ev.score).all()


def test_evaluator_uses_exact_results_where_done():
    env = VecEnv(GameConfig(side=2))
    state = random_play(env, batch=8, moves=env.spec.num_actions + 1, rng=np.random.default_rng(2))
    assert np.asarray(state.done).all()
    ev = NetEvaluator(tiny_net(), env, TINY)(state)
    assert (ev.priors == 0).all()
    assert np.array_equal(ev.value, env.terminal_value(state))
    assert np.array_equal(ev.score, env.score_margin(state))


@pytest.mark.parametrize("symmetry_average", [False, True])
def test_evaluator_runs_one_batched_forward(symmetry_average):
    env = VecEnv(GameConfig(side=3))
    state = random_play(env, batch=5, moves=3, rng=np.random.default_rng(4))
    batches = []
    evaluator = NetEvaluator(tiny_net(), env, dataclasses.replace(TINY, symmetry_average=symmetry_average))
    evaluator.net.register_forward_hook(lambda module, args, out: batches.append(args[0].shape[0]))
    evaluator(state)
    assert batches == [5 * (NUM_SYMMETRIES if symmetry_average else 1)]


def test_symmetry_average_is_the_mean_of_the_transformed_evaluations():
    env = VecEnv(GameConfig(side=4, game_type="komi", scoring="quadratic"))
    spec = env.spec
    state = random_play(env, batch=6, moves=9, rng=np.random.default_rng(5), komi=np.arange(6) * 100)
    net = tiny_net()
    plain = NetEvaluator(net, env, TINY)
    averaged = NetEvaluator(net, env, dataclasses.replace(TINY, symmetry_average=True))(state)
    priors, values, scores = [], [], []
    for k in range(NUM_SYMMETRIES):
        ev = plain(replay_transformed(env, state, k))
        priors.append(ev.priors[:, np.append(spec.sym_map[k], spec.button_action)])  # back to the original cells
        values.append(ev.value)
        scores.append(ev.score)
    assert np.allclose(averaged.priors, np.mean(priors, axis=0), atol=1e-6)
    assert np.allclose(averaged.value, np.mean(values, axis=0), atol=1e-6)
    assert np.allclose(averaged.score, np.mean(scores, axis=0), rtol=1e-5, atol=1e-3)
    assert np.allclose(averaged.priors.sum(axis=1), 1.0, atol=1e-5)
    # The net is not equivariant, so averaging must actually change the priors.
    assert not np.allclose(averaged.priors, plain(state).priors, atol=1e-4)


def test_ownership_is_the_training_forwards_head_and_its_symmetry_average():
    """Issue 28: the ownership map for analysis is the model's own ownership head in eval mode (the
    search's forward skips it), and with symmetry averaging the mean over the 12 replayed games."""
    env = VecEnv(GameConfig(side=4))
    spec = env.spec
    state = random_play(env, batch=5, moves=7, rng=np.random.default_rng(3))
    net = tiny_net()
    plain = NetEvaluator(net, env, TINY)
    features = encode(env, state)
    with torch.inference_mode():
        expected = net(torch.as_tensor(features.planes), torch.as_tensor(features.globals)).ownership.numpy()
    owned = plain.ownership(state)
    assert owned.shape == (5, spec.num_cells) and np.allclose(owned, expected[:, :spec.num_cells], atol=1e-5)
    averaged = NetEvaluator(net, env, dataclasses.replace(TINY, symmetry_average=True)).ownership(state)
    transformed = [plain.ownership(replay_transformed(env, state, k))[:, spec.sym_map[k]] for k in range(NUM_SYMMETRIES)]
    assert np.allclose(averaged, np.mean(transformed, axis=0), atol=1e-5)
    assert not np.allclose(averaged, owned, atol=1e-4)  # not equivariant: the average is another map


def test_resolve_device():
    assert resolve_device("cpu") == torch.device("cpu")
    assert resolve_device("auto").type == ("cuda" if torch.cuda.is_available() else "cpu")
    if not torch.cuda.is_available():
        with pytest.raises(ValueError, match="CUDA is not available"):
            resolve_device("cuda")


def test_cpu_precision_is_validated():
    with pytest.raises(ConfigError, match="net.cpu_precision"):
        NetConfig(cpu_precision="float16")
    with pytest.raises(ValueError, match="cpu_precision"):
        inference_autocast(torch.device("cpu"), True, "half")


# ---------------------------------------------------------------------------------------------
# Memory layout and precision (scripts/bench_net.py measures their speed)


@pytest.mark.parametrize("training", [False, True])
def test_channels_last_gives_the_nchw_outputs(training):
    """NHWC activations are a layout change only: same outputs, same batch-norm statistics."""
    planes, globals_ = random_inputs(4, batch=6, seed=3)
    results = []
    for channels_last in (False, True):
        net = model_from_config(dataclasses.replace(TINY, channels_last=channels_last))
        net.load_state_dict(tiny_net().state_dict())
        net.train(training)
        out = net(planes, globals_)
        stats = torch.cat([m.running_var for m in net.modules() if isinstance(m, MaskedBatchNorm2d)])
        results.append((out, stats))
    (a, sa), (b, sb) = results
    for name in ("policy_logits", "wdl_logits", "score", "ownership"):
        assert torch.allclose(getattr(a, name), getattr(b, name), atol=1e-5), name
    assert torch.allclose(sa, sb, atol=1e-6)


def test_bfloat16_cpu_inference_is_within_its_accuracy_bound():
    """bfloat16 autocast keeps 8 mantissa bits: priors and values within 0.02 of float32, yet not equal
    (so the autocast is really on). The bound is the tolerance the benchmark's accuracy check reports."""
    env = VecEnv(GameConfig(side=4))
    state = random_play(env, batch=16, moves=8, rng=np.random.default_rng(11))
    net = tiny_net()
    exact = NetEvaluator(net, env, TINY)(state)
    approx = NetEvaluator(net, env, dataclasses.replace(TINY, cpu_precision="bfloat16"))(state)
    prior_error = np.abs(approx.priors - exact.priors).max()
    value_error = np.abs(approx.value - exact.value).max()
    assert 0 < max(prior_error, value_error)
    assert prior_error < 0.02 and value_error < 0.02
    assert np.allclose(approx.priors.sum(axis=1), 1.0, atol=1e-5)
    assert (approx.priors[~env.legal_actions(state)] == 0).all()


# ---------------------------------------------------------------------------------------------
# Mixed-side batches: one forward for several board sides (padded to the largest grid)

MIXED_RULES = [
    GameConfig(side=2, game_type="komi", scoring="standard"),
    GameConfig(side=4, game_type="double", scoring="quadratic"),
    GameConfig(side=3, game_type="no_komi", scoring="longest"),
    GameConfig(side=5, game_type="komi", scoring="longest"),
    GameConfig(side=4, game_type="komi", scoring="standard"),
]


def mixed_items(batch: int = 3, seed: int = 0) -> list[tuple[VecEnv, object]]:
    rng = np.random.default_rng(seed)
    items = []
    for game in MIXED_RULES:
        env = VecEnv(game)
        items.append((env, random_play(env, batch=batch, moves=int(rng.integers(1, env.spec.num_cells)), rng=rng)))
    return items


def test_pad_features_places_each_board_at_the_grid_origin():
    items = mixed_items()
    parts = [encode(env, state) for env, state in items]
    padded = pad_features(parts)
    assert padded.planes.shape == (15, NUM_PLANES, 9, 9) and padded.planes.dtype == np.float32
    assert padded.sides.tolist() == [2] * 3 + [4] * 3 + [3] * 3 + [5] * 3 + [4] * 3
    assert np.array_equal(padded.globals, np.concatenate([p.globals for p in parts]))
    for i, part in enumerate(parts):
        g = part.grid_size
        rows = padded.planes[3 * i : 3 * i + 3]
        assert np.array_equal(rows[:, :, :g, :g], part.planes)
        assert not rows[:, :, g:, :].any() and not rows[:, :, :, g:].any()
        # The on-board plane marks exactly the sample's own board.
        assert np.array_equal(rows[0, F.PLANE_ON_BOARD, :g, :g], board_spec(g // 2 + 1).board_mask)
    assert np.array_equal(pad_features([padded]).planes, padded.planes)  # padding composes
    assert np.array_equal(parts[3].sample_sides(), [5, 5, 5])
    with pytest.raises(ValueError, match="at least one"):
        pad_features([])
    with pytest.raises(ValueError, match="one side per batch"):
        transform_features(padded, board_spec(5), 1)


def padded_inputs(parts):
    padded = pad_features(parts)
    return torch.from_numpy(padded.planes), torch.from_numpy(padded.globals), torch.from_numpy(padded.sides)


@pytest.mark.parametrize("channels_last", [False, True])
def test_padded_mixed_forward_equals_each_sample_on_its_own_grid(channels_last):
    """Conformance: row b of the padded forward, cut to its own A_b actions and N_b cells, equals the
    unpadded forward of that sample on its own grid; the rest of the row is padding."""
    net = model_from_config(dataclasses.replace(TINY, channels_last=channels_last))
    net.load_state_dict(tiny_net().state_dict())
    net.eval()
    parts = [encode(env, state) for env, state in mixed_items(seed=1)]
    with torch.no_grad():
        mixed = net(*padded_inputs(parts))
        start = 0
        for part in parts:
            own = net(torch.from_numpy(part.planes), torch.from_numpy(part.globals))
            rows = slice(start, start + part.batch_size)
            a, n = own.policy_logits.shape[1], own.ownership.shape[1]
            assert torch.allclose(mixed.policy_logits[rows, :a], own.policy_logits, atol=1e-5)
            assert torch.allclose(mixed.ownership[rows, :n], own.ownership, atol=1e-5)
            assert torch.allclose(mixed.wdl_logits[rows], own.wdl_logits, atol=1e-5)
            assert torch.allclose(mixed.score[rows], own.score, atol=1e-5)
            assert (mixed.policy_logits[rows, a:] == PAD_LOGIT).all()
            assert (mixed.ownership[rows, n:] == 0).all()
            start += part.batch_size
        # Control: the same padded planes read as full 9x9 boards give other outputs.
        planes, globals_, _ = padded_inputs(parts)
        assert not torch.allclose(net(planes, globals_).wdl_logits[:3], mixed.wdl_logits[:3], atol=1e-3)


def test_a_batch_of_full_boards_with_sides_takes_the_uniform_path():
    net = tiny_net()
    planes, globals_ = random_inputs(4, batch=3)
    full = torch.full((3,), 4)
    assert not net.board(7, torch.device("cpu"), full).mixed_batch
    assert net.board(7, torch.device("cpu"), torch.tensor([4, 3, 4])).mixed_batch
    with torch.no_grad():
        assert torch.equal(net(planes, globals_, full).policy_logits, net(planes, globals_).policy_logits)


def test_bad_sides_raise():
    net = tiny_net()
    planes, globals_ = random_inputs(3, batch=2)
    with pytest.raises(ValueError, match="sides must be in 2..3"):
        net(planes, globals_, torch.tensor([3, 4]))
    with pytest.raises(ValueError, match=r"sides must be \[2\]"):
        net(planes, globals_, torch.tensor([3]))


def test_masked_batch_norm_statistics_of_a_mixed_batch_count_each_samples_own_cells():
    """Hand-checked: the statistics are over the real cells of all samples, 7 + 19 + 37 here."""
    sides = torch.tensor([2, 3, 4])
    board = Board.mixed(sides, SideTables(7, torch.device("cpu")))
    x = (2.0 + torch.randn(3, 2, 7, 7)) * board.fmask + 50.0 * (1 - board.fmask)  # garbage off each board
    norm = MaskedBatchNorm2d(2, momentum=1.0).train()
    y = norm(x, board)
    cells = torch.cat([on_board_values(x[i : i + 1, :, : 2 * s - 1, : 2 * s - 1], int(s)) for i, s in enumerate(sides)], dim=2)
    assert cells.shape == (1, 2, 7 + 19 + 37)
    assert torch.allclose(norm.running_mean, cells.mean(dim=(0, 2)))
    assert torch.allclose(norm.running_var, cells[0].var(dim=1))
    assert torch.equal(y * (1 - board.fmask), torch.zeros_like(y))
    assert float(board.total_cells) == 63 and board.num_cells.flatten().tolist() == [7, 19, 37]


def test_training_on_a_padded_batch_equals_training_on_its_own_grid():
    """Train mode: a batch of side-3 boards padded into the side-5 grid gives the unpadded outputs,
    batch-norm statistics and parameter gradients (masked statistics see the real cells only)."""
    planes, globals_ = random_inputs(3, batch=4, seed=5)
    padded = torch.zeros(4, NUM_PLANES, 9, 9)
    padded[:, :, :5, :5] = planes
    padded[:, 1:, 5:, :] = 7.0 * torch.rand(4, NUM_PLANES - 1, 4, 9)  # garbage off the boards is ignored
    results = []
    for x, sides in ((planes, None), (padded, torch.full((4,), 3))):
        net = tiny_net().train()
        out = net(x, globals_, sides)
        a, n = 20, 19
        loss = out.policy_logits[:, :a].square().sum() + out.wdl_logits.sum() + out.score.sum() + out.ownership[:, :n].sum()
        loss.backward()
        stats = torch.cat([m.running_var for m in net.modules() if isinstance(m, MaskedBatchNorm2d)])
        grads = torch.cat([p.grad.flatten() for p in net.parameters()])
        results.append((out, stats, grads, a, n))
    (a_out, a_stats, a_grads, a, n), (b_out, b_stats, b_grads, _, _) = results
    assert torch.allclose(a_out.policy_logits, b_out.policy_logits[:, :a], atol=1e-5)
    assert torch.allclose(a_out.ownership, b_out.ownership[:, :n], atol=1e-5)
    assert torch.allclose(a_out.wdl_logits, b_out.wdl_logits, atol=1e-5)
    assert torch.allclose(a_stats, b_stats, atol=1e-5)
    assert torch.allclose(a_grads, b_grads, atol=1e-4)


def test_training_on_a_mixed_batch_keeps_gradients_on_the_boards():
    parts = [encode(env, state) for env, state in mixed_items(batch=2, seed=2)]
    planes, globals_, sides = padded_inputs(parts)
    planes.requires_grad_(True)
    net = tiny_net().train()
    out = net(planes, globals_, sides)
    targets = torch.zeros_like(out.policy_logits)  # [B, A_max]: uniform over each row's actions, 0 on the padding
    row = 0
    for p, (env, _) in zip(parts, mixed_items(batch=2, seed=2)):
        targets[row:row + p.batch_size, :env.spec.num_actions] = 1 / env.spec.num_actions
        row += p.batch_size
    loss = -(targets * torch.log_softmax(out.policy_logits, dim=1)).sum()
    loss = loss + out.wdl_logits.sum() + out.score.sum() + out.ownership.sum()
    assert torch.isfinite(loss)  # PAD_LOGIT is finite: 0 * log_softmax(PAD) = 0, not NaN
    loss.backward()
    mask = torch.from_numpy(planes.detach().numpy()[:, F.PLANE_ON_BOARD] == 1)  # [B, G, G]
    grad = planes.grad.abs().sum(dim=1)  # [B, G, G]
    assert grad[mask].sum() > 0 and (grad[~mask] == 0).all()
    assert all(torch.isfinite(p.grad).all() for p in net.parameters())


def test_evaluate_many_is_one_forward_and_equals_separate_evaluations():
    items = mixed_items(batch=4, seed=3)
    # A finished game in one group: exact results there.
    env2 = items[0][0]
    done = random_play(env2, batch=2, moves=env2.spec.num_actions + 1, rng=np.random.default_rng(9))
    items.append((env2, done))
    net = tiny_net()
    batches = []
    evaluator = NetEvaluator(net, None, TINY)
    evaluator.net.register_forward_hook(lambda module, args, out: batches.append(args[0].shape))
    many = evaluator.evaluate_many(items)
    assert batches == [(22, NUM_PLANES, 9, 9)]
    assert evaluator.evaluate_many([]) == []
    with pytest.raises(ValueError, match="no env"):
        evaluator(items[0][1])
    for (env, state), ev in zip(items, many):
        alone = NetEvaluator(net, env, TINY)(state)
        assert ev.priors.shape == env.legal_actions(state).shape and ev.priors.dtype == np.float32
        assert np.allclose(ev.priors, alone.priors, atol=1e-5)
        assert np.allclose(ev.value, alone.value, atol=1e-5)
        assert np.allclose(ev.score, alone.score, rtol=1e-4, atol=1e-3)
        assert (ev.priors[~env.legal_actions(state)] == 0).all()
    assert np.array_equal(many[-1].value, env2.terminal_value(done)) and (many[-1].priors == 0).all()


def test_evaluate_many_by_side_runs_one_forward_per_side_with_the_same_results():
    items = mixed_items(batch=3, seed=5)  # sides 2, 4, 3, 5, 4: four distinct sides
    net = tiny_net()
    grids = []

    def evaluator(config):
        evaluator = NetEvaluator(net, None, config)
        evaluator.net.register_forward_hook(lambda module, args, out: grids.append((args[0].shape[0], args[0].shape[2])))
        return evaluator

    padded = evaluator(TINY).evaluate_many(items)
    assert grids == [(15, 9)]
    grids.clear()
    by_side = evaluator(dataclasses.replace(TINY, mixed_sides="by_side")).evaluate_many(items)
    assert sorted(grids) == [(3, 3), (3, 5), (3, 9), (6, 7)]  # the two side-4 groups share a forward
    for a, b in zip(padded, by_side):
        assert np.allclose(a.priors, b.priors, atol=1e-5) and np.allclose(a.value, b.value, atol=1e-5)
    with pytest.raises(ConfigError, match="net.mixed_sides"):
        NetConfig(mixed_sides="split")


def test_evaluate_many_with_symmetry_averaging_equals_separate_evaluations():
    items = mixed_items(batch=2, seed=4)[1:4]
    net = tiny_net()
    config = dataclasses.replace(TINY, symmetry_average=True)
    batches = []
    evaluator = NetEvaluator(net, None, config)
    evaluator.net.register_forward_hook(lambda module, args, out: batches.append(args[0].shape[0]))
    many = evaluator.evaluate_many(items)
    assert batches == [NUM_SYMMETRIES * 6]
    for (env, state), ev in zip(items, many):
        alone = NetEvaluator(net, env, config)(state)
        assert np.allclose(ev.priors, alone.priors, atol=1e-5)
        assert np.allclose(ev.value, alone.value, atol=1e-5)


def test_set_torch_threads_sizes_the_pools_to_the_cpu_share():
    before = torch.get_num_threads()
    try:
        assert set_torch_threads(0.5) == 1 and torch.get_num_threads() == 1
        assert set_torch_threads(2.7) == 2 and torch.get_num_threads() == 2
        assert set_torch_threads(2.0) == 2  # again: the inter-op count is fixed by now, still no error
        with pytest.raises(ValueError, match="num_cpus"):
            set_torch_threads(0)
    finally:
        torch.set_num_threads(before)


@pytest.mark.slow
def test_compiled_evaluator_gives_the_eager_evaluations():
    env = VecEnv(GameConfig(side=3))
    state = random_play(env, batch=8, moves=4, rng=np.random.default_rng(6))
    net = tiny_net()
    eager = NetEvaluator(net, env, TINY)(state)
    evaluator = NetEvaluator(net, env, dataclasses.replace(TINY, compile=True))
    compiled = evaluator(state)
    assert np.allclose(compiled.priors, eager.priors, atol=1e-5)
    assert np.allclose(compiled.value, eager.value, atol=1e-5)
    # New weights: the compiled forward reads the refolded tensors (written in place).
    net.load_state_dict(tiny_net(seed=5).state_dict())
    compiled, eager = evaluator(state), NetEvaluator(net, env, TINY)(state)
    assert np.allclose(compiled.priors, eager.priors, atol=1e-5)
    assert np.allclose(compiled.value, eager.value, atol=1e-5)


def test_cpu_precision_auto_takes_bfloat16_only_where_the_cpu_has_it(monkeypatch):
    import contextlib

    from catena_zero.net import device as device_module

    cpu = torch.device("cpu")
    monkeypatch.setattr(device_module, "cpu_has_fast_bfloat16", lambda: False)
    assert isinstance(device_module.inference_autocast(cpu, False, "auto"), contextlib.nullcontext)
    monkeypatch.setattr(device_module, "cpu_has_fast_bfloat16", lambda: True)
    with device_module.inference_autocast(cpu, False, "auto"):
        assert torch.get_autocast_dtype("cpu") == torch.bfloat16 and torch.is_autocast_enabled("cpu")
    with pytest.raises(ValueError, match="'auto'"):
        device_module.inference_autocast(cpu, False, "float16")


def test_model_from_weights_rebuilds_the_network_or_names_the_mismatch():
    net = tiny_net(3)
    rebuilt = model_from_weights(TINY, net.state_dict())
    assert not rebuilt.training
    planes, globals_ = random_inputs(3, 4, seed=1)
    with torch.no_grad():
        before, after = net(planes, globals_), rebuilt(planes, globals_)
    for field in dataclasses.fields(before):
        assert torch.equal(getattr(before, field.name), getattr(after, field.name)), field.name
    wider = dataclasses.replace(TINY, channels=24)
    with pytest.raises(WeightsMismatch, match="^weights do not fit its network config: "):
        model_from_weights(wider, net.state_dict())
    with pytest.raises(WeightsMismatch, match="^weights do not fit its network config"):
        model_from_weights(TINY, {"not a tensor": 1})


@pytest.mark.parametrize("training", [False, True])
def test_a_deepened_network_computes_the_shallower_ones_function(training):
    # Three blocks, pooling in the second, deepened to six: the new blocks (one of them with a
    # pooling branch) add nothing, in eval mode (running statistics) and in training mode (batch ones).
    shallow = random_net(FOLD, seed=4).train(training)
    deep_config = dataclasses.replace(FOLD, blocks=6)
    deep = deepened(shallow, deep_config, torch.Generator().manual_seed(5))
    assert deep.training == training and len(deep.blocks) == 6 and deep.blocks[3].pool is not None
    planes, globals_ = random_inputs(6, 5, seed=2)
    with torch.no_grad():
        assert_outputs_close(shallow(planes, globals_), deep(planes, globals_), atol=0.0)
    for old, new in zip(shallow.blocks, deep.blocks):
        assert all(torch.equal(a, b) for a, b in zip(old.state_dict().values(), new.state_dict().values()))
    # The new blocks learn: their zero convolution has a gradient, so the next step moves off the
    # shallower network (an untrained copy of it would stay there).
    deep.train()
    out = deep(planes, globals_)
    (out.policy_logits.square().mean() + out.score.square().mean()).backward()
    assert all(float(block.conv2.weight.grad.abs().sum()) > 0 for block in deep.blocks[3:])
    # Only more blocks of the same network: anything else is an error, not a silent reshape.
    for other in (dataclasses.replace(FOLD, blocks=2), dataclasses.replace(deep_config, channels=24),
                  dataclasses.replace(deep_config, global_pool_every=3)):
        with pytest.raises(ValueError, match="deepens only to its own architecture with more blocks"):
            deepened(shallow, other)


# ---------------------------------------------------------------------------------------------
# Inference-only forward: folded.FoldedNet (batch norms folded once per weight version)

# Three blocks, pooling in the second only: blocks with and without the pooling branch's fold.
FOLD = NetConfig(blocks=3, channels=16, global_pool_every=2, head_channels=8, value_hidden=16, device="cpu")


def random_net(config: NetConfig, seed: int):
    """Random weights and random batch-norm affines and running statistics, in eval mode."""
    gen = torch.Generator().manual_seed(seed)
    net = model_from_config(config, generator=gen)
    with torch.no_grad():
        for module in net.modules():
            if isinstance(module, MaskedBatchNorm2d):
                k = module.num_features
                module.weight.copy_(torch.randn(k, generator=gen) * 0.5 + 1.0)
                module.bias.copy_(torch.randn(k, generator=gen) * 0.3)
                module.running_mean.copy_(torch.randn(k, generator=gen) * 0.5)
                module.running_var.copy_(torch.rand(k, generator=gen) * 2.0 + 0.1)
    return net.eval()


def assert_outputs_close(a, b, atol=1e-5, ownership=True):
    for name in ("policy_logits", "wdl_logits", "score") + (("ownership",) if ownership else ()):
        x, y = getattr(a, name), getattr(b, name)
        assert x.shape == y.shape and torch.allclose(x.float(), y.float(), atol=atol), name


@pytest.mark.parametrize("channels_last", [False, True])
@pytest.mark.parametrize("side", [3, 4, 6])
def test_folded_net_gives_the_eval_forward_outputs(side, channels_last):
    from catena_zero.net.folded import FoldedNet

    net = random_net(dataclasses.replace(FOLD, channels_last=channels_last), seed=side)
    planes, globals_ = random_inputs(side, batch=7, seed=side)
    folded = FoldedNet(net)
    with torch.inference_mode():
        expected = net(planes, globals_)
        assert_outputs_close(folded(planes, globals_, ownership=True), expected)
        assert folded(planes, globals_).ownership is None  # skipped unless asked for
    # Control: the folded network of other weights gives other outputs.
    with torch.inference_mode():
        other = FoldedNet(random_net(FOLD, seed=side + 100))(planes, globals_)
    assert not torch.allclose(other.policy_logits, expected.policy_logits, atol=1e-3)


def test_folded_net_gives_the_eval_forward_outputs_on_a_mixed_batch():
    from catena_zero.net.folded import FoldedNet

    net = random_net(FOLD, seed=7)
    planes, globals_, sides = padded_inputs([encode(env, state) for env, state in mixed_items(seed=2)])
    with torch.inference_mode():
        assert_outputs_close(FoldedNet(net)(planes, globals_, sides, ownership=True), net(planes, globals_, sides))


def test_bfloat16_folded_net_is_within_its_accuracy_bound():
    from catena_zero.net.folded import FoldedNet

    net = random_net(FOLD, seed=8)
    planes, globals_ = random_inputs(4, batch=16, seed=8)
    with torch.inference_mode():
        out = FoldedNet(net, torch.bfloat16)(planes, globals_)
        exact = net(planes, globals_)
    assert out.policy_logits.dtype == torch.bfloat16
    assert_outputs_close(out, exact, atol=0.1, ownership=False)
    assert not torch.allclose(out.policy_logits.float(), exact.policy_logits, atol=1e-5)  # really bfloat16


def test_evaluator_gives_the_new_networks_outputs_after_its_weights_change():
    """The folded weights are refolded after every kind of write to the model: load_state_dict (what
    SelfPlayer.set_weights does), an in-place update (an optimiser step), load_state_dict(assign=True)."""
    env = VecEnv(GameConfig(side=4))
    state = random_play(env, batch=6, moves=5, rng=np.random.default_rng(3))
    net, weights = random_net(TINY, seed=1), [random_net(TINY, seed=s).state_dict() for s in (2, 3, 4)]
    evaluators = [NetEvaluator(net, env, TINY), NetEvaluator(net, None, TINY)]  # two sharing a model, as in self-play

    def evaluations():
        return [evaluators[0](state), evaluators[1].evaluate_many([(env, state)])[0]]

    def expected(state_dict):
        return NetEvaluator(model_from_weights(TINY, state_dict), env, TINY)(state)

    def check(state_dict):
        want = expected(state_dict)
        for ev in evaluations():
            assert np.allclose(ev.priors, want.priors, atol=1e-6) and np.allclose(ev.value, want.value, atol=1e-6)
            assert np.allclose(ev.score, want.score, atol=1e-5)

    before = evaluations()[0]
    assert not evaluators[0].net.sync()  # unchanged weights: no refold
    net.load_state_dict(weights[0])
    check(weights[0])
    assert not np.allclose(evaluations()[0].value, before.value, atol=1e-4)  # the weights did change the outputs
    with torch.no_grad():
        for p in net.parameters():
            p.add_(0.05 * torch.randn(p.shape, generator=torch.Generator().manual_seed(p.numel())))
        net.policy.norm.running_var.mul_(3.0)  # a buffer alone
    check(net.state_dict())
    net.load_state_dict(weights[1], assign=True)
    check(weights[1])
    with torch.inference_mode():  # weights loaded while the evaluator is inside inference mode
        net.load_state_dict(weights[2])
    check(weights[2])
