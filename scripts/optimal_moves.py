"""Thin entry point: ``python scripts/optimal_moves.py ...`` = ``catena-zero optimal-moves ...``."""

import sys

from catena_zero.cli import main

if __name__ == "__main__":
    sys.exit(main(["optimal-moves", *sys.argv[1:]]))
