"""A person typing at the terminal, as just another player: ``TerminalPlayer`` reads lines until
one is a legal event and answers the person's own commands (moves, board, undo, help, ...) on
the way; ``TerminalReader`` reads through the standard library's ``readline`` on a terminal
(line editing, history, tab-completion), and plain lines come from a pipe as they come."""

from __future__ import annotations

from typing import Optional, TextIO

import numpy as np

from ..bot.players import ASKED, NO_BUDGET, Budget, Capabilities
from ..errors import UserError
from ..fileio import MAX_LINE_CHARS, bounded_lines
from ..game.match import Match, Phase
from ..game.notation import Event, parse_event, parse_move
from ..game.records import board_of
from ..game.render import LAYOUTS, render_ascii
from ..messages import quote
from .texts import HELP_TEXT, NO_SUCH_MOVES, RULES_TEXT, legal_summary, no_such_move, who

COMMANDS = ("moves", "board", "undo", "rules", "help", "quit")  # typed instead of an event
_MAX_INPUT = 40  # characters of one typed line; the longest event, "colour white", has 12


class Abandoned(Exception):
    """The person quit, or their input ended: the game stops unfinished (never a user's error)."""


class UndoAsked(Exception):
    """The person took moves back: the position changed, nobody made an event."""


class UndoableMatch(Match):
    """A ``Match`` whose game moves can be taken back (undo in the terminal)."""

    def undo_turn(self, seat: Optional[str] = None) -> bool:
        """Take back ``seat``'s last move and every event after it, so that ``seat`` is to act in
        the position before that move (None: the last move, whoever made it: two people playing).
        Set-up events (komi, colour, swap) are never taken back, and neither is a move that a
        set-up choice followed (no_komi's opening stone). False, and nothing changed, when there
        is no such move."""
        events, actors = self.events, self.actors
        for i in range(len(events) - 1, -1, -1):
            if events[i].is_setup:
                return False
            if seat is None or actors[i] == seat:
                self.rewind(i)
                return True
        return False


class TerminalReader:
    """Typed lines through the standard library's ``readline`` (only for a terminal): line
    editing and history, and tab-completion of what may be typed now in ``match`` (the legal
    moves in play, the set-up words before it, and the commands)."""

    def __init__(self, match: Match) -> None:
        import readline  # the terminal's line editor; importing it makes input() use it

        self.match = match
        self._matches: list[str] = []
        readline.set_completer_delims(" \t")
        readline.set_completer(self.complete)
        readline.parse_and_bind("tab: complete")

    def words(self) -> list[str]:
        """What may be typed now, as single words."""
        phase = self.match.phase
        if phase is Phase.PLAY:
            words = self.match.game.legal_moves()
        elif phase is Phase.KOMI:
            words = ["komi"]
        elif phase is Phase.COLOUR:
            words = ["white", "swap"] if self.match.config.game_type_rule.has_swap else ["black", "white"]
        else:
            words = []
        return words + list(COMMANDS)

    def complete(self, text: str, state: int) -> Optional[str]:
        if state == 0:
            self._matches = [w for w in self.words() if w.lower().startswith(text.lower())]
        return self._matches[state] if state < len(self._matches) else None

    def read(self, prompt: str) -> Optional[str]:
        """One typed line (without its newline), None at the end of input (Ctrl-D)."""
        try:
            return input(prompt)
        except EOFError:
            return None


class TerminalPlayer:
    """A person typing at the terminal, as just another ``Player`` (AlphaZero.jl's human player):
    ``choose`` and, declared ``ASKED``, ``choose_setup`` read lines until one is a legal event
    and return it (checked on a copy of the match: the caller applies it). Bad input never ends
    the game: one line says why, and the person is asked again. Quitting or the end of input
    raises ``Abandoned``, an undo ``UndoAsked`` (the match has already been rewound).

    ``undo_seat``: whose last move 'undo' takes back (None: the last move, two people playing);
    ``reader``: a ``TerminalReader`` on a terminal, else lines are read from ``inp``."""

    name = "you"
    capabilities = Capabilities(setup=ASKED)

    def __init__(self, match: Match, inp: TextIO, out: TextIO, *, undo_seat: Optional[str] = None,
                 reader: Optional[TerminalReader] = None, layout: str = LAYOUTS[0]) -> None:
        self.match, self.inp, self.out = match, inp, out
        self.undo_seat, self.reader, self.layout = undo_seat, reader, layout

    def choose(self, game, rng: Optional[np.random.Generator], budget: Budget = NO_BUDGET) -> str:
        return self._turn().as_move

    def choose_setup(self, match: Match, rng: np.random.Generator) -> Event:
        return self._turn()

    def _turn(self) -> Event:
        prompt = f"{who(self.match, self.match.player_to_act)} > "
        while True:
            text = self._line(prompt)
            if not text:
                continue
            command = text.lower()
            if command in ("quit", "exit"):
                self._say("game abandoned")
                raise Abandoned
            if command in COMMANDS or command in NO_SUCH_MOVES:
                self._command(command)
                continue
            event = self._event(text)
            if event is not None:
                return event

    def _line(self, prompt: str) -> str:
        """The next typed line, stripped ("" for a line to skip); Abandoned at the end of input."""
        if self.reader is not None:
            self.out.flush()
            line = self.reader.read(prompt)
            line = None if line is None else line + "\n"
        else:
            print(prompt, end="", file=self.out, flush=True)
            line = next(bounded_lines(self.inp), "")  # "" at the end of the input
            if line is None:  # longer than MAX_LINE_CHARS: read through, never held
                self._say(f"not accepted: the line is longer than {MAX_LINE_CHARS:,} characters. "
                          f"Type 'help' for help.")
                return ""
        if not line:
            self._say("\nend of input: game abandoned")
            raise Abandoned
        return line.strip()

    def _command(self, command: str) -> None:
        """Answer one of the person's commands (quit aside): help, rules, moves, board, undo,
        and pass and resign, which Catena does not have. UndoAsked after a move taken back."""
        match = self.match
        if command in NO_SUCH_MOVES:
            self._say(no_such_move(command, match))
        elif command == "help":
            self._say(HELP_TEXT)
        elif command == "rules":
            self._say(RULES_TEXT)
        elif command == "moves":
            self._say(legal_summary(match))
        elif command == "board":
            # Before the komi choice there is no game yet (R7): show the empty board.
            print(render_ascii(board_of(match), match=match, layout=self.layout), end="", file=self.out)
        elif command == "undo":
            if isinstance(match, UndoableMatch) and match.undo_turn(self.undo_seat):
                self._say(f"undone: back to the position before {'your' if self.undo_seat else 'the'} last move")
                raise UndoAsked
            self._say("nothing to undo: no move to take back since the set-up")

    def _event(self, text: str) -> Optional[Event]:
        """``text`` as a legal event now, or None after one line saying why it is not."""
        match = self.match
        if len(text) > _MAX_INPUT:  # no event is this long; do not echo a pasted megabyte back
            self._say(f"not accepted: {quote(text)} is not a move or a command. Type 'help' for help.")
            return None
        try:
            side = match.config.side
            # In play only moves make sense, so the error names only them.
            event = Event.move(parse_move(text, side)) if match.phase is Phase.PLAY else parse_event(
                _expand_shorthand(text, match.phase), side)
            Match.replay(match.config, match.events).apply(event)  # IllegalMove; the caller applies it
        except UserError as exc:  # IllegalMove, or text that is not an event
            self._say(f"not accepted: {exc}. Type 'moves' for the legal ones, 'help' for help.")
            return None
        return event

    def _say(self, text: str) -> None:
        print(text, file=self.out)


def _expand_shorthand(text: str, phase: Phase) -> str:
    """Accept '7' for 'komi 7' in the komi phase and 'black'/'white' for 'colour ...' (R7)."""
    word = text.strip().lower()
    if phase is Phase.KOMI and word.isascii() and word.isdigit():
        return f"komi {word}"
    if phase is Phase.COLOUR and word in ("black", "white"):
        return f"colour {word}"
    return text
