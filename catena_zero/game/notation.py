"""R10 notation: the typed event record of a match, parsed once where text comes in.

Events of a match, in canonical form (RULES.md R10):
    "D5"            a placement (upper-case column letter, row without leading zeros)
    "button"        taking the button (R4)
    "komi 7"        the first player's komi choice (R7, game type komi)
    "colour black"  the second player's colour choice (R7); "colour white" likewise
    "swap"          the no_komi colour choice that takes over Black and its stone (R7)

Inside the package an event is an ``Event`` record (its ``kind`` an ``EventKind``); text becomes
one at the edge, by one of two parsers: ``parse_event`` for what people type (any case ("d5",
"Button", "KOMI 7", "Colour White"), surrounding and repeated blanks, "color" for "colour"; the
cell checked against the board through the board spec), and ``read_event`` for canonical text
(record files, the engine's protocol, requests), which refuses any other form in the words the
match uses (``IllegalMove``). Whether an event is legal now (komi range, phase, occupied cell) is
the match's business and raises ``IllegalMove`` there. ``str(event)`` is its canonical text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import Enum

from ..errors import UserError
from .rules import IllegalMove
from .spec import BUTTON, board_spec

COLOURS = ("black", "white")
SWAP = "swap"


_CELL_FORM = re.compile(r"[A-Za-z][0-9]+")
_WHOLE_NUMBER = re.compile(r"[0-9]+")
_KOMI_EVENT = re.compile(r"komi (0|[1-9][0-9]*)")
_COLOUR_EVENT = re.compile(r"colour (black|white)")


class Word(str, Enum):
    """An enumeration whose members are written as their R10 word ("komi"), in text and JSON alike."""

    def __str__(self) -> str:
        return self.value

    def __format__(self, spec: str) -> str:
        return format(self.value, spec)


class EventKind(Word):
    """What an event does: a move of the game (``PLACE``, ``BUTTON``) or a set-up choice of R7."""

    PLACE = "place"
    BUTTON = "button"
    KOMI = "komi"
    COLOUR = "colour"
    SWAP = "swap"


SETUP_KINDS = frozenset({EventKind.KOMI, EventKind.COLOUR, EventKind.SWAP})
_FIELD_OF = {EventKind.PLACE: "cell", EventKind.KOMI: "komi", EventKind.COLOUR: "colour"}  # the others have none


@dataclass(frozen=True)
class Event:
    """One event of a match. ``str(event)`` is its canonical R10 notation.

    kind:   what it does (``EventKind``)
    cell:   the cell of a placement ("D5"), else None
    komi:   the komi of a komi choice, else None
    colour: the colour chosen by a colour choice ("black"/"white"), else None
    """

    kind: EventKind
    cell: str | None = None
    komi: int | None = None
    colour: str | None = None

    def __post_init__(self) -> None:
        # Events are built in code (the parsers, the constructors below), so a bad one is a
        # programming error; a kind given as its word ("place") becomes the member, which every
        # ``is`` test below relies on, and the one field of its kind must be there, alone.
        object.__setattr__(self, "kind", EventKind(self.kind))
        wanted = _FIELD_OF.get(self.kind)
        given = [name for name in ("cell", "komi", "colour") if getattr(self, name) is not None]
        if given != ([wanted] if wanted else []):
            raise ValueError(f"a {self.kind} event has {wanted or 'no other field'}, got {given or 'none'}")

    @classmethod
    def move(cls, move: str) -> "Event":
        """The event of a game move in R10 notation ("D5" or "button"); the game checks the cell."""
        return cls(EventKind.BUTTON) if move == BUTTON else cls(EventKind.PLACE, cell=move)

    @classmethod
    def komi_choice(cls, komi: int) -> "Event":
        return cls(EventKind.KOMI, komi=komi)

    @classmethod
    def colour_choice(cls, colour: str) -> "Event":
        return cls(EventKind.COLOUR, colour=colour)

    @classmethod
    def swap(cls) -> "Event":
        return cls(EventKind.SWAP)

    @property
    def is_setup(self) -> bool:
        """Whether it is a set-up choice of R7 (komi, colour, swap), not a move of the game."""
        return self.kind in SETUP_KINDS

    @property
    def as_move(self) -> str:
        """The game move in R10 notation ("D5" or "button"); ValueError for a set-up choice."""
        if self.is_setup:
            raise ValueError(f"{self} is a set-up choice (R7), not a move")
        return BUTTON if self.kind is EventKind.BUTTON else str(self.cell)

    def __str__(self) -> str:
        if self.kind is EventKind.PLACE:
            return str(self.cell)
        if self.kind is EventKind.KOMI:
            return f"komi {self.komi}"
        if self.kind is EventKind.COLOUR:
            return f"colour {self.colour}"
        return self.kind.value  # "button", "swap"


def read_event(text: str) -> Event:
    """The event of canonical R10 text (a record's line, the engine's or a request's word);
    ``IllegalMove`` naming the form for a malformed set-up choice. Any other word is taken as a
    move, which the game checks when it is played (its message names what is wrong)."""
    if not isinstance(text, str):
        raise IllegalMove(f"an event must be a string in R10 notation, got {text!r}")
    if text.startswith("komi"):
        found = _KOMI_EVENT.fullmatch(text)
        if found is None:
            raise IllegalMove(f"{text!r} is malformed: expected 'komi K' with a whole number K (R10)")
        return Event.komi_choice(int(found.group(1)))
    if text.startswith("colour"):
        found = _COLOUR_EVENT.fullmatch(text)
        if found is None:
            raise IllegalMove(f"{text!r} is malformed: expected 'colour black' or 'colour white' (R10)")
        return Event.colour_choice(found.group(1))
    if text == SWAP:
        return Event.swap()
    return Event.move(text)


def parse_cell(text: str, side: int) -> str:
    """Canonical name of a cell typed by a user ("d5" -> "D5"); ``UserError`` if it is not a cell.

    Leading zeros are rejected rather than silently accepted, as R10 writes rows without them.
    """
    if not isinstance(text, str):
        raise UserError(f"a cell must be a string like 'D5', got {text!r}")
    token = text.strip()
    if not _CELL_FORM.fullmatch(token):
        raise UserError(f"{text.strip()!r} is not a cell: write a column letter and a row number, like 'D5'")
    name = token[0].upper() + token[1:]
    if len(token) > 2 and token[1] == "0":
        raise UserError(f"{token!r} is not a cell: rows are written without leading zeros (R10)")
    board_spec(side).cell(name)  # UserError naming the board if off the board
    return name


def parse_event(text: str, side: int) -> Event:
    """Parse any R10 event as typed by a user; ``UserError`` with a one-line reason if malformed."""
    if not isinstance(text, str):
        raise UserError(f"an event must be a string, got {text!r}")
    words = text.lower().split()
    if not words:
        raise UserError("empty input: expected a cell like 'D5', 'button', 'komi K', 'colour black|white' or 'swap'")
    head, args = words[0], words[1:]
    if head in (BUTTON, SWAP):
        if args:
            raise UserError(f"{head!r} takes no argument, got {' '.join(args)!r}")
        return Event(kind=EventKind(head))
    if head == EventKind.KOMI:
        if len(args) != 1 or not _WHOLE_NUMBER.fullmatch(args[0]):
            raise UserError(f"expected 'komi K' with a whole number K >= 0, got {text.strip()!r}")
        return Event.komi_choice(int(args[0]))
    if head in ("colour", "color"):
        if len(args) != 1 or args[0] not in COLOURS:
            raise UserError(f"expected 'colour black' or 'colour white', got {text.strip()!r}")
        return Event.colour_choice(args[0])
    if args:
        raise UserError(f"{text.strip()!r} is not an event: expected one cell like 'D5', 'button', 'komi K', 'colour black|white' or 'swap'")
    if not _CELL_FORM.fullmatch(head):
        raise UserError(f"{text.strip()!r} is not an event: expected a cell like 'D5', 'button', 'komi K', 'colour black|white' or 'swap'")
    return Event(EventKind.PLACE, cell=parse_cell(head, side))


def parse_move(text: str, side: int) -> str:
    """Canonical game move (a cell or "button"); ``UserError`` for set-up events or other text."""
    if not isinstance(text, str):
        raise UserError(f"a move must be a string, got {text!r}")
    words = text.lower().split()
    if words == [BUTTON]:
        return BUTTON
    if len(words) == 1 and _CELL_FORM.fullmatch(words[0]):
        return parse_cell(words[0], side)
    if words and words[0] in (EventKind.KOMI, EventKind.COLOUR, "color", SWAP):
        raise UserError(f"{text.strip()!r} is a set-up choice (R7), not a move: expected a cell like 'D5' or 'button'")
    raise UserError(f"{text.strip()!r} is not a move: expected a cell like 'D5' or 'button'")
