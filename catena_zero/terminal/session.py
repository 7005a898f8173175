"""One interactive match in the terminal (``play_in_terminal``): the R7 set-up, then the game,
every seat asked alike through ``next_turn``, a person as a ``TerminalPlayer``.

What the screen shows is decided once, in ``_Screen``: each phase's introduction and advice
when it starts, the person's colour once known, the board once per move (again after an undo or
once the colours are settled), and the final board with the result."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, TextIO

import numpy as np

from ..bot.players import Player, next_turn
from ..game.match import PLAYERS, Match, Phase
from ..game.notation import Event, EventKind
from ..game.render import LAYOUTS, render_ascii
from .person import Abandoned, TerminalPlayer, TerminalReader, UndoAsked
from .texts import fill, phase_intro, seat_line, setup_advice, who


@dataclass(frozen=True)
class PlayResult:
    """How an interactive match ended: finished, or abandoned (quit / end of input)."""

    match: Match
    finished: bool


def play_in_terminal(match: Match, players: dict[str, Optional[Player]], rng: np.random.Generator,
                     inp: TextIO, out: TextIO, *, title: Optional[str] = None, thinking: Optional[TextIO] = None,
                     opponent: str = "a program", reader: Optional[TerminalReader] = None,
                     komi_by_flag: bool = False, layout: str = LAYOUTS[0]) -> PlayResult:
    """Run one interactive match (R7 set-up, then the game) in the terminal: ``players[seat]`` is
    a ``Player``, or None for a person typing on ``inp`` (or through ``reader``, on a terminal),
    who becomes a ``TerminalPlayer``: every seat then acts through ``next_turn``, the person
    like any program. Not the arena's ``eval.arena.play_match``, which plays many games between
    two batched agents at once.

    Bad input never ends the game: it prints one line saying why and asks again. While a
    program chooses, "... is thinking" is shown on ``thinking`` (a terminal; None: nowhere) and
    erased afterwards, so output that is read by a script carries only the game.
    ``title``: the game's options in one line, shown first ("Catena: ...").
    ``komi_by_flag``: the komi was chosen before the match by ``--komi`` (the game says so).
    ``layout``: the board's picture (``render_ascii``).
    """
    person = _person_seat(players)
    seats: dict[str, Player] = {
        seat: TerminalPlayer(match, inp, out, undo_seat=person, reader=reader, layout=layout)
        if player is None else player for seat, player in players.items()}
    screen = _Screen(match, out, layout, person, komi_by_flag)
    screen.introduce(title, opponent)
    while match.phase is not Phase.OVER:
        screen.before_turn(seats)
        seat = match.player_to_act
        actor = who(match, seat)  # before the event: a colour choice changes it
        try:
            event = _ask(seats[seat], match, rng, actor, thinking)
        except Abandoned:
            return PlayResult(match, finished=False)
        except UndoAsked:
            screen.position_changed()
            continue
        match.apply(event)
        screen.applied(actor, event)
    screen.board()  # ends with the result, once
    return PlayResult(match, finished=True)


def _person_seat(players: dict[str, Optional[Player]]) -> Optional[str]:
    """The seat of the one person playing a program; None for two people (or two programs)."""
    people = [seat for seat in PLAYERS if players[seat] is None or isinstance(players[seat], TerminalPlayer)]
    return people[0] if len(people) == 1 else None


def _ask(player: Player, match: Match, rng: np.random.Generator, actor: str, thinking: Optional[TextIO]) -> Event:
    """``player``'s next event; "``actor`` is thinking..." on ``thinking`` while a program chooses."""
    shown = thinking is not None and not isinstance(player, TerminalPlayer)
    if shown:
        print(f"{actor} is thinking...", end="", file=thinking, flush=True)
    try:
        return next_turn(player, match, rng).event
    finally:
        if shown:
            print("\r\033[K", end="", file=thinking, flush=True)  # erase the line


class _Screen:
    """What the terminal has shown of ``match`` so far, so each thing is shown once: a phase's
    introduction, the person's colour, the board of each move, the board's key."""

    def __init__(self, match: Match, out: TextIO, layout: str, person: Optional[str], komi_by_flag: bool) -> None:
        self.match, self.out, self.layout = match, out, layout
        self.person, self.komi_by_flag = person, komi_by_flag
        self.shown_phase: Optional[Phase] = None
        self.shown_board: Optional[int] = None  # the move number of the board last shown
        self.told_colour = False
        self.key_shown = False  # the key's lines that never change: with the first board only

    def introduce(self, title: Optional[str], opponent: str) -> None:
        if title is not None:
            self._say(f"Catena: {title}.")
        self._say("Type 'help' for the commands, 'rules' for the rules in brief.")
        if self.person is not None:
            self._say(seat_line(self.match, self.person, opponent, self.komi_by_flag))

    def before_turn(self, players: dict[str, Player]) -> None:
        """A new phase's introduction and advice, the person's colour once known, and the board
        once per move (no empty board before a colour choice)."""
        match, person = self.match, self.person
        if match.phase != self.shown_phase:
            self.shown_phase = match.phase
            self._say(fill(phase_intro(match, self.komi_by_flag)))
            advice = setup_advice(match, players, person)
            if advice is not None:
                self._say(advice)
        if person is not None and not self.told_colour and match.colour_of(person) is not None:
            self.told_colour = True
            self._say(f"You play {match.colour_of(person)}.")
        game = match.game
        if game is not None and self.shown_board != game.move_number and (match.phase is Phase.PLAY or game.move_number):
            self.shown_board = game.move_number
            self.board()

    def applied(self, actor: str, event: Event) -> None:
        self._say(f"{actor}: {event}")
        if event.kind in (EventKind.SWAP, EventKind.COLOUR):
            self.position_changed()  # the colours are settled (a swap changed the seats'): the board again

    def position_changed(self) -> None:
        """Show the board again before the next turn (after an undo, or once the colours are settled)."""
        self.shown_board = None

    def board(self) -> None:
        print(render_ascii(self.match.game, match=self.match, layout=self.layout, key=not self.key_shown),
              end="", file=self.out)
        self.key_shown = True

    def _say(self, text: str) -> None:
        print(text, file=self.out)
