"""Game records (RULES.md R10): a versioned, human-readable text file, validated by replay.

A record lists the options, the events in order, then the result and both scores:

    catena-record 1
    # comments start with '#', anywhere; blank lines are ignored
    side 6
    game_type komi
    scoring standard
    komi 0
    start setup
    first white
    second black
    events
    komi 7
    colour black
    D5
    button
    ...
    end
    result black 42.5 white 41 winner black

Header (one key per line, each once, any order; all but first/second required):
    side, game_type, scoring, komi   the options (R9), as in ``GameConfig``; komi is the
                                     configured komi, the one a "start play" game uses
    start setup | play               "setup": the events begin with the R7 set-up (komi and
                                     colour choices) and replay through a ``Match``;
                                     "play": moves only, Black first, replayed through a ``Game``
    first, second                    the colour each player ended up with (setup records,
                                     once the colour is chosen); checked against the replay
Events: one R10 event per line ("komi 7", "colour white", "swap", "D5", "button"); in double
every stone is its own line (R8). In memory they are ``Event`` records (``notation.py``): text is
read into them here, once, and written from them here. "end" closes the list; a file without it is truncated.
Result: "result black B white W winner black|white|draw", required once the game is over,
forbidden before; checked against the replay. Records of unfinished games are valid.

Variations (version 2; a record without any is written as version 1, which every reader reads):
after the game, lines tried from its positions, a tree. Each is "variation after K" (branching
from the game after its K-th move; set-up choices are not counted) or "variation after K of N"
(from the N-th variation, counted from 1 in the file, one written before it), then its own events,
"end", and its result line once it is over, all as the game's. A variation's events continue the
line it branches from: its position is that line's events through move K, then its own.

    variation after 12
    E4
    C2
    end

Every problem raises ``RecordError`` with one line naming the line number and the problem.
"""

from __future__ import annotations

import math
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence, Union

from ..errors import UserError
from ..fileio import MAX_RECORD_BYTES, read_input, write_text_atomic
from ..messages import quote
from .match import Match
from .notation import Event, read_event
from .options import GameConfig
from .rules import Game, IllegalMove

FORMAT = "catena-record"
VERSION = 2  # the newest this program reads and writes: 2 adds variations
PLAIN_VERSION = 1  # what a record without variations is written as (readable by version-1 readers)
START_MODES = ("setup", "play")
_OPTION_KEYS = ("side", "game_type", "scoring", "komi")
_INT_KEYS = ("side", "komi")
_HEADER_KEYS = (*_OPTION_KEYS, "start", "first", "second")
_WHOLE_NUMBER = re.compile(r"[0-9]+")
_MAX_EVENT = 16  # characters; the longest event, "colour white", has 12
_MAX_VALUE = 16  # characters of a header value; the longest valid one, "quadratic", has 9


class RecordError(UserError):
    """A game record is malformed or does not replay (the message names the line, kept in
    ``line``; None for problems of the whole file)."""

    def __init__(self, message: str, line: int | None = None) -> None:
        super().__init__(message)
        self.line = line


@dataclass(frozen=True)
class GameResult:
    """Final scores (R6) and the winner ("black", "white", or None for a draw, R8)."""

    black: float
    white: float
    winner: str | None


def _check_events(events: tuple[Event, ...]) -> None:
    """A record's events are a tuple of ``Event``s: R10 text is read into them first (``read_event``),
    or a record built of strings would write well and compare unequal to its own file's."""
    if not isinstance(events, tuple) or not all(isinstance(e, Event) for e in events):
        raise TypeError(f"a record's events are a tuple of Event records (notation.read_event), got {events!r:.80}")


@dataclass(frozen=True)
class Variation:
    """A line tried from a position of the game, or of an earlier variation (a tree, as SGF's)."""

    parent: int  # 0: it branches from the game; N: from the N-th variation of the record (1-based)
    move: int  # after how many moves of that line it branches (set-up choices not counted)
    events: tuple[Event, ...]  # its own events, after the branch point
    result: GameResult | None = None  # set iff it reached the end

    def __post_init__(self) -> None:
        _check_events(self.events)


@dataclass(frozen=True)
class Record:
    """The content of a record file; ``parse_record`` only returns records that replay.

    config: the options (R9); events: in order (set-up choices and moves when
    ``start == "setup"``, moves only when ``start == "play"``); first: the colour of the first
    player once known (setup records), else None; result: set iff the game is over.
    """

    config: GameConfig
    start: str
    events: tuple[Event, ...]
    first: str | None = None
    result: GameResult | None = None
    variations: tuple[Variation, ...] = ()  # each one's parent is the game or one listed before it

    def __post_init__(self) -> None:
        _check_events(self.events)

    def line_events(self, n: int) -> tuple[Event, ...]:
        """Every event of line ``n`` from the start: the game's (0), or the n-th variation's, its
        parent line's events through its branch point first."""
        if n == 0:
            return self.events
        v = self.variations[n - 1]
        parent = self.line_events(v.parent)
        return parent[:events_through_move(parent, v.move)] + v.events

    @property
    def moves(self) -> int:
        """How many of the events are moves of the game (stones and the button), not set-up choices."""
        return sum(not e.is_setup for e in self.events)

    def events_through_move(self, k: int) -> int:
        """How many events lead to the position after move ``k`` (the k-th move; set-up choices are
        not counted): every event before move ``k`` + 1, so the set-up choices made before it are
        in (for ``k`` 0, the komi and colour chosen before the first move)."""
        if not 0 <= k <= self.moves:
            raise ValueError(f"the record has {self.moves} moves; there is no position after move {k}")
        return events_through_move(self.events, k)

    def replay(self, upto: int | None = None) -> Union[Match, Game]:
        """A fresh Match ("setup") or Game ("play") after the first ``upto`` events (all if None)."""
        count = len(self.events) if upto is None else upto
        if not 0 <= count <= len(self.events):
            raise ValueError(f"the record has {len(self.events)} events; cannot show the position after {upto}")
        state = _new_state(self.config, self.start)
        for event in self.events[:count]:
            _apply(state, event)
        return state

    def position(self, upto: int | None = None) -> Game:
        """The board after the first ``upto`` events (a Match's game, or the Game itself)."""
        return board_of(self.replay(upto))


def events_through_move(events: Sequence[Event], k: int) -> int:
    """How many of ``events`` lead to the position after move ``k``: every event before the
    (k + 1)-th move, so the set-up choices made before it are in (``Record.events_through_move``;
    a variation of the page starts there)."""
    seen = 0
    for i, event in enumerate(events):
        if not event.is_setup:
            if seen == k:
                return i
            seen += 1
    return len(events)


# ----------------------------------------------------------------------------- live objects


def _new_state(config: GameConfig, start: str) -> Union[Match, Game]:
    return Match(config) if start == "setup" else Game(config)


def _apply(state: Union[Match, Game], event: Event) -> None:
    if isinstance(state, Match):
        state.apply(event)
    else:
        state.play(event.as_move)


def board_of(state: Union[Match, Game]) -> Game:
    """The game of a Match, or the Game itself; before the komi choice (R7) an empty board."""
    if isinstance(state, Match):
        return state.game if state.game is not None else Game(state.config)
    return state


def _result_of(game: Game | None) -> GameResult | None:
    if game is None or not game.is_over:
        return None
    scores = game.scores()
    return GameResult(black=float(scores["black"]), white=float(scores["white"]), winner=game.winner)


def record_of(obj: Union[Match, Game]) -> Record:
    """The record of a live Match (set-up and moves) or Game (moves only)."""
    if isinstance(obj, Match):
        # Once the komi is chosen (R7) the header gives the chosen komi (the game's config);
        # before, the configured one (what a program answering the choice would pick).
        config = obj.config if obj.game is None else obj.game.config
        return Record(config=config, start="setup", events=tuple(obj.events),
                      first=obj.colour_of("first"), result=_result_of(obj.game))
    if isinstance(obj, Game):
        return Record(config=obj.config, start="play", events=tuple(map(Event.move, obj.history)),
                      result=_result_of(obj))
    raise TypeError(f"expected a Match or a Game, got {type(obj).__name__}")


# ----------------------------------------------------------------------------------- format


def format_record(obj: Union[Record, Match, Game]) -> str:
    """The text of a record (of a Record, a Match or a Game)."""
    record = obj if isinstance(obj, Record) else record_of(obj)
    c = record.config
    lines = [
        f"{FORMAT} {VERSION}",
        "# Catena game record (docs/RULES.md R10)",
        f"side {c.side}",
        f"game_type {c.game_type}",
        f"scoring {c.scoring}",
        f"komi {c.komi}",
        f"start {record.start}",
    ]
    if record.first is not None:
        second = "white" if record.first == "black" else "black"
        lines += [f"first {record.first}", f"second {second}"]
    lines.append("events")
    lines += map(str, record.events)
    lines.append("end")
    lines += _result_lines(record.result)
    for v in record.variations:
        lines.append(f"variation after {v.move}" + (f" of {v.parent}" if v.parent else ""))
        lines += [*map(str, v.events), "end", *_result_lines(v.result)]
    if not record.variations:
        lines[0] = f"{FORMAT} {PLAIN_VERSION}"
    return "\n".join(lines) + "\n"


def _result_lines(result: GameResult | None) -> list[str]:
    if result is None:
        return []
    return [f"result black {result.black:.10g} white {result.white:.10g} winner {result.winner or 'draw'}"]


def save_record(path: str | os.PathLike, obj: Union[Record, Match, Game]) -> Path:
    """Write the record of ``obj`` atomically; returns the path."""
    return write_text_atomic(path, format_record(obj))


# ------------------------------------------------------------------------------------ parse


def _fail(lineno: int, message: str) -> RecordError:
    return RecordError(f"line {lineno}: {message}", line=lineno)


def _control_character(line: str) -> str | None:
    """The first control character of ``line`` other than tab (C0, DEL, C1, U+2028/U+2029)."""
    for ch in line:
        if ch != "\t" and (ord(ch) < 0x20 or 0x7F <= ord(ch) <= 0x9F or ch in "\u2028\u2029"):
            return ch
    return None


def _lines(text: str) -> list[str]:
    """The lines of ``text``, split at "\n" and "\r\n" only."""
    return [raw[:-1] if raw.endswith("\r") else raw for raw in text.split("\n")]


def _check_characters(text: str) -> None:
    """``RecordError`` naming the line of the first control character other than tab."""
    for lineno, raw in enumerate(_lines(text), start=1):
        bad = _control_character(raw)
        if bad is not None:
            raise _fail(lineno, f"control character U+{ord(bad):04X} is not allowed in a record "
                                "(lines end with a newline; only tabs may appear within them)")


def _content_lines(text: str) -> list[tuple[int, str]]:
    """(line number, text) of the non-blank lines, comments removed.

    Lines end at "\n" (or "\r\n") only: ``str.splitlines`` would also break at \x0b, \x0c, \x85
    or U+2028, so a comment "# C5 was a blunder, retracted\x0bC5" would hide a real event. Any
    other control character (tab aside) is refused, in comments too.
    """
    out = []
    for lineno, raw in enumerate(_lines(text), start=1):
        line = raw.split("#", 1)[0].strip()
        if line:
            out.append((lineno, line))
    return out


def parse_record(text: str) -> Record:
    """Parse and validate a record: every event is replayed through the engine (R3-R8).

    A problem on the last line of a text that does not end with a newline is reported as a
    truncated file: a record cut off mid-line ("D1" cut to "D") is not an illegal move.
    """
    _check_characters(text)  # before the truncation check below: a stray \x0b is not a cut-off line
    try:
        return _parse_record(text)
    except RecordError as exc:
        last = text.count("\n") + 1
        if text and not text.endswith("\n") and exc.line == last:
            tail = text.rsplit("\n", 1)[-1].strip()
            raise _fail(last, f"the record ends in the middle of this line ({quote(tail)}): "
                              "the file is truncated") from None
        raise


def _parse_record(text: str) -> Record:
    lines = _content_lines(text)
    version = _check_magic(lines)
    header, pos = _parse_header(lines)
    config, start = _header_options(header)
    state, events, end_line, pos = _replay_events(lines, pos, config, start)
    first = _check_players(header, state)
    _check_komi(header, state, lines)
    game = state.game if isinstance(state, Match) else state
    branch = next((i for i in range(pos, len(lines)) if lines[i][1].split()[0] == "variation"), len(lines))
    if branch < len(lines) and version < 2:
        raise _fail(lines[branch][0], f"variations need '{FORMAT} 2' on the first line (this record says version {version})")
    result = _check_result(lines[pos:branch], _result_of(game), end_line)
    record = Record(config=config, start=start, events=tuple(events), first=first, result=result)
    return _parse_variations(lines, branch, record)


_VARIATION = re.compile(r"variation after ([0-9]{1,6})(?: of ([0-9]{1,6}))?")


def _parse_variations(lines, pos: int, record: Record) -> Record:
    """The variation blocks from ``pos`` on, each replayed from its branch point (R10)."""
    found: list[Variation] = []
    while pos < len(lines):
        lineno, line = lines[pos]
        form = _VARIATION.fullmatch(line)
        if form is None:
            raise _fail(lineno, f"expected 'variation after K' or 'variation after K of N', got {quote(line)}")
        move, parent = int(form.group(1)), int(form.group(2) or 0)
        if parent > len(found) or (form.group(2) is not None and parent == 0):
            raise _fail(lineno, f"variation {len(found) + 1} branches from variation {parent}, which is not "
                                f"written before it (1..{len(found)})")
        so_far = Record(config=record.config, start=record.start, events=record.events, variations=tuple(found))
        line_events = so_far.line_events(parent)
        moves = sum(not e.is_setup for e in line_events)
        if move > moves:
            raise _fail(lineno, f"variation after move {move}: its line has {moves} moves")
        state = _new_state(record.config, record.start)
        for event in line_events[:events_through_move(line_events, move)]:
            _apply(state, event)
        state, events, end_line, pos = _replay_events(lines, pos + 1, record.config, record.start, state)
        rest = next((i for i in range(pos, len(lines)) if lines[i][1].split()[0] == "variation"), len(lines))
        result = _check_result(lines[pos:rest], _result_of(board_of(state) if isinstance(state, Match) else state),
                               end_line)
        found.append(Variation(parent=parent, move=move, events=tuple(events), result=result))
        pos = rest
    return Record(config=record.config, start=record.start, events=record.events, first=record.first,
                  result=record.result, variations=tuple(found))


def _check_komi(header: _Header, state: Union[Match, Game], lines) -> None:
    """Once the komi is chosen (R7), the header's komi is the chosen one."""
    if not isinstance(state, Match) or not state.config.game_type_rule.has_komi or state.game is None:
        return
    chosen = state.game.config.komi
    if state.config.komi != chosen:
        where = next(n for n, line in lines if line.startswith("komi ") and n > header.events_line)
        raise _fail(header.at["komi"], f"header says komi {state.config.komi} but the komi choice "
                                       f"(line {where}) is komi {chosen}; they must agree")


@dataclass(frozen=True)
class _Header:
    values: dict[str, str]  # header key -> its value
    at: dict[str, int]  # header key -> line number
    events_line: int  # line number of "events"


def _check_magic(lines: list[tuple[int, str]]) -> int:
    """The record's version (1 or 2), from its first line."""
    if not lines:
        raise RecordError(f"empty record: expected a first line '{FORMAT} {PLAIN_VERSION}'")
    lineno, first_line = lines[0]
    words = first_line.split()
    if words[0] != FORMAT or len(words) != 2:
        raise _fail(lineno, f"not a Catena record: expected '{FORMAT} {PLAIN_VERSION}', got {quote(first_line)}")
    if words[1] not in (str(PLAIN_VERSION), str(VERSION)):
        raise _fail(lineno, f"unknown record version {quote(words[1])} (this program reads versions "
                            f"{PLAIN_VERSION} and {VERSION})")
    return int(words[1])


def _parse_header(lines: list[tuple[int, str]]) -> tuple[_Header, int]:
    """The "key value" lines up to "events"; returns the header and the position after it."""
    values: dict[str, str] = {}
    at: dict[str, int] = {}
    for pos in range(1, len(lines)):
        lineno, line = lines[pos]
        if line == "events":
            header = _Header(values, at, lineno)
            for key in (*_OPTION_KEYS, "start"):
                if key not in values:
                    raise _fail(lineno, f"missing header key {key!r} before 'events'")
            return header, pos + 1
        key, _, value = line.partition(" ")
        value = value.strip()
        if key not in _HEADER_KEYS:
            raise _fail(lineno, f"unknown header key {quote(key)} (known: {', '.join(_HEADER_KEYS)}, then 'events')")
        if key in values:
            raise _fail(lineno, f"header key {key!r} given twice")
        if not value or " " in value:
            raise _fail(lineno, f"header key {key!r} needs one value, got {quote(line)}")
        if len(value) > _MAX_VALUE:
            raise _fail(lineno, f"header key {key!r}: {quote(value)} is not a valid value (too long)")
        values[key], at[key] = value, lineno
    raise _fail(lines[-1][0], "record ends before the 'events' line (truncated?)")


def _header_options(header: _Header) -> tuple[GameConfig, str]:
    """The game options (R9) and the start mode, each error at the line of its key."""
    values, at = header.values, header.at
    options: dict = {}
    for key in _OPTION_KEYS:
        value = values[key]
        if key in _INT_KEYS:
            if not _WHOLE_NUMBER.fullmatch(value):
                raise _fail(at[key], f"{key} must be a whole number, got {quote(value)}")
            options[key] = int(value)
        else:
            options[key] = value
    try:
        config = GameConfig(**options)
    except UserError as exc:
        # GameConfig names the offending option first ("komi must be ...", "game type ...").
        message = str(exc)
        key = next((k for k in _OPTION_KEYS if message.startswith((k, k.replace("_", " ")))), None)
        raise _fail(at[key] if key else header.events_line, f"bad options: {message}") from None
    start = values["start"]
    if start not in START_MODES:
        raise _fail(at["start"], f"start must be 'setup' or 'play', got {quote(start)}")
    for key in ("first", "second"):
        if key in values:
            if start != "setup":
                raise _fail(at[key], f"'{key}' is only meaningful in 'start setup' records")
            if values[key] not in ("black", "white"):
                raise _fail(at[key], f"{key} must be 'black' or 'white', got {quote(values[key])}")
    if ("first" in values) != ("second" in values):
        raise _fail(header.events_line, "give both 'first' and 'second', or neither")
    if "first" in values and values["first"] == values["second"]:
        raise _fail(at["second"], "first and second player cannot have the same colour")
    return config, start


def _replay_events(lines, pos: int, config: GameConfig, start: str, state: Union[Match, Game, None] = None):
    """Apply the event lines up to "end" one by one (to ``state``, else a new game), so an illegal
    one is named at its line.

    Returns (Match or Game after them, the events, the line number of "end", position after it).
    """
    state = _new_state(config, start) if state is None else state
    events: list[Event] = []
    for pos in range(pos, len(lines)):
        lineno, line = lines[pos]
        if line == "end":
            return state, events, lineno, pos + 1
        if line.startswith("result"):
            raise _fail(lineno, "result line before 'end': the events must be closed by an 'end' line")
        if len(line) > _MAX_EVENT:
            raise _fail(lineno, f"{quote(line)} is not an event (R10): too long")
        try:
            event = _read(state, line)
        except IllegalMove as exc:
            kind = "move" if start == "play" or _is_move(line) else "event"
            raise _fail(lineno, f"{kind} {line!r} is illegal ({exc})") from None
        events.append(event)
    raise _fail(lines[-1][0], "record ends before the 'end' line (truncated?)")


def _read(state: Union[Match, Game], line: str) -> Event:
    """The event of an event line, applied to ``state``: in a "start play" record every line is a
    move (the game names what is wrong with one that is not)."""
    if isinstance(state, Game):
        state.play(line)
        return Event.move(line)
    event = read_event(line)
    state.apply(event)
    return event


def _check_players(header: _Header, state: Union[Match, Game]) -> str | None:
    """The first player's colour from the replay (R7), checked against the header."""
    first = state.colour_of("first") if isinstance(state, Match) else None
    claimed = header.values.get("first")
    if claimed is not None and claimed != first:
        actual = "not decided yet" if first is None else first
        raise _fail(header.at["first"], f"header says first player is {claimed}, but the replay gives {actual}")
    if claimed is None and first is not None:
        raise _fail(header.events_line, f"missing 'first'/'second' header lines (the replay gives first {first})")
    return first


def _check_result(rest: list[tuple[int, str]], actual: GameResult | None, end_line: int) -> GameResult | None:
    """The result line (R10) must be there iff the game is over, and agree with the replay."""
    if not rest:
        if actual is not None:
            raise _fail(end_line, "the game is over after the events but the record has no result line")
        return None
    lineno, line = rest[0]
    if len(rest) > 1:
        raise _fail(rest[1][0], f"unexpected text after the result line: {quote(rest[1][1])}")
    result = _parse_result(lineno, line)
    if actual is None:
        raise _fail(lineno, "result line given, but the game is not over after the events")
    if not (_close(result.black, actual.black) and _close(result.white, actual.white)):
        raise _fail(lineno, f"result scores black {result.black:g} white {result.white:g} disagree with the "
                            f"replay (black {actual.black:g} white {actual.white:g})")
    if result.winner != actual.winner:
        raise _fail(lineno, f"result winner {result.winner or 'draw'} disagrees with the replay "
                            f"({actual.winner or 'draw'})")
    return actual  # the engine's exact floats


def _is_move(event: str) -> bool:
    return not event.startswith(("komi", "colour", "swap"))


def _close(a: float, b: float) -> bool:
    return abs(a - b) <= 1e-6 * max(1.0, abs(b))


def _parse_result(lineno: int, line: str) -> GameResult:
    words = line.split()
    form = "expected 'result black B white W winner black|white|draw'"
    if len(words) != 7 or words[0] != "result" or words[1] != "black" or words[3] != "white" or words[5] != "winner":
        raise _fail(lineno, f"{form}, got {quote(line)}")
    try:
        black, white = float(words[2]), float(words[4])
    except ValueError:
        raise _fail(lineno, f"{form}: scores must be numbers, got {quote(line)}") from None
    if not (math.isfinite(black) and math.isfinite(white)):
        raise _fail(lineno, f"{form}: scores must be finite, got {quote(line)}")
    if words[6] not in ("black", "white", "draw"):
        raise _fail(lineno, f"{form}: winner must be black, white or draw, got {quote(words[6])}")
    return GameResult(black=black, white=white, winner=None if words[6] == "draw" else words[6])


def load_record(path: str | os.PathLike) -> Record:
    """Read and validate a record file; RecordError ("FILE: line N: ...") on any problem."""
    path = Path(path)
    data = read_input(path, "record", MAX_RECORD_BYTES, RecordError)  # a FIFO or /dev/zero is refused, not read
    if b"\0" in data:
        raise RecordError(f"{path}: not a text file (it contains NUL bytes)")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        if exc.end == len(data) and "unexpected end" in exc.reason:  # cut inside a character
            raise RecordError(f"{path}: the record ends in the middle of a character: the file is truncated") from None
        raise RecordError(f"{path}: not a text file (invalid UTF-8 at byte {exc.start})") from None
    try:
        return parse_record(text)
    except RecordError as exc:
        raise RecordError(f"{path}: {exc}") from None
