"""Thin entry point: ``python scripts/fair_komi.py ...`` = ``catena-zero komi-check ...``."""

import sys

from catena_zero.cli import main

if __name__ == "__main__":
    sys.exit(main(["komi-check", *sys.argv[1:]]))
