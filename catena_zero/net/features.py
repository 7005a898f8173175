"""Network inputs: encode environment states as hex-grid planes plus global inputs, and their symmetries.

Shape legend:
    B  batch                      N  cells, A = N + 1 actions (cells, then the button)
    C  planes, NUM_PLANES         F  global inputs, NUM_GLOBALS
    G  axial grid width, 2n-1     S  board symmetries, 12

Cell ``(c, r)`` sits at grid position ``[r, c]`` (``spec.cell_to_grid = r*G + c``); off-board grid
cells are 0 in every plane.

Mixed batches: ``pad_features`` puts positions of several sides into one ``[B, C, Gmax, Gmax]``
batch, each board at the grid origin (rows and columns 0..2n-2, as KataGo places a smaller board
in the top-left corner of its net's grid), with ``Features.sides`` [B] naming each sample's side;
inference (NetEvaluator.evaluate_many) uses it. Everything is from the point of view of the player
to move ("mine", "theirs"), as in AlphaZero, so one network plays both colours; the only colour-dependent rule, komi
for White (R6), enters as a signed global input. Rules and side are global inputs (KataGo 2019),
so one network serves every option and board side (DESIGN.md sec. 2).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from ..game.options import GAME_TYPES, MAX_SIDE, MIN_SIDE, SCORINGS, GameConfig
from ..game.spec import NUM_SYMMETRIES, BoardSpec, board_spec
from ..game.vec import BLACK, EMPTY, WHITE, EnvState, VecEnv

# Planes [B, C, G, G], per cell.
PLANE_ON_BOARD = 0  # 1 on every board cell: shows the convolutions where the hexagon's edges are
PLANE_MINE = 1  # stones of the player to move
PLANE_THEIRS = 2  # stones of the opponent
PLANE_LEGAL = 3  # empty cells where a stone may be placed now (R3; in double also the R8 pair rule)
PLANE_END = 4  # stones that are an end of their ribbon (R2)
PLANE_LIMITED = 5  # stones of claimed ribbons (limited, R5; or R8's final claim): they never change again
PLANE_LENGTH = 6  # per stone: its ribbon's length / LENGTH_SCALE
PLANE_MAJORITY_MINE = 7  # per stone: its ribbon has more stones of mine (who would claim it, R5)
PLANE_MAJORITY_THEIRS = 8  # per stone: its ribbon has more stones of theirs (both 0 on a tie)
PLANE_GROWTH = 9  # per stone: legal cells next to its ribbon's ends / GROWTH_SCALE (0 once limited)
PLANE_LAST_GROWTH = 10  # per stone: exactly one growth cell left, one placement from being claimed (R5)
NUM_PLANES = 11

# Global inputs [B, F], per position.
GLOBAL_BUTTON_OPEN = 0  # the button exists and nobody has taken it (R4)
GLOBAL_BUTTON_MINE = 1  # the player to move holds the button
GLOBAL_BUTTON_THEIRS = 2  # the opponent holds the button
GLOBAL_KOMI = 3  # komi for the player to move (+ as White, - as Black) / the scoring's komi maximum (R6)
GLOBAL_PENDING_SECOND = 4  # double: the next stone is the second of a two-stone turn (R8)
GLOBAL_GAME_TYPE = 5  # one-hot over GAME_TYPES, 3 entries
GLOBAL_SCORING = GLOBAL_GAME_TYPE + len(GAME_TYPES)  # one-hot over SCORINGS, 3 entries
GLOBAL_SIDE = GLOBAL_SCORING + len(SCORINGS)  # (side - 2) / 8, 0 on side 2 and 1 on side 10
NUM_GLOBALS = GLOBAL_SIDE + 1


@dataclass(frozen=True)
class InputLayout:
    """One version of the inputs above, as trained weights depend on it (``INPUT_LAYOUTS``).

    A network's saved metadata records its layout's version (checkpoints and bot files; files
    written before the version was recorded are layout 1). Within the global inputs, the game-type
    and scoring one-hots have one slot per record, by the record's index (which never changes), so
    a layout that only adds records' slots reads an older network exactly: the new slots' input
    weights are zero, and on every rule set the older network knew, those slots are 0 anyway
    (``global_positions``). Any other change (a plane, a scale, a reordering) needs a network
    trained for it: such a layout sets ``pads_from`` to its own version.
    """

    version: int
    planes: int  # C
    game_types: int  # slots of the game-type one-hot: the records of index < game_types
    scorings: int  # slots of the scoring one-hot
    pads_from: int  # the oldest layout whose networks this one reads by zero-weight slots

    @property
    def num_globals(self) -> int:
        return GLOBAL_GAME_TYPE + self.game_types + self.scorings + 1  # the side comes last

    def global_positions(self, older: InputLayout) -> np.ndarray | None:
        """[F of ``older``] int64: where each of ``older``'s global inputs sits in this layout;
        None when a network of ``older`` cannot be read by padding (class docstring)."""
        if (older.version < self.pads_from or older.planes != self.planes
                or older.game_types > self.game_types or older.scorings > self.scorings):
            return None
        return np.concatenate([
            np.arange(GLOBAL_GAME_TYPE + older.game_types),  # the scalars before them, the game type's slots
            GLOBAL_GAME_TYPE + self.game_types + np.arange(older.scorings),  # the scoring's slots
            [self.num_globals - 1],  # the side
        ]).astype(np.int64)


# Every input layout a network may have been trained with, oldest first; the last is the code's.
# A new scoring or game-type record adds a slot: append InputLayout(N + 1, ..., pads_from=<the
# oldest it pads>) here (the check below names the mismatch until one is added).
INPUT_LAYOUTS = (
    InputLayout(1, planes=11, game_types=3, scorings=3, pads_from=1),
)
INPUT_LAYOUT = INPUT_LAYOUTS[-1]
INPUT_LAYOUT_VERSION = INPUT_LAYOUT.version
if (INPUT_LAYOUT.planes, INPUT_LAYOUT.game_types, INPUT_LAYOUT.scorings) != (NUM_PLANES, len(GAME_TYPES), len(SCORINGS)):
    raise RuntimeError(f"the network's inputs ({NUM_PLANES} planes, {len(GAME_TYPES)} game types, {len(SCORINGS)} "
                       f"scorings) are not input layout {INPUT_LAYOUT_VERSION}'s: add their InputLayout to "
                       "net/features.py's INPUT_LAYOUTS")


def input_layout(version: int) -> InputLayout | None:
    """The input layout of ``version``; None for a version this code does not know (a newer one)."""
    return next((layout for layout in INPUT_LAYOUTS if layout.version == version), None)


def layout_problem(version: int) -> str | None:
    """Why this code cannot read a network of input layout ``version``, in words that follow a
    file's name ("...: its network has input layout 2; ..."); None when it can (its own layout,
    or an older one it pads, ``InputLayout.global_positions``)."""
    older = input_layout(version)
    if older is not None and INPUT_LAYOUT.global_positions(older) is not None:
        return None
    readable = [layout.version for layout in INPUT_LAYOUTS if INPUT_LAYOUT.global_positions(layout) is not None]
    newer = older is None and isinstance(version, int) and version > INPUT_LAYOUT_VERSION
    return (f"its network has input layout {version!r}; this catena-zero reads layout"
            f"{'s' if len(readable) > 1 else ''} {', '.join(map(str, readable))}: "
            + ("play it with the newer catena-zero that wrote it" if newer else "retrain it for this version"))


def recorded_layout(fields: dict, error: type[Exception], where: str) -> int:
    """The input layout's version a network file's ``fields`` record (none: 1, every file written
    before it was recorded); ``error`` naming ``where`` for one this code does not know (a newer
    layout: its shapes are unknown here)."""
    layout = fields.get("input_layout", 1)
    if isinstance(layout, bool) or not isinstance(layout, int) or input_layout(layout) is None:
        raise error(f"{where}: {layout_problem(layout)}")
    return layout

# Ribbons on side 6 are mostly a handful of stones long and a ribbon end has at most 5 empty
# neighbours, so these keep the scalar planes around [0, 1] without clipping the rare long ribbon.
LENGTH_SCALE = 10.0
GROWTH_SCALE = 6.0


def grid_side(grid_size: int) -> int:
    """The side n whose board fills a G = 2n-1 grid."""
    return (grid_size + 1) // 2


@dataclass(frozen=True)
class Features:
    """Network input for B positions (numpy, so the replay buffer can store it as is)."""

    planes: np.ndarray  # [B, C, G, G] float32
    globals: np.ndarray  # [B, F] float32
    # [B] int64 board side of each sample, its board at the grid origin (pad_features); None: every
    # sample's board fills the grid (encode's output). Pass it to the network as ``sides``.
    sides: np.ndarray | None = None

    @property
    def batch_size(self) -> int:
        return self.planes.shape[0]

    @property
    def grid_size(self) -> int:
        return self.planes.shape[-1]

    def sample_sides(self) -> np.ndarray:
        """[B] int64: each sample's board side (``sides``, or the grid's side for all)."""
        if self.sides is not None:
            return self.sides
        return np.full(self.batch_size, grid_side(self.grid_size), dtype=np.int64)


def pad_features(parts: list[Features]) -> Features:
    """Concatenate feature batches of any sides into one batch on the largest grid (``sides`` set).

    Each sample's board goes to the grid origin: its planes fill rows and columns 0..g-1 of the
    larger grid and the rest is 0, off-board like every other off-board cell (PLANE_ON_BOARD is 1
    exactly on the sample's own board). Globals already carry the side (GLOBAL_SIDE) and rules, so
    they are concatenated unchanged. Parts may themselves be padded; order is kept.
    """
    if not parts:
        raise ValueError("pad_features needs at least one Features batch")
    grid = max(part.grid_size for part in parts)
    batch = sum(part.batch_size for part in parts)
    planes = np.zeros((batch, NUM_PLANES, grid, grid), dtype=np.float32)
    start = 0
    for part in parts:
        g, stop = part.grid_size, start + part.batch_size
        planes[start:stop, :, :g, :g] = part.planes
        start = stop
    return Features(
        planes=planes,
        globals=np.concatenate([part.globals for part in parts]).astype(np.float32, copy=False),
        sides=np.concatenate([part.sample_sides() for part in parts]).astype(np.int64, copy=False),
    )


def score_scale(game: GameConfig) -> float:
    """Score margins are predicted in units of the scoring's komi maximum (15, or 1000 for quadratic, R6).

    Komi is fed in the same unit (GLOBAL_KOMI), so one komi point moves the input and the predicted
    margin by the same amount, which is what lets the value net read off a fair komi (DESIGN.md sec. 4).
    """
    return float(game.scoring_rule.komi_max)


def encode(env: VecEnv, state: EnvState) -> Features:
    """Planes and global inputs of B states of ``env`` (see the PLANE_* and GLOBAL_* constants)."""
    spec, game = env.spec, env.config
    batch, n, g = state.batch_size, spec.num_cells, spec.grid_size
    board = np.asarray(state.board)  # [B, N]
    mover = np.asarray(state.to_move)[:, None]  # [B, 1]
    stone = board != EMPTY
    mine = stone & (board == mover)
    theirs = stone & ~mine
    legal = env.legal_actions(state)[:, :n]
    ribbons = env.ribbon_info(state)
    mover_is_black = mover == BLACK
    mine_count = np.where(mover_is_black, ribbons.black, ribbons.white)
    theirs_count = np.where(mover_is_black, ribbons.white, ribbons.black)
    growth = np.where(stone & ~ribbons.limited, ribbons.growth, 0)

    cells = np.zeros((batch, NUM_PLANES, n), dtype=np.float32)  # [B, C, N]
    cells[:, PLANE_ON_BOARD] = 1.0
    cells[:, PLANE_MINE] = mine
    cells[:, PLANE_THEIRS] = theirs
    cells[:, PLANE_LEGAL] = legal
    cells[:, PLANE_END] = stone & ribbons.is_end
    cells[:, PLANE_LIMITED] = stone & ribbons.limited
    cells[:, PLANE_LENGTH] = np.where(stone, ribbons.length, 0) / LENGTH_SCALE
    cells[:, PLANE_MAJORITY_MINE] = stone & (mine_count > theirs_count)
    cells[:, PLANE_MAJORITY_THEIRS] = stone & (theirs_count > mine_count)
    cells[:, PLANE_GROWTH] = growth / GROWTH_SCALE
    cells[:, PLANE_LAST_GROWTH] = growth == 1
    planes = np.zeros((batch, NUM_PLANES, g * g), dtype=np.float32)
    planes[:, :, spec.cell_to_grid] = cells

    globals_ = np.zeros((batch, NUM_GLOBALS), dtype=np.float32)
    if game.game_type_rule.has_button:
        button = np.asarray(state.button)
        globals_[:, GLOBAL_BUTTON_OPEN] = button == EMPTY
        globals_[:, GLOBAL_BUTTON_MINE] = button == mover[:, 0]
        globals_[:, GLOBAL_BUTTON_THEIRS] = (button != EMPTY) & (button != mover[:, 0])
    komi_sign = np.where(mover[:, 0] == WHITE, 1.0, -1.0)
    globals_[:, GLOBAL_KOMI] = komi_sign * np.asarray(state.komi) / score_scale(game)
    globals_[:, GLOBAL_PENDING_SECOND] = np.asarray(state.pending_second)
    globals_[:, GLOBAL_GAME_TYPE + game.game_type_rule.index] = 1.0
    globals_[:, GLOBAL_SCORING + game.scoring_rule.index] = 1.0
    globals_[:, GLOBAL_SIDE] = (game.side - MIN_SIDE) / (MAX_SIDE - MIN_SIDE)
    return Features(planes=planes.reshape(batch, NUM_PLANES, g, g), globals=globals_)


# ----------------------------------------------------------------------------------------------
# Symmetries (R1: the 12 symmetries of the board preserve every rule, so they are valid data
# augmentations). Per-cell and per-action arrays use ``spec.transform``; planes use the grid maps.


@lru_cache(maxsize=None)
def grid_symmetries(side: int) -> np.ndarray:
    """[S, G*G] int64: ``y = x[..., m[k]]`` applies symmetry k to flat grid planes ([..., G*G]).

    Consistent with ``spec.transform`` on the board cells; off-board grid cells map to themselves
    (the hexagon's off-board corners are not closed under rotation, and they hold zeros anyway).
    """
    spec = board_spec(side)
    g2 = spec.grid_size**2
    maps = np.tile(np.arange(g2), (NUM_SYMMETRIES, 1))
    maps[:, spec.cell_to_grid] = spec.cell_to_grid[spec.sym_gather]
    maps.setflags(write=False)
    return maps


@lru_cache(maxsize=None)
def inverse_action_symmetries(side: int) -> np.ndarray:
    """[S, A] int64: ``x = y[..., m[k]]`` undoes symmetry k on per-action values (button fixed).

    An output computed on the k-transformed position is mapped back to the original one with it.
    """
    spec = board_spec(side)
    button = np.full((NUM_SYMMETRIES, 1), spec.button_action, dtype=np.int64)
    maps = np.concatenate([spec.sym_map, button], axis=1)
    maps.setflags(write=False)
    return maps


def transform_features(features: Features, spec: BoardSpec, k: int) -> Features:
    """Apply symmetry k to the planes; global inputs are invariant under every symmetry."""
    if features.sides is not None and (features.sides != spec.side).any():
        raise ValueError("transform_features needs one side per batch: transform before pad_features")
    if not 0 <= k < NUM_SYMMETRIES:
        raise ValueError(f"symmetry index must be in 0..{NUM_SYMMETRIES - 1}, got {k}")
    planes = features.planes
    g = spec.grid_size
    if planes.shape[-2:] != (g, g):
        raise ValueError(f"planes are {planes.shape[-2]}x{planes.shape[-1]}, the side-{spec.side} grid is {g}x{g}")
    flat = planes.reshape(*planes.shape[:-2], g * g)[..., grid_symmetries(spec.side)[k]]
    return Features(planes=flat.reshape(planes.shape), globals=features.globals.copy(), sides=features.sides)
