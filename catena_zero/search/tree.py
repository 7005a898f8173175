"""Search trees for a batch of games, stored as arrays (the mctx layout; no Python object per node).

Shape legend:
    B  games searched together        M  node capacity per game (``Tree.capacity``)
    A  actions, N cells + the button  K  a subset of the games (one node each)

Node ``ROOT`` (0) of game ``b`` is the position being searched; every other node is created by one
simulation, so a search of ``S`` simulations needs ``S + 1`` nodes (plus room for a subtree kept
from the previous move, see ``extract_subtrees``). A node is created only after its parent, so
``parent[b, n] < n``: node indices are a topological order, which the re-rooting relies on.

Per edge ``(node, action)`` the tree keeps the statistics that selection reads (visits, summed
value), as mctx does, so selecting at a node is one row gather per array; they duplicate the
child's own ``visits`` / ``value_sum`` except for the sign convention and after pruning.

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
    value: np.ndarray  # [K] float32 mean backed-up value, node's player to move
    raw_value: np.ndarray  # [K] float32 the evaluator's value of the node (Gumbel's mixed value)
    child_visits: np.ndarray  # [K, A] int32 N(s, a)
    child_q: np.ndarray  # [K, A] float32 Q(s, a), node's player to move; 0 where N(s, a) == 0
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
    visits: np.ndarray  # [B, M] int32 simulations through the node
    value_sum: np.ndarray  # [B, M] float32 sum of backed-up values, node's player to move
    score_sum: np.ndarray  # [B, M] float32 sum of backed-up score margins, node's player to move
    # Per edge.
    children: np.ndarray  # [B, M, A] int32 child node, UNVISITED if not created
    child_visits: np.ndarray  # [B, M, A] int32 simulations through the edge
    child_value_sum: np.ndarray  # [B, M, A] float32 sum of values through the edge, parent's mover
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
            visits=np.empty(shape, np.int32),
            value_sum=np.empty(shape, np.float32),
            score_sum=np.empty(shape, np.float32),
            children=np.empty(edges, np.int32),
            child_visits=np.empty(edges, np.int32),
            child_value_sum=np.empty(edges, np.float32),
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

    def slot(self, games: np.ndarray, nodes: np.ndarray) -> np.ndarray:
        """[K] slots in ``states`` of the given (game, node) pairs."""
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
        priors: np.ndarray,  # [K, A]
        legal: np.ndarray,  # [K, A]
    ) -> np.ndarray:
        """Create one node per game (unvisited, no children) and link it to its parent; returns [K] nodes.

        The node's state must be written to ``states`` at ``slot(games, nodes)`` by the caller.
        """
        nodes = self.num_nodes[games].astype(np.int64)
        if (nodes >= self.capacity).any():
            raise ValueError(f"search tree is full ({self.capacity} nodes per game)")
        is_root = parent == NO_PARENT
        self.parent[games, nodes] = parent
        self.action[games, nodes] = np.where(is_root, NO_ACTION, action)
        self.player[games, nodes] = player
        self.terminal[games, nodes] = terminal
        self.raw_value[games, nodes] = raw_value
        self.raw_score[games, nodes] = raw_score
        self.visits[games, nodes] = 0
        self.value_sum[games, nodes] = 0.0
        self.score_sum[games, nodes] = 0.0
        self.children[games, nodes] = UNVISITED
        self.child_visits[games, nodes] = 0
        self.child_value_sum[games, nodes] = 0.0
        self.priors[games, nodes] = priors
        self.legal[games, nodes] = legal
        linked = ~is_root
        self.children[games[linked], parent[linked], action[linked]] = nodes[linked]
        self.num_nodes[games] += 1
        return nodes

    def stats(self, games: np.ndarray, nodes: np.ndarray) -> NodeStats:
        """Gather what selection reads at one node per game ([K] games, [K] nodes)."""
        child_visits = self.child_visits[games, nodes]
        child_q = self.child_value_sum[games, nodes] / np.maximum(child_visits, 1)
        visits = self.visits[games, nodes]
        return NodeStats(
            visits=visits,
            value=self.value_sum[games, nodes] / np.maximum(visits, 1),
            raw_value=self.raw_value[games, nodes],
            child_visits=child_visits,
            child_q=child_q.astype(np.float32, copy=False),
            priors=self.priors[games, nodes],
            legal=self.legal[games, nodes],
        )

    def backup(self, games: np.ndarray, leaf: np.ndarray, value: np.ndarray, score: np.ndarray) -> None:
        """Add one visit with ``value`` / ``score`` (leaf's player to move) on each game's root-leaf path.

        [K] arrays: distinct games, one leaf each. Loops over depth, vectorised over the games
        still climbing.
        """
        node = leaf.astype(np.int64)
        value = value.astype(np.float32)
        score = score.astype(np.float32)
        while games.size:
            self.visits[games, node] += 1
            self.value_sum[games, node] += value
            self.score_sum[games, node] += score
            parent = self.parent[games, node].astype(np.int64)
            up = parent != NO_PARENT
            games, node, parent, value, score = games[up], node[up], parent[up], value[up], score[up]
            # The parent's mover sees the opposite result unless it is the same player (R8 double turn).
            same = self.player[games, parent] == self.player[games, node]
            sign = np.where(same, np.float32(1), np.float32(-1))
            value, score = value * sign, score * sign
            action = self.action[games, node]
            self.child_visits[games, parent, action] += 1
            self.child_value_sum[games, parent, action] += value
            node = parent


def extract_subtrees(
    env: "VecEnv", old: Tree, roots: np.ndarray, capacity: int, max_nodes: int, states: "EnvState"
) -> Tree:
    """A new tree holding, per game, the subtree of ``old`` under ``roots[b]`` re-indexed from ROOT.

    ``roots`` [B] are nodes of ``old`` (``UNVISITED``: keep nothing, the game starts empty). At most
    ``max_nodes`` nodes are kept per game: the first ones in index order, which form a connected
    subtree because parents precede children. An edge to a dropped node keeps its statistics but
    becomes ``UNVISITED``, so a later simulation through it recreates the child (tree reuse,
    AlphaZero; mctx trees are rebuilt per move). ``states`` is the storage of the new tree
    (``B * capacity`` slots); it may be ``old.states`` itself (states are copied out first).
    """
    batch, old_capacity = old.parent.shape
    rows = np.arange(batch)[:, None]
    nodes = np.arange(old_capacity)[None, :]
    exists = nodes < old.num_nodes[:, None]  # [B, M_old]
    target = np.where(roots >= 0, roots, old_capacity)[:, None]  # never matches when keeping nothing
    in_subtree = exists & (nodes == target)
    ancestor = np.where(exists, old.parent, NO_PARENT).astype(np.int64)
    while True:  # one step up per iteration: as many iterations as the tree is deep
        climbing = ancestor != NO_PARENT
        if not climbing.any():
            break
        in_subtree |= climbing & (ancestor == target)
        ancestor = np.where(climbing, old.parent[rows, np.maximum(ancestor, 0)], NO_PARENT)
    rank = np.cumsum(in_subtree, axis=1) - 1  # new index of each kept node
    in_subtree &= rank < max_nodes
    count = in_subtree.sum(axis=1).astype(np.int32)  # [B]
    new = Tree.allocate(batch, capacity, old.priors.shape[2], states)
    new.num_nodes[:] = count
    width = int(count.max(initial=0))
    if width == 0:
        return new
    remap = np.where(in_subtree, rank, UNVISITED)  # [B, M_old] old node -> new node
    order = np.argsort(~in_subtree, axis=1, kind="stable")[:, :width]  # [B, W] new node -> old node
    kept = np.arange(width)[None, :] < count[:, None]  # [B, W]

    for name in ("player", "terminal", "raw_value", "raw_score", "visits", "value_sum", "score_sum",
                 "action", "child_visits", "child_value_sum", "priors", "legal"):
        getattr(new, name)[:, :width] = getattr(old, name)[rows, order]
    old_parent = old.parent[rows, order]
    new.parent[:, :width] = np.where(old_parent >= 0, remap[rows, np.maximum(old_parent, 0)], NO_PARENT)
    old_children = old.children[rows, order]  # [B, W, A]
    new.children[:, :width] = np.where(
        old_children >= 0, remap[rows[:, :, None], np.maximum(old_children, 0)], UNVISITED
    )
    new.parent[:, ROOT] = NO_PARENT
    new.action[:, ROOT] = NO_ACTION

    games, columns = np.nonzero(kept)
    moved = env.take(old.states, old.slot(games, order[games, columns]))  # copies before overwriting
    env.put(states, new.slot(games, columns), moved)
    return new
