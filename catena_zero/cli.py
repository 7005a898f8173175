"""The ``catena-zero`` command line: a thin dispatcher over ``catena_zero/commands/``.

    catena-zero COMMAND [flags]        (catena-zero --help lists the commands)

Every error a user can cause (bad flags, a bad config or record, an unwritable file) ends
the program with one line ``catena-zero: error: ...`` on stderr and exit status 2, never a
traceback. On a terminal that line is wrapped at the terminal's width, continuation lines
indented, so a long message does not break mid-word; to a file or pipe it stays one line, for
scripts and logs. ``catena-zero`` alone prints the usage and the commands.
"""

from __future__ import annotations

import argparse
import importlib
import os
import shutil
import sys
import textwrap
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
        if not (sys.argv[1:] if argv is None else argv):
            print(overview(parser), end="", file=sys.stderr)  # no command: what there is to run
            return 2
        args = parser.parse_args(argv)
        return args.run(args)
    except SystemExit as exc:  # --help and --version exit through argparse
        return exc.code if isinstance(exc.code, int) else 0
    except BrokenPipeError:  # output piped into e.g. `head`, which stopped reading: not an error
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # no second error at exit
        return 0
    except (CliError, ValueError, OSError) as exc:  # ConfigError, RecordError, IllegalMove are ValueErrors
        message = one_line(exc) or type(exc).__name__  # no terminal escapes or control characters
        print(error_text(f"{PROG}: error: {message}", sys.stderr), file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"\n{PROG}: interrupted", file=sys.stderr)
        return 130


def error_text(line: str, stream) -> str:
    """``line`` as is for a file or pipe; wrapped at the terminal's width on a terminal."""
    try:
        tty = stream.isatty()
    except (AttributeError, ValueError):
        tty = False
    if not tty:
        return line
    width = max(40, shutil.get_terminal_size((80, 24)).columns - 1)
    return textwrap.fill(line, width, subsequent_indent="    ", break_on_hyphens=False, break_long_words=False)


def overview(parser: argparse.ArgumentParser) -> str:
    """The usage and one line per command, for ``catena-zero`` without a command."""
    lines = [parser.format_usage().rstrip(), "", "commands:"]
    for name, module_name in COMMANDS.items():
        module = importlib.import_module(f".commands.{module_name}", __package__)
        lines.append(textwrap.fill(f"  {name:<12} {module.HELP}", 79, subsequent_indent=" " * 15))
    lines += ["", f"'{PROG} COMMAND --help' describes a command; docs/RULES.md has the rules."]
    return "\n".join(lines) + "\n"


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
