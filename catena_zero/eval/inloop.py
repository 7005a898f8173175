"""In-loop evaluation: the learning curve of a run (``eval`` config section).

Every ``eval.interval_steps`` learner steps the training driver starts ``evaluate_in_loop``, as a Ray
task beside the loop (the command hands it to ``train.driver.train``): small matches
(``eval/arena.py``: all games at once, colours alternating, varied openings) of the current network,
searching without noise, against the opponents of ``eval.opponents``: ``random``, the classic UCT
baseline ``mcts:K`` (the config's ``uct``, K its ``eval.uct_simulations``) and the previous kept
checkpoint. The baselines come from the registry of player kinds (``specs.py``), under the names
every command gives them; the run's own networks are weights in memory, not files the registry
reads, so they are built here. They play on the run's first rule set at one komi for the whole
run, the shipped bot's fair komi (``arena.reference_komi``), so the points of a learning curve are
comparable; only a rule set without a shipped bot takes the fair komi self-play estimates now. Where the rule set has a shipped book at that komi, the matches play its first openings
(``eval/book.py``), the same at every step.
"""

from __future__ import annotations

import time
from typing import Optional

import numpy as np

from ..config import Config
from ..game.options import RuleSet
from ..train.inloop import InLoopResult


def evaluate_in_loop(config: Config, weights: dict, previous: Optional[dict], komi_estimates: dict[RuleSet, int],
                     seed: int, step: int = 0) -> InLoopResult:
    """Play the configured matches of the network with ``weights`` (a CPU state dict)."""
    from ..net import model_from_weights
    from ..net.device import set_torch_threads
    from .agents import Agent, NetAgent
    from .arena import play_match, reference_komi
    from .book import shipped_book
    from .specs import build_agent

    cpu_started = time.process_time()
    set_torch_threads(1)  # a guest on the actors' CPUs
    evaluation = config.eval
    rules = config.rule_sets()[0]  # the configured game's
    reference = reference_komi(rules.game())
    if reference is not None:
        komi = reference.komi
    else:
        komi = komi_estimates.get(rules, 0) if rules.game_type_rule.has_komi else 0
    game = rules.game(komi)
    book = shipped_book(rules)
    fits = book is not None and book.komi == komi and evaluation.games % 2 == 0 and len(book) >= evaluation.games // 2
    book = book.first(evaluation.games // 2) if fits else None  # else random openings
    rng = np.random.default_rng(seed)

    def network(state: dict, name: str) -> NetAgent:
        return NetAgent(model_from_weights(config.net, state), config.net, config.search, name=name,
                        simulations=evaluation.simulations, device="cpu")

    opponents: dict[str, Agent] = {}
    for name in evaluation.opponents:
        if name != "previous":
            baseline = build_agent(baseline_spec(name, evaluation.uct_simulations))
            opponents[baseline.name] = baseline
        elif previous is not None:
            opponents["previous"] = network(previous, "previous")
    current = network(weights, "current")
    rates = {}
    for name, opponent in opponents.items():
        result = play_match(current, opponent, game, evaluation.games, komi, rng, book=book)
        rates[name] = float(result.tally.score)
    return InLoopResult(step=step, game=game, games=evaluation.games, win_rates=rates,
                        cpu_seconds=time.process_time() - cpu_started)


def baseline_spec(opponent: str, uct_simulations: int) -> str:
    """The registry's name of a baseline of ``eval.opponents``: ``uct`` is ``mcts:K`` with K
    ``eval.uct_simulations`` (the config's key, kept for the configs that name it); ``random`` is
    itself."""
    return f"mcts:{uct_simulations}" if opponent == "uct" else opponent
