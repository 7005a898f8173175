"""The one registry of player kinds: how a string such as ``mcts:200`` becomes a player.

Every command that takes a player reads it here: ``evaluate``, ``ladder``, ``ablate`` and the
in-loop matches build batched ``Agent``s (``agents.py``), ``play --opponent`` a single-game player,
which is the same agent at batch size one (``Agent.choose``). The kinds:

    random            uniformly random legal moves (``RandomAgent``)
    greedy            the move with the best immediate score margin (``GreedyAgent``)
    mcts:K            the UCT baseline (``UCTAgent``): PUCT over uniform priors, one random
                      rollout per leaf, K simulations per move, win/loss only (no score
                      utility), a fresh tree every move. It is the same player everywhere, whatever
                      a config's search section says: every ``mcts:K`` figure of docs/RESULTS.md
                      is this baseline.
    net:FILE, FILE    a trained network (``NetAgent``): a checkpoint file, a run folder (its
                      newest checkpoint) or an exported bot file, read by the one loader
                      (``artifacts.network.load_network``). Networks search with their own
                      search settings, without noise and without tree reuse; ``simulations``
                      (``--sims``) overrides their simulation count.

The ``bot`` of ``play --opponent bot`` (the bot shipped for the rules) is ``play``'s spelling of
``--bot FILE``: it needs the rules to pick a file, so ``commands/play.py`` resolves it.

``parse_agent_spec`` checks a string and reads the network it names, once, into an ``AgentSpec``;
``build_agent`` turns a spec into an ``Agent``; ``make_player`` does both for one game. Bad input
raises a ``UserError`` (``CheckpointError``, ``BotFileError`` for damaged files) with one line
naming it.

Adding a kind: an entry in ``PLAYER_KINDS`` (how it is written, one line of help), a branch in
``parse_agent_spec`` and one in ``build_agent``; every command then accepts it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Optional

from ..artifacts.network import BOT, CHECKPOINT, TrainedNetwork, load_network
from ..bot.players import CONFIGURED, JUDGED
from ..errors import UserError
from ..game.options import RuleSet
from .agents import Agent, GreedyAgent, NetAgent, RandomAgent, UCTAgent

if TYPE_CHECKING:
    from ..bot.players import Player
    from ..config import Config
    from ..game.options import GameConfig


@dataclass(frozen=True)
class PlayerKind:
    """One kind of player as the command line writes it."""

    usage: str  # e.g. "random" or "mcts:K"
    help: str  # one line for --help


PLAYER_KINDS: dict[str, PlayerKind] = {
    "random": PlayerKind("random", "uniformly random legal moves"),
    "greedy": PlayerKind("greedy", "the move with the best immediate score margin"),
    "mcts": PlayerKind("mcts:K", "classic UCT, K random-rollout simulations a move on a fresh tree"),
    "net": PlayerKind("net:FILE", "a trained network: a checkpoint, a run folder or an exported bot file"),
}
SPEC_USAGE = "random, greedy, mcts:K, net:FILE, or the path of a checkpoint, a run folder or an exported bot file"

NET_NEEDS_FILE = ("player kind 'net' needs trained weights: write net:FILE with a training checkpoint "
                  "(catena-zero train writes them in its run folder) or an exported bot file "
                  "(catena-zero export), play a bot file with --bot FILE, or the shipped bot with --opponent bot")


@dataclass(frozen=True)
class AgentSpec:
    """What ``build_agent`` needs to make an agent: plain values and, for a network read from the
    command line, the network as read (never a live model: specs travel to Ray tasks)."""

    kind: str  # "random", "greedy", "mcts", "checkpoint" or "bot"
    name: str  # how reports and ladders call it
    simulations: Optional[int] = None  # mcts: K; network agents: override of the search budget
    path: Optional[str] = None  # checkpoint or bot file (resolved: a run folder's newest checkpoint)
    step: Optional[int] = None  # training step of a network
    network: Optional[TrainedNetwork] = field(default=None, repr=False, compare=False)  # None: read at build


def _simulation_count(text: str) -> int:
    if not text.isdigit() or int(text) < 1:
        raise UserError(f"mcts needs a positive simulation count, as in 'mcts:200'; got {text!r}")
    return int(text)


def parse_agent_spec(text: str, simulations: Optional[int] = None) -> AgentSpec:
    """An ``AgentSpec`` from a command-line string; ``simulations`` applies to network agents."""
    text = text.strip()
    kind, sep, arg = text.partition(":")
    if kind in ("random", "greedy"):
        if sep:
            raise UserError(f"player kind {kind!r} takes no argument, got {text!r}")
        return AgentSpec(kind=kind, name=kind)
    if kind == "mcts":
        if not sep:
            raise UserError("player kind 'mcts' needs a simulation count: write mcts:K, as in mcts:200")
        k = _simulation_count(arg)
        return AgentSpec(kind="mcts", name=f"mcts:{k}", simulations=k)
    if kind == "net":
        if not arg:
            raise UserError(NET_NEEDS_FILE)
        if not Path(arg).exists():
            raise UserError(f"net:{arg}: no such file; {NET_NEEDS_FILE}")
        return _network_spec(Path(arg), simulations)
    path = Path(text)
    if not path.exists():
        raise UserError(f"unknown player kind {text!r} (known: {SPEC_USAGE})")
    return _network_spec(path, simulations)


def _network_spec(path: Path, simulations: Optional[int]) -> AgentSpec:
    """The spec of a checkpoint file, a run folder (its newest checkpoint) or a bot file, with the
    network read (``load_network`` names what is wrong with a file)."""
    network = load_network(path)
    return AgentSpec(kind=network.kind, name=network.name, simulations=simulations, path=str(network.path),
                     step=network.step, network=network)


def build_agent(spec: AgentSpec | str, device: Optional[str] = None) -> Agent:
    """A live ``Agent`` from a spec (or a spec string); ``device`` overrides a network's device.
    Search agents search each move afresh (no tree reuse: every move gets its stated budget)."""
    if isinstance(spec, str):
        spec = parse_agent_spec(spec)
    if spec.kind == "random":
        return RandomAgent()
    if spec.kind == "greedy":
        return GreedyAgent()
    if spec.kind == "mcts":
        return UCTAgent(int(spec.simulations or 0))
    if spec.kind in (CHECKPOINT, BOT):
        network = spec.network or load_network(spec.path)
        # A bot file plays only the rule sets it names, and judges the R7 set-up by its heads, as its
        # Bot does in play, engine and serve (the Bot is this agent at batch size one); a checkpoint
        # is any game its run's config allows, its set-up the configured komi and a random colour.
        bot = network.kind == BOT
        return NetAgent(network.model(), network.net, network.search, name=spec.name, step=network.step,
                        simulations=spec.simulations, device=device, default_game=network.game,
                        rule_sets=network.trained_for if bot else None, setup=JUDGED if bot else CONFIGURED)
    raise ValueError(f"unknown agent kind {spec.kind!r}")  # a spec made in code, not typed


def make_player(text: str, config: "Config") -> "Player":
    """The single-game player of a kind string (``play --opponent``) for games of ``config.game``.

    Every kind is its batched agent, a player at batch size one (``Agent.choose``); an exported bot file is
    its ``Bot`` (``bot/bot.py``), which is that too (the same ``NetAgent``, the same search, set-up
    by its heads and randomness from the caller's generator) plus the bot's analysis, exactly as
    ``play --bot FILE`` plays it.
    """
    spec = parse_agent_spec(text)
    if spec.kind == BOT:
        from ..bot.bot import Bot

        return Bot.from_network(spec.network)
    agent = build_agent(spec)
    trained, game = agent.default_game, config.game
    if spec.kind == CHECKPOINT and trained is not None and not RuleSet.of(trained).covers(game):
        raise UserError(f"{text} was trained for side {trained.side}, {trained.game_type}, {trained.scoring} "
                        f"scoring; this game is side {game.side}, {game.game_type}, {game.scoring} scoring")
    return agent


def match_game_config(agents: list[Agent], config_path: Optional[str] = None, side: Optional[int] = None,
                      game_type: Optional[str] = None, scoring: Optional[str] = None) -> "GameConfig":
    """The options a match is played by: a config file's game section if given, else the options
    the network agents were trained for (they must agree), else the defaults; then the flags.

    The config's komi is kept where it is valid (it is the komi of matches between baselines).
    """
    from ..config import load_config
    from ..game.options import GameConfig, komi_range

    if config_path is not None:
        base = load_config(config_path).game
    else:
        flags = {"side": side, "game_type": game_type, "scoring": scoring}
        trained = [(a.name, a.default_game) for a in agents if a.default_game is not None]
        base = trained[0][1] if trained else GameConfig()
        for name, other in trained[1:]:
            differ = [key for key in flags if getattr(other, key) != getattr(base, key) and flags[key] is None]
            if differ:
                key = differ[0]
                raise UserError(
                    f"{trained[0][0]} and {name} were trained for different {key} "
                    f"({getattr(base, key)} and {getattr(other, key)}); choose one with --{key.replace('_', '-')}")
    side = base.side if side is None else side
    game_type = base.game_type if game_type is None else game_type
    scoring = base.scoring if scoring is None else scoring
    lo, hi = komi_range(scoring)
    rules = RuleSet(side, game_type, scoring)
    return rules.game(base.komi if rules.game_type_rule.has_komi and lo <= base.komi <= hi else 0)
