"""``VecEnv``: B games of one configuration stepped at once as one packed int16 array
(RULES.md R1-R10; the layout and why it is fast: ``layout.py``, DESIGN.md sec. 1).

Shape legend:
    B  games in the batch (1 .. tens of thousands)
    N  cells, 3n(n-1)+1, indexed in notation order as in ``spec.py``
    A  actions, N + 1: one per cell, then N = "take the button"
    W  width of one packed game row (``layout._Layout.width``)

The engine is split by job: ``layout`` (the packed row, ``EnvState``), ``batched`` (one
placement in many games as numpy calls), ``row`` (the same placement on one row as a Python
list, for a handful of games), ``scores`` (R6). ``VecEnv`` here is the public interface.
"""

from __future__ import annotations

import numpy as np

from ..options import GameConfig, RuleSet, komi_range
from ..colours import BLACK, EMPTY, WHITE
from ..rules import Game
from ..spec import BoardSpec, board_spec
from .batched import BatchedEngine
from .layout import _layout_for
from .row import RowEngine
from .scores import _row_scores
from .state import EnvState, RibbonInfo

# Up to this many running games, ``step`` and ``play_out`` use the one-row engine (Python lists)
# instead of the vectorised code: numpy's fixed cost per call dominates below it (measured in
# scripts/bench_search.py --single; about the same per game as the vectorised step at this size).
SMALL_BATCH = 4


class VecEnv(BatchedEngine, RowEngine):
    """Steps B games of one configuration at once; the packed state is described in ``layout.py``.

    The side, game type and scoring are fixed per environment; komi varies per game
    (``config.komi`` is the default for ``reset``).
    """

    def __init__(self, config: GameConfig) -> None:
        if not isinstance(config, GameConfig):
            raise ValueError(f"VecEnv needs a GameConfig, got {type(config).__name__}")
        self.config = config
        self.spec: BoardSpec = board_spec(config.side)
        self.num_actions = self.spec.num_actions
        self._lay = _layout_for(RuleSet.of(config))
        rule = config.game_type_rule
        # Plain bools, asked on every step: R8's two stones a turn; R7 no_komi's button, legal
        # once Black's opening stone is down.
        self._double = rule.two_stones_a_turn
        self._button_after_opening = rule.has_button and not rule.button_at_start
        # R1: the 12 board symmetries as index permutations (spec.py's, shared):
        # ``x[..., sym_gather[k]]`` applies symmetry k to per-cell values [..., N],
        # ``x[..., sym_gather_actions[k]]`` to per-action values [..., A] (button fixed).
        self.sym_gather: np.ndarray = self.spec.sym_gather  # [12, N]
        self.sym_gather_actions: np.ndarray = self.spec.sym_gather_actions  # [12, A]
        self._rows_cache = np.arange(0, dtype=np.int64)
        # scratch indexed by game * P + cell, grown on demand: ``_stamp`` for removing
        # repeated (game, cell) pairs, ``_table`` (kept all zero between uses) for claims
        self._stamp = np.zeros(0, dtype=np.int32)
        self._table = np.zeros(0, dtype=np.int16)
        # the same tables as Python lists, for the one-row engine (``_step_row``)
        self._nbr_rows: list[list[int]] = self._lay.nbr.tolist()
        self._adj_list: list[bool] = self._lay.adj.tolist()

    @property
    def to_move_column(self) -> int:
        """Column of TO_MOVE in a packed row (for a caller reading one game's mover cheaply)."""
        return self._lay.to_move

    @property
    def bytes_per_game(self) -> int:
        """Memory of one game's packed state (what a search tree stores per node)."""
        return self._lay.width * np.dtype(np.int16).itemsize

    # ------------------------------------------------------------------ creation and copies
    def reset(self, batch_size: int, komi: int | np.ndarray | None = None) -> EnvState:
        """B new games (empty board, Black to move); komi per game (default ``config.komi``)."""
        if isinstance(batch_size, bool) or not isinstance(batch_size, (int, np.integer)) or batch_size < 0:
            raise ValueError(f"batch_size must be a non-negative integer, got {batch_size!r}")
        komi_arr = np.asarray(self.config.komi if komi is None else komi)
        if komi_arr.ndim > 1 or (komi_arr.ndim == 1 and komi_arr.size != batch_size):
            raise ValueError(f"komi must be one number or one per game ({batch_size}), "
                             f"got shape {komi_arr.shape}")
        komi_arr = np.broadcast_to(komi_arr, (batch_size,))
        if komi_arr.size and not np.issubdtype(komi_arr.dtype, np.integer):
            raise ValueError(f"komi must be whole numbers, got dtype {komi_arr.dtype}")
        lo, hi = komi_range(self.config.scoring)
        if not self.config.game_type_rule.has_komi:
            lo = hi = 0  # R7/R8: no komi in no_komi and double
        if komi_arr.size and (komi_arr.min() < lo or komi_arr.max() > hi):
            raise ValueError(
                f"komi must be in {lo}..{hi} for game type {self.config.game_type!r} and "
                f"scoring {self.config.scoring!r}, got {komi_arr.min()}..{komi_arr.max()}")
        data = np.empty((batch_size, self._lay.width), dtype=np.int16)
        data[:] = self._lay.template
        data[:, self._lay.komi] = komi_arr
        return EnvState(data, self._lay)

    def __reduce__(self):
        # Rebuilt from its config (the layout comes from the cache; scratch arrays start empty).
        return (VecEnv, (self.config,))

    def _check_state(self, state: EnvState) -> None:
        # Identity is the common case (one cached layout per rules); equal rules also qualify,
        # e.g. a layout built before the cache was cleared.
        if not isinstance(state, EnvState) or (
            state.layout is not self._lay and state.layout.rules != self._lay.rules
        ):
            raise ValueError("the state does not belong to this VecEnv (different configuration)")

    def take(self, state: EnvState, idx) -> EnvState:
        """Copies of games ``idx`` ([K] indices or a [B] bool mask) as a new state."""
        self._check_state(state)
        return EnvState(state.data[np.asarray(idx)], self._lay)

    def put(self, dst: EnvState, dst_idx, src: EnvState, src_idx=None) -> None:
        """Scatter games of ``src`` (all, or ``src_idx``) into slots ``dst_idx`` of ``dst``."""
        self._check_state(dst)
        self._check_state(src)
        dst.data[np.asarray(dst_idx)] = src.data if src_idx is None else src.data[np.asarray(src_idx)]

    # ------------------------------------------------------------------ reference engine
    def to_game(self, state: EnvState, i: int) -> Game:
        """Game ``i`` as a reference ``Game`` (its history replayed)."""
        self._check_state(state)
        lay = self._lay
        row = state.data[i]
        cfg = lay.rules.game(komi=int(row[lay.komi]))
        moves = row[lay.history:lay.history + int(row[lay.move_number])]
        return Game.replay(cfg, [self.spec.action_name(int(a)) for a in moves])

    def from_games(self, games: list[Game]) -> EnvState:
        """A state holding ``games`` (same side, game type and scoring as this env)."""
        for g in games:
            if not self._lay.rules.covers(g.config):
                raise ValueError(f"game options {g.config} do not match the environment's {self.config}")
        state = self.reset(len(games), np.array([g.config.komi for g in games], dtype=np.int64))
        histories = [[self.spec.action(move) for move in g.history] for g in games]
        longest = max((len(h) for h in histories), default=0)
        for t in range(longest):
            idx = np.array([i for i, h in enumerate(histories) if len(h) > t], dtype=np.int64)
            sub = self.take(state, idx)
            self.step(sub, np.array([histories[i][t] for i in idx], dtype=np.int64))
            self.put(state, idx, sub)
        return state

    # ------------------------------------------------------------------ queries
    def legal_actions(self, state: EnvState) -> np.ndarray:
        """[B, A] bool legal actions: R3 cells, the R8 pair rule for the first stone of a
        double turn, the button (R4, R7) last; all False where done."""
        self._check_state(state)
        lay = self._lay
        data = state.data
        return data[:, lay.legal:lay.legal + lay.n + 1] == 1

    def terminal_value(self, state: EnvState) -> np.ndarray:
        """[B] float32 result for ``state.to_move`` where done (+1 win, 0 draw, -1 loss);
        0 where the game is still running."""
        self._check_state(state)
        lay = self._lay
        winner = state.data[:, lay.winner]
        done = state.data[:, lay.done] != 0
        value = np.where(winner == state.data[:, lay.to_move], 1.0, -1.0).astype(np.float32)
        value[(winner == EMPTY) | ~done] = 0.0
        return value

    def score_margin(self, state: EnvState) -> np.ndarray:
        """[B] float32 the mover's score minus the opponent's (brief's score definition)."""
        self._check_state(state)
        s = state.scores
        mover_black = state.data[:, self._lay.to_move] == BLACK
        return np.where(mover_black, s[:, 0] - s[:, 1], s[:, 1] - s[:, 0]).astype(np.float32)

    def outcomes(self, state: EnvState, colour: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """([B] float32 result, [B] float32 score margin) of finished games for ``colour`` [B]
        (BLACK/WHITE per game): +1 win, 0 draw, -1 loss, and that colour's score minus the
        other's (R6). For a handful of games the rows are read as Python lists (rollouts of a
        single-game search)."""
        self._check_state(state)
        lay = self._lay
        data = state.data
        colour = np.asarray(colour)
        rule = lay.rules.scoring_rule
        if data.shape[0] > SMALL_BATCH or rule.reads_lengths:
            scores = state.scores
            winner = data[:, lay.winner]
            value = np.where(winner == colour, 1.0, -1.0)
            value[winner == EMPTY] = 0.0
            margin = np.where(colour == BLACK, scores[:, 0] - scores[:, 1], scores[:, 1] - scores[:, 0])
            return value.astype(np.float32), margin.astype(np.float32)
        value, margin = [], []
        for row, me in zip(data.tolist(), colour.tolist()):
            black, white = _row_scores(row, lay, rule)
            winner = row[lay.winner]
            value.append(0.0 if winner == EMPTY else 1.0 if winner == me else -1.0)
            margin.append(black - white if me == BLACK else white - black)
        return np.array(value, np.float32), np.array(margin, np.float32)

    def ribbon_info(self, state: EnvState) -> RibbonInfo:
        """Per-cell features of the ribbon each stone belongs to (zero on empty cells)."""
        self._check_state(state)
        lay = self._lay
        data = state.data
        bsz, n, p = data.shape[0], lay.n, lay.p
        colour = data[:, lay.colour:lay.colour + n]
        stone = colour != EMPTY
        deg = data[:, lay.deg:lay.deg + n]
        root = data[:, lay.label:lay.label + p].astype(np.int64)
        off = np.arange(bsz, dtype=np.int64)[:, None] * p
        # growth is known at the ends; every end writes its ribbon's value at the root
        is_end = stone & (deg <= 1)
        nlegal = data[:, lay.nlegal:lay.nlegal + p].astype(np.int64)
        partner = data[:, lay.partner:lay.partner + n].astype(np.int64)
        cells = np.arange(n)
        # A cell next to both ends of one ribbon would close a ring, so no cell counts twice.
        nl_end = nlegal[:, :n] + np.where(partner != cells, np.take(nlegal.ravel(), off + partner), 0)
        growth_root = np.zeros(bsz * p, dtype=np.int64)
        er, ec = np.nonzero(is_end)
        growth_root[er * p + root[er, ec]] = nl_end[er, ec]
        at_root = off + root[:, :n]  # [B, N] flat index of each cell's root slot

        def per_cell(block: np.ndarray) -> np.ndarray:
            return np.where(stone, np.take(block.ravel(), at_root), 0).astype(np.int16)

        black = per_cell(data[:, lay.black:lay.black + p])
        white = per_cell(data[:, lay.white:lay.white + p])
        growth = per_cell(growth_root.reshape(bsz, p))
        growth[data[:, lay.done] != 0] = 0
        return RibbonInfo(
            is_end=is_end,
            limited=per_cell(data[:, lay.claimed:lay.claimed + p]) != 0,
            length=black + white,
            black=black,
            white=white,
            growth=growth,
        )

    # ------------------------------------------------------------------ stepping

    def step(self, state: EnvState, actions) -> None:
        """Play ``actions`` [B] (cell index, or N for the button) in every running game, in
        place; entries of finished games are ignored. ValueError (naming the first offending
        game) if an action is illegal in a running game; the state is then unchanged."""
        self._check_state(state)
        lay = self._lay
        data = state.data
        bsz = data.shape[0]
        actions = np.asarray(actions)
        if bsz == 1 and actions.shape == (1,) and actions.dtype.kind in "iu":
            return self._step_one(data, int(actions[0]))
        if actions.shape != (bsz,) or actions.dtype.kind not in "iu":
            raise ValueError(f"actions must be an integer array of shape ({bsz},), got "
                             f"{actions.dtype} {actions.shape}")
        done = data[:, lay.done]
        rows = self._rows(bsz) if not done.any() else np.flatnonzero(done == 0)
        if rows.size == 0:
            return
        x = actions[rows].astype(np.int64)
        F = data.reshape(-1)
        base = rows * lay.width
        self._validate(F, rows, base, x)
        if rows.size <= SMALL_BATCH:
            # A handful of games: numpy's fixed cost per call (about 100 calls per step) would
            # dominate, so each game is stepped as a Python list by the one-row engine.
            for row, action in zip(rows.tolist(), x.tolist()):
                values = data[row].tolist()
                self._step_row(values, action)
                data[row] = values
            return

        move_number = F[base + lay.move_number]
        F[base + (lay.history + move_number)] = x
        move_number += 1
        F[base + lay.move_number] = move_number
        is_button = x == lay.n
        if is_button.any():
            bb = base[is_button]
            mover = F[bb + lay.to_move]
            F[bb + lay.button] = mover  # R4: taking the button passes the turn
            F[bb + lay.to_move] = BLACK + WHITE - mover
            F[bb + (lay.legal + lay.n)] = 0
            keep = ~is_button
            rows, base, x, move_number = rows[keep], base[keep], x[keep], move_number[keep]
            if rows.size == 0:
                return
        self._place(data, rows, base, x, move_number)

    def play_out(self, state: EnvState, rng: np.random.Generator) -> None:
        """Play every running game of ``state`` to its end with uniformly random legal moves, in
        place (random rollouts). The same games and draws as repeating
        ``step(state, random_legal_actions(legal_actions(state), rng))`` until all are done (one
        ``rng.random(B)`` per round); a handful of games is played by the one-row engine."""
        self._check_state(state)
        data = state.data
        bsz = data.shape[0]
        if bsz > SMALL_BATCH:
            while not state.done.all():
                self.step(state, random_legal_actions(self.legal_actions(state), rng))
            return
        self._play_out_rows(data, rng)


def random_legal_actions(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """[B] int64 one action per row of ``mask`` [B, A], uniform over its legal ones; -1 in
    rows without any (finished games, which ``VecEnv.step`` ignores).

    The legal (row, action) pairs are listed once in row order; row i picks its
    floor(u * c_i)-th of c_i with u uniform in [0, 1). About half the cost of an argmax over
    random keys, which has to draw B * A random numbers.
    """
    bsz, num = mask.shape
    legal = np.flatnonzero(mask)  # row-major, so each row's legal actions are contiguous
    row_start = np.arange(bsz + 1, dtype=np.int64) * num
    bounds = np.searchsorted(legal, row_start)
    count = np.diff(bounds)
    pick = bounds[:-1] + (rng.random(bsz) * count).astype(np.int64)
    out = legal[np.minimum(pick, max(legal.size - 1, 0))] - row_start[:-1] if legal.size else pick
    out[count == 0] = -1
    return out
