"""A match: the pre-game protocol of RULES.md R7 around one ``Game``, and who plays which colour.

The two players are "first" and "second" (R7); colours are "black" and "white". Every event
is an ``Event`` record (``notation.py``; text becomes one at the edge, ``read_event`` or
``parse_event``), kept in ``events``; in R10 notation:
    komi K                 the first player chooses the komi (game type komi)
    colour black|white     the second player chooses a colour (komi, no_komi)
    swap                   no_komi: the second player takes over Black and its stone
    D5 / button            a move of the game

Protocols per game type (``phase``, a ``Phase``, says what is expected next, ``player_to_act``
who acts; the game type's record, ``GameType``, says which protocol):
    has_komi:  KOMI (first) -> COLOUR (second) -> PLAY (Black first) -> OVER
    has_swap:  PLAY (first places Black's opening stone) -> COLOUR (second: "colour white"
               keeps White, "colour black" or "swap" takes Black, and then the first player
               plays White) -> PLAY (White moves next) -> OVER; komi 0
    neither:   PLAY (first is Black, second White, R8) -> OVER
"""

from __future__ import annotations

import copy
from dataclasses import replace
from typing import Iterable

from .notation import Event, EventKind, Word
from .options import GameConfig, komi_range
from .rules import Game, GameNotOver, IllegalMove

PLAYERS = ("first", "second")


class Phase(Word):
    """What a match expects next (R7): the komi, a colour, a move, or nothing (over)."""

    KOMI = "komi"
    COLOUR = "colour"
    PLAY = "play"
    OVER = "over"


def _other(name: str) -> str:
    return {"first": "second", "second": "first", "black": "white", "white": "black"}[name]


class Match:
    """One match under ``config`` (R7, R8). For game type komi the komi is chosen in the
    match, so ``config.komi`` is not used; no_komi and double always have komi 0."""

    def __init__(self, config: GameConfig) -> None:
        if not isinstance(config, GameConfig):
            raise ValueError(f"Match needs a GameConfig, got {type(config).__name__}")
        self.config = config
        self._events: list[Event] = []
        self._actors: list[str] = []  # per event: the player who made it
        self._colour_of: dict[str, str] = {}  # player -> colour, once decided
        self._game: Game | None = None
        rule = config.game_type_rule
        if rule.has_komi:
            self._phase = Phase.KOMI
        else:
            self._phase = Phase.PLAY
            self._game = Game(config)
            if rule.fixed_colours:  # R8: colours are fixed
                self._colour_of = {"first": "black", "second": "white"}

    @classmethod
    def replay(cls, config: GameConfig, events: Iterable[Event]) -> Match:
        """A match after applying ``events`` in order."""
        match = cls(config)
        for event in events:
            match.apply(event)
        return match

    @classmethod
    def settled(cls, game: Game) -> Match:
        """A match in play at ``game`` whose set-up was settled outside it (the engine's: the komi
        set by a command, the first player Black), no event of its own."""
        match = cls(game.config)
        match._game, match._phase = game, Phase.PLAY
        match._colour_of = {"first": "black", "second": "white"}
        return match

    def copy(self) -> Match:
        """An independent copy (a worker thread thinks on it while the event loop owns this one)."""
        twin = copy.copy(self)
        twin._events, twin._actors, twin._colour_of = self._events[:], self._actors[:], dict(self._colour_of)
        twin._game = None if self._game is None else self._game.copy()
        return twin

    def rewind(self, keep: int) -> None:
        """Take back every event after the first ``keep``: the match becomes what it was then
        (undo, in the terminal and on the web). The engine has no undo; replaying is cheap."""
        if isinstance(keep, bool) or not isinstance(keep, int) or not 0 <= keep <= len(self._events):
            raise ValueError(f"can keep 0..{len(self._events)} events, got {keep!r}")
        self.__dict__.update(Match.replay(self.config, self._events[:keep]).__dict__)

    # ------------------------------------------------------------------ state
    @property
    def phase(self) -> Phase:
        """What is expected next."""
        if self._game is not None and self._game.is_over:
            return Phase.OVER
        return self._phase

    @property
    def player_to_act(self) -> str | None:
        """"first" or "second": who must act now; None once over."""
        phase = self.phase
        if phase is Phase.KOMI:
            return "first"
        if phase is Phase.COLOUR:
            return "second"
        if phase is Phase.OVER:
            return None
        if not self._colour_of:  # no_komi opening: the first player places Black's stone
            return "first"
        return self.player_of(self._game.to_move)

    @property
    def game(self) -> Game | None:
        """The game, created once the komi is known (at once for no_komi and double)."""
        return self._game

    @property
    def events(self) -> list[Event]:
        """All events so far, in order."""
        return self._events[:]

    @property
    def actors(self) -> list[str]:
        """Per event of ``events``, the player who made it, "first" or "second"."""
        return self._actors[:]

    def colour_of(self, player: str) -> str | None:
        """The colour ``player`` ("first"/"second") plays, None while not yet chosen."""
        if player not in PLAYERS:
            raise ValueError(f"player must be 'first' or 'second', got {player!r}")
        return self._colour_of.get(player)

    def player_of(self, colour: str) -> str | None:
        """The player ("first"/"second") of ``colour``, None while not yet chosen."""
        if colour not in ("black", "white"):
            raise ValueError(f"colour must be 'black' or 'white', got {colour!r}")
        for player, c in self._colour_of.items():
            if c == colour:
                return player
        return None

    @property
    def winning_player(self) -> str | None:
        """"first" or "second" once over, None for a draw; GameNotOver before."""
        if self.phase is not Phase.OVER:
            raise GameNotOver("the match is not over yet; winning_player is only defined at the end")
        winner = self._game.winner
        return None if winner is None else self.player_of(winner)

    # ------------------------------------------------------------------ events
    def apply(self, event: Event) -> None:
        """Apply one event; IllegalMove if it is wrong for the phase or not legal."""
        if not isinstance(event, Event):
            raise TypeError(f"a match applies Event records (notation.read_event), got {event!r}")
        if event.kind is EventKind.KOMI:
            self._choose_komi(event.komi)
        elif event.kind is EventKind.COLOUR:
            self._choose_colour(event.colour)
        elif event.kind is EventKind.SWAP:
            self._swap()
        else:
            self._play(event.as_move)

    def _choose_komi(self, komi: int | None) -> None:
        """R7 (komi): the first player chooses the komi, in the scoring's range (R6)."""
        self._expect(Phase.KOMI, "choose the komi")
        lo, hi = komi_range(self.config.scoring)
        if isinstance(komi, bool) or not isinstance(komi, int) or not lo <= komi <= hi:
            raise IllegalMove(
                f"komi must be a whole number in {lo}..{hi} for scoring "
                f"{self.config.scoring!r} (R6), got {komi!r}"
            )
        self._game = Game(replace(self.config, komi=komi))
        self._phase = Phase.COLOUR
        self._log(Event.komi_choice(komi), "first")

    def _choose_colour(self, colour: str | None) -> None:
        """R7: the second player chooses a colour. In no_komi "black" takes over Black and
        its opening stone (the same as ``swap``); "white" keeps White."""
        self._expect(Phase.COLOUR, "choose a colour")
        if colour not in ("black", "white"):
            raise IllegalMove(f"colour must be 'black' or 'white', got {colour!r}")
        self._colour_of = {"second": colour, "first": _other(colour)}
        self._phase = Phase.PLAY
        self._log(Event.colour_choice(colour), "second")

    def _swap(self) -> None:
        """R7 (no_komi): the second player takes over Black and its stone; White moves next."""
        if not self.config.game_type_rule.has_swap:
            raise IllegalMove(
                f"'swap' exists only in game type no_komi (R7), not {self.config.game_type!r}")
        self._expect(Phase.COLOUR, "swap")
        self._colour_of = {"second": "black", "first": "white"}
        self._phase = Phase.PLAY
        self._log(Event.swap(), "second")

    def _play(self, move: str) -> None:
        """A move of the game ("D5" or "button") by the player to act; IllegalMove if not
        legal (R3-R8) or not the playing phase."""
        self._expect(Phase.PLAY, f"play {move!r}")
        player = self.player_to_act
        self._game.play(move)
        self._log(Event.move(move), player)
        if self.config.game_type_rule.has_swap and not self._colour_of:
            self._phase = Phase.COLOUR  # R7: after Black's opening stone the second player chooses

    def _log(self, event: Event, player: str) -> None:
        self._events.append(event)
        self._actors.append(player)

    def _expect(self, phase: Phase, what: str) -> None:
        current = self.phase
        if current != phase:
            expected = {
                Phase.KOMI: "the first player to choose the komi ('komi K')",
                Phase.COLOUR: "the second player to choose a colour ('colour black|white'"
                + (" or 'swap')" if self.config.game_type_rule.has_swap else ")"),
                Phase.PLAY: f"a move by the {self.player_to_act} player",
                Phase.OVER: "nothing: the game is over",
            }[current]
            raise IllegalMove(f"cannot {what} now: the match expects {expected} (R7)")

    def __repr__(self) -> str:
        return f"Match({self.config.game_type}, phase={self.phase}, {len(self._events)} events)"
