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

# Property-based tests (hypothesis): few examples by default, so the default suite keeps its
# time; HYPOTHESIS_PROFILE=slow runs many more (and the `slow`-marked tests use that profile too).
try:
    import os

    from hypothesis import HealthCheck, settings

    settings.register_profile("default", max_examples=25, deadline=None,
                              suppress_health_check=[HealthCheck.too_slow])
    settings.register_profile("slow", max_examples=1000, deadline=None,
                              suppress_health_check=[HealthCheck.too_slow])
    settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))
except ImportError:  # hypothesis is a dev dependency; the property tests skip without it
    pass
