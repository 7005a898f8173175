"""In-loop evaluation as the driver sees it: what it is handed (``InLoopEvaluation``, a callable)
and what comes back (``InLoopResult``, one point of the learning curve).

The matches themselves are evaluation code and live in ``eval/inloop.py`` (``evaluate_in_loop``);
the command that starts a run passes that function in (``train.driver.train(evaluate=...)``), so
``train/`` never imports ``eval/`` and data flows one way. Every ``eval.interval_steps`` learner steps
the driver runs it beside the loop in a Ray actor (``selfplay.workers.RemoteRunner``): it must be
a picklable top-level function.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Protocol

from ..config import Config
from ..game.options import GameConfig, RuleSet


@dataclass(frozen=True)
class InLoopResult:
    """The network's score rate (wins + draws / 2) against each opponent, at one learner step."""

    step: int
    game: GameConfig  # the rule set and komi the matches were played at
    games: int  # per opponent
    win_rates: dict[str, float]  # opponent name -> score rate of the network in [0, 1]
    cpu_seconds: float = 0.0  # CPU time the matches took (the task's process)

    def describe(self) -> str:
        rates = ", ".join(f"{rate:.0%} vs {name}" for name, rate in self.win_rates.items())
        return f"network scores {rates} ({self.games} games each, side {self.game.side}, komi {self.game.komi})"

    def short(self) -> str:
        return " ".join(f"{name}:{rate:.0%}" for name, rate in self.win_rates.items())


class InLoopEvaluation(Protocol):
    """``evaluate(config, weights, previous, komi_estimates, seed, step) -> InLoopResult``: the matches of
    the network with ``weights`` (a CPU state dict) against ``config.eval``'s opponents, ``previous``
    the last kept checkpoint's weights (or None), at self-play's fair-komi estimates."""

    def __call__(self, config: Config, weights: dict, previous: Optional[dict], komi_estimates: dict[RuleSet, int],
                 seed: int, step: int = 0) -> InLoopResult: ...
