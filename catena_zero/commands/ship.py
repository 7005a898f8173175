"""``catena-zero ship CHECKPOINT NAME``: ship a trained bot with the project (for its maintainers).

Exports a checkpoint (or a run folder's newest) into ``catena_zero/bots/NAME.bot`` and rewrites the
folder's index (``index.json``, ``README.md``) from every shipped bot's header:

    catena-zero ship CHECKPOINT_OR_RUN NAME --simulations 400 \\
        --trained "60 min on 2 CPU cores, ..." --strength "92.5% [78, 97] vs mcts:1000 at komi 7, 40 games"

The figures in --trained and --strength are what you measured (docs/RESULTS.md has the commands);
they are written as given. A bot file in place of a checkpoint is shipped again with the play
settings given, its index entry kept but for the fields given. The play settings are ``export``'s
(``play_settings``): 400 simulations a move unless told, since a training config's budget is for
making games, not for playing.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from pathlib import Path

from .common import CliError, add_search_settings_flag, add_symmetry_average_flag
from .export import play_settings, search_line

HELP = "ship a trained bot with catena-zero: export it into catena_zero/bots/ and rewrite that folder's index"


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("checkpoint", nargs="?", metavar="CHECKPOINT|RUN_DIR|BOT",
                        help="a checkpoint file or a run folder (its newest checkpoint); or a bot file, shipped "
                             "again with the search settings given (its index entry kept)")
    parser.add_argument("name", nargs="?", metavar="NAME", help="the bot's file name in the folder (without .bot)")
    parser.add_argument("--trained", default="", help="how it was trained (measured), for the index")
    parser.add_argument("--strength", default="", help="its measured strength, for the index")
    parser.add_argument("--simulations", type=int, metavar="N",
                        help="the bot's default simulations a move (default 400, as export; 0 keeps the source's "
                             "own: a checkpoint's training config, a bot file's); the strength in the index should be "
                             "measured at it")
    add_search_settings_flag(parser)
    add_symmetry_average_flag(parser)
    parser.add_argument("--default-rules", metavar="KEY",
                        help="the bot's default game, a rule-set key such as side6-no_komi-standard (default: the "
                             "run's game); a multi-rule bot whose default game another shipped bot has as its own "
                             "is then the generalist there, and that specialist keeps those rules")
    parser.add_argument("--index-only", action="store_true",
                        help="only rewrite README.md from index.json and the files")
    parser.add_argument("--folder", metavar="DIR", help="the shipped bots' folder (default: catena_zero/bots)")


def run(args: argparse.Namespace) -> int:
    from ..bot.shipped import SHIPPED_DIR  # torch: only when the command runs
    from ..eval.shipping import write_readme

    folder = Path(args.folder) if args.folder else SHIPPED_DIR
    if not folder.is_dir():
        raise CliError(f"--folder {folder}: not a folder")
    if not args.index_only:
        ship(args, folder)
    count = write_readme(folder)
    print(f"ship: index of {count} bot(s) written to {folder / 'README.md'}")
    return 0


def ship(args: argparse.Namespace, folder: Path) -> None:
    """Write ``folder/NAME.bot`` from the source and its entry in ``folder/index.json``."""
    from ..artifacts.export import NotTrainedFor, is_bot_file
    from ..artifacts.layout import RECIPE_RESULT
    from ..bot.shipped import INDEX_FILE, read_index
    from ..eval.shipping import write_entries

    _check_names(args)
    play = play_settings(args)
    rules = _default_rules(args)
    index = read_index(folder / INDEX_FILE, CliError)
    out = folder / f"{args.name}.bot"
    try:
        if is_bot_file(args.checkpoint):
            header, entry = _reship(args, play, out, index, rules)
        elif (Path(args.checkpoint) / RECIPE_RESULT).exists():  # a staged run whose recipe ended
            header, entry = _ship_recipe(args, play, out, rules)
        else:
            header, entry = _ship_checkpoint(args, play, out, rules)
    except NotTrainedFor as exc:
        raise CliError(f"--default-rules {args.default_rules}: {exc}") from None
    index[out.name] = entry
    write_entries(folder, index)  # after the bot file
    print(f"ship: {out} ({out.stat().st_size:,} bytes): {header.describe()}", file=sys.stdout)
    print(f"ship: {search_line(header)}", file=sys.stdout)


def _check_names(args: argparse.Namespace) -> None:
    if not args.checkpoint or not args.name:
        raise CliError("CHECKPOINT and NAME are needed (or --index-only)")
    if "/" in args.name or args.name in (".", "..") or args.name.endswith(".bot"):
        raise CliError(f"NAME is a plain file name without .bot, e.g. side6, got {args.name!r}")
    for flag, text in (("NAME", args.name), ("--trained", args.trained), ("--strength", args.strength)):
        if not text.isprintable():  # a newline would split the index's table row, an ESC drive a terminal
            from ..messages import quote

            raise CliError(f"{flag} must be one line of printable text, got {quote(text)}")


def _default_rules(args: argparse.Namespace):
    """The ``RuleSet`` of --default-rules, or None."""
    from ..game.options import RuleSet

    if not args.default_rules:
        return None
    try:
        return RuleSet.from_key(args.default_rules)
    except ValueError as exc:
        raise CliError(f"--default-rules: {exc}") from None


def _ship_checkpoint(args: argparse.Namespace, play, out: Path, rules):
    """A checkpoint's (a run folder's newest) bot and its entry: what the checkpoint measured."""
    from ..artifacts.export import write_bot_of
    from ..eval.shipping import checkpoint_entry

    written = write_bot_of(args.checkpoint, out, play, rules)
    return written.header, checkpoint_entry(written.checkpoint, args.trained, args.strength)


def _reship(args: argparse.Namespace, play, out: Path, index: dict, rules):
    """A bot file's network shipped again as ``out`` with the play settings given. Its index entry (the
    source bot's, found by file name) is kept, with ``--trained``/``--strength`` where given."""
    from ..artifacts.export import write_bot_of
    from ..eval.shipping import reshipped_entry

    source = Path(args.checkpoint)
    earlier = index.get(source.name, {}) if source.resolve().parent == out.resolve().parent else {}
    written = write_bot_of(source, out, play, rules)
    return written.header, reshipped_entry(earlier, str(source), args.trained, args.strength)


def _ship_recipe(args: argparse.Namespace, play, out: Path, rules):
    """The bot a recipe's end wrote into its run folder (``eval/recipe.py``), with the search it was
    measured at unless ``--simulations``/``--search`` say otherwise; its index entry from the run's
    summary (``eval.shipping.recipe_entry``)."""
    from ..artifacts.botfile import read_bot
    from ..artifacts.export import write_bot_of
    from ..artifacts.layout import RECIPE_BOT
    from ..eval.recipe import read_result
    from ..eval.shipping import recipe_entry

    run_dir = Path(args.checkpoint)
    result = read_result(run_dir)
    measured = read_bot(run_dir / RECIPE_BOT).header
    asked = dataclasses.replace(play, simulations=args.simulations or None)  # unless asked: the search measured
    header = write_bot_of(run_dir / RECIPE_BOT, out, asked, rules).header
    changed = header.search != measured.search or header.net != measured.net
    if changed and not args.strength:
        print("ship: the bot plays another search than its recipe measured: give its --strength", file=sys.stderr)
    strength = args.strength or ("" if changed else result.strength_line())
    return header, recipe_entry(result, args.trained, strength)
