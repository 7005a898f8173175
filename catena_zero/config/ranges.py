"""The documented range of every numeric config field, and the check that applies it.

Kept apart from the sections (``sections.py``) so that the whole table reads at a glance; it is
applied to every section built from a file, a checkpoint or a bot header (``loading.py``).
"""

from __future__ import annotations

import dataclasses
from typing import Any

from ..game.options import MAX_SIDE, MIN_SIDE
from ..messages import quote
from .sections import _check

# The documented range (inclusive) of every numeric field, checked in one place for every section
# (``check_ranges``, on each section built from a config file, a checkpoint or a bot header). The
# sections' own checks say what is meaningful (> 0, a probability); these bounds also refuse the
# absurd (a 200,000-channel network, 10**12 simulations) before anything is built or allocated.
# Every float must be finite besides (``loading._coerce``). A new numeric field gets its line here
# (test_config_errors checks that every numeric field has one).
NUMERIC_RANGES: dict[str, tuple[float, float]] = {
    "seed": (0, 2**63 - 1),  # torch seeds are 64-bit
    "game.side": (MIN_SIDE, MAX_SIDE),
    "game.komi": (0, 1000),  # R6; the scoring's own range is checked by GameConfig
    "net.blocks": (1, 128),
    "net.channels": (8, 2048),
    "net.global_pool_every": (0, 128),
    "net.head_channels": (1, 2048),
    "net.value_hidden": (1, 8192),
    "search.num_simulations": (1, 1_000_000),
    "search.c_puct_init": (0, 1e6),
    "search.c_puct_base": (0, 1e12),
    "search.dirichlet_alpha": (0, 1e6),
    "search.dirichlet_fraction": (0, 1),
    "search.temperature": (0, 100),
    "search.temperature_moves": (0, 10_000),
    "search.gumbel_num_considered": (1, 1_000),
    "search.gumbel_c_visit": (0, 1e9),
    "search.gumbel_c_scale": (0, 1e6),
    "search.score_utility_weight": (0, 1e3),
    "search.score_utility_scale": (0, 1e6),
    "selfplay.games_per_actor": (1, 100_000),
    "selfplay.full_search_prob": (0, 1),
    "selfplay.cheap_simulations": (1, 1_000_000),
    "selfplay.cheap_record_prob": (0, 1),
    "selfplay.opening_temperature": (0, 100),
    "selfplay.policy_opening_prob": (0, 1),
    "selfplay.policy_opening_moves": (0, 1000),
    "selfplay.policy_opening_temperature": (0, 100),
    "selfplay.komi_spread_prob": (0, 1),
    "selfplay.komi_std": (0, 1000),
    "selfplay.resign_threshold": (0, 1),
    "selfplay.resign_consecutive": (1, 10_000),
    "selfplay.resign_weight": (0, 1),
    "selfplay.resign_disabled_share": (0, 1),
    "replay.capacity": (1, 10**9),  # and the machine's memory (train/replay.py)
    "replay.window_min": (1, 10**12),
    "replay.window_alpha": (0, 1),
    "replay.window_beta": (0, 1e3),
    "replay.min_positions": (1, 10**12),
    "replay.train_ratio": (0, 1e6),
    "replay.max_credit": (1, 10**12),
    "train.batch_size": (1, 1_000_000),
    "train.learning_rate": (0, 100),
    "train.momentum": (0, 1),
    "train.weight_decay": (0, 10),
    "train.warmup_steps": (0, 10**12),
    "train.lr_decay_steps": (1, 10**12),
    "train.lr_decay_factor": (0, 1),
    "train.anneal_share": (0, 1),
    "train.max_grad_norm": (0, 1e9),
    "train.policy_weight": (0, 1e6),
    "train.value_weight": (0, 1e6),
    "train.score_weight": (0, 1e6),
    "train.score_huber_delta": (0, 1e6),
    "train.ownership_weight": (0, 1e6),
    "train.cheap_value_weight": (0, 1),
    "train.ema_decay": (0, 1),
    "eval.interval_steps": (0, 10**12),
    "eval.games": (0, 1_000_000),
    "eval.simulations": (1, 1_000_000),
    "eval.uct_simulations": (1, 1_000_000),
    "eval.max_cpu_share": (0, 1),
    "run.max_steps": (1, 10**15),
    "run.max_positions": (1, 10**15),
    "run.max_minutes": (0, 1e9),
    "run.max_cpu_minutes": (0, 1e9),
    "run.checkpoint_interval": (1, 10**12),
    "run.keep_last": (1, 10**6),
    "run.keep_every": (0, 10**12),
    "run.num_cpus": (1, 1_000_000),
    "run.num_actors": (1, 100_000),
    "run.cpus_per_actor": (0, 1024),
    "run.gpus_per_actor": (0, 64),
    "run.publish_interval_steps": (1, 10**12),
    "run.chunks_in_flight": (1, 16),
    "run.log_interval_seconds": (0, 1e9),
    "run.sample_game_interval_steps": (0, 10**12),
}


def check_ranges(section: Any, prefix: str) -> None:
    """Every numeric field of ``section`` within its ``NUMERIC_RANGES`` entry (None passes)."""
    for f in dataclasses.fields(section):
        value = getattr(section, f.name)
        bounds = NUMERIC_RANGES.get(f"{prefix}{f.name}")
        if bounds is None or isinstance(value, bool) or not isinstance(value, (int, float)):
            continue
        lo, hi = bounds
        _check(lo <= value <= hi, f"{prefix}{f.name} must be in {lo:g}..{hi:g}, got {quote(value)}")
