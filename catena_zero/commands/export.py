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


def run(args: argparse.Namespace) -> int:
    from ..artifacts.botfile import PLAY_SIMULATIONS, export_bot  # torch: only when the command runs
    from ..config import NUMERIC_RANGES
    from ..artifacts.checkpoint import load_checkpoint, resolve_checkpoint
    from ..artifacts.network import BOT, network_kind

    most = NUMERIC_RANGES["search.num_simulations"][1]
    if args.simulations is not None and not 0 <= args.simulations <= most:
        raise CliError(f"--simulations must be 0 (the source's own: a checkpoint's training config, a bot file's) "
                       f"or 1..{most:,}, got {args.simulations}")
    simulations = PLAY_SIMULATIONS if args.simulations is None else (args.simulations or None)
    settings = search_settings(args)
    if network_kind(Path(args.checkpoint)) == BOT:
        return _reexport(args, simulations, settings)
    source = resolve_checkpoint(args.checkpoint)  # a run folder's newest checkpoint
    # The newest checkpoint and the folder given: --out inside the run (its config.yaml, replay.npz, an
    # older checkpoint) would destroy it; an unwritable --out is found before the checkpoint loads.
    check_outputs({"the checkpoint to export": str(source), "the run folder to export": args.checkpoint},
                  {"--out": args.out})
    checkpoint = load_checkpoint(source)  # CheckpointError (a ValueError): one line
    header = export_bot(checkpoint, args.out, simulations=simulations, search_settings=settings,
                        symmetry_average=args.symmetry_average)
    _report(checkpoint.path, args.out, header, settings)
    return 0


def _reexport(args: argparse.Namespace, simulations, settings: dict) -> int:
    """A bot file's network, written again with other play settings (``--simulations 0``: its own)."""
    from ..artifacts.botfile import read_bot, reexport_bot

    check_outputs({"the bot file to export": args.checkpoint}, {"--out": args.out})
    bot = read_bot(args.checkpoint)  # BotFileError: one line
    header = reexport_bot(bot, args.out, simulations=simulations, search_settings=settings,
                          symmetry_average=args.symmetry_average)
    _report(args.checkpoint, args.out, header, settings)
    return 0


def _report(source, out: str, header, settings: dict) -> None:
    print(f"exported {source} to {out}: {header.describe()}", file=sys.stdout)
    print(f"default game: side {header.game.side}, {header.game.game_type}, {header.game.scoring}; "
          f"{search_line(header, settings)}", file=sys.stdout)


def search_line(header, settings: Optional[dict] = None) -> str:
    """The search a bot file was written with, as export and ship print it (``settings``: the
    ``--search`` fields given, named after it)."""
    return (f"default search: {header.search.algorithm}, {header.search.num_simulations} simulations"
            f"{''.join(f', {field} {value}' for field, value in (settings or {}).items())}")
