"""What several commands share: the user-error type, the rule flags, --threads and the game-option
flags, where messages go, the check of a command's outputs against its inputs, and one-line
descriptions."""

from __future__ import annotations

import argparse
import math
import os
import stat
import sys
from typing import Optional, TextIO

from ..artifacts.layout import is_run_folder
from ..config import Config, config_from_dict, load_config
from ..errors import UserError
from ..fileio import check_writable, writes_to_stdout
from ..game.options import GAME_TYPES, MAX_SIDE, MIN_SIDE, SCORINGS, GameConfig


class CliError(UserError):
    """A user error reported as one line on stderr (exit status 2)."""


def device_name(text: str) -> str:
    """The argparse type of ``--device``: auto, cpu, cuda or cuda:i, checked where it is typed, so a
    bad one is named as the flag (one line), not as the ``net.device`` setting it becomes."""
    if text in ("auto", "cpu", "cuda") or (text.startswith("cuda:") and text[5:].isascii()
                                            and text[5:].isdigit() and len(text) <= 9):
        return text
    from ..messages import quote

    raise argparse.ArgumentTypeError(f"must be auto, cpu, cuda or cuda:i, got {quote(text)}")


def check_minimums(args: argparse.Namespace, **minimums: int) -> None:
    """``CliError`` naming the first flag below its minimum, e.g. ``check_minimums(args, games=1)``
    for ``--games``; flags left unset (None) pass."""
    for name, minimum in minimums.items():
        value = getattr(args, name)
        if value is not None and value < minimum:
            raise CliError(f"--{name.replace('_', '-')} must be at least {minimum}, got {value}")


# The rule flags, each declared once (what it takes); the help says what the flag does in the
# command (set the game's options, pick the shipped bot), so each command passes its words.
RULE_FLAGS: dict[str, dict] = {"side": {"type": int}, "game_type": {"choices": GAME_TYPES},
                               "scoring": {"choices": SCORINGS}}


def add_rule_flags(parser: argparse.ArgumentParser, helps: dict[str, str]) -> None:
    """--side, --game-type, --scoring: those of them that ``helps`` (flag name -> help) names,
    in that order."""
    for name, takes in RULE_FLAGS.items():
        if name in helps:
            parser.add_argument(f"--{name.replace('_', '-')}", **takes, help=helps[name])


def game_rule_helps(defaults: bool) -> dict[str, str]:
    """The help of the rule flags where they set the options of the game played (R1, R6-R8); with
    ``defaults``, each says its default (a GameConfig's)."""
    helps = {"side": f"cells per board edge, {MIN_SIDE}..{MAX_SIDE} (R1)", "game_type": "R7/R8", "scoring": "R6"}
    if defaults:
        helps = {name: f"{words}; default {getattr(GameConfig(), name)}" for name, words in helps.items()}
    return helps


# --threads of the commands that play matches (evaluate, ladder).
MATCH_THREADS_HELP = ("CPU threads of network inference (default 1: a match's batches are small, and spinning "
                      "threads slow everything down on shared cores)")


MAX_THREADS = 256  # torch's thread pool: far more than any machine's cores, far less than crashes it


def thread_count(text: str) -> int:
    """The argparse type of ``--threads``: a whole number in 1..MAX_THREADS, checked where it is typed
    (torch aborts the process on 2**40 threads and crashes on 100,000)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a whole number of threads, got {text!r}") from None
    if not 1 <= value <= MAX_THREADS:
        raise argparse.ArgumentTypeError(f"must be in 1..{MAX_THREADS}, got {value}")
    return value


def seconds_per_move(text: str) -> float:
    """The argparse type of ``--seconds``: a finite time above 0, at most the engine's longest move
    (``bot.engine.MAX_MOVE_SECONDS``; inf or nan would never answer)."""
    from ..bot.engine import MAX_MOVE_SECONDS

    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a number of seconds, got {text!r}") from None
    if not (math.isfinite(value) and 0 < value <= MAX_MOVE_SECONDS):
        raise argparse.ArgumentTypeError(f"must be a time in seconds above 0 and at most {MAX_MOVE_SECONDS:g}, "
                                         f"got {text}")
    return value


def add_threads_flag(parser: argparse.ArgumentParser, help: str) -> None:
    """--threads T (default 1), the torch CPU threads of the process (``set_threads``)."""
    parser.add_argument("--threads", type=thread_count, default=1, metavar="T", help=help)


def add_search_settings_flag(parser: argparse.ArgumentParser) -> None:
    """--search FIELD=VALUE (repeatable): a field of the bot's play search (``config.SearchConfig``)."""
    parser.add_argument("--search", action="append", default=[], metavar="FIELD=VALUE",
                        help="a setting of the search the bot plays with, in place of the training config's, e.g. "
                             "score_utility_weight=0.3 (a search field of the config; repeatable)")


def add_symmetry_average_flag(parser: argparse.ArgumentParser) -> None:
    """--symmetry-average / --no-symmetry-average: how the bot's network evaluates (``botfile.play_net``)."""
    parser.add_argument("--symmetry-average", action=argparse.BooleanOptionalAction, default=None,
                        help="average every network evaluation of the bot over the 12 board symmetries (steadier "
                             "values for 12 times the network's work), or not (default: the source's own setting)")


def search_settings(args: argparse.Namespace) -> dict:
    """The --search settings as {field: value}, values read as YAML scalars as --set's are; a
    one-line error naming ``--search`` (or ``search.FIELD``) for a malformed item, an unknown field
    or a bad value (``config.loading.search_settings_of``)."""
    from ..config.loading import search_settings_of

    return search_settings_of(args.search, "--search", "with --simulations")


def set_threads(threads: int) -> None:
    """Torch's CPU threads for this process (``--threads``): the setting is per process, so the
    command that runs the network (or the learner) owns it, and library code leaves it alone. Set
    the one way every process sets them (``net.device.set_torch_threads``); imported here, not at
    the top, so that ``--help`` and the light commands never load torch."""
    from ..net.device import set_torch_threads

    set_torch_threads(threads)


KOMI_HELP = "komi for White (R6), 0..15 (0..1000 for quadratic); default 0"


def add_game_options(parser: argparse.ArgumentParser, komi_help: str = KOMI_HELP) -> None:
    """``--config`` and the game flags that override it; ``komi_help`` says what --komi does
    for this command (R6, R7)."""
    parser.add_argument("--config", metavar="FILE", help="YAML configuration (see configs/); the flags below override it")
    add_rule_flags(parser, game_rule_helps(defaults=True))
    parser.add_argument("--komi", type=int, metavar="K", help=komi_help)
    parser.add_argument("--seed", type=int, metavar="S",
                        help="seed of the random generator, a whole number >= 0 (default: the config's seed, 0)")


def resolve_config(args: argparse.Namespace) -> Config:
    """The config file (or the defaults) with the command-line flags on top; ConfigError if invalid."""
    if args.seed is not None and args.seed < 0:
        raise CliError(f"--seed must be a whole number >= 0, got {args.seed}")
    game = {key: value for key, value in (("side", args.side), ("game_type", args.game_type),
                                          ("scoring", args.scoring), ("komi", args.komi)) if value is not None}
    overrides: dict = {"game": game} if game else {}
    if args.seed is not None:
        overrides["seed"] = args.seed
    config = load_config(args.config, overrides) if args.config is not None else config_from_dict(overrides)
    return config  # Config refuses a negative seed (numpy's generators take seeds >= 0 only)


def message_stream(*outputs: Optional[str]) -> TextIO:
    """Where a command prints its messages: stdout, unless one of its ``outputs`` (paths given
    to --out, --svg, --save) is standard output, which must carry that output alone."""
    for path in outputs:
        if path is not None and writes_to_stdout(path):
            return sys.stderr
    return sys.stdout


def check_one_stdout(**outputs: Optional[str]) -> None:
    """At most one output may go to standard output ('-' or /dev/stdout)."""
    on_stdout = [f"--{name.replace('_', '-')}" for name, path in outputs.items()
                 if path is not None and writes_to_stdout(path)]
    if len(on_stdout) > 1:
        raise CliError(f"{' and '.join(on_stdout)} cannot both write to standard output")


def _same_file(a: str, b: str) -> bool:
    """Whether paths ``a`` and ``b`` name one regular file (or would: same resolved path)."""
    if os.path.realpath(a) == os.path.realpath(b):
        return not os.path.exists(a) or stat.S_ISREG(os.stat(a).st_mode)
    try:
        return os.path.samefile(a, b) and stat.S_ISREG(os.stat(a).st_mode)  # hard links
    except OSError:
        return False


def check_distinct_files(inputs: dict[str, Optional[str]], outputs: dict[str, Optional[str]]) -> None:
    """Refuse, before any work, an output that is one of the inputs (writing it would destroy
    the input) or two outputs that are the same file (one would replace the other).

    ``inputs`` and ``outputs`` map what names a file ("--out", "the checkpoint") to its path; None
    and standard input/output ('-') are skipped, and special files (``/dev/null``) may repeat.
    """
    named_outputs = [(name, path) for name, path in outputs.items() if path is not None and path != "-"]
    for name, path in named_outputs:
        for source, source_path in inputs.items():
            if source_path is not None and source_path != "-" and _same_file(path, source_path):
                raise CliError(f"{name} {path} is {source} ({source_path}): writing it would destroy it; "
                               "choose another file")
    for i, (name, path) in enumerate(named_outputs):
        for other, other_path in named_outputs[i + 1:]:
            if _same_file(path, other_path):
                raise CliError(f"{name} and {other} are the same file ({path}): one would replace the other; "
                               "choose two files")


_RUN_DEPTH = 3  # RUN/x, RUN/ckpt/x, RUN/ladder/x, RUN/tensorboard/ladder/x: the levels a run's files lie at


def _inside(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)


def _run_folder_above(real: str) -> Optional[str]:
    """The run folder that ``real`` (a resolved path) is, or lies in within ``_RUN_DEPTH`` levels."""
    folder = real
    for _ in range(_RUN_DEPTH + 1):
        if os.path.isdir(folder) and is_run_folder(folder):
            return folder
        parent = os.path.dirname(folder)
        if parent == folder:
            return None
        folder = parent
    return None


def run_folder_of(path: str) -> Optional[str]:
    """The resolved run folder that ``path`` (a checkpoint, a run's config) lies in, or is; for a
    folder that is no run, the folder itself; None for a file outside any run."""
    real = os.path.realpath(path)
    run = _run_folder_above(real)
    if run is None and os.path.isdir(real):
        return real
    return run


def _special(path: str) -> bool:
    """Standard output, or an existing file that is neither regular nor a folder (/dev/null, a pipe)."""
    if path == "-" or writes_to_stdout(path):
        return True
    try:
        mode = os.stat(path).st_mode
    except (OSError, ValueError):
        return False
    return not (stat.S_ISREG(mode) or stat.S_ISDIR(mode))


def check_folder_writable(path: str) -> None:
    """The ``OSError`` (one line) that creating files in folder ``path`` later would raise: it is a
    file, or it (or the nearest folder above it that exists, where it would be created) is not
    writable. Creates nothing."""
    real = os.path.realpath(path)
    if os.path.exists(real) and not os.path.isdir(real):
        raise OSError(f"cannot write into {path}: it is a file, not a folder")
    existing = real
    while not os.path.exists(existing):
        existing = os.path.dirname(existing)
    if not os.path.isdir(existing):
        raise OSError(f"cannot create {path}: {existing} is a file, not a folder")
    if not os.access(existing, os.W_OK | os.X_OK):
        raise OSError(f"cannot write into {path}: Permission denied ({existing} is not writable)")


def check_outputs(inputs: dict[str, Optional[str]], outputs: dict[str, Optional[str]],
                  folders: Optional[dict[str, Optional[str]]] = None) -> None:
    """Refuse, before any work (a load, a game, hours of training), an output that would destroy
    an input or a run, or that cannot be written: ``CliError``/``OSError``, one line naming both paths.

    - an output file that is an input file, or two outputs that are one file (``check_distinct_files``);
    - an output file or folder inside an input folder (a run folder given as a checkpoint or an
      agent), or inside any run folder (``is_run_folder``: its config.yaml, replay.npz and
      checkpoints are what resume reads; ``export RUN --out RUN/config.yaml`` would end the run);
    - an output file that cannot be written (``fileio.check_writable``), an output folder that
      cannot be created or written into (``check_folder_writable``).

    ``inputs`` and ``outputs`` map what names a path ("--out", "the checkpoint") to it; ``folders``
    the outputs that are folders (``--save-records DIR``, a run folder). None and '-' are skipped,
    and special files (``/dev/null``) may be given anywhere.
    """
    folders = folders or {}
    check_distinct_files(inputs, outputs)
    input_folders = []  # (what, given path, resolved folder): an input folder and the run it lies in
    for source, path in inputs.items():
        if path is None or path == "-" or _special(path):
            continue
        real = os.path.realpath(path)
        if os.path.isdir(real):
            input_folders.append((source, path, real))
        run = _run_folder_above(real)
        if run is not None and run != real:
            input_folders.append((f"the run folder of {source}", run, run))
    for name, path in [*outputs.items(), *folders.items()]:
        if path is None or _special(path):
            continue
        real = os.path.realpath(path)
        for source, source_path, folder in input_folders:
            if _inside(real, folder):
                raise CliError(f"{name} {path} lies inside {source} ({source_path}): writing there could destroy "
                               "it; choose a path outside it")
        run = _run_folder_above(real)
        if run is not None:
            raise CliError(f"{name} {path} lies inside the run folder {run}: writing there could destroy the run "
                           "(its config, checkpoints and replay buffer); choose a path outside it")
    for path in outputs.values():
        if path is not None:
            check_writable(path)
    for path in folders.values():
        if path is not None and not _special(path):
            check_folder_writable(path)


def describe(config: GameConfig, komi_known: bool = True) -> str:
    """One line naming the options (R9); ``komi_known`` False when a match will choose it (R7)."""
    komi = f", komi {config.komi}" if komi_known else ""
    return f"side {config.side}, game type {config.game_type}, {config.scoring} scoring{komi}"


def plural(count: int, word: str) -> str:
    return f"{count} {word}" + ("" if count == 1 else "s")


def _pasteable(path: str) -> str:
    """``path`` as a person can type it here: relative when it lies under the working folder.
    Symbolic links are kept, never resolved: a virtual environment's ``python`` is a link to the
    base interpreter, which, run by its own path, has none of the environment's packages."""
    absolute = os.path.abspath(path)
    for here in dict.fromkeys((os.path.abspath(os.getcwd()), os.path.realpath(os.getcwd()))):
        if absolute.startswith(here + os.sep):
            return os.path.relpath(absolute, here)
    return absolute


def _on_path_as(name: str, path: str) -> bool:
    """Whether typing ``name`` runs ``path`` (the shell's PATH leads to that very file)."""
    import shutil

    found = shutil.which(name)
    return found is not None and os.path.realpath(found) == os.path.realpath(path)


def program_words() -> list[str]:
    """How to run this catena-zero again from this folder, for the commands a hint prints (a
    fresh clone's ``make train`` runs ``.venv/bin/catena-zero``, which is on no PATH):
    ``catena-zero`` when that is what the shell finds, else the path of the program running, else
    this Python with ``-m catena_zero.cli``."""
    script = sys.argv[0] if sys.argv else ""
    if os.path.basename(script) == "catena-zero" and os.path.isfile(script):
        return ["catena-zero"] if _on_path_as("catena-zero", script) else [_pasteable(script)]
    return [_pasteable(sys.executable), "-m", "catena_zero.cli"]


def tensorboard_words() -> list[str]:
    """How to start TensorBoard: ``tensorboard`` when the shell finds the one installed beside
    this Python (the virtual environment's), else that program's path, else ``python -m``."""
    beside = os.path.join(os.path.dirname(sys.executable), "tensorboard")
    if os.path.isfile(beside):
        return ["tensorboard"] if _on_path_as("tensorboard", beside) else [_pasteable(beside)]
    return [_pasteable(sys.executable), "-m", "tensorboard.main"]
