"""``catena-zero play``: a game in the terminal, against a person or a program, with the R7 set-up.

``--bot FILE`` plays an exported bot (``catena-zero export``) against you, ``--bot A --bot B`` two
bots against each other; a bot answers the set-up (komi, colour, swap) by its own heads (R7).

Every seat is a ``Player`` (``bot/players.py``): a program, or a person typing here, a
``TerminalPlayer`` (a seat given as None), so the game loop asks each seat alike through
``choose_event`` and applies what it answers.

Where a person chooses the komi, a network opponent's own estimate of the fair komi is shown
(what ``catena-zero komi --bot`` computes): the second player takes the better colour at the
chosen komi, so it settles the game. Typed lines are read with the standard library's
``readline`` when standard input is a terminal (line editing, history, tab-completion of the
legal moves and commands); from a pipe they are read as they come.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path
from typing import Optional, TextIO

import numpy as np

from ..bot.players import (ASKED, JUDGED, Capabilities, Player, check_plays, choose_event, own_fair_komi,
                           setup_choices)
from ..errors import UserError
from ..eval.specs import make_player, player_kinds
from ..fileio import MAX_LINE_CHARS, bounded_lines, writes_to_stdout
from ..game.match import Match
from ..game.notation import normalize_event, parse_move
from ..game.options import komi_range
from ..game.records import board_of, save_record
from ..game.render import LAYOUTS, render_ascii
from ..game.scoring import SCORING_RULES
from ..messages import quote
from .bot_options import add_bot_options, load_bot, shipped_bot_path
from .common import CliError, add_game_options, check_outputs, describe, message_stream, resolve_config
from .engine import bot_line

HELP = "play in the terminal, against a person or a program"
SEATS = ("first", "second")
HUMAN = "human"
SHIPPED = "bot"  # --opponent bot: the shipped bot for the game's rules (bot/shipped.py)
_MAX_INPUT = 40  # characters of one typed line; the longest event, "colour white", has 12


def configure(play: argparse.ArgumentParser) -> None:
    add_game_options(play, komi_help="answer the first player's komi choice (R7) in advance: the game "
                                     "starts at the colour choice; otherwise the first player is asked")
    kinds = ", ".join([HUMAN, f"{SHIPPED} (the bot shipped for the rules, catena_zero/bots/)"]
                      + [f"{k.usage} ({k.help})" for k in player_kinds()])
    play.add_argument("--opponent", default=HUMAN, metavar="KIND", help=f"who plays against you: {kinds}; default human")
    play.add_argument("--seat", choices=SEATS, default="first",
                      help="your seat against a program: the first player chooses the komi (R7); default first")
    play.add_argument("--save", metavar="FILE",
                      help="write the game record here at the end, also when the game is abandoned "
                           "(quit, end of input, Ctrl-C); checked before the game starts; '-': standard "
                           "output, and the board and prompts go to standard error")
    play.add_argument("--board", choices=LAYOUTS, default=LAYOUTS[0],
                      help="columns: columns drawn vertically, each letter above and below its column "
                           "(default); hex: the hexagon of R1, columns running diagonally")
    add_bot_options(play, required=False, repeatable=True,
                    bot_help="an exported bot to play against (instead of --opponent); twice, --bot A --bot B, "
                             "for bot against bot (A is the first player); the game defaults to the first bot's")


HELP_TEXT = """\
Type a move as a cell (D5, lower case is fine) or 'button' to take the button (R4).
Before play (R7): the first player chooses the komi ('7' or 'komi 7'); then the second
player chooses a colour ('black' or 'white'). Under no_komi the second player keeps White
('white') or takes Black and its stone ('swap').
Commands: 'moves' lists what you may play now, 'board' shows the board, 'undo' takes back
your last move (and the program's reply), 'rules' the rules in brief, 'help' this text,
'quit' abandons the game (the record is still saved with --save). There is no pass or
resign: 'button' is the one move that places no stone. On a terminal the arrow keys edit the
line and recall earlier ones, and Tab completes a move or command."""

def _scoring_lines() -> str:
    """R6's line for each scoring type, from its record (game/scoring.py): the sums of points
    first (quadratic's "+ button, + komi" reads on from standard's), then longest, as in RULES.md."""
    return "\n".join(textwrap.fill(f"{rule.name}: {rule.summary}", width=80, initial_indent="    ",
                                   subsequent_indent="    ", break_on_hyphens=False)
                     for rule in sorted(SCORING_RULES, key=lambda rule: not rule.has_margin))


# One screen (at most 24 lines of at most 80 characters) restating docs/RULES.md.
RULES_TEXT = """\
Catena in brief (the full rules with examples: docs/RULES.md)
R1  A hexagon of hexagonal cells, drawn sheared: columns A, B, ... go up (letter
    above and below), rows 1, 2, ... across. Side 6 has 91 cells; sides 2-10.
R2  Stones that touch form a group, whatever their colours. A group must stay a
    ribbon: a chain where each stone touches at most two others, never a ring.
R3  Place on an empty cell only if every group is still a ribbon afterwards:
    the cell touches no stone, one ribbon end, or ends of two different ribbons.
R4  Black moves first. On your turn place a stone, or take the button (once per
    game, by either player). The game ends when no cell is legal.
R5  A ribbon that can no longer grow is limited and is claimed at once: the
    colour with more stones in it takes it all; a tie goes to the opponent of
    whoever limited it. Claimed ribbons never change again.
R6  Nobody took the button? It goes to the player who did not place last.
""" + _scoring_lines() + """
R7  komi: the first player sets the komi, the second picks a colour.
    no_komi: the first player places Black's first stone, the second keeps
    White or swaps ('swap') to take Black and that stone.
R8  double: one stone for Black's first turn, then two stones per turn, no
    button and no komi; equal results are a draw."""


UNDO = "undo"  # what _human_turn returns after taking moves back


class Abandoned(Exception):
    """The person quit, or their input ended: the game stops unfinished (never a user's error)."""


class UndoAsked(Exception):
    """The person took moves back: the position changed, nobody made an event."""


class TerminalPlayer:
    """A person typing at the terminal, as just another ``Player`` (AlphaZero.jl's human player):
    ``choose`` and, declared ``ASKED``, ``choose_setup`` read lines until one is a legal event
    and return it; the game loop applies it as it applies a program's. The person's own
    commands (moves, board, undo, help, ...) are answered on the way; quitting or the end of
    input raises ``Abandoned``, an undo ``UndoAsked`` (the match has already been rewound)."""

    name = "you"
    capabilities = Capabilities(setup=ASKED)

    def __init__(self, match: Match, inp: TextIO, out: TextIO, *, undo_seat: Optional[str] = None,
                 reader: Optional["TerminalReader"] = None, layout: str = LAYOUTS[0]) -> None:
        self.match, self.inp, self.out = match, inp, out
        self.undo_seat, self.reader, self.layout = undo_seat, reader, layout

    def choose(self, game, rng: np.random.Generator) -> str:
        return self._turn()

    def choose_setup(self, match: Match, rng: np.random.Generator) -> str:
        return self._turn()

    def _turn(self) -> str:
        match = self.match
        event = _human_turn(match, _who(match, match.player_to_act), self.inp, self.out, undo_seat=self.undo_seat,
                            reader=self.reader, layout=self.layout)
        if event is None:
            raise Abandoned
        if event is UNDO:
            raise UndoAsked
        return event
COMMANDS = ("moves", "board", "undo", "rules", "help", "quit")  # typed instead of an event


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
            if not _is_move(events[i]):
                return False
            if seat is None or actors[i] == seat:
                self.rewind(i)
                return True
        return False


def _is_move(event: str) -> bool:
    return not (event.startswith("komi") or event.startswith("colour") or event == "swap")


@dataclass(frozen=True)
class PlayResult:
    """How an interactive match ended: finished, or abandoned (quit / end of input)."""

    match: Match
    finished: bool


def run(args: argparse.Namespace) -> int:
    if not args.bot and args.opponent.strip() == SHIPPED:
        # The shipped bot for the rules (one line naming what ships and how to make one if none fits);
        # it is introduced below in one line, as every bot is.
        path, _ = shipped_bot_path(args, resolve_config(args).game)
        args.bot, args.opponent = [str(path)], HUMAN
    inputs = {"the config": args.config, **{f"--bot {i + 1}": path for i, path in enumerate(args.bot or [])}}
    check_outputs(inputs, {"--save": args.save})  # before a bot loads or a game starts: writable too
    bots, opponent = _bots(args), args.opponent
    config = resolve_config(args) if not bots else _bot_config(args, bots)  # the rules checked first
    for bot in bots:  # one line each: name, rules, search and, for a shipped bot, its strength in brief
        print(f"catena-zero play: {bot_line(bot)}", file=sys.stderr)
    if len(bots) == 2:
        players: dict[str, Optional[Player]] = {"first": bots[0], "second": bots[1]}
    elif bots:
        players = {seat: (None if seat == args.seat else bots[0]) for seat in SEATS}
        opponent = f"the bot {Path(args.bot[0]).name}"
    elif args.opponent.strip() == HUMAN:
        players = {"first": None, "second": None}
    else:
        bot = make_player(args.opponent, config)
        check_plays(bot, config.game, bot.name)  # a bot file trained for other options: one line
        players = {seat: (None if seat == args.seat else bot) for seat in SEATS}
    match = UndoableMatch(config.game)
    if args.komi is not None and match.phase == "komi":
        # An explicit --komi answers the first player's komi choice (R7) for them.
        match.apply(f"komi {args.komi}")
    rng = np.random.default_rng(config.seed)
    thinking = sys.stderr if _isatty(sys.stderr) else None  # scripted output stays clean
    if hasattr(sys.stdin, "reconfigure"):
        sys.stdin.reconfigure(errors="replace")  # bytes that are not UTF-8 become a bad move, not a crash
    out = message_stream(args.save)  # with --save - the record alone goes to standard output
    reader = TerminalReader(match) if _isatty(sys.stdin) else None
    try:
        play_in_terminal(match, players, rng, sys.stdin, out, thinking=thinking, opponent=opponent,
                   reader=reader, komi_by_flag=args.komi is not None, layout=args.board)
    except KeyboardInterrupt:
        print("\ninterrupted: game abandoned", file=sys.stderr)
        _save(args.save, match, sys.stderr)
        return 130
    except BaseException:
        _save(args.save, match, sys.stderr)  # a closed output or any failure: the moves so far still count
        raise
    _save(args.save, match, out)
    return 0


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
        if phase == "play":
            words = self.match.game.legal_moves()
        elif phase == "komi":
            words = ["komi"]
        elif phase == "colour":
            words = ["white", "swap"] if self.match.config.game_type == "no_komi" else ["black", "white"]
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


def _bots(args: argparse.Namespace) -> list:
    """The exported bots of --bot (none, one or two), loaded with the search flags."""
    paths = args.bot or []
    if len(paths) > 2:
        raise CliError(f"--bot is given at most twice (bot against bot), got {len(paths)} bots")
    if paths and args.opponent.strip() != HUMAN:
        raise CliError("--bot and --opponent both name who you play against: give one of them")
    return [load_bot(args, path) for path in paths]


def _bot_config(args: argparse.Namespace, bots: list):
    """The config of a game with bots: the first bot's game unless --config or the game flags say
    otherwise; every bot must have been trained for it (UnsupportedGame, one line)."""
    config = resolve_config(args)
    if args.config is None:
        given = {key: value for key, value in (("side", args.side), ("game_type", args.game_type),
                                               ("scoring", args.scoring)) if value is not None}
        game = dataclasses.replace(bots[0].game_config, komi=0, **given)
        if args.komi is not None:
            game = dataclasses.replace(game, komi=args.komi)  # UserError if out of range or no komi
        config = dataclasses.replace(config, game=game)
    for bot in bots:
        bot.check_supported(config.game)
    return config


def _save(path: Optional[str], match: Match, out: TextIO) -> None:
    if not path:
        return
    saved = save_record(path, match)
    if not writes_to_stdout(path):
        print(f"record saved to {saved}", file=out)


def _isatty(stream) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def play_in_terminal(match: Match, players: dict[str, Optional[Player]], rng: np.random.Generator,
                     inp: TextIO, out: TextIO, *, thinking: Optional[TextIO] = None,
                     opponent: str = "a program", reader: Optional[TerminalReader] = None,
                     komi_by_flag: bool = False, layout: str = LAYOUTS[0]) -> PlayResult:
    """Run one interactive match (R7 set-up, then the game) in the terminal: ``players[seat]`` is
    a ``Player``, or None for a person typing on ``inp`` (or through ``reader``, on a terminal),
    who becomes a ``TerminalPlayer``: every seat then acts through ``choose_event``, the person
    like any program. Not the arena's ``eval.arena.play_match``, which plays many games between
    two batched agents at once.

    Bad input never ends the game: it prints one line saying why and asks again. While a
    program chooses, "... is thinking" is shown on ``thinking`` (a terminal; None: nowhere) and
    erased afterwards, so output that is read by a script carries only the game.
    ``komi_by_flag``: the komi was chosen before the match by ``--komi`` (the game says so).
    ``layout``: the board's picture (``render_ascii``).
    """
    key_shown = []  # the key's lines that never change: with the first board only (and on 'board')

    def board(game) -> str:
        text = render_ascii(game, match=match, layout=layout, key=not key_shown)
        key_shown.append(True)
        return text

    komi_known = match.config.game_type != "komi" or match.game is not None
    print(f"Catena: {describe(match.config if match.game is None else match.game.config, komi_known)}.", file=out)
    print("Type 'help' for the commands, 'rules' for the rules in brief.", file=out)
    person = _person_seat(players)
    players = {seat: TerminalPlayer(match, inp, out, undo_seat=person, reader=reader, layout=layout)
               if player is None else player for seat, player in players.items()}
    if person is not None:
        program = "second" if person == "first" else "first"
        duty = _SEAT_DUTIES[match.config.game_type][person]
        if komi_by_flag and match.game is not None and match.config.game_type == "komi":
            komi = match.game.config.komi
            duty = ("the komi, " if person == "first" else "you choose the colours; the komi, ") + \
                f"{komi}, was set by --komi"
        print(_fill(f"You are the {person} player{f' ({duty})' if duty else ''}; {opponent} is the {program} "
                    f"player."), file=out)
    shown_phase, shown_board, told_colour = None, None, False
    while match.phase != "over":
        if match.phase != shown_phase:
            shown_phase = match.phase
            print(_fill(_phase_intro(match, komi_by_flag)), file=out)
            if match.phase == "komi":
                print(_komi_advice(match, players), file=out)
            elif match.config.game_type == "no_komi" and person in (None, match.player_to_act):
                # The same kind of advice for the person making no_komi's set-up choice (R7).
                if match.phase == "colour":
                    print(_swap_advice(match, players), file=out)
                elif match.colour_of("first") is None:
                    print(_first_stone_advice(match, players), file=out)
        if person is not None and not told_colour and match.colour_of(person) is not None:
            told_colour = True
            print(f"You play {match.colour_of(person)}.", file=out)
        game = match.game
        if game is not None and shown_board != game.move_number and (match.phase == "play" or game.move_number):
            shown_board = game.move_number  # the board once per move (no empty board before a colour choice)
            print(board(game), end="", file=out)
        seat = match.player_to_act
        who = _who(match, seat)  # before the event: a colour choice changes it
        player = players[seat]
        program = not isinstance(player, TerminalPlayer)
        try:
            if program and thinking is not None:
                print(f"{who} is thinking...", end="", file=thinking, flush=True)
            try:
                event = choose_event(player, match, rng)
            finally:
                if program and thinking is not None:
                    print("\r\033[K", end="", file=thinking, flush=True)  # erase the line
        except Abandoned:
            return PlayResult(match, finished=False)
        except UndoAsked:
            shown_board = None
            continue
        match.apply(event)
        print(f"{who}: {event}", file=out)
        if event == "swap" or event.startswith("colour"):
            shown_board = None  # the colours are settled (a swap changed the seats'): the board again
    print(board(match.game), end="", file=out)  # ends with the result, once
    return PlayResult(match, finished=True)


# What each seat does before play (R7, R8); the colour itself is announced once it is known.
_SEAT_DUTIES = {
    "komi": {"first": "you choose the komi", "second": "you choose the colours after the komi"},
    "no_komi": {"first": "you place Black's first stone", "second": "you then keep White or swap"},
    "double": {"first": "", "second": ""},
}


def _person_seat(players: dict[str, Optional[Player]]) -> Optional[str]:
    """The seat of the one person playing a program; None for two people (or two programs)."""
    people = [seat for seat in SEATS if players[seat] is None or isinstance(players[seat], TerminalPlayer)]
    return people[0] if len(people) == 1 else None


def _human_turn(match: Match, who: str, inp: TextIO, out: TextIO, undo_seat: Optional[str] = None,
                reader: Optional[TerminalReader] = None, layout: str = LAYOUTS[0]) -> Optional[str]:
    """Read lines until one is a legal event and return it (checked on a copy of the match: the
    caller applies it); None when the person quits or input ends, UNDO after an undo (the
    position changed: the board is shown again)."""
    while True:
        if reader is not None:
            out.flush()
            line = reader.read(f"{who} > ")
            line = None if line is None else line + "\n"
        else:
            print(f"{who} > ", end="", file=out, flush=True)
            line = next(bounded_lines(inp), "")  # "" at the end of the input
            if line is None:  # longer than MAX_LINE_CHARS: read through, never held
                print(f"not accepted: the line is longer than {MAX_LINE_CHARS:,} characters. Type 'help' for help.",
                      file=out)
                continue
        if not line:
            print("\nend of input: game abandoned", file=out)
            return None
        text = line.strip()
        command = text.lower()
        if not text:
            continue
        if command in ("quit", "exit"):
            print("game abandoned", file=out)
            return None
        if command in NO_SUCH_MOVES:
            print(_no_such_move(command, match), file=out)
            continue
        if command == "help":
            print(HELP_TEXT, file=out)
            continue
        if command == "rules":
            print(RULES_TEXT, file=out)
            continue
        if command == "moves":
            print(_legal_summary(match), file=out)
            continue
        if command == "undo":
            if isinstance(match, UndoableMatch) and match.undo_turn(undo_seat):
                print(f"undone: back to the position before {'your' if undo_seat else 'the'} last move", file=out)
                return UNDO
            print("nothing to undo: no move to take back since the set-up", file=out)
            continue
        if command == "board":
            # Before the komi choice there is no game yet (R7): show the empty board.
            print(render_ascii(board_of(match), match=match, layout=layout), end="", file=out)
            continue
        if len(text) > _MAX_INPUT:  # no event is this long; do not echo a pasted megabyte back
            print(f"not accepted: {quote(text)} is not a move or a command. Type 'help' for help.", file=out)
            continue
        try:
            side = match.config.side
            # In play only moves make sense, so the error names only them.
            event = parse_move(text, side) if match.phase == "play" else normalize_event(
                _expand_shorthand(text, match.phase), side)
            Match.replay(match.config, match.events).apply(event)  # IllegalMove; the loop applies it
        except UserError as exc:  # IllegalMove, or text that is not an event
            print(f"not accepted: {exc}. Type 'moves' for the legal ones, 'help' for help.", file=out)
            continue
        return event


def _expand_shorthand(text: str, phase: str) -> str:
    """Accept '7' for 'komi 7' in the komi phase and 'black'/'white' for 'colour ...' (R7)."""
    word = text.strip().lower()
    if phase == "komi" and word.isascii() and word.isdigit():
        return f"komi {word}"
    if phase == "colour" and word in ("black", "white"):
        return f"colour {word}"
    return text


def _legal_summary(match: Match) -> str:
    if match.phase == "komi":
        lo, hi = komi_range(match.config.scoring)
        return f"choose the komi: a whole number from {lo} to {hi} (e.g. 'komi 7' or '7')"
    if match.phase == "play":
        return "legal: " + " ".join(match.game.legal_moves())
    if match.config.game_type == "no_komi":  # one spelling: as the intro, the help and Tab say it
        return "choose: 'white' keeps White, 'swap' takes over Black and its stone"
    return "legal: " + ", ".join(setup_choices(match))


def _phase_intro(match: Match, komi_by_flag: bool = False) -> str:
    """What the coming phase expects (R7), printed once when it starts."""
    config = match.config
    if match.phase == "komi":
        lo, hi = komi_range(config.scoring)
        return f"The first player chooses the komi White receives ({lo}..{hi}), e.g. '7' (R7)."
    if match.phase == "colour":
        if config.game_type == "no_komi":
            return "The second player keeps White ('white') or takes over Black and its stone ('swap') (R7)."
        komi = match.game.config.komi
        chosen = f"komi {komi}, set by --komi" if komi_by_flag else f"komi {komi}"
        return f"The second player chooses a colour, 'black' or 'white'; Black moves first (R7, {chosen})."
    first = match.colour_of("first")
    if first is None:  # no_komi opening (R7)
        return "The first player places Black's opening stone; then the second player chooses a colour."
    return f"Play: first player {first}, second player {match.colour_of('second')}, komi {match.game.config.komi}."


KOMI_MATTERS = ("Why it matters: the second player then takes whichever colour is better at that komi, "
                "so the first player gets the worse side of an unfair komi.")


def _komi_advice(match: Match, players: dict[str, Optional[Player]]) -> str:
    """Said where the komi is chosen (R7): the network opponent's fair-komi estimate, if any,
    and why the choice matters."""
    programs = [p for p in (players[s] for s in SEATS) if p is not None]
    fair = None
    for program in programs:
        fair = own_fair_komi(program, match.config)
        if fair is not None:
            break
    lines = [] if fair is None else [
        f"The bot's estimate of a fair komi: {fair} (by its value and score heads, as 'catena-zero komi' "
        f"computes it)."]
    return "\n".join(_fill(line) for line in [*lines, KOMI_MATTERS])


SWAP_MATTERS = ("Why it matters: keeping White gives you the next move; swapping gives you Black and its "
                "stone, and the first player, now White, moves next.")
FIRST_STONE_MATTERS = ("Why it matters: the second player then keeps White or takes over Black and your "
                       "stone, whichever is better, so place a stone that is neither too good nor too bad.")


def _judges(players: dict[str, Optional[Player]]) -> list:
    """The programs among ``players`` that make the set-up choices by their own heads (R7)."""
    return [p for p in (players[s] for s in SEATS) if p is not None and p.capabilities.setup == JUDGED]


def _swap_advice(match: Match, players: dict[str, Optional[Player]]) -> str:
    """Said where the second player keeps White or swaps (no_komi, R7), as the komi advice is
    where the komi is chosen: whether the first stone is worth taking, by the bot's own heads."""
    stone = match.events[0]
    lines = [f"Is Black's stone on {stone} worth taking? The bot's heads say "
             + ("yes: it would swap ('swap')." if judge.choose_swap(match.game)
                else "no: it would keep White ('white').") for judge in _judges(players)[:1]]
    return "\n".join(_fill(line) for line in [*lines, SWAP_MATTERS])


def _first_stone_advice(match: Match, players: dict[str, Optional[Player]]) -> str:
    """Said where the first player places Black's opening stone (no_komi, R7): the stone the bot
    puts closest to even (not worth a swap, nor a gift), when the opponent is a bot file."""
    from ..bot.bot import Bot

    bots = [p for p in _judges(players) if isinstance(p, Bot)]
    lines = [] if not bots else [
        f"The bot's estimate of a fair opening stone: {bots[0].choose_first_stone(match.config)} (the one its "
        f"heads put closest to even, as 'catena-zero komi --table' computes it)."]
    return "\n".join(_fill(line) for line in [*lines, FIRST_STONE_MATTERS])


def _fill(line: str) -> str:
    """A long message wrapped for an 80-column terminal (names like catena-zero kept whole)."""
    return textwrap.fill(line, 80, break_on_hyphens=False, break_long_words=False)


NO_SUCH_MOVES = ("pass", "resign")


def _no_such_move(command: str, match: Match) -> str:
    """Pass and resign do not exist in Catena (R4); say what comes closest."""
    game = match.game
    free = match.phase == "play" and game is not None and game.can_take_button()
    button = ("'button' takes the button (R4) instead of placing a stone, once per game; it is free now"
              if free else "taking the button (R4) is the one move that places no stone, and it is not "
                           "open now")
    if command == "pass":
        return f"there is no pass in Catena: {button}. Type 'moves' for the legal moves."
    return f"there is no resign in Catena: 'quit' abandons the game (--save still writes the record); {button}."


def _who(match: Match, seat: str) -> str:
    colour = match.colour_of(seat)
    return f"{seat} player ({colour})" if colour else f"{seat} player"
