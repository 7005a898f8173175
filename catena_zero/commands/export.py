"""``catena-zero export``: a checkpoint (or a run folder's newest one) as one self-contained bot file.

Given a bot file instead, it writes that network again with other play settings (``--simulations``,
``--search``, ``--symmetry-average``): a bot's search can be tuned after its checkpoint is gone."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Optional

from .common import CliError, add_search_settings_flag, add_symmetry_average_flag, check_outputs, search_settings

HELP = "export a checkpoint as a self-contained bot file (safetensors weights + settings)"


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("checkpoint", metavar="CHECKPOINT|RUN_DIR|BOT",
                        help="a checkpoint file, or a run folder (its newest checkpoint), or a bot file (its "
                             "network again, with the search settings given here in place of its own)")
    parser.add_argument("--out", required=True, metavar="FILE", help="the bot file to write (written atomically)")
    parser.add_argument("--simulations", type=int, metavar="N",
                        help="the bot's search simulations a move when it plays (default 400, as the shipped bots; "
                             "0 keeps the training config's, which is a budget for making games, not for playing; a bot "
                             "file's own, for a bot file)")
    add_search_settings_flag(parser)
    add_symmetry_average_flag(parser)


def play_settings(args: argparse.Namespace):
    """The ``PlaySettings`` of --simulations (default ``PLAY_SIMULATIONS``, the budget the shipped
    bots' strength is measured at; 0: the source's own), --search and --symmetry-average."""
    from ..artifacts.botfile import PLAY_SIMULATIONS
    from ..artifacts.export import PlaySettings
    from ..config import NUMERIC_RANGES

    most = NUMERIC_RANGES["search.num_simulations"][1]
    if args.simulations is not None and not 0 <= args.simulations <= most:
        raise CliError(f"--simulations must be 0 (the source's own: a checkpoint's training config, a bot file's) "
                       f"or 1..{most:,}, got {args.simulations}")
    simulations = PLAY_SIMULATIONS if args.simulations is None else (args.simulations or None)
    return PlaySettings(simulations=simulations, search=search_settings(args), symmetry_average=args.symmetry_average)


def run(args: argparse.Namespace) -> int:
    from ..artifacts.export import checkpoint_source, is_bot_file, write_bot_of  # torch: only when the command runs

    play = play_settings(args)
    if is_bot_file(args.checkpoint):
        inputs = {"the bot file to export": args.checkpoint}
    else:  # --out inside the run (its config.yaml, replay.npz, an older checkpoint) would destroy it
        inputs = {"the checkpoint to export": str(checkpoint_source(args.checkpoint)),
                  "the run folder to export": args.checkpoint}
    check_outputs(inputs, {"--out": args.out})  # an unwritable --out is found before the network loads
    written = write_bot_of(args.checkpoint, args.out, play)  # CheckpointError, BotFileError: one line
    source = args.checkpoint if written.checkpoint is None else written.source
    header = written.header
    print(f"exported {source} to {args.out}: {header.describe()}", file=sys.stdout)
    print(f"default game: side {header.game.side}, {header.game.game_type}, {header.game.scoring}; "
          f"{search_line(header, play.search)}", file=sys.stdout)
    return 0


def search_line(header, settings: Optional[dict] = None) -> str:
    """The search a bot file was written with, as export and ship print it (``settings``: the
    ``--search`` fields given, named after it)."""
    return (f"default search: {header.search.algorithm}, {header.search.num_simulations} simulations"
            f"{''.join(f', {field} {value}' for field, value in (settings or {}).items())}")
