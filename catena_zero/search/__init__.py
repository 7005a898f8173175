"""Batched array-based MCTS (PUCT and Gumbel roots), evaluators without a network, an exact solver
for tiny boards, and the search player.

Modules: ``tree`` (the arrays), ``puct`` and ``gumbel`` (root and interior rules, move choice),
``mcts`` (the simulation loop and tree reuse), ``rollout`` (uniform and random-rollout
evaluators), ``solver`` (exact values on side 2-3, the test oracle), ``player`` (``SearchPlayer``).
"""

from .mcts import MCTS
from .player import SearchPlayer, build_mcts_player, build_net_player
from .rollout import RolloutEvaluator, UniformEvaluator
from .solver import Solution, Solver, SolverEvaluator
from .tree import NO_ACTION, NO_PARENT, ROOT, UNVISITED, Tree
from .types import EvalFn, Evaluation, SearchOutput

__all__ = [
    "MCTS",
    "NO_ACTION",
    "NO_PARENT",
    "ROOT",
    "UNVISITED",
    "EvalFn",
    "Evaluation",
    "RolloutEvaluator",
    "SearchOutput",
    "SearchPlayer",
    "Solution",
    "Solver",
    "SolverEvaluator",
    "Tree",
    "UniformEvaluator",
    "build_mcts_player",
    "build_net_player",
]
