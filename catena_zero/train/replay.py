"""Replay buffer: self-play positions in a fixed ring of compact arrays, sampled into training batches.

Shape legend:
    M  capacity (positions held)       R  rule sets of the buffer (side, game type, scoring)
    W  packed env row width            A  actions, N + 1       N  cells
       (for the stored arrays: the widest W, A, N over the buffer's rule sets)
    B  samples                         C  planes, G grid width, F globals (net/features.py)
    S  board symmetries, 12

Layout. One ring of preallocated arrays, slot ``i % M`` for the i-th position ever added, holding
what a ``Trajectory`` carries: the packed ``VecEnv`` row (int16), the search policy (float16),
the final ownership (int8) and the scalar targets. Features are not stored: ``encode`` rebuilds
the float32 planes at sample time, so a side-6 position takes about 2.2 KB instead of 5.3 KB of
planes alone, and 1,000,000 of them fit in 2.2 GB. Several rule sets share the ring: each row is
padded to the widest layout and tagged with its rule-set id. One ring keeps the window exact (the
newest positions whatever their rules) and sampling uniform; the price is padding in mixed-side
runs (a side-4 row in a buffer that also holds side 10 takes the side-10 width), and no padding at
all in the usual one-rule-set run. ``bytes_per_position`` reports the real figure.

Window (KataGo, Wu 2019 appendix; ``python/shuffle.py``): after N positions the learner samples
from the newest ``window_size(N)`` = ``c * (1 + beta * ((N / c)**alpha - 1) / alpha)``
(all N while N <= c), capped by what the ring holds.

Sampling by weight: a position is drawn with probability proportional to its weight (rejection
against the largest weight added, ``_max_weight``) and trains with weight 1 (``BatchPart.weight``). The expected loss is that of uniform draws weighted by the positions'
weights, but a soft-resigned position (weight 0.1, KataGo) no longer takes a whole sample for a
tenth of one: uniform draws spent 8.4% of a side-4 run's samples on 0.9% of its weight. A
position of weight 0 is never drawn.

Replay ratio (KataGo ``train.py -max-train-bucket-per-new-data``): a bucket of credit gains
``train_ratio`` samples per position added (capped at ``max_credit``) and loses one per sample
trained. ``samples_allowed()`` tells the driver how much it may train now, so self-play never
waits for the learner and the learner only waits when it has used up the data.

Augmentation: each sample gets one of the 12 board symmetries (R1), applied alike to the planes
(``features.grid_symmetries``), the policy target (``spec.sym_gather_actions``) and the ownership
(``spec.sym_gather``): the sample is then exactly the position of the transformed game.
"""

from __future__ import annotations

import io
import math
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

import numpy as np

from ..config import ReplayConfig
from ..errors import UserError
from ..fileio import open_input, write_bytes_atomic
from ..game.options import GameConfig, RuleSet
from ..game.spec import NUM_SYMMETRIES, BoardSpec
from ..game.vec import EnvState, VecEnv
from ..net.features import encode, grid_symmetries, score_scale
from ..selfplay.types import Trajectory

REPLAY_FORMAT = "catena-zero-replay"
REPLAY_VERSION = 1

# Value classes in the order of the network's wdl logits (net/model.py NetOutput.wdl_logits).
WIN, DRAW, LOSS = 0, 1, 2


class ReplayError(UserError):
    """A replay file is missing, damaged or does not fit this buffer (one-line message)."""


def window_size(positions: int, config: ReplayConfig) -> int:
    """Positions the learner samples from after ``positions`` were generated (KataGo's power law)."""
    c, alpha, beta = config.window_min, config.window_alpha, config.window_beta
    if positions <= c:
        return positions
    grown = c * (1.0 + beta * ((positions / c) ** alpha - 1.0) / alpha)
    return min(positions, int(grown))


def ring_bytes_per_position(width: int, actions: int, cells: int) -> int:
    """Bytes of one ring slot: the arrays ``ReplayBuffer.__init__`` allocates, per position."""
    return 2 * width + 2 * actions + cells + 1 + 1 + 4 + 2 + 4 + 1


def machine_memory() -> int | None:
    """Physical memory of this machine in bytes (None where the system does not say)."""
    try:
        return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return None


def check_fits_in_memory(capacity: int, bytes_per_position: int) -> None:
    """``ReplayError`` (one line, size and limit) when a full ring would not fit in the machine's
    memory: checked before anything is allocated (and before Ray starts), not a MemoryError later."""
    total, limit = capacity * bytes_per_position, machine_memory()
    if limit is not None and total > limit:
        raise ReplayError(f"replay.capacity {capacity:,} needs {total / 2**30:,.1f} GiB "
                          f"({bytes_per_position:,} bytes per position), more than this machine's "
                          f"{limit / 2**30:,.1f} GiB of memory; lower replay.capacity")


@dataclass(frozen=True, eq=False)
class _RuleTables:
    """One rule set of the buffer: its environment (for ``encode``) and row sizes."""

    game: GameConfig
    env: VecEnv
    spec: BoardSpec
    width: int  # W of its packed rows
    score_scale: float


@dataclass(frozen=True)
class BatchPart:
    """Samples of one board side: the inputs and targets of one forward pass, torch-ready numpy arrays."""

    side: int
    planes: np.ndarray  # [B, C, G, G] float32, symmetry applied
    globals: np.ndarray  # [B, F] float32
    policy: np.ndarray  # [B, A] float32 search policy (rows sum to 1; all 0 where not has_policy)
    has_policy: np.ndarray  # [B] bool a full search made the move (playout cap randomisation)
    value: np.ndarray  # [B] int64 WIN / DRAW / LOSS for the player to move
    score: np.ndarray  # [B] float32 final margin for the mover / features.score_scale(game)
    ownership: np.ndarray  # [B, N] float32 +1 mover's, -1 opponent's, 0 empty at the end
    weight: np.ndarray  # [B] float32 sample weight
    position: np.ndarray  # [B] int64 index of the position in the order added (0 = first ever)
    symmetry: np.ndarray  # [B] int64 the symmetry applied (0 = identity)
    version: np.ndarray  # [B] int32 weights version that played the move

    @property
    def size(self) -> int:
        return self.planes.shape[0]


@dataclass(frozen=True)
class Batch:
    """A training batch, split into the parts one forward pass each takes (``group_for_forward``)."""

    parts: tuple[BatchPart, ...]

    @property
    def size(self) -> int:
        return sum(part.size for part in self.parts)


@dataclass(frozen=True)
class ReplayStats:
    """Counters for logging (TensorBoard ``replay/``)."""

    size: int  # positions held
    positions_added: int  # positions ever added (N of the window formula)
    window: int  # positions sampled from now
    samples_trained: int  # samples recorded as trained
    samples_allowed: int  # samples the learner may train now
    bytes_per_position: float


@dataclass(frozen=True)
class ReplayCounters:
    """The buffer's counters at one moment: what a checkpoint records of the replay file written
    just before it, so that a resume can tell a replay file that is ahead of its checkpoint (a run
    killed between the two writes) and set it back (``ReplayBuffer.rewind``)."""

    added: int  # positions ever added
    trained: int  # samples recorded as trained
    credit: float  # the replay-ratio bucket

    def as_dict(self) -> dict:
        """Plain values, as a checkpoint's ``extra`` holds them."""
        return {"added": self.added, "trained": self.trained, "credit": self.credit}

    @classmethod
    def from_dict(cls, value: object) -> "ReplayCounters | None":
        """The record of ``as_dict``; None for anything else (a checkpoint written before it was kept)."""
        if not isinstance(value, dict) or set(value) != {"added", "trained", "credit"}:
            return None
        added, trained, credit = value["added"], value["trained"], value["credit"]
        whole = all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in (added, trained))
        if not whole or not isinstance(credit, float) or not math.isfinite(credit):
            return None
        return cls(added=added, trained=trained, credit=credit)


def group_for_forward(parts: Sequence[BatchPart]) -> tuple[BatchPart, ...]:
    """Merge per-rule-set parts into what the network takes in one forward pass each.

    The network runs one grid size per call, so for now this concatenates the parts of each side
    (rules and komi are global inputs, so all rule sets of a side share a forward). Once padded
    mixed-side batches land (``features.pad_features``), this is the one place to switch to a single
    padded part.
    """
    by_side: dict[int, list[BatchPart]] = {}
    for part in parts:
        by_side.setdefault(part.side, []).append(part)
    merged = []
    for side in sorted(by_side):
        group = by_side[side]
        if len(group) == 1:
            merged.append(group[0])
            continue
        merged.append(BatchPart(side=side, **{
            name: np.concatenate([getattr(p, name) for p in group])
            for name in ("planes", "globals", "policy", "has_policy", "value", "score", "ownership",
                         "weight", "position", "symmetry", "version")
        }))
    return tuple(merged)


def _state_from_rows(env: VecEnv, rows: np.ndarray) -> EnvState:
    """An EnvState of ``env`` holding the packed ``rows`` ([B, W] int16) exactly."""
    state = env.reset(rows.shape[0])
    state.data[:] = rows
    return state


def position_bytes(rule_sets: Sequence[RuleSet]) -> int:
    """Bytes one position takes in a buffer over ``rule_sets`` (see ``_ARRAYS``)."""
    width, actions, cells = _widest([_make_rule_tables(r.game()) for r in rule_sets])
    return width * 2 + actions * 2 + cells + _SCALAR_BYTES


# Per-position scalars: has_policy (1), outcome (1), score (4), weight (2), version (4), rule id (1).
_SCALAR_BYTES = 1 + 1 + 4 + 2 + 4 + 1


def _make_rule_tables(game: GameConfig) -> _RuleTables:
    env = VecEnv(game)
    return _RuleTables(game=game, env=env, spec=env.spec, width=env.bytes_per_game // 2, score_scale=score_scale(game))


def _widest(rules: Sequence[_RuleTables]) -> tuple[int, int, int]:
    return (max(r.width for r in rules), max(r.spec.num_actions for r in rules), max(r.spec.num_cells for r in rules))


class ReplayBuffer:
    """A fixed-capacity ring of self-play positions of ``rule_sets`` (komi varies per position).

    ``add`` takes finished ``Trajectory`` records; ``sample`` draws a ``Batch`` from the window;
    ``samples_allowed`` / ``record_trained`` keep the replay ratio; ``save`` / ``load`` persist it.
    """

    def __init__(self, config: ReplayConfig, rule_sets: Sequence[RuleSet]) -> None:
        if not isinstance(config, ReplayConfig):
            raise ValueError(f"ReplayBuffer needs a ReplayConfig, got {type(config).__name__}")
        rules: list[_RuleTables] = []
        self._ids: dict[str, int] = {}  # rule-set key -> id (the keys are what replay files store)
        for rule_set in rule_sets:
            if not isinstance(rule_set, RuleSet):
                raise ValueError(f"ReplayBuffer needs RuleSets, got {type(rule_set).__name__}")
            if rule_set.key not in self._ids:
                self._ids[rule_set.key] = len(rules)
                rules.append(_make_rule_tables(rule_set.game()))
        if not rules:
            raise ValueError("ReplayBuffer needs at least one rule set")
        if len(rules) > 127:
            raise ValueError(f"ReplayBuffer supports at most 127 rule sets, got {len(rules)}")
        self.config = config
        self._rules = tuple(rules)
        width, actions, cells = _widest(rules)
        m = config.capacity
        check_fits_in_memory(m, ring_bytes_per_position(width, actions, cells))
        # np.zeros maps untouched pages lazily: memory is committed as the ring fills.
        self._rows = np.zeros((m, width), dtype=np.int16)  # [M, W]
        self._policy = np.zeros((m, actions), dtype=np.float16)  # [M, A]
        self._ownership = np.zeros((m, cells), dtype=np.int8)  # [M, N]
        self._has_policy = np.zeros(m, dtype=bool)  # [M]
        self._outcome = np.zeros(m, dtype=np.int8)  # [M] +1 / 0 / -1 for the mover
        self._score = np.zeros(m, dtype=np.float32)  # [M] margin in points
        self._weight = np.zeros(m, dtype=np.float16)  # [M]
        self._version = np.zeros(m, dtype=np.int32)  # [M]
        self._rule = np.zeros(m, dtype=np.int8)  # [M] index into self._rules
        self._added = 0  # positions ever added
        self._held = 0  # positions in the ring: the newest self._held of them
        self._trained = 0  # samples recorded as trained
        self._credit = 0.0  # replay-ratio bucket, in samples
        self._max_weight = 0.0  # the largest weight ever added: the rejection bound of ``sample``

    # ------------------------------------------------------------------ sizes and counters
    @property
    def capacity(self) -> int:
        return self.config.capacity

    @property
    def games(self) -> tuple[GameConfig, ...]:
        return tuple(r.game for r in self._rules)

    def __len__(self) -> int:
        return self._held

    @property
    def positions_added(self) -> int:
        return self._added

    @property
    def window(self) -> int:
        """Positions ``sample`` draws from now: the power-law window, capped by what is held."""
        return min(window_size(self._added, self.config), self._held)

    def _arrays(self) -> tuple[np.ndarray, ...]:
        return (self._rows, self._policy, self._ownership, self._has_policy, self._outcome,
                self._score, self._weight, self._version, self._rule)

    @property
    def bytes_per_position(self) -> float:
        """Memory of the ring divided by its capacity (what one position costs)."""
        return sum(a.nbytes for a in self._arrays()) / self.capacity

    @property
    def nbytes(self) -> int:
        return sum(a.nbytes for a in self._arrays())

    def samples_allowed(self) -> int:
        """Samples the learner may train now under the replay ratio (0 before ``min_positions``)."""
        if self._held < self.config.min_positions:
            return 0
        return max(0, math.floor(self._credit))

    def steps_allowed(self, batch_size: int) -> int:
        """Whole batches of ``batch_size`` the learner may train now."""
        return self.samples_allowed() // batch_size

    def record_trained(self, samples: int) -> None:
        """Count ``samples`` as trained (takes them out of the bucket)."""
        if samples < 0:
            raise ValueError(f"samples must be >= 0, got {samples}")
        self._trained += samples
        self._credit -= samples

    def counters(self) -> ReplayCounters:
        """Its counters now (what ``Checkpointer.save`` records in a checkpoint)."""
        return ReplayCounters(added=self._added, trained=self._trained, credit=float(self._credit))

    def rewind(self, to: ReplayCounters) -> int:
        """Set the buffer back to ``to``, counters taken earlier, when it is ahead of them: the
        positions added since are dropped (the older ones stay in their ring slots, slot ``i % M``
        for the i-th position), the samples trained and the credit are ``to``'s. Returns the positions
        dropped; 0, changing nothing, when it is not ahead (its positions are no newer than ``to``'s)."""
        dropped = self._added - to.added
        if dropped <= 0:
            return 0
        self._held = max(0, self._held - dropped)
        self._added, self._trained, self._credit = to.added, to.trained, float(to.credit)
        slots = (self._added - self._held + np.arange(self._held)) % self.capacity
        self._max_weight = float(self._weight[slots].max()) if self._held else 0.0
        return dropped

    def stats(self) -> ReplayStats:
        return ReplayStats(size=self._held, positions_added=self._added, window=self.window,
                           samples_trained=self._trained, samples_allowed=self.samples_allowed(),
                           bytes_per_position=self.bytes_per_position)

    # ------------------------------------------------------------------ adding
    def add(self, trajectory: Trajectory) -> None:
        """Append the positions of ``trajectory``; the oldest are overwritten once the ring is full."""
        if not isinstance(trajectory, Trajectory):
            raise ValueError(f"ReplayBuffer.add needs a Trajectory, got {type(trajectory).__name__}")
        rule_id = self._rule_id(trajectory.game)
        rule = self._rules[rule_id]
        _check_trajectory(trajectory, rule)
        t = trajectory.num_positions
        if t == 0:
            return
        m = self.capacity
        keep = min(t, m)  # a trajectory longer than the ring keeps its newest positions
        src = slice(t - keep, t)
        slots = (self._added + (t - keep) + np.arange(keep)) % m
        n, a = rule.spec.num_cells, rule.spec.num_actions
        self._rows[slots, :rule.width] = trajectory.states[src]
        self._rows[slots, rule.width:] = 0
        self._policy[slots, :a] = trajectory.policy[src]
        self._policy[slots, a:] = 0
        self._ownership[slots, :n] = trajectory.ownership[src]
        self._ownership[slots, n:] = 0
        self._has_policy[slots] = trajectory.has_policy[src]
        self._outcome[slots] = trajectory.outcome[src]
        self._score[slots] = trajectory.score[src]
        self._weight[slots] = trajectory.weight[src]
        self._max_weight = max(self._max_weight, float(self._weight[slots].max()))
        self._version[slots] = trajectory.version[src]
        self._rule[slots] = rule_id
        self._added += t
        self._held = min(self._held + t, m)
        self._credit = min(self._credit + self.config.train_ratio * t, float(self.config.max_credit))

    def _rule_id(self, game: GameConfig) -> int:
        name = RuleSet.of(game).key
        if name not in self._ids:
            raise ValueError(f"rule set {name} is not one of this replay buffer's ({', '.join(self._ids)})")
        return self._ids[name]

    # ------------------------------------------------------------------ sampling
    def sample(self, n: int, rng: np.random.Generator) -> Batch:
        """``n`` positions drawn (with replacement) from the window with probabilities proportional to
        their weights (module notes), each under a random symmetry."""
        if n < 1:
            raise ValueError(f"sample size must be >= 1, got {n}")
        window = self.window
        if window == 0:
            raise ValueError("cannot sample from an empty replay buffer")
        position = self._draw(n, window, rng)  # [n] int64
        symmetry = (rng.integers(0, NUM_SYMMETRIES, size=n) if self.config.symmetries
                    else np.zeros(n, dtype=np.int64))
        slots = position % self.capacity
        rule = self._rule[slots]
        parts = []
        for rule_id in np.unique(rule):  # sorted: the same draw gives the same batch
            sel = np.flatnonzero(rule == rule_id)
            parts.append(self._part(int(rule_id), slots[sel], position[sel], symmetry[sel]))
        return Batch(parts=group_for_forward(parts))

    def _draw(self, n: int, window: int, rng: np.random.Generator) -> np.ndarray:
        """[n] positions of the window, each drawn with probability weight / sum of the window's weights:
        uniform candidates, each kept with probability weight / ``_max_weight``."""
        start, bound = self._added - window, self._max_weight
        drawn, need = [], n
        for _ in range(1000):  # a window of weights 1 and 0.1 keeps ~92% of the candidates per round
            candidate = start + rng.integers(0, window, size=need + need // 4 + 8)
            weight = self._weight[candidate % self.capacity].astype(np.float32)
            kept = candidate[rng.random(candidate.size, dtype=np.float32) * bound < weight][:need]
            drawn.append(kept)
            need -= kept.size
            if need == 0:
                return np.concatenate(drawn)
        raise ValueError("the replay window holds no position of weight > 0 to sample")

    def _part(self, rule_id: int, slots: np.ndarray, position: np.ndarray, symmetry: np.ndarray) -> BatchPart:
        """Encode the positions at ``slots`` (all of rule set ``rule_id``) under their symmetries."""
        rule = self._rules[rule_id]
        spec = rule.spec
        b, n, a, g = slots.size, spec.num_cells, spec.num_actions, spec.grid_size
        features = encode(rule.env, _state_from_rows(rule.env, self._rows[slots, :rule.width]))
        flat = features.planes.reshape(b, -1, g * g)  # [B, C, G*G]
        grid_maps = grid_symmetries(spec.side)  # [S, G*G]
        planes = np.empty_like(flat)
        for k in np.unique(symmetry):  # one gather per symmetry: 4x faster than take_along_axis
            sel = np.flatnonzero(symmetry == k)
            planes[sel] = flat[sel][:, :, grid_maps[k]]
        planes = planes.reshape(features.planes.shape)
        policy = np.take_along_axis(self._policy[slots, :a].astype(np.float32), spec.sym_gather_actions[symmetry], axis=1)
        total = policy.sum(axis=1, keepdims=True)  # float16 storage rounds: renormalise
        policy = np.divide(policy, total, out=np.zeros_like(policy), where=total > 0)
        ownership = np.take_along_axis(self._ownership[slots, :n], spec.sym_gather[symmetry], axis=1)
        return BatchPart(
            side=spec.side,
            planes=planes,
            globals=features.globals,
            policy=policy,
            has_policy=self._has_policy[slots],
            value=(1 - self._outcome[slots]).astype(np.int64),  # +1 -> WIN 0, 0 -> DRAW 1, -1 -> LOSS 2
            score=(self._score[slots] / np.float32(rule.score_scale)).astype(np.float32),
            ownership=ownership.astype(np.float32),
            # drawn in proportion to its weight (``_draw``), so each trains with weight 1
            weight=np.ones(b, dtype=np.float32),
            position=position.astype(np.int64),
            symmetry=symmetry.astype(np.int64),
            version=self._version[slots],
        )

    # ------------------------------------------------------------------ persistence
    def save(self, path: str | Path) -> Path:
        """Write the window's positions and the counters to ``path`` (npz, atomically).

        Only the window is kept: it is all that is sampled. After a resume the window goes on
        growing over positions that were not saved, so it refills from new data (at ``window_beta``
        per position) before it reaches further back.
        """
        keep = self.window
        slots = (self._added - keep + np.arange(keep)) % self.capacity
        names = np.array([RuleSet.of(r.game).key for r in self._rules])
        buffer = io.BytesIO()
        np.savez(
            buffer,
            format=np.array(REPLAY_FORMAT),
            format_version=np.array(REPLAY_VERSION),
            rule_sets=names,
            counters=np.array([self._added, self._trained], dtype=np.int64),
            credit=np.array(self._credit, dtype=np.float64),
            **{key: array[slots] for key, array in zip(_KEYS, self._arrays())},
        )
        return write_bytes_atomic(path, buffer.getvalue(), own=True)  # a FIFO there is replaced, not waited on

    def load(self, path: str | Path) -> None:
        """Replace the contents with a file written by ``save``; ``ReplayError`` names what is wrong."""
        path = Path(path)
        data = _read_npz(path)
        if _text(data["format"]) != REPLAY_FORMAT:
            raise ReplayError(f"{path} is not a catena-zero replay buffer")
        version = _whole(data["format_version"])
        if version != REPLAY_VERSION:
            raise ReplayError(f"{path} has replay format version {version if version is not None else '?'}; "
                              f"this catena-zero reads {REPLAY_VERSION}")
        _check_arrays(data, self._arrays(), path)
        saved_names = [str(s) for s in data["rule_sets"]] if data["rule_sets"].ndim == 1 else []
        rule = data["rule"].astype(np.int64)
        count = rule.shape[0]
        damaged = any(data[key].shape[:1] != (count,) or data[key].ndim != (2 if key in _WIDE else 1) for key in _KEYS)
        if damaged or (count and (rule.min() < 0 or rule.max() >= len(saved_names))):
            raise ReplayError(f"{path} is damaged: its arrays do not match")
        for i in np.unique(rule):
            if saved_names[i] not in self._ids:
                raise ReplayError(f"{path} holds positions of rule set {saved_names[i]}, which this buffer "
                                  f"does not have ({', '.join(self._ids)})")
        counters, credit = data["counters"], data["credit"]
        if counters.shape != (2,) or counters.dtype.kind not in "iu" or (counters < 0).any():
            raise ReplayError(f"{path} is damaged: its counters are not two whole numbers >= 0")
        if credit.shape != () or credit.dtype.kind != "f" or not np.isfinite(credit):
            raise ReplayError(f"{path} is damaged: its replay-ratio credit is not a finite number")
        added, trained = (int(v) for v in counters)
        keep = min(count, self.capacity, added)
        src = slice(count - keep, count)
        remap = np.array([self._ids.get(name, 0) for name in saved_names] or [0], dtype=np.int8)
        slots = (added - keep + np.arange(keep)) % self.capacity
        for key, array in zip(_KEYS, self._arrays()):
            values = data[key][src]
            if key == "rule":
                values = remap[values.astype(np.int64)]
            if array.ndim == 2:
                # Every rule set's columns fit both widths; the rest is padding.
                cols = min(array.shape[1], values.shape[1])
                array[slots, :cols] = values[:, :cols]
                array[slots, cols:] = 0
            else:
                array[slots] = values
        self._added, self._trained, self._held = added, trained, keep
        self._max_weight = float(self._weight[slots].max()) if keep else 0.0
        # The bucket's bounds: never below empty, never above max_credit (which a config may lower).
        self._credit = min(max(float(credit), 0.0), float(self.config.max_credit))


_KEYS = ("rows", "policy", "ownership", "has_policy", "outcome", "score", "weight", "version", "rule")
_WIDE = ("rows", "policy", "ownership")


def _text(value: np.ndarray) -> str | None:
    """A 0-d string array's text, None for anything else."""
    return str(value) if value.shape == () and value.dtype.kind == "U" else None


def _whole(value: np.ndarray) -> int | None:
    """A 0-d integer array's value, None for anything else."""
    return int(value) if value.shape == () and value.dtype.kind in "iu" else None


def _check_arrays(data: dict[str, np.ndarray], arrays: Sequence[np.ndarray], path: Path) -> None:
    """Every stored array of the kind of numbers ``save`` writes (the buffer's), and the float ones finite
    (a NaN weight would stall the sampler, a NaN score or policy poison every loss); ReplayError."""
    kinds = {"i": "whole numbers", "u": "whole numbers", "f": "floats", "b": "booleans"}
    for key, array in zip(_KEYS, arrays):
        if kinds.get(data[key].dtype.kind) != kinds[array.dtype.kind]:
            raise ReplayError(f"{path} is damaged: its {key} array holds {data[key].dtype}, not "
                              f"{kinds[array.dtype.kind]}")
    for key in ("policy", "score", "weight"):
        values = data[key]
        if not np.isfinite(values).all() or (key != "score" and (values < 0).any()):
            raise ReplayError(f"{path} is damaged: its {key} array holds values that are not finite"
                              f"{'' if key == 'score' else ' or are negative'}")


def _read_npz(path: Path) -> dict[str, np.ndarray]:
    """Every array of a replay file, read (and CRC-checked) now; ReplayError on any damage.

    A regular file only (``open_input``: a FIFO would hang); read through its zip directory, one
    array at a time, never the whole file into memory first."""
    try:
        with open_input(path, "replay buffer", None, ReplayError) as f, np.load(f, allow_pickle=False) as npz:
            data = {key: npz[key] for key in npz.files}
    except ReplayError:
        raise
    except Exception as exc:  # zip, CRC, header or pickle errors of a truncated or foreign file
        reason = " ".join(str(exc).split())[:200] or type(exc).__name__
        raise ReplayError(f"{path} is not a loadable replay buffer (damaged or not a replay file): {reason}") from None
    needed = {"format", "format_version", "rule_sets", "counters", "credit", *_KEYS}
    absent = sorted(needed - set(data))
    if absent:
        raise ReplayError(f"{path} is not a catena-zero replay buffer (missing {', '.join(absent)})")
    return data


def _check_trajectory(t: Trajectory, rule: _RuleTables) -> None:
    """Shapes, dtypes and value ranges of a trajectory of rule set ``rule``; ValueError names the field."""
    name = RuleSet.of(rule.game).key
    count, n, a = t.num_positions, rule.spec.num_cells, rule.spec.num_actions
    expected = {"states": (count, rule.width), "policy": (count, a), "ownership": (count, n)}
    for field, shape in expected.items():
        if getattr(t, field).shape != shape:
            raise ValueError(f"Trajectory.{field} has shape {getattr(t, field).shape}, {name} needs {shape}")
    for field in ("has_policy", "outcome", "score", "weight", "version"):
        if getattr(t, field).shape != (count,):
            raise ValueError(f"Trajectory.{field} has shape {getattr(t, field).shape}, expected ({count},)")
    if count == 0:
        return
    if not np.isin(t.outcome, (-1, 0, 1)).all():
        raise ValueError("Trajectory.outcome must be +1, 0 or -1")
    if not np.isin(t.ownership, (-1, 0, 1)).all():
        raise ValueError("Trajectory.ownership must be +1, 0 or -1")
    policy = np.asarray(t.policy, dtype=np.float32)
    if not np.isfinite(policy).all() or (policy < 0).any():
        raise ValueError("Trajectory.policy must be finite and >= 0")
    if (policy[np.asarray(t.has_policy, dtype=bool)].sum(axis=1) <= 0).any():
        raise ValueError("Trajectory.policy is all 0 in a position with has_policy")
    if not np.isfinite(t.score).all():
        raise ValueError("Trajectory.score must be finite")
    weight = np.asarray(t.weight)
    if not np.isfinite(weight).all() or (weight < 0).any():
        raise ValueError("Trajectory.weight must be finite and >= 0")
