"""``catena-zero serve``: play the bot in a browser (the page and JSON API of ``catena_zero.web``)."""

from __future__ import annotations

import argparse
from pathlib import Path

from ..web.server import BotOptions, serve
from ..web.sessions import ServerConfig
from .bot_options import add_bot_options, add_rules_options, shipped_bot_path
from .common import CliError

HELP = "serve a web page (and a JSON API) to play the bot in a browser"


def configure(parser: argparse.ArgumentParser) -> None:
    defaults = ServerConfig()
    add_bot_options(parser, required=False, repeatable=True,
                    bot_help="a bot file written by 'catena-zero export'; repeat it to serve several (each game is "
                             "played by the one for its rules, the first gives the default game); default: every "
                             "shipped bot, the one for --side/--game-type/--scoring first (catena_zero/bots/README.md)")
    add_rules_options(parser)
    parser.add_argument("--host", default="127.0.0.1",
                        help="address to listen on; default 127.0.0.1 (this machine only)")
    parser.add_argument("--port", type=int, default=8000, help="TCP port; 0 picks a free one; default 8000")
    parser.add_argument("--allow-host", action="append", default=[], metavar="NAME",
                        help="another name this server answers for (the Host header: a machine name, or a proxy's); "
                             "it answers only for localhost, 127.0.0.1, ::1 and --host, so a page on another name "
                             "pointed at this machine cannot use it (DNS rebinding); repeatable")
    parser.add_argument("--workers", type=int, default=defaults.workers,
                        help=f"games the bot can think about at once (one bot copy each); default {defaults.workers}")
    parser.add_argument("--max-games", type=int, default=defaults.max_games,
                        help=f"live games kept at once (when full, a finished or abandoned game makes room; "
                             f"a game in play never does, and a new one is refused); default {defaults.max_games}")
    parser.add_argument("--expire-minutes", type=float, default=defaults.expire_s / 60,
                        help=f"drop a game untouched this long; default {defaults.expire_s / 60:g}")
    parser.add_argument("--max-simulations", type=int, default=defaults.max_simulations, metavar="N",
                        help=f"the most simulations a move a person may ask of the bot; default {defaults.max_simulations}")
    parser.add_argument("--max-seconds", type=float, default=defaults.max_seconds, metavar="T",
                        help=f"the most seconds a move a person may ask of the bot; default {defaults.max_seconds:g}")


def run(args: argparse.Namespace) -> int:
    if args.simulations is not None and args.simulations < 1:
        raise CliError(f"--simulations must be >= 1, got {args.simulations}")
    if args.seconds is not None and not args.seconds > 0:
        raise CliError(f"--seconds must be > 0, got {args.seconds}")
    for flag, value in (("--workers", args.workers), ("--max-games", args.max_games), ("--threads", args.threads)):
        if value < 1:
            raise CliError(f"{flag} must be >= 1, got {value}")
    if not args.expire_minutes > 0:
        raise CliError(f"--expire-minutes must be > 0, got {args.expire_minutes:g}")
    if args.max_simulations < 1:
        raise CliError(f"--max-simulations must be >= 1, got {args.max_simulations}")
    if not args.max_seconds > 0:
        raise CliError(f"--max-seconds must be > 0, got {args.max_seconds:g}")
    for name in args.allow_host:
        if not name.strip() or any(c in name for c in "/@ \t"):
            raise CliError(f"--allow-host takes a host name or address, got {name!r}")
    config = ServerConfig(max_games=args.max_games, expire_s=args.expire_minutes * 60, workers=args.workers,
                          max_simulations=args.max_simulations, max_seconds=args.max_seconds,
                          hosts=ServerConfig().hosts + tuple(args.allow_host))
    paths = list(args.bot or [])
    if not paths:
        paths = shipped_paths(args)
        print(f"catena-zero serve: no --bot given: serving every shipped bot ({', '.join(p.name for p in paths)})",
              flush=True)
    bots = [BotOptions(path=Path(path), simulations=args.simulations, seconds=args.seconds,
                       device=args.device, seed=args.bot_seed, threads=args.threads) for path in paths]
    serve(bots, args.host, args.port, config)
    return 0


def shipped_paths(args: argparse.Namespace) -> list[Path]:
    """Every shipped bot, the one for the rule flags (else the standard game's) first: its game is
    the page's default, and the New-game dialog offers every rule set of them all."""
    from ..bot.shipped import shipped_bots

    first, _ = shipped_bot_path(args)  # CliError when none fits the flags
    return [Path(first)] + [b.path for b in shipped_bots() if b.path != Path(first)]
