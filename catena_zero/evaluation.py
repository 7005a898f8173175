"""The old name of ``evalfn.py`` (the ``EvalFn`` interface), kept only while ``search/mcts.py``
still imports it: that file is being changed on another branch. Delete this module once its
import reads ``from ..evalfn import``; nothing else uses the old name."""

from .evalfn import BatchEvalFn, EvalFn, Evaluation, evaluate_each  # noqa: F401
