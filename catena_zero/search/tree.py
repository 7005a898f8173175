"""Search trees for a batch of games, stored as arrays (the mctx layout; no Python object per node).

Shape legend:
    B  games searched together        M  node capacity per game (``Tree.capacity``)
    A  actions, N cells + the button  K  a subset of the games (one node each)

Node ``ROOT`` (0) of game ``b`` is the position being searched; every other node is created by one
simulation, so a search of ``S`` simulations needs ``S + 1`` nodes (plus room for a subtree kept
from the previous move, see ``reroot``). A node is created only after its parent, so
``parent[b, n] < n``: node indices are a topological order, which the re-rooting relies on.

Per edge ``(node, action)`` the tree keeps the statistics that selection reads (visits, mean
utility Q), as mctx does, so selecting at a node is one row gather per array; they duplicate the
child's own ``visits`` / ``utility_sum`` except for the sign convention and after pruning.

Three quantities are backed up: the win value (+1 win, -1 loss; what ``SearchOutput.value``
reports), the score margin, and the utility that search maximises, the win value plus a score
term (KataGo's score utility, ``search/utility.py``). Selection reads only utilities.

Sign convention (DESIGN.md sec. 3): a node's values are from the perspective of the player to
move *at that node*; an edge's values are from the perspective of the player to move at the
edge's parent. Backing up through an edge flips the sign only when the player to move changes:
not between the two stones of a double turn (R8, same player twice), but after the button move
(R4, which passes the turn) and after every ordinary placement.

The environment state of every node is stored (``states``, slot ``b * M + n``), so a simulation
steps the environment once, from the leaf's parent, instead of replaying the path.
Rows of nodes that do not exist yet (``n >= num_nodes[b]``) are garbage; ``add_nodes`` writes a
node's whole row when it creates it, so a tree never needs clearing.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from ..game.vec_env import EnvState, VecEnv

ROOT = 0  # index of the root node of every game's tree
UNVISITED = -1  # children[b, n, a] of an action whose child node was never created
NO_PARENT = -1  # parent[b, ROOT]
NO_ACTION = -1  # action[b, ROOT]


@dataclass(frozen=True)
class NodeStats:
    """What selection needs to know about K nodes (one per game), gathered from a ``Tree``."""

    visits: np.ndarray  # [K] int32 N(s): visits of the node (its own evaluation counts as one)
    utility: np.ndarray  # [K] float32 mean backed-up utility, node's player to move
    raw_utility: np.ndarray  # [K] float32 utility of the evaluation of the node (Gumbel's mixed value)
    child_visits: np.ndarray  # [K, A] int32 N(s, a)
    child_q: np.ndarray  # [K, A] float32 Q(s, a): mean utility, node's player to move; 0 where N(s, a) == 0
    priors: np.ndarray  # [K, A] float32 P(s, a), 0 on illegal actions
    legal: np.ndarray  # [K, A] bool


@dataclass(eq=False)
class Tree:
    """The search trees of B games (one per game), ``M`` nodes each. Mutable: search fills it in place."""

    # Per node.
    parent: np.ndarray  # [B, M] int32 parent node, NO_PARENT at the root
    action: np.ndarray  # [B, M] int32 action from the parent to the node, NO_ACTION at the root
    player: np.ndarray  # [B, M] int8 colour to move at the node (BLACK/WHITE)
    terminal: np.ndarray  # [B, M] bool the game is over at the node
    raw_value: np.ndarray  # [B, M] float32 evaluator value at creation (exact result if terminal)
    raw_score: np.ndarray  # [B, M] float32 evaluator score margin (exact margin if terminal)
    raw_utility: np.ndarray  # [B, M] float32 utility of raw_value and raw_score
    visits: np.ndarray  # [B, M] int32 simulations through the node
    value_sum: np.ndarray  # [B, M] float32 sum of backed-up win values, node's player to move
    score_sum: np.ndarray  # [B, M] float32 sum of backed-up score margins, node's player to move
    utility_sum: np.ndarray  # [B, M] float32 sum of backed-up utilities, node's player to move
    # Per edge.
    children: np.ndarray  # [B, M, A] int32 child node, UNVISITED if not created
    child_visits: np.ndarray  # [B, M, A] int32 simulations through the edge
    child_q: np.ndarray  # [B, M, A] float32 Q: mean utility through the edge, parent's mover
    priors: np.ndarray  # [B, M, A] float32 evaluator priors of the node (never noised)
    legal: np.ndarray  # [B, M, A] bool legal actions at the node (all False if terminal)
    num_nodes: np.ndarray  # [B] int32 nodes created so far
    states: "EnvState"  # B * M games: node n of game b in slot b * M + n

    @classmethod
    def allocate(cls, batch_size: int, capacity: int, num_actions: int, states: "EnvState") -> "Tree":
        """An empty tree (no nodes) over ``states``, an EnvState of ``batch_size * capacity`` slots."""
        if states.batch_size != batch_size * capacity:
            raise ValueError(
                f"node state storage holds {states.batch_size} games, need {batch_size} x {capacity}"
            )
        shape, edges = (batch_size, capacity), (batch_size, capacity, num_actions)
        return cls(
            parent=np.empty(shape, np.int32),
            action=np.empty(shape, np.int32),
            player=np.empty(shape, np.int8),
            terminal=np.empty(shape, bool),
            raw_value=np.empty(shape, np.float32),
            raw_score=np.empty(shape, np.float32),
            raw_utility=np.empty(shape, np.float32),
            visits=np.empty(shape, np.int32),
            value_sum=np.empty(shape, np.float32),
            score_sum=np.empty(shape, np.float32),
            utility_sum=np.empty(shape, np.float32),
            children=np.empty(edges, np.int32),
            child_visits=np.empty(edges, np.int32),
            child_q=np.empty(edges, np.float32),
            priors=np.empty(edges, np.float32),
            legal=np.empty(edges, bool),
            num_nodes=np.zeros(batch_size, np.int32),
            states=states,
        )

    @property
    def batch_size(self) -> int:
        return self.parent.shape[0]

    @property
    def capacity(self) -> int:
        return self.parent.shape[1]

    @property
    def num_actions(self) -> int:
        return self.priors.shape[2]

    def slot(self, games: np.ndarray, nodes: np.ndarray) -> np.ndarray:
        """[K] flat index ``b * M + n`` of (game, node) pairs: their slot in ``states`` and in the
        flattened per-node arrays (selection and backup index flat views: fewer, cheaper gathers)."""
        return games.astype(np.int64) * self.capacity + nodes

    def _edges(self, array: np.ndarray) -> np.ndarray:
        """[B * M, A] view of a per-edge array, one row per node slot."""
        return array.reshape(-1, array.shape[2])

    def add_nodes(
        self,
        games: np.ndarray,  # [K] distinct games
        parent: np.ndarray,  # [K] parent node, or NO_PARENT to create the root
        action: np.ndarray,  # [K] action from the parent (ignored for a root)
        player: np.ndarray,  # [K] colour to move at the new node
        terminal: np.ndarray,  # [K] bool
        raw_value: np.ndarray,  # [K]
        raw_score: np.ndarray,  # [K]
        raw_utility: np.ndarray,  # [K]
        priors: np.ndarray,  # [K, A]
        legal: np.ndarray,  # [K, A]
    ) -> np.ndarray:
        """Create one node per game (unvisited, no children) and link it to its parent; returns [K] nodes.

        The node's state must be written to ``states`` at ``slot(games, nodes)`` by the caller.
        """
        nodes = self.num_nodes[games].astype(np.int64)
        # The search sizes the tree before every call (``MCTS`` grows it as needed): a full tree
        # here is a bug in the caller, not a limit of the search.
        assert (nodes < self.capacity).all(), f"search tree is full ({self.capacity} nodes per game)"
        at = self.slot(games, nodes)
        is_root = parent == NO_PARENT
        self.parent.reshape(-1)[at] = parent
        self.action.reshape(-1)[at] = np.where(is_root, NO_ACTION, action)
        self.player.reshape(-1)[at] = player
        self.terminal.reshape(-1)[at] = terminal
        self.raw_value.reshape(-1)[at] = raw_value
        self.raw_score.reshape(-1)[at] = raw_score
        self.raw_utility.reshape(-1)[at] = raw_utility
        self.visits.reshape(-1)[at] = 0
        self.value_sum.reshape(-1)[at] = 0.0
        self.score_sum.reshape(-1)[at] = 0.0
        self.utility_sum.reshape(-1)[at] = 0.0
        self._edges(self.children)[at] = UNVISITED
        self._edges(self.child_visits)[at] = 0
        self._edges(self.child_q)[at] = 0.0
        self._edges(self.priors)[at] = priors
        self._edges(self.legal)[at] = legal
        linked = ~is_root
        edge = self.slot(games[linked], parent[linked]) * self.num_actions + action[linked]
        self.children.reshape(-1)[edge] = nodes[linked]
        self.num_nodes[games] += 1
        return nodes

    def add_node_one(
        self, parent: int, action: int, player: int, terminal: bool, raw_value, raw_score, raw_utility,
        priors: np.ndarray, legal: np.ndarray,  # [A] each
    ) -> int:
        """``add_nodes`` for one non-root node of game 0 (a single-game search); returns the node."""
        node = int(self.num_nodes[0])
        assert node < self.capacity, f"search tree is full ({self.capacity} nodes per game)"
        self.parent[0, node] = parent
        self.action[0, node] = action
        self.player[0, node] = player
        self.terminal[0, node] = terminal
        self.raw_value[0, node] = raw_value
        self.raw_score[0, node] = raw_score
        self.raw_utility[0, node] = raw_utility
        self.visits[0, node] = 0
        self.value_sum[0, node] = 0.0
        self.score_sum[0, node] = 0.0
        self.utility_sum[0, node] = 0.0
        self.children[0, node] = UNVISITED
        self.child_visits[0, node] = 0
        self.child_q[0, node] = 0.0
        self.priors[0, node] = priors
        self.legal[0, node] = legal
        self.children[0, parent, action] = node
        self.num_nodes[0] = node + 1
        return node

    def backup_one(self, leaf: int, value, score, utility) -> None:
        """``backup`` for one leaf of game 0, a Python loop with ``backup``'s float32 arithmetic."""
        value, score, utility = np.float32(value), np.float32(score), np.float32(utility)
        visits, value_sum, score_sum, utility_sum = self.visits[0], self.value_sum[0], self.score_sum[0], self.utility_sum[0]
        parents, players, actions = self.parent[0], self.player[0], self.action[0]
        edge_visits, edge_q = self.child_visits[0], self.child_q[0]
        at = leaf
        while True:
            visits[at] += 1
            value_sum[at] += value
            score_sum[at] += score
            utility_sum[at] += utility
            parent = int(parents[at])
            if parent == NO_PARENT:
                return
            if players[parent] != players[at]:
                value, score, utility = -value, -score, -utility
            action = int(actions[at])
            edge_visits[parent, action] += 1
            q = edge_q[parent, action]
            # as numpy evaluates backup's running mean: a float32 difference over an int32 count
            # is float64, added to Q in float64 and stored as float32
            edge_q[parent, action] = float(q) + float(utility - q) / int(edge_visits[parent, action])
            at = parent

    def stats(self, games: np.ndarray, nodes: np.ndarray) -> NodeStats:
        """Gather what selection reads at one node per game ([K] games, [K] nodes)."""
        at = self.slot(games, nodes)
        visits = np.take(self.visits, at)
        return NodeStats(
            visits=visits,
            utility=(np.take(self.utility_sum, at) / np.maximum(visits, 1)).astype(np.float32),
            raw_utility=np.take(self.raw_utility, at),
            child_visits=np.take(self._edges(self.child_visits), at, axis=0),
            child_q=np.take(self._edges(self.child_q), at, axis=0),
            priors=np.take(self._edges(self.priors), at, axis=0),
            legal=np.take(self._edges(self.legal), at, axis=0),
        )

    def node_stats(self, node: int) -> NodeStats:
        """``stats`` of node ``node`` of game 0 as [1]/[1, A] row views (a single-game search)."""
        at = slice(node, node + 1)
        visits = self.visits[0, at]
        return NodeStats(
            visits=visits,
            utility=(self.utility_sum[0, at] / np.maximum(visits, 1)).astype(np.float32),
            raw_utility=self.raw_utility[0, at],
            child_visits=self.child_visits[0, at],
            child_q=self.child_q[0, at],
            priors=self.priors[0, at],
            legal=self.legal[0, at],
        )

    def root_stats(self, games: np.ndarray | None = None) -> NodeStats:
        """``stats`` of the roots of ``games`` ([K]; None: every game, as views, no copies, valid
        until the tree changes)."""
        if games is not None:
            return self.stats(games, np.full(games.size, ROOT))
        visits = self.visits[:, ROOT]
        return NodeStats(
            visits=visits,
            utility=(self.utility_sum[:, ROOT] / np.maximum(visits, 1)).astype(np.float32),
            raw_utility=self.raw_utility[:, ROOT],
            child_visits=self.child_visits[:, ROOT],
            child_q=self.child_q[:, ROOT],
            priors=self.priors[:, ROOT],
            legal=self.legal[:, ROOT],
        )

    def backup(
        self, games: np.ndarray, leaf: np.ndarray, value: np.ndarray, score: np.ndarray, utility: np.ndarray
    ) -> None:
        """Add one visit with ``value`` / ``score`` / ``utility`` (leaf's player to move) on each
        game's root-leaf path.

        [K] arrays: distinct games, one leaf each. Loops over depth, vectorised over the games
        still climbing.
        """
        base = games.astype(np.int64) * self.capacity  # slot of each game's root
        at = base + leaf
        value = value.astype(np.float32)
        score = score.astype(np.float32)
        utility = utility.astype(np.float32)
        visits, value_sum = self.visits.reshape(-1), self.value_sum.reshape(-1)
        score_sum, utility_sum = self.score_sum.reshape(-1), self.utility_sum.reshape(-1)
        parents, players, actions = self.parent.reshape(-1), self.player.reshape(-1), self.action.reshape(-1)
        edge_visits, edge_q = self.child_visits.reshape(-1), self.child_q.reshape(-1)
        while at.size:
            visits[at] += 1
            value_sum[at] += value
            score_sum[at] += score
            utility_sum[at] += utility
            parent = parents[at]
            up = parent != NO_PARENT
            if not up.all():
                base, at, parent = base[up], at[up], parent[up]
                value, score, utility = value[up], score[up], utility[up]
            parent_at = base + parent
            # The parent's mover sees the opposite result unless it is the same player (R8 double turn).
            flip = players[parent_at] != players[at]
            value = np.where(flip, -value, value)
            score = np.where(flip, -score, score)
            utility = np.where(flip, -utility, utility)
            edge = parent_at * self.num_actions + actions[at]
            edge_visits[edge] += 1
            edge_q[edge] += (utility - edge_q[edge]) / edge_visits[edge]  # running mean (mctx)
            at = parent_at


def grown(tree: Tree, capacity: int, states: "EnvState", env: "VecEnv") -> Tree:
    """A copy of ``tree`` with room for ``capacity`` nodes per game; ``states`` is the new state
    storage (``batch_size * capacity`` slots). Node indices are unchanged, so nothing is re-linked."""
    batch, old = tree.batch_size, tree.capacity
    if capacity < old:
        raise ValueError(f"cannot shrink a tree from {old} to {capacity} nodes per game")
    new = Tree.allocate(batch, capacity, tree.num_actions, states)
    for name in ("parent", "action", "player", "terminal", "raw_value", "raw_score", "raw_utility", "visits",
                 "value_sum", "score_sum", "utility_sum", "children", "child_visits", "child_q", "priors", "legal"):
        getattr(new, name)[:, :old] = getattr(tree, name)
    new.num_nodes[:] = tree.num_nodes
    games = np.repeat(np.arange(batch), old)
    nodes = np.tile(np.arange(old), batch)
    env.put(new.states, new.slot(games, nodes), tree.states)
    return new


def reroot(env: "VecEnv", tree: Tree, roots: np.ndarray, max_nodes: int) -> None:
    """Keep, per game, only the subtree under ``roots[b]``, re-indexed so that it starts at ROOT.

    In place: the tree's arrays and state storage are reused (every gather copies before the
    write-back), so a search that keeps its tree never allocates again. ``roots`` [B] are nodes
    of ``tree``; ``UNVISITED`` keeps nothing (the game starts empty). At most ``max_nodes`` nodes
    are kept per game: the first ones in index order, which form a connected subtree because
    parents precede children. An edge to a dropped node keeps its statistics but becomes
    ``UNVISITED``, so a later simulation through it recreates the child. (Tree reuse as in
    AlphaZero; mctx rebuilds its trees every move.)
    """
    batch, capacity = tree.parent.shape
    rows = np.arange(batch)[:, None]
    nodes = np.arange(capacity)[None, :]
    exists = nodes < tree.num_nodes[:, None]  # [B, M]
    target = np.where(roots >= 0, roots, capacity)[:, None]  # never matches when keeping nothing
    in_subtree = exists & (nodes == target)
    ancestor = np.where(exists, tree.parent, NO_PARENT).astype(np.int64)
    while True:  # one step up per iteration: as many iterations as the tree is deep
        climbing = ancestor != NO_PARENT
        if not climbing.any():
            break
        in_subtree |= climbing & (ancestor == target)
        ancestor = np.where(climbing, tree.parent[rows, np.maximum(ancestor, 0)], NO_PARENT)
    rank = np.cumsum(in_subtree, axis=1) - 1  # new index of each kept node
    in_subtree &= rank < max_nodes
    count = in_subtree.sum(axis=1).astype(np.int32)  # [B]
    width = int(count.max(initial=0))
    if width > 0:
        remap = np.where(in_subtree, rank, UNVISITED)  # [B, M] old node -> new node
        order = np.argsort(~in_subtree, axis=1, kind="stable")[:, :width]  # [B, W] new node -> old node
        games, columns = np.nonzero(np.arange(width)[None, :] < count[:, None])
        moved = env.take(tree.states, tree.slot(games, order[games, columns]))  # copies
        env.put(tree.states, tree.slot(games, columns), moved)
        for name in ("player", "terminal", "raw_value", "raw_score", "raw_utility", "visits", "value_sum",
                     "score_sum", "utility_sum", "action", "child_visits", "child_q", "priors", "legal"):
            array = getattr(tree, name)
            array[:, :width] = array[rows, order]
        # Columns past a game's count hold rows of nodes that do not exist (garbage indices):
        # clip them into range; those columns stay unused.
        parent = np.clip(tree.parent[rows, order], NO_PARENT, capacity - 1)
        tree.parent[:, :width] = np.where(parent >= 0, remap[rows, np.maximum(parent, 0)], NO_PARENT)
        children = np.clip(tree.children[rows, order], UNVISITED, capacity - 1)  # [B, W, A]
        tree.children[:, :width] = np.where(
            children >= 0, remap[rows[:, :, None], np.maximum(children, 0)], UNVISITED
        )
        tree.parent[:, ROOT] = NO_PARENT
        tree.action[:, ROOT] = NO_ACTION
    tree.num_nodes[:] = count
