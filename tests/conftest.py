import sys
from pathlib import Path

# Test-only helpers (naive_rules.py) live next to the tests.
sys.path.insert(0, str(Path(__file__).resolve().parent))
