"""The configuration sections: one frozen dataclass per component, composed into ``Config``.

Every field has a documented default and, where its values are limited, one declaration of what
it takes beside it (``fields.py``: ``number(6, ge=1, up_to=128)``, ``one_of(...)``): the section's
``__post_init__`` checks it, naming the key in a one-line ``ConfigError``, and its documented range
(``ranges.py``) is read from it. Checks across fields stay in ``__post_init__``. Building sections
from YAML and dicts (unknown keys, types) is ``loading.py``.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass, field
from typing import Any, ClassVar, Optional

from ..errors import UserError
from ..game.options import GAME_TYPES, MAX_SIDE, MIN_SIDE, SCORINGS, GameConfig, RuleSet
from .fields import entries_in, entries_one_of, folder_name, number, one_of, problems, torch_device


class ConfigError(UserError):
    """A configuration file or value is invalid (the message names the key)."""


def _check(cond: bool, message: str) -> None:
    if not cond:
        raise ConfigError(message)


def _check_declared(section: Any, prefix: str) -> None:
    """``ConfigError`` for the first value of ``section`` that its field's declaration refuses."""
    for message in problems(section, prefix):
        raise ConfigError(message)


# GameConfig belongs to the game layer, below this one, and checks its own rules (R1, R6); the
# config layer adds only the documented range of its numbers, checked when a config is loaded.
GAME_RANGES: dict[str, tuple[float, float]] = {
    "side": (MIN_SIDE, MAX_SIDE),
    "komi": (0, 1000),  # R6; the scoring's own range is checked by GameConfig
}

EVAL_OPPONENTS = ("random", "uct", "previous")  # what eval.opponents may name (eval/inloop.py)


# Control (C0, C1, DEL), format (bidi overrides, zero-width) and line/paragraph separators: no
# name or path a person types holds one; in a folder name or a printed line they hide or reorder
# text (ESC starts a terminal sequence, U+202E reverses what follows), and NUL ends a C path.
_HIDDEN_CATEGORIES = ("Cc", "Cf", "Cs", "Zl", "Zp")


def hidden_character(text: str) -> Optional[str]:
    """``U+XXXX at position N`` for the first control, format or separator character of ``text``
    (the characters that would hide or reorder text on a terminal), None when it has none."""
    for i, ch in enumerate(text):
        if unicodedata.category(ch) in _HIDDEN_CATEGORIES:
            return f"U+{ord(ch):04X} at position {i + 1}"
    return None


@dataclass(frozen=True)
class NetConfig:
    """Residual tower over hex planes with KataGo-style global pooling (net/model.py)."""

    blocks: int = number(6, ge=1, up_to=128)  # residual blocks; AlphaZero used 20-40, small towers suit CPU training
    channels: int = number(64, ge=8, up_to=2048)  # trunk width; AlphaZero 256
    # every k-th block has a global pooling branch (KataGo 2019, sec. 3)
    global_pool_every: int = number(3, ge=0, up_to=128)
    head_channels: int = number(32, ge=1, up_to=2048)  # channels of the policy / value head convolutions
    value_hidden: int = number(128, ge=1, up_to=8192)  # hidden units of the value, score and global heads
    symmetry_average: bool = False  # average inference over the 12 board symmetries
    device: str = torch_device("auto")  # "auto" = CUDA when available, else CPU; or "cpu", "cuda", "cuda:1"
    mixed_precision: bool = True  # bfloat16 (float16 where unsupported) autocast on CUDA
    # CPU inference precision: "float32", "bfloat16" autocast, or "auto" = bfloat16 on CPUs with
    # AVX512_BF16 or AMX (native bfloat16 convolutions), float32 elsewhere. bfloat16 costs a little
    # accuracy and pays only on such CPUs (scripts/bench_net.py measures both on the machine; its
    # docstring has the figures).
    cpu_precision: str = one_of("float32", ("float32", "bfloat16", "auto"))
    channels_last: bool = True  # NHWC activations: faster CPU inference than NCHW (scripts/bench_net.py)
    # torch.compile the inference forward: a small gain for a long compile per input shape, so off
    # by default (scripts/bench_net.py)
    compile: bool = False
    # Mixed-side batches in NetEvaluator.evaluate_many: "pad" = ONE forward padded to the largest grid
    # (self-play with rule randomisation keeps one network call per simulation); "by_side" = one
    # forward per board side, unpadded: faster on the CPU with many games per side (scripts/bench_net.py).
    mixed_sides: str = one_of("pad", ("pad", "by_side"))

    # What the weights fit (stored with them, compared by train.init_from): the tower's shape. The
    # other fields say where and how the network runs; they are never compared, and --resume takes
    # them from the config given (a run started on a GPU continues on a CPU).
    ARCHITECTURE: ClassVar[tuple[str, ...]] = ("blocks", "channels", "global_pool_every", "head_channels",
                                               "value_hidden")

    def architecture(self) -> "NetConfig":
        """This config with every runtime field at its default: equal for two configs exactly when
        the same weights fit both."""
        return NetConfig(**{name: getattr(self, name) for name in self.ARCHITECTURE})

    def __post_init__(self) -> None:
        _check_declared(self, "net.")


@dataclass(frozen=True)
class SearchConfig:
    """Batched MCTS (search/). Defaults follow AlphaZero (PUCT) and mctx (Gumbel)."""

    algorithm: str = one_of("gumbel", ("gumbel", "puct"))  # "gumbel" (Danihelka et al. 2022) or "puct" (AlphaZero)
    # Gumbel improves the policy with as few as 8-32 simulations
    num_simulations: int = number(32, ge=1, up_to=1_000_000)
    # PUCT (AlphaZero pseudocode): c(s) = log((1 + N + c_base) / c_base) + c_init
    c_puct_init: float = number(1.25, gt=0, up_to=1e6)
    c_puct_base: float = number(19652.0, gt=0, up_to=1e12)
    # None = 10 / number of legal moves (DESIGN.md sec. 3)
    dirichlet_alpha: Optional[float] = number(None, gt=0, up_to=1e6)
    dirichlet_fraction: float = number(0.25, ge=0, le=1)  # root noise mixing in self-play (AlphaZero)
    temperature: float = number(1.0, ge=0, up_to=100)  # move sampling temperature for the first temperature_moves moves
    temperature_moves: int = number(8, ge=0, up_to=10_000)  # afterwards the most visited action is played
    # Gumbel: considered root actions (mctx max_num_considered_actions = 16), and
    # sigma(q) = (c_visit + max N) * c_scale * q_hat (paper eq. 8; mctx maxvisit_init = 50 and
    # value_scale = 0.1: with q_hat min-max rescaled to [0, 1], the paper's c_scale = 1 lets q
    # swamp the prior logits after a handful of visits, so we take mctx's 0.1)
    gumbel_num_considered: int = number(16, ge=1, up_to=1_000)
    gumbel_c_visit: float = number(50.0, gt=0, up_to=1e9)
    gumbel_c_scale: float = number(0.1, gt=0, up_to=1e6)
    # Selection below a Gumbel root: "gumbel" (mctx: deterministic, matching the improved policy) or
    # "puct" (AlphaZero's rule, which tries unvisited replies by prior; search/gumbel.py says why).
    # The root stays Gumbel either way, and so do the move and the policy target.
    gumbel_interior: str = one_of("gumbel", ("gumbel", "puct"))
    # Keep the chosen child's subtree for the next move: a few kept root visits per move, for time
    # that counts only where the search itself dominates (scripts/bench_search.py --tree-reuse has
    # the figures): on by default (CPU self-play, bots, where the network takes nearly all the
    # time); turn it off where the search dominates (cheap evaluators, fast GPU).
    tree_reuse: bool = True
    # Score utility (KataGo, Wu 2019 sec. 4.1): search maximises value + w * (2/pi) *
    # arctan(score / (scale * unit)), unit = sqrt(cells) (quadratic scoring: cells), see
    # search/utility.py. KataGo's staticScoreUtilityFactor 0.1 and static scale 2.0; 0 = win/loss only.
    score_utility_weight: float = number(0.1, ge=0, up_to=1e3)
    score_utility_scale: float = number(2.0, gt=0, up_to=1e6)

    def __post_init__(self) -> None:
        _check_declared(self, "search.")



@dataclass(frozen=True)
class SelfPlayConfig:
    """Self-play games (selfplay/play.py): batch, playout caps, komi and rule randomisation, resignation."""

    # G games each actor keeps in flight (auto-reset slots); 64-512 suit a CPU
    games_per_actor: int = number(128, ge=1, up_to=100_000)
    # Playout cap randomisation (KataGo 2019, sec. 3.1): with probability p a move gets the full
    # search (search.num_simulations) and records a policy target; otherwise a cheap search whose
    # position trains only value-type targets. KataGo: p = 0.25, 600 vs 100 playouts.
    full_search_prob: float = number(0.25, gt=0, le=1)
    cheap_simulations: int = number(8, ge=1, up_to=1_000_000)
    # Share of cheap-search positions recorded for training. KataGo records none ("Accelerating
    # Self-Play Learning in Go", sec. 3.1: only full-search turns are training samples): 0 makes the
    # learner spend every sample on policy-bearing rows, and replay.train_ratio then counts only
    # recorded positions. 1 (every position's value targets) keeps what the loop did before.
    cheap_record_prob: float = number(1.0, ge=0, le=1)
    # Root noise (Gumbel noise, or PUCT's Dirichlet noise and temperature) in the cheap searches.
    # KataGo 2019 sec. 3.1 turns it off there: cheap moves then play the network's best guess, so the
    # value-type targets of most positions come from the real player, not an exploring one.
    cheap_search_noise: bool = False
    # no_komi (R7): the first player places Black's first stone, and the second then takes the better
    # colour, so a good first stone is a balanced one. Self-play plays the set-up: the first stone is
    # drawn with probability proportional to exp(-|v| / opening_temperature), v the network's value of
    # the position after it (one batched call over all first stones), and that distribution is the
    # policy target of the empty board. No paper value: 0.05 keeps the stones within ~0.1 of even.
    opening_temperature: float = number(0.05, gt=0, up_to=100)
    # Varied openings (KataGo, Wu 2019, plays the first moves of a share of games from the raw
    # policy): with probability policy_opening_prob a new game first plays a number of moves drawn
    # from an exponential distribution of mean policy_opening_moves (rounded; at most a quarter of
    # the cells), each sampled from the network's raw policy at policy_opening_temperature, none
    # of them searched or recorded. Without it cheap moves carry neither noise nor temperature and
    # 48% of side-4 games shared their first two plies. 0 (off) until the strength test decides it
    # (configs/ablations/loop.yaml, row policy_openings).
    policy_opening_prob: float = number(0.0, ge=0, le=1)
    policy_opening_moves: float = number(2.0, ge=0, up_to=1000)
    policy_opening_temperature: float = number(1.0, gt=0, up_to=100)
    # Whether new weights (every run.publish_interval_steps, about one 4-ply chunk on side 4) drop the
    # kept search trees. Dropping them lost the tree reuse of most moves inside a run, and with it
    # the root evaluation a kept subtree saves (a fifth of a 4-simulation cheap move's network
    # calls): standalone, side 4, 6-11% fewer positions per CPU-second (docs/RESULTS.md). Kept, the
    # subtree's statistics are one chunk old, younger than the weights an actor already plays with
    # (the logged staleness). false keeps them; true is the loop before.
    reset_trees_on_new_weights: bool = False
    # Komi per game (KataGo 2019, sec. 3.4 randomises komi): with probability komi_spread_prob
    # uniform over the scoring's range (R6), else normal around the current fair-komi estimate.
    komi_spread_prob: float = number(0.2, ge=0, le=1)
    komi_std: float = number(2.0, ge=0, up_to=1000)  # in komi points (quadratic scoring: scaled by its range / 15)
    # Rule randomisation (KataGo trains one net for many rule sets): each game draws its side,
    # scoring and game type from these lists; empty = the game section's value.
    sides: tuple[int, ...] = entries_in((), MIN_SIDE, MAX_SIDE)
    scorings: tuple[str, ...] = entries_one_of((), SCORINGS)
    game_types: tuple[str, ...] = entries_one_of((), GAME_TYPES)
    # Soft resignation (KataGo 2019, sec. 5): once the value of the mover's chosen move (not the root
    # mean, which under Gumbel averages in the weaker considered moves) stays below
    # -resign_threshold for resign_consecutive moves, the game goes on with cheap searches and its
    # later positions get weight resign_weight; resign_disabled_share of games never resign, and
    # among them a "would have resigned" game won by the resigning side is a false resignation.
    resign_threshold: float = number(0.9, gt=0, le=1)
    resign_consecutive: int = number(3, ge=1, up_to=10_000)
    resign_weight: float = number(0.1, ge=0, le=1)
    resign_disabled_share: float = number(0.1, ge=0, le=1)  # AlphaGo Zero played 10% of games without resignation

    def __post_init__(self) -> None:
        _check_declared(self, "selfplay.")


@dataclass(frozen=True)
class EvalConfig:
    """In-loop evaluation (train/driver.py): small matches that draw the learning curve."""

    interval_steps: int = number(200, ge=0, up_to=10**12)  # learner steps between evaluations (0: only at the end)
    games: int = number(20, ge=0, up_to=1_000_000)  # games per opponent, colours alternating
    simulations: int = number(32, ge=1, up_to=1_000_000)  # the network's search, without noise
    uct_simulations: int = number(200, ge=1, up_to=1_000_000)  # K of the classic UCT baseline mcts:K
    # "previous": the last kept checkpoint
    opponents: tuple[str, ...] = entries_one_of(EVAL_OPPONENTS, EVAL_OPPONENTS, listed=True)
    # Most of the run's CPU time (wall time x CPUs) the in-loop matches may take: an evaluation that
    # would go over it is skipped (and counted). Self-play and the learner share 2 cores on a small
    # machine; the learning curve should not cost them more than this. 0.03: at 0.1 the matches took
    # 9-10% of every quick run; a finer curve comes afterwards from `ladder` over the kept checkpoints,
    # which costs the run nothing (the final evaluation is always played).
    max_cpu_share: float = number(0.03, gt=0, le=1)

    def __post_init__(self) -> None:
        _check_declared(self, "eval.")


@dataclass(frozen=True)
class RunConfig:
    """One training run (train/driver.py): where it lives, when it stops, how it is spread over Ray."""

    name: str = folder_name("")  # run folder checkpoints/<name>; "" = the config file's name
    root: str = "checkpoints"  # parent folder of run folders
    # Bounds: the run stops at the first one reached (null = no bound); they may change on --resume.
    max_steps: Optional[int] = number(None, ge=1, up_to=10**15)
    max_positions: Optional[int] = number(None, ge=1, up_to=10**15)
    max_minutes: Optional[float] = number(None, gt=0, up_to=1e9)
    # CPU minutes of every process of the run together (the driver, the self-play actors and the
    # in-loop matches, each by its own process clock: train/cputime.py), over all its sessions. The
    # bound that makes variants comparable on a shared or noisy machine (catena-zero ablate): a run
    # slowed by a neighbour gets the same CPU, not the same wall time.
    max_cpu_minutes: Optional[float] = number(None, gt=0, up_to=1e9)
    checkpoint_interval: int = number(100, ge=1, up_to=10**12)  # learner steps between checkpoints (and one at the end)
    keep_last: int = number(3, ge=1, up_to=10**6)  # newest checkpoints kept
    # every k-th step is kept for good (what the ladder plays); 0 = none
    keep_every: int = number(500, ge=0, up_to=10**12)
    address: Optional[str] = None  # Ray cluster address ("auto", "HOST:PORT"); null = local embedded Ray
    # CPUs of the local Ray instance; null = all of this machine
    num_cpus: Optional[int] = number(None, ge=1, up_to=1_000_000)
    num_actors: int = number(1, ge=1, up_to=100_000)  # self-play actors
    cpus_per_actor: float = number(1.0, gt=0, up_to=1024)
    gpus_per_actor: float = number(0.0, ge=0, up_to=64)
    # learner steps between weight versions sent to the actors
    publish_interval_steps: int = number(10, ge=1, up_to=10**12)
    # play() calls queued per actor: with 2 the next chunk waits in the actor's own queue while the
    # driver collects the last one, so an actor never idles on the driver's poll (with 1 it did,
    # 9-13% of a quick run's CPU); new weights then arrive one chunk (4 plies) later.
    chunks_in_flight: int = number(2, ge=1, up_to=16)
    # plain progress lines when the output is not a terminal
    log_interval_seconds: float = number(20.0, gt=0, up_to=1e9)
    # a rendered self-play board in TensorBoard every k steps
    sample_game_interval_steps: int = number(200, ge=0, up_to=10**12)

    def __post_init__(self) -> None:
        _check_declared(self, "run.")
        # Checked here, not only when loading: a --run-name or a config file's name becomes run.name too.
        for key in ("name", "root"):
            hidden = hidden_character(getattr(self, key))
            _check(hidden is None, f"run.{key} must not contain control or formatting characters (it names a "
                                   f"folder), got {hidden}")

    def bounds(self) -> dict[str, float]:
        """The bounds set, by what they count: ``steps``, ``positions``, ``minutes``, ``cpu_minutes``
        (none: {})."""
        return {k: v for k, v in (("steps", self.max_steps), ("positions", self.max_positions),
                                  ("minutes", self.max_minutes), ("cpu_minutes", self.max_cpu_minutes))
                if v is not None}


# Keys that may change when a run is resumed (its bounds); everything else must match.
RESUMABLE_KEYS = ("run.max_steps", "run.max_positions", "run.max_minutes", "run.max_cpu_minutes")

@dataclass(frozen=True)
class ReplayConfig:
    """Replay buffer (train/replay.py): a ring of compact positions, a growing window, a replay ratio.

    The window follows KataGo's power law (Wu 2019, appendix; python/shuffle.py): with N positions
    generated, training samples the newest ``c * (1 + beta * ((N / c)**alpha - 1) / alpha)`` of them
    (all N while N <= c), so early, bad data leaves the window quickly while the window keeps growing.
    """

    # positions held (ring); AlphaZero kept the newest 1M games (pseudocode)
    capacity: int = number(1_000_000, ge=1, up_to=10**9)
    # c: the window is all data up to c positions; KataGo c = 250,000 (19x19 Go)
    window_min: int = number(50_000, ge=1, up_to=10**12)
    window_alpha: float = number(0.75, gt=0, le=1)  # alpha: the window grows as N**alpha; KataGo 0.75
    window_beta: float = number(0.4, ge=0, up_to=1e3)  # beta: window growth per new position at N = c; KataGo 0.4
    # no training until the buffer holds this many; KataGo waits for c rows
    min_positions: int = number(5_000, ge=1, up_to=10**12)
    # Samples the learner may train per position added (KataGo train.py -max-train-bucket-per-new-data 4;
    # AlphaZero trained each position about once). The allowance is a bucket: each new position adds
    # train_ratio samples, each trained sample takes one out.
    train_ratio: float = number(4.0, gt=0, up_to=1e6)
    # Most samples the bucket can hold: a learner that fell behind does not burst to catch up
    # (KataGo -max-train-bucket-size; its synchronous loop uses 500,000).
    max_credit: int = number(100_000, ge=1, up_to=10**12)
    symmetries: bool = True  # each sample gets one of the 12 board symmetries at random (AlphaGo Zero: Go's 8; AlphaZero none)

    def __post_init__(self) -> None:
        _check_declared(self, "replay.")


@dataclass(frozen=True)
class TrainConfig:
    """Learner (train/learner.py, train/losses.py): optimiser, learning-rate schedule, loss weights."""

    batch_size: int = number(256, ge=1, up_to=1_000_000)  # samples per step; KataGo 256, AlphaZero 4096
    # "sgd" (momentum, AlphaZero and KataGo) or "adamw" (set learning_rate ~1e-3)
    optimizer: str = one_of("sgd", ("sgd", "adamw"))
    # peak rate; KataGo 6e-5 per sample (0.015 at batch 256), AlphaZero 0.2 at 4096
    learning_rate: float = number(0.02, gt=0, up_to=100)
    momentum: float = number(0.9, ge=0, lt=1)  # SGD momentum (AlphaZero, KataGo); AdamW beta1
    # L2 on conv and linear weights (not biases or batch-norm), applied by the optimiser: coupled for
    # SGD, i.e. the gradient of (weight_decay / 2) * |w|^2; decoupled for AdamW (each step shrinks the
    # weights by lr * weight_decay, so AdamW wants ~1e-2..1e-1: at lr 2e-3, 6e-5 shrinks them by 1e-7 a
    # step, nothing). KataGo's c * |w|^2 with c = 3e-5 is weight_decay 6e-5 for SGD; AlphaGo Zero's
    # c = 1e-4 is 2e-4.
    weight_decay: float = number(6e-5, ge=0, up_to=10)
    # "constant", "cosine" or "step", after the warmup
    lr_schedule: str = one_of("constant", ("constant", "cosine", "step"))
    # linear warmup from 0; KataGo 2019 instead trains its first 5M samples at 1/3 of the rate
    warmup_steps: int = number(100, ge=0, up_to=10**12)
    # cosine: steps after warmup to reach the floor; step: steps per drop
    lr_decay_steps: int = number(100_000, ge=1, up_to=10**12)
    # cosine: floor as a fraction of the peak; step: factor per drop (AlphaZero 0.1)
    lr_decay_factor: float = number(0.1, gt=0, le=1)
    # cosine: spread the decay over the run instead of lr_decay_steps, by the run's progress toward
    # the first bound it will reach (run.max_steps, max_positions or max_minutes), as cleanrl anneals
    # over its total steps: a run bounded by minutes ends at the floor whatever its speed. Raising the
    # bound on resume moves the rate back up the curve.
    lr_decay_over_run: bool = False
    # An annealed finish for any schedule: over the last anneal_share of the run's progress toward its
    # bound the rate falls linearly to lr_decay_factor of what the schedule gives, so the network a
    # bounded run ships comes out of a low-rate phase even on a constant rate (side6.yaml); 0 = off.
    # (The cosine over the run, lr_decay_over_run, is already annealed.) No paper value: KataGo and
    # AlphaZero drop the rate by steps on long runs (lr_schedule "step").
    anneal_share: float = number(0.0, ge=0, le=1)
    # clip the global gradient norm to this (0 = off); neither paper clips
    max_grad_norm: float = number(5.0, ge=0, up_to=1e9)
    # Loss weights (KataGo 2019 sec. 3-4: policy 1, game outcome c_g = 1.5, ownership c_o = 1.5 / b^2
    # summed over the b^2 cells, i.e. 1.5 on the per-cell mean).
    # cross-entropy to the search policy, full-search positions only
    policy_weight: float = number(1.0, ge=0, up_to=1e6)
    # win/draw/loss cross-entropy; KataGo c_g = 1.5 (AlphaZero: MSE, weight 1)
    value_weight: float = number(1.5, ge=0, up_to=1e6)
    # Huber on margin / score_scale; KataGo 2019 learns a score distribution instead (pdf and cdf
    # terms, 0.02 each), so there is no paper value for this scalar form.
    score_weight: float = number(0.5, ge=0, up_to=1e6)
    # Huber's delta in score_scale units (15 points on standard scoring)
    score_huber_delta: float = number(1.0, gt=0, up_to=1e6)
    # per-cell cross-entropy on (1 + ownership) / 2, mean over cells; KataGo 1.5
    ownership_weight: float = number(1.5, ge=0, up_to=1e6)
    # Weight of the value, score and ownership targets of cheap-search positions (no policy target;
    # playout cap randomisation). KataGo 2019 sec. 3.1 records only full-search turns (weight 0); 1
    # trains every position's outcome equally.
    cheap_value_weight: float = number(1.0, ge=0, le=1)
    # Exponential moving average of the weights (an averaged copy, as KataGo exports stochastic weight
    # averages): after each step avg <- d * avg + (1 - d) * w, with d = min(ema_decay, (1 + t) / (10 + t))
    # at step t so the early average is not dominated by the random start. The average is what
    # self-play, checkpoints' "model", evaluation and export use; 0 = off (the raw weights everywhere).
    ema_decay: float = number(0.0, ge=0, lt=1)
    # Whether self-play plays the average (true) or the raw weights (false: the average then serves
    # only checkpoints, evaluation and export, as KataGo exports averaged weights while the newest
    # raw ones keep learning; self-play does not lag behind the learner by the average's horizon).
    ema_selfplay: bool = True
    device: str = torch_device("auto")  # learner device: "auto" = CUDA when available, else CPU; or "cpu", "cuda[:i]"
    mixed_precision: bool = True  # bfloat16 autocast of the forward pass on CUDA only; losses in float32
    # torch.compile the training forward (and so its backward). Measured on quick.yaml's network,
    # side 4, batch 128, one CPU thread: 0.47 -> 0.38 ms per sample (1.26x) after 75 s of compiling,
    # which a 9-minute run does not win back (the learner is ~40% of its CPU) and a 60-minute one
    # does (docs/RESULTS.md); torch's on-disk compile cache shortens later starts. Off by default.
    compile: bool = False
    # A new run's first network: a checkpoint file, a run folder (its newest checkpoint) or an
    # exported bot file, whose net section must equal this config's; "" = a random network
    # (AlphaZero). A warm start: the optimiser, the replay buffer and the counters start afresh, so
    # self-play begins at that network's strength (how a run continues from a shipped bot when
    # its run folder is gone). Read only when the run starts; --resume keeps the saved value.
    init_from: str = ""
    # With train.init_from a run folder or one of its checkpoints: also start from that run's
    # replay buffer (its replay.npz, as last saved), so a warm start goes on learning from the
    # positions its network was trained on instead of waiting for replay.min_positions and fitting
    # the first few games (KataGo continues a run on its existing data). The usual use is an
    # annealed finish: continue a run at a reduced train.learning_rate with its data. False = an
    # empty buffer. The rule sets of the saved positions must be among this config's.
    init_replay: bool = False
    # With train.init_from a network of FEWER blocks (its architecture otherwise this config's):
    # start from it deepened to net.blocks, the new blocks appended with a zero last convolution so
    # the deeper network plays exactly as the shallower one did (Net2DeeperNet, Chen et al. 2016),
    # and training grows them from there: a bigger network continues a trained one's run instead of
    # starting again from random weights. False = init_from must be net's architecture exactly.
    init_deepen: bool = False

    def __post_init__(self) -> None:
        # Across fields: the one key does not make sense without the other.
        _check(not self.init_replay or bool(self.init_from),
               "train.init_replay needs train.init_from (the run whose replay buffer to start from)")
        _check(not self.init_deepen or bool(self.init_from),
               "train.init_deepen needs train.init_from (the shallower network to deepen)")
        _check_declared(self, "train.")
        _check(not self.lr_decay_over_run or self.lr_schedule == "cosine",
               f"train.lr_decay_over_run needs train.lr_schedule 'cosine', got {self.lr_schedule!r}")


# The sections a stage may change (``StageConfig.changes``); ``run`` and ``seed`` belong to the whole run.
STAGE_SECTIONS = ("game", "net", "search", "selfplay", "replay", "train", "eval")
# What a stage's bound counts (``StageConfig``'s bound fields), as ``RunConfig.bounds()`` names them.
STAGE_BOUNDS = ("cpu_minutes", "positions", "steps")


@dataclass(frozen=True)
class StageConfig:
    """One stage of a staged run (a recipe, train/driver.py): its name, its own bound, and the keys it
    changes from the stage before it (cumulative: stage k trains the config with stages 1..k applied).

    A stage starts from the network the stage before ended with (grown with ``train.init_deepen``
    when it adds blocks: KataGo's and Net2Net's way to widen a run's capacity as it goes) and keeps
    its replay buffer while the rule sets it plays include the previous stage's."""

    name: str = folder_name("")  # how the progress line, TensorBoard and the summary call it
    # Its bound, exactly one: this stage's own amount, counted from where the stage before ended.
    cpu_minutes: Optional[float] = number(None, gt=0, up_to=1e9)
    positions: Optional[int] = number(None, ge=1, up_to=10**15)
    steps: Optional[int] = number(None, ge=1, up_to=10**15)
    keep_replay: bool = True  # false: the stage starts with an empty replay buffer
    # (dotted key, value) pairs in the file's order: what the stage changes. Written in YAML as sections
    # beside the name and bound (``net: {blocks: 8}``); only STAGE_SECTIONS may appear.
    changes: tuple[tuple[str, Any], ...] = ()

    def __post_init__(self) -> None:
        _check_declared(self, "stage.")
        _check(bool(self.name), "a stage needs a name")
        hidden = hidden_character(self.name)
        _check(hidden is None, f"a stage's name must not contain control or formatting characters, got {hidden}")
        given = [key for key in STAGE_BOUNDS if getattr(self, key) is not None]
        _check(len(given) == 1, f"stage {self.name!r} needs exactly one bound ({', '.join(STAGE_BOUNDS)}), "
                                f"got {', '.join(given) if given else 'none'}")

    @property
    def bound(self) -> tuple[str, float]:
        """What the bound counts (one of STAGE_BOUNDS) and how much of it the stage gets."""
        key = next(key for key in STAGE_BOUNDS if getattr(self, key) is not None)
        return key, getattr(self, key)

    def describe(self) -> str:
        key, value = self.bound
        return f"{value:g} {key.replace('_', ' ')}"


@dataclass(frozen=True)
class FinishConfig:
    """What a recipe does after its last stage to make its network a shippable bot (eval/recipe.py):
    rebalance the rule set's book with it, check the fair komi the recipe names, play its panel over
    the book, and write one summary into the run folder (what ``ship RUN NAME`` takes)."""

    book: bool = False  # rebalance the book of the run's rule set with the final network (catena-zero book --reference)
    komi: Optional[int] = number(None, ge=0, up_to=1000)  # the fair komi the recipe names, checked by self-play
    komi_games: int = number(100, ge=2, up_to=1_000_000)  # self-play games at each komi checked (three komis)
    panel: tuple[str, ...] = ()  # opponents over the book, e.g. mcts:2000 or a bot file (catena-zero evaluate's specs)
    pairs: int = number(20, ge=1, up_to=100_000)  # book openings played against each, once with each colour
    simulations: int = number(400, ge=1, up_to=1_000_000)  # the bot's search: what its shipped file plays with
    # Other settings of the bot's search, FIELD=VALUE as ``export --search`` takes them (e.g.
    # gumbel_interior=puct: PUCT below the Gumbel root, +63 Elo for side6.bot at play, docs/RESULTS.md).
    search: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        _check_declared(self, "finish.")

    def declared(self) -> bool:
        """True when the recipe declares an end (any of its steps)."""
        return self.book or self.komi is not None or bool(self.panel)


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
    # root of every np.random.Generator / torch.Generator of a run
    seed: int = number(0, ge=0, up_to=2**63 - 1, noun="a whole number")
    # A staged run (a recipe): the stages one ``train`` runs in order in one run folder (() = one stage,
    # the config as it is); config/stages.py builds each stage's config.
    stages: tuple[StageConfig, ...] = ()
    finish: FinishConfig = field(default_factory=FinishConfig)  # a recipe's end (nothing unless declared)

    def __post_init__(self) -> None:
        _check_declared(self, "")
        # Across sections: an anneal or a decay over the run needs the run to have an end.
        # A staged run's stages each have a bound.
        bounded = bool(self.run.bounds()) or bool(self.stages)
        _check(not self.train.anneal_share or bounded,
               "train.anneal_share needs a run bound (run.max_steps, run.max_positions, run.max_minutes or run.max_cpu_minutes)")
        _check(not self.train.lr_decay_over_run or bounded,
               "train.lr_decay_over_run needs a run bound (run.max_steps, run.max_positions, run.max_minutes or run.max_cpu_minutes)")
        names = [stage.name for stage in self.stages]
        twice = [name for name in names if names.count(name) > 1]
        _check(not twice, f"stages: two stages are named {twice[0] if twice else ''!r}")

    def rule_sets(self) -> tuple[RuleSet, ...]:
        """The rule sets a run trains on, ``game``'s own first: every combination of
        ``selfplay.sides``, ``selfplay.game_types`` and ``selfplay.scorings`` (an empty list
        means ``game``'s value). Self-play plays each (komi drawn per game), the replay buffer keeps
        them apart, the in-loop matches play the first, and a bot file records them all."""
        play, game = self.selfplay, self.game
        every = [RuleSet(s, t, c) for s in play.sides or (game.side,) for t in play.game_types or (game.game_type,)
                 for c in play.scorings or (game.scoring,)]
        own = RuleSet.of(game)
        return tuple(dict.fromkeys(([own] if own in every else []) + every))
