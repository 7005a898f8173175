"""The ``catena-zero`` command line: a thin dispatcher over ``catena_zero/commands/``.

    catena-zero COMMAND [flags]        (catena-zero --help lists the commands)

Every error a user can cause (``errors.UserError``: bad flags, a bad config or record, a bad
move; and ``OSError``: a missing or unwritable file) ends the program with one line
``catena-zero: error: ...`` on stderr and exit status 2, never a traceback. Any other exception
is a bug in catena-zero, and says so: one line ``catena-zero: internal error: TYPE: MESSAGE
(this is a bug ...)`` and exit status 70 (``EX_SOFTWARE`` of sysexits.h), so a bug is never
passed off as the user's mistake. ``--debug`` (before or after the command) or the environment
variable ``CATENA_ZERO_DEBUG=1`` prints the traceback as well, of a user error too. On a
terminal the line is wrapped at the terminal's width, continuation lines indented, so a long
message does not break mid-word; to a file or pipe it stays one line, for scripts and logs.
``catena-zero`` alone prints the usage and the commands.
"""

from __future__ import annotations

import argparse
import importlib
import os
import shutil
import sys
import textwrap
import traceback
from typing import NoReturn, Optional

from . import __version__
from .commands.common import CliError
from .errors import UserError
from .messages import one_line

PROG = "catena-zero"
EX_USAGE = 2  # a user error: bad flags, config, record, move or file (argparse's status too)
EX_SOFTWARE = 70  # an internal error, a bug in catena-zero (sysexits.h)
DEBUG_FLAG = "--debug"
DEBUG_ENV = "CATENA_ZERO_DEBUG"  # set to 1: print the traceback of an error

# command name -> module under catena_zero/commands (HELP, configure(parser), run(args))
COMMANDS = {
    "play": "play",
    "show": "show",
    "analyze": "analyze",
    "random-game": "random_game",
    "train": "train",
    "export": "export",
    "ship": "ship",
    "evaluate": "evaluate",
    "ladder": "ladder",
    "curves": "curves",
    "book": "book",
    "ablate": "ablate",
    "komi": "komi",
    "komi-check": "komi_check",
    "optimal-moves": "optimal_moves",
    "engine": "engine",
    "analysis": "analysis",
    "serve": "serve",
}


class _Parser(argparse.ArgumentParser):
    """argparse that raises instead of printing usage and exiting, so errors stay one line."""

    def error(self, message: str) -> NoReturn:
        raise CliError(message)


def tolerant_output() -> None:
    """Standard output and error write what their encoding cannot hold as escapes (``\\xe9``)
    instead of raising: under ``PYTHONIOENCODING=ascii`` or an ASCII locale a file name, a bot's
    header or a record's comment with an "e acute" in it must not end a command as a bug."""
    for stream in (sys.stdout, sys.stderr):
        if getattr(stream, "errors", None) == "strict" and hasattr(stream, "reconfigure"):
            try:
                stream.reconfigure(errors="backslashreplace")
            except (ValueError, OSError):  # a closed or detached stream: nothing will be written to it
                pass


def main(argv: Optional[list[str]] = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    args = None
    tolerant_output()
    try:
        parser = build_parser()
        if not argv:
            print(overview(parser), end="", file=sys.stderr)  # no command: what there is to run
            return EX_USAGE
        args = parser.parse_args(argv)
        return args.run(args)
    except SystemExit as exc:  # --help and --version exit through argparse
        return exc.code if isinstance(exc.code, int) else 0
    except BrokenPipeError:  # output piped into e.g. `head`, which stopped reading: not an error
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # no second error at exit
        return 0
    except (UserError, OSError) as exc:  # ConfigError, RecordError, IllegalMove, CliError, ...: UserErrors
        if debug_wanted(argv, args):
            traceback.print_exc(file=sys.stderr)
        message = one_line(exc) or type(exc).__name__  # no terminal escapes or control characters
        print(error_text(f"{PROG}: error: {message}", sys.stderr), file=sys.stderr)
        return EX_USAGE
    except KeyboardInterrupt:
        print(f"\n{PROG}: interrupted", file=sys.stderr)
        return 130
    except Exception as exc:  # anything else is a bug: say so, never as if the user had erred
        debug = debug_wanted(argv, args)
        if debug:
            traceback.print_exc(file=sys.stderr)
        print(error_text(internal_error_line(exc, debug), sys.stderr), file=sys.stderr)
        return EX_SOFTWARE


def internal_error_line(exc: BaseException, traceback_shown: bool = False) -> str:
    """The one line of a bug: its type, its message, and that it is to be reported."""
    message = one_line(exc)
    what = f"{type(exc).__name__}: {message}" if message else type(exc).__name__
    if traceback_shown:
        note = "this is a bug in catena-zero; please report it with the command you ran and the traceback above"
    else:
        note = (f"this is a bug in catena-zero; please report it with the command you ran; "
                f"rerun with {DEBUG_FLAG} or {DEBUG_ENV}=1 for the traceback")
    return f"{PROG}: internal error: {what} ({note})"


def debug_wanted(argv: list[str], args: Optional[argparse.Namespace] = None) -> bool:
    """Whether to print tracebacks: ``--debug`` anywhere before a ``--`` (also when parsing failed
    before ``args`` existed), or ``CATENA_ZERO_DEBUG`` set to anything but empty or 0."""
    if os.environ.get(DEBUG_ENV, "").strip() not in ("", "0"):
        return True
    if args is not None and getattr(args, "debug", False):
        return True
    words = argv[:argv.index("--")] if "--" in argv else argv
    return DEBUG_FLAG in words


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
    parser.add_argument(DEBUG_FLAG, action="store_true",
                        help=f"on an error, print its traceback too (also: {DEBUG_ENV}=1)")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    commands.required = True
    for name, module_name in COMMANDS.items():
        module = importlib.import_module(f".commands.{module_name}", __package__)
        sub = commands.add_parser(name, help=module.HELP, description=module.HELP)
        module.configure(sub)
        # Also after the command (`catena-zero train --debug`); SUPPRESS keeps a --debug given
        # before the command.
        sub.add_argument(DEBUG_FLAG, action="store_true", default=argparse.SUPPRESS, help=argparse.SUPPRESS)
        sub.set_defaults(run=module.run)
    return parser


if __name__ == "__main__":
    sys.exit(main())
