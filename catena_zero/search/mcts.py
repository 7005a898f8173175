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
from typing import TYPE_CHECKING

import numpy as np

from ..config import SearchConfig
from .gumbel import GumbelPolicy
from .puct import PuctPolicy
from .tree import NO_PARENT, ROOT, UNVISITED, Tree, grown, reroot
from ..evaluation import EvalFn, Evaluation
from .types import SearchOutput
from .utility import Utility

if TYPE_CHECKING:
    from ..game.vec_env import EnvState, VecEnv


class MCTS:
    """Batched search for one environment and evaluation function.

    ``tree`` is the last search's tree (inspect it before the next ``run``, which reuses it).
    """

    def __init__(self, env: "VecEnv", eval_fn: EvalFn, config: SearchConfig) -> None:
        self.env = env
        self.eval_fn = eval_fn
        self.config = config
        # What search maximises: the win value plus KataGo's score term (search/utility.py).
        self.utility = Utility(config.score_utility_weight, config.score_utility_scale, env.config)
        self.tree: Tree | None = None  # the last search's tree

    def reset(self) -> None:
        """Forget the kept tree (the next search starts from scratch)."""
        self.tree = None

    def run(
        self,
        state: "EnvState",
        rng: np.random.Generator,
        *,
        add_noise: bool,
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
        temperature); without noise both searches are deterministic given the evaluator.
        The evaluation function is called once for the roots not kept from the previous search,
        then once per simulation on that simulation's new leaves (at most B states).
        The returned value and score are the root's mean backed-up estimates (mctx); under Gumbel
        they include the scheduled visits of weaker considered actions, so they lean pessimistic.
        """
        batch = state.batch_size
        if batch == 0:
            raise ValueError("cannot search an empty batch of games")
        finished = np.flatnonzero(state.done)
        if finished.size:
            raise ValueError(f"cannot search finished games (batch slots {finished[:8].tolist()})")
        budget = self._budget(num_simulations, batch)
        if seconds is not None and not seconds > 0:
            raise ValueError(f"seconds must be a positive number, got {seconds!r}")
        start = time.perf_counter()
        config = self.config
        # A time-limited search sizes its tree for the configured budget and grows it if it
        # gets further (doubling), rather than allocating for its maximum.
        planned = budget if seconds is None else np.minimum(budget, config.num_simulations)
        tree = self._start(state, planned)
        policy_cls = GumbelPolicy if config.algorithm == "gumbel" else PuctPolicy
        # A time-limited Gumbel search follows the warm-up prefix that all schedules share until
        # it knows its real budget (below), so its first schedule is the planned one's.
        warmup_plan = np.maximum(planned, min(config.gumbel_num_considered, int(budget.min())))
        policy = policy_cls(tree, config, rng, add_noise, budget if seconds is None else warmup_plan)
        simulation, limit = 0, int(budget.max())
        while simulation < limit:
            running = budget > simulation
            if tree.num_nodes.max() >= tree.capacity:  # only after a time-limited search's plan
                capacity = 2 * tree.capacity
                tree = grown(tree, capacity, self._storage(state, batch * capacity), self.env)
            self._simulate(tree, policy, simulation, None if running.all() else np.flatnonzero(running))
            simulation += 1
            if seconds is not None:
                elapsed = time.perf_counter() - start
                if elapsed >= seconds:
                    break
                if simulation == policy.warmup:
                    # From the speed so far; every game keeps at least the simulations done.
                    affordable = simulation + int((seconds - elapsed) * simulation / elapsed)
                    budget = np.clip(budget, None, max(affordable, simulation))
                    limit = int(budget.max())
                    policy.set_budget(budget)
        action, target = policy.decide(tree, state.move_number, rng)
        self.tree = tree
        visits = tree.visits[:, ROOT]
        return SearchOutput(
            action=action.astype(np.int64),
            policy=target,
            value=(tree.value_sum[:, ROOT] / visits).astype(np.float32),
            score=(tree.score_sum[:, ROOT] / visits).astype(np.float32),
            visits=tree.child_visits[:, ROOT].astype(np.int32),
        )

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

    def _start(self, state: "EnvState", budget: np.ndarray) -> Tree:  # budget: [B] the planned one
        """The tree to search: the kept subtree where the game continues it, a fresh root elsewhere.

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
        fresh = np.flatnonzero(tree.num_nodes == 0)
        if fresh.size:
            self._create_roots(tree, state, fresh)
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

    def _create_roots(self, tree: Tree, state: "EnvState", games: np.ndarray) -> None:
        """Evaluate and create the root of each game in ``games`` (its state is already stored)."""
        roots = state if games.size == state.batch_size else self.env.take(state, games)
        evaluation = self._evaluate(roots)
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
    ) -> None:
        """One simulation for ``games`` ([K] the games whose budget is not spent; None: all)."""
        if games is None:
            games = np.arange(tree.batch_size)
            action = policy.select_root(tree, simulation, None).astype(np.int64)
        else:
            action = policy.select_root(tree, simulation, games).astype(np.int64)
        count = games.size
        parent = np.full(count, ROOT, np.int64)
        child = tree.children[games, parent, action].astype(np.int64)
        descending = np.flatnonzero(child != UNVISITED)  # indices into games
        descending = descending[~tree.terminal[games[descending], child[descending]]]
        while descending.size:
            parent[descending] = child[descending]
            stats = tree.stats(games[descending], parent[descending])
            action[descending] = policy.select_interior(stats, games[descending])
            child[descending] = tree.children[games[descending], parent[descending], action[descending]]
            descending = descending[child[descending] != UNVISITED]
            descending = descending[~tree.terminal[games[descending], child[descending]]]

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
            leaf[expand], value[expand], score[expand], utility[expand] = self._expand(
                tree, games[expand], parent[expand], action[expand]
            )
        tree.backup(games, leaf, value, score, utility)

    def _expand(
        self, tree: Tree, games: np.ndarray, parent: np.ndarray, action: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Create the child (games, parent, action) for each game; returns [K] nodes, values,
        scores and utilities."""
        env = self.env
        states = env.take(tree.states, tree.slot(games, parent))
        env.step(states, action)
        evaluation = self._evaluate(states)
        utility = self.utility(evaluation.value, evaluation.score)
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
            legal=env.legal_actions(states),
        )
        env.put(tree.states, tree.slot(games, nodes), states)
        return nodes, evaluation.value, evaluation.score, utility

    def _evaluate(self, states: "EnvState") -> Evaluation:
        """Evaluation of K states: the evaluator for running games, the exact result for finished ones."""
        done = states.done
        if not done.any():
            return self._call_eval_fn(states)
        count = states.batch_size
        priors = np.zeros((count, self.env.num_actions), np.float32)
        value = self.env.terminal_value(states).astype(np.float32)
        score = self.env.score_margin(states).astype(np.float32)
        running = np.flatnonzero(~done)
        if running.size:
            evaluation = self._call_eval_fn(self.env.take(states, running))
            priors[running] = evaluation.priors
            value[running] = evaluation.value
            score[running] = evaluation.score
        return Evaluation(priors=priors, value=value, score=score)

    def _call_eval_fn(self, states: "EnvState") -> Evaluation:
        evaluation = self.eval_fn(states)
        expected = (states.batch_size, self.env.num_actions)
        if evaluation.priors.shape != expected or evaluation.value.shape != expected[:1]:
            raise ValueError(
                f"evaluation function returned priors {evaluation.priors.shape} and value "
                f"{evaluation.value.shape} for {expected[0]} states with {expected[1]} actions"
            )
        return evaluation
