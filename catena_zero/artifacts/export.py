"""The one writer of bot files from a trained network, whichever file holds it: ``catena-zero
export``, ``catena-zero ship`` and a recipe's end all write through ``write_bot_of``.

A checkpoint (or a run folder's newest) becomes a bot file with its training config's network and
search; a bot file is written again with its own (a bot's play settings can be tuned after its
checkpoint is gone). Either way the play settings given (``PlaySettings``: simulations a move,
other search fields, symmetry averaging; ``botfile.play_search``, ``botfile.play_net``) replace the
source's, and ``default_rules`` may name another of its trained rule sets as its default game.
The bot file's format is ``botfile.py``'s; this module only decides what goes in.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Optional

from ..errors import UserError
from ..game.options import RuleSet
from .botfile import BotHeader, header_from_checkpoint, read_bot, reexport_bot, write_checkpoint_bot
from .network import BOT, network_kind

if TYPE_CHECKING:
    from .checkpoint import Checkpoint


class NotTrainedFor(UserError):
    """A default game the network was not trained for (one line)."""


@dataclass(frozen=True)
class PlaySettings:
    """How a written bot plays, each None to keep the source's own."""

    simulations: Optional[int] = None  # search simulations a move
    search: dict = field(default_factory=dict)  # other search fields (``--search FIELD=VALUE``)
    symmetry_average: Optional[bool] = None  # average every evaluation over the 12 board symmetries


@dataclass(frozen=True)
class WrittenBot:
    """What ``write_bot_of`` wrote: the header, the file it read and, for a checkpoint, the checkpoint."""

    header: BotHeader
    source: Path  # the checkpoint file (a run folder's newest) or the bot file
    checkpoint: Optional["Checkpoint"] = None  # None: a bot file's network written again


def is_bot_file(source: str | Path) -> bool:
    """Whether ``source`` is a bot file (else a checkpoint or a run folder; ``NetworkFileError``
    for anything else)."""
    return network_kind(Path(source)) == BOT


def checkpoint_source(source: str | Path) -> Path:
    """The checkpoint file a bot is written from: ``source`` itself, or a run folder's newest."""
    from .checkpoint import resolve_checkpoint

    return resolve_checkpoint(source)


def with_default_rules(header: BotHeader, rules: Optional[RuleSet]) -> BotHeader:
    """``header`` with ``rules`` (None: unchanged) as its default game; ``NotTrainedFor`` unless
    the network was trained for them."""
    if rules is None:
        return header
    if rules not in header.trained_for:
        raise NotTrainedFor("the network was not trained for it")
    return dataclasses.replace(header, game=rules.game())


def write_bot_of(source: str | Path, out: str | Path, play: PlaySettings = PlaySettings(),
                 default_rules: Optional[RuleSet] = None) -> WrittenBot:
    """Write the bot file of the network in ``source`` (a checkpoint, a run folder or a bot file)
    to ``out`` atomically, playing as ``play`` says (module docstring). Nothing is written when the
    source does not read (``CheckpointError``, ``BotFileError``: one line) or ``default_rules`` is
    not one of its rule sets."""
    from .checkpoint import load_checkpoint

    settings = dict(simulations=play.simulations, search_settings=play.search or None,
                    symmetry_average=play.symmetry_average)
    if is_bot_file(source):
        bot = read_bot(source)
        bot = dataclasses.replace(bot, header=with_default_rules(bot.header, default_rules))
        return WrittenBot(reexport_bot(bot, out, **settings), Path(source))
    checkpoint = load_checkpoint(checkpoint_source(source))
    header = with_default_rules(header_from_checkpoint(checkpoint, **settings), default_rules)
    return WrittenBot(write_checkpoint_bot(out, header, checkpoint), Path(checkpoint.path or source), checkpoint)
