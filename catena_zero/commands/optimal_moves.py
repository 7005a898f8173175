"""``catena-zero optimal-moves A B``: on side 3 (or 2), the share of each player's moves that are
optimal by exhaustive search.

Plays a match between A and B (``catena-zero evaluate``'s agents: a bot file, checkpoint, run
folder, random, greedy, mcts:K) from paired random openings, then judges every move after the
opening (``eval/optimality.py``): outcome-optimal (keeps the best result the mover can force at
the match's komi) and margin-optimal (keeps the best final score margin).

    catena-zero optimal-moves A B [--games 20] [--komi 10] [--sims 400]

The last line reads ``optimal-moves: A x% margin-optimal [lo, hi], y% outcome-optimal (n moves);
B ...``. The first game's positions cost a few minutes (the margin solver's table fills); the
rest are fast.
"""

from __future__ import annotations

import argparse
import time

from .common import CliError, add_rule_flags, check_minimums

HELP = "on side 2 or 3: the share of each player's moves in a match that exhaustive search finds optimal"
PREFIX = "optimal-moves"  # the summary line's first word, for logs and docs/RESULTS.md
SIDES = (2, 3)  # what exhaustive search reaches


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("agent_a", metavar="A", help="the player judged first (e.g. catena_zero/bots/side3.bot)")
    parser.add_argument("agent_b", metavar="B", help="its opponent (e.g. mcts:1000)")
    add_rule_flags(parser, {"side": "board side, 2 or 3 (default 3)"})
    parser.add_argument("--games", type=int, default=20, help="games, colours alternating (default 20)")
    parser.add_argument("--komi", type=int, default=10,
                        help="komi of the match (default 10: on side 3 Black wins at 10 and loses at 11)")
    parser.add_argument("--sims", type=int, default=400, help="simulations per move of a network (default 400)")
    parser.add_argument("--openings", type=int, default=1, help="random plies opening each pair (default 1)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the match's random generator (default 0)")


def run(args: argparse.Namespace) -> int:
    import numpy as np  # the match and the solver: only when the command runs

    from ..eval.arena import play_match
    from ..eval.optimality import judge_moves
    from ..eval.specs import build_agent, parse_agent_spec
    from ..game.options import GameConfig
    from ..net.device import set_torch_threads

    if args.side is None:
        args.side = 3
    if args.side not in SIDES:
        raise CliError(f"--side must be 2 or 3 (what exhaustive search reaches), got {args.side}")
    check_minimums(args, games=1, sims=1, openings=0)
    game = GameConfig(side=args.side, komi=args.komi)  # ConfigError: a komi out of range, in one line
    set_torch_threads(1)
    agents = [build_agent(parse_agent_spec(text, simulations=args.sims)) for text in (args.agent_a, args.agent_b)]
    started = time.perf_counter()
    result = play_match(agents[0], agents[1], game, args.games, args.komi, np.random.default_rng(args.seed),
                        opening_plies=args.openings)
    tally = result.tally
    print(f"match: {result.name_a} vs {result.name_b}, side {args.side} komi {args.komi}: "
          f"+{tally.wins} ={tally.draws} -{tally.losses} ({time.perf_counter() - started:.0f} s)")
    started = time.perf_counter()
    judged = judge_moves(result.games, result.game)
    print(f"judged in {time.perf_counter() - started:.0f} s")
    parts = []
    for name, share in zip((result.name_a, result.name_b), judged):
        texts = []
        for kind in ("margin", "outcome"):
            lo, hi = share.interval(kind)
            texts.append(f"{share.share(kind):.1%} {kind}-optimal [{lo:.1%}, {hi:.1%}]")
        print(f"  {name}: {', '.join(texts)} of {share.moves} moves")
        parts.append(f"{name} {texts[0]}, {texts[1]} ({share.moves} moves)")
    print(f"{PREFIX}: " + "; ".join(parts))
    return 0
