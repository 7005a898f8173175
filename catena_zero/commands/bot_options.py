"""The flags of the commands that load an exported bot (engine, komi, play): --bot and its search."""

from __future__ import annotations

import argparse


def add_bot_options(parser: argparse.ArgumentParser, required: bool, bot_help: str | None = None,
                    repeatable: bool = False) -> None:
    """--bot FILE (a list of files when ``repeatable``) and the search flags of the bots."""
    parser.add_argument("--bot", required=required, metavar="FILE", action="append" if repeatable else "store",
                        help=bot_help or "a bot file written by 'catena-zero export'")
    budget = parser.add_mutually_exclusive_group()
    budget.add_argument("--simulations", type=int, metavar="N", help="search simulations per move (default: the bot file's)")
    budget.add_argument("--seconds", type=float, metavar="T", help="think about T seconds per move instead")
    parser.add_argument("--device", default="auto", help="where the network runs: auto, cpu, cuda, cuda:i (default auto)")
    parser.add_argument("--bot-seed", type=int, default=0, metavar="S",
                        help="the bot's seed: with --simulations the same position always gets the same move (default 0)")
    parser.add_argument("--threads", type=int, default=1, metavar="T",
                        help="torch CPU threads; one game at a time gains little from more and loses a lot "
                             "when the cores are shared (default 1)")


def load_bot(args: argparse.Namespace, path: str | None = None):
    """The ``Bot`` named by ``--bot`` (or ``path``) with the search flags; BotFileError is one line."""
    import torch  # imported only when a bot is loaded

    from ..bot import Bot

    if args.threads < 1:
        raise ValueError(f"--threads must be >= 1, got {args.threads}")
    torch.set_num_threads(args.threads)  # this process runs the bot: its choice to make
    return Bot.load(path or args.bot, simulations=args.simulations, seconds=args.seconds,
                    device=args.device, seed=args.bot_seed)
