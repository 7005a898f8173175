"""The ladder's records and its results file, ``<run>/ladder/results.json`` (``eval/ladder.py``
plays the matches, ``eval/reports.py`` writes the ratings).

The results file holds every match the ladder has played (``LadderMatch``, from ``a``'s side) and
the settings that make them comparable (game options, network simulations, opening plies, book
and komi); it is written atomically after each match, and read back with every field checked
(``load_results``: a damaged file is refused in one line naming the field).
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Optional

from ..errors import UserError
from ..fileio import MAX_JSON_BYTES, read_json, write_text_atomic
from ..messages import quote
from .ratings import PairResult, Tally

LADDER_DIR = "ladder"
RESULTS_FILE = "results.json"
RESULTS_FORMAT = "catena-zero-ladder"
RESULTS_VERSION = 1
ANCHOR = "random"


class LadderError(UserError):
    """A ladder cannot run (bad folder, results file, settings): one-line message."""


@dataclass(frozen=True)
class LadderPlayer:
    """A player of the ladder."""

    id: str  # "random", "greedy", "mcts:K" or "step-XXXXXXXX"
    kind: str  # "baseline" or "checkpoint"
    step: Optional[int] = None  # checkpoints: training step
    seconds: Optional[float] = None  # checkpoints: training time (``provenance.run_provenance``)
    path: Optional[str] = None  # checkpoints: the file
    cpu_seconds: Optional[float] = None  # checkpoints: CPU time, the starting network's included (``provenance``)
    cpu_complete: bool = True  # False: the starting network's CPU is unknown (a bot file) and left out of cpu_seconds


@dataclass(frozen=True)
class LadderMatch:
    """One match of the results file, from ``a``'s side."""

    a: str
    b: str
    a_wins: int
    draws: int
    b_wins: int
    komi: int
    komi_source: str
    seed: int
    seconds: float

    @property
    def tally(self) -> Tally:
        """``a``'s tally (the file keeps its fields by side: a_wins, draws, b_wins)."""
        return Tally(self.a_wins, self.draws, self.b_wins)

    @property
    def games(self) -> int:
        return self.tally.games


@dataclass(frozen=True)
class LadderResults:
    """The content of ``results.json``."""

    settings: dict  # game options, simulations, opening plies (what makes results comparable)
    matches: tuple[LadderMatch, ...] = ()

    def pair_results(self) -> list[PairResult]:
        return [PairResult(m.a, m.b, m.tally) for m in self.matches]

    def games_between(self, a: str, b: str) -> int:
        return sum(m.games for m in self.matches if {m.a, m.b} == {a, b})


_MATCH_FIELDS = {field: kind for field, kind in LadderMatch.__annotations__.items()}  # name -> "str", "int", "float"
_SIGNED = frozenset({"komi", "seed"})  # the whole numbers that may be negative


def _match(entry: object, path: Path) -> LadderMatch:
    """A ``LadderMatch`` of a results file's entry, every field of its type (whole numbers not
    negative, the seconds finite and not negative); ``LadderError`` naming the field otherwise."""
    if not isinstance(entry, dict) or set(entry) != set(_MATCH_FIELDS):
        fields = ", ".join(_MATCH_FIELDS)
        raise LadderError(f"{path} has a bad entry: a match is an object of the fields {fields}, got {quote(entry)}")
    for name, kind in _MATCH_FIELDS.items():
        value = entry[name]
        if kind == "str":
            ok = isinstance(value, str)
        elif kind == "int":
            ok = isinstance(value, int) and not isinstance(value, bool) and (name in _SIGNED or value >= 0)
        else:  # read_json has refused NaN and infinities
            ok = isinstance(value, (int, float)) and not isinstance(value, bool) and value >= 0
        if not ok:
            what = {"str": "a string", "int": "a whole number", "float": "a number"}[kind]
            raise LadderError(f"{path} has a bad entry: {name} must be {what}"
                              f"{'' if kind == 'str' or name in _SIGNED else ' >= 0'}, got {quote(value)}")
    return LadderMatch(**entry)


def load_results(path: Path) -> Optional[LadderResults]:
    """The results file, or None if there is none yet; ``LadderError`` if it is damaged: too big,
    nested too deep, a number not finite (``fileio.read_json``), a field of the wrong type."""
    if not path.exists():
        return None
    data = read_json(path, "ladder results file", MAX_JSON_BYTES, LadderError)
    if not isinstance(data, dict) or data.get("format") != RESULTS_FORMAT:
        raise LadderError(f"{path} is not a catena-zero ladder results file")
    if data.get("version") != RESULTS_VERSION:
        raise LadderError(f"{path} has ladder results version {quote(data.get('version'))}; "
                          f"this catena-zero reads {RESULTS_VERSION}")
    if not isinstance(data.get("matches"), list) or not isinstance(data.get("settings"), dict):
        raise LadderError(f"{path} has a bad entry: it needs a list of matches and an object of settings")
    matches = tuple(_match(m, path) for m in data["matches"])
    return LadderResults(settings=dict(data["settings"]), matches=matches)


def save_results(path: Path, results: LadderResults) -> Path:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise LadderError(f"cannot create {path.parent}: {exc.strerror}") from None
    data = {"format": RESULTS_FORMAT, "version": RESULTS_VERSION, "settings": results.settings,
            "matches": [asdict(m) for m in results.matches]}
    return write_text_atomic(path, json.dumps(data, indent=1) + "\n")
