"""The bot's text protocol: GTP-style commands on stdin, replies on stdout (``catena-zero engine``).

As in GTP (the Go Text Protocol, version 2), each command is one line, optionally preceded by a
numeric id; each reply is ``=[id] result`` on success or ``?[id] message`` on failure, followed by
an empty line. A multi-line result starts on the line after ``=``. Comments (``#`` to the end of
the line) and empty lines are ignored. A command that fails leaves the engine's state unchanged.

Commands (Catena's options replace GTP's ``boardsize``; colours are ``black``/``white`` or
``b``/``w``; moves are cells in R10 notation, ``D5``, or ``button``; lower case is accepted):

    protocol_version                  2
    name                              catena-zero
    version                           the package version
    known_command NAME                true / false
    list_commands                     one command per line
    options [side N] [type T] [scoring S]
                                      set game options (clears the board; komi kept when still
                                      valid, else 0); without arguments, report them
    komi K                            set the komi (a whole number in the scoring's range, R6;
                                      0 outside game type komi); the moves played are kept
    clear_board                       a new game under the current options
    play COLOUR MOVE                  play a move for the player to move
    genmove COLOUR                    the bot's move for the player to move, played
    undo                              take back the last move
    showboard                         the board as text
    legal_moves                       the moves legal now, space separated
    final_score                       the result once the game is over: B+3.5, W+2 or 0 (draw)
    analyze [N]                       the bot's view: to move, value, score, best move, simulations;
                                      then up to N (default 10) moves, one per line, with visits,
                                      value, score and prior
    genkomi                           game type komi, empty board: the komi the bot chooses as
                                      first player (R7), which is then set
    gencolour                         the bot's choice as second player (R7): black or white at the
                                      current komi (game type komi, empty board), or swap or white
                                      after Black's first stone (no_komi); nothing is changed
    quit                              end the session

Values are P(win) - P(loss) in [-1, 1] for the player to move; scores are that player's expected
final margin (R6).
"""

from __future__ import annotations

import dataclasses
import re
import sys
import traceback
from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable, Optional, TextIO

from .. import __version__
from ..errors import UserError
from ..fileio import MAX_LINE_CHARS, bounded_lines
from ..game.notation import parse_move
from ..game.options import GAME_TYPES, SCORINGS, GameConfig, komi_range
from ..game.render import render_ascii
from ..game.rules import Game, IllegalMove
from ..messages import one_line, quote

if TYPE_CHECKING:
    from .bot import Bot

PROTOCOL_VERSION = "2"
ENGINE_NAME = "catena-zero"
_ID = re.compile(r"^([0-9]+)\s*(.*)$")
MAX_DIGITS = 9  # of an id or a number argument: GTP ids are small integers, and no option needs more
_COLOURS = {"black": "black", "b": "black", "white": "white", "w": "white"}


class CommandError(UserError):
    """A command that cannot be carried out; its message is the ``?`` reply."""


def _whole_number(text: str, what: str, note: str = "") -> int:
    """An ASCII whole number of at most ``MAX_DIGITS`` digits (``str.isdigit`` accepts "²" and
    ``int`` refuses 4,300 digits); CommandError otherwise."""
    if not re.fullmatch(f"[0-9]{{1,{MAX_DIGITS}}}", text):
        suffix = f" {note}" if note else ""
        raise CommandError(f"{what} must be a whole number of at most {MAX_DIGITS} digits{suffix}, got {quote(text)}")
    return int(text)


@dataclass(frozen=True)
class Reply:
    """The answer to one command line."""

    ok: bool
    text: str = ""
    id: Optional[int] = None

    def __str__(self) -> str:
        head = ("=" if self.ok else "?") + ("" if self.id is None else str(self.id))
        if not self.text:
            return head + "\n\n"
        if "\n" in self.text:
            # An empty line ends a reply, so a multi-line result never contains one.
            body = "\n".join(line.rstrip() for line in self.text.splitlines() if line.strip())
            return f"{head}\n{body}\n\n"
        return f"{head} {self.text}\n\n"


class Engine:
    """The protocol's state (options, game) around a ``Bot``; ``handle`` answers one line."""

    def __init__(self, bot: "Bot") -> None:
        self.bot = bot
        self.config: GameConfig = bot.game_config
        self.game = Game(self.config)
        self.finished = False  # set by quit
        self._commands: dict[str, Callable[[list[str]], str]] = {
            "protocol_version": self._protocol_version,
            "name": self._name,
            "version": self._version,
            "known_command": self._known_command,
            "list_commands": self._list_commands,
            "options": self._options,
            "komi": self._komi,
            "clear_board": self._clear_board,
            "play": self._play,
            "genmove": self._genmove,
            "undo": self._undo,
            "showboard": self._showboard,
            "legal_moves": self._legal_moves,
            "final_score": self._final_score,
            "analyze": self._analyze,
            "genkomi": self._genkomi,
            "gencolour": self._gencolour,
            "quit": self._quit,
        }

    # -- the loop ----------------------------------------------------------------------------------

    def handle(self, line: str) -> Optional[Reply]:
        """The reply to one input line; None for an empty or comment-only line."""
        text = "".join(ch if ch.isprintable() or ch == "\t" else " " for ch in line.split("#", 1)[0]).strip()
        if not text:
            return None
        ident = None
        found = _ID.match(text)
        if found:
            if len(found.group(1)) > MAX_DIGITS:  # int() of 4,300+ digits raises; no GTP id is that big
                return Reply(False, f"the id must be a whole number of at most {MAX_DIGITS} digits, "
                                    f"got {len(found.group(1)):,} digits")
            ident, text = int(found.group(1)), found.group(2)
        words = text.split()
        if not words:
            return Reply(False, "no command after the id", ident)
        command, args = words[0], words[1:]
        handler = self._commands.get(command)
        if handler is None:
            return Reply(False, f"unknown command: {command} (list_commands lists them)", ident)
        try:
            return Reply(True, handler(args), ident)
        except UserError as exc:  # CommandError, IllegalMove, UnsupportedGame; any other error is a bug
            return Reply(False, one_line(exc) or type(exc).__name__, ident)

    def run(self, stdin: TextIO, stdout: TextIO, stderr: TextIO = sys.stderr) -> int:
        """Answer commands from ``stdin`` until ``quit`` or the end of the input."""
        for line in bounded_lines(stdin):
            if line is None:  # a line of more than MAX_LINE_CHARS is dropped unread, never held
                stdout.write(str(Reply(False, f"the line is longer than {MAX_LINE_CHARS:,} characters; "
                                              "a command is one short line")))
                stdout.flush()
                continue
            try:
                reply = self.handle(line)
            except Exception as exc:  # a bug must not kill a GUI's session: report it and go on
                traceback.print_exc(file=stderr)
                reply = Reply(False, f"internal error: {type(exc).__name__}: {one_line(exc)}")
            if reply is not None:
                stdout.write(str(reply))
                stdout.flush()
            if self.finished:
                break
        return 0

    # -- helpers -----------------------------------------------------------------------------------

    @staticmethod
    def _arity(args: list[str], usage: str, least: int, most: Optional[int] = None) -> None:
        most = least if most is None else most
        if not least <= len(args) <= most:
            raise CommandError(f"usage: {usage}")

    def _colour(self, text: str) -> str:
        colour = _COLOURS.get(text.lower())
        if colour is None:
            raise CommandError(f"{text!r} is not a colour: expected black or white (b or w)")
        return colour

    def _expect_to_move(self, colour: str) -> None:
        if self.game.is_over:
            raise CommandError("the game is over")
        if colour != self.game.to_move:
            raise CommandError(f"{colour} is not to move ({self.game.to_move} is)")

    def _replayed(self, config: GameConfig, moves: list[int]) -> Game:
        return Game.replay(config, moves)

    # -- commands ----------------------------------------------------------------------------------

    def _protocol_version(self, args: list[str]) -> str:
        self._arity(args, "protocol_version", 0)
        return PROTOCOL_VERSION

    def _name(self, args: list[str]) -> str:
        self._arity(args, "name", 0)
        return ENGINE_NAME

    def _version(self, args: list[str]) -> str:
        self._arity(args, "version", 0)
        return f"{__version__} (bot step {self.bot.header.step})"

    def _known_command(self, args: list[str]) -> str:
        self._arity(args, "known_command NAME", 1)
        return "true" if args[0] in self._commands else "false"

    def _list_commands(self, args: list[str]) -> str:
        self._arity(args, "list_commands", 0)
        return "\n".join(self._commands)

    def _describe_options(self) -> str:
        c = self.config
        return f"side {c.side} type {c.game_type} scoring {c.scoring} komi {c.komi}"

    def _options(self, args: list[str]) -> str:
        if len(args) % 2:
            raise CommandError("usage: options [side N] [type komi|no_komi|double] [scoring standard|longest|quadratic]")
        if not args:
            return self._describe_options()
        values = {"side": self.config.side, "type": self.config.game_type, "scoring": self.config.scoring}
        for key, value in zip(args[::2], args[1::2]):
            if key == "side":
                values["side"] = _whole_number(value, "side")
            elif key == "type":
                if value not in GAME_TYPES:
                    raise CommandError(f"type must be one of {', '.join(GAME_TYPES)}; got {value!r}")
                values["type"] = value
            elif key == "scoring":
                if value not in SCORINGS:
                    raise CommandError(f"scoring must be one of {', '.join(SCORINGS)}; got {value!r}")
                values["scoring"] = value
            else:
                raise CommandError(f"unknown option {key!r} (options are side, type, scoring)")
        lo, hi = komi_range(values["scoring"])
        komi = self.config.komi if values["type"] == "komi" and lo <= self.config.komi <= hi else 0
        config = GameConfig(side=values["side"], game_type=values["type"], scoring=values["scoring"], komi=komi)
        self.bot.check_supported(config)  # UnsupportedGame: the bot was not trained for it
        self.config, self.game = config, Game(config)
        return ""

    def _komi(self, args: list[str]) -> str:
        self._arity(args, "komi K", 1)
        komi = _whole_number(args[0], "komi", "(R6)")
        if self.config.game_type != "komi" and komi != 0:
            raise CommandError(f"game type {self.config.game_type} has no komi (R7, R8): only komi 0")
        lo, hi = komi_range(self.config.scoring)
        if not lo <= komi <= hi:
            raise CommandError(f"komi must be in {lo}..{hi} for {self.config.scoring} scoring (R6), got {komi}")
        config = dataclasses.replace(self.config, komi=komi)
        self.game = self._replayed(config, self.game.actions)  # komi changes the scores only
        self.config = config
        return ""

    def _clear_board(self, args: list[str]) -> str:
        self._arity(args, "clear_board", 0)
        self.game = Game(self.config)
        return ""

    def _play(self, args: list[str]) -> str:
        self._arity(args, "play COLOUR MOVE", 2)
        colour = self._colour(args[0])
        move = parse_move(args[1], self.config.side)  # ValueError for what is not a move
        self._expect_to_move(colour)
        game = self.game.copy()
        try:
            game.play(move)
        except IllegalMove as exc:
            raise CommandError(f"illegal move {move}: {exc}") from None
        self.game = game
        return ""

    def _genmove(self, args: list[str]) -> str:
        self._arity(args, "genmove COLOUR", 1)
        colour = self._colour(args[0])
        self._expect_to_move(colour)
        move = self.bot.select_move(self.game)
        self.game.play(move)
        return move

    def _undo(self, args: list[str]) -> str:
        self._arity(args, "undo", 0)
        moves = self.game.actions
        if not moves:
            raise CommandError("nothing to undo: no move has been played")
        self.game = self._replayed(self.config, moves[:-1])
        return ""

    def _showboard(self, args: list[str]) -> str:
        self._arity(args, "showboard", 0)
        return render_ascii(self.game)

    def _legal_moves(self, args: list[str]) -> str:
        self._arity(args, "legal_moves", 0)
        return " ".join(self.game.legal_moves())

    def _final_score(self, args: list[str]) -> str:
        self._arity(args, "final_score", 0)
        if not self.game.is_over:
            raise CommandError("the game is not over: the score is final only at the end (R6)")
        scores = self.game.scores()
        winner = self.game.winner
        if winner is None:
            return "0"
        margin = abs(scores["black"] - scores["white"])
        return f"{'B' if winner == 'black' else 'W'}+{margin:g}"

    def _analyze(self, args: list[str]) -> str:
        self._arity(args, "analyze [N]", 0, 1)
        top = 10
        if args:
            top = _whole_number(args[0], "analyze's number of moves")
            if top < 1:
                raise CommandError(f"analyze takes a positive number of moves, got {args[0]!r}")
        if self.game.is_over:
            raise CommandError("the game is over")
        info = self.bot.analyze(self.game, top=top)
        lines = [f"to_move {info.to_move} value {info.value:.3f} score {info.score:.2f} best {info.best} "
                 f"simulations {info.simulations}"]
        for m in info.moves:
            lines.append(f"{m.move} visits {m.visits} value {m.value:.3f} score {m.score:.2f} prior {m.prior:.3f}")
        return "\n".join(lines)

    def _genkomi(self, args: list[str]) -> str:
        self._arity(args, "genkomi", 0)
        if self.config.game_type != "komi":
            raise CommandError(f"the komi is chosen only under game type komi (R7), not {self.config.game_type}")
        if self.game.move_number:
            raise CommandError("the komi is chosen before the first move (R7); clear_board first")
        komi = self.bot.choose_komi(self.config)
        self.config = dataclasses.replace(self.config, komi=komi)
        self.game = Game(self.config)
        return str(komi)

    def _gencolour(self, args: list[str]) -> str:
        self._arity(args, "gencolour", 0)
        if self.config.game_type == "komi":
            if self.game.move_number:
                raise CommandError("the colour is chosen before the first move (R7)")
            return self.bot.choose_colour(self.config, self.config.komi)
        if self.config.game_type == "no_komi":
            if self.game.move_number != 1:
                raise CommandError("under no_komi the colour is chosen right after Black's first stone (R7)")
            return "swap" if self.bot.choose_swap(self.game) else "white"
        raise CommandError("game type double has no colour choice (R8: the first player plays Black)")

    def _quit(self, args: list[str]) -> str:
        self._arity(args, "quit", 0)
        self.finished = True
        return ""
