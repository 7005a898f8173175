"""A match: the pre-game protocol of RULES.md R7 around one ``Game``, and who plays which colour.

The two players are "first" and "second" (R7); colours are "black" and "white". Every event
is written in R10 notation and kept in ``events``:
    komi K                 the first player chooses the komi (game type komi)
    colour black|white     the second player chooses a colour (komi, no_komi)
    swap                   no_komi: the second player takes over Black and its stone
    D5 / button            a move of the game

Protocols per game type (``phase`` says what is expected next, ``player_to_act`` who acts):
    komi:     "komi" (first) -> "colour" (second) -> "play" (Black first) -> "over"
    no_komi:  "play" (first places Black's opening stone) -> "colour" (second: "colour white"
              keeps White, "colour black" or "swap" takes Black, and then the first player
              plays White) -> "play" (White moves next) -> "over"; komi 0
    double:   "play" (first is Black, second White, R8) -> "over"
"""

from __future__ import annotations

import re
from dataclasses import replace

from .options import GameConfig, komi_range
from .rules import Game, GameNotOver, IllegalMove

PLAYERS = ("first", "second")
_KOMI_EVENT = re.compile(r"komi (0|[1-9][0-9]*)")
_COLOUR_EVENT = re.compile(r"colour (black|white)")


def _other(name: str) -> str:
    return {"first": "second", "second": "first", "black": "white", "white": "black"}[name]


class Match:
    """One match under ``config`` (R7, R8). For game type komi the komi is chosen in the
    match, so ``config.komi`` is not used; no_komi and double always have komi 0."""

    def __init__(self, config: GameConfig) -> None:
        if not isinstance(config, GameConfig):
            raise ValueError(f"Match needs a GameConfig, got {type(config).__name__}")
        self.config = config
        self._events: list[str] = []
        self._actors: list[str] = []  # per event: the player who made it
        self._colour_of: dict[str, str] = {}  # player -> colour, once decided
        self._game: Game | None = None
        if config.game_type == "komi":
            self._phase = "komi"
        else:
            self._phase = "play"
            self._game = Game(config)
            if config.game_type == "double":  # R8: colours are fixed
                self._colour_of = {"first": "black", "second": "white"}

    @classmethod
    def replay(cls, config: GameConfig, events) -> Match:
        """A match after applying ``events`` (R10 strings) in order."""
        match = cls(config)
        for event in events:
            match.apply(event)
        return match

    def rewind(self, keep: int) -> None:
        """Take back every event after the first ``keep``: the match becomes what it was then
        (undo, in the terminal and on the web). The engine has no undo; replaying is cheap."""
        if isinstance(keep, bool) or not isinstance(keep, int) or not 0 <= keep <= len(self._events):
            raise ValueError(f"can keep 0..{len(self._events)} events, got {keep!r}")
        self.__dict__.update(Match.replay(self.config, self._events[:keep]).__dict__)

    # ------------------------------------------------------------------ state
    @property
    def phase(self) -> str:
        """What is expected next: "komi", "colour", "play" or "over"."""
        if self._game is not None and self._game.is_over:
            return "over"
        return self._phase

    @property
    def player_to_act(self) -> str | None:
        """"first" or "second": who must act now; None once over."""
        phase = self.phase
        if phase == "komi":
            return "first"
        if phase == "colour":
            return "second"
        if phase == "over":
            return None
        if not self._colour_of:  # no_komi opening: the first player places Black's stone
            return "first"
        return self.player_of(self._game.to_move)

    @property
    def game(self) -> Game | None:
        """The game, created once the komi is known (at once for no_komi and double)."""
        return self._game

    @property
    def events(self) -> list[str]:
        """All events so far in R10 notation, in order."""
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
        if self.phase != "over":
            raise GameNotOver("the match is not over yet; winning_player is only defined at the end")
        winner = self._game.winner
        return None if winner is None else self.player_of(winner)

    # ------------------------------------------------------------------ events
    def apply(self, event: str) -> None:
        """Apply one event in R10 notation; IllegalMove if malformed or wrong for the phase."""
        if not isinstance(event, str):
            raise IllegalMove(f"an event must be a string in R10 notation, got {event!r}")
        if event.startswith("komi"):
            found = _KOMI_EVENT.fullmatch(event)
            if found is None:
                raise IllegalMove(
                    f"{event!r} is malformed: expected 'komi K' with a whole number K (R10)")
            self.choose_komi(int(found.group(1)))
        elif event.startswith("colour"):
            found = _COLOUR_EVENT.fullmatch(event)
            if found is None:
                raise IllegalMove(
                    f"{event!r} is malformed: expected 'colour black' or 'colour white' (R10)")
            self.choose_colour(found.group(1))
        elif event == "swap":
            self.swap()
        else:
            self.play(event)

    def choose_komi(self, komi: int) -> None:
        """R7 (komi): the first player chooses the komi, in the scoring's range (R6)."""
        self._expect("komi", "choose the komi")
        lo, hi = komi_range(self.config.scoring)
        if isinstance(komi, bool) or not isinstance(komi, int) or not lo <= komi <= hi:
            raise IllegalMove(
                f"komi must be a whole number in {lo}..{hi} for scoring "
                f"{self.config.scoring!r} (R6), got {komi!r}"
            )
        self._game = Game(replace(self.config, komi=komi))
        self._phase = "colour"
        self._log(f"komi {komi}", "first")

    def choose_colour(self, colour: str) -> None:
        """R7: the second player chooses a colour. In no_komi "black" takes over Black and
        its opening stone (the same as ``swap``); "white" keeps White."""
        self._expect("colour", "choose a colour")
        if colour not in ("black", "white"):
            raise IllegalMove(f"colour must be 'black' or 'white', got {colour!r}")
        self._colour_of = {"second": colour, "first": _other(colour)}
        self._phase = "play"
        self._log(f"colour {colour}", "second")

    def swap(self) -> None:
        """R7 (no_komi): the second player takes over Black and its stone; White moves next."""
        if self.config.game_type != "no_komi":
            raise IllegalMove(
                f"'swap' exists only in game type no_komi (R7), not {self.config.game_type!r}")
        self._expect("colour", "swap")
        self._colour_of = {"second": "black", "first": "white"}
        self._phase = "play"
        self._log("swap", "second")

    def play(self, move: str) -> None:
        """A move of the game ("D5" or "button") by the player to act; IllegalMove if not
        legal (R3-R8) or not the playing phase."""
        self._expect("play", f"play {move!r}")
        player = self.player_to_act
        self._game.play(move)
        self._log(move, player)
        if self.config.game_type == "no_komi" and not self._colour_of:
            self._phase = "colour"  # R7: after Black's opening stone the second player chooses

    def _log(self, event: str, player: str) -> None:
        self._events.append(event)
        self._actors.append(player)

    def _expect(self, phase: str, what: str) -> None:
        current = self.phase
        if current != phase:
            expected = {
                "komi": "the first player to choose the komi ('komi K')",
                "colour": "the second player to choose a colour ('colour black|white'"
                + (" or 'swap')" if self.config.game_type == "no_komi" else ")"),
                "play": f"a move by the {self.player_to_act} player",
                "over": "nothing: the game is over",
            }[current]
            raise IllegalMove(f"cannot {what} now: the match expects {expected} (R7)")

    def __repr__(self) -> str:
        return f"Match({self.config.game_type}, phase={self.phase}, {len(self._events)} events)"
