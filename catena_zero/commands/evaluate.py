"""``catena-zero evaluate A B``: a match between two agents, with W/D/L, score rate and Elo difference."""

from __future__ import annotations

import argparse
import math
import sys
import time

from .common import (MATCH_THREADS_HELP, CliError, add_rule_flags, add_threads_flag, check_minimums, check_outputs,
                     device_name, game_rule_helps, set_threads)

HELP = "play a match between two agents (bot files, checkpoints, run folders, random, greedy, mcts:K)"


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("agent_a", metavar="A", help="random, greedy, mcts:K, an exported bot file (catena-zero export), a checkpoint file or a "
                             "run folder (its newest checkpoint)")
    parser.add_argument("agent_b", metavar="B", help="the opponent, written as A")
    parser.add_argument("--games", type=int, metavar="N",
                        help="games to play over random openings, colours alternating (default 40; with --book: "
                             "two per opening)")
    parser.add_argument("--book", metavar="N|FILE",
                        help="play N openings of the rule set's book (the shipped one, else drawn from its fixed "
                             "seed and balanced by the shipped bot), or the openings of a book FILE "
                             "(catena-zero book); each twice, colours swapped, at the book's komi")
    parser.add_argument("--sprt", metavar="ELO0,ELO1",
                        help="sequential test over the book's pairs: stop once the pentanomial GSPRT accepts "
                             "H0 (Elo A - B = ELO0) or H1 (= ELO1); needs --book")
    parser.add_argument("--alpha", type=float, default=0.05, help="SPRT: chance of accepting H1 under H0 (default 0.05)")
    parser.add_argument("--beta", type=float, default=0.05, help="SPRT: chance of accepting H0 under H1 (default 0.05)")
    parser.add_argument("--max-pairs", type=int, metavar="N",
                        help="SPRT: stop inconclusive after N pairs (default: every opening of the book)")
    parser.add_argument("--sims", type=int, metavar="S", help="search simulations per move of network agents (default: their config's)")
    parser.add_argument("--komi", type=int, metavar="K",
                        help="play at komi K (default: the book's; else the fair komi of the rule set's shipped bot, "
                             "the same for every match; else the stronger network's own, else the config's)")
    parser.add_argument("--openings", type=int, default=2, metavar="P", help="random plies that open each pair of games (default 2)")
    parser.add_argument("--save-records", metavar="DIR", help="write every game as a record file into DIR (catena-zero show reads them)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the match's random generator (default 0)")
    parser.add_argument("--config", metavar="FILE", help="YAML config whose game section sets the options (default: the network's, else side 6)")
    add_rule_flags(parser, game_rule_helps(defaults=False))
    add_threads_flag(parser, MATCH_THREADS_HELP)
    parser.add_argument("--device", type=device_name, help="network device: cpu, cuda, cuda:i (default: the checkpoint's, auto)")


def sprt_plan(args: argparse.Namespace):
    """The ``SprtPlan`` of --sprt/--alpha/--beta, or None without --sprt (CliError if malformed)."""
    from ..eval.arena import SprtPlan

    if args.sprt is None:
        if args.max_pairs is not None:
            raise CliError("--max-pairs bounds an SPRT: give --sprt ELO0,ELO1 too")
        return None
    if args.book is None:
        raise CliError("--sprt plays the pairs of a book: give --book N or --book FILE too")
    parts = args.sprt.split(",")
    try:
        elo0, elo1 = (float(p) for p in parts)
    except ValueError:
        raise CliError(f"--sprt expects two Elo bounds ELO0,ELO1 (e.g. 0,40), got {args.sprt!r}") from None
    if not all(map(math.isfinite, (elo0, elo1))):
        raise CliError(f"--sprt bounds must be finite numbers, got {args.sprt!r}")
    return SprtPlan(elo0=elo0, elo1=elo1, alpha=args.alpha, beta=args.beta)


def agent_inputs(args: argparse.Namespace) -> dict:
    """The files and folders a match reads, by what names them (``common.check_outputs``): agents
    that are paths (a bot file, a checkpoint, a run folder), --config, and a book FILE."""
    paths = [text.strip()[4:] if text.strip().startswith("net:") else text.strip() for text in (args.agent_a, args.agent_b)]
    inputs = {"agent A": paths[0], "agent B": paths[1], "--config": args.config}
    if args.book is not None and not args.book.strip().isdigit():
        inputs["--book"] = args.book
    return inputs


def interim_line(started: float):
    """``play_sprt``'s ``on_part``: one line on stderr after each undecided part (``sprt so far:``
    the test's line and the minutes since ``started``), so a match run in the background shows where
    it stands long before its report."""

    def report(result, outcome) -> None:
        minutes = (time.monotonic() - started) / 60
        print(f"{outcome.line(result.pentanomial, False, interim=True)} "
              f"({minutes:.1f} min)", file=sys.stderr, flush=True)

    return report


def run(args: argparse.Namespace) -> int:
    import numpy as np

    from ..eval.arena import report_lines, save_match_records
    from ..eval.specs import build_agent, match_game_config, parse_agent_spec

    _check_arguments(args)
    plan = sprt_plan(args)
    specs = [parse_agent_spec(text, simulations=args.sims) for text in (args.agent_a, args.agent_b)]
    agents = [build_agent(spec, device=args.device) for spec in specs]
    game = match_game_config(agents, args.config, args.side, args.game_type, args.scoring)
    rng = np.random.default_rng(args.seed)
    result, sprt_line = _play(args, agents, game, rng, plan)
    for line in report_lines(result):
        print(line, file=sys.stdout)
    if sprt_line is not None:
        print(sprt_line, file=sys.stdout)
    if args.save_records:
        paths = save_match_records(result, args.save_records)
        print(f"records: {len(paths)} games written to {args.save_records} (catena-zero show FILE replays one)",
              file=sys.stdout)
    return 0


def _check_arguments(args: argparse.Namespace) -> None:
    """The flags' bounds and exclusions, the threads, and the records folder, before any game."""
    from ..eval.arena import prepare_records_folder

    check_minimums(args, games=1, sims=1, threads=1, max_pairs=1)
    if args.book is not None and args.games is not None:
        raise CliError("--games and --book exclude each other: a book match plays two games per opening")
    set_threads(args.threads)
    if args.save_records:
        # Before the first game, not after the last: not inside a run folder given as an agent (or any
        # run), creatable, and empty or new.
        check_outputs(agent_inputs(args), {}, {"--save-records": args.save_records})
        prepare_records_folder(args.save_records)
    if args.openings < 0:
        raise CliError(f"--openings must be >= 0, got {args.openings}")


def _play(args: argparse.Namespace, agents: list, game, rng, plan):
    """The match (``MatchResult``) and, with --sprt, the test's line (else None): over random
    openings, over the book's, or over its pairs until the SPRT decides."""
    from ..eval.arena import play_match, play_sprt
    from ..eval.book import resolve_book
    from ..eval.progress import progress_bar

    if args.book is None:
        games = 40 if args.games is None else args.games
        with progress_bar(games) as progress:
            return play_match(agents[0], agents[1], game, games, args.komi, rng, opening_plies=args.openings,
                              progress=progress), None
    book = resolve_book(args.book, game, args.komi)
    if plan is None:
        with progress_bar(2 * len(book)) as progress:
            return play_match(agents[0], agents[1], game, 2 * len(book), args.komi, rng, book=book,
                              progress=progress), None
    if args.max_pairs is not None:
        if args.max_pairs > len(book):
            raise CliError(f"--max-pairs {args.max_pairs} is more than the book's {len(book)} openings "
                           "(a network replays a repeated opening identically): use a bigger --book")
        book = book.first(args.max_pairs)
    with progress_bar(2 * len(book)) as progress:
        result, outcome = play_sprt(agents[0], agents[1], game, book, args.komi, rng, plan, progress=progress,
                                    on_part=interim_line(time.monotonic()))
    return result, outcome.line(result.pentanomial, result.pentanomial.pairs >= len(book))
