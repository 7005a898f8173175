"""``catena-zero evaluate A B``: a match between two agents, with W/D/L, score rate and Elo difference."""

from __future__ import annotations

import argparse
import sys

from .common import CliError, check_minimums


def set_threads(threads: int) -> None:
    """Inference threads for this process (torch's setting is per process; the command owns it)."""
    import torch

    torch.set_num_threads(threads)

HELP = "play a match between two agents (bot files, checkpoints, run folders, random, greedy, mcts:K)"


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("agent_a", metavar="A", help="random, greedy, mcts:K, an exported bot file (catena-zero export), a checkpoint file or a "
                             "run folder (its newest checkpoint)")
    parser.add_argument("agent_b", metavar="B", help="the opponent, written as A")
    parser.add_argument("--games", type=int, default=40, metavar="N", help="games to play, colours alternating (default 40)")
    parser.add_argument("--sims", type=int, metavar="S", help="search simulations per move of network agents (default: their config's)")
    parser.add_argument("--komi", type=int, metavar="K", help="play at komi K (default: the fair komi by the stronger network's value head, else the config's)")
    parser.add_argument("--openings", type=int, default=2, metavar="P", help="random plies that open each pair of games (default 2)")
    parser.add_argument("--save-records", metavar="DIR", help="write every game as a record file into DIR (catena-zero show reads them)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the match's random generator (default 0)")
    parser.add_argument("--config", metavar="FILE", help="YAML config whose game section sets the options (default: the network's, else side 6)")
    parser.add_argument("--side", type=int, help="cells per board edge, 2..10 (R1)")
    parser.add_argument("--game-type", choices=("komi", "no_komi", "double"), help="R7/R8")
    parser.add_argument("--scoring", choices=("standard", "longest", "quadratic"), help="R6")
    parser.add_argument("--threads", type=int, default=1, metavar="T",
                        help="CPU threads of network inference (default 1: a match's batches are small, and "
                             "spinning threads slow everything down on shared cores)")
    parser.add_argument("--device", help="network device: cpu, cuda, cuda:i (default: the checkpoint's, auto)")


def run(args: argparse.Namespace) -> int:
    import numpy as np

    from ..eval.arena import play_match, prepare_records_folder, report_lines, save_match_records
    from ..eval.progress import progress_bar
    from ..eval.specs import build_agent, match_game_config, parse_agent_spec

    check_minimums(args, games=1, sims=1, threads=1)
    set_threads(args.threads)
    if args.save_records:
        prepare_records_folder(args.save_records)  # before the first game, not after the last
    if args.openings < 0:
        raise CliError(f"--openings must be >= 0, got {args.openings}")
    specs = [parse_agent_spec(text, simulations=args.sims) for text in (args.agent_a, args.agent_b)]
    agents = [build_agent(spec, device=args.device) for spec in specs]
    game = match_game_config(agents, args.config, args.side, args.game_type, args.scoring)
    with progress_bar(args.games) as progress:
        result = play_match(agents[0], agents[1], game, args.games, args.komi, np.random.default_rng(args.seed),
                            opening_plies=args.openings, progress=progress)
    for line in report_lines(result):
        print(line, file=sys.stdout)
    if args.save_records:
        paths = save_match_records(result, args.save_records)
        print(f"records: {len(paths)} games written to {args.save_records} (catena-zero show FILE replays one)",
              file=sys.stdout)
    return 0
