import sys
from pathlib import Path

# Test-only helpers (naive_rules.py) live next to the tests.
sys.path.insert(0, str(Path(__file__).resolve().parent))

# One torch thread per test process: the suite runs beside other work on 2 cores, where torch's
# default of one thread per core ran small networks several times slower (threads fighting for
# cores), and tests that start Ray actors give each actor its own thread anyway.
try:
    import torch

    torch.set_num_threads(1)
except ImportError:  # the rules tests need no torch
    pass
