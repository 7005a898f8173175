"""Evaluation by matches: batched agents and baselines, the registry of player kinds, the arena
(matches between two agents), Elo ratings, and the ladder of a training run's checkpoints.

Modules: ``agents`` (Agent, its implementations; an agent is also a single-game
player), ``specs`` (the one registry of player kinds: ``random``, ``greedy``, ``mcts:K``,
checkpoints, run folders, bot files, parsed from strings), ``arena`` (play_match, MatchResult, the
report), ``ratings`` (score and Elo intervals, Bradley-Terry fits), ``ladder`` (a run's checkpoints
against each other and the baselines), ``inloop`` (a run's learning-curve matches). Data flows one
way: game -> net/search -> bot -> eval; nothing below imports eval.
"""

from .agents import Agent, GreedyAgent, NetAgent, RandomAgent, UCTAgent
from .arena import GameOutcome, MatchResult, Tally, play_match, report_lines
from .ratings import PairResult, RatingFit, fit_ratings
from .specs import PLAYER_KINDS, AgentSpec, build_agent, make_player, parse_agent_spec

__all__ = [
    "Agent",
    "AgentSpec",
    "GameOutcome",
    "GreedyAgent",
    "MatchResult",
    "NetAgent",
    "PLAYER_KINDS",
    "PairResult",
    "RandomAgent",
    "RatingFit",
    "Tally",
    "UCTAgent",
    "build_agent",
    "fit_ratings",
    "make_player",
    "parse_agent_spec",
    "play_match",
    "report_lines",
]
