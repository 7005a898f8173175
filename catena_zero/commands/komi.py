"""``catena-zero komi``: the fair komi by a bot's own value and score heads, with the curve around it."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..game.gametypes import KOMI
from ..game.options import GameConfig
from ..game.scoring import STANDARD
from .bot_options import add_bot_options, load_bot, shipped_bot_path
from .common import CliError, add_rule_flags

HELP = "the fair komi by a bot's own estimate (R7), with its value at each komi around it"


def configure(parser: argparse.ArgumentParser) -> None:
    add_bot_options(parser, required=False)
    add_rule_flags(parser, {"side": "board side (default: the bot's game)",
                            "scoring": "scoring (default: the bot's game)"})
    parser.add_argument("--around", type=int, default=5, metavar="K",
                        help="show the komis within K of the fair one (default 5)")
    parser.add_argument("--all", action="store_true", help="show every komi of the range")
    parser.add_argument("--table", action="store_true",
                        help="one line per rule set the bot was trained for (Markdown): under game type komi "
                             "the fair komi and where Black's value crosses even; under no_komi the first stone "
                             "it places and when it swaps (R7); under double what Black's opening is worth "
                             "(R8); without --bot and rule flags, one table over every shipped bot")


def run(args: argparse.Namespace) -> int:
    from ..bot.bot import komi_table

    if args.around < 0:
        raise CliError(f"--around must be >= 0, got {args.around}")
    if args.table and args.bot is None and args.side is None and args.scoring is None:
        from ..bot.shipped import shipped_bots

        bots = shipped_bots()
        if not bots:
            raise CliError("no bot ships with this installation: pass --bot FILE")
        print(trained_rules_table([(b.name, load_bot(args, str(b.path))) for b in bots]), end="", file=sys.stdout)
        return 0
    path = args.bot
    if path is None:
        path, which = shipped_bot_path(args, GameConfig(side=args.side or 6, scoring=args.scoring or STANDARD.name))
        print(which, file=sys.stderr)
    bot = load_bot(args, path)
    default = bot.game_config
    config = GameConfig(side=args.side if args.side is not None else default.side, game_type=KOMI.name,
                        scoring=args.scoring or default.scoring)
    if args.table:
        print(trained_rules_table([(Path(path).name, bot)]), end="", file=sys.stdout)
        return 0
    curve = bot.komi_curve(config)
    print(komi_table(curve, around=None if args.all else args.around), end="", file=sys.stdout)
    return 0


def trained_rules_table(bots) -> str:
    """Markdown: for each (name, bot) of ``bots`` and each komi rule set it was trained for, the fair
    komi and where Black's value crosses even next to it (``komi_bracket``: the fair komi is always
    inside the bracket printed); a curve that crosses even more than once says so under the table."""
    from ..eval.fairness import komi_bracket
    from ..search.komi import VALUE_RESOLUTION

    lines = ["| bot | side | scoring | fair komi | Black ahead at | Black behind from | Black's value at the fair komi |",
             "| --- | ---: | --- | ---: | ---: | ---: | ---: |"]
    show = lambda k: "-" if k is None else str(k)  # noqa: E731
    notes = []
    for name, bot in bots:
        for rules in sorted(bot.trained_for, key=lambda r: (r.scoring, r.side)):
            if not rules.game_type_rule.has_komi:
                continue
            curve = bot.komi_curve(rules.game())
            bracket = komi_bracket(curve.komis, curve.black_value, curve.komi)
            value, _ = curve.at(curve.komi)
            lines.append(f"| {name} | {rules.side} | {rules.scoring} | {curve.komi} | {show(bracket.ahead)} "
                         f"| {show(bracket.behind)} | {value:+.3f} |")
            if None not in (bracket.ahead, bracket.behind) and bracket.behind - bracket.ahead > 1:
                # Not next to the sign change: values that tie to VALUE_RESOLUTION, the score head's pick.
                side = (bracket.ahead, bracket.behind - 1) if value > 0 else (bracket.ahead + 1, bracket.behind)
                ends = " to ".join(f"{curve.at(k)[0]:+.3f}" for k in side)
                notes.append(f"{name}, side {rules.side} {rules.scoring}: Black's value is {ends} from komi "
                             f"{side[0]} to {side[1]}, within {VALUE_RESOLUTION} of even; the fair komi is the one "
                             f"of them the score head puts nearest even")
            if bracket.crossings > 1:
                notes.append(f"{name}, side {rules.side} {rules.scoring}: Black's value crosses even "
                             f"{bracket.crossings} times over komi {curve.komis[0]}..{curve.komis[-1]}; "
                             f"the bracket is the crossing next to the fair komi")
    setup = setup_table(bots)
    table = "\n".join(lines) + "\n" + "".join(f"\n{note}\n" for note in notes)
    return table + (f"\n{setup}" if setup else "")


def setup_table(bots) -> str:
    """Markdown: for each (name, bot) and each no_komi or double rule set it was trained for, the
    set-up it plays and what it is worth by its heads: under no_komi (R7) the first stone it
    places (the one closest to even), Black's value after it, and after how many of the first
    stones it would swap as second player (Black's value after them above even); under double
    (R8, no choice) what the first player's Black is worth on the empty board. "" when none."""
    from ..bot.agent import better_than_even
    from ..game.rules import Game

    lines = ["| bot | side | game type | scoring | the set-up it plays | Black's value | Black's score | swaps after |",
             "| --- | ---: | --- | --- | --- | ---: | ---: | --- |"]
    for name, bot in bots:
        for rules in sorted(bot.trained_for, key=lambda r: (r.game_type, r.scoring, r.side)):
            config, row = rules.game(), f"| {name} | {rules.side} | {rules.game_type} | {rules.scoring} |"
            if rules.game_type_rule.has_swap:
                stones, value, score = bot.first_stone_values(config)
                first = stones.index(bot.choose_first_stone(config))
                swaps = sum(better_than_even(float(v), float(s)) for v, s in zip(value, score))
                lines.append(f"{row} first stone {stones[first]} | {value[first]:+.3f} | {score[first]:+.2f} "
                             f"| {swaps} of {len(stones)} first stones |")
            elif rules.game_type_rule.fixed_colours:
                value, score = bot.evaluate(Game(config))  # Black, the first player, to move (R8)
                lines.append(f"{row} none: the first player is Black | {value:+.3f} | {score:+.2f} | - |")
    return "\n".join(lines) + "\n" if len(lines) > 2 else ""
