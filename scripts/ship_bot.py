"""Thin entry point: ``python scripts/ship_bot.py ...`` = ``catena-zero ship ...``."""

import sys

from catena_zero.cli import main

if __name__ == "__main__":
    sys.exit(main(["ship", *sys.argv[1:]]))
