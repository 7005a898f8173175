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
from operator import itemgetter
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from ..game.vec import EnvState, VecEnv

ROOT = 0  # index of the root node of every game's tree
UNVISITED = -1  # children[b, n, a] of an action whose child node was never created
NO_PARENT = -1  # parent[b, ROOT]
NO_ACTION = -1  # action[b, ROOT]

# The arrays of a ``Tree``: one entry per node ([B, M]) and one row per node ([B, M, A]).
NODE_ARRAYS = ("parent", "action", "player", "terminal", "raw_value", "raw_score", "raw_utility", "visits",
               "value_sum", "score_sum", "utility_sum")
EDGE_ARRAYS = ("children", "child_visits", "child_q", "priors", "legal")


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

    def __post_init__(self) -> None:
        # Flat views of every array: ``flat``, one entry or one [A] row per node slot b * M + n;
        # ``flat_edges``, one entry per edge (b * M + n) * A + a. Creation, selection and backup
        # index them with slots or edges (one int, a slice or [K]): the same code for a batch
        # and for one game. The arrays are only ever written in place, so the views stay valid.
        self.flat = {name: getattr(self, name).reshape(-1) for name in NODE_ARRAYS}
        self.flat.update((name, getattr(self, name).reshape(-1, self.num_actions)) for name in EDGE_ARRAYS)
        self.flat_edges = {name: getattr(self, name).reshape(-1) for name in EDGE_ARRAYS}
        # what a visit adds to (``_visit``) and what selection reads (``_stats_at``), in order
        self._sums = tuple(self.flat[name] for name in ("visits", "value_sum", "score_sum", "utility_sum"))
        self._edge_sums = (self.flat_edges["child_visits"], self.flat_edges["child_q"])
        self._read = tuple(self.flat[name] for name in (
            "visits", "utility_sum", "raw_utility", "child_visits", "child_q", "priors", "legal"))
        self._roots = slice(ROOT, None, self.capacity)  # the slots b * M + ROOT

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
        flat views (``flat``) that selection and backup index (fewer, cheaper gathers)."""
        return games.astype(np.int64) * self.capacity + nodes

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
        is_root = parent == NO_PARENT
        self._write_nodes(self.slot(games, nodes), parent, np.where(is_root, NO_ACTION, action), player, terminal,
                          raw_value, raw_score, raw_utility, priors, legal)
        linked = ~is_root
        edge = self.slot(games[linked], parent[linked]) * self.num_actions + action[linked]
        self.flat_edges["children"][edge] = nodes[linked]
        self.num_nodes[games] += 1
        return nodes

    def add_node_one(
        self, parent: int, action: int, player: int, terminal: bool, raw_value, raw_score, raw_utility,
        priors: np.ndarray, legal: np.ndarray,  # [A] each
    ) -> int:
        """``add_nodes`` for one non-root node of game 0 (a single-game search); returns the node."""
        node = int(self.num_nodes[0])
        assert node < self.capacity, f"search tree is full ({self.capacity} nodes per game)"
        self._write_nodes(node, parent, action, player, terminal, raw_value, raw_score, raw_utility, priors, legal)
        self.children[0, parent, action] = node
        self.num_nodes[0] = node + 1
        return node

    def _write_nodes(self, at, parent, action, player, terminal, raw_value, raw_score, raw_utility, priors, legal) -> None:
        """Write new nodes' rows at slots ``at`` (one int, or [K] with [K] / [K, A] values): what
        they were created with, no visits, no children."""
        flat = self.flat
        flat["parent"][at] = parent
        flat["action"][at] = action
        flat["player"][at] = player
        flat["terminal"][at] = terminal
        flat["raw_value"][at] = raw_value
        flat["raw_score"][at] = raw_score
        flat["raw_utility"][at] = raw_utility
        flat["visits"][at] = 0
        flat["value_sum"][at] = 0.0
        flat["score_sum"][at] = 0.0
        flat["utility_sum"][at] = 0.0
        flat["children"][at] = UNVISITED
        flat["child_visits"][at] = 0
        flat["child_q"][at] = 0.0
        flat["priors"][at] = priors
        flat["legal"][at] = legal

    def stats(self, games: np.ndarray, nodes: np.ndarray) -> NodeStats:
        """Gather what selection reads at one node per game ([K] games, [K] nodes)."""
        return self._stats_at(self.slot(games, nodes))

    def node_stats(self, node: int) -> NodeStats:
        """``stats`` of node ``node`` of game 0 as [1]/[1, A] row views (a single-game search)."""
        return self._stats_at(slice(node, node + 1))

    def root_stats(self, games: np.ndarray | None = None) -> NodeStats:
        """``stats`` of the roots of ``games`` ([K]; None: every game, as views, no copies, valid
        until the tree changes)."""
        if games is not None:
            return self.stats(games, np.full(games.size, ROOT))
        return self._stats_at(self._roots)

    def _stats_at(self, at: np.ndarray | slice) -> NodeStats:
        """``NodeStats`` of the node slots ``at``: [K] slots (gathered copies) or a slice (views)."""
        if isinstance(at, slice):
            rows = map(itemgetter(at), self._read)
        else:
            rows = [np.take(array, at, axis=0) for array in self._read]
        visits, utility_sum, raw_utility, child_visits, child_q, priors, legal = rows
        return NodeStats(
            visits=visits,
            utility=(utility_sum / np.maximum(visits, 1)).astype(np.float32),
            raw_utility=raw_utility,
            child_visits=child_visits,
            child_q=child_q,
            priors=priors,
            legal=legal,
        )

    def backup(
        self, games: np.ndarray, leaf: np.ndarray, value: np.ndarray, score: np.ndarray, utility: np.ndarray
    ) -> None:
        """Add one visit with ``value`` / ``score`` / ``utility`` (leaf's player to move) on each
        game's root-leaf path.

        [K] arrays: distinct games, one leaf each. Loops over depth, vectorised over the games
        still climbing (``backup_one`` climbs one game's path with Python ints); both apply
        ``_visit`` and ``_visit_edge``.
        """
        base = games.astype(np.int64) * self.capacity  # slot of each game's root
        at = base + leaf
        value = value.astype(np.float32)
        score = score.astype(np.float32)
        utility = utility.astype(np.float32)
        parents, players, actions = self.flat["parent"], self.flat["player"], self.flat["action"]
        while at.size:
            self._visit(at, value, score, utility)
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
            self._visit_edge(parent_at * self.num_actions + actions[at], utility)
            at = parent_at

    def backup_one(self, leaf: int, value, score, utility) -> None:
        """``backup`` for one leaf of game 0 (a single-game search): the same steps and float32
        arithmetic on numpy scalars, as a Python loop (numpy's fixed cost per call would dominate)."""
        value, score, utility = np.float32(value), np.float32(score), np.float32(utility)
        parents, players, actions = self.flat["parent"], self.flat["player"], self.flat["action"]
        width = self.num_actions
        at = leaf  # the slot of node n of game 0 is n
        while True:
            self._visit(at, value, score, utility)
            parent = int(parents[at])
            if parent == NO_PARENT:
                return
            if players[parent] != players[at]:
                value, score, utility = -value, -score, -utility
            self._visit_edge(parent * width + int(actions[at]), utility)
            at = parent

    def _visit(self, at, value, score, utility) -> None:
        """One more visit of the node slots ``at`` (an int, or [K] distinct slots) with these
        results, each for its node's player to move."""
        visits, value_sum, score_sum, utility_sum = self._sums
        visits[at] += 1
        value_sum[at] += value
        score_sum[at] += score
        utility_sum[at] += utility

    def _visit_edge(self, edge, utility) -> None:
        """One more visit of the edges ``edge`` (an int, or [K] distinct ones; ``flat_edges``) with
        ``utility`` for the parent's player to move: Q is the running mean (mctx)."""
        visits, q = self._edge_sums
        visits[edge] += 1
        if isinstance(edge, int):  # numpy's arithmetic on one edge, in Python floats (4x faster)
            # a float32 difference over an int32 count is float64, added to Q in float64 and
            # stored as float32, exactly as the array form below computes it
            old = q[edge]
            q[edge] = float(old) + float(utility - old) / visits.item(edge)
        else:
            q[edge] += (utility - q[edge]) / visits[edge]


def grown(tree: Tree, capacity: int, states: "EnvState", env: "VecEnv") -> Tree:
    """A copy of ``tree`` with room for ``capacity`` nodes per game; ``states`` is the new state
    storage (``batch_size * capacity`` slots). Node indices are unchanged, so nothing is re-linked."""
    batch, old = tree.batch_size, tree.capacity
    if capacity < old:
        raise ValueError(f"cannot shrink a tree from {old} to {capacity} nodes per game")
    new = Tree.allocate(batch, capacity, tree.num_actions, states)
    for name in NODE_ARRAYS + EDGE_ARRAYS:
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
