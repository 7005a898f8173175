"""Thin entry point: ``python scripts/train.py --config configs/quick.yaml [...]`` = ``catena-zero train ...``."""

import sys

from catena_zero.cli import main

if __name__ == "__main__":
    sys.exit(main(["train", *sys.argv[1:]]))
