"""Events in tests: written as R10 text for reading, turned into ``Event`` records at the edge,
as the package does (``notation.read_event``), and back into text to compare."""

from __future__ import annotations

from typing import Iterable

from catena_zero.game.notation import Event, read_event


def ev(event: "str | Event") -> Event:
    """The event of canonical R10 text (an ``Event`` as it is)."""
    return event if isinstance(event, Event) else read_event(event)


def evs(events: Iterable["str | Event"]) -> list[Event]:
    return [ev(e) for e in events]


def texts(events: Iterable[Event]) -> list[str]:
    """The R10 text of each event."""
    return [str(e) for e in events]


def choose_event(player, match, rng=None) -> str:
    """The text of ``player``'s next event in ``match`` (``players.next_turn``)."""
    from catena_zero.bot.players import next_turn

    return str(next_turn(player, match, rng).event)
