"""``catena-zero komi-check NETWORK``: does the fair komi a network names mean something? (eval/fairness.py)

For a network (a checkpoint, run folder or bot file) on its rule set (game type komi):
1. the fair komi k it names (its value head on the empty board at every komi, as the bot does);
2. the network against itself from varied openings at k - 2, k and k + 2: Black's share of the wins
   with a Wilson 95% interval (fair: 40-60% at k, higher at k - 2, lower at k + 2);
3. for a run folder, the fair-komi estimate self-play logged: its range over the last third of the
   run (settled: within 1);
4. on side 3 (or 2), the exact fair komis by exhaustive search (search/solver.py), and whether k is one.

For a player without a value head (``mcts:K``): ``--komis LO-HI --side S``, Black's share at each
komi of the range and the komi where two copies split most evenly.

    catena-zero komi-check RUN_OR_CHECKPOINT [--games 100] [--sims 64]
    catena-zero komi-check mcts:1000 --side 4 --komis 5-11 --games 40

The last line reads ``komi-check: side S: names k; Black wins x% at k-2, y% at k, z% at k+2 (G games
each); settled [lo, hi] over the last third; exact (a, b)``.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import time
from pathlib import Path

from ..game.scoring import STANDARD
from .common import CliError, add_rule_flags, check_minimums

KOMIS_SIDE = 4  # --komis without --side: side 4, the quick config's board

HELP = "check the fair komi a network names: self-play at it and 2 either side, the run's estimate, exact search"
PREFIX = "komi-check"  # the summary line's first word, for logs and docs/RESULTS.md


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("network", metavar="NETWORK",
                        help="a checkpoint, a run folder (its newest checkpoint) or a bot file; with --komis "
                             "any player, e.g. mcts:1000")
    parser.add_argument("--games", type=int, default=100, help="self-play games per komi (default 100)")
    parser.add_argument("--sims", type=int, default=64, help="simulations per move (default 64)")
    parser.add_argument("--openings", type=int, default=2, help="random plies opening each pair (default 2)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the games' random generator (default 0)")
    parser.add_argument("--komis", metavar="LO-HI", help="play every komi of this range (a baseline such as mcts:K)")
    add_rule_flags(parser, {"side": f"board side for --komis (default {KOMIS_SIDE})"})


def run(args: argparse.Namespace) -> int:
    from ..eval.specs import build_agent, parse_agent_spec  # torch: only when the command runs
    from ..net.device import set_torch_threads

    check_minimums(args, games=1, sims=1, openings=0)
    komis = komi_span(args.komis) if args.komis else None
    set_torch_threads(1)
    agent = build_agent(parse_agent_spec(args.network, simulations=args.sims))
    if komis is not None:
        even_split(agent, args, komis)
    else:
        check_named_komi(agent, args)
    return 0


def komi_span(text: str) -> tuple[int, int]:
    """(LO, HI) of ``--komis LO-HI``; ``CliError`` unless two whole numbers, LO <= HI."""
    try:
        lo, hi = (int(x) for x in text.split("-"))
    except ValueError:
        raise CliError(f"--komis is LO-HI, e.g. 5-11; got {text!r}") from None
    if lo > hi:
        raise CliError(f"--komis LO-HI needs LO <= HI, got {text!r}")
    return lo, hi


def check_named_komi(agent, args: argparse.Namespace) -> None:
    """Checks 1-4 of the module docstring, a line each, then the summary line."""
    from ..eval.fairness import komi_settling, last_third_range
    from ..game.options import RuleSet, komi_range

    game = agent.default_game
    if game is None or not game.game_type_rule.has_komi:
        raise CliError(f"{args.network} is not a network trained for game type komi: it names no fair komi "
                       f"(for a baseline such as mcts:K give --komis LO-HI)")
    estimate = agent.komi_curve(game)
    k = estimate.komi
    print(f"{PREFIX}: {agent.name}, side {game.side} {game.scoring}: names komi {k} "
          f"(value for Black {estimate.at(k)[0]:+.3f})")
    lo, hi = komi_range(game.scoring)
    shares = {s.komi: s for s in play_komis(agent, game, [c for c in (k - 2, k, k + 2) if lo <= c <= hi], args)}
    settled = ""
    path = Path(args.network)
    if path.is_dir():
        logged = komi_settling(path, RuleSet.of(game))
        if logged:
            low, high = last_third_range(*logged)
            settled = f"; settled [{low:g}, {high:g}] over the last third ({len(logged[0])} values)"
            print(f"  self-play's estimate over the last third of the run: {low:g}..{high:g}")
    exact = ""
    if game.side <= 3 and game.scoring_rule is STANDARD:  # the solver scores standard only
        from ..search.solver import exact_fair_komi

        a, b = exact_fair_komi(dataclasses.replace(game, komi=0))
        verdict = "names one of them" if k in (a, b) else f"is off by {min(abs(k - a), abs(k - b))}"
        exact = f"; exact ({a}, {b}): {verdict}"
        print(f"  exhaustive search: Black wins at komi {a}, loses at {b}; the network {verdict}")
    rates = ", ".join(f"{s.share:.0%} at {komi}" for komi, s in shares.items())
    print(f"{PREFIX}: side {game.side}: names {k}; Black wins {rates} ({args.games} games each){settled}{exact}")


def play_komis(agent, game, komis: list[int], args: argparse.Namespace) -> list:
    """The agent against itself at each komi (``eval.fairness.black_share``), a line printed for each."""
    import numpy as np

    from ..eval.fairness import black_share

    shares = []
    for komi in komis:
        started = time.perf_counter()
        share = black_share(agent, game, komi, args.games, np.random.default_rng(args.seed), args.openings)
        low, high = share.interval
        shares.append(share)
        print(f"  komi {komi:>2}: Black {share.share:6.1%} [{low:.0%}, {high:.0%}] of {share.games} games "
              f"({time.perf_counter() - started:.0f} s)", file=sys.stdout, flush=True)
    return shares


def even_split(agent, args: argparse.Namespace, komis: tuple[int, int]) -> None:
    """Black's share over a komi range, and the komi nearest an even split."""
    from ..eval.fairness import most_even_komi
    from ..game.options import GameConfig, komi_range

    game = agent.default_game or GameConfig(side=args.side or KOMIS_SIDE)
    lo, hi = komi_range(game.scoring)
    if not lo <= komis[0] <= komis[1] <= hi:
        raise CliError(f"--komis {args.komis}: komi is {lo}..{hi} under {game.scoring} scoring")
    best = most_even_komi(play_komis(agent, game, list(range(komis[0], komis[1] + 1)), args))
    low, high = best.interval
    print(f"{PREFIX}: {agent.name} against itself, side {game.side} {game.scoring}: splits most evenly at komi "
          f"{best.komi} (Black {best.share:.1%} [{low:.0%}, {high:.0%}], {args.games} games a komi)")
