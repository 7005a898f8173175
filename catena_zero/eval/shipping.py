"""The shipped bots' folder (``catena_zero/bots/``): each bot's entry in its index (``index.json``:
how it was trained and how strong it measured) and the folder's README.md, a table of every
shipped bot (``catena-zero ship`` writes both; ``bot/shipped.py`` reads them).

An entry says what its network took from nothing where the checkpoint knows it
(``artifacts/provenance.py``: its run's CPU-hours plus those of the networks it started from, and
the first one that is not known); a recipe's bot names its recipe and takes its figures from the
recipe's summary (``eval/recipe.py``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Sequence

from ..artifacts.botfile import averaging_label
from ..artifacts.provenance import training_cpu_seconds
from ..bot.shipped import INDEX_FILE, ShippedBot, shipped_bots
from ..fileio import write_text_atomic
from .recipe import RecipeResult

if TYPE_CHECKING:
    from ..artifacts.checkpoint import Checkpoint

README_FILE = "README.md"


def write_entries(folder: Path, index: dict[str, dict]) -> Path:
    """The folder's index, written atomically, bots by file name (``bot.shipped.read_index`` reads it)."""
    return write_text_atomic(folder / INDEX_FILE, json.dumps(index, indent=1, sort_keys=True) + "\n")


def checkpoint_entry(checkpoint: "Checkpoint", trained: str, strength: str) -> dict:
    """The entry of a bot exported from ``checkpoint``: ``trained`` and ``strength`` as given, then
    what the checkpoint measured of its training: self-play positions, CPU-hours (absent for a run
    written before runs counted their CPU) and the network it started from."""
    record: dict = {"trained": trained, "strength": strength, "source": str(checkpoint.path),
                    "positions": int(checkpoint.counters.get("positions", 0)),
                    "init_from": checkpoint.config.train.init_from}
    cpu = training_cpu_seconds(checkpoint.counters, checkpoint.config)
    if cpu is not None:
        record["cpu_hours"] = round(cpu.seconds / 3600, 2)
        record["cpu_hours_complete"] = cpu.complete
        if not cpu.complete:
            record["cpu_hours_unknown_from"] = cpu.unknown_from
    return record


def recipe_entry(result: RecipeResult, trained: str, strength: str) -> dict:
    """The entry of a recipe's bot: how it was trained and how strong it measured from the recipe's
    summary (``trained``/``strength`` replace those lines where given), its recipe and CPU-hours."""
    return {"trained": trained or result.trained_line(), "strength": strength, "source": result.checkpoint,
            "recipe": result.recipe, "positions": result.positions, "cpu_hours": result.cpu_hours,
            "cpu_hours_complete": result.cpu_hours_complete, "init_from": result.init_from}


def reshipped_entry(earlier: dict, source: str, trained: str, strength: str) -> dict:
    """The entry of a bot file shipped again: its ``earlier`` entry (how it was trained) kept, with
    ``trained``/``strength`` where given."""
    entry = dict(earlier)
    entry.setdefault("source", source)
    entry.update({name: value for name, value in (("trained", trained), ("strength", strength)) if value})
    return entry


def write_readme(folder: Path) -> int:
    """The folder's README.md from its index and files; the number of bots in it."""
    bots = shipped_bots(folder)
    write_text_atomic(folder / README_FILE, index_readme(bots))
    return len(bots)


def index_readme(bots: Sequence[ShippedBot]) -> str:
    """The shipped bots' README.md: one table row per bot."""
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
