"""Tests of the vectorised environment (catena_zero/game/vec/).

The core is a differential test: thousands of random games per option combination are
played through ``VecEnv`` and through the reference engine ``Game`` side by side, comparing
after every move the legal masks (R3, R4, R7, R8), every cell (R5 claims), the side to move,
the pair state and termination, and at the end winner, scores and button holder (R6, R8).
A from-scratch R2/R3 checker (groups by flood fill, legality by trying the stone) checks
the ribbon features and the R3 part of the masks independently of both engines.
"""

from __future__ import annotations

import numpy as np
import pytest

from catena_zero.game import BLACK, EMPTY, WHITE, Game, GameConfig, board_spec
from catena_zero.game.options import GAME_TYPES, SCORINGS, komi_range
from catena_zero.game.vec.layout import _LOST_MAX
from catena_zero.game.vec import EnvState, VecEnv, random_legal_actions
from positions import board_codes, code, legal_mask, play_action

COMBOS = [(t, s) for t in GAME_TYPES for s in SCORINGS]


# ---------------------------------------------------------------------- helpers
def random_komi(cfg: GameConfig, size: int, rng: np.random.Generator) -> np.ndarray:
    if cfg.game_type != "komi":
        return np.zeros(size, dtype=np.int64)
    lo, hi = komi_range(cfg.scoring)
    return rng.integers(lo, hi + 1, size)


def random_actions(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Uniform legal action per row (argmax of random keys over legal actions); -1 if none.
    Deliberately independent of ``random_legal_actions``, which is tested on its own."""
    keys = np.where(mask, rng.random(mask.shape), -1.0)
    actions = keys.argmax(axis=1)
    actions[~mask.any(axis=1)] = -1
    return actions


def scratch_groups(occupied: np.ndarray, side: int) -> list[list[int]]:
    """R2 groups (colour-blind) by flood fill over the occupied cells."""
    nbrs = board_spec(side).neighbours
    pad = board_spec(side).pad
    seen, groups = set(), []
    for c in np.flatnonzero(occupied):
        if c in seen:
            continue
        group, todo = [], [int(c)]
        seen.add(int(c))
        while todo:
            s = todo.pop()
            group.append(s)
            for t in nbrs[s]:
                if t != pad and occupied[t] and int(t) not in seen:
                    seen.add(int(t))
                    todo.append(int(t))
        groups.append(group)
    return groups


def is_ribbon(group: list[int], occupied: np.ndarray, side: int) -> bool:
    """R2: a path: every stone has <= 2 stone neighbours and no ring (edges = stones - 1)."""
    nbrs, pad = board_spec(side).neighbours, board_spec(side).pad
    degrees = [sum(1 for t in nbrs[s] if t != pad and occupied[t]) for s in group]
    return max(degrees) <= 2 and sum(degrees) // 2 == len(group) - 1


def scratch_legal(occupied: np.ndarray, side: int) -> np.ndarray:
    """[N] bool R3 by definition: an empty cell is legal iff after placing on it every group
    is still a ribbon (only the new stone's group can change)."""
    legal = np.zeros(occupied.size, dtype=bool)
    for c in np.flatnonzero(~occupied):
        trial = occupied.copy()
        trial[c] = True
        group = next(g for g in scratch_groups(trial, side) if c in g)
        legal[c] = is_ribbon(group, trial, side)
    return legal


def check_ribbon_info(env: VecEnv, state: EnvState, games: list[Game]) -> None:
    """ribbon_info against the reference ribbons and a from-scratch growth count."""
    info = env.ribbon_info(state)
    nbrs, pad = env.spec.neighbours, env.spec.pad
    for i, g in enumerate(games):
        occupied = board_codes(g) != EMPTY
        legal = scratch_legal(occupied, env.config.side) if not g.is_over else np.zeros_like(occupied)
        expect = {name: np.zeros(occupied.size, dtype=np.int64)
                  for name in ("is_end", "limited", "length", "black", "white", "growth")}
        for r in g.ribbons():
            cells = list(r.indices)
            ends = {cells[0], cells[-1]}
            growth = {int(t) for e in ends for t in nbrs[e] if t != pad and legal[t]}
            expect["length"][cells] = r.length
            expect["black"][cells] = r.black
            expect["white"][cells] = r.white
            expect["limited"][cells] = r.claimed
            expect["growth"][cells] = len(growth)
            expect["is_end"][list(ends)] = 1
        for name, want in expect.items():
            got = getattr(info, name)[i].astype(np.int64)
            assert np.array_equal(got, want), f"ribbon_info.{name} differs in game {i}: {g.history}"


def play_differential(cfg: GameConfig, batch: int, seed: int, checkpoint_every: int = 0) -> int:
    """Play ``batch`` random games through VecEnv and Game in lockstep, comparing everything
    after every move. Returns the number of moves compared."""
    rng = np.random.default_rng(seed)
    env = VecEnv(cfg)
    komi = random_komi(cfg, batch, rng)
    state = env.reset(batch, komi)
    games = [Game(GameConfig(cfg.side, cfg.game_type, cfg.scoring, int(k))) for k in komi]
    finish_steps = set()
    moves, step = 0, 0
    while True:
        mask = env.legal_actions(state)
        done = state.done
        ref_done = np.array([g.is_over for g in games])
        assert np.array_equal(done, ref_done), f"termination differs at step {step}"
        ref_mask = np.stack([legal_mask(g) for g in games])
        if not np.array_equal(mask, ref_mask):
            i = int(np.flatnonzero((mask != ref_mask).any(axis=1))[0])
            raise AssertionError(f"legal mask differs in game {i} after {games[i].history}: "
                                 f"cells {np.flatnonzero(mask[i] != ref_mask[i])}")
        board = state.board
        ref_board = np.stack([board_codes(g) for g in games])
        if not np.array_equal(board, ref_board):
            i = int(np.flatnonzero((board != ref_board).any(axis=1))[0])
            raise AssertionError(f"board differs in game {i} after {games[i].history}")
        assert np.array_equal(state.to_move, [code(g.to_move) for g in games])
        assert np.array_equal(state.pending_second, [g.pending_second for g in games])
        assert np.array_equal(state.move_number, [g.move_number for g in games])
        assert np.array_equal(state.button, [code(g.button_holder) for g in games])
        if checkpoint_every and step % checkpoint_every == checkpoint_every - 1:
            ref_scores = np.array([[g.scores()["black"], g.scores()["white"]] for g in games])
            assert np.array_equal(state.scores, ref_scores.astype(np.float32)), f"scores at step {step}"
            check_ribbon_info(env, state, games)
        if done.all():
            break
        actions = random_actions(mask, rng)
        actions[done] = -7  # ignored for finished games
        env.step(state, actions)
        for i in np.flatnonzero(~done):
            play_action(games[i], actions[i])
            moves += 1
        if (state.done & ~done).any():
            finish_steps.add(step)
        step += 1
    # R6/R8 results
    ref_scores = np.array([[g.scores()["black"], g.scores()["white"]] for g in games], dtype=np.float32)
    assert np.array_equal(state.scores, ref_scores)
    assert np.array_equal(state.winner, [code(g.winner) for g in games])
    assert np.array_equal(state.button, [code(g.button_holder) for g in games])
    value = env.terminal_value(state)
    assert np.array_equal(value, [g.result_value(g.to_move) for g in games])
    margin = env.score_margin(state)
    mover_white = state.to_move == WHITE
    assert np.array_equal(margin, np.where(mover_white, -1, 1) * (ref_scores[:, 0] - ref_scores[:, 1]))
    if batch >= 50 and cfg.side >= 3:
        assert len(finish_steps) >= 2, "games should finish at different times"
    return moves


# ---------------------------------------------------------------------- differential tests
# Sized for the default suite (well under a minute in total): many small games, fewer big ones.
DEFAULT_SIZES = [(2, 1500), (3, 800), (6, 120), (10, 10)]


@pytest.mark.parametrize("game_type,scoring", COMBOS)
def test_matches_reference_engine(game_type: str, scoring: str) -> None:
    """R3-R8 through random play: VecEnv and Game agree after every move."""
    for k, (side, batch) in enumerate(DEFAULT_SIZES):
        cfg = GameConfig(side=side, game_type=game_type, scoring=scoring)
        play_differential(cfg, batch, seed=1000 * side + 17 * k + COMBOS.index((game_type, scoring)))


@pytest.mark.parametrize("game_type,scoring", COMBOS)
def test_ribbon_info_and_midgame_scores(game_type: str, scoring: str) -> None:
    """ribbon_info (R2 features, growth from a from-scratch R3 check) and scores during play."""
    for side, batch in ((3, 40), (5, 6)):
        cfg = GameConfig(side=side, game_type=game_type, scoring=scoring)
        play_differential(cfg, batch, seed=side * 7 + 3, checkpoint_every=3)


@pytest.mark.slow
@pytest.mark.parametrize("game_type,scoring", COMBOS)
@pytest.mark.parametrize("side,batch", [(2, 10000), (3, 8000), (4, 4000), (5, 3000), (6, 3000),
                                        (7, 800), (8, 500), (9, 300), (10, 300)])
def test_matches_reference_engine_slow(game_type: str, scoring: str, side: int, batch: int) -> None:
    cfg = GameConfig(side=side, game_type=game_type, scoring=scoring)
    play_differential(cfg, batch, seed=side * 101 + COMBOS.index((game_type, scoring)))


def test_r3_part_of_masks_matches_scratch_checker() -> None:
    """The R3 mask is legality by definition (try the stone, check every group is a ribbon)."""
    rng = np.random.default_rng(5)
    for game_type in ("komi", "double"):
        env = VecEnv(GameConfig(side=4, game_type=game_type))
        state = env.reset(30)
        while not state.done.all():
            lay = state.layout
            r3 = state.data[:, lay.legal:lay.legal + lay.n] != 0
            occupied = state.board != EMPTY
            for i in np.flatnonzero(~state.done):
                assert np.array_equal(r3[i], scratch_legal(occupied[i], 4))
            env.step(state, random_actions(env.legal_actions(state), rng))


# ---------------------------------------------------------------------- rule examples
def test_r3_seed_example() -> None:
    """RULES.md R3: ribbons C5-D5-E5 and G5-H6-H7; B5, F5 legal; D6, G6, I6 illegal."""
    env = VecEnv(GameConfig(side=6))
    spec = env.spec
    state = env.reset(1)
    for name in ("C5", "D5", "E5", "H7", "G5", "H6"):
        env.step(state, np.array([spec.cell(name)]))
    mask = env.legal_actions(state)[0]
    assert mask[spec.cell("B5")] and mask[spec.cell("F5")]
    for name in ("D6", "G6", "I6"):
        assert not mask[spec.cell(name)], name
    # F5 joins the two ribbons into one of length 7 (R3 k == 2)
    env.step(state, np.array([spec.cell("F5")]))
    info = env.ribbon_info(state)
    assert info.length[0, spec.cell("D5")] == 7
    assert info.is_end[0, [spec.cell("C5"), spec.cell("H7")]].all()


def test_r5_claim_recolours_and_tie_goes_to_opponent_of_placer() -> None:
    """R5: side 2; a ribbon limited by a placement is claimed by its majority; ties go to the
    opponent of the placer. Checked against the reference engine on every random game."""
    env = VecEnv(GameConfig(side=2))
    rng = np.random.default_rng(11)
    state = env.reset(400)
    recoloured = 0
    while not state.done.all():
        before = state.board
        env.step(state, random_actions(env.legal_actions(state), rng))
        after = state.board
        recoloured += int(((before != EMPTY) & (after != before)).sum())
    assert recoloured > 0  # claims did recolour stones (R5), and the differential test checks them
    for i in range(0, 400, 37):
        assert np.array_equal(board_codes(env.to_game(state, i)), state.board[i])


# ---------------------------------------------------------------------- errors
def test_illegal_actions_raise_and_leave_state_unchanged() -> None:
    env = VecEnv(GameConfig(side=3))
    spec = env.spec
    state = env.reset(2)
    env.step(state, np.array([spec.cell("C3"), spec.button_action]))
    snapshot = state.data.copy()
    cases = [
        np.array([spec.cell("C3"), spec.cell("A1")]),  # occupied in game 0
        np.array([spec.cell("A1"), spec.button_action]),  # button taken already in game 1 (R4)
        np.array([spec.num_actions, 0]),  # out of range
        np.array([-1, 0]),
    ]
    for actions in cases:
        with pytest.raises(ValueError, match="illegal action"):
            env.step(state, actions)
        assert np.array_equal(state.data, snapshot)
    with pytest.raises(ValueError, match="shape"):
        env.step(state, np.array([0]))
    with pytest.raises(ValueError, match="integer"):
        env.step(state, np.array([0.0, 1.0]))
    # R3: a ring of three
    for name in ("B2",):
        env.step(state, np.array([spec.cell(name), spec.cell("A1")]))
    assert not env.legal_actions(state)[0, spec.cell("B3")]
    with pytest.raises(ValueError):
        env.step(state, np.array([spec.cell("B3"), spec.cell("A2")]))


def test_button_rules() -> None:
    """R7: no_komi forbids the button before Black's first stone; R8: double has none."""
    no_komi = VecEnv(GameConfig(side=3, game_type="no_komi"))
    state = no_komi.reset(1)
    assert not no_komi.legal_actions(state)[0, -1]
    with pytest.raises(ValueError):
        no_komi.step(state, np.array([no_komi.spec.button_action]))
    no_komi.step(state, np.array([0]))
    assert no_komi.legal_actions(state)[0, -1]
    double = VecEnv(GameConfig(side=3, game_type="double"))
    state = double.reset(1)
    assert not double.legal_actions(state)[0, -1]


def test_pair_rule_violation_raises() -> None:
    """R8: a first stone that leaves no legal cell for the second is illegal in step."""
    env = VecEnv(GameConfig(side=3, game_type="double"))
    rng = np.random.default_rng(3)
    found = 0
    for _ in range(30):
        state = env.reset(64)
        while not state.done.all():
            mask = env.legal_actions(state)
            lay = state.layout
            r3 = state.data[:, lay.legal:lay.legal + lay.n] != 0
            excluded = r3 & ~mask[:, :lay.n] & ~state.done[:, None]
            for i in np.flatnonzero(excluded.any(axis=1))[:1]:
                sub = env.take(state, [i])
                snapshot = sub.data.copy()
                with pytest.raises(ValueError, match="illegal action"):
                    env.step(sub, np.array([np.flatnonzero(excluded[i])[0]]))
                assert np.array_equal(sub.data, snapshot)
                found += 1
            env.step(state, random_actions(mask, rng))
        if found >= 3:
            break
    assert found >= 3


def test_bad_komi_and_foreign_state() -> None:
    with pytest.raises(ValueError, match="komi"):
        VecEnv(GameConfig(side=3)).reset(2, 16)
    with pytest.raises(ValueError, match="komi"):
        VecEnv(GameConfig(side=3, game_type="double")).reset(2, 1)
    with pytest.raises(ValueError, match="one per game"):
        VecEnv(GameConfig(side=3)).reset(2, np.array([1, 2, 3]))
    with pytest.raises(ValueError, match="whole numbers"):
        VecEnv(GameConfig(side=3)).reset(2, 1.5)
    a, b = VecEnv(GameConfig(side=3)), VecEnv(GameConfig(side=4))
    with pytest.raises(ValueError, match="does not belong"):
        a.legal_actions(b.reset(1))
    with pytest.raises(ValueError, match="GameConfig"):
        VecEnv("side 6")  # type: ignore[arg-type]


# ---------------------------------------------------------------------- take/put, conversion
def test_take_put_store_and_restore_states() -> None:
    """A search tree stores states by take and restores them by put (DESIGN.md sec. 3)."""
    env = VecEnv(GameConfig(side=4, game_type="double", scoring="quadratic"))
    rng = np.random.default_rng(2)
    state = env.reset(16)
    for _ in range(9):
        env.step(state, random_actions(env.legal_actions(state), rng))
    saved = env.take(state, np.arange(16))
    odd = env.take(state, np.arange(1, 16, 2))
    before = state.data.copy()
    for _ in range(5):
        env.step(state, random_actions(env.legal_actions(state), rng))
    assert not np.array_equal(state.data, before)
    env.put(state, np.arange(1, 16, 2), odd)
    assert np.array_equal(state.data[1::2], before[1::2])
    env.put(state, np.arange(16), saved, np.arange(16))
    assert np.array_equal(state.data, before)
    # stepping a taken subset equals stepping those games in the full batch
    actions = random_actions(env.legal_actions(state), rng)
    sub = env.take(state, [3, 5])
    env.step(sub, actions[[3, 5]])
    env.step(state, actions)
    assert np.array_equal(sub.data, state.data[[3, 5]])


def test_to_game_and_from_games_round_trip() -> None:
    for game_type, scoring in COMBOS:
        cfg = GameConfig(side=4, game_type=game_type, scoring=scoring)
        env = VecEnv(cfg)
        rng = np.random.default_rng(4)
        state = env.reset(12, random_komi(cfg, 12, rng))
        for t in range(40):
            active = rng.random(12) < 0.8  # games at different move numbers
            sub = np.flatnonzero(active & ~state.done)
            part = env.take(state, sub)
            env.step(part, random_actions(env.legal_actions(part), rng))
            env.put(state, sub, part)
        games = [env.to_game(state, i) for i in range(12)]
        for i, g in enumerate(games):
            assert np.array_equal(board_codes(g), state.board[i])
            assert g.is_over == state.done[i] and g.config.komi == state.komi[i]
        back = env.from_games(games)
        assert np.array_equal(back.data, state.data)


def test_symmetries_commute_with_play() -> None:
    """R1: every rule is invariant under the 12 symmetries: playing the image of each move
    gives the image of the board and of the legal mask (spec.sym_map / transform)."""
    env = VecEnv(GameConfig(side=4, game_type="double"))
    spec = env.spec
    rng = np.random.default_rng(9)
    state = env.reset(12)  # game k is played in symmetry k of game 0's moves
    images = np.concatenate([spec.sym_map, np.full((12, 1), spec.button_action)], axis=1)
    while not state.done[0]:
        mask = env.legal_actions(state)
        for k in range(12):
            assert np.array_equal(mask[k], spec.transform(mask[0], k))
            assert np.array_equal(state.board[k], spec.transform(state.board[0], k))
        a = random_actions(mask[:1], rng)[0]
        env.step(state, images[:, a])
    assert state.done.all() and (state.winner == state.winner[0]).all()


def test_one_stone_makes_at_most_lost_max_cells_illegal() -> None:
    """The bound behind the R8 shortcut: with more than _LOST_MAX legal cells, every first
    stone leaves a cell for the second. Every legal stone of many random positions is tried."""
    rng = np.random.default_rng(8)
    worst = 0
    for side in (3, 5, 7):
        env = VecEnv(GameConfig(side=side))
        n = env.spec.num_cells
        state = env.reset(40)
        while not state.done.all():
            mask = env.legal_actions(state)[:, :n]
            games, cells = np.nonzero(mask)
            trial = env.take(state, games)
            env.step(trial, cells)
            lost = mask[games].sum(axis=1) - env.legal_actions(trial)[:, :n].sum(axis=1)
            assert (lost >= 1).all() and lost.max() <= _LOST_MAX
            worst = max(worst, int(lost.max()))
            env.step(state, random_actions(env.legal_actions(state), rng))
    assert worst >= 6  # the positions were rich enough to exercise the bound


def test_random_legal_actions_is_uniform_over_legal() -> None:
    rng = np.random.default_rng(12)
    mask = np.zeros((4, 10), dtype=bool)
    mask[0, [1, 4, 9]] = True
    mask[2, 0] = True
    mask[3] = True
    draws = np.stack([random_legal_actions(mask, rng) for _ in range(6000)])
    assert (draws[:, 1] == -1).all() and (draws[:, 2] == 0).all()
    counts = np.bincount(draws[:, 0], minlength=10)
    assert counts[[0, 2, 3, 5, 6, 7, 8]].sum() == 0
    assert np.abs(counts[[1, 4, 9]] - 2000).max() < 150  # ~4.5 standard deviations
    counts = np.bincount(draws[:, 3], minlength=10)
    assert np.abs(counts - 600).max() < 110


def test_memory_per_game_is_small() -> None:
    for side, limit in ((6, 2100), (10, 6200)):
        env = VecEnv(GameConfig(side=side))
        assert env.reset(3).data.nbytes // 3 == env.bytes_per_game <= limit


# ---------------------------------------------------------------------- pickling (Ray)
def test_states_pickle_compactly_and_stay_valid(monkeypatch) -> None:
    """A pickled state carries its packed rows and its rules only (not the ~53 KB of side-6 layout
    tables), and after unpickling, also where the layout cache starts empty as in a fresh Ray
    worker, it belongs to any VecEnv of the same rules: it steps exactly like the original."""
    import pickle

    import catena_zero.game.vec.layout as layout_module

    config = GameConfig(side=6, game_type="no_komi", scoring="longest")
    env = VecEnv(config)
    rng = np.random.default_rng(21)
    state = env.reset(3)
    for _ in range(7):
        env.step(state, random_legal_actions(env.legal_actions(state), rng))
    blob = pickle.dumps(state)
    assert len(blob) < state.data.nbytes + 400
    assert len(pickle.dumps(env.reset(1))) < env.bytes_per_game + 400
    # What used to travel with every state: the layout's tables and its BoardSpec (about 53 KB).
    tables = [state.layout.nbr, state.layout.adj, state.layout.template, state.layout.spec.neighbours]
    assert sum(a.nbytes for a in tables) > 20_000

    same_process = pickle.loads(blob)
    assert same_process.layout is state.layout  # re-attached from the cache
    monkeypatch.setattr(layout_module, "_LAYOUTS", {})  # a fresh process: nothing cached yet
    fresh = pickle.loads(blob)
    assert fresh.layout is not state.layout and fresh.layout.rules == state.layout.rules
    np.testing.assert_array_equal(fresh.data, state.data)
    for _ in range(5):
        actions = random_legal_actions(env.legal_actions(state), rng)
        env.step(state, actions)
        env.step(fresh, actions)  # the original env accepts the unpickled state
    np.testing.assert_array_equal(fresh.data, state.data)
    other = VecEnv(GameConfig(side=6, game_type="no_komi", scoring="longest"))  # built after the reset
    np.testing.assert_array_equal(other.legal_actions(fresh), env.legal_actions(state))
    # A VecEnv pickles as its config.
    assert len(pickle.dumps(env)) < 400 and pickle.loads(pickle.dumps(env)).config == config
    with pytest.raises(ValueError, match="does not belong"):
        VecEnv(GameConfig(side=6)).legal_actions(fresh)  # other rules: still refused


# ---------------------------------------------------------------------- the one-row engine
@pytest.mark.parametrize("game_type,scoring", COMBOS)
def test_row_engine_writes_exactly_the_vectorised_rows(game_type: str, scoring: str, monkeypatch) -> None:
    """A handful of games is stepped by the one-row engine (Python lists): after every move of
    random games, each packed row is byte for byte the row the vectorised step writes."""
    import catena_zero.game.vec.env as env_module

    for side, batch in ((2, 60), (3, 40), (5, 12), (6, 6)):
        cfg = GameConfig(side=side, game_type=game_type, scoring=scoring)
        rng = np.random.default_rng(31 * side + COMBOS.index((game_type, scoring)))
        env = VecEnv(cfg)
        komi = random_komi(cfg, batch, rng)
        vectorised, by_rows = env.reset(batch, komi), env.reset(batch, komi)
        while not vectorised.done.all():
            actions = random_actions(env.legal_actions(vectorised), rng)
            monkeypatch.setattr(env_module, "SMALL_BATCH", 0)
            env.step(vectorised, actions)
            monkeypatch.setattr(env_module, "SMALL_BATCH", 1)
            for i in range(batch):  # one game at a time: the row engine
                one = env.take(by_rows, [i])
                env.step(one, actions[i:i + 1])
                env.put(by_rows, [i], one)
            if not np.array_equal(vectorised.data, by_rows.data):
                i = int(np.flatnonzero((vectorised.data != by_rows.data).any(axis=1))[0])
                columns = np.flatnonzero(vectorised.data[i] != by_rows.data[i])
                raise AssertionError(f"{cfg}: game {i} differs in packed columns {columns[:8].tolist()}")


@pytest.mark.parametrize("game_type,scoring", COMBOS)
def test_row_engine_matches_reference_engine(game_type: str, scoring: str) -> None:
    """Batches of at most SMALL_BATCH running games go through the one-row engine: R3-R8 against Game."""
    from catena_zero.game.vec import SMALL_BATCH

    for side, games in ((3, 40), (6, 8)):
        cfg = GameConfig(side=side, game_type=game_type, scoring=scoring)
        for seed in range(games // SMALL_BATCH):
            play_differential(cfg, SMALL_BATCH, seed=seed + 7 * side)


@pytest.mark.parametrize("batch", [1, 3, 9])
def test_play_out_equals_stepping_random_legal_actions(batch: int) -> None:
    """play_out (the rollouts' fast path at small batch) plays the same games with the same draws."""
    for cfg in (GameConfig(side=5, scoring="quadratic"), GameConfig(side=4, game_type="double")):
        env = VecEnv(cfg)
        rng = np.random.default_rng(batch)
        start = env.reset(batch, random_komi(cfg, batch, rng))
        env.step(start, random_legal_actions(env.legal_actions(start), rng))
        played, stepped = env.take(start, np.arange(batch)), env.take(start, np.arange(batch))
        env.play_out(played, np.random.default_rng(3))
        draws = np.random.default_rng(3)
        while not stepped.done.all():
            env.step(stepped, random_legal_actions(env.legal_actions(stepped), draws))
        assert played.done.all()
        np.testing.assert_array_equal(played.data, stepped.data)


@pytest.mark.parametrize("batch", [3, 40])
def test_outcomes_for_either_colour(batch: int) -> None:
    """outcomes: result and margin of finished games for a given colour, as the reference engine
    scores them (R6, R8), by lists at small batch and vectorised above it."""
    for cfg in (GameConfig(side=4, komi=3), GameConfig(side=3, scoring="quadratic"), GameConfig(side=3, game_type="double")):
        env = VecEnv(cfg)
        rng = np.random.default_rng(batch)
        state = env.reset(batch)
        env.play_out(state, rng)
        colour = rng.choice([BLACK, WHITE], batch)
        value, margin = env.outcomes(state, colour)
        for i in range(batch):
            game = env.to_game(state, i)
            me = "black" if colour[i] == BLACK else "white"
            scores = game.scores()
            assert value[i] == game.result_value(me)
            assert margin[i] == scores[me] - scores["white" if me == "black" else "black"]
