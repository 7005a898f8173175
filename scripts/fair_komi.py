"""Does the fair komi a network names mean something? (catena_zero/eval/fairness.py)

For a network (a checkpoint, run folder or bot file) on its rule set (game type komi):
1. the fair komi k it names (its value head on the empty board at every komi, as the bot does);
2. the network against itself from varied openings at k - 2, k and k + 2: Black's share of the wins
   with a Wilson 95% interval (fair: 40-60% at k, higher at k - 2, lower at k + 2);
3. for a run folder, the fair-komi estimate self-play logged: its range over the last third of the
   run (settled: within 1);
4. on side 3 (or 2), the exact fair komis by exhaustive search (search/solver.py), and whether k is one.

For a player without a value head (``mcts:K``): ``--komis LO-HI --side S``, Black's share at each
komi of the range and the komi where two copies split most evenly.

Run: .venv/bin/python scripts/fair_komi.py RUN_OR_CHECKPOINT [--games 100] [--sims 64]
     .venv/bin/python scripts/fair_komi.py mcts:1000 --side 4 --komis 5-11 --games 40
The last line reads ``fair_komi: side S: names k; Black wins x% at k-2, y% at k, z% at k+2 (G games
each); settled [lo, hi] over the last third; exact (a, b)``.
"""

from __future__ import annotations

import argparse
import dataclasses
import time
from pathlib import Path

import numpy as np

from catena_zero.eval.fairness import BlackShare, black_share, komi_settling, last_third_range, most_even_komi
from catena_zero.eval.specs import build_agent, parse_agent_spec
from catena_zero.game.options import GameConfig, RuleSet, komi_range
from catena_zero.net.device import set_torch_threads


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("network", help="a checkpoint, a run folder (its newest checkpoint) or a bot file")
    parser.add_argument("--games", type=int, default=100, help="self-play games per komi (default 100)")
    parser.add_argument("--sims", type=int, default=64, help="simulations per move (default 64)")
    parser.add_argument("--openings", type=int, default=2, help="random plies opening each pair (default 2)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--komis", metavar="LO-HI", help="play every komi of this range (a baseline such as mcts:K)")
    parser.add_argument("--side", type=int, default=4, help="board side for --komis (default 4)")
    args = parser.parse_args()
    set_torch_threads(1)
    agent = build_agent(parse_agent_spec(args.network, simulations=args.sims))
    if args.komis:
        even_split(agent, args)
        return
    game = agent.default_game
    if game is None or game.game_type != "komi":
        raise SystemExit("fair_komi: needs a network trained for game type komi")
    estimate = agent.komi_estimate(game)
    k = estimate.komi
    print(f"fair_komi: {agent.name}, side {game.side} {game.scoring}: names komi {k} "
          f"(value for Black {estimate.at(k)[0]:+.3f})")
    lo, hi = komi_range(game.scoring)
    shares = {s.komi: s for s in play_komis(agent, game, [c for c in (k - 2, k, k + 2) if lo <= c <= hi], args)}
    settled = ""
    path = Path(args.network)
    if path.is_dir():
        logged = komi_settling(path, RuleSet.of(game).key)
        if logged:
            low, high = last_third_range(*logged)
            settled = f"; settled [{low:g}, {high:g}] over the last third ({len(logged[0])} values)"
            print(f"  self-play's estimate over the last third of the run: {low:g}..{high:g}")
    exact = ""
    if game.side <= 3 and game.scoring == "standard":
        from catena_zero.search.solver import exact_fair_komi

        a, b = exact_fair_komi(dataclasses.replace(game, komi=0))
        verdict = "names one of them" if k in (a, b) else f"is off by {min(abs(k - a), abs(k - b))}"
        exact = f"; exact ({a}, {b}): {verdict}"
        print(f"  exhaustive search: Black wins at komi {a}, loses at {b}; the network {verdict}")
    rates = ", ".join(f"{s.share:.0%} at {komi}" for komi, s in shares.items())
    print(f"fair_komi: side {game.side}: names {k}; Black wins {rates} ({args.games} games each){settled}{exact}")


def play_komis(agent, game: GameConfig, komis: list[int], args: argparse.Namespace) -> list[BlackShare]:
    """The agent against itself at each komi (``eval.fairness.black_share``), a line printed for each."""
    shares = []
    for komi in komis:
        started = time.perf_counter()
        share = black_share(agent, game, komi, args.games, np.random.default_rng(args.seed), args.openings)
        low, high = share.interval
        shares.append(share)
        print(f"  komi {komi:>2}: Black {share.share:6.1%} [{low:.0%}, {high:.0%}] of {share.games} games "
              f"({time.perf_counter() - started:.0f} s)", flush=True)
    return shares


def even_split(agent, args: argparse.Namespace) -> None:
    """Black's share over a komi range, and the komi nearest an even split."""
    try:
        lo, hi = (int(x) for x in args.komis.split("-"))
    except ValueError:
        raise SystemExit(f"fair_komi: --komis is LO-HI, e.g. 5-11; got {args.komis!r}") from None
    game = agent.default_game or GameConfig(side=args.side)
    best = most_even_komi(play_komis(agent, game, list(range(lo, hi + 1)), args))
    low, high = best.interval
    print(f"fair_komi: {agent.name} against itself, side {game.side} {game.scoring}: splits most evenly at komi "
          f"{best.komi} (Black {best.share:.1%} [{low:.0%}, {high:.0%}], {args.games} games a komi)")


if __name__ == "__main__":
    main()
