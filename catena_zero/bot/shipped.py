"""The bots that ship with catena-zero (the folder ``catena_zero/bots/``, index in its README.md).

``play``, ``engine`` and ``serve`` use the shipped bot for the chosen rules when no ``--bot`` is
given (``shipped_bot_for``), and say which. A shipped bot is an ordinary bot file, checked on
loading like any other (``artifacts/botfile.py``); the folder's ``index.json`` adds what a file cannot
say about itself (how long it trained, how strong it measured), and ``catena-zero ship`` writes
the bot, the index and the README together.

Choice among several bots for one rule set: a specialist (its default game has these rules) before
a generalist (a multi-rule network); among specialists, the one trained for fewer rule sets (a
network fine-tuned on one rule set before the multi-rule one it started from, whose default game
that rule set may also be); then the one trained longer (more steps).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from ..errors import UserError
from ..fileio import MAX_CONFIG_BYTES, read_json
from ..game.options import GameConfig, RuleSet
from ..messages import quote
from ..artifacts.botfile import BotHeader, read_bot

SHIPPED_DIR = Path(__file__).resolve().parent.parent / "bots"
INDEX_FILE = "index.json"


@dataclass(frozen=True)
class ShippedBot:
    """One shipped bot file, its header and its index entry."""

    path: Path
    header: BotHeader
    trained: str = ""  # how it was trained, for people (e.g. "60 min on 2 CPU cores, 501k positions")
    strength: str = ""  # its measured strength, for people (e.g. "92.5% vs mcts:1000 at komi 7, 40 games")
    positions: Optional[int] = None  # self-play positions of its run (the checkpoint's counters)
    cpu_hours: Optional[float] = None  # CPU time of its run, and of the network the run started from where known
    init_from: str = ""  # the network its run started from (train.init_from), "" for random weights
    cpu_hours_complete: bool = True  # False: cpu_hours leaves out the CPU of a network up its init_from chain
    cpu_hours_unknown_from: str = ""  # that network (a bot file), the first whose CPU is not known; "": init_from
    recipe: str = ""  # the config whose one ``train`` makes it (configs/recipes/), "" for none

    @property
    def name(self) -> str:
        return self.path.name

    def covers(self, config: GameConfig) -> bool:
        return any(rule.covers(config) for rule in self.header.trained_for)

    def describe(self) -> str:
        """One line naming it for a person: file, what it was trained for, how strong."""
        parts = [f"the shipped bot {self.name} ({self.header.describe()})"]
        if self.strength:
            parts.append(self.strength)
        return "; ".join(parts)


_TEXT_FIELDS = ("trained", "strength", "source", "init_from", "cpu_hours_unknown_from", "recipe")  # strings for people


def read_index(path: Path, error: type[UserError] = UserError) -> dict[str, dict]:
    """A shipped bots' ``index.json``: {} when there is none; ``error`` (one line naming it) when it
    is not a regular file, too big, nested too deep or holds a number that is not finite
    (``fileio.read_json``), or is not an object of file names to objects whose text fields are
    strings of one printable line (no newline to split a table row, no ESC to drive a terminal).
    ``ship`` rewrites it; ``play``, ``engine`` and ``serve`` read it on start."""
    if not path.exists() and not path.is_symlink():
        return {}
    index = read_json(path, "bot index", MAX_CONFIG_BYTES, error)
    if not isinstance(index, dict):
        raise error(f"{path}: not a bot index (a JSON object of file names)")
    for name, entry in index.items():
        if not isinstance(entry, dict):
            raise error(f"{path}: the entry of {quote(name)} is {quote(entry)}, not an object of fields")
        for field in _TEXT_FIELDS:
            if not isinstance(entry.get(field, ""), str) or not entry.get(field, "").isprintable():
                raise error(f"{path}: {field} of {quote(name)} must be one line of printable text, "
                            f"got {quote(entry[field])}")
    return index


def _count(value: object) -> Optional[int]:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def _hours(value: object) -> Optional[float]:
    ok = isinstance(value, (int, float)) and not isinstance(value, bool) and 0 <= value < float("inf")
    return float(value) if ok else None


def shipped_bots(folder: Optional[Path] = None) -> list[ShippedBot]:
    """Every bot file of the folder (default ``SHIPPED_DIR``), by name; a damaged file is an error
    (one line, naming it)."""
    folder = SHIPPED_DIR if folder is None else folder
    index = read_index(folder / INDEX_FILE)
    bots = []
    for path in sorted(folder.glob("*.bot")):
        entry = index.get(path.name, {}) if isinstance(index.get(path.name), dict) else {}
        bots.append(ShippedBot(path=path, header=read_bot(path).header, trained=str(entry.get("trained", "")),
                               strength=str(entry.get("strength", "")), positions=_count(entry.get("positions")),
                               cpu_hours=_hours(entry.get("cpu_hours")), init_from=str(entry.get("init_from", "")),
                               cpu_hours_complete=entry.get("cpu_hours_complete", True) is not False,
                               cpu_hours_unknown_from=str(entry.get("cpu_hours_unknown_from", "")),
                               recipe=str(entry.get("recipe", ""))))
    return bots


def shipped_bot_for(config: GameConfig, folder: Optional[Path] = None) -> Optional[ShippedBot]:
    """The shipped bot for the rules of ``config`` (any komi), or None if none was trained for them."""
    rules = RuleSet.of(config)
    candidates = [b for b in shipped_bots(folder) if b.covers(config)]
    if not candidates:
        return None
    return max(candidates, key=lambda b: (RuleSet.of(b.header.game) == rules, -len(b.header.trained_for),
                                          b.header.step, b.name))


def no_shipped_bot_line(config: GameConfig) -> str:
    """What to say when no shipped bot covers ``config``: which rules have one, how to get one."""
    have = sorted({str(rule) for bot in shipped_bots() for rule in bot.header.trained_for})
    shipped = f"shipped bots cover: {', '.join(have)}" if have else "no bot ships with this installation"
    return (f"no shipped bot for {RuleSet.of(config)} ({shipped}); train one (catena-zero train) and "
            "export it (catena-zero export RUN --out FILE), then pass --bot FILE")
