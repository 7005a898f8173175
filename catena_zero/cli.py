"""The ``catena-zero`` command line: a thin dispatcher over ``catena_zero/commands/``.

    catena-zero COMMAND [flags]        (catena-zero --help lists the commands)

Every error a user can cause (bad flags, a bad config or record, an unwritable file) ends
the program with one line ``catena-zero: error: ...`` on stderr and exit status 2, never a
traceback.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from typing import Optional

from . import __version__
from .commands.common import CliError
from .messages import one_line

PROG = "catena-zero"

# command name -> module under catena_zero/commands (HELP, configure(parser), run(args))
COMMANDS = {
    "play": "play",
    "show": "show",
    "random-game": "random_game",
    "train": "train",
    "export": "export",
    "evaluate": "evaluate",
    "ladder": "ladder",
    "ablate": "ablate",
    "komi": "komi",
    "engine": "engine",
    "serve": "serve",
}


class _Parser(argparse.ArgumentParser):
    """argparse that raises instead of printing usage and exiting, so errors stay one line."""

    def error(self, message: str) -> None:  # type: ignore[override]
        raise CliError(message)


def main(argv: Optional[list[str]] = None) -> int:
    try:
        parser = build_parser()
        args = parser.parse_args(argv)
        return args.run(args)
    except SystemExit as exc:  # --help and --version exit through argparse
        return exc.code if isinstance(exc.code, int) else 0
    except BrokenPipeError:  # output piped into e.g. `head`, which stopped reading: not an error
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # no second error at exit
        return 0
    except (CliError, ValueError, OSError) as exc:  # ConfigError, RecordError, IllegalMove are ValueErrors
        message = one_line(exc) or type(exc).__name__  # no terminal escapes or control characters
        print(f"{PROG}: error: {message}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"\n{PROG}: interrupted", file=sys.stderr)
        return 130


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog=PROG, description="AlphaZero-style self-play for the board game Catena.")
    parser.add_argument("--version", action="version", version=f"{PROG} {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    commands.required = True
    for name, module_name in COMMANDS.items():
        module = importlib.import_module(f".commands.{module_name}", __package__)
        sub = commands.add_parser(name, help=module.HELP, description=module.HELP)
        module.configure(sub)
        sub.set_defaults(run=module.run)
    return parser


if __name__ == "__main__":
    sys.exit(main())
