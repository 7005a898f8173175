"""What one config field takes, declared once beside the field: ``number``, ``one_of``,
``torch_device``, ``folder_name``, ``entries_in`` and ``entries_one_of`` each give a dataclass field
whose metadata holds its ``Rule``, and both checks of the field are read from that one declaration:

- ``problems`` (each section's ``__post_init__``): what is meaningful (>= 1, a probability, one of
  the choices), on every construction: a config file, ``--set``, a checkpoint, code's
  ``dataclasses.replace``;
- ``Rule.span``, the documented range of a number (``ranges.NUMERIC_RANGES``), which also refuses
  the absurd (a 200,000-channel network) and is checked when a section is loaded.

The messages are derived from the declaration too (``net.blocks must be >= 1, got 0``), so the
check, its words and the range cannot disagree. A check that spans fields stays in the section's
``__post_init__``.
"""

from __future__ import annotations

import dataclasses
import functools
import typing
from dataclasses import dataclass
from typing import Any, Callable, Iterator, Optional

RULE = "rule"  # the metadata key of a field's Rule


@dataclass(frozen=True)
class Rule:
    """What values one field takes, and how a bad one is reported."""

    ok: Callable[[Any], bool]  # the meaningful check of one value (None never reaches it)
    says: str  # what a good value is, as the message words it: ">= 1", "in (0, 1]", "'pad' or 'by_side'"
    shown: Callable[[Any], str] = str  # how the message shows a bad value (repr for text)
    span: Optional[tuple[float, float]] = None  # a number's documented range, inclusive
    choices: tuple = ()  # the values a choice field (or each entry of a list field) may take
    each: bool = False  # the check applies to each entry of a tuple field

    def message(self, key: str, value: Any, nullable: bool = False) -> str:
        if self.each:
            # A list in the words ("one of standard, longest, quadratic") ends with ';', so that the
            # bad value is not read as one more choice.
            return f"{key} entries must be {self.says}{';' if ',' in self.says else ','} got {self.shown(value)}"
        return f"{key} must be {self.says}{' or null' if nullable else ''}, got {self.shown(value)}"


def _declared(default: Any, rule: Rule) -> Any:
    return dataclasses.field(default=default, metadata={RULE: rule})


def number(default: Any, *, ge: Optional[float] = None, gt: Optional[float] = None, le: Optional[float] = None,
           lt: Optional[float] = None, up_to: Optional[float] = None, noun: str = "") -> Any:
    """A number field of ``default``: at least ``ge`` (or above ``gt``), at most ``le`` (or below
    ``lt``) where a bound above is meaningful, else ``up_to`` tops its documented range (beyond it
    a value is absurd: refused when loaded). The range is [ge or gt, le or lt or up_to]. ``noun``
    goes before the bounds in the message ("a whole number >= 0")."""
    if (ge is None) == (gt is None) or [le, lt, up_to].count(None) != 2:  # a mistake in the declaration
        raise ValueError("a number field declares one bound below (ge or gt) and one above (le, lt or up_to)")
    low = ge if ge is not None else gt
    if le is None and lt is None:
        says = f">= {ge}" if ge is not None else f"> {gt}"
    else:
        says = f"in {'[' if ge is not None else '('}{low}, {le if le is not None else lt}{']' if le is not None else ')'}"

    def ok(value: Any) -> bool:
        return ((value >= ge if ge is not None else value > gt)
                and (le is None or value <= le) and (lt is None or value < lt))

    top = next(bound for bound in (le, lt, up_to) if bound is not None)
    return _declared(default, Rule(ok, f"{noun} {says}" if noun else says, span=(low, top)))


def _quoted_list(choices: tuple) -> str:
    """'a', 'b' or 'c'"""
    shown = [repr(c) for c in choices]
    return f"{', '.join(shown[:-1])} or {shown[-1]}" if len(shown) > 1 else shown[0]


def one_of(default: str, choices: tuple[str, ...]) -> Any:
    """A text field that takes one of ``choices``."""
    return _declared(default, Rule(lambda value: value in choices, _quoted_list(choices), repr, choices=choices))


def torch_device(default: str) -> Any:
    """Where torch runs: "auto" (CUDA when available, else the CPU), "cpu", "cuda" or "cuda:i"."""
    return _declared(default, Rule(lambda value: value in ("auto", "cpu") or value.startswith("cuda"),
                                   "'auto', 'cpu' or 'cuda[:i]'", repr))


def folder_name(default: str) -> Any:
    """A name that becomes one folder: no '/', and not '.' or '..'."""
    return _declared(default, Rule(lambda value: "/" not in value and value not in (".", ".."),
                                   "a plain folder name", repr))


def entries_in(default: tuple, lo: int, hi: int) -> Any:
    """A list field of whole numbers, each in lo..hi."""
    return _declared(default, Rule(lambda value: isinstance(value, int) and lo <= value <= hi,
                                   f"in {lo}..{hi}", repr, each=True))


def entries_one_of(default: tuple, choices: tuple[str, ...], *, listed: bool = False) -> Any:
    """A list field whose entries are each one of ``choices``; the message says "one of a, b, c",
    or with ``listed`` "a, b or c"."""
    says = (f"{', '.join(choices[:-1])} or {choices[-1]}" if listed else f"one of {', '.join(choices)}")
    return _declared(default, Rule(lambda value: value in choices, says, repr, choices=choices, each=True))


def rule_of(field: dataclasses.Field) -> Optional[Rule]:
    return field.metadata.get(RULE)


@functools.lru_cache(maxsize=None)
def _declared_fields(cls: type) -> tuple[tuple[str, Rule, bool], ...]:
    """(name, rule, takes None) of each declared field of ``cls``, in field order; a field
    annotated ``Optional[...]`` takes None (null: not set), which no rule is asked about."""
    hints = typing.get_type_hints(cls)
    return tuple((f.name, rule, type(None) in typing.get_args(hints[f.name]))
                 for f in dataclasses.fields(cls) if (rule := rule_of(f)) is not None)


def problems(section: Any, prefix: str) -> Iterator[str]:
    """The message of each declared rule a value of ``section`` breaks, in field order; ``prefix``
    names the section in them ("net.")."""
    for name, rule, nullable in _declared_fields(type(section)):
        value = getattr(section, name)
        for item in (value if rule.each else (value,)):
            if not (item is None and nullable) and not rule.ok(item):
                yield rule.message(prefix + name, item, nullable)


def spans(cls: type, prefix: str) -> dict[str, tuple[float, float]]:
    """Dotted key -> documented range of each number field ``cls`` declares."""
    return {prefix + name: rule.span for name, rule, _ in _declared_fields(cls) if rule.span is not None}
