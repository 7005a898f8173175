"""Batched MCTS (catena_zero/search): value signs, PUCT and Gumbel roots, tree reuse, players.

Positions are built by playing move sequences on the reference ``Game`` and converting them with
``VecEnv.from_games``; the exact solver (tests/test_solver.py) is the oracle for good moves.
Values are for the player to move; signs flip only when the mover changes (R8 double turns
keep it, the button of R4 passes it).
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from positions import random_position

from catena_zero.config import Config, SearchConfig
from catena_zero.evalfn import Evaluation, evaluate_each
from catena_zero.game import BLACK, WHITE, Game, GameConfig
from catena_zero.game.vec import VecEnv
from catena_zero.search import (
    MCTS,
    ROOT,
    UNVISITED,
    RolloutEvaluator,
    Solver,
    SolverEvaluator,
    Tree,
    UniformEvaluator,
)
from catena_zero.eval.agents import NetAgent, UCTAgent
from catena_zero.eval.specs import make_player
from catena_zero.search.gumbel import considered_visits_schedule
from catena_zero.search.mcts import LockstepSearch, run_lockstep
from catena_zero.search.puct import dirichlet_noise
from catena_zero.search.utility import Utility, score_utility_unit
from catena_zero.search.solver import LOSS

# Positions with exactly one winning move for the player to move (found with the solver).
KOMI3 = GameConfig(side=3)
DOUBLE3 = GameConfig(side=3, game_type="double")
ONLY_WIN = [
    pytest.param(KOMI3, ["A3", "D4", "E4", "D5", "D2", "B1", "B3", "C1"], id="komi-B2"),
    # Black's second stone of a double turn (R8).
    pytest.param(DOUBLE3, ["C5", "D5", "D3", "D2", "D4", "B4", "C1", "A1"], id="double-second-stone"),
    # White's only win is the button: its half point decides (R4, R6).
    pytest.param(KOMI3, ["D4", "A2", "C4", "A1", "C5", "E3", "D3"], id="button"),
]
# "gumbel+puct": a Gumbel root with AlphaZero's PUCT below it (search.gumbel_interior).
ALGORITHMS = ["puct", "gumbel", "gumbel+puct"]



def considered_visits_sequence(max_considered: int, num_simulations: int) -> list[int]:
    """One game's row of ``considered_visits_schedule``: the visit count an action must have to be
    selected at each simulation (mctx ``seq_halving``)."""
    return considered_visits_schedule(np.array([max_considered]), np.array([num_simulations]))[0].tolist()

def search_config(algorithm: str, **fields) -> SearchConfig:
    """The SearchConfig of one of ``ALGORITHMS`` with ``fields``."""
    if algorithm == "gumbel+puct":
        return SearchConfig(algorithm="gumbel", gumbel_interior="puct", **fields)
    return SearchConfig(algorithm=algorithm, **fields)


def states(env: VecEnv, *histories: list[str]):
    return env.from_games([Game.replay(env.config, moves) for moves in histories])


def random_positions(config: GameConfig, plies: int, count: int, solver: Solver, rng) -> list[Game]:
    """Running positions after random moves where the legal moves do not all have one value."""
    found: list[Game] = []
    while len(found) < count:
        game = random_position(config, plies, rng)
        if not game.is_over and len(set(solver.solve(game).move_values.values())) > 1:
            found.append(game)
    return found


class CountingEvaluator:
    """Wraps an EvalFn and records the batch size of every call."""

    def __init__(self, inner):
        self.inner = inner
        self.batch_sizes: list[int] = []

    def __call__(self, state):
        self.batch_sizes.append(state.batch_size)
        return self.inner(state)


# --------------------------------------------------------------------------------- value signs


def test_backup_flips_sign_only_when_the_mover_changes():
    """root (Black) -1st stone-> node 1 (Black again, R8) -2nd stone-> node 2 (White)."""
    env = VecEnv(DOUBLE3)
    tree = Tree.allocate(1, 3, env.num_actions, env.reset(3))
    legal = np.ones((1, env.num_actions), bool)
    priors = legal / env.num_actions
    game = np.array([0])

    def add(parent, action, player):
        return tree.add_nodes(game, np.array([parent]), np.array([action]), np.array([player]),
                              np.array([False]), np.zeros(1), np.zeros(1), np.zeros(1), priors, legal)[0]

    add(-1, 0, BLACK)
    first = add(ROOT, 4, BLACK)
    second = add(first, 7, WHITE)
    tree.backup(game, np.array([second]), np.array([1.0]), np.array([3.0]), np.array([1.5]))  # White wins by 3
    assert tree.value_sum[0, second] == 1.0 and tree.score_sum[0, second] == 3.0
    assert tree.value_sum[0, first] == -1.0 and tree.score_sum[0, first] == -3.0
    assert tree.value_sum[0, ROOT] == -1.0  # same mover as node 1: no second flip
    assert tree.utility_sum[0, second] == 1.5 and tree.utility_sum[0, first] == -1.5
    assert tree.utility_sum[0, ROOT] == -1.5
    assert tree.child_q[0, first, 7] == -1.5 and tree.child_q[0, ROOT, 4] == -1.5
    assert tree.visits[0, [ROOT, first, second]].tolist() == [1, 1, 1]
    assert tree.children[0, ROOT, 4] == first and tree.children[0, first, 7] == second
    assert tree.children[0, ROOT, 5] == UNVISITED


def _one_exact_visit_per_root_action(config, moves):
    """(env, game, solution, mcts, out): a Gumbel search of the position after ``moves`` that
    considers every legal action and visits each once, with the solver's exact leaf values."""
    env = VecEnv(config)
    game = Game.replay(config, moves)
    solution = Solver().solve(game)
    num_legal = len(solution.move_values)
    search = SearchConfig(
        algorithm="gumbel", num_simulations=num_legal, gumbel_num_considered=num_legal, score_utility_weight=0.0
    )
    mcts = MCTS(env, SolverEvaluator(env), search)
    out = mcts.run(env.from_games([game]), np.random.default_rng(0), add_noise=False)
    return env, game, solution, mcts, out


@pytest.mark.parametrize(
    "config, moves",
    [
        pytest.param(GameConfig(side=2, game_type="double"), ["A2"], id="double-first-stone"),
        pytest.param(DOUBLE3, ["C5", "D5", "D3", "D2", "D4", "B4", "C1", "A1"], id="double-second-stone"),
        pytest.param(KOMI3, ["D4", "A2", "C4", "A1", "C5", "E3", "D3"], id="button"),
        pytest.param(KOMI3, ["A3", "D4", "E4", "D5", "D2", "B1", "B3", "C1"], id="komi"),
    ],
)
def test_root_edge_values_are_the_exact_move_values(config, moves):
    """One visit per root action with exact leaf values: each edge's Q is the solver's move value."""
    env, game, solution, mcts, out = _one_exact_visit_per_root_action(config, moves)
    num_legal = len(solution.move_values)
    legal = env.legal_actions(env.from_games([game]))[0]
    assert (out.visits[0][legal] == 1).all() and out.visits[0].sum() == num_legal
    q = mcts.tree.child_q[0, ROOT]  # win/loss only: Q is the exact value
    assert {env.spec.action_name(a): int(q[a]) for a in np.flatnonzero(legal)} == solution.move_values
    assert env.spec.action_name(out.action[0]) in solution.best_moves


@pytest.mark.parametrize("config, moves", ONLY_WIN)
def test_the_chosen_actions_value_is_its_exact_value_not_the_root_mean(config, moves):
    """With one exact visit per root action, ``action_value`` is the solver's value of the move
    played (+1: the only win), while the root mean also averages the losing moves' visits."""
    env, _, solution, _, out = _one_exact_visit_per_root_action(config, moves)
    played = env.spec.action_name(out.action[0])
    assert played in solution.best_moves
    assert out.action_value[0] == solution.move_values[played] == 1
    assert out.value[0] < 0.5  # the root mean: its own evaluation and every losing move's visit


# --------------------------------------------------------------------------- playing strength


@pytest.mark.parametrize("algorithm", ALGORITHMS)
@pytest.mark.parametrize("config, moves", ONLY_WIN)
def test_plays_the_only_winning_move_with_rollouts(algorithm, config, moves):
    """Every other move loses: finding the win is avoiding the forced losses (classic UCT evaluator)."""
    env = VecEnv(config)
    rng = np.random.default_rng(1)
    mcts = MCTS(env, RolloutEvaluator(env, rng, num_rollouts=4), search_config(algorithm, num_simulations=64))
    out = mcts.run(states(env, moves), rng, add_noise=False)
    solution = Solver().solve(Game.replay(config, moves))
    assert solution.best_moves == (env.spec.action_name(out.action[0]),)
    a = out.action[0]
    assert mcts.tree.child_q[0, ROOT, a] > 0  # the search sees it winning


def test_avoids_the_losing_button_on_the_empty_side2_board():
    """Side 2, komi 0: every cell wins for Black, taking the button loses (R4, R6)."""
    config = GameConfig(side=2)
    assert Solver().solve(Game(config)).move_values["button"] == LOSS
    env = VecEnv(config)
    rng = np.random.default_rng(2)
    for algorithm in ALGORITHMS:
        search = search_config(algorithm, num_simulations=32)
        mcts = MCTS(env, RolloutEvaluator(env, rng, num_rollouts=2), search)
        out = mcts.run(env.reset(8), rng, add_noise=False)
        assert (out.action != env.spec.button_action).all()


@pytest.mark.parametrize("algorithm", ALGORITHMS)
@pytest.mark.parametrize(
    "config, plies, rollouts",
    [
        (GameConfig(side=2), 2, True),
        (GameConfig(side=2, game_type="double"), 1, True),
        (GameConfig(side=2, scoring="longest"), 2, True),
        (KOMI3, 8, True),
        (DOUBLE3, 8, True),
        # Six stones in, random playouts misjudge these too often for 64 simulations: exact only.
        (GameConfig(side=3, komi=3), 6, False),
    ],
    ids=["side2-komi", "side2-double", "side2-longest", "side3-komi", "side3-double", "side3-komi3"],
)
def test_choices_are_among_the_solver_optimal_moves(algorithm, config, plies, rollouts):
    """A batch of different positions searched together, with exact and with rollout leaf values."""
    rng = np.random.default_rng(3)
    solver = Solver()
    env = VecEnv(config)
    games = random_positions(config, plies, 8, solver, rng)
    evaluators = [SolverEvaluator(env, solver)] + ([RolloutEvaluator(env, rng, num_rollouts=4)] if rollouts else [])
    for evaluator in evaluators:
        mcts = MCTS(env, evaluator, search_config(algorithm, num_simulations=64))
        out = mcts.run(env.from_games(games), rng, add_noise=False)
        for game, action in zip(games, out.action):
            assert env.spec.action_name(action) in solver.solve(game).best_moves, (type(evaluator).__name__, game.history)


# ---------------------------------------------------------------------------------- mechanics


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_one_evaluation_per_simulation_for_the_whole_batch(algorithm):
    env = VecEnv(GameConfig(side=6))
    counter = CountingEvaluator(UniformEvaluator(env))
    out = MCTS(env, counter, search_config(algorithm, num_simulations=16)).run(
        env.reset(5), np.random.default_rng(0), add_noise=True
    )
    assert counter.batch_sizes == [5] * 17  # the roots, then one call per simulation
    assert (out.visits.sum(axis=1) == 16).all()
    np.testing.assert_allclose(out.policy.sum(axis=1), 1.0, rtol=1e-5)


def test_terminal_leaves_use_the_exact_result_not_the_evaluator():
    """An evaluator that always says 'win' must not hide a game's real end (side 2: few moves)."""

    class Liar(UniformEvaluator):
        def __call__(self, state):
            evaluation = super().__call__(state)
            return dataclasses.replace(evaluation, value=np.ones(state.batch_size, np.float32))

    config = GameConfig(side=2, game_type="double")
    env = VecEnv(config)
    moves = ["A2"]
    mcts = MCTS(env, Liar(env), SearchConfig(algorithm="puct", num_simulations=400))
    mcts.run(states(env, moves), np.random.default_rng(0), add_noise=False)
    tree = mcts.tree
    ended = tree.terminal[0, : tree.num_nodes[0]]
    assert ended.any()
    for node in np.flatnonzero(ended):
        game = env.to_game(tree.states, tree.slot(np.array([0]), np.array([node]))[0])
        assert tree.raw_value[0, node] == game.result_value(game.to_move)


def all_outcomes(game: Game, mover: str) -> set[tuple[float, float]]:
    """(result, score margin) for ``mover`` over every way the game can go on."""
    if game.is_over:
        scores = game.scores()
        other = "white" if mover == "black" else "black"
        return {(game.result_value(mover), scores[mover] - scores[other])}
    outcomes = set()
    for move in game.legal_moves():
        child = game.copy()
        child.play(move)
        outcomes |= all_outcomes(child, mover)
    return outcomes


def test_rollout_values_are_for_the_player_to_move():
    """Positions whose every continuation ends the same way: rollouts must report that result and
    margin, from the side to move (both colours, and in double also between a turn's two stones)."""
    rng = np.random.default_rng(10)
    for config in [GameConfig(side=2), GameConfig(side=2, game_type="double"), GameConfig(side=2, komi=1)]:
        env = VecEnv(config)
        decided: list[tuple[Game, tuple[float, float]]] = []
        for _ in range(200):
            game = Game(config)
            for _ in range(int(rng.integers(2, 7))):
                if not game.is_over:
                    game.play(game.legal_moves()[int(rng.integers(len(game.legal_moves())))])
            outcomes = set() if game.is_over else all_outcomes(game, game.to_move)
            if len(outcomes) == 1:
                decided.append((game, outcomes.pop()))
        assert {value for _, (value, _) in decided} == {-1.0, 1.0}  # wins and losses both tested
        evaluation = RolloutEvaluator(env, rng, num_rollouts=3)(env.from_games([g for g, _ in decided]))
        assert evaluation.value.tolist() == [value for _, (value, _) in decided]
        np.testing.assert_allclose(evaluation.score, [margin for _, (_, margin) in decided])


def test_finished_games_cannot_be_searched():
    env = VecEnv(GameConfig(side=2))
    over = Game(GameConfig(side=2))
    while not over.is_over:
        over.play(over.legal_moves()[0])
    mcts = MCTS(env, UniformEvaluator(env), SearchConfig(num_simulations=4))
    with pytest.raises(ValueError, match="finished games"):
        mcts.run(env.from_games([Game(GameConfig(side=2)), over]), np.random.default_rng(0), add_noise=False)


def test_evaluations_of_the_wrong_shape_are_rejected():
    env = VecEnv(GameConfig(side=2))

    def one_value_short(state):
        evaluation = UniformEvaluator(env)(state)
        return dataclasses.replace(evaluation, value=evaluation.value[:-1])

    mcts = MCTS(env, one_value_short, SearchConfig(num_simulations=4))
    with pytest.raises(ValueError, match="evaluation function returned"):
        mcts.run(env.reset(2), np.random.default_rng(0), add_noise=False)


def test_dirichlet_noise_is_a_distribution_over_the_legal_actions():
    rng = np.random.default_rng(0)
    legal = np.zeros((3, 10), bool)
    legal[:, :6] = True
    legal[1, 0] = False
    priors = legal / legal.sum(axis=1, keepdims=True)
    noised = dirichlet_noise(priors, legal, SearchConfig(), rng)
    np.testing.assert_allclose(noised.sum(axis=1), 1.0, rtol=1e-5)
    assert (noised[~legal] == 0).all() and not np.allclose(noised, priors)
    assert (noised[legal] >= 0.75 * priors[legal] - 1e-7).all()  # 25% mixing (AlphaZero)


def test_puct_samples_moves_in_self_play_only():
    """Temperature sampling in the opening with noise; the most visited move without (an evaluator
    without ties, so that every seed gives the same most visited move)."""
    env = VecEnv(GameConfig(side=6))
    config = SearchConfig(algorithm="puct", num_simulations=32, tree_reuse=False)
    mcts = MCTS(env, HashedEvaluator(env), config)
    chosen = {int(mcts.run(env.reset(1), np.random.default_rng(seed), add_noise=True).action[0]) for seed in range(6)}
    assert len(chosen) > 1
    greedy = [mcts.run(env.reset(1), np.random.default_rng(seed), add_noise=False) for seed in range(3)]
    for out in greedy:
        assert out.action[0] == greedy[0].action[0] and out.visits[0, out.action[0]] == out.visits[0].max()
        np.testing.assert_allclose(out.policy[0], out.visits[0] / out.visits[0].sum(), rtol=1e-6)


# ---------------------------------------------------------------------------------- random ties


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_equal_priors_are_tied_at_random_and_the_seed_decides(algorithm):
    """Uniform priors, no noise, side 4 (38 actions). Gumbel considers 16 of them: before, always the
    first 16 in index order, so the centre D4 was never visited. Now each game's considered set is
    a uniform random subset: over 400 games every action is considered in about 16/38 of them.
    PUCT's first visits and its final choice among equally visited moves are random too; the
    same seed gives the same search."""
    env = VecEnv(GameConfig(side=4))
    config = search_config(algorithm, num_simulations=16, tree_reuse=False)
    mcts = MCTS(env, UniformEvaluator(env), config)
    out = mcts.run(env.reset(400), np.random.default_rng(14), add_noise=False)
    visited = (out.visits > 0).mean(axis=0)  # [A] share of the games that visited each action
    assert visited.min() > 0.2 and visited.max() < 0.65  # binomial(400, 16/38): mean 0.42, sd 0.025
    assert visited[env.spec.cell("D4")] > 0.2
    chosen = np.bincount(out.action, minlength=env.num_actions)
    assert (chosen > 0).sum() > 30  # the moves themselves vary from game to game
    again = mcts.run(env.reset(400), np.random.default_rng(14), add_noise=False)
    np.testing.assert_array_equal(again.action, out.action)
    np.testing.assert_array_equal(again.visits, out.visits)


# -------------------------------------------------------------------------------------- Gumbel


def test_sequential_halving_schedule():
    """mctx's schedule, worked by hand: 4 actions once each, then the best 2 twice more each."""
    assert considered_visits_sequence(4, 8) == [0, 0, 0, 0, 1, 1, 2, 2]
    assert considered_visits_sequence(1, 3) == [0, 1, 2]


@pytest.mark.parametrize("simulations, considered", [(8, 4), (8, 16), (32, 16), (50, 8), (32, 2)])
def test_sequential_halving_visits_add_up(simulations, considered):
    env = VecEnv(GameConfig(side=6))
    config = SearchConfig(num_simulations=simulations, gumbel_num_considered=considered)
    out = MCTS(env, UniformEvaluator(env), config).run(env.reset(3), np.random.default_rng(0), add_noise=True)
    assert (out.visits.sum(axis=1) == simulations).all()
    # Each occurrence of v in the schedule takes one action from v to v + 1 visits, so the
    # number of actions with more than v visits is how often v occurs.
    sequence = considered_visits_sequence(considered, simulations)
    counts = range(max(sequence) + 1)
    for row in out.visits:
        assert [(row > v).sum() for v in counts] == [sequence.count(v) for v in counts]


@pytest.mark.parametrize("config, moves", ONLY_WIN[:2])
def test_gumbel_policy_improves_on_the_prior_with_few_simulations(config, moves):
    env = VecEnv(config)
    rng = np.random.default_rng(4)
    win = Game.replay(config, moves)
    best = Solver().solve(win).best_moves[0]
    action = env.spec.button_action if best == "button" else env.spec.cell(best)
    for simulations in (8, 16):
        mcts = MCTS(env, RolloutEvaluator(env, rng, num_rollouts=8), SearchConfig(num_simulations=simulations))
        out = mcts.run(states(env, moves), rng, add_noise=True)
        prior = 1.0 / len(win.legal_moves())  # uniform priors
        assert out.policy[0, action] > prior
        assert out.visits[0].sum() == simulations


# ------------------------------------------------------------------------------ score utility


def test_score_utility_by_hand():
    """u = v + w (2/pi) arctan(s / (scale * unit)): half the weight at s = scale * unit, where
    unit = sqrt(cells) (91 cells on side 6), or cells under quadratic scoring; odd in s."""
    side6 = Utility(0.1, 2.0, GameConfig(side=6))
    assert score_utility_unit(GameConfig(side=6)) == pytest.approx(91**0.5)
    assert score_utility_unit(GameConfig(side=6, scoring="quadratic")) == 91.0
    points = 2.0 * 91**0.5
    np.testing.assert_allclose(side6(np.array([1.0, -1.0, 0.0]), np.array([points, -points, 0.0])), [1.05, -1.05, 0.0], rtol=1e-6)
    huge = side6(np.array([1.0]), np.array([1e9]))[0]
    assert 1.0999 < huge <= 1.1  # the score term never exceeds the weight
    assert Utility(0.0, 2.0, GameConfig(side=6))(np.array([0.5]), np.array([30.0]))[0] == 0.5


# Side 3, komi 0, White to move: C4 and D5 both end the game in White's favour, by 2.5 and 6.5.
TWO_WINS = ["B3", "E5", "D3", "E4", "A3", "D2", "button", "A1", "C1", "C5", "B1"]


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_with_score_utility_the_search_takes_the_bigger_win(algorithm):
    env = VecEnv(KOMI3)
    game = Game.replay(KOMI3, TWO_WINS)
    outcomes = {}
    for move in game.legal_moves():
        child = game.copy()
        child.play(move)
        scores = child.scores()
        outcomes[move] = (child.is_over, child.result_value(game.to_move), scores["white"] - scores["black"])
    assert outcomes == {"C4": (True, 1.0, 2.5), "D5": (True, 1.0, 6.5)}
    c4, d5 = env.spec.cell("C4"), env.spec.cell("D5")
    rng = np.random.default_rng(13)
    for weight in (0.0, 0.1):
        config = search_config(algorithm, num_simulations=8, score_utility_weight=weight)
        mcts = MCTS(env, UniformEvaluator(env), config)
        out = mcts.run(states(env, TWO_WINS), rng, add_noise=False)
        q = mcts.tree.child_q[0, ROOT]
        assert out.value[0] == pytest.approx(1.0 * (out.visits[0].sum()) / (out.visits[0].sum() + 1))  # win value
        if weight == 0.0:
            assert q[c4] == q[d5] == 1.0  # the win value alone cannot tell them apart
        else:
            assert q[d5] > q[c4] > 1.0
            assert out.action[0] == d5


def test_score_utility_steers_search_by_the_evaluators_score():
    """Every reply loses for the opponent (value -1) by an evaluator margin that is largest after
    the centre cell: with score utility the Gumbel search plays the centre."""
    env = VecEnv(GameConfig(side=4))
    centre = env.spec.cell("D4")
    margin = np.arange(env.num_actions) % 7
    margin[centre] = 20

    class Margins(UniformEvaluator):
        def __call__(self, state):
            evaluation = super().__call__(state)
            last = state.history[np.arange(state.batch_size), np.maximum(state.move_number - 1, 0)]
            started = state.move_number > 0
            return dataclasses.replace(
                evaluation,
                value=np.where(started, -1.0, 0.0).astype(np.float32),
                score=np.where(started, -margin[last], 0.0).astype(np.float32),  # the child's mover loses by it
            )

    legal = env.num_actions  # every action is legal on the empty komi board, the button included
    config = SearchConfig(num_simulations=2 * legal, gumbel_num_considered=legal)
    out = MCTS(env, Margins(env), config).run(env.reset(1), np.random.default_rng(0), add_noise=False)
    assert out.action[0] == centre


# -------------------------------------------------------------------------- per-call budgets


class HashedEvaluator:
    """A deterministic evaluator without ties: priors and values are fixed functions of the position
    (random weights drawn once), so searches of the same position agree wherever they run."""

    def __init__(self, env: VecEnv, seed: int = 0):
        weights = np.random.default_rng(seed)
        self.env = env
        self.policy_weights = weights.normal(size=(3, env.num_actions))  # per colour code to move
        self.value_weights = weights.normal(size=(3, env.spec.num_cells)) / 4

    def __call__(self, state):
        legal = self.env.legal_actions(state)
        board, mover = state.board, state.to_move.astype(np.int64)
        logits = self.policy_weights[mover] + 0.1 * np.pad(board, ((0, 0), (0, 1)))
        priors = np.where(legal, np.exp(logits), 0.0)
        priors /= np.maximum(priors.sum(axis=1, keepdims=True), 1e-30)
        value = np.tanh((self.value_weights[board.astype(np.int64), np.arange(board.shape[1])]).sum(axis=1))
        return Evaluation(priors=priors.astype(np.float32), value=value.astype(np.float32),
                          score=(10 * value).astype(np.float32))


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_per_game_budgets_in_one_call_equal_separate_searches(algorithm):
    """Games with budgets 5, 24 and 60 searched in one call get exactly what each gets alone."""
    env = VecEnv(GameConfig(side=4))
    rng = np.random.default_rng(11)
    games = [random_position(env.config, plies, rng) for plies in (0, 3, 6)]
    budget = np.array([5, 24, 60])
    config = search_config(algorithm, num_simulations=8, tree_reuse=False)
    counter = CountingEvaluator(HashedEvaluator(env))
    together = MCTS(env, counter, config).run(env.from_games(games), rng, add_noise=False, num_simulations=budget)
    assert (together.visits.sum(axis=1) == budget).all()
    # The roots, then one call per simulation round over the games whose budget is not spent.
    assert counter.batch_sizes == [3] * 6 + [2] * 19 + [1] * 36
    for i, game in enumerate(games):
        alone = MCTS(env, HashedEvaluator(env), config).run(
            env.from_games([game]), rng, add_noise=False, num_simulations=int(budget[i])
        )
        assert alone.action[0] == together.action[i]
        np.testing.assert_array_equal(alone.visits[0], together.visits[i])
        np.testing.assert_allclose(alone.policy[0], together.policy[i], rtol=1e-5, atol=1e-7)
        np.testing.assert_allclose(alone.value[0], together.value[i], rtol=1e-5)


def test_gumbel_follows_the_halving_schedule_of_each_games_budget():
    env = VecEnv(GameConfig(side=6))
    budget = np.array([8, 20, 50, 33])
    config = SearchConfig(num_simulations=16, gumbel_num_considered=8)
    out = MCTS(env, UniformEvaluator(env), config).run(
        env.reset(4), np.random.default_rng(0), add_noise=True, num_simulations=budget
    )
    for row, simulations in zip(out.visits, budget):
        sequence = considered_visits_sequence(8, int(simulations))
        counts = range(max(sequence) + 1)
        assert [(row > v).sum() for v in counts] == [sequence.count(v) for v in counts]


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_the_tree_grows_for_a_larger_budget(algorithm):
    """A search configured for 8 simulations takes 100, then 300 on the kept tree: no 'tree is full'."""
    env = VecEnv(GameConfig(side=4))
    mcts = MCTS(env, UniformEvaluator(env), search_config(algorithm, num_simulations=8, tree_reuse=True))
    rng = np.random.default_rng(12)
    state = env.reset(2)
    first = mcts.run(state, rng, add_noise=True, num_simulations=100)
    assert (first.visits.sum(axis=1) == 100).all() and mcts.tree.capacity >= 101
    kept = mcts.tree.visits[:, ROOT].copy()
    second = mcts.run(state, rng, add_noise=True, num_simulations=np.array([300, 3]))
    assert mcts.tree.visits[:, ROOT].tolist() == (kept + [300, 3]).tolist()  # the whole tree was kept
    assert second.visits.sum(axis=1).tolist() == (kept - 1 + [300, 3]).tolist()
    assert_tree_consistent(env, mcts.tree)
    env.step(state, second.action)
    mcts.run(state, rng, add_noise=True, num_simulations=500)
    assert_tree_consistent(env, mcts.tree)


@pytest.mark.parametrize("bad", [0, np.array([4, 0]), np.array([4, 4, 4]), 2.5, np.array([1.0, 2.0])])
def test_bad_budgets_are_rejected(bad):
    env = VecEnv(GameConfig(side=3))
    with pytest.raises(ValueError, match="num_simulations"):
        MCTS(env, UniformEvaluator(env), SearchConfig()).run(
            env.reset(2), np.random.default_rng(0), add_noise=False, num_simulations=bad
        )


class FakeClock:
    """Stands in for the ``time`` module in search/mcts.py: every reading advances by ``tick`` s."""

    def __init__(self, tick: float):
        self.now, self.tick = 0.0, tick

    def perf_counter(self) -> float:
        self.now += self.tick
        return self.now


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_a_time_limit_stops_the_search(algorithm, monkeypatch):
    """With a clock that reads 10 ms more at every look (at the start, when the simulations start,
    and once per simulation), a 1 s limit on a budget of a million gives 98-99 simulations per game
    (the look when the simulations start costs a tick; float ticks decide the last one). Gumbel fixes its budget after its 4 warm-up
    simulations and follows the halving schedule of exactly that budget."""
    import catena_zero.search.mcts as mcts_module

    monkeypatch.setattr(mcts_module, "time", FakeClock(0.01))
    env = VecEnv(GameConfig(side=4))
    mcts = MCTS(env, UniformEvaluator(env), search_config(algorithm, gumbel_num_considered=4))
    state = env.reset(2)
    out = mcts.run(state, np.random.default_rng(0), add_noise=True, num_simulations=1_000_000, seconds=1.0)
    total = out.visits.sum(axis=1)
    assert total[0] == total[1] and 98 <= total[0] <= 99, total
    assert mcts.tree.capacity < 1000  # sized for what was searched, not for the maximum
    if algorithm != "puct":  # the root follows the halving schedule whatever selects below it
        sequence = considered_visits_sequence(4, int(total[0]))
        for row in out.visits:
            assert [(row > v).sum() for v in range(max(sequence) + 1)] == [
                sequence.count(v) for v in range(max(sequence) + 1)
            ]
    # A smaller budget than the time allows is kept.
    mcts.reset()
    out = mcts.run(state, np.random.default_rng(0), add_noise=True, num_simulations=np.array([7, 30]), seconds=1.0)
    assert out.visits.sum(axis=1).tolist() == [7, 30]
    with pytest.raises(ValueError, match="seconds"):
        mcts.run(state, np.random.default_rng(0), add_noise=True, seconds=0)


def test_a_time_limit_holds_on_the_real_clock():
    import time

    env = VecEnv(GameConfig(side=4))
    mcts = MCTS(env, UniformEvaluator(env), SearchConfig())
    start = time.perf_counter()
    out = mcts.run(env.reset(1), np.random.default_rng(0), add_noise=False, num_simulations=10**7, seconds=0.2)
    assert time.perf_counter() - start < 3.0 and 1 <= out.visits.sum() < 10**7


# ---------------------------------------------------------------------------- lockstep searches


def lockstep_cases():
    """(env, search config, state, budget) of three searches with different rules and budgets."""
    cases = []
    for config, search, plies, budget in [
        (GameConfig(side=4), SearchConfig(num_simulations=12, tree_reuse=True), 3, np.array([12, 30])),
        (GameConfig(side=3, game_type="double", scoring="quadratic"), SearchConfig(algorithm="puct", tree_reuse=True), 2, 20),
        (GameConfig(side=5, game_type="no_komi", scoring="longest"), SearchConfig(num_simulations=6), 4, None),
    ]:
        env = VecEnv(config)
        rng = np.random.default_rng(plies)
        games = [random_position(config, plies, rng) for _ in range(2 if budget is not None else 3)]
        cases.append((env, search, env.from_games(games), budget))
    return cases


def test_lockstep_searches_share_one_evaluation_call_per_round_and_equal_separate_runs():
    """Three searches (other sides, game types, scorings, algorithms and budgets; rollout values)
    run in lockstep: ONE evaluate_many call per round carries every unfinished search's request, and
    every search's output equals its separate run with the same rngs; twice, the second time on
    the kept trees."""
    cases = lockstep_cases()

    def evaluators():  # fresh rollout evaluators with fixed seeds: the same draws in both runs
        return [RolloutEvaluator(env, np.random.default_rng(100 + i)) for i, (env, *_) in enumerate(cases)]

    separate_mcts = [MCTS(env, None, search) for env, search, _, _ in cases]
    lockstep_mcts = [MCTS(env, None, search) for env, search, _, _ in cases]
    for round_ in range(2):
        separate, calls = [], []
        for i, (mcts, evaluator, (env, search, state, budget)) in enumerate(zip(separate_mcts, evaluators(), cases)):
            counter = CountingEvaluator(evaluator)
            mcts.eval_fn = counter
            separate.append(mcts.run(state, np.random.default_rng(i + 10 * round_), add_noise=True, num_simulations=budget))
            calls.append(len(counter.batch_sizes))
        requests_per_call: list[list[int]] = []
        batch_eval = evaluate_each({env: fn for (env, *_), fn in zip(cases, evaluators())})

        def evaluate_many(requests):
            requests_per_call.append([cases_index(env) for env, _ in requests])
            return batch_eval(requests)

        def cases_index(env):
            return next(i for i, case in enumerate(cases) if case[0] is env)

        outputs = run_lockstep(
            [
                LockstepSearch(mcts, state, np.random.default_rng(i + 10 * round_), add_noise=True, num_simulations=budget)
                for i, (mcts, (env, search, state, budget)) in enumerate(zip(lockstep_mcts, cases))
            ],
            evaluate_many,
        )
        assert len(requests_per_call) == max(calls)  # one call per round, as many as the longest search
        assert [sum(i in call for call in requests_per_call) for i in range(3)] == calls
        assert all(len(set(call)) == len(call) for call in requests_per_call)
        for alone, together in zip(separate, outputs):
            for field in ("action", "policy", "value", "score", "visits"):
                np.testing.assert_array_equal(getattr(alone, field), getattr(together, field), err_msg=field)
        for (env, _, state, _), out in zip(cases, outputs):  # play on; the next round reuses the trees
            env.step(state, out.action)
            assert not state.done.any()  # (these positions are far from their ends)


def test_lockstep_rejects_a_shared_mcts_and_a_wrong_number_of_evaluations():
    env = VecEnv(GameConfig(side=3))
    mcts = MCTS(env, None, SearchConfig(num_simulations=4))
    with pytest.raises(ValueError, match="own MCTS"):
        run_lockstep([LockstepSearch(mcts, env.reset(1), np.random.default_rng(0), False)] * 2, lambda r: [])
    with pytest.raises(ValueError, match="1 requests"):
        run_lockstep([LockstepSearch(mcts, env.reset(1), np.random.default_rng(0), False)], lambda r: [])
    with pytest.raises(ValueError, match="no evaluation function"):
        mcts.run(env.reset(1), np.random.default_rng(0), add_noise=False)


# ------------------------------------------------------------------------- single-game search


@pytest.mark.parametrize("algorithm", ALGORITHMS)
@pytest.mark.parametrize("config", [GameConfig(side=5, game_type="double"), GameConfig(side=4, scoring="longest")],
                         ids=["double", "longest"])
def test_single_game_fast_path_builds_exactly_the_batched_tree(algorithm, config, monkeypatch):
    """A batch of one game takes ``_simulate_one`` (Python ints, row views, a Python backup): over a
    game's moves with noise, tree reuse, rollouts and score utility, its outputs and trees are
    exactly those of the batched ``_simulate`` on the same game."""

    def play(batched: bool):
        env = VecEnv(config)
        mcts = MCTS(env, RolloutEvaluator(env, np.random.default_rng(1)),
                    search_config(algorithm, num_simulations=40, tree_reuse=True))
        if batched:
            monkeypatch.setattr(mcts, "_simulate_one", lambda tree, policy, simulation: mcts._simulate(tree, policy, simulation, None))
        rng, state, outputs, trees = np.random.default_rng(2), env.reset(1), [], []
        for _ in range(6):
            out = mcts.run(state, rng, add_noise=True, num_simulations=40 + 7 * len(outputs))
            outputs.append(out)
            count = mcts.tree.num_nodes[0]
            trees.append({name: getattr(mcts.tree, name)[0, :count].copy() for name in (
                "parent", "action", "player", "terminal", "visits", "value_sum", "score_sum", "utility_sum",
                "raw_utility", "children", "child_visits", "child_q", "priors", "legal")})
            env.step(state, out.action)
        return outputs, trees

    fast, slow = play(False), play(True)
    for out_fast, out_slow in zip(fast[0], slow[0]):
        for field in ("action", "policy", "value", "score", "visits"):
            np.testing.assert_array_equal(getattr(out_fast, field), getattr(out_slow, field), err_msg=field)
    for tree_fast, tree_slow in zip(fast[1], slow[1]):
        for name in tree_fast:
            np.testing.assert_array_equal(tree_fast[name], tree_slow[name], err_msg=name)


# ----------------------------------------------------------------------------------- tree reuse


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_tree_reuse_keeps_the_subtree_statistics(algorithm):
    env = VecEnv(GameConfig(side=4))
    config = search_config(algorithm, num_simulations=48, tree_reuse=True)
    mcts = MCTS(env, UniformEvaluator(env), config)
    rng = np.random.default_rng(5)
    state = env.reset(3)
    first = mcts.run(state, rng, add_noise=False)
    old = mcts.tree
    games = np.arange(3)
    child = old.children[games, ROOT, first.action]
    kept_visits = old.visits[games, child]
    kept_value = old.value_sum[games, child]
    kept_edges = old.child_visits[games, child]  # [3, A]
    grandchild = old.children[games, child, kept_edges.argmax(axis=1)]
    grandchild_visits = old.visits[games, grandchild]  # a copy: the next search re-roots in place

    env.step(state, first.action)
    second = mcts.run(state, rng, add_noise=False)
    tree = mcts.tree
    new_child = tree.children[games, ROOT, kept_edges.argmax(axis=1)]
    assert (tree.visits[games, ROOT] == kept_visits + 48).all()
    assert (second.visits.sum(axis=1) == kept_edges.sum(axis=1) + 48).all()
    assert (second.visits >= kept_edges).all()
    # The kept statistics are the old ones plus this search's visits through them.
    assert (new_child != UNVISITED).all()
    assert (tree.visits[games, new_child] >= grandchild_visits).all()
    assert np.isfinite(kept_value).all()


def test_tree_reuse_follows_the_moves_played_and_ignores_other_games():
    """Slot 0 continues its game by two moves (own move, reply): the subtree two levels down is
    kept. Slot 1 gets a game that never passed through its old root: it starts afresh."""
    env = VecEnv(GameConfig(side=4))
    mcts = MCTS(env, UniformEvaluator(env), SearchConfig(algorithm="puct", num_simulations=64, tree_reuse=True))
    rng = np.random.default_rng(6)
    state = states(env, ["A1"], ["A1"])
    first = mcts.run(state, rng, add_noise=False)
    old = mcts.tree
    games = np.arange(2)
    child = old.children[games, ROOT, first.action]
    reply = old.child_visits[games, child].argmax(axis=1)  # the most searched reply
    grandchild = old.children[games, child, reply]
    assert (old.visits[games, grandchild] > 0).all()
    env.step(state, first.action)
    env.step(state, reply)
    env.put(state, np.array([1]), states(env, ["B2", "A1"]))
    second = mcts.run(state, rng, add_noise=False)
    assert mcts.tree.visits[0, ROOT] == old.visits[0, grandchild[0]] + 64
    assert second.visits[0].sum() == old.child_visits[0, grandchild[0]].sum() + 64
    assert mcts.tree.visits[1, ROOT] == 65  # fresh root: its own evaluation plus 64 simulations
    assert second.visits[1].sum() == 64


def assert_tree_consistent(env: VecEnv, tree: Tree, games=None) -> None:
    """Every node's stored state is its parent's after its action, and the statistics add up:
    N(s) = 1 + sum_a N(s, a) (the node's own evaluation is its first visit), each edge's visits
    and Q (mean utility) are its child's, seen by the parent's mover (sign flipped iff the mover
    changes)."""
    for b in range(tree.batch_size) if games is None else games:
        count = tree.num_nodes[b]
        slots = tree.slot(np.full(count, b), np.arange(count))
        nodes = env.take(tree.states, slots)
        history, moves = nodes.history, nodes.move_number
        assert (tree.player[b, :count] == nodes.to_move).all()
        assert (tree.terminal[b, :count] == nodes.done).all()
        for n in range(1, count):
            p, a = tree.parent[b, n], tree.action[b, n]
            assert 0 <= p < n and tree.children[b, p, a] == n
            assert moves[n] == moves[p] + 1 and history[n, moves[p]] == a
            assert (history[n, : moves[p]] == history[p, : moves[p]]).all()
            assert tree.child_visits[b, p, a] == tree.visits[b, n]
            sign = 1.0 if tree.player[b, p] == tree.player[b, n] else -1.0
            np.testing.assert_allclose(
                tree.child_q[b, p, a], sign * tree.utility_sum[b, n] / tree.visits[b, n], atol=1e-5
            )
        running = ~tree.terminal[b, :count]
        assert (tree.visits[b, :count][running] == 1 + tree.child_visits[b, :count][running].sum(axis=1)).all()


@pytest.fixture
def garbage_filled_trees(monkeypatch):
    """Fill new trees with garbage (NaN, huge indices, True): rows of nodes that do not exist yet
    must never be read, since trees are allocated with np.empty and never cleared."""
    allocate = Tree.allocate.__func__

    def allocate_garbage(cls, *args):
        tree = allocate(cls, *args)
        for name, array in vars(tree).items():
            if isinstance(array, np.ndarray) and name != "num_nodes":
                if array.dtype == bool:
                    array[...] = True
                elif np.issubdtype(array.dtype, np.floating):
                    array[...] = np.nan
                else:
                    array[...] = np.iinfo(array.dtype).max
        return tree

    monkeypatch.setattr(Tree, "allocate", classmethod(allocate_garbage))


@pytest.mark.parametrize("algorithm", ALGORITHMS)
@pytest.mark.parametrize("config", [GameConfig(side=3), DOUBLE3], ids=["komi", "double"])
def test_trees_stay_consistent_over_a_game_with_reuse(algorithm, config, garbage_filled_trees):
    """Search, play the chosen move, search again (reusing the subtree) until the games end."""
    env = VecEnv(config)
    rng = np.random.default_rng(8)
    mcts = MCTS(env, RolloutEvaluator(env, rng), search_config(algorithm, num_simulations=24, tree_reuse=True))
    state = env.reset(8)
    while not state.done.all():
        # Search the running games; the batch keeps its size (and its trees) while it can.
        running = np.flatnonzero(~state.done)
        if running.size < state.batch_size:
            state = env.take(state, running)
        out = mcts.run(state, rng, add_noise=True)
        assert_tree_consistent(env, mcts.tree)
        assert (out.visits.sum(axis=1) >= 24).all()
        env.step(state, out.action)


def test_reuse_across_games_with_trees_of_very_different_sizes(garbage_filled_trees):
    """Searching the same positions again keeps each whole tree: a big one (an open board) next
    to a tiny one (a game one move from its end, whose simulations revisit terminal nodes)."""
    env = VecEnv(KOMI3)
    rng = np.random.default_rng(9)
    endgame = Game(KOMI3)
    while len(endgame.legal_moves()) > 2 or "button" in endgame.legal_moves():
        endgame.play(endgame.legal_moves()[int(rng.integers(len(endgame.legal_moves())))])
    assert not endgame.is_over
    state = env.from_games([Game(KOMI3), endgame])
    mcts = MCTS(env, UniformEvaluator(env), SearchConfig(algorithm="puct", num_simulations=16, tree_reuse=True))
    mcts.run(state, rng, add_noise=False)
    sizes = mcts.tree.num_nodes.copy()
    assert sizes[0] == 17 and sizes[1] < 8
    mcts.run(state, rng, add_noise=False)
    # Both roots were kept (1 + 16 visits) and got 16 more; the small tree was kept whole. (The big
    # one kept its first 16 nodes, the most a search of 16 simulations keeps: see tree.reroot.)
    assert mcts.tree.visits[:, ROOT].tolist() == [33, 33]
    assert mcts.tree.num_nodes[1] >= sizes[1]
    assert_tree_consistent(env, mcts.tree, games=[1])


def test_without_tree_reuse_every_search_starts_fresh():
    env = VecEnv(GameConfig(side=4))
    mcts = MCTS(env, UniformEvaluator(env), SearchConfig(num_simulations=16, tree_reuse=False))
    state = env.reset(2)
    first = mcts.run(state, np.random.default_rng(0), add_noise=False)
    env.step(state, first.action)
    second = mcts.run(state, np.random.default_rng(0), add_noise=False)
    assert (second.visits.sum(axis=1) == 16).all() and (mcts.tree.visits[:, ROOT] == 17).all()


# -------------------------------------------------------------------------------------- players


def test_mcts_player_plays_the_winning_move_with_a_fresh_search_each_move():
    """``mcts:K`` for one game is the arena's UCT agent at batch size one: K simulations on a fresh
    tree every move (the baseline's one meaning); with tree reuse asked for, the subtree is kept."""
    start = ["A3", "D4", "E4", "D5", "D2", "B1", "B3", "C1"]
    fresh = make_player("mcts:64", Config(game=KOMI3, seed=7))
    reusing = UCTAgent(64, tree_reuse=True)  # an agent is a player at batch size one
    for player in (fresh, reusing):
        game = Game.replay(KOMI3, start)
        rng = np.random.default_rng(0)
        assert player.choose(game, rng) == "B2"
        game.play("B2")
        game.play(game.legal_moves()[0])
        if not game.is_over:
            assert player.choose(game, rng) in game.legal_moves()
            (search,) = player.searcher(player.env_for(KOMI3)).searches.values()  # the one of Black's moves
            root_visits = search.tree.visits[0, ROOT]
            # A fresh root has 1 + 64 visits; a kept subtree adds those the previous search spent there.
            assert root_visits == 65 if player is fresh else root_visits > 65


def test_player_kinds_reject_bad_arguments():
    with pytest.raises(ValueError, match="mcts:200"):
        make_player("mcts:many", Config())
    with pytest.raises(ValueError, match="mcts:200"):
        make_player("mcts", Config())
    # An untrained network is refused, with how to get trained weights.
    for text in ("net", "net:"):
        with pytest.raises(ValueError, match="needs trained weights: write net:FILE with a training checkpoint"):
            make_player(text, Config())
    with pytest.raises(ValueError, match="net:x: no such file; .*catena-zero export"):
        make_player("net:x", Config())


def test_net_player_plays_a_checkpoint_and_estimates_the_komi(tmp_path):
    from catena_zero.config import NetConfig
    from catena_zero.net import NetEvaluator, model_from_config
    from catena_zero.search.komi import estimate_fair_komi
    from catena_zero.artifacts.checkpoint import Checkpoint, save_checkpoint

    config = Config(
        game=KOMI3,
        net=NetConfig(blocks=1, channels=8, head_channels=4, value_hidden=8, device="cpu"),
        search=SearchConfig(num_simulations=8),
    )
    model = model_from_config(config.net)
    path = save_checkpoint(tmp_path / "run", Checkpoint(step=0, config=config, model=model.state_dict()))
    player = make_player(f"net:{path}", Config(game=KOMI3))
    assert isinstance(player, NetAgent)
    assert player.search.num_simulations == 8  # the checkpoint's own search settings
    game = Game.replay(KOMI3, ["C3"])
    assert player.choose(game, np.random.default_rng(0)) in game.legal_moves()
    env = VecEnv(KOMI3)
    assert player.capabilities.komi_curve
    assert player.komi_curve(KOMI3).komi == estimate_fair_komi(env, NetEvaluator(model, env, config.net)).komi
    assert player.komi_curve(GameConfig(side=3, game_type="no_komi")) is None
    with pytest.raises(ValueError, match="was trained for side 3"):
        make_player(str(path), Config(game=GameConfig(side=4)))


class NoTieEvaluator:
    """A deterministic evaluator without ties: priors and values are pseudo-random functions of
    each state alone (not of the batch it comes in), so a search's choices depend only on its noise."""

    def __init__(self, env: VecEnv) -> None:
        self.env = env
        self.mix = np.random.default_rng(12345).random(env.reset(1).data.shape[1])

    def __call__(self, state) -> Evaluation:
        x = state.data.astype(np.float64) @ self.mix  # [B]
        actions = np.arange(self.env.num_actions) + 1.0
        raw = np.abs(np.sin(x[:, None] * actions * 12.9898) * 43758.5453) % 1.0 + 0.05
        priors = np.where(self.env.legal_actions(state), raw, 0.0)
        priors = (priors / priors.sum(axis=1, keepdims=True)).astype(np.float32)
        value = (0.9 * np.sin(7.1 * x)).astype(np.float32)
        return Evaluation(priors=priors, value=value, score=3 * value)


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_root_noise_per_game(algorithm):
    """add_noise as a [B] array (self-play's cheap searches go without): the games without noise
    search exactly as a noiseless search does, whatever the seed; the noised ones vary."""
    env = VecEnv(GameConfig(side=3))
    rng = np.random.default_rng(0)
    state = env.from_games([random_position(env.config, 2, rng) for _ in range(4)])
    config = search_config(algorithm, num_simulations=24, gumbel_num_considered=8, tree_reuse=False,
                          temperature_moves=100)
    mask = np.array([True, False, True, False])
    plain = MCTS(env, NoTieEvaluator(env), config).run(state, np.random.default_rng(99), add_noise=False)
    outputs = [MCTS(env, NoTieEvaluator(env), config).run(state, np.random.default_rng(seed), add_noise=mask)
               for seed in range(4)]
    for out in outputs:
        assert np.allclose(out.policy[~mask], plain.policy[~mask], atol=1e-6)
        assert (out.action[~mask] == plain.action[~mask]).all()
    assert not all(np.allclose(out.policy[mask], plain.policy[mask], atol=1e-6) for out in outputs)
    with pytest.raises(ValueError, match="add_noise"):
        MCTS(env, NoTieEvaluator(env), config).run(state, rng, add_noise=np.array([1, 0, 1, 0]))


# ------------------------------------------------------------------ selection below a Gumbel root


def _starving_node(num_actions: int = 3) -> "NodeStats":
    """One interior node, worked by hand: action 0 visited 10 times (Q +0.2, prior 0.3), action 1
    5 times (Q -0.5, prior 0.2), action 2 never (prior 0.5); the node's mean utility -0.03. Any
    further actions are illegal."""
    from catena_zero.search.tree import NodeStats

    def row(*values, dtype):
        return np.pad(np.array([values], dtype), ((0, 0), (0, num_actions - 3)))

    return NodeStats(visits=np.array([16], np.int32), utility=np.array([-0.03], np.float32),
                     raw_utility=np.array([0.0], np.float32),
                     child_visits=row(10, 5, 0, dtype=np.int32), child_q=row(0.2, -0.5, 0.0, dtype=np.float32),
                     priors=row(0.3, 0.2, 0.5, dtype=np.float32), legal=row(True, True, True, dtype=bool))


def test_gumbel_interior_selection_starves_an_unvisited_reply_that_puct_tries():
    # Gumbel (mctx): action 2 is completed with the mixed value (0 + 15 x (0.3 x 0.2 - 0.2 x 0.5)
    # / 0.5) / 16 = -0.075; min-max rescaled over [-0.5, 0.2] that is 0.61, so sigma is 6 x (1, 0,
    # 0.61) (scale (50 + 10) x 0.1) and pi' = (0.92, 0.00, 0.08): the scores pi' - N / 16 are
    # (0.30, -0.31, 0.08), and action 0 is visited an eleventh time.
    # PUCT: c sqrt(16) x 2 radius = 2 x 1.1 x 1.2508 x 4 = 11.0; action 2 scores -0.03 + 11.0 x
    # 0.5 = 5.5 against action 0's 0.2 + 11.0 x 0.3 / 11 = 0.5: the unvisited reply is tried.
    from catena_zero.search.gumbel import interior_action
    from catena_zero.search.puct import ExplorationTable, puct_action

    stats, keys = _starving_node(), np.ones((1, 3), np.float32)  # positive tie-break keys (ties.py)
    config = SearchConfig()
    assert interior_action(stats, config, keys).tolist() == [0]
    assert puct_action(stats, stats.priors, keys, ExplorationTable(config).covering(stats)).tolist() == [2]


@pytest.mark.parametrize("interior, rule", [("gumbel", "improved policy"), ("puct", "puct")])
def test_a_gumbel_search_selects_below_the_root_by_its_configured_rule(interior, rule):
    from catena_zero.search.gumbel import GumbelPolicy, interior_action
    from catena_zero.search.puct import ExplorationTable, puct_action

    env = VecEnv(GameConfig(side=3))
    config = SearchConfig(num_simulations=32, gumbel_interior=interior)
    mcts = MCTS(env, UniformEvaluator(env), config)
    mcts.run(env.reset(2), np.random.default_rng(0), add_noise=False)
    policy = GumbelPolicy(mcts.tree, config, np.random.default_rng(1), np.zeros(2, bool), np.full(2, 8))
    games = np.array([0, 1])
    nodes = mcts.tree.children[games, ROOT].max(axis=1)  # a visited child of each root
    stats = mcts.tree.stats(games, nodes)
    expected = (interior_action(stats, config, policy.keys[games]) if rule == "improved policy" else
                puct_action(stats, stats.priors, policy.keys[games], ExplorationTable(config).covering(stats)))
    assert policy.select_interior(stats, games).tolist() == expected.tolist()
    # The two rules differ on the hand-built node, so the dispatch is seen.
    node = _starving_node(env.num_actions)
    assert policy.select_interior(node, np.array([0])).tolist() == ([0] if interior == "gumbel" else [2])
