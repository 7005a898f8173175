"""Configuration: one frozen dataclass per component, composed into ``Config``, loaded from YAML.

Every field has a documented default; unknown keys and bad values raise ``ConfigError``
with a one-line message naming the offending key. Loading has no side effects.
"""

from __future__ import annotations

import dataclasses
import difflib
import math
import types
import typing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional

from .game.options import GAME_TYPES, MAX_SIDE, MIN_SIDE, SCORINGS, GameConfig
from .messages import quote


class ConfigError(ValueError):
    """A configuration file or value is invalid (the message names the key)."""


def _check(cond: bool, message: str) -> None:
    if not cond:
        raise ConfigError(message)


@dataclass(frozen=True)
class NetConfig:
    """Residual tower over hex planes with KataGo-style global pooling (net/model.py)."""

    blocks: int = 6  # residual blocks; AlphaZero used 20-40, small towers suit CPU training
    channels: int = 64  # trunk width; AlphaZero 256
    global_pool_every: int = 3  # every k-th block has a global pooling branch (KataGo 2019, sec. 3)
    head_channels: int = 32  # channels of the policy / value head convolutions
    value_hidden: int = 128  # hidden units of the value, score and global heads
    symmetry_average: bool = False  # average inference over the 12 board symmetries
    device: str = "auto"  # "auto" = CUDA when available, else CPU; or "cpu", "cuda", "cuda:1"
    mixed_precision: bool = True  # bfloat16 (float16 where unsupported) autocast on CUDA
    # CPU inference precision: "float32", "bfloat16" autocast, or "auto" = bfloat16 on CPUs with
    # AVX512_BF16 or AMX (native bfloat16 convolutions), float32 elsewhere. bfloat16 costs a little
    # accuracy and pays only on such CPUs (scripts/bench_net.py measures both on the machine; its
    # docstring has the figures).
    cpu_precision: str = "float32"
    channels_last: bool = True  # NHWC activations: faster CPU inference than NCHW (scripts/bench_net.py)
    # torch.compile the inference forward: a small gain for a long compile per input shape, so off
    # by default (scripts/bench_net.py)
    compile: bool = False
    # Mixed-side batches in NetEvaluator.evaluate_many: "pad" = ONE forward padded to the largest grid
    # (self-play with rule randomisation keeps one network call per simulation); "by_side" = one
    # forward per board side, unpadded: faster on the CPU with many games per side (scripts/bench_net.py).
    mixed_sides: str = "pad"

    def __post_init__(self) -> None:
        _check(self.blocks >= 1, f"net.blocks must be >= 1, got {self.blocks}")
        _check(self.channels >= 8, f"net.channels must be >= 8, got {self.channels}")
        _check(self.global_pool_every >= 0, f"net.global_pool_every must be >= 0, got {self.global_pool_every}")
        _check(self.head_channels >= 1, f"net.head_channels must be >= 1, got {self.head_channels}")
        _check(self.value_hidden >= 1, f"net.value_hidden must be >= 1, got {self.value_hidden}")
        _check(
            self.device == "auto" or self.device == "cpu" or self.device.startswith("cuda"),
            f"net.device must be 'auto', 'cpu' or 'cuda[:i]', got {self.device!r}",
        )
        _check(
            self.cpu_precision in ("float32", "bfloat16", "auto"),
            f"net.cpu_precision must be 'float32', 'bfloat16' or 'auto', got {self.cpu_precision!r}",
        )
        _check(
            self.mixed_sides in ("pad", "by_side"),
            f"net.mixed_sides must be 'pad' or 'by_side', got {self.mixed_sides!r}",
        )


@dataclass(frozen=True)
class SearchConfig:
    """Batched MCTS (search/). Defaults follow AlphaZero (PUCT) and mctx (Gumbel)."""

    algorithm: str = "gumbel"  # "gumbel" (Danihelka et al. 2022) or "puct" (AlphaZero)
    num_simulations: int = 32  # Gumbel improves the policy with as few as 8-32 simulations
    # PUCT (AlphaZero pseudocode): c(s) = log((1 + N + c_base) / c_base) + c_init
    c_puct_init: float = 1.25
    c_puct_base: float = 19652.0
    dirichlet_alpha: Optional[float] = None  # None = 10 / number of legal moves (DESIGN.md sec. 3)
    dirichlet_fraction: float = 0.25  # root noise mixing in self-play (AlphaZero)
    temperature: float = 1.0  # move sampling temperature for the first temperature_moves moves
    temperature_moves: int = 8  # afterwards the most visited action is played
    # Gumbel: considered root actions (mctx max_num_considered_actions = 16), and
    # sigma(q) = (c_visit + max N) * c_scale * q_hat (paper eq. 8; mctx maxvisit_init = 50 and
    # value_scale = 0.1: with q_hat min-max rescaled to [0, 1], the paper's c_scale = 1 lets q
    # swamp the prior logits after a handful of visits, so we take mctx's 0.1)
    gumbel_num_considered: int = 16
    gumbel_c_visit: float = 50.0
    gumbel_c_scale: float = 0.1
    # Keep the chosen child's subtree for the next move: a few kept root visits per move, for time
    # that counts only where the search itself dominates (scripts/bench_search.py --tree-reuse has
    # the figures): on by default (CPU self-play, bots, where the network takes nearly all the
    # time); turn it off where the search dominates (cheap evaluators, fast GPU).
    tree_reuse: bool = True
    # Score utility (KataGo, Wu 2019 sec. 4.1): search maximises value + w * (2/pi) *
    # arctan(score / (scale * unit)), unit = sqrt(cells) (quadratic scoring: cells), see
    # search/utility.py. KataGo's staticScoreUtilityFactor 0.1 and static scale 2.0; 0 = win/loss only.
    score_utility_weight: float = 0.1
    score_utility_scale: float = 2.0

    def __post_init__(self) -> None:
        _check(self.algorithm in ("gumbel", "puct"), f"search.algorithm must be 'gumbel' or 'puct', got {self.algorithm!r}")
        _check(self.num_simulations >= 1, f"search.num_simulations must be >= 1, got {self.num_simulations}")
        _check(self.c_puct_init > 0, f"search.c_puct_init must be > 0, got {self.c_puct_init}")
        _check(self.c_puct_base > 0, f"search.c_puct_base must be > 0, got {self.c_puct_base}")
        _check(
            self.dirichlet_alpha is None or self.dirichlet_alpha > 0,
            f"search.dirichlet_alpha must be > 0 or null, got {self.dirichlet_alpha}",
        )
        _check(0 <= self.dirichlet_fraction <= 1, f"search.dirichlet_fraction must be in [0, 1], got {self.dirichlet_fraction}")
        _check(self.temperature >= 0, f"search.temperature must be >= 0, got {self.temperature}")
        _check(self.temperature_moves >= 0, f"search.temperature_moves must be >= 0, got {self.temperature_moves}")
        _check(self.gumbel_num_considered >= 1, f"search.gumbel_num_considered must be >= 1, got {self.gumbel_num_considered}")
        _check(self.gumbel_c_visit > 0, f"search.gumbel_c_visit must be > 0, got {self.gumbel_c_visit}")
        _check(self.gumbel_c_scale > 0, f"search.gumbel_c_scale must be > 0, got {self.gumbel_c_scale}")
        _check(self.score_utility_weight >= 0, f"search.score_utility_weight must be >= 0, got {self.score_utility_weight}")
        _check(self.score_utility_scale > 0, f"search.score_utility_scale must be > 0, got {self.score_utility_scale}")



@dataclass(frozen=True)
class SelfPlayConfig:
    """Self-play games (selfplay/play.py): batch, playout caps, komi and rule randomisation, resignation."""

    games_per_actor: int = 128  # G games each actor keeps in flight (auto-reset slots); 64-512 suit a CPU
    # Playout cap randomisation (KataGo 2019, sec. 3.1): with probability p a move gets the full
    # search (search.num_simulations) and records a policy target; otherwise a cheap search whose
    # position trains only value-type targets. KataGo: p = 0.25, 600 vs 100 playouts.
    full_search_prob: float = 0.25
    cheap_simulations: int = 8
    # Root noise (Gumbel noise, or PUCT's Dirichlet noise and temperature) in the cheap searches.
    # KataGo 2019 sec. 3.1 turns it off there: cheap moves then play the network's best guess, so the
    # value-type targets of most positions come from the real player, not an exploring one.
    cheap_search_noise: bool = False
    # no_komi (R7): the first player places Black's first stone, and the second then takes the better
    # colour, so a good first stone is a balanced one. Self-play plays the set-up: the first stone is
    # drawn with probability proportional to exp(-|v| / opening_temperature), v the network's value of
    # the position after it (one batched call over all first stones), and that distribution is the
    # policy target of the empty board. No paper value: 0.05 keeps the stones within ~0.1 of even.
    opening_temperature: float = 0.05
    # Komi per game (KataGo 2019, sec. 3.4 randomises komi): with probability komi_spread_prob
    # uniform over the scoring's range (R6), else normal around the current fair-komi estimate.
    komi_spread_prob: float = 0.2
    komi_std: float = 2.0  # in komi points (quadratic scoring: scaled by its range / 15)
    # Rule randomisation (KataGo trains one net for many rule sets): each game draws its side,
    # scoring and game type from these lists; empty = the game section's value.
    sides: tuple[int, ...] = ()
    scorings: tuple[str, ...] = ()
    game_types: tuple[str, ...] = ()
    # Soft resignation (KataGo 2019, sec. 5): once the mover's root value stays below
    # -resign_threshold for resign_consecutive moves, the game goes on with cheap searches and its
    # later positions get weight resign_weight; resign_disabled_share of games never resign, and
    # among them a "would have resigned" game won by the resigning side is a false resignation.
    resign_threshold: float = 0.9
    resign_consecutive: int = 3
    resign_weight: float = 0.1
    resign_disabled_share: float = 0.1  # AlphaGo Zero played 10% of games without resignation

    def __post_init__(self) -> None:
        _check(self.games_per_actor >= 1, f"selfplay.games_per_actor must be >= 1, got {self.games_per_actor}")
        _check(0 < self.full_search_prob <= 1, f"selfplay.full_search_prob must be in (0, 1], got {self.full_search_prob}")
        _check(self.cheap_simulations >= 1, f"selfplay.cheap_simulations must be >= 1, got {self.cheap_simulations}")
        _check(self.opening_temperature > 0, f"selfplay.opening_temperature must be > 0, got {self.opening_temperature}")
        _check(0 <= self.komi_spread_prob <= 1, f"selfplay.komi_spread_prob must be in [0, 1], got {self.komi_spread_prob}")
        _check(self.komi_std >= 0, f"selfplay.komi_std must be >= 0, got {self.komi_std}")
        for side in self.sides:
            _check(isinstance(side, int) and MIN_SIDE <= side <= MAX_SIDE,
                   f"selfplay.sides entries must be in {MIN_SIDE}..{MAX_SIDE}, got {side!r}")
        for scoring in self.scorings:
            _check(scoring in SCORINGS, f"selfplay.scorings entries must be one of {', '.join(SCORINGS)}; got {scoring!r}")
        for game_type in self.game_types:
            _check(game_type in GAME_TYPES, f"selfplay.game_types entries must be one of {', '.join(GAME_TYPES)}; got {game_type!r}")
        _check(0 < self.resign_threshold <= 1, f"selfplay.resign_threshold must be in (0, 1], got {self.resign_threshold}")
        _check(self.resign_consecutive >= 1, f"selfplay.resign_consecutive must be >= 1, got {self.resign_consecutive}")
        _check(0 <= self.resign_weight <= 1, f"selfplay.resign_weight must be in [0, 1], got {self.resign_weight}")
        _check(0 <= self.resign_disabled_share <= 1,
               f"selfplay.resign_disabled_share must be in [0, 1], got {self.resign_disabled_share}")


@dataclass(frozen=True)
class EvalConfig:
    """In-loop evaluation (train/driver.py): small matches that draw the learning curve."""

    interval_steps: int = 200  # learner steps between evaluations (0: only at the end)
    games: int = 20  # games per opponent, colours alternating
    simulations: int = 32  # the network's search, without noise
    uct_simulations: int = 200  # K of the classic UCT baseline mcts:K
    opponents: tuple[str, ...] = ("random", "uct", "previous")  # "previous": the last kept checkpoint
    # Most of the run's CPU time (wall time x CPUs) the in-loop matches may take: an evaluation that
    # would go over it is skipped (and counted). Self-play and the learner share 2 cores on a small
    # machine; the learning curve should not cost them more than this.
    max_cpu_share: float = 0.1

    def __post_init__(self) -> None:
        _check(self.interval_steps >= 0, f"eval.interval_steps must be >= 0, got {self.interval_steps}")
        _check(self.games >= 0, f"eval.games must be >= 0, got {self.games}")
        _check(self.simulations >= 1, f"eval.simulations must be >= 1, got {self.simulations}")
        _check(self.uct_simulations >= 1, f"eval.uct_simulations must be >= 1, got {self.uct_simulations}")
        _check(0 < self.max_cpu_share <= 1, f"eval.max_cpu_share must be in (0, 1], got {self.max_cpu_share}")
        for name in self.opponents:
            _check(name in ("random", "uct", "previous"),
                   f"eval.opponents entries must be random, uct or previous; got {name!r}")


@dataclass(frozen=True)
class RunConfig:
    """One training run (train/driver.py): where it lives, when it stops, how it is spread over Ray."""

    name: str = ""  # run folder checkpoints/<name>; "" = the config file's name
    root: str = "checkpoints"  # parent folder of run folders
    # Bounds: the run stops at the first one reached (null = no bound); they may change on --resume.
    max_steps: Optional[int] = None
    max_positions: Optional[int] = None
    max_minutes: Optional[float] = None
    checkpoint_interval: int = 100  # learner steps between checkpoints (and one at the end)
    keep_last: int = 3  # newest checkpoints kept
    keep_every: int = 500  # every k-th step is kept for good (what the ladder plays); 0 = none
    address: Optional[str] = None  # Ray cluster address ("auto", "HOST:PORT"); null = local embedded Ray
    num_cpus: Optional[int] = None  # CPUs of the local Ray instance; null = all of this machine
    num_actors: int = 1  # self-play actors
    cpus_per_actor: float = 1.0
    gpus_per_actor: float = 0.0
    publish_interval_steps: int = 10  # learner steps between weight versions sent to the actors
    log_interval_seconds: float = 20.0  # plain progress lines when the output is not a terminal
    sample_game_interval_steps: int = 200  # a rendered self-play board in TensorBoard every k steps

    def __post_init__(self) -> None:
        _check("/" not in self.name and self.name not in (".", ".."), f"run.name must be a plain folder name, got {self.name!r}")
        for key in ("max_steps", "max_positions"):
            value = getattr(self, key)
            _check(value is None or value >= 1, f"run.{key} must be >= 1 or null, got {value}")
        _check(self.max_minutes is None or self.max_minutes > 0, f"run.max_minutes must be > 0 or null, got {self.max_minutes}")
        _check(self.checkpoint_interval >= 1, f"run.checkpoint_interval must be >= 1, got {self.checkpoint_interval}")
        _check(self.keep_last >= 1, f"run.keep_last must be >= 1, got {self.keep_last}")
        _check(self.keep_every >= 0, f"run.keep_every must be >= 0, got {self.keep_every}")
        _check(self.num_cpus is None or self.num_cpus >= 1, f"run.num_cpus must be >= 1 or null, got {self.num_cpus}")
        _check(self.num_actors >= 1, f"run.num_actors must be >= 1, got {self.num_actors}")
        _check(self.cpus_per_actor > 0, f"run.cpus_per_actor must be > 0, got {self.cpus_per_actor}")
        _check(self.gpus_per_actor >= 0, f"run.gpus_per_actor must be >= 0, got {self.gpus_per_actor}")
        _check(self.publish_interval_steps >= 1, f"run.publish_interval_steps must be >= 1, got {self.publish_interval_steps}")
        _check(self.log_interval_seconds > 0, f"run.log_interval_seconds must be > 0, got {self.log_interval_seconds}")
        _check(self.sample_game_interval_steps >= 0,
               f"run.sample_game_interval_steps must be >= 0, got {self.sample_game_interval_steps}")


# Keys that may change when a run is resumed (its bounds); everything else must match.
RESUMABLE_KEYS = ("run.max_steps", "run.max_positions", "run.max_minutes")

@dataclass(frozen=True)
class ReplayConfig:
    """Replay buffer (train/replay.py): a ring of compact positions, a growing window, a replay ratio.

    The window follows KataGo's power law (Wu 2019, appendix; python/shuffle.py): with N positions
    generated, training samples the newest ``c * (1 + beta * ((N / c)**alpha - 1) / alpha)`` of them
    (all N while N <= c), so early, bad data leaves the window quickly while the window keeps growing.
    """

    capacity: int = 1_000_000  # positions held (ring); AlphaZero kept the newest 1M games (pseudocode)
    window_min: int = 50_000  # c: the window is all data up to c positions; KataGo c = 250,000 (19x19 Go)
    window_alpha: float = 0.75  # alpha: the window grows as N**alpha; KataGo 0.75
    window_beta: float = 0.4  # beta: window growth per new position at N = c; KataGo 0.4
    min_positions: int = 5_000  # no training until the buffer holds this many; KataGo waits for c rows
    # Samples the learner may train per position added (KataGo train.py -max-train-bucket-per-new-data 4;
    # AlphaZero trained each position about once). The allowance is a bucket: each new position adds
    # train_ratio samples, each trained sample takes one out.
    train_ratio: float = 4.0
    # Most samples the bucket can hold: a learner that fell behind does not burst to catch up
    # (KataGo -max-train-bucket-size; its synchronous loop uses 500,000).
    max_credit: int = 100_000
    symmetries: bool = True  # each sample gets one of the 12 board symmetries at random (AlphaGo Zero: Go's 8; AlphaZero none)

    def __post_init__(self) -> None:
        _check(self.capacity >= 1, f"replay.capacity must be >= 1, got {self.capacity}")
        _check(self.window_min >= 1, f"replay.window_min must be >= 1, got {self.window_min}")
        _check(0 < self.window_alpha <= 1, f"replay.window_alpha must be in (0, 1], got {self.window_alpha}")
        _check(self.window_beta >= 0, f"replay.window_beta must be >= 0, got {self.window_beta}")
        _check(self.min_positions >= 1, f"replay.min_positions must be >= 1, got {self.min_positions}")
        _check(self.train_ratio > 0, f"replay.train_ratio must be > 0, got {self.train_ratio}")
        _check(self.max_credit >= 1, f"replay.max_credit must be >= 1, got {self.max_credit}")


@dataclass(frozen=True)
class TrainConfig:
    """Learner (train/learner.py, train/losses.py): optimiser, learning-rate schedule, loss weights."""

    batch_size: int = 256  # samples per step; KataGo 256, AlphaZero 4096
    optimizer: str = "sgd"  # "sgd" (momentum, AlphaZero and KataGo) or "adamw" (set learning_rate ~1e-3)
    learning_rate: float = 0.02  # peak rate; KataGo 6e-5 per sample (0.015 at batch 256), AlphaZero 0.2 at 4096
    momentum: float = 0.9  # SGD momentum (AlphaZero, KataGo); AdamW beta1
    # L2 on conv and linear weights (not biases or batch-norm), applied by the optimiser: coupled for
    # SGD, i.e. the gradient of (weight_decay / 2) * |w|^2; decoupled for AdamW (each step shrinks the
    # weights by lr * weight_decay, so AdamW wants ~1e-2..1e-1: at lr 2e-3, 6e-5 shrinks them by 1e-7 a
    # step, nothing). KataGo's c * |w|^2 with c = 3e-5 is weight_decay 6e-5 for SGD; AlphaGo Zero's
    # c = 1e-4 is 2e-4.
    weight_decay: float = 6e-5
    lr_schedule: str = "constant"  # "constant", "cosine" or "step", after the warmup
    warmup_steps: int = 100  # linear warmup from 0; KataGo 2019 instead trains its first 5M samples at 1/3 of the rate
    lr_decay_steps: int = 100_000  # cosine: steps after warmup to reach the floor; step: steps per drop
    lr_decay_factor: float = 0.1  # cosine: floor as a fraction of the peak; step: factor per drop (AlphaZero 0.1)
    max_grad_norm: float = 5.0  # clip the global gradient norm to this (0 = off); neither paper clips
    # Loss weights (KataGo 2019 sec. 3-4: policy 1, game outcome c_g = 1.5, ownership c_o = 1.5 / b^2
    # summed over the b^2 cells, i.e. 1.5 on the per-cell mean).
    policy_weight: float = 1.0  # cross-entropy to the search policy, full-search positions only
    value_weight: float = 1.5  # win/draw/loss cross-entropy; KataGo c_g = 1.5 (AlphaZero: MSE, weight 1)
    # Huber on margin / score_scale; KataGo 2019 learns a score distribution instead (pdf and cdf
    # terms, 0.02 each), so there is no paper value for this scalar form.
    score_weight: float = 0.5
    score_huber_delta: float = 1.0  # Huber's delta in score_scale units (15 points on standard scoring)
    ownership_weight: float = 1.5  # per-cell cross-entropy on (1 + ownership) / 2, mean over cells; KataGo 1.5
    # Weight of the value, score and ownership targets of cheap-search positions (no policy target;
    # playout cap randomisation). KataGo 2019 sec. 3.1 records only full-search turns (weight 0); 1
    # trains every position's outcome equally.
    cheap_value_weight: float = 1.0
    # Exponential moving average of the weights (an averaged copy, as KataGo exports stochastic weight
    # averages): after each step avg <- d * avg + (1 - d) * w, with d = min(ema_decay, (1 + t) / (10 + t))
    # at step t so the early average is not dominated by the random start. The average is what
    # self-play, checkpoints' "model", evaluation and export use; 0 = off (the raw weights everywhere).
    ema_decay: float = 0.0
    device: str = "auto"  # learner device: "auto" = CUDA when available, else CPU; or "cpu", "cuda[:i]"
    mixed_precision: bool = True  # bfloat16 autocast of the forward pass on CUDA only; losses in float32

    def __post_init__(self) -> None:
        _check(self.batch_size >= 1, f"train.batch_size must be >= 1, got {self.batch_size}")
        _check(self.optimizer in ("sgd", "adamw"), f"train.optimizer must be 'sgd' or 'adamw', got {self.optimizer!r}")
        _check(self.learning_rate > 0, f"train.learning_rate must be > 0, got {self.learning_rate}")
        _check(0 <= self.momentum < 1, f"train.momentum must be in [0, 1), got {self.momentum}")
        _check(self.weight_decay >= 0, f"train.weight_decay must be >= 0, got {self.weight_decay}")
        _check(
            self.lr_schedule in ("constant", "cosine", "step"),
            f"train.lr_schedule must be 'constant', 'cosine' or 'step', got {self.lr_schedule!r}",
        )
        _check(self.warmup_steps >= 0, f"train.warmup_steps must be >= 0, got {self.warmup_steps}")
        _check(self.lr_decay_steps >= 1, f"train.lr_decay_steps must be >= 1, got {self.lr_decay_steps}")
        _check(0 < self.lr_decay_factor <= 1, f"train.lr_decay_factor must be in (0, 1], got {self.lr_decay_factor}")
        _check(self.max_grad_norm >= 0, f"train.max_grad_norm must be >= 0, got {self.max_grad_norm}")
        for name in ("policy_weight", "value_weight", "score_weight", "ownership_weight"):
            _check(getattr(self, name) >= 0, f"train.{name} must be >= 0, got {getattr(self, name)}")
        _check(0 <= self.cheap_value_weight <= 1, f"train.cheap_value_weight must be in [0, 1], got {self.cheap_value_weight}")
        _check(0 <= self.ema_decay < 1, f"train.ema_decay must be in [0, 1), got {self.ema_decay}")
        _check(self.score_huber_delta > 0, f"train.score_huber_delta must be > 0, got {self.score_huber_delta}")
        _check(
            self.device == "auto" or self.device == "cpu" or self.device.startswith("cuda"),
            f"train.device must be 'auto', 'cpu' or 'cuda[:i]', got {self.device!r}",
        )


@dataclass(frozen=True)
class Config:
    """Root configuration, one section per component."""

    game: GameConfig = field(default_factory=GameConfig)
    net: NetConfig = field(default_factory=NetConfig)
    search: SearchConfig = field(default_factory=SearchConfig)
    selfplay: SelfPlayConfig = field(default_factory=SelfPlayConfig)
    replay: ReplayConfig = field(default_factory=ReplayConfig)
    train: TrainConfig = field(default_factory=TrainConfig)
    eval: EvalConfig = field(default_factory=EvalConfig)
    run: RunConfig = field(default_factory=RunConfig)
    seed: int = 0  # root of every np.random.Generator / torch.Generator of a run

    def __post_init__(self) -> None:
        _check(self.seed >= 0, f"seed must be a whole number >= 0, got {self.seed}")


_MAX_STRING = 4096  # characters of a string value (PATH_MAX); no valid one is longer

# The documented range (inclusive) of every numeric field, checked in one place for every section
# (``_check_ranges``, on each section built from a config file, a checkpoint or a bot header). The
# sections' own checks say what is meaningful (> 0, a probability); these bounds also refuse the
# absurd (a 200,000-channel network, 10**12 simulations) before anything is built or allocated.
# Every float must be finite besides (``_coerce``). A new numeric field gets its line here
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
    "selfplay.opening_temperature": (0, 100),
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
    "run.checkpoint_interval": (1, 10**12),
    "run.keep_last": (1, 10**6),
    "run.keep_every": (0, 10**12),
    "run.num_cpus": (1, 1_000_000),
    "run.num_actors": (1, 100_000),
    "run.cpus_per_actor": (0, 1024),
    "run.gpus_per_actor": (0, 64),
    "run.publish_interval_steps": (1, 10**12),
    "run.log_interval_seconds": (0, 1e9),
    "run.sample_game_interval_steps": (0, 10**12),
}


def _check_ranges(section: Any, prefix: str) -> None:
    """Every numeric field of ``section`` within its ``NUMERIC_RANGES`` entry (None passes)."""
    for f in dataclasses.fields(section):
        value = getattr(section, f.name)
        bounds = NUMERIC_RANGES.get(f"{prefix}{f.name}")
        if bounds is None or isinstance(value, bool) or not isinstance(value, (int, float)):
            continue
        lo, hi = bounds
        _check(lo <= value <= hi, f"{prefix}{f.name} must be in {lo:g}..{hi:g}, got {quote(value)}")


def _shown(value: Any) -> str:
    """A YAML value as an error message shows it: YAML's words for null, lists and mappings;
    at most a few dozen characters of a scalar (``messages.quote``)."""
    if value is None:
        return "nothing (null)"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (list, tuple)):
        return "a list"
    if isinstance(value, dict):
        return "a mapping"
    return quote(value)


def _coerce(value: Any, annotation: Any, key: str) -> Any:
    """Check a YAML scalar against a field's type (ints for int fields, etc.)."""
    if isinstance(annotation, str):
        annotation = eval(annotation, {"Optional": Optional}, {})  # from __future__ annotations
    origin = typing.get_origin(annotation)
    if origin in (typing.Union, types.UnionType):
        args = typing.get_args(annotation)
        if value is None and type(None) in args:
            return None
        annotation = next(a for a in args if a is not type(None))
    if annotation is bool:
        _check(isinstance(value, bool), f"{key} must be true or false, got {_shown(value)}")
    elif annotation is int:
        _check(isinstance(value, int) and not isinstance(value, bool), f"{key} must be an integer, got {_shown(value)}")
    elif annotation is float:
        _check(isinstance(value, (int, float)) and not isinstance(value, bool), f"{key} must be a number, got {_shown(value)}")
        try:
            value = float(value)
        except OverflowError:  # an integer beyond any float
            raise ConfigError(f"{key} must be a finite number, got {_shown(value)}") from None
        _check(math.isfinite(value), f"{key} must be a finite number, got {_shown(value)}")
    elif annotation is str:
        _check(isinstance(value, str), f"{key} must be a string, got {_shown(value)}")
        # Sections echo bad values in their messages: keep megabyte strings out of them.
        _check(len(value) <= _MAX_STRING, f"{key} is too long to be valid, got {_shown(value)}")
    elif origin is tuple:  # tuple[X, ...] fields: a YAML list (or one scalar) of X
        item_type = typing.get_args(annotation)[0]
        items = value if isinstance(value, (list, tuple)) else [value]
        value = tuple(_coerce(item, item_type, f"{key}[{i}]") for i, item in enumerate(items))
    return value


def _build(cls: type, data: Any, prefix: str) -> Any:
    if data is None and prefix:
        data = {}  # a section with nothing under it ("game:" with every key commented out): defaults
    _check(isinstance(data, dict),
           f"{prefix.rstrip('.') or 'config'} must be a mapping of keys to values, got {_shown(data)}")
    fields = {f.name: f for f in dataclasses.fields(cls)}
    unknown = sorted(set(data) - set(fields), key=str)
    if unknown:
        name = str(unknown[0])
        close = difflib.get_close_matches(name, list(fields), n=1)
        hint = f"did you mean {prefix}{close[0]}? " if close else ""
        shown = name if len(name) <= 40 else quote(name)
        raise ConfigError(f"unknown key {prefix}{shown} ({hint}known: {', '.join(fields)})")
    kwargs = {}
    hints = typing.get_type_hints(cls)
    for name, value in data.items():
        hint = hints[name]
        if dataclasses.is_dataclass(hint):
            kwargs[name] = _build(hint, value, f"{prefix}{name}.")
        else:
            kwargs[name] = _coerce(value, hint, f"{prefix}{name}")
    try:
        section = cls(**kwargs)
    except ConfigError:
        raise
    except ValueError as exc:  # GameConfig raises plain ValueError
        raise ConfigError(f"{prefix.rstrip('.') or 'config'}: {exc}") from None
    _check_ranges(section, prefix)
    return section


def config_to_dict(config: Any) -> dict:
    """A config (or section) as plain nested dicts, the inverse of ``config_from_dict``."""
    return dataclasses.asdict(config)


def config_from_dict(data: dict) -> Config:
    return _build(Config, data or {}, "")


def load_config(path: str | Path, overrides: dict | None = None) -> Config:
    """Load a YAML config; ``overrides`` is a nested dict merged on top (e.g. from CLI flags)."""
    import yaml

    path = Path(path)
    try:
        text = path.read_bytes().decode("utf-8")
    except OSError as exc:
        raise ConfigError(f"cannot read config {path}: {exc.strerror}") from None
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path}: not a text file (invalid UTF-8 at byte {exc.start}); "
                          "a config is YAML text") from None
    try:
        data = _load_yaml(text) or {}
    except ConfigError as exc:
        raise ConfigError(f"{path}: {exc}") from None
    except RecursionError:  # YAML's composer recurses once per level of nesting
        raise ConfigError(f"{path}: invalid YAML: nested too deeply (a config is a few levels deep)") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}" if mark else ""
        if isinstance(exc, yaml.reader.ReaderError):  # a character YAML does not allow, e.g. NUL
            code = exc.character if isinstance(exc.character, int) else ord(exc.character)
            where = f": character U+{code:04X} at position {exc.position} is not allowed in YAML text"
        raise ConfigError(f"{path}: invalid YAML{where}") from None
    _check(isinstance(data, dict), f"{path}: top level must be a mapping")
    try:
        return config_from_dict(_merge(data, overrides or {}))
    except ConfigError as exc:
        raise ConfigError(f"{exc} (from {path})") from None


def _load_yaml(text: str) -> Any:
    """``yaml.safe_load`` that rejects a key given twice in one mapping ("last one wins" hides typos)."""
    import yaml

    class StrictLoader(yaml.SafeLoader):
        pass

    def construct_mapping(loader: yaml.SafeLoader, node: yaml.MappingNode, deep: bool = False) -> dict:
        seen: set = set()
        for key_node, _ in node.value:
            key = loader.construct_object(key_node, deep=deep)
            if not isinstance(key, (str, int, float, bool)) and key is not None:  # `? [a, b]`
                raise ConfigError(f"a key must be a plain name, got {_shown(key)} at line {key_node.start_mark.line + 1}")
            if key in seen:
                raise ConfigError(f"duplicate key {key!r} at line {key_node.start_mark.line + 1}")
            seen.add(key)
        return yaml.SafeLoader.construct_mapping(loader, node, deep=deep)

    StrictLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, construct_mapping)
    return yaml.load(text, Loader=StrictLoader)


def parse_overrides(items: list[str]) -> dict:
    """``["a.b=value", ...]`` (``--set``) as a nested dict; each value is parsed as a YAML scalar.

    The keys are validated when the result is merged into a config (``config_from_dict``).
    """
    import yaml

    out: dict = {}
    for item in items:
        key, sep, text = item.partition("=")
        key = key.strip()
        _check(bool(sep) and bool(key), f"--set expects KEY=VALUE (e.g. run.max_minutes=5), got {item!r}")
        parts = key.split(".")
        _check(all(parts), f"--set key {key!r} has an empty part")
        try:
            value = yaml.safe_load(text) if text.strip() else None
        except (yaml.YAMLError, RecursionError, TypeError):  # TypeError: a complex key, `{[a]: 1}`
            raise ConfigError(f"--set {key}: cannot parse value {quote(text)}") from None
        _check(not isinstance(value, dict), f"--set {key}: the value must be a scalar or a list, got a mapping")
        node = out
        for part in parts[:-1]:
            node = node.setdefault(part, {})
            _check(isinstance(node, dict), f"--set {key}: {part} is set both as a value and as a section")
        node[parts[-1]] = value
    return out


def config_to_yaml(config: Config) -> str:
    """The config as YAML text that ``load_config`` reads back to an equal config."""
    import yaml

    def plain(value: Any) -> Any:
        if isinstance(value, dict):
            return {k: plain(v) for k, v in value.items()}
        if isinstance(value, (tuple, list)):
            return [plain(v) for v in value]
        return value

    return yaml.safe_dump(plain(config_to_dict(config)), sort_keys=False)


def config_diff(a: Config, b: Config) -> list[str]:
    """Dotted keys whose values differ between two configs (``a.b: old -> new``)."""
    out: list[str] = []

    def walk(x: Any, y: Any, prefix: str) -> None:
        if dataclasses.is_dataclass(x):
            for f in dataclasses.fields(x):
                walk(getattr(x, f.name), getattr(y, f.name), f"{prefix}{f.name}.")
        elif x != y:
            out.append(f"{prefix.rstrip('.')}: {x!r} -> {y!r}")

    walk(a, b, "")
    return out


def _merge(base: dict, extra: dict) -> dict:
    out = dict(base)
    for key, value in extra.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = _merge(out[key], value)
        else:
            out[key] = value
    return out


def section_from_dict(cls: type, data: Any, prefix: str = "") -> Any:
    """Any frozen config dataclass (e.g. an ablation plan) from a plain dict, checked as the
    sections of ``Config`` are: unknown keys, wrong types and bad values are ``ConfigError``s."""
    return _build(cls, data, prefix)
