"""The documented range of every numeric config field, and the check that applies it.

The ranges are declared with the fields (``sections.py``, through ``fields.number``); this module
gathers them into one table and applies it to every section built from a file, a checkpoint or a
bot header (``loading.py``).
"""

from __future__ import annotations

import dataclasses
import typing
from typing import Any

from ..messages import quote
from .fields import spans
from .sections import GAME_RANGES, Config, _check


def _gather() -> dict[str, tuple[float, float]]:
    """Dotted key -> range of every number field: the root's, then each section's."""
    table = spans(Config, "")
    for f in dataclasses.fields(Config):
        section = typing.get_type_hints(Config)[f.name]
        if typing.get_origin(section) is tuple:  # stages: a list of one kind of section
            section = typing.get_args(section)[0]
        if dataclasses.is_dataclass(section):
            table.update(spans(section, f"{f.name}."))
    table.update({f"game.{name}": span for name, span in GAME_RANGES.items()})
    return table


# The documented range (inclusive) of every numeric field, checked in one place for every section
# (``check_ranges``, on each section built from a config file, a checkpoint or a bot header). The
# sections' own checks say what is meaningful (> 0, a probability); these bounds also refuse the
# absurd (a 200,000-channel network, 10**12 simulations) before anything is built or allocated.
# Every float must be finite besides (``loading._coerce``). A new numeric field declares its range
# with ``fields.number`` (test_config_limits checks that every numeric field has one).
NUMERIC_RANGES: dict[str, tuple[float, float]] = _gather()


def check_ranges(section: Any, prefix: str) -> None:
    """Every numeric field of ``section`` within its ``NUMERIC_RANGES`` entry (None passes)."""
    for f in dataclasses.fields(section):
        value = getattr(section, f.name)
        bounds = NUMERIC_RANGES.get(f"{prefix}{f.name}")
        if bounds is None or isinstance(value, bool) or not isinstance(value, (int, float)):
            continue
        lo, hi = bounds
        _check(lo <= value <= hi, f"{prefix}{f.name} must be in {lo:g}..{hi:g}, got {quote(value)}")
