"""``catena-zero analyze``: review a game record with a bot (``bot/review.py``): a per-move table of
Black's value and score lead, the bot's move and what the move played lost, and the graph as an image."""

from __future__ import annotations

import argparse
import io

from ..fileio import write_bytes_atomic
from ..game.records import load_record
from .bot_options import add_bot_options, load_bot, shipped_bot_path
from .common import CliError, check_outputs, describe, message_stream, plural

HELP = "review a game record with a bot: value, score lead, best move and loss of every move, and a graph"

WORST = 3  # moves marked as the ones that lost most (on the graph and under the table)


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("record", metavar="RECORD", help="a record file written by play, serve, evaluate or random-game")
    add_bot_options(parser, required=False)
    parser.add_argument("--graph", metavar="FILE.png",
                        help="also write the value and score-lead graph as a PNG picture ('-': standard output)")


def run(args: argparse.Namespace) -> int:
    from ..bot.review import review_game
    from ..eval.progress import progress_bar

    check_outputs({"the record to analyse": args.record}, {"--graph": args.graph})
    if args.graph is not None and args.graph != "-" and not args.graph.lower().endswith(".png"):
        raise CliError(f"--graph writes a PNG picture: give a FILE.png, got {args.graph!r}")
    record = load_record(args.record)
    out = message_stream(args.graph)
    which = None
    if args.bot is None:
        path, which = shipped_bot_path(args, default=record.config, exact=True)  # the record's rules or none
        bot = load_bot(args, str(path))
    else:
        bot = load_bot(args)
    if which is not None:
        print(which, file=out)
    with progress_bar(len(record.events) + 1, "positions") as update:
        review = review_game(bot, record, progress=update)
    for line in table_lines(review):
        print(line, file=out)
    if args.graph is not None:
        written = write_bytes_atomic(args.graph, graph_png(review))
        print(f"graph written to {written}", file=out)
    return 0


def _signed(value: float, digits: int) -> str:
    return f"{value:+.{digits}f}"


def _lost(amount: float, digits: int) -> str:
    """A loss (>= 0, ``MoveReview``'s) as a plain number: no sign, never "-0"."""
    return f"{abs(round(max(0.0, amount), digits)):.{digits}f}"


def table_lines(review) -> list[str]:
    """The review as text: the rules and set-up, one row per move, the moves that lost most."""
    lines = [f"{describe(review.config)}; {plural(len(review.moves), 'move')}, each position searched with "
             f"{review.budget}; values and leads are Black's (win % counts a draw as half)"]
    if review.setup:
        lines.append(f"set-up (not numbered): {', '.join(review.setup)}")
    lines.append(f"{'move':>4}  {'player':<6} {'played':<7} {'black win%':>10} {'lead':>6}  {'best':<7} "
                 f"{'win% lost':>9} {'points lost':>11}")
    for m in review.moves:
        lines.append(f"{m.number:>4}  {m.colour:<6} {m.played:<7} {50 * (m.before.value + 1):>9.0f}% "
                     f"{_signed(m.before.lead, 1):>6}  {m.before.best or '-':<7} {_lost(50 * m.value_loss, 0):>9} "
                     f"{_lost(m.lead_loss, 1):>11}")
    if review.moves:
        last = review.moves[-1].after
        end = "result" if review.over else "position after the last move"
        lines.append(f"{end}: black win% {50 * (last.value + 1):.0f}%, lead {_signed(last.lead, 1)}")
    # Only losses that show when rounded: a move that "lost 0%" is not among those that lost most.
    worst = [m for m in review.worst(WORST) if _lost(50 * m.value_loss, 0) != "0"]
    if worst:
        lines.append("moves that lost most: " + "; ".join(
            f"{m.number}. {m.played} ({m.colour}) lost {_lost(50 * m.value_loss, 0)}% win, {_lost(m.lead_loss, 1)} points"
            f" (best {m.before.best})" for m in worst))
    return lines


def graph_png(review) -> bytes:
    """Black's win % and score lead over the moves, the moves that lost most marked, as PNG bytes."""
    import matplotlib

    matplotlib.use("Agg")  # files only: no display is needed or opened
    from matplotlib.figure import Figure

    numbers = [0] + [m.number for m in review.moves]
    judged = [review.moves[0].before] + [m.after for m in review.moves] if review.moves else []
    win = [50 * (j.value + 1) for j in judged]
    lead = [j.lead for j in judged]
    figure = Figure(figsize=(8, 5), dpi=100)
    top, bottom = figure.subplots(2, 1, sharex=True)
    top.plot(numbers[:len(win)], win, color="black", linewidth=1.5)
    top.axhline(50, color="grey", linewidth=0.8)
    top.set_ylim(0, 100)
    top.set_ylabel("Black win %")
    bottom.plot(numbers[:len(lead)], lead, color="tab:blue", linewidth=1.5)
    bottom.axhline(0, color="grey", linewidth=0.8)
    bottom.set_ylabel("Black's lead (points)")
    bottom.set_xlabel("move (set-up choices not counted)")
    for m in review.worst(WORST):
        for axis, ys in ((top, win), (bottom, lead)):
            axis.plot([m.number], [ys[m.number]], "o", color="tab:red")
        top.annotate(f"{m.number}. {m.played}", (m.number, win[m.number]), textcoords="offset points",
                     xytext=(4, 6), fontsize=8, color="tab:red")
    top.set_title(f"{describe(review.config)}: review at {review.budget} a position", fontsize=10)
    figure.tight_layout()
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png")
    return buffer.getvalue()

