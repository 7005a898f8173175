"""The ``catena-zero`` command line: play, show, random-game, train (a demo until training exists).

    catena-zero play [--opponent human|random|...] [--seat first|second] [--save FILE] [options]
    catena-zero show RECORD [--move K] [--svg FILE]
    catena-zero random-game [--out FILE] [--svg FILE] [options]
    catena-zero train --config FILE [--out-dir DIR]

Game options: ``--config FILE`` (YAML, ``catena_zero.config``) and the flags ``--side``,
``--game-type``, ``--scoring``, ``--komi``, ``--seed``, which override the file.

Every error a user can cause (bad flags, a bad config or record, an unwritable file) ends
the program with one line ``catena-zero: error: ...`` on stderr and exit status 2, never a
traceback. Interactive play reads ``sys.stdin`` line by line, so it can be scripted.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Optional, TextIO

import numpy as np

from .bot.players import Player, RandomPlayer, choose_event, make_player, player_kinds, setup_choices
from .config import Config, config_from_dict, load_config
from .game.match import Match
from .game.notation import normalize_event, parse_move
from .game.options import GAME_TYPES, SCORINGS, GameConfig, komi_range
from .game.records import board_of, load_record, save_record, write_text_atomic
from .game.render import render_ascii, render_svg
from .game.rules import Game, IllegalMove

PROG = "catena-zero"
SEATS = ("first", "second")
HUMAN = "human"


class CliError(Exception):
    """A user error reported as one line on stderr (exit status 2)."""


class _Parser(argparse.ArgumentParser):
    """argparse that raises instead of printing usage and exiting, so errors stay one line."""

    def error(self, message: str) -> None:  # type: ignore[override]
        raise CliError(message)


# ------------------------------------------------------------------------------ entry point


def main(argv: Optional[list[str]] = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
        return args.run(args)
    except SystemExit as exc:  # --help and --version exit through argparse
        return exc.code if isinstance(exc.code, int) else 0
    except BrokenPipeError:  # output piped into e.g. `head`, which stopped reading: not an error
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # no second error at exit
        return 0
    except (CliError, ValueError, OSError) as exc:  # ConfigError, RecordError, IllegalMove are ValueErrors
        message = " ".join(str(exc).split()) or type(exc).__name__
        print(f"{PROG}: error: {message}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"\n{PROG}: interrupted", file=sys.stderr)
        return 130


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog=PROG, description="AlphaZero-style self-play for the board game Catena.")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    commands.required = True

    play = commands.add_parser("play", help="play in the terminal, against a person or a program")
    _add_game_options(play)
    kinds = ", ".join([HUMAN] + [f"{k.usage} ({k.help})" for k in player_kinds()])
    play.add_argument("--opponent", default=HUMAN, metavar="KIND", help=f"who plays against you: {kinds}; default human")
    play.add_argument("--seat", choices=SEATS, default="first",
                      help="your seat against a program: the first player chooses the komi (R7); default first")
    play.add_argument("--save", metavar="FILE", help="write the game record here (also when the game is abandoned)")
    play.set_defaults(run=run_play)

    show = commands.add_parser("show", help="print the board and result of a game record")
    show.add_argument("record", metavar="RECORD", help="a record file written by play, random-game or train")
    show.add_argument("--move", type=int, metavar="K", help="show the position after the first K events")
    show.add_argument("--svg", metavar="FILE", help="also write the position as an SVG picture")
    show.set_defaults(run=run_show)

    rand = commands.add_parser("random-game", help="play one game of random moves and print it")
    _add_game_options(rand)
    rand.add_argument("--out", metavar="FILE", help="write the game record here")
    rand.add_argument("--svg", metavar="FILE", help="write the final position as an SVG picture")
    rand.set_defaults(run=run_random_game)

    train = commands.add_parser("train", help="train by self-play (for now: a demo game, see the output)")
    train.add_argument("--config", required=True, metavar="FILE", help="YAML configuration (configs/default.yaml)")
    train.add_argument("--out-dir", default="checkpoints/demo", metavar="DIR", help="where the demo writes its files")
    train.set_defaults(run=run_train)
    return parser


def _add_game_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--config", metavar="FILE", help="YAML configuration; the flags below override it")
    parser.add_argument("--side", type=int, help="cells per board edge, 2..10 (R1); default 6")
    parser.add_argument("--game-type", choices=GAME_TYPES, help="R7/R8; default komi")
    parser.add_argument("--scoring", choices=SCORINGS, help="R6; default standard")
    parser.add_argument("--komi", type=int, help="komi for White (R6); under game type komi, play asks the first player")
    parser.add_argument("--seed", type=int, help="seed of the random generator (default: the config's seed)")


def resolve_config(args: argparse.Namespace) -> Config:
    """The config file (or the defaults) with the command-line flags on top; ConfigError if invalid."""
    game = {key: value for key, value in (("side", args.side), ("game_type", args.game_type),
                                          ("scoring", args.scoring), ("komi", args.komi)) if value is not None}
    overrides: dict = {"game": game} if game else {}
    if args.seed is not None:
        overrides["seed"] = args.seed
    if args.config is not None:
        return load_config(args.config, overrides)
    return config_from_dict(overrides)


# ------------------------------------------------------------------------------------ play


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


def run_play(args: argparse.Namespace) -> int:
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
    print(f"Catena: {_describe(match.config if match.game is None else match.game.config, komi_known)}. "
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
    print(_result_line(match.game, match), file=out)
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


def _describe(config: GameConfig, komi_known: bool = True) -> str:
    """One line naming the options (R9); ``komi_known`` False when a match will choose it (R7)."""
    komi = f", komi {config.komi}" if komi_known else ""
    return f"side {config.side}, game type {config.game_type}, {config.scoring} scoring{komi}"


def _result_line(game: Game, match: Optional[Match] = None) -> str:
    """One line with the result (R6), naming the seats when a match decided the colours."""
    if not game.is_over:
        return "game not finished"
    scores = game.scores()
    score_text = f"black {scores['black']:g}, white {scores['white']:g}"
    winner = game.winner
    if winner is None:
        return f"result: draw ({score_text})"
    seat = f" ({match.player_of(winner)} player)" if match is not None else ""
    return f"result: {winner}{seat} wins ({score_text})"


# ------------------------------------------------------------------------------------ show


def run_show(args: argparse.Namespace) -> int:
    record = load_record(args.record)
    total = len(record.events)
    upto = total if args.move is None else args.move
    if not 0 <= upto <= total:
        raise CliError(f"--move must be in 0..{total} (the record has {total} events), got {upto}")
    state = record.replay(upto)
    game = board_of(state)
    print(f"{args.record}: {_describe(game.config)}; {total} events", file=sys.stdout)
    if record.first is not None:
        other = "white" if record.first == "black" else "black"
        print(f"first player: {record.first}, second player: {other}", file=sys.stdout)
    if upto != total:
        print(f"position after {upto} of {total} events", file=sys.stdout)
    print(render_ascii(game), end="", file=sys.stdout)
    print(_result_line(game, state if isinstance(state, Match) else None), file=sys.stdout)
    if args.svg:
        write_text_atomic(args.svg, render_svg(game))
        print(f"picture written to {args.svg}", file=sys.stdout)
    return 0


# ----------------------------------------------------------------------------- random-game


def play_random_game(config: Config) -> Game:
    """A game of uniformly random moves under ``config.game`` (komi from the config), seeded by config.seed."""
    rng = np.random.default_rng(config.seed)
    game, player = Game(config.game), RandomPlayer()
    while not game.is_over:
        game.play(player.choose(game, rng))
    return game


def run_random_game(args: argparse.Namespace) -> int:
    config = resolve_config(args)
    game = play_random_game(config)
    print(f"random game: {_describe(config.game)}, seed {config.seed}, {len(game.history)} moves", file=sys.stdout)
    print(render_ascii(game), end="", file=sys.stdout)
    print(_result_line(game), file=sys.stdout)
    if args.out:
        print(f"record saved to {save_record(args.out, game)}", file=sys.stdout)
    if args.svg:
        write_text_atomic(args.svg, render_svg(game))
        print(f"picture written to {args.svg}", file=sys.stdout)
    return 0


# ----------------------------------------------------------------------------------- train


def run_train(args: argparse.Namespace) -> int:
    """Until self-play training exists (next issue): load the config and play a demo game."""
    config = load_config(args.config)
    return train_demo(config, Path(args.out_dir))


def play_selfplay_demo(config: Config) -> tuple[Game, float]:
    """One game of the untrained ``config.net`` network against itself through ``config.search``.

    Exercises the whole stack a training run will use (vectorised env, features, network,
    batched search); returns the game and the seconds it took.
    """
    from .search.player import network_player  # imports torch: only for this command

    rng = np.random.default_rng(config.seed)
    player = network_player(config)  # one player for both colours: its tree is reused across moves
    game = Game(config.game)
    started = time.perf_counter()
    while not game.is_over:
        game.play(player.choose(game, rng))
    return game, time.perf_counter() - started


def train_demo(config: Config, out_dir: Path) -> int:
    """Play and render one self-play demo game under ``config``; write record + SVG to ``out_dir``."""
    out_dir.mkdir(parents=True, exist_ok=True)
    game, seconds = play_selfplay_demo(config)
    record_path = save_record(out_dir / "selfplay_game.txt", game)
    svg_path = write_text_atomic(out_dir / "selfplay_game.svg", render_svg(game))
    print(render_ascii(game), end="", file=sys.stdout)
    print(_result_line(game), file=sys.stdout)
    moves, sims = len(game.history), config.search.num_simulations
    print(f"demo: the untrained network played {moves} moves against itself with {config.search.algorithm} "
          f"search, {sims} simulations per move, in {seconds:.1f} s ({moves * sims / seconds:,.0f} simulations/s)",
          file=sys.stdout)
    print(f"demo: wrote {record_path} and {svg_path}", file=sys.stdout)
    print("self-play training is not implemented yet: it arrives with the training issue; "
          "this demo played one game of the untrained network through search.", file=sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
