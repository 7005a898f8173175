"""The one loader of a trained network: ``load_network(path)`` -> ``TrainedNetwork``.

A trained network reaches a user in two files: a training checkpoint (``checkpoint.py``: the
run's whole config, the optimiser, counters) and an exported bot file (``botfile.py``: the
network, its default search and game, the rule sets it was trained for). Everything that plays
or continues a network (``evaluate``, ``ladder``, ``ablate``, ``play``, ``engine``, ``serve``,
``train.init_from``) asks this module, which tells the two apart by their first bytes
(``network_kind``), reads the file once, checks it (each format's checksum, finite weights, the
weights against the network they claim to be, finite outputs: ``probe_outputs``) and returns the
one record below. KataGo's engine has one ``load_model`` too.

Finite weights are not enough: weights of 1e30 are finite, yet their products overflow to inf and
then NaN, and a search that meets NaN values plays illegal moves or fails mid-game in every
command that uses the network. So the loader runs one small batched forward (``probe_outputs``:
the starting position and one a few moves in, of each rule set it was trained for and of its
default game, on the CPU in float32) and refuses a network whose outputs are not all finite, one
line naming the file: the cost is one forward of a few positions, a few milliseconds.

What a checkpoint says as a bot file's header would: its network and search are its config's,
its default game the config's game, its rule sets the config's ``rule_sets()``.

Input layouts: both files record the version of their network's input layout (none: layout 1,
``net.features.INPUT_LAYOUTS``). A network of the code's layout loads as it is; one of an older
layout that differs only by one-hot slots of records added since loads with zero input weights for
those slots (``net.model.weights_in_current_layout``: exactly the same outputs on every rule set it was trained
for); any other is refused in one line that names both layouts, never a tensor-shape error.

Errors: ``CheckpointError`` / ``BotFileError`` (one line, naming the file) for a file of that kind
that is damaged or does not fit; ``NetworkFileError`` for a path that is neither (missing, a FIFO,
another kind of file). All three are ``UserError``s.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ..config import NetConfig, SearchConfig
from ..errors import UserError
from ..fileio import open_input
from ..game.options import GameConfig, RuleSet
from .layout import CHECKPOINT_DIR

if TYPE_CHECKING:
    import torch

    from ..net.model import CatenaNet
    from .botfile import BotHeader

CHECKPOINT, BOT = "checkpoint", "bot"  # the two files a trained network comes in (TrainedNetwork.kind)


class NetworkFileError(UserError):
    """A path that holds no trained network: missing, not a regular file, neither kind of file."""


@dataclass(frozen=True)
class TrainedNetwork:
    """A trained network as read from its file: what it is, what it plays, its weights."""

    kind: str  # CHECKPOINT or BOT
    path: Path  # the file read (a run folder's newest checkpoint for a run folder)
    name: str  # how reports call it: "<run>/step-00001234" for a checkpoint, the file name for a bot
    step: int  # learner steps it was trained for
    net: NetConfig  # its architecture (and where it ran)
    search: SearchConfig  # the search it plays with by default
    game: GameConfig  # the game it plays by default (side, game type, scoring, komi)
    trained_for: tuple[RuleSet, ...]  # the rule sets it was trained on (komi is an input: any)
    weights: dict[str, "torch.Tensor"] = dataclasses.field(repr=False)  # its state dict, on the CPU, in the code's input layout
    source: str = ""  # a bot file: the checkpoint it was exported from (for people)

    @property
    def error(self) -> type[UserError]:
        """The error class that names a problem with this file (``CheckpointError``, ``BotFileError``)."""
        if self.kind == CHECKPOINT:
            from .checkpoint import CheckpointError

            return CheckpointError
        from .botfile import BotFileError

        return BotFileError

    def model(self) -> "CatenaNet":
        """Its ``CatenaNet`` (CPU, eval mode); weights that do not fit its network config are the
        file's error (one line naming it), not a ``WeightsMismatch`` from deep inside torch."""
        from ..net import WeightsMismatch, model_from_weights

        try:
            return model_from_weights(self.net, self.weights)
        except WeightsMismatch as exc:
            raise self.error(f"{self.path}: {exc}") from None

    def bot_header(self) -> "BotHeader":
        """What a bot file of this network says about it (a checkpoint's, as ``export`` would write it)."""
        from ..net.features import INPUT_LAYOUT_VERSION
        from .botfile import BotHeader

        return BotHeader(step=self.step, net=self.net, search=self.search, game=self.game,
                         trained_for=self.trained_for, input_layout=INPUT_LAYOUT_VERSION,
                         source=self.source or self.path.name)


def network_kind(path: Path) -> str:
    """CHECKPOINT for a torch zip archive or a run folder, BOT for a safetensors file (an 8-byte
    little-endian header length, then the header's JSON ``{``); ``NetworkFileError`` for anything
    else. The format's own reader then names whatever else is wrong with the file."""
    if not path.exists():
        raise NetworkFileError(f"no such file or folder: {path}")
    if path.is_dir():
        return CHECKPOINT
    with open_input(path, "network file", None, NetworkFileError) as f:  # a FIFO: refused, not opened
        try:
            head = f.read(9)
        except OSError as exc:
            raise NetworkFileError(f"cannot read {path}: {exc.strerror}") from None
    if head[8:9] == b"{":
        return BOT  # read_bot reports a truncated or foreign safetensors file
    if head[:4] != b"PK\x03\x04":
        raise NetworkFileError(f"{path} is neither a checkpoint (a torch zip file) nor an exported bot file")
    return CHECKPOINT


def load_network(path: str | Path, kind: str = "") -> TrainedNetwork:
    """The trained network in a checkpoint file, a run folder (its newest checkpoint) or a bot
    file, read once and checked (module docstring). ``kind`` BOT reads the path as a bot file,
    whatever it holds (what a bot file's reader says of a checkpoint: not a bot file)."""
    path = Path(path)
    if kind not in ("", CHECKPOINT, BOT):
        raise ValueError(f"unknown network kind {kind!r}")  # a caller's bug, not a user's input
    from ..net.model import weights_in_current_layout

    if (kind or network_kind(path)) == CHECKPOINT:
        from .checkpoint import CheckpointError, load_checkpoint, resolve_checkpoint

        resolved = resolve_checkpoint(path)  # CheckpointError: a run folder without checkpoints
        checkpoint = load_checkpoint(resolved)
        config = checkpoint.config
        weights = weights_in_current_layout(checkpoint.model, checkpoint.input_layout, CheckpointError, str(resolved))
        network = TrainedNetwork(kind=CHECKPOINT, path=resolved, name=checkpoint_label(resolved),
                                 step=checkpoint.step, net=config.net, search=config.search, game=config.game,
                                 trained_for=config.rule_sets(), weights=weights)
    else:
        from .botfile import BotFileError, read_bot

        bot = read_bot(path)  # BotFileError names what is wrong
        header = bot.header
        weights = weights_in_current_layout(bot.weights, header.input_layout, BotFileError, str(path))
        network = TrainedNetwork(kind=BOT, path=path, name=path.name, step=header.step, net=header.net,
                                 search=header.search, game=header.game, trained_for=header.trained_for,
                                 weights=weights, source=header.source)
    probe_outputs(network.model(), network.game, network.trained_for, network.error, str(network.path))
    return network


_PROBE_MOVES = 4  # stones on the second probe position of each rule set: the stone planes are used too


def probe_outputs(model: "CatenaNet", game: GameConfig, rule_sets: tuple[RuleSet, ...],
                  error: type[UserError], where: str) -> None:
    """``error`` naming ``where`` unless ``model``'s outputs are all finite on the start and one
    position ``_PROBE_MOVES`` moves in of ``game`` and each of ``rule_sets``, in one batched forward
    (module docstring)."""
    import torch

    from ..game.vec import VecEnv
    from ..net.features import encode, pad_features

    games = list(dict.fromkeys([game, *(rules.game() for rules in rule_sets)]))
    parts = []
    for config in games:
        env = VecEnv(config)
        start, later = env.reset(1), env.reset(1)
        for _ in range(_PROBE_MOVES):
            legal = env.legal_actions(later)[0, :env.spec.num_cells]
            if not legal.any():
                break
            env.step(later, legal.nonzero()[0][:1])  # the first legal cell
        parts += [encode(env, start), encode(env, later)]
    batch = pad_features(parts)
    model = model.float().eval()
    with torch.inference_mode():
        out = model(torch.from_numpy(batch.planes), torch.from_numpy(batch.globals), torch.from_numpy(batch.sides))
    for name in ("policy_logits", "wdl_logits", "score", "ownership"):
        values = getattr(out, name)
        if values is not None and not bool(torch.isfinite(values).all()):
            raise error(f"{where}: its network's outputs are not finite ({name} is NaN or inf on a probe "
                        "position) although its weights are: the weights overflow; the network is broken")


def checkpoint_label(path: Path) -> str:
    """``<run>/step-XXXXXXXX``: a checkpoint file's name in reports (its run folder's name first)."""
    run = path.parent.parent.name if path.parent.name == CHECKPOINT_DIR else path.parent.name
    return f"{run}/{path.stem}" if run else path.stem


@dataclass(frozen=True)
class StartingWeights:
    """What ``weights_for`` read: the weights a new run starts from, and whether they were deepened."""

    weights: dict  # a state dict of the config's architecture
    deepened_from: int | None  # the source network's blocks when it had fewer (train.init_deepen), else None


def weights_for(source: str, net: NetConfig, what: str, deepen: bool = False,
                generator: "torch.Generator | None" = None) -> StartingWeights:
    """The weights of the network at ``source`` (``load_network``), as a ``StartingWeights``; it must be ``net``'s
    architecture (``NetConfig.architecture``; its device and precision may differ):
    ``train.init_from``'s check. With ``deepen`` it may also have fewer blocks: the weights are then
    its network deepened to ``net`` (``net.model.deepened``; ``generator`` draws the new blocks).
    ``what`` names the setting in messages."""
    from ..config import config_diff

    try:
        network = load_network(source)
    except NetworkFileError as exc:
        raise NetworkFileError(f"{what}: {exc}") from None
    theirs, ours = network.net.architecture(), net.architecture()
    if deepen and theirs != ours and dataclasses.replace(theirs, blocks=ours.blocks) == ours:
        if theirs.blocks > ours.blocks:
            raise NetworkFileError(f"{what}: {source}'s network has {theirs.blocks} blocks, more than net.blocks "
                                   f"{ours.blocks}: train.init_deepen only adds blocks")
        from ..net.model import deepened, model_from_weights

        grown = deepened(model_from_weights(network.net, network.weights), net, generator)
        return StartingWeights(grown.state_dict(), deepened_from=theirs.blocks)
    if theirs != ours:  # where it ran (net.device ...) may differ
        differing = "; ".join(f"net.{d}" for d in config_diff(theirs, ours))
        also = " (train.init_deepen adds blocks only)" if deepen else ""
        raise NetworkFileError(f"{what}: {source}'s network differs from the config's net section "
                               f"(its value -> the config's){also}: {differing}")
    return StartingWeights(network.weights, deepened_from=None)
