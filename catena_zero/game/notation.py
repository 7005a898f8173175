"""R10 notation for user interfaces and game records: parse what people type, print canonically.

Events of a match, in canonical form (RULES.md R10):
    "D5"            a placement (upper-case column letter, row without leading zeros)
    "button"        taking the button (R4)
    "komi 7"        the first player's komi choice (R7, game type komi)
    "colour black"  the second player's colour choice (R7); "colour white" likewise
    "swap"          the no_komi colour choice that takes over Black and its stone (R7)

The engine API accepts only canonical strings; user interfaces accept more: any case
("d5", "Button", "KOMI 7", "Colour White"), surrounding and repeated blanks, and "color" for
"colour". Parsing checks the *form* of an event and that a cell is on the board (through the
board spec, so the geometry lives in one place); whether the event is legal now (komi range,
phase, occupied cell) is the engine's business and raises ``IllegalMove`` there.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..errors import UserError
from .spec import BUTTON, board_spec

COLOURS = ("black", "white")
SWAP = "swap"


_CELL_FORM = re.compile(r"[A-Za-z][0-9]+")
_WHOLE_NUMBER = re.compile(r"[0-9]+")


@dataclass(frozen=True)
class Event:
    """One parsed event. ``str(event)`` is its canonical R10 notation.

    kind:   "place", "button", "komi", "colour" or "swap"
    cell:   the cell of a placement ("D5"), else None
    komi:   the komi of a komi choice, else None
    colour: the colour chosen by a colour choice ("black"/"white"), else None
    """

    kind: str
    cell: str | None = None
    komi: int | None = None
    colour: str | None = None

    def __str__(self) -> str:
        if self.kind == "place":
            return str(self.cell)
        if self.kind == "komi":
            return f"komi {self.komi}"
        if self.kind == "colour":
            return f"colour {self.colour}"
        return self.kind  # "button", "swap"


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
        return Event(kind=head)
    if head == "komi":
        if len(args) != 1 or not _WHOLE_NUMBER.fullmatch(args[0]):
            raise UserError(f"expected 'komi K' with a whole number K >= 0, got {text.strip()!r}")
        return Event(kind="komi", komi=int(args[0]))
    if head in ("colour", "color"):
        if len(args) != 1 or args[0] not in COLOURS:
            raise UserError(f"expected 'colour black' or 'colour white', got {text.strip()!r}")
        return Event(kind="colour", colour=args[0])
    if args:
        raise UserError(f"{text.strip()!r} is not an event: expected one cell like 'D5', 'button', 'komi K', 'colour black|white' or 'swap'")
    if not _CELL_FORM.fullmatch(head):
        raise UserError(f"{text.strip()!r} is not an event: expected a cell like 'D5', 'button', 'komi K', 'colour black|white' or 'swap'")
    return Event(kind="place", cell=parse_cell(head, side))


def normalize_event(text: str, side: int) -> str:
    """Canonical R10 string of a user-typed event ("  d5 " -> "D5", "Color White" -> "colour white")."""
    return str(parse_event(text, side))


def parse_move(text: str, side: int) -> str:
    """Canonical game move (a cell or "button"); ``UserError`` for set-up events or other text."""
    if not isinstance(text, str):
        raise UserError(f"a move must be a string, got {text!r}")
    words = text.lower().split()
    if words == [BUTTON]:
        return BUTTON
    if len(words) == 1 and _CELL_FORM.fullmatch(words[0]):
        return parse_cell(words[0], side)
    if words and words[0] in ("komi", "colour", "color", SWAP):
        raise UserError(f"{text.strip()!r} is a set-up choice (R7), not a move: expected a cell like 'D5' or 'button'")
    raise UserError(f"{text.strip()!r} is not a move: expected a cell like 'D5' or 'button'")
