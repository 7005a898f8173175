"""Ship a trained bot with the project: export a checkpoint into catena_zero/bots/NAME.bot and
rewrite the folder's index (index.json, README.md) from every shipped bot's header.

Run: .venv/bin/python scripts/ship_bot.py CHECKPOINT_OR_RUN NAME --simulations 400
        --trained "60 min on 2 CPU cores, ..." --strength "92.5% [78, 97] vs mcts:1000 at komi 7, 40 games"
The figures in --trained and --strength are what you measured (docs/RESULTS.md has the commands);
the script writes them as given. --index-only rewrites README.md from index.json and the files.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys

from catena_zero.artifacts.botfile import header_from_checkpoint, write_bot
from catena_zero.bot.shipped import INDEX_FILE, SHIPPED_DIR, shipped_bots
from catena_zero.fileio import write_text_atomic
from catena_zero.game.options import RuleSet


def readme() -> str:
    lines = [
        "# Shipped bots",
        "",
        "Trained networks that come with catena-zero, as bot files (`catena-zero export`). `play`, "
        "`engine` and `serve` use the one for the chosen rules when no `--bot` is given (and say "
        "which); `--bot FILE` takes any other. How each was trained and measured: "
        "[docs/RESULTS.md](../../docs/RESULTS.md).",
        "",
        "| file | trained for | default game | step | network | trained | strength |",
        "| --- | --- | --- | ---: | --- | --- | --- |",
    ]
    for bot in shipped_bots():
        h = bot.header
        rules = ", ".join(str(r) for r in h.trained_for)
        game = f"side {h.game.side} {h.game.game_type} {h.game.scoring}"
        lines.append(f"| `{bot.name}` | {rules} | {game} | {h.step:,} | {h.net.blocks}x{h.net.channels} | "
                     f"{bot.trained or '-'} | {bot.strength or '-'} |")
    return "\n".join(lines) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("checkpoint", nargs="?", help="a checkpoint file or a run folder (its newest checkpoint)")
    parser.add_argument("name", nargs="?", help="the bot's file name in catena_zero/bots/ (without .bot)")
    parser.add_argument("--trained", default="", help="how it was trained (measured), for the index")
    parser.add_argument("--strength", default="", help="its measured strength, for the index")
    parser.add_argument("--simulations", type=int, help="the bot's default simulations a move (default: the "
                        "checkpoint's search config); the strength in the index should be measured at it")
    parser.add_argument("--default-rules", metavar="KEY",
                        help="the bot's default game, a rule-set key such as side6-no_komi-standard (default: the "
                             "run's game); a multi-rule bot whose default game another shipped bot has as its own "
                             "is then the generalist there, and that specialist keeps those rules")
    parser.add_argument("--index-only", action="store_true")
    args = parser.parse_args()
    index_path = SHIPPED_DIR / INDEX_FILE
    index = json.loads(index_path.read_text()) if index_path.exists() else {}
    if not args.index_only:
        if not args.checkpoint or not args.name:
            parser.error("CHECKPOINT and NAME are needed (or --index-only)")
        from catena_zero.artifacts.checkpoint import load_checkpoint, resolve_checkpoint

        path = resolve_checkpoint(args.checkpoint)
        out = SHIPPED_DIR / f"{args.name}.bot"
        checkpoint = load_checkpoint(path)
        header = header_from_checkpoint(checkpoint, simulations=args.simulations)
        if args.default_rules:
            rules = RuleSet.from_key(args.default_rules)
            if rules not in header.trained_for:
                parser.error(f"--default-rules {args.default_rules}: the network was not trained for it")
            header = dataclasses.replace(header, game=rules.game())
        write_bot(out, header, checkpoint.model)
        index[out.name] = {"trained": args.trained, "strength": args.strength, "source": str(path)}
        write_text_atomic(index_path, json.dumps(index, indent=1, sort_keys=True) + "\n")
        print(f"ship_bot: {out} ({out.stat().st_size:,} bytes): {header.describe()}")
    write_text_atomic(SHIPPED_DIR / "README.md", readme())
    print(f"ship_bot: index of {len(shipped_bots())} bot(s) written to {SHIPPED_DIR / 'README.md'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
