"""``catena-zero ship CHECKPOINT NAME``: ship a trained bot with the project (for its maintainers).

Exports a checkpoint (or a run folder's newest) into ``catena_zero/bots/NAME.bot`` and rewrites the
folder's index (``index.json``, ``README.md``) from every shipped bot's header:

    catena-zero ship CHECKPOINT_OR_RUN NAME --simulations 400 \\
        --trained "60 min on 2 CPU cores, ..." --strength "92.5% [78, 97] vs mcts:1000 at komi 7, 40 games"

The figures in --trained and --strength are what you measured (docs/RESULTS.md has the commands);
they are written as given. ``--index-only`` rewrites README.md from index.json and the files.
Given a bot file in place of a checkpoint (a shipped one: ``catena-zero ship
catena_zero/bots/side6.bot side6 --search gumbel_interior=puct``), it ships that network again with
the play settings given; its index entry (how it was trained) is kept, and ``--trained`` /
``--strength`` replace those fields only when given.
As ``export``, a shipped bot plays at 400 simulations a move (``PLAY_SIMULATIONS``, the budget the
shipped bots' strength is measured at) unless ``--simulations`` says otherwise (0: the source's own,
a checkpoint's training budget or a bot file's), and the search written is printed; a training
config's budget (16 in quick.yaml) is for making games, not for playing. ``--search FIELD=VALUE`` sets any other field of the search
it plays with (``artifacts.botfile.play_search``), and ``--symmetry-average`` makes its network average
every evaluation over the 12 board symmetries (``artifacts.botfile.play_net``).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from pathlib import Path
from typing import Optional


from .common import CliError, add_search_settings_flag, add_symmetry_average_flag, search_settings
from .export import search_line

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
    from ..bot.shipped import SHIPPED_DIR, shipped_bots  # torch: only when the command runs
    from ..fileio import write_text_atomic

    folder = Path(args.folder) if args.folder else SHIPPED_DIR
    if not folder.is_dir():
        raise CliError(f"--folder {folder}: not a folder")
    if not args.index_only:
        ship(args, folder)
    write_text_atomic(folder / "README.md", index_readme(shipped_bots(folder)))
    print(f"ship: index of {len(shipped_bots(folder))} bot(s) written to {folder / 'README.md'}")
    return 0


def ship(args: argparse.Namespace, folder: Path) -> None:
    """Write ``folder/NAME.bot`` from the checkpoint and its entry in ``folder/index.json``."""
    from ..artifacts.botfile import PLAY_SIMULATIONS, header_from_checkpoint, write_bot
    from ..artifacts.checkpoint import load_checkpoint, resolve_checkpoint
    from ..artifacts.network import BOT, network_kind
    from ..bot.shipped import INDEX_FILE
    from ..config import NUMERIC_RANGES
    from ..artifacts.layout import RECIPE_RESULT
    from ..game.options import RuleSet

    if not args.checkpoint or not args.name:
        raise CliError("CHECKPOINT and NAME are needed (or --index-only)")
    if "/" in args.name or args.name in (".", "..") or args.name.endswith(".bot"):
        raise CliError(f"NAME is a plain file name without .bot, e.g. side6, got {args.name!r}")
    for flag, text in (("NAME", args.name), ("--trained", args.trained), ("--strength", args.strength)):
        if not text.isprintable():  # a newline would split the index's table row, an ESC drive a terminal
            from ..messages import quote

            raise CliError(f"{flag} must be one line of printable text, got {quote(text)}")
    most = NUMERIC_RANGES["search.num_simulations"][1]
    if args.simulations is not None and not 0 <= args.simulations <= most:
        raise CliError(f"--simulations must be 0 (the source's own: a checkpoint's training config, a bot file's) "
                       f"or 1..{most:,}, got {args.simulations}")
    asked_simulations = args.simulations  # a recipe's bot keeps the search its end measured unless asked
    # One default with export: the budget the bot's strength is measured at, not the training one.
    args.simulations = PLAY_SIMULATIONS if args.simulations is None else (args.simulations or None)
    rules = None
    if args.default_rules:
        try:
            rules = RuleSet.from_key(args.default_rules)
        except ValueError as exc:
            raise CliError(f"--default-rules: {exc}") from None
    index_path = folder / INDEX_FILE
    index = _read_index(index_path)
    out = folder / f"{args.name}.bot"
    if network_kind(Path(args.checkpoint)) == BOT:
        _reship(args, out, index, index_path, rules)
        return
    if (Path(args.checkpoint) / RECIPE_RESULT).exists():  # a staged run whose recipe ended
        _ship_recipe(args, asked_simulations, out, index, index_path, rules)
        return
    path = resolve_checkpoint(args.checkpoint)
    checkpoint = load_checkpoint(path)
    header = header_from_checkpoint(checkpoint, simulations=args.simulations, search_settings=search_settings(args),
                                    symmetry_average=args.symmetry_average)
    header = _with_default_rules(header, rules, args)
    write_bot(out, header, checkpoint.model)
    index[out.name] = {"trained": args.trained, "strength": args.strength, "source": str(path),
                       **training_record(checkpoint)}
    _finish(out, header, index, index_path)


def _reship(args: argparse.Namespace, out: Path, index: dict, index_path: Path, rules) -> None:
    """Ship a bot file's network again as ``out`` with the play settings given. Its index entry (the
    source bot's, found by file name) is kept, with ``--trained``/``--strength`` where given."""
    from ..artifacts.botfile import read_bot, reexport_bot

    source = Path(args.checkpoint)
    bot = read_bot(source)  # BotFileError: one line
    bot = dataclasses.replace(bot, header=_with_default_rules(bot.header, rules, args))
    entry = dict(index.get(source.name, {})) if source.resolve().parent == out.resolve().parent else {}
    entry.setdefault("source", str(source))
    entry.update({field: value for field, value in (("trained", args.trained), ("strength", args.strength)) if value})
    header = reexport_bot(bot, out, simulations=args.simulations, search_settings=search_settings(args),
                          symmetry_average=args.symmetry_average)
    index[out.name] = entry
    _finish(out, header, index, index_path)


def _ship_recipe(args: argparse.Namespace, simulations: Optional[int], out: Path, index: dict, index_path: Path,
                 rules) -> None:
    """Ship the bot a recipe's end wrote into its run folder (``eval/recipe.py``) with the search it
    was measured at, unless ``--simulations``/``--search`` say otherwise; its index entry says how it
    was trained and how strong it measured from the run's summary (``--trained``/``--strength`` replace
    those lines), and names the recipe and its CPU-hours from nothing."""
    from ..artifacts.botfile import read_bot, reexport_bot
    from ..artifacts.layout import RECIPE_BOT
    from ..eval.recipe import read_result

    run_dir = Path(args.checkpoint)
    result = read_result(run_dir)
    bot = read_bot(run_dir / RECIPE_BOT)
    bot = dataclasses.replace(bot, header=_with_default_rules(bot.header, rules, args))
    header = reexport_bot(bot, out, simulations=simulations or None, search_settings=search_settings(args),
                          symmetry_average=args.symmetry_average)
    changed = header.search != bot.header.search or header.net != bot.header.net
    strength = args.strength or ("" if changed else result.strength_line())
    index[out.name] = {"trained": args.trained or result.trained_line(), "strength": strength,
                       "source": result.checkpoint, "recipe": result.recipe, "positions": result.positions,
                       "cpu_hours": result.cpu_hours, "cpu_hours_complete": result.cpu_hours_complete,
                       "init_from": result.init_from}
    if changed and not args.strength:
        print("ship: the bot plays another search than its recipe measured: give its --strength", file=sys.stderr)
    _finish(out, header, index, index_path)


def _with_default_rules(header, rules, args: argparse.Namespace):
    """``header`` with ``rules`` (``--default-rules``; None: unchanged) as its default game."""
    if rules is None:
        return header
    if rules not in header.trained_for:
        raise CliError(f"--default-rules {args.default_rules}: the network was not trained for it")
    return dataclasses.replace(header, game=rules.game())


def _finish(out: Path, header, index: dict, index_path: Path) -> None:
    """Write the index after the bot file, and say what was shipped."""
    from ..fileio import write_text_atomic

    write_text_atomic(index_path, json.dumps(index, indent=1, sort_keys=True) + "\n")
    print(f"ship: {out} ({out.stat().st_size:,} bytes): {header.describe()}", file=sys.stdout)
    print(f"ship: {search_line(header)}", file=sys.stdout)


def training_record(checkpoint) -> dict:
    """What the checkpoint measured of its training, for the index: self-play positions, CPU-hours
    (its run's, plus those of the networks it started from as far as they are known, and the first
    one that is not: ``provenance.training_cpu_seconds``; absent for a run written before runs counted
    their CPU) and the network it started from."""
    from ..artifacts.provenance import training_cpu_seconds

    record: dict = {"positions": int(checkpoint.counters.get("positions", 0)),
                    "init_from": checkpoint.config.train.init_from}
    cpu = training_cpu_seconds(checkpoint.counters, checkpoint.config)
    if cpu is not None:
        record["cpu_hours"] = round(cpu.seconds / 3600, 2)
        record["cpu_hours_complete"] = cpu.complete
        if not cpu.complete:
            record["cpu_hours_unknown_from"] = cpu.unknown_from
    return record


def _read_index(path: Path) -> dict:
    """The folder's index as ``bot.shipped.read_index`` reads it (size, depth, types, finite numbers)."""
    from ..bot.shipped import read_index

    return read_index(path, CliError)


def index_readme(bots) -> str:
    """The shipped bots' README.md: one table row per bot (``bot.shipped.ShippedBot``)."""
    from ..artifacts.botfile import averaging_label

    lines = [
        "# Shipped bots",
        "",
        "Trained networks that come with catena-zero, as bot files (`catena-zero export`). `play`, "
        "`engine` and `serve` use the one for the chosen rules when no `--bot` is given (and say "
        "which); `--bot FILE` takes any other. How each was trained and measured: "
        "[docs/RESULTS.md](../../docs/RESULTS.md).",
        "",
        "| file | trained for | default game | step | network | positions | CPU-hours | recipe | trained | strength |",
        "| --- | --- | --- | ---: | --- | ---: | ---: | --- | --- | --- |",
    ]
    for bot in bots:
        h = bot.header
        rules = ", ".join(str(r) for r in h.trained_for)
        game = f"side {h.game.side} {h.game.game_type} {h.game.scoring}"
        positions = "-" if bot.positions is None else f"{bot.positions:,}"
        hours = "-" if bot.cpu_hours is None else f"{bot.cpu_hours:.2f}"
        if bot.cpu_hours is not None and not bot.cpu_hours_complete:
            hours += f" + {Path(bot.cpu_hours_unknown_from or bot.init_from).name}'s"
        lines.append(f"| `{bot.name}` | {rules} | {game} | {h.step:,} | {h.net.blocks}x{h.net.channels}"
                     f"{averaging_label(h.net)} | {positions} | "
                     f"{hours} | {f'`{bot.recipe}`' if bot.recipe else '-'} | {bot.trained or '-'} | {bot.strength or '-'} |")
    return "\n".join(lines) + "\n"
