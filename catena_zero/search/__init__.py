"""Batched array-based MCTS (PUCT and Gumbel roots), evaluators without a network, an exact solver
for tiny boards. Players that search (``mcts:K``, networks) are ``eval/agents.py``'s search agents.

Modules: ``tree`` (the arrays), ``types`` (``SearchOutput``), ``puct`` and ``gumbel`` (root and
interior rules, move choice), ``mcts`` (the simulation loop as a generator, tree reuse, lockstep
searches), ``utility`` (KataGo's score utility), ``ties`` (random tie-breaking), ``rollout``
(uniform and random-rollout evaluators), ``komi`` (a fair komi from an evaluator), ``solver``
(exact values on side 2-3, the test oracle).
"""

from .mcts import MCTS, LockstepSearch, run_lockstep
from .rollout import RolloutEvaluator, UniformEvaluator
from .solver import Solution, Solver, SolverEvaluator
from .tree import NO_ACTION, NO_PARENT, ROOT, UNVISITED, Tree
from ..evalfn import BatchEvalFn, EvalFn, Evaluation, evaluate_each
from .types import SearchOutput

__all__ = [
    "MCTS",
    "BatchEvalFn",
    "LockstepSearch",
    "evaluate_each",
    "run_lockstep",
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
