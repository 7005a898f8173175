"""Agent specs: picklable descriptions of agents, parsed from the command line's strings.

A spec names an agent without holding a live model, so a match can be cut into chunks that run
in other processes (each chunk builds its agents from the specs, ``arena.play_match_chunk``):

    random | greedy | mcts:K          the baselines (``agents.py``)
    PATH/step-00001000.pt            a checkpoint file (``train/checkpoint.py``)
    checkpoints/<run>/               a run folder: its newest checkpoint
    FILE                             an exported bot file (``bot/export.py``, ``catena-zero export``)
    AgentSpec.from_model(...)        a live network's weights and config (in-loop evaluation)

``parse_agent_spec`` checks a string and resolves paths (a run folder to its newest checkpoint);
``build_agent`` turns a spec into an ``Agent``. Bad input raises ``ValueError`` (or
``CheckpointError``, a ``ValueError``) with one line naming it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Optional

from ..errors import UserError
from .agents import Agent, GreedyAgent, NetAgent, RandomAgent, UCTAgent

if TYPE_CHECKING:
    from ..config import Config
    from ..game.options import GameConfig

BASELINES = ("random", "greedy", "mcts:K")
SPEC_USAGE = "random, greedy, mcts:K, a checkpoint file, a run folder or an exported bot file"


@dataclass(frozen=True, eq=False)
class AgentSpec:
    """What ``build_agent`` needs to make an agent; plain values only, so it pickles."""

    kind: str  # "random", "greedy", "mcts", "checkpoint", "bot" or "weights"
    name: str  # how reports and ladders call it
    simulations: Optional[int] = None  # mcts: K; network agents: override of the search budget
    path: Optional[str] = None  # checkpoint or bot file (resolved: a run folder's newest checkpoint)
    step: Optional[int] = None  # training step of a network (checkpoint, bot, weights)
    config: Optional["Config"] = None  # weights: the network's run config (net and search sections)
    weights: Optional[dict[str, Any]] = None  # weights: the model's state dict (CPU tensors)

    @classmethod
    def from_model(cls, model, config: "Config", name: str = "current", step: Optional[int] = None,
                   simulations: Optional[int] = None) -> "AgentSpec":
        """A live network as a spec: its CPU state dict and the config it was built from."""
        weights = {k: v.detach().cpu().clone() for k, v in model.state_dict().items()}
        return cls(kind="weights", name=name, simulations=simulations, step=step, config=config, weights=weights)


def _positive(text: str, what: str) -> int:
    if not text.isdigit() or int(text) < 1:
        raise UserError(f"{what} needs a positive simulation count, as in 'mcts:200'; got {text!r}")
    return int(text)


def parse_agent_spec(text: str, simulations: Optional[int] = None) -> AgentSpec:
    """An ``AgentSpec`` from a command-line string; ``simulations`` applies to network agents."""
    text = text.strip()
    if text == "random":
        return AgentSpec(kind="random", name="random")
    if text == "greedy":
        return AgentSpec(kind="greedy", name="greedy")
    if text.startswith("mcts:") or text == "mcts":
        k = _positive(text.partition(":")[2], "mcts")
        return AgentSpec(kind="mcts", name=f"mcts:{k}", simulations=k)
    path = Path(text)
    if not path.exists():
        raise UserError(f"unknown agent {text!r}: expected {SPEC_USAGE}")
    from ..train.checkpoint import list_checkpoints, resolve_checkpoint

    if path.is_dir() or _looks_like_checkpoint(path):
        resolved = resolve_checkpoint(path)  # CheckpointError: a run folder without checkpoints
        step = _step_of(resolved, list_checkpoints(resolved.parent.parent))
        return AgentSpec(kind="checkpoint", name=checkpoint_name(resolved, step), simulations=simulations,
                         path=str(resolved), step=step)
    from ..bot.export import read_bot

    header = read_bot(path).header  # BotFileError names what is wrong with a file that is neither
    return AgentSpec(kind="bot", name=path.name, simulations=simulations, path=str(path), step=header.step)


def checkpoint_name(path: Path, step: Optional[int]) -> str:
    """``<run>/step-XXXXXXXX``: a checkpoint file's name in reports (its run folder's name first)."""
    run = path.parent.parent.name if path.parent.name == "ckpt" else path.parent.name
    return f"{run}/{path.stem}" if run else path.stem


def _step_of(path: Path, found: list[tuple[int, Path]]) -> Optional[int]:
    for step, p in found:
        if p.resolve() == path.resolve():
            return step
    return None


def _looks_like_checkpoint(path: Path) -> bool:
    """True for a torch zip archive (a checkpoint), False for a safetensors file (a bot file: an
    8-byte little-endian header length, then the header's JSON ``{``); ValueError for anything
    else. The loaders then name whatever else is wrong with the file."""
    try:
        with path.open("rb") as f:
            head = f.read(9)
    except OSError as exc:
        raise UserError(f"cannot read {path}: {exc.strerror}") from None
    if head[8:9] == b"{":
        return False  # read_bot reports a truncated or foreign safetensors file
    if head[:4] != b"PK\x03\x04":
        raise UserError(f"{path} is neither a checkpoint (a torch zip file) nor an exported bot file")
    return True


def build_agent(spec: AgentSpec | str, device: Optional[str] = None, tree_reuse: bool = False) -> Agent:
    """A live ``Agent`` from a spec (or a spec string); ``device`` overrides a network's device."""
    if isinstance(spec, str):
        spec = parse_agent_spec(spec)
    if spec.kind == "random":
        return RandomAgent()
    if spec.kind == "greedy":
        return GreedyAgent()
    if spec.kind == "mcts":
        return UCTAgent(int(spec.simulations or 0), tree_reuse=tree_reuse)
    if spec.kind == "checkpoint":
        from ..train.checkpoint import load_checkpoint, model_from_checkpoint

        checkpoint = load_checkpoint(spec.path)
        agent = NetAgent(model_from_checkpoint(checkpoint), checkpoint.config.net, checkpoint.config.search,
                         name=spec.name, step=checkpoint.step, simulations=spec.simulations, device=device,
                         tree_reuse=tree_reuse, trained_for=checkpoint.config.game)
        return agent
    if spec.kind == "weights":
        from ..net import model_from_weights

        if spec.config is None or spec.weights is None:
            raise ValueError(f"agent spec {spec.name!r} of kind 'weights' needs a config and weights")
        agent = NetAgent(model_from_weights(spec.config.net, spec.weights), spec.config.net, spec.config.search, name=spec.name, step=spec.step,
                         simulations=spec.simulations, device=device, tree_reuse=tree_reuse,
                         trained_for=spec.config.game)
        return agent
    if spec.kind == "bot":
        return _build_bot_agent(spec, device, tree_reuse)
    raise ValueError(f"unknown agent kind {spec.kind!r}")


def _build_bot_agent(spec: AgentSpec, device: Optional[str], tree_reuse: bool) -> Agent:
    """An exported bot file as a batched network agent: its weights, its default search settings
    (``--sims`` overrides the simulation count), and only the rule sets it was trained for."""
    from ..bot.export import read_bot
    from ..net import model_from_weights

    bot = read_bot(spec.path)  # BotFileError (a ValueError): missing, damaged, unknown version
    return NetAgent(model_from_weights(bot.header.net, bot.weights), bot.header.net, bot.header.search, name=spec.name, step=bot.header.step,
                    simulations=spec.simulations, device=device, tree_reuse=tree_reuse,
                    trained_for=bot.header.game, rule_sets=bot.header.trained_for)


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
        trained = [(a.name, a.trained_for) for a in agents if a.trained_for is not None]
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
    komi = base.komi if game_type == "komi" and lo <= base.komi <= hi else 0
    return GameConfig(side=side, game_type=game_type, scoring=scoring, komi=komi)
