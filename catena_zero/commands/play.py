"""``catena-zero play``: a game in the terminal, against a person or a program, with the R7 set-up."""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from typing import Optional, TextIO

import numpy as np

from ..bot.players import Player, choose_event, make_player, player_kinds, setup_choices
from ..game.match import Match
from ..game.notation import normalize_event, parse_move
from ..game.options import komi_range
from ..game.records import save_record
from ..game.render import render_ascii
from ..game.rules import IllegalMove
from .common import add_game_options, describe, resolve_config, result_line

HELP = "play in the terminal, against a person or a program"
SEATS = ("first", "second")
HUMAN = "human"


def configure(play: argparse.ArgumentParser) -> None:
    add_game_options(play)
    kinds = ", ".join([HUMAN] + [f"{k.usage} ({k.help})" for k in player_kinds()])
    play.add_argument("--opponent", default=HUMAN, metavar="KIND", help=f"who plays against you: {kinds}; default human")
    play.add_argument("--seat", choices=SEATS, default="first",
                      help="your seat against a program: the first player chooses the komi (R7); default first")
    play.add_argument("--save", metavar="FILE", help="write the game record here (also when the game is abandoned)")


HELP_TEXT = """\
Type a move as a cell (D5, lower case is fine) or 'button' to take the button (R4).
Before play (R7): the first player chooses the komi ('7' or 'komi 7'); then the second
player chooses a colour ('black'/'white', or 'swap' under game type no_komi).
Commands: 'moves' lists what you may play now, 'board' shows the board, 'help' this text,
'quit' abandons the game (the record is still saved with --save)."""


@dataclass(frozen=True)
class PlayResult:
    """How an interactive match ended: finished, or abandoned (quit / end of input)."""

    match: Match
    finished: bool


def run(args: argparse.Namespace) -> int:
    config = resolve_config(args)
    if args.opponent.strip() == HUMAN:
        players: dict[str, Optional[Player]] = {"first": None, "second": None}
    else:
        bot = make_player(args.opponent, config)
        players = {seat: (None if seat == args.seat else bot) for seat in SEATS}
    match = Match(config.game)
    if args.komi is not None and match.phase == "komi":
        # An explicit --komi answers the first player's komi choice (R7) for them.
        match.apply(f"komi {args.komi}")
    rng = np.random.default_rng(config.seed)
    result = play_match(match, players, rng, sys.stdin, sys.stdout)
    if args.save:
        print(f"record saved to {save_record(args.save, result.match)}", file=sys.stdout)
    return 0


def play_match(match: Match, players: dict[str, Optional[Player]], rng: np.random.Generator,
               inp: TextIO, out: TextIO) -> PlayResult:
    """Run a match in the terminal: ``players[seat]`` is None for a person typing on ``inp``.

    Bad input never ends the game: it prints one line saying why and asks again.
    """
    komi_known = match.config.game_type != "komi" or match.game is not None
    print(f"Catena: {describe(match.config if match.game is None else match.game.config, komi_known)}. "
          "Type 'help' for help.", file=out)
    shown_phase, shown_board = None, None  # what was last printed, to print each thing once
    while match.phase != "over":
        if match.phase != shown_phase:
            shown_phase = match.phase
            print(_phase_intro(match), file=out)
        game = match.game
        if game is not None and shown_board != game.move_number and (match.phase == "play" or game.move_number):
            shown_board = game.move_number  # the board once per move (no empty board before a colour choice)
            print(render_ascii(game), end="", file=out)
        seat = match.player_to_act
        who = _who(match, seat)  # before the event: a colour choice changes it
        player = players[seat]
        if player is not None:
            event = choose_event(player, match, rng)
            match.apply(event)
        else:
            event = _human_turn(match, who, inp, out)
            if event is None:
                return PlayResult(match, finished=False)
        print(f"{who}: {event}", file=out)
    print(render_ascii(match.game), end="", file=out)
    print(result_line(match.game, match), file=out)
    return PlayResult(match, finished=True)


def _human_turn(match: Match, who: str, inp: TextIO, out: TextIO) -> Optional[str]:
    """Read lines until one is a legal event and apply it; None when the person quits or input ends."""
    while True:
        print(f"{who} > ", end="", file=out, flush=True)
        line = inp.readline()
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
        if command == "help":
            print(HELP_TEXT, file=out)
            continue
        if command == "moves":
            print(_legal_summary(match), file=out)
            continue
        if command == "board":
            print(render_ascii(match.game), end="", file=out)
            continue
        try:
            side = match.config.side
            # In play only moves make sense, so the error names only them.
            event = parse_move(text, side) if match.phase == "play" else normalize_event(
                _expand_shorthand(text, match.phase), side)
            match.apply(event)
        except (ValueError, IllegalMove) as exc:
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
    return "legal: " + ", ".join(setup_choices(match))


def _phase_intro(match: Match) -> str:
    """What the coming phase expects (R7), printed once when it starts."""
    config = match.config
    if match.phase == "komi":
        lo, hi = komi_range(config.scoring)
        return f"The first player chooses the komi White receives ({lo}..{hi}), e.g. '7' (R7)."
    if match.phase == "colour":
        if config.game_type == "no_komi":
            return "The second player keeps White ('white') or takes over Black and its stone ('swap') (R7)."
        return f"The second player chooses a colour, 'black' or 'white'; Black moves first (R7, komi {match.game.config.komi})."
    first = match.colour_of("first")
    if first is None:  # no_komi opening (R7)
        return "The first player places Black's opening stone; then the second player chooses a colour."
    return f"Play: first player {first}, second player {match.colour_of('second')}, komi {match.game.config.komi}."


def _who(match: Match, seat: str) -> str:
    colour = match.colour_of(seat)
    return f"{seat} player ({colour})" if colour else f"{seat} player"
