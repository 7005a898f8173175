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
                                      0 outside game type komi; 8.0 is 8, 7.5 and -1 are
                                      refused, naming why); the moves played are kept
    clear_board                       a new game under the current options
    play COLOUR MOVE                  play a move for the player to move
    genmove COLOUR                    the bot's move for the player to move, played
    undo                              take back the last move
    showboard                         the board as text
    legal_moves                       the moves legal now, space separated
    final_score                       the result once the game is over: B+3.5, W+2 or 0 (draw);
                                      during the game the bot's estimate of it, to a tenth
    analyze [N]                       the bot's view: to move, value, score, best move, simulations;
                                      then up to N (default 10) moves, one per line, with visits,
                                      value, score and prior
    genkomi                           game type komi, empty board: the komi the bot chooses as
                                      first player (R7), which is then set
    gencolour                         the bot's choice as second player (R7): black or white at the
                                      current komi (game type komi, empty board), or swap or white
                                      after Black's first stone (no_komi); nothing is changed
    quit                              end the session

GTP's own names, for GUIs and match runners:

    boardsize N                       options side N (a new game, the game type and scoring kept)
    time_settings MAIN BYO STONES     a time control in seconds (GTP's Canadian byo-yomi: STONES
                                      moves in each BYO seconds after MAIN); 0 0 0 (or BYO > 0
                                      with STONES 0) means none: the bot's simulation budget again
    time_left COLOUR SECONDS STONES   the clock of COLOUR now (STONES 0: still in main time)
    kata-analyze [INTERVAL]           stream the bot's analysis: one line every INTERVAL
    lz-analyze [INTERVAL]             centiseconds (default 100; or ``interval CS``, ``maxmoves N``,
                                      ``ownership true``), ``info move M visits V winrate W scoreLead
                                      S scoreMean S prior P order K pv M ...`` for each candidate
                                      (lz-analyze: winrate and prior in 1/10000), the search growing
                                      between reports up to STREAM_SLICE_SECONDS each, until the next
                                      command arrives (then an empty line)

Under a time control ``genmove`` thinks for its share of the time left: the main time left spread
over the moves the game may still take (half the cells still empty), plus the byo-yomi period
over its stones, less a margin for the transport, and never more than MAX_MOVE_SECONDS.
Where Catena departs from GTP (no pass, no move for the side not to move, a hexagonal board,
whole-number komi, the R7 set-up) is listed in docs/ENGINES.md. Every reply keeps its command's
id, an internal error's included.

Values are P(win) - P(loss) in [-1, 1] for the player to move; scores are that player's expected
final margin (R6).
"""

from __future__ import annotations

import dataclasses
import queue
import re
import sys
import threading
import time
import traceback
from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable, Optional, TextIO

from .. import __version__
from ..errors import UserError
from ..fileio import MAX_LINE_CHARS, bounded_lines
from ..game.match import Match
from ..game.notation import Event, EventKind, parse_move
from ..game.options import GAME_TYPES, SCORINGS, GameConfig, game_type_rule, komi_range
from ..game.render import render_ascii
from ..game.rules import Game, IllegalMove
from ..game.spec import BUTTON
from ..messages import one_line, quote
from .analysis import ownership_grid
from .players import Budget, check_plays, next_turn

if TYPE_CHECKING:
    from .bot import Analysis, Bot

PROTOCOL_VERSION = "2"
ENGINE_NAME = "catena-zero"
_ID = re.compile(r"^([0-9]+)\s*(.*)$")
MAX_DIGITS = 9  # of an id or a number argument: GTP ids are small integers, and no option needs more
_COLOURS = {"black": "black", "b": "black", "white": "white", "w": "white"}


class CommandError(UserError):
    """A command that cannot be carried out; its message is the ``?`` reply."""


NO_PASS = "there is no pass in Catena: a turn places a stone or takes the button (R4)"


def _komi_value(text: str) -> int:
    """A komi as GTP controllers send it (``7``, ``8.0``, ``-3``): a whole number (R6), or
    CommandError naming what is wrong with it (a fraction, a sign, not a number)."""
    found = _KOMI.fullmatch(text)
    if not found:
        raise CommandError(f"komi must be a number, got {quote(text)}")
    sign, whole, fraction = found.groups()
    if fraction and fraction.strip("0"):
        raise CommandError(f"komi {text} is not a whole number: R6's komi is a whole number of points "
                           f"(the button's half point breaks ties)")
    value = int(whole)
    if sign == "-" and value:
        raise CommandError(f"komi {text} is negative: R6's komi is White's, at least 0")
    return value


def _result(black_margin: float, digits: Optional[int] = None) -> str:
    """GTP's score: ``B+3.5``, ``W+2`` or ``0``, from Black's margin (rounded to ``digits``)."""
    margin = black_margin if digits is None else round(black_margin, digits)
    if margin == 0:
        return "0"
    return f"{'B' if margin > 0 else 'W'}+{abs(margin):g}"


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


_END = object()  # what the reader thread queues at the end of the input
STREAM_FIRST_SIMULATIONS = 16  # the first report's search; each next one doubles, up to the cap
STREAM_MAX_SIMULATIONS = 1 << 16
# The longest one report's search may take: the bot's search cannot be interrupted, so this is how
# long the next command may wait (a search stops at its time limit within one simulation).
STREAM_SLICE_SECONDS = 0.5
CLOCK_MARGIN_SECONDS = 0.2  # kept back on every move for the GUI's and the pipe's delays
CLOCK_LEAST_SECONDS = 0.05
# The longest a move may think, whatever time_settings and time_left say (and the most --seconds
# may ask): a controller's clock of days must not make the engine deaf for hours.
MAX_MOVE_SECONDS = 60.0
_KOMI = re.compile(r"([+-]?)([0-9]{1,%d})(?:\.([0-9]{0,%d}))?" % (MAX_DIGITS, MAX_DIGITS))


def _read_into(stream: TextIO, lines: queue.Queue) -> None:
    """The reader thread: every line of ``stream`` (None for an overlong one), then _END."""
    try:
        for line in bounded_lines(stream):
            lines.put(line)
    finally:
        lines.put(_END)


@dataclass(frozen=True)
class Clock:
    """GTP's time control (Canadian byo-yomi) and each colour's clock as ``time_left`` last said."""

    main: int  # seconds of main time
    byo: int  # seconds of each byo-yomi period
    stones: int  # moves to make in each period
    remaining: tuple = ()  # ((colour, seconds, stones), ...) from time_left, newest per colour

    def left(self, colour: str, seconds: int, stones: int) -> "Clock":
        others = tuple(r for r in self.remaining if r[0] != colour)
        return dataclasses.replace(self, remaining=others + ((colour, seconds, stones),))

    def seconds_for(self, colour: str, game: Game) -> float:
        """This move's thinking time: in main time its share over the moves still to come (half the
        empty cells: the players alternate), plus the byo-yomi period over its stones once in it."""
        told = {c: (s, n) for c, s, n in self.remaining}
        seconds, stones = told.get(colour, (self.main, 0))
        moves_left = max(1, sum(move != BUTTON for move in game.legal_moves()) // 2)
        if stones > 0:  # in byo-yomi: ``seconds`` for ``stones`` moves
            share = seconds / stones
        else:
            share = seconds / moves_left + (self.byo / self.stones if self.stones else 0.0)
        return min(MAX_MOVE_SECONDS, max(CLOCK_LEAST_SECONDS, share - CLOCK_MARGIN_SECONDS))


@dataclass(frozen=True)
class AnalysisStream:
    """A streaming analysis asked for: how often to report and in which of GTP's two formats."""

    interval: float  # seconds between reports
    scaled: bool  # lz-analyze: winrate and prior in 1/10000 (Leela Zero); kata-analyze: 0..1
    top: int = 10
    ownership: bool = False  # kata-analyze ... ownership true: the map after the moves

    def line(self, info, ownership: Optional[str] = None) -> str:
        """One report: ``info move M visits V winrate W scoreLead S prior P order K pv M ...`` per
        move (the principal variation last, as KataGo and Leela Zero write it), the winrate for the
        player to move (P(win), a draw counting half); then ``ownership ...`` when asked."""
        parts = []
        for order, m in enumerate(info.moves):
            winrate, prior = (m.value + 1) / 2, m.prior
            pv = " ".join(m.pv or (m.move,))
            if self.scaled:
                parts.append(f"info move {m.move} visits {m.visits} winrate {round(10000 * winrate)} "
                             f"prior {round(10000 * prior)} order {order} pv {pv}")
            else:
                parts.append(f"info move {m.move} visits {m.visits} winrate {winrate:.4f} scoreLead {m.score:.2f} "
                             f"scoreMean {m.score:.2f} prior {prior:.4f} order {order} pv {pv}")
        if ownership is not None:
            parts.append(f"ownership {ownership}")
        return " ".join(parts)


class Engine:
    """The protocol's state (options, game) around a ``Bot``; ``handle`` answers one line."""

    def __init__(self, bot: "Bot", bot_for: "Optional[Callable[[GameConfig], Optional[Bot]]]" = None) -> None:
        """``bot_for`` (the shipped bots, when no bot file was named): the bot for options the
        current bot does not play, or None; a GTP controller's ``boardsize 4`` then gets the
        side-4 bot, as ``serve`` gives each game the bot for its rules."""
        self.bot = bot
        self._bot_for = bot_for
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
            "boardsize": self._boardsize,
            "time_settings": self._time_settings,
            "time_left": self._time_left,
            "kata-analyze": self._kata_analyze,
            "lz-analyze": self._lz_analyze,
        }
        self.clock: Optional[Clock] = None  # time_settings; None: the bot's own budget per move
        self.stream: Optional[AnalysisStream] = None  # set by kata-analyze / lz-analyze, run by run()
        self.stderr: TextIO = sys.stderr  # where a bug's traceback goes (run() sets it)

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
        except Exception as exc:  # a bug must not kill a GUI's session: report it, keep the id, go on
            self.stream = None
            traceback.print_exc(file=self.stderr)
            return Reply(False, f"internal error: {type(exc).__name__}: {one_line(exc)}", ident)

    def run(self, stdin: TextIO, stdout: TextIO, stderr: TextIO = sys.stderr) -> int:
        """Answer commands from ``stdin`` until ``quit`` or the end of the input.

        The lines are read by a thread of their own into a queue, so that a streaming analysis
        (``kata-analyze``) can report until the next line arrives without blocking on the read."""
        self.stderr = stderr
        lines: queue.Queue = queue.Queue()
        reader = threading.Thread(target=_read_into, args=(stdin, lines), name="engine-stdin", daemon=True)
        reader.start()
        pending = None
        while not self.finished:
            line = pending if pending is not None else lines.get()
            pending = None
            if line is _END:
                break
            if line is None:  # a line of more than MAX_LINE_CHARS is dropped unread, never held
                stdout.write(str(Reply(False, f"the line is longer than {MAX_LINE_CHARS:,} characters; "
                                              "a command is one short line")))
                stdout.flush()
                continue
            reply = self.handle(line)
            if reply is not None and self.stream is not None and reply.ok:
                stream, self.stream = self.stream, None
                pending = self._run_stream(stream, reply.id, lines, stdout)
                continue
            self.stream = None
            if reply is not None:
                stdout.write(str(reply))
                stdout.flush()
        return 0

    def _run_stream(self, stream: "AnalysisStream", ident: Optional[int], lines: queue.Queue,
                    stdout: TextIO):
        """Report ``stream`` every interval until a line arrives; returns that line (or _END).
        GTP's form: ``=[id]``, then one ``info ...`` line per report, then an empty line.

        Each report is a fresh search of twice the last one's simulations until one would take more
        than STREAM_SLICE_SECONDS (a search cannot be interrupted, and none may keep the next command
        waiting longer); from then on each report adds a search of that long to the ones before
        (``merge_analyses``: root parallelisation), so the analysis keeps growing, a report every
        interval, until STREAM_MAX_SIMULATIONS in all."""
        from .bot import merge_analyses

        stdout.write(("=" if ident is None else f"={ident}") + "\n")
        stdout.flush()
        simulations, deadline, rate, last = STREAM_FIRST_SIMULATIONS, time.monotonic(), None, False
        grown: Optional["Analysis"] = None  # the searches merged since they reached the slice
        while True:
            try:
                line = lines.get(timeout=None if last else max(0.0, deadline - time.monotonic()))
                break
            except queue.Empty:
                pass
            try:
                if grown is not None or (rate is not None and simulations / rate > STREAM_SLICE_SECONDS):
                    part = self.bot.analyze(self.game, top=stream.top, seconds=STREAM_SLICE_SECONDS)
                    info = grown = part if grown is None else merge_analyses(grown, part, stream.top)
                    last = grown.simulations >= STREAM_MAX_SIMULATIONS
                else:
                    info = self.bot.analyze(self.game, top=stream.top, simulations=simulations)
                    last = simulations >= STREAM_MAX_SIMULATIONS
                owned = None
                if stream.ownership:
                    owned = " ".join(f"{v:.3f}" for v in ownership_grid(self.game, self.bot.ownership(self.game),
                                                                        self.game.to_move))
            except Exception:  # a bug: said on stderr, and the reply ends so that the session goes on
                traceback.print_exc(file=self.stderr)
                last = True
                continue
            stdout.write(stream.line(info, owned) + "\n")
            stdout.flush()
            rate = info.simulations / max(info.seconds, 1e-6)
            deadline = time.monotonic() + stream.interval
            simulations = min(2 * simulations, STREAM_MAX_SIMULATIONS)
        stdout.write("\n")
        stdout.flush()
        return line

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
            raise CommandError(f"usage: options [side N] [type komi|no_komi|double] [scoring {'|'.join(SCORINGS)}]")
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
        has_komi = game_type_rule(values["type"]).has_komi
        komi = self.config.komi if has_komi and lo <= self.config.komi <= hi else 0
        config = GameConfig(side=values["side"], game_type=values["type"], scoring=values["scoring"], komi=komi)
        if not self.bot.capabilities.plays(config) and self._bot_for is not None:
            self.bot = self._bot_for(config) or self.bot
        check_plays(self.bot, config, "this bot")  # UnsupportedGame: the bot was not trained for it
        self.config, self.game = config, Game(config)
        return ""

    def _komi(self, args: list[str]) -> str:
        self._arity(args, "komi K", 1)
        komi = _komi_value(args[0])
        if not self.config.game_type_rule.has_komi and komi != 0:
            raise CommandError(f"game type {self.config.game_type} has no komi (R7, R8): only komi 0")
        lo, hi = komi_range(self.config.scoring)
        if not lo <= komi <= hi:
            raise CommandError(f"komi must be in {lo}..{hi} for {self.config.scoring} scoring (R6), got {komi}")
        config = dataclasses.replace(self.config, komi=komi)
        self.game = Game.replay(config, self.game.history)  # komi changes the scores only
        self.config = config
        return ""

    def _clear_board(self, args: list[str]) -> str:
        self._arity(args, "clear_board", 0)
        self.game = Game(self.config)
        return ""

    def _play(self, args: list[str]) -> str:
        self._arity(args, "play COLOUR MOVE", 2)
        colour = self._colour(args[0])
        if args[1].lower() == "pass":
            raise CommandError(NO_PASS)
        move = parse_move(args[1], self.config.side)  # UserError for what is not a move
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
        seconds = None if self.clock is None else self.clock.seconds_for(colour, self.game)
        move = next_turn(self.bot, Match.settled(self.game), budget=Budget(seconds=seconds)).event.as_move
        self.game.play(move)
        return move

    def _boardsize(self, args: list[str]) -> str:
        self._arity(args, "boardsize N", 1)
        return self._options(["side", args[0]])

    def _time_settings(self, args: list[str]) -> str:
        self._arity(args, "time_settings MAIN_SECONDS BYO_YOMI_SECONDS BYO_YOMI_STONES", 3)
        main, byo, stones = (_whole_number(a, what) for a, what in zip(args, ("main time", "byo-yomi time", "stones")))
        self.clock = None if byo > 0 and stones == 0 or (main, byo, stones) == (0, 0, 0) else Clock(main, byo, stones)
        return ""

    def _time_left(self, args: list[str]) -> str:
        self._arity(args, "time_left COLOUR SECONDS STONES", 3)
        colour = self._colour(args[0])
        seconds, stones = _whole_number(args[1], "seconds"), _whole_number(args[2], "stones")
        if self.clock is None:
            raise CommandError("no time control: give time_settings first")
        self.clock = self.clock.left(colour, seconds, stones)
        return ""

    def _kata_analyze(self, args: list[str]) -> str:
        return self._start_stream(args, "kata-analyze [INTERVAL]", scaled=False)

    def _lz_analyze(self, args: list[str]) -> str:
        return self._start_stream(args, "lz-analyze [INTERVAL]", scaled=True)

    def _start_stream(self, args: list[str], usage: str, scaled: bool) -> str:
        # GTP analysis commands may name a colour first (lz-analyze b 50); it must be the one to move.
        if args and args[0].lower() in _COLOURS:
            self._expect_to_move(self._colour(args[0]))
            args = args[1:]
        interval, top, ownership = 100, 10, False
        if args and not args[0].isalpha():  # the interval without its key (lz-analyze 50)
            interval, args = _whole_number(args[0], "the interval (centiseconds)"), args[1:]
        if len(args) % 2:
            raise CommandError(f"usage: {usage} [interval CS] [maxmoves N] [ownership true|false]")
        for key, value in zip(args[::2], args[1::2]):  # KataGo's key-value options
            if key == "interval":
                interval = _whole_number(value, "the interval (centiseconds)")
            elif key == "maxmoves":
                top = _whole_number(value, "maxmoves")
                if top < 1:
                    raise CommandError("maxmoves must be at least 1")
            elif key == "minmoves":  # moves the search did not visit: none to add, they have no values
                _whole_number(value, key)
            elif key in ("pvVisits", "pvEdgeVisits", "ownershipStdev", "movesOwnership", "rootInfo"):
                if value not in ("true", "false"):
                    raise CommandError(f"{key} must be true or false, got {quote(value)}")
                if value == "true":
                    raise CommandError(f"{key} is not reported by this engine (only interval, maxmoves, ownership)")
            elif key == "ownership":
                if value not in ("true", "false"):
                    raise CommandError(f"ownership must be true or false, got {quote(value)}")
                ownership = value == "true" and not scaled
            elif key in ("avoid", "allow"):
                raise CommandError(f"{key} is not supported: the analysis searches every legal move")
            else:
                raise CommandError(f"unknown option {quote(key)} (options: interval, maxmoves, ownership)")
        if self.game.is_over:
            raise CommandError("the game is over")
        self.stream = AnalysisStream(interval=max(interval, 1) / 100, scaled=scaled, top=top, ownership=ownership)
        return ""

    def _undo(self, args: list[str]) -> str:
        self._arity(args, "undo", 0)
        moves = self.game.history
        if not moves:
            raise CommandError("nothing to undo: no move has been played")
        self.game = Game.replay(self.config, moves[:-1])
        return ""

    def _showboard(self, args: list[str]) -> str:
        self._arity(args, "showboard", 0)
        return render_ascii(self.game)

    def _legal_moves(self, args: list[str]) -> str:
        self._arity(args, "legal_moves", 0)
        return " ".join(self.game.legal_moves())

    def _final_score(self, args: list[str]) -> str:
        """The result at the end (R6); during the game the bot's estimate of it, as GTP engines
        answer: the expected final margin of its search (``analyze``'s score), to a tenth."""
        self._arity(args, "final_score", 0)
        if not self.game.is_over:
            info = self.bot.analyze(self.game, top=1)
            return _result(info.score if info.to_move == "black" else -info.score, digits=1)
        scores = self.game.scores()
        if self.game.winner is None:
            return "0"
        return _result(scores["black"] - scores["white"])

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
        if not self.config.game_type_rule.has_komi:
            raise CommandError(f"the komi is chosen only under game type komi (R7), not {self.config.game_type}")
        if self.game.move_number:
            raise CommandError("the komi is chosen before the first move (R7); clear_board first")
        komi = next_turn(self.bot, Match(self.config)).event.komi
        assert komi is not None  # the answer to a komi choice
        self.config = dataclasses.replace(self.config, komi=komi)
        self.game = Game(self.config)
        return str(komi)

    def _gencolour(self, args: list[str]) -> str:
        self._arity(args, "gencolour", 0)
        rule = self.config.game_type_rule
        if rule.has_komi:
            if self.game.move_number:
                raise CommandError("the colour is chosen before the first move (R7)")
            match = Match.replay(self.config, [Event.komi_choice(self.config.komi)])
            return str(next_turn(self.bot, match).event.colour)  # "black" or "white"
        if rule.has_swap:
            if self.game.move_number != 1:
                raise CommandError("under no_komi the colour is chosen right after Black's first stone (R7)")
            match = Match.replay(self.config, [Event.move(self.game.history[0])])
            return "swap" if next_turn(self.bot, match).event.kind is EventKind.SWAP else "white"
        raise CommandError("game type double has no colour choice (R8: the first player plays Black)")

    def _quit(self, args: list[str]) -> str:
        self._arity(args, "quit", 0)
        self.finished = True
        return ""
