"""Evaluation: batched agents and baselines, the arena (matches between two agents), Elo ratings,
and the ladder of a training run's checkpoints.

Modules: ``agents`` (Agent and its implementations), ``specs`` (picklable agent descriptions
parsed from strings), ``arena`` (play_match, MatchResult, the report), ``ratings`` (score and
Elo intervals, Bradley-Terry fits), ``ladder`` (a run's checkpoints against each other and the
baselines). Data flows one way: game -> net/search -> eval; nothing below imports eval.
"""

from .agents import Agent, GreedyAgent, NetAgent, RandomAgent, UCTAgent
from .arena import GameOutcome, MatchResult, MatchSpec, Tally, play_match, play_match_chunk, report_lines
from .ratings import PairResult, RatingFit, fit_ratings
from .specs import AgentSpec, build_agent, parse_agent_spec

__all__ = [
    "Agent",
    "AgentSpec",
    "GameOutcome",
    "GreedyAgent",
    "MatchResult",
    "MatchSpec",
    "NetAgent",
    "PairResult",
    "RandomAgent",
    "RatingFit",
    "Tally",
    "UCTAgent",
    "build_agent",
    "fit_ratings",
    "parse_agent_spec",
    "play_match",
    "play_match_chunk",
    "report_lines",
]
