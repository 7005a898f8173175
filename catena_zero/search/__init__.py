"""Batched array-based MCTS (PUCT and Gumbel roots), evaluators without a network, an exact solver
for tiny boards. The search player that wraps them for a ``Game`` is ``bot/search_player.py``.

Modules: ``tree`` (the arrays), ``puct`` and ``gumbel`` (root and interior rules, move choice),
``mcts`` (the simulation loop and tree reuse), ``rollout`` (uniform and random-rollout
evaluators), ``solver`` (exact values on side 2-3, the test oracle).
"""

from .mcts import MCTS
from .rollout import RolloutEvaluator, UniformEvaluator
from .solver import Solution, Solver, SolverEvaluator
from .tree import NO_ACTION, NO_PARENT, ROOT, UNVISITED, Tree
from ..evaluation import EvalFn, Evaluation
from .types import SearchOutput

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
    "Solution",
    "Solver",
    "SolverEvaluator",
    "Tree",
    "UniformEvaluator",
]
