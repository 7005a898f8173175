"""Batched Monte Carlo tree search over the vectorised environment (AlphaZero PUCT or Gumbel roots).

Shape legend: B games searched together, A actions (N cells + button), S simulations per move
(per game: ``MCTS.run``'s budget), M node capacity per game (max S + 1, plus room for a subtree
kept from the previous move; grown when a call needs more).

One simulation, for all B games at once (mctx's ``search`` loop):
1. select: from the root, follow the root rule (PUCT with optional Dirichlet noise, or Gumbel
   sequential halving) and then the interior rule, until an action without a child node or a
   terminal node is reached; loops over depth, vectorised over the games still descending;
2. expand: gather the parents' stored states, step the environment once for all of them, and
   call the evaluation function once on the new non-terminal positions; terminal positions take
   the exact result (``env.terminal_value`` / ``env.score_margin``), never the evaluator's guess;
3. back up the leaf's win value, score margin and utility along each path (``Tree.backup``: the
   sign follows the player to move).
A simulation that ends on an existing terminal node backs up its exact value again.

The loop is a generator (``MCTS.start``) that yields the states it needs evaluated and is sent
their evaluations; ``MCTS.run`` drives it with its own evaluation function, ``run_lockstep``
drives several searches (other rules, other budgets) with one batched call per round.

Search maximises the utility, the win value plus KataGo's score term (``search/utility.py``,
``SearchConfig.score_utility_weight``): Q values, Gumbel's completed Q and PUCT's scores are
utilities, while ``SearchOutput.value`` stays the mean win value (P(win) - P(loss)).

Tree reuse (``SearchConfig.tree_reuse``): after a search the tree is kept; the next call looks up,
per batch slot, the node reached by the moves played since (read from ``EnvState.history``), and
keeps that node's subtree as the new tree (re-indexed from the root). A slot whose game is not a
continuation of the previous root (other game, other komi) starts afresh.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Generator, Sequence

import numpy as np

from ..config import SearchConfig
from .gumbel import GumbelPolicy
from .puct import PuctPolicy
from .tree import NO_PARENT, ROOT, UNVISITED, Tree, grown, reroot
from ..evalfn import BatchEvalFn, EvalFn, Evaluation
from .types import SearchOutput
from .utility import Utility

if TYPE_CHECKING:
    from ..game.vec import EnvState, VecEnv


class MCTS:
    """Batched search for one environment and evaluation function.

    ``tree`` is the last search's tree (inspect it before the next ``run``, which reuses it).
    ``eval_fn`` may be None for a search driven only through ``start`` (``run_lockstep``).
    """

    def __init__(self, env: "VecEnv", eval_fn: EvalFn | None, config: SearchConfig) -> None:
        self.env = env
        self.eval_fn = eval_fn
        self.config = config
        # What search maximises: the win value plus KataGo's score term (search/utility.py).
        self.utility = Utility(config.score_utility_weight, config.score_utility_scale, env.config)
        self.tree: Tree | None = None  # the last search's tree
        self._game_zero = np.zeros(1, np.int64)  # [1] the one game of a single-game search
        self._to_move_column = env.to_move_column

    def reset(self) -> None:
        """Forget the kept tree (the next search starts from scratch)."""
        self.tree = None

    def run(
        self,
        state: "EnvState",
        rng: np.random.Generator,
        *,
        add_noise: bool | np.ndarray,
        num_simulations: int | np.ndarray | None = None,
        seconds: float | None = None,
    ) -> SearchOutput:
        """Search every game of ``state`` (none finished) and decide one move per game.

        ``num_simulations``: this call's budget, one int for every game or a [B] int array (one
        per game, each >= 1), default ``config.num_simulations``. Games with different budgets
        share one batched call: a simulation round only runs the games whose budget is not yet
        spent (playout cap randomisation, KataGo: a full search for some moves, a cheap one for
        others). The tree grows when a call needs more room than it has.
        ``seconds``: a wall-clock limit (for a bot): the budget becomes a maximum, and the search
        stops once the time is up. Gumbel fixes each game's budget, and so its halving schedule,
        after the first ``min(num_considered)`` simulations from their measured speed; it still
        stops at the deadline if the estimate was too optimistic.

        ``add_noise`` is for self-play only: PUCT mixes Dirichlet noise into the root priors and
        samples the move by visit counts (temperature) for the first ``temperature_moves`` moves;
        Gumbel draws the root Gumbel noise, which is its exploration (the paper samples no
        temperature); without noise both searches are deterministic given the evaluator and
        ``rng`` (which breaks ties, ``ties.py``). A [B] bool array gives the choice per game:
        self-play's cheap searches go without noise (KataGo 2019 sec. 3.1, playout cap randomisation).
        The evaluation function is called once for the roots not kept from the previous search,
        then once per simulation round on that round's new leaves (at most B states).
        The returned value and score are the root's mean backed-up estimates (mctx); under Gumbel
        they include the scheduled visits of weaker considered actions, so they lean pessimistic.

        This drives ``start``'s generator with ``self.eval_fn``; ``run_lockstep`` drives several.
        """
        if self.eval_fn is None:
            raise ValueError("this MCTS has no evaluation function: drive MCTS.start (e.g. run_lockstep)")
        search = self.start(state, rng, add_noise=add_noise, num_simulations=num_simulations, seconds=seconds)
        try:
            request = next(search)
            while True:
                request = search.send(self.eval_fn(request))
        except StopIteration as stop:
            return stop.value

    def start(
        self,
        state: "EnvState",
        rng: np.random.Generator,
        *,
        add_noise: bool | np.ndarray,
        num_simulations: int | np.ndarray | None = None,
        seconds: float | None = None,
    ) -> Generator["EnvState", Evaluation, SearchOutput]:
        """The search of ``run`` as a generator that asks for its evaluations instead of calling
        an evaluation function: it yields the running states it needs evaluated (a non-empty
        EnvState of this MCTS's env: first the new roots, then each simulation round's leaves),
        is sent their ``Evaluation``, and returns the ``SearchOutput`` (``StopIteration.value``).
        A caller can so evaluate the requests of several searches in one network call
        (``run_lockstep``). The arguments are checked now, before the first request.
        """
        batch = state.batch_size
        if batch == 0:
            raise ValueError("cannot search an empty batch of games")
        finished = np.flatnonzero(state.done)
        if finished.size:
            raise ValueError(f"cannot search finished games (batch slots {finished[:8].tolist()})")
        budget = self._budget(num_simulations, batch)
        noise = np.broadcast_to(np.asarray(add_noise), (batch,))
        if noise.dtype != np.bool_:
            raise ValueError(f"add_noise must be a bool or a [B] bool array, got dtype {noise.dtype}")
        if seconds is not None and not seconds > 0:
            raise ValueError(f"seconds must be a positive number, got {seconds!r}")
        return self._search(state, rng, noise, budget, seconds)

    def _search(
        self, state: "EnvState", rng: np.random.Generator, add_noise: np.ndarray, budget: np.ndarray, seconds: float | None
    ) -> Generator["EnvState", Evaluation, SearchOutput]:
        start = time.perf_counter()
        # A time-limited search sizes its tree for the configured budget and grows it if it
        # gets further (doubling), rather than allocating for its maximum.
        planned = budget if seconds is None else np.minimum(budget, self.config.num_simulations)
        tree = self._prepare(state, planned)
        fresh = np.flatnonzero(tree.num_nodes == 0)
        if fresh.size:
            yield from self._create_roots(tree, state, fresh)
        if seconds is None:
            policy = self._policy(tree, rng, add_noise, budget)
            first_done = int(budget.min())
            for simulation in range(int(budget.max())):
                yield from self._round(tree, policy, simulation, budget, first_done)
        else:
            # A time-limited Gumbel search follows the warm-up prefix that all schedules share until
            # it knows its real budget, so its first schedule is the planned one's.
            warmup_plan = np.maximum(planned, min(self.config.gumbel_num_considered, int(budget.min())))
            policy = self._policy(tree, rng, add_noise, warmup_plan)
            tree = yield from self._timed_rounds(state, tree, policy, budget, start + seconds)
        action, target = policy.decide(tree, state.move_number, rng)
        self.tree = tree
        visits = tree.visits[:, ROOT]
        value = (tree.value_sum[:, ROOT] / visits).astype(np.float32)
        return SearchOutput(
            action=action.astype(np.int64),
            policy=target,
            value=value,
            score=(tree.score_sum[:, ROOT] / visits).astype(np.float32),
            action_value=_action_value(tree, action, value),
            visits=tree.child_visits[:, ROOT].astype(np.int32),
        )

    def _policy(
        self, tree: Tree, rng: np.random.Generator, add_noise: np.ndarray, schedule: np.ndarray
    ) -> GumbelPolicy | PuctPolicy:
        """The root rule of ``config.algorithm`` for this search, scheduled for ``schedule`` ([B])."""
        policy_cls = GumbelPolicy if self.config.algorithm == "gumbel" else PuctPolicy
        return policy_cls(tree, self.config, rng, add_noise, schedule)

    def _round(
        self, tree: Tree, policy: GumbelPolicy | PuctPolicy, simulation: int, budget: np.ndarray, first_done: int
    ) -> Generator:
        """Simulation number ``simulation`` of every game whose ``budget`` is not spent: all of
        them until the smallest budget (``first_done``) is, then those with budget left."""
        if tree.batch_size == 1:
            return self._simulate_one(tree, policy, simulation)
        running = None if simulation < first_done else np.flatnonzero(budget > simulation)
        return self._simulate(tree, policy, simulation, running)

    def _timed_rounds(
        self, state: "EnvState", tree: Tree, policy: GumbelPolicy | PuctPolicy, budget: np.ndarray, deadline: float
    ) -> Generator["EnvState", Evaluation, Tree]:
        """The simulations of a search with a wall-clock ``deadline`` (``time.perf_counter``) and
        ``budget`` as its maximum; returns the tree, grown (doubled) whenever it is full. After the
        policy's warm-up the budget is cut to what the speed so far affords, so that Gumbel's
        halving schedule ends in time."""
        simulation, limit, first_done = 0, int(budget.max()), int(budget.min())
        simulations_start = time.perf_counter()  # the rate below leaves out the roots' evaluation
        while simulation < limit:
            if tree.num_nodes.max() >= tree.capacity:  # past the plan
                capacity = 2 * tree.capacity
                tree = grown(tree, capacity, self._storage(state, tree.batch_size * capacity), self.env)
            yield from self._round(tree, policy, simulation, budget, first_done)
            simulation += 1
            now = time.perf_counter()
            if now >= deadline:
                break
            if simulation == policy.warmup:
                # From the speed so far; every game keeps at least the simulations done.
                rate = simulation / max(now - simulations_start, 1e-9)
                affordable = simulation + int((deadline - now) * rate)
                budget = np.clip(budget, None, max(affordable, simulation))
                limit, first_done = int(budget.max()), int(budget.min())
                policy.set_budget(budget)
        return tree

    def _budget(self, num_simulations: int | np.ndarray | None, batch: int) -> np.ndarray:
        """[B] int64 simulations per game for one call (``config.num_simulations`` by default)."""
        if num_simulations is None:
            return np.full(batch, self.config.num_simulations, np.int64)
        budget = np.asarray(num_simulations)
        if budget.dtype.kind not in "iu" or budget.shape not in ((), (batch,)):
            raise ValueError(
                f"num_simulations must be an integer or an integer array of shape ({batch},), "
                f"got {budget.dtype} {budget.shape}"
            )
        if (budget < 1).any():
            raise ValueError(f"num_simulations must be >= 1 for every game, got {int(budget.min())}")
        return np.broadcast_to(budget, (batch,)).astype(np.int64)

    # -- tree set-up and reuse -------------------------------------------------------------------

    def _prepare(self, state: "EnvState", budget: np.ndarray) -> Tree:  # budget: [B] the planned one
        """The tree to search: the kept subtree where the game continues it, no node elsewhere
        (the caller creates those roots); every root's state is stored.

        The previous tree's arrays are reused whenever the batch size is unchanged and they have
        room for this call: allocating and first touching them would cost more than the
        simulations themselves (side 6, S = 32, tree reuse: 65 nodes, about 100 KB of edge arrays
        and 120 KB of stored states per game). A kept subtree is cut to at most
        ``max(config.num_simulations, max(budget))`` nodes (what one full search adds), so trees
        stay bounded over a game; the capacity is grown when kept nodes plus this call's budget
        do not fit, and is sized for a kept subtree from the start when tree reuse is on.
        """
        env, config = self.env, self.config
        batch, games = state.batch_size, np.arange(state.batch_size)
        most = int(budget.max())
        keep = max(config.num_simulations, most) if config.tree_reuse else 0
        tree = self.tree
        if tree is not None and tree.batch_size == batch:
            roots = self._continued_roots(tree, state) if config.tree_reuse else np.full(batch, UNVISITED)
            reroot(env, tree, roots, max_nodes=keep)
            needed = int((np.maximum(tree.num_nodes, 1) + budget).max())
            if needed > tree.capacity:
                tree = grown(tree, needed, self._storage(state, batch * needed), env)
        else:
            capacity = most + 1 + keep
            tree = Tree.allocate(batch, capacity, env.num_actions, self._storage(state, batch * capacity))
        env.put(tree.states, tree.slot(games, np.full(batch, ROOT)), state)
        return tree

    def _storage(self, state: "EnvState", slots: int) -> "EnvState":
        """State storage for ``slots`` tree nodes (copies of game 0; rows are written on creation)."""
        return self.env.take(state, np.zeros(slots, np.int64))

    def _continued_roots(self, old: Tree, state: "EnvState") -> np.ndarray:
        """[B] node of ``old`` reached by the moves played since its root, UNVISITED if none."""
        batch, games = state.batch_size, np.arange(state.batch_size)
        previous = self.env.take(old.states, old.slot(games, np.full(batch, ROOT)))
        start = previous.move_number.astype(np.int64)
        end = state.move_number.astype(np.int64)
        columns = np.arange(state.history.shape[1])[None, :]
        same_prefix = ((previous.history == state.history) | (columns >= start[:, None])).all(axis=1)
        node = np.where(same_prefix & (end >= start) & (previous.komi == state.komi), ROOT, UNVISITED)
        for step in range(int(np.where(node == ROOT, end - start, 0).max(initial=0))):
            ply = start + step
            moving = (node != UNVISITED) & (ply < end)
            action = state.history[games, np.minimum(ply, columns.shape[1] - 1)]
            child = old.children[games, np.maximum(node, 0), np.maximum(action, 0)]
            node = np.where(moving, child, node)
        return node

    def _create_roots(self, tree: Tree, state: "EnvState", games: np.ndarray) -> Generator:
        """Evaluate and create the root of each game in ``games`` (its state is already stored)."""
        roots = state if games.size == state.batch_size else self.env.take(state, games)
        evaluation = yield from self._evaluate(roots)
        utility = self.utility(evaluation.value, evaluation.score)
        tree.add_nodes(
            games,
            parent=np.full(games.size, NO_PARENT),
            action=np.zeros(games.size, np.int64),
            player=roots.to_move,
            terminal=np.zeros(games.size, bool),
            raw_value=evaluation.value,
            raw_score=evaluation.score,
            raw_utility=utility,
            priors=evaluation.priors,
            legal=self.env.legal_actions(roots),
        )
        # The root's own evaluation is its first visit (mctx instantiate_tree_from_root).
        tree.backup(games, np.full(games.size, ROOT), evaluation.value, evaluation.score, utility)

    # -- one simulation --------------------------------------------------------------------------

    def _simulate(
        self, tree: Tree, policy: GumbelPolicy | PuctPolicy, simulation: int, games: np.ndarray | None
    ) -> Generator:
        """One simulation for ``games`` ([K] the games whose budget is not spent; None: all)."""
        every = games is None  # then local indices are game indices: no gathers through games
        if every:
            games = np.arange(tree.batch_size)
        action = policy.select_root(tree, simulation, None if every else games).astype(np.int64)
        count = games.size
        parent = np.full(count, ROOT, np.int64)
        child = tree.children[games, parent, action].astype(np.int64)
        descending = np.flatnonzero(child != UNVISITED)  # indices into games
        of = (lambda local: local) if every else (lambda local: games[local])
        descending = descending[~tree.terminal[of(descending), child[descending]]]
        while descending.size:
            parent[descending] = child[descending]
            at = of(descending)
            stats = tree.stats(at, parent[descending])
            action[descending] = policy.select_interior(stats, at)
            child[descending] = tree.children[at, parent[descending], action[descending]]
            descending = descending[child[descending] != UNVISITED]
            descending = descending[~tree.terminal[of(descending), child[descending]]]

        leaf = child.copy()
        value = np.empty(count, np.float32)
        score = np.empty(count, np.float32)
        utility = np.empty(count, np.float32)
        ended = np.flatnonzero(child != UNVISITED)  # terminal nodes reached again: exact result
        if ended.size:
            value[ended] = tree.raw_value[games[ended], child[ended]]
            score[ended] = tree.raw_score[games[ended], child[ended]]
            utility[ended] = tree.raw_utility[games[ended], child[ended]]
        expand = np.flatnonzero(child == UNVISITED)
        if expand.size:
            leaf[expand], value[expand], score[expand], utility[expand] = yield from self._expand(
                tree, games[expand], parent[expand], action[expand]
            )
        tree.backup(games, leaf, value, score, utility)

    def _simulate_one(self, tree: Tree, policy: GumbelPolicy | PuctPolicy, simulation: int) -> Generator:
        """``_simulate`` for a batch of one game (a bot, the ``mcts:K`` baseline), so exactly the same
        tree (tests/test_search.py): the same selection (the policy's rules on ``Tree`` statistics),
        node creation, evaluation and backup steps (``Tree``'s ``_stats_at``, ``_write_nodes``,
        ``_visit``), but on Python ints and row views instead of [K] arrays, since numpy's fixed
        cost per call dominates at batch 1 (scripts/bench_search.py --single)."""
        children, terminal = tree.children[0], tree.terminal[0]  # [M, A], [M] views
        game = self._game_zero
        node, action = ROOT, int(policy.select_root(tree, simulation, None)[0])
        child = int(children[node, action])
        while child != UNVISITED and not terminal[child]:
            node = child
            action = int(policy.select_interior(tree.node_stats(node), game)[0])
            child = int(children[node, action])
        if child == UNVISITED:
            child, value, score, utility = yield from self._expand_one(tree, node, action)
        else:  # a terminal node reached again: its exact result
            value, score, utility = tree.raw_value[0, child], tree.raw_score[0, child], tree.raw_utility[0, child]
        tree.backup_one(child, value, score, utility)

    def _expand_one(self, tree: Tree, parent: int, action: int) -> Generator:
        """``_expand`` of one child of game 0; returns (node, value, score, utility)."""
        states, evaluation, utility = yield from self._step_and_evaluate(tree, np.array([parent]), np.array([action]))
        node = tree.add_node_one(
            parent, action, player=int(states.data[0, self._to_move_column]), terminal=bool(states.done[0]),
            raw_value=evaluation.value[0], raw_score=evaluation.score[0], raw_utility=utility[0],
            priors=evaluation.priors[0], legal=self.env.legal_actions(states)[0],
        )
        self.env.put(tree.states, np.array([node]), states)  # slot of (game 0, node)
        return node, evaluation.value[0], evaluation.score[0], utility[0]

    def _expand(
        self, tree: Tree, games: np.ndarray, parent: np.ndarray, action: np.ndarray
    ) -> Generator:
        """Create the child (games, parent, action) for each game; returns [K] nodes, values,
        scores and utilities."""
        states, evaluation, utility = yield from self._step_and_evaluate(tree, tree.slot(games, parent), action)
        nodes = tree.add_nodes(
            games,
            parent=parent,
            action=action,
            player=states.to_move,
            terminal=states.done,
            raw_value=evaluation.value,
            raw_score=evaluation.score,
            raw_utility=utility,
            priors=evaluation.priors,
            legal=self.env.legal_actions(states),
        )
        self.env.put(tree.states, tree.slot(games, nodes), states)
        return nodes, evaluation.value, evaluation.score, utility

    def _step_and_evaluate(self, tree: Tree, slots: np.ndarray, action: np.ndarray) -> Generator:
        """(states, evaluation, utility) of the [K] positions after ``action`` from the nodes
        stored at ``slots`` (``Tree.slot``)."""
        states = self.env.take(tree.states, slots)
        self.env.step(states, action)
        evaluation = yield from self._evaluate(states)
        return states, evaluation, self.utility(evaluation.value, evaluation.score)

    def _evaluate(self, states: "EnvState") -> Generator["EnvState", Evaluation, Evaluation]:
        """Evaluation of K states: requested (yielded) for the running games, the exact result
        for finished ones; nothing is requested when all are finished."""
        done = states.done
        if not done.any():
            return self._checked((yield states), states)
        count = states.batch_size
        priors = np.zeros((count, self.env.num_actions), np.float32)
        value = self.env.terminal_value(states).astype(np.float32)
        score = self.env.score_margin(states).astype(np.float32)
        running = np.flatnonzero(~done)
        if running.size:
            asked = self.env.take(states, running)
            evaluation = self._checked((yield asked), asked)
            priors[running] = evaluation.priors
            value[running] = evaluation.value
            score[running] = evaluation.score
        return Evaluation(priors=priors, value=value, score=score)

    def _checked(self, evaluation: Evaluation, states: "EnvState") -> Evaluation:
        expected = (states.batch_size, self.env.num_actions)
        if (
            not isinstance(evaluation, Evaluation)
            or evaluation.priors.shape != expected
            or evaluation.value.shape != expected[:1]
            or evaluation.score.shape != expected[:1]
        ):
            got = (
                f"priors {evaluation.priors.shape}, value {evaluation.value.shape} and score {evaluation.score.shape}"
                if isinstance(evaluation, Evaluation) else type(evaluation).__name__
            )
            raise ValueError(
                f"evaluation function returned {got} for {expected[0]} states with {expected[1]} actions"
            )
        return evaluation


@dataclass(frozen=True)
class LockstepSearch:
    """One search of ``run_lockstep``: the arguments of ``mcts.run`` for it."""

    mcts: MCTS
    state: "EnvState"
    rng: np.random.Generator  # its own, so that its draws do not depend on the other searches
    add_noise: bool | np.ndarray  # one for all games or [B] bool, as in MCTS.run
    num_simulations: int | np.ndarray | None = None  # int or [B] budget, as in MCTS.run
    seconds: float | None = None


def run_lockstep(searches: Sequence[LockstepSearch], evaluate_many: BatchEvalFn) -> list[SearchOutput]:
    """Run several searches (other envs and rules, other budgets, other algorithms) together, with
    ONE ``evaluate_many`` call per simulation round for all of them: the call gets every
    unfinished search's request as ``(env, state)`` and returns their ``Evaluation``s in order.
    Rule randomisation (KataGo's mixed board sizes and rules) so keeps one network call per
    simulation, padded to the largest board, instead of one small call per rule set.

    Each search advances by its own rules exactly as ``mcts.run`` would: with the same rngs and
    evaluations that agree with its own ``eval_fn``, the outputs equal separate runs. A search
    that is done drops out of the rounds; one MCTS may appear only once (it holds its tree).
    """
    if len({id(search.mcts) for search in searches}) != len(searches):
        raise ValueError("run_lockstep: each search needs its own MCTS (an MCTS holds one tree)")
    generators = [
        s.mcts.start(s.state, s.rng, add_noise=s.add_noise, num_simulations=s.num_simulations, seconds=s.seconds)
        for s in searches
    ]
    outputs: dict[int, SearchOutput] = {}  # search index -> its output, once it is done
    pending: dict[int, "EnvState"] = {}

    def advance(i: int, evaluation: Evaluation | None) -> None:
        try:
            pending[i] = next(generators[i]) if evaluation is None else generators[i].send(evaluation)
        except StopIteration as stop:
            pending.pop(i, None)
            outputs[i] = stop.value

    for i in range(len(searches)):
        advance(i, None)
    while pending:
        order = list(pending)
        evaluations = evaluate_many([(searches[i].mcts.env, pending[i]) for i in order])
        if len(evaluations) != len(order):
            raise ValueError(f"evaluate_many returned {len(evaluations)} evaluations for {len(order)} requests")
        for i, evaluation in zip(order, evaluations):
            advance(i, evaluation)
    return [outputs[i] for i in range(len(searches))]  # every search is done once none is pending


def _action_value(tree: Tree, action: np.ndarray, root_value: np.ndarray) -> np.ndarray:
    """[B] float32 mean win value of each game's chosen child, for the root's player to move; the
    root value where the child was never created or visited (a terminal root, a 1-visit search)."""
    games = np.arange(tree.batch_size)
    legal = (action >= 0) & (action < tree.num_actions)
    child = np.where(legal, tree.children[games, ROOT, np.clip(action, 0, tree.num_actions - 1)], UNVISITED)
    node = np.maximum(child, 0)
    visits = tree.visits[games, node]
    seen = (child != UNVISITED) & (visits > 0)
    mean = tree.value_sum[games, node] / np.maximum(visits, 1)
    # the child's values are for its own mover: the same player only between a double turn's stones (R8)
    mean = np.where(tree.player[games, node] != tree.player[:, ROOT], -mean, mean)
    return np.where(seen, mean, root_value).astype(np.float32)
