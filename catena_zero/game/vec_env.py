"""Vectorised Catena: B games stepped at once as one packed int16 array (RULES.md R1-R10).

Shape legend:
    B  games in the batch (1 .. tens of thousands)
    N  cells, 3n(n-1)+1, indexed in notation order as in ``spec.py``
    A  actions, N + 1: one per cell, then N = "take the button"
    P  per-cell slots of a field, N + 2: cells 0..N-1, slot N (the button action, used by
       the LEGAL field only) and slot N+1, the sentinel ``SENT`` that pads neighbour tables
    W  width of one packed game row (``_Layout.width``)
    G  axial grid width 2n-1 (``spec.py``; the network's business)

Why one packed array. A search tree stores the state of every expanded node (DESIGN.md
sec. 3, as in mctx), so gathering and scattering game states must be cheap: with every
field of a game in one int16 row, ``take``/``put`` are one fancy-index call each. The
public fields of ``EnvState`` (``board``, ``to_move`` ...) are typed read-only snapshots of
column slices. int16 holds every value: cells and ids < 273, lengths <= 271, komi <= 1000.

Why it is fast (DESIGN.md sec. 1). Every group is a ribbon (a path), so a placement on x
only changes things near x and at the two ends of x's ribbon: a step gathers and scatters
a few dozen values per game (x's 6 neighbours, those of its <= 2 stone neighbours and of
the ribbon's ends, and the neighbours of the cells that became illegal) in the flattened
``[B * W]`` array with precomputed row offsets: a fixed number of numpy calls (about 100)
whatever B is, and no Python loop over games. Rare events (joins that relabel a ribbon,
claims that recolour one, the endgame pair rule of R8, game ends) run on the compacted
subset of games where they happen. Everything is gathers, scatters, scatter-adds,
elementwise arithmetic and nonzero, which map one to one onto torch for a GPU port
(``index_select``/``index_put_``/``index_add_``/``nonzero``); only the scratch arrays
behind ``_first_of_each`` would become a sort-based unique there.

Per game, the packed row holds these fields (each per-cell field is P wide):
    COLOUR[P]    EMPTY/BLACK/WHITE now, after claims (R5); at the end the final owners
    LEGAL[P]     nonzero where placing is legal by R3 (illegal is forever, so it only ever
                 drops); 1: a legal action now, 2: R3-legal but forbidden as the first stone
                 of a double turn by R8's pair rule (set when the turn starts, reset to 1
                 after that stone); slot N: 1 if the button may be taken (R4, R7)
    DEG[P]       number of neighbouring stones; for a stone its degree in its chain, so a
                 stone is an end iff DEG <= 1 (R2); for an empty cell the k of R3
    LABEL[P]     ribbon id of a stone (SENT for empty cells): the cell of one of its stones,
                 the ribbon's root, whose slot holds the ribbon's statistics. Two ends are
                 in one ribbon iff their LABELs are equal (the ring test of R3). A merge
                 keeps the longer ribbon's id and relabels the other's stones (a row
                 compare on the few games that merged).
    PARTNER[P]   for an end, the other end of its ribbon (a single stone is its own partner)
    NLEGAL[P]    number of R3-legal neighbouring cells; a ribbon is limited (R2) iff both
                 ends have none (cells next to a middle stone are never legal)
    BLACK[P], WHITE[P]   at a root: the ribbon's stones of each colour (length = sum)
    CLAIMED[P]   at a root: the ribbon was claimed (R5 when it became limited, or R8's
                 final claim); a claimed ribbon is monochrome and never changes again
    HISTORY[N+1] actions played in order, -1 padded
    scalars      TO_MOVE, MOVE_NUMBER, BUTTON, DONE, WINNER, KOMI, NUM_LEGAL (legal cells)
The SENT slot reads as an empty, illegal cell without ribbon; its DEG and NLEGAL entries
take the writes aimed at padding and are scratch.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import compress

import numpy as np

from .options import GameConfig, komi_range
from .rules import BLACK, EMPTY, WHITE, Game
from .spec import BoardSpec, board_spec

__all__ = ["EMPTY", "BLACK", "WHITE", "EnvState", "RibbonInfo", "VecEnv", "random_legal_actions"]

# A stone on x (with k stone neighbours) makes legal cells illegal only among (DESIGN.md
# sec. 1): x; its 6 - k empty neighbours; for each stone neighbour that stops being an end,
# its neighbours other than x and its chain neighbour (4); and if x joins two ribbons, the
# common neighbours of the new ends (2 at most on a hex grid). That is at most
# 1 + 4 + 2 * 4 + 2 = 15 cells, so with more legal cells every first stone of a double turn
# leaves one for the second (R8) and the pair rule needs no per-cell check.
_LOST_MAX = 15

# Up to this many running games, ``step`` and ``play_out`` use the one-row engine (Python lists)
# instead of the vectorised code: numpy's fixed cost per call dominates below it (measured in
# scripts/bench_search.py --single; about the same per game as the vectorised step at this size).
SMALL_BATCH = 4

# A row of 8 bools viewed as a uint64 has one byte per column. Its lowest set bit, isolated
# as ``v & -v``, is one of 8 powers 256**j, told apart by their residues mod 19 (distinct and
# nonzero); residue 0 (no column set) decodes to column 7, which is always SENT. Built from
# the actual view, so it holds for either byte order.
_BYTE_DIR = np.full(19, 7, dtype=np.int64)
_BYTE_DIR[np.eye(8, dtype=bool).view(np.uint64).ravel() % 19] = np.arange(8)
_BYTE_DIR.setflags(write=False)


@dataclass(frozen=True, eq=False)
class _Layout:
    """Column offsets of the packed game row, and the static tables of one board size."""

    config: GameConfig
    spec: BoardSpec
    n: int  # N
    p: int  # P = N + 2
    sent: int  # N + 1, the sentinel slot
    width: int  # W
    # scalar columns
    to_move: int
    move_number: int
    button: int
    done: int
    winner: int
    komi: int
    num_legal: int
    # per-cell fields: offset of slot 0
    colour: int
    legal: int
    deg: int
    label: int
    partner: int
    nlegal: int
    black: int
    white: int
    claimed: int
    history: int
    nbr: np.ndarray = field(repr=False)  # [P, 8] neighbours, padded with SENT; rows N, SENT all SENT
    adj: np.ndarray = field(repr=False)  # [P * P] bool, adj[c * P + d]: c and d are neighbours
    template: np.ndarray = field(repr=False)  # [W] int16, the packed row of a new game (komi 0)

    @property
    def rules(self) -> tuple[int, str, str]:
        """(side, game type, scoring): what the layout and the stepping depend on (komi is per game)."""
        return _rules(self.config)

    def __reduce__(self):
        # Pickled as its rules only (the tables are about 53 KB on side 6): unpickling looks the
        # layout up in this process's cache, so states sent between processes (Ray) stay small
        # and belong to every VecEnv of the same rules on arrival.
        return (_layout_for, (self.config,))


def _rules(config: GameConfig) -> tuple[int, str, str]:
    return (config.side, config.game_type, config.scoring)


# One layout per rule set and process, shared by every VecEnv and every unpickled EnvState.
_LAYOUTS: dict[tuple[int, str, str], _Layout] = {}


def _layout_for(config: GameConfig) -> _Layout:
    """The cached layout of ``config``'s rules (built on first use; komi plays no part)."""
    key = _rules(config)
    layout = _LAYOUTS.get(key)
    if layout is None:
        layout = _LAYOUTS[key] = _make_layout(GameConfig(side=config.side, game_type=config.game_type,
                                                         scoring=config.scoring))
    return layout


def _make_layout(config: GameConfig) -> _Layout:
    spec = board_spec(config.side)
    n = spec.num_cells
    p, sent = n + 2, n + 1
    scalars = ("to_move", "move_number", "button", "done", "winner", "komi", "num_legal")
    offsets = {name: i for i, name in enumerate(scalars)}
    col = len(scalars)
    for name in ("colour", "legal", "deg", "label", "partner", "nlegal", "black", "white", "claimed"):
        offsets[name] = col
        col += p
    offsets["history"] = col
    width = col + n + 1
    assert width < 2**15, "flat offsets within a row must fit the int16 values they are added to"

    # Eight columns (two always SENT) so that a row of 8 bools is one uint64: "any" and
    # "how many" over a cell's neighbours are then one elementwise op (see _BYTE_DIR).
    nbr = np.full((p, 8), sent, dtype=np.int64)
    nbr[:n, :6] = np.where(spec.neighbours[:n] == spec.pad, sent, spec.neighbours[:n])
    adj = np.zeros((p, p), dtype=bool)
    rows = np.repeat(np.arange(n), 8)
    adj[rows, nbr[:n].ravel()] = True
    adj[:, sent] = False  # the sentinel is nobody's neighbour

    t = np.zeros(width, dtype=np.int16)
    t[offsets["to_move"]] = BLACK
    t[offsets["num_legal"]] = n
    t[offsets["legal"]:offsets["legal"] + n] = 1
    # R4: the button can be taken from the start; R7 no_komi: only after Black's first stone.
    t[offsets["legal"] + n] = config.game_type == "komi"
    t[offsets["label"]:offsets["label"] + p] = sent
    t[offsets["partner"]:offsets["partner"] + p] = np.arange(p)
    t[offsets["nlegal"]:offsets["nlegal"] + n] = spec.degree
    t[offsets["history"]:offsets["history"] + n + 1] = -1
    for arr in (nbr, adj, t):
        arr.setflags(write=False)
    return _Layout(config=config, spec=spec, n=n, p=p, sent=sent, width=width, **offsets,
                   nbr=nbr, adj=adj.ravel(), template=t)


@dataclass(eq=False)
class EnvState:
    """B games of one ``VecEnv``. ``data`` is the packed state; the named properties are
    typed read-only snapshots (copies) of it. Change games only through ``VecEnv``.

    A state belongs to every ``VecEnv`` with the same rules (side, game type, scoring). It
    pickles as its packed rows plus those rules (``_Layout.__reduce__``), about ``data.nbytes``
    + 200 bytes, and is valid again after unpickling in any process (Ray).
    """

    data: np.ndarray  # [B, W] int16 packed rows, layout in the module docstring
    layout: _Layout = field(repr=False)

    @property
    def batch_size(self) -> int:
        return self.data.shape[0]

    def _block(self, offset: int, size: int) -> np.ndarray:
        return self.data[:, offset:offset + size]

    @property
    def board(self) -> np.ndarray:
        """[B, N] int8 colour of every cell now (after claims); at the end the final owners."""
        return self._block(self.layout.colour, self.layout.n).astype(np.int8)

    @property
    def to_move(self) -> np.ndarray:
        """[B] int8 BLACK/WHITE to move; after the end, who would move next (R10)."""
        return self.data[:, self.layout.to_move].astype(np.int8)

    @property
    def move_number(self) -> np.ndarray:
        """[B] int32 moves played (stones and the button)."""
        return self.data[:, self.layout.move_number].astype(np.int32)

    @property
    def pending_second(self) -> np.ndarray:
        """[B] bool double (R8): the next stone is the second of a two-stone turn."""
        m = self.data[:, self.layout.move_number]
        if self.layout.config.game_type != "double":
            return np.zeros(self.batch_size, dtype=bool)
        # Black's opening stone is move 1; then each turn is stones (2t, 2t+1).
        return (m >= 2) & (m % 2 == 0) & (self.data[:, self.layout.done] == 0)

    @property
    def button(self) -> np.ndarray:
        """[B] int8 button holder, EMPTY if not taken; after the end the R6 assignment."""
        return self.data[:, self.layout.button].astype(np.int8)

    @property
    def done(self) -> np.ndarray:
        """[B] bool the game is over."""
        return self.data[:, self.layout.done] != 0

    @property
    def winner(self) -> np.ndarray:
        """[B] int8 where done: EMPTY (0) for a draw, BLACK or WHITE; 0 while running."""
        return self.data[:, self.layout.winner].astype(np.int8)

    @property
    def komi(self) -> np.ndarray:
        """[B] int32 komi of each game (R6, R7)."""
        return self.data[:, self.layout.komi].astype(np.int32)

    @property
    def history(self) -> np.ndarray:
        """[B, N+1] int16 actions played in order, -1 padded."""
        return self._block(self.layout.history, self.layout.n + 1).copy()

    @property
    def scores(self) -> np.ndarray:
        """[B, 2] float32 [black, white] scores as defined in the brief (R6), current during
        the game and final at the end. Computed on demand, O(B * N)."""
        return _scores(self.data, self.layout)


@dataclass(frozen=True)
class RibbonInfo:
    """Per-cell ribbon features for the network, all [B, N]; zero on empty cells."""

    is_end: np.ndarray  # [B, N] bool the stone is an end of its ribbon (R2)
    limited: np.ndarray  # [B, N] bool its ribbon is claimed: limited (R5), or R8's final claim
    length: np.ndarray  # [B, N] int16 stones in its ribbon
    black: np.ndarray  # [B, N] int16 black stones in its ribbon
    white: np.ndarray  # [B, N] int16 white stones in its ribbon
    growth: np.ndarray  # [B, N] int16 distinct legal (R3) cells next to its ribbon's ends


@dataclass(frozen=True)
class _Neighbourhood:
    """What a stone on x would touch, read from the state before placing it ([K] per game)."""

    nb: np.ndarray  # [K, 8] neighbour cells of x (SENT padded)
    cells: np.ndarray  # [K, 8] their flat indices in the packed array, without field offset
    deg: np.ndarray  # [K, 8] their DEG before the placement
    k: np.ndarray  # [K] stones next to x (R3's k; 0..2 as x is legal)
    ab: np.ndarray  # [2K] x's first stone neighbour a (SENT if none), then its second b
    #                 (SENT if k < 2): stacked so that each lookup for both is one gather
    base2: np.ndarray  # [2K] the games' row offsets, twice, to go with ab
    p: np.ndarray  # [K] one end of x's ribbon after the placement (x if k == 0)
    q: np.ndarray  # [K] the other end (x if k <= 1)


class VecEnv:
    """Steps B games of one configuration at once; see the module docstring for the state.

    The side, game type and scoring are fixed per environment; komi varies per game
    (``config.komi`` is the default for ``reset``).
    """

    def __init__(self, config: GameConfig) -> None:
        if not isinstance(config, GameConfig):
            raise ValueError(f"VecEnv needs a GameConfig, got {type(config).__name__}")
        self.config = config
        self.spec: BoardSpec = board_spec(config.side)
        self.num_actions = self.spec.num_actions
        self._lay = _layout_for(config)
        self._double = config.game_type == "double"
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
        if self.config.game_type != "komi":
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

    def concat(self, states: list[EnvState]) -> EnvState:
        """One state holding the games of ``states`` in order."""
        for s in states:
            self._check_state(s)
        return EnvState(np.concatenate([s.data for s in states]), self._lay)

    # ------------------------------------------------------------------ reference engine
    def to_game(self, state: EnvState, i: int) -> Game:
        """Game ``i`` as a reference ``Game`` (its history replayed)."""
        self._check_state(state)
        lay = self._lay
        row = state.data[i]
        cfg = GameConfig(side=self.config.side, game_type=self.config.game_type,
                         scoring=self.config.scoring, komi=int(row[lay.komi]))
        moves = row[lay.history:lay.history + int(row[lay.move_number])]
        return Game.replay(cfg, [int(a) for a in moves])

    def from_games(self, games: list[Game]) -> EnvState:
        """A state holding ``games`` (same side, game type and scoring as this env)."""
        for g in games:
            c = g.config
            mine = self.config
            if (c.side, c.game_type, c.scoring) != (mine.side, mine.game_type, mine.scoring):
                raise ValueError(f"game options {c} do not match the environment's {self.config}")
        state = self.reset(len(games), np.array([g.config.komi for g in games], dtype=np.int64))
        histories = [g.actions for g in games]
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
        if data.shape[0] > SMALL_BATCH or lay.config.scoring != "standard":
            scores = state.scores
            winner = data[:, lay.winner]
            value = np.where(winner == colour, 1.0, -1.0)
            value[winner == EMPTY] = 0.0
            margin = np.where(colour == BLACK, scores[:, 0] - scores[:, 1], scores[:, 1] - scores[:, 0])
            return value.astype(np.float32), margin.astype(np.float32)
        value, margin = [], []
        for row, me in zip(data.tolist(), colour.tolist()):  # _scores' standard branch, on lists
            board = row[lay.colour:lay.colour + lay.n]
            button = row[lay.button]
            black = board.count(BLACK) + 0.5 * (button == BLACK)
            white = board.count(WHITE) + 0.5 * (button == WHITE) + row[lay.komi]
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
    def _rows(self, bsz: int) -> np.ndarray:
        if self._rows_cache.size != bsz:
            self._rows_cache = np.arange(bsz, dtype=np.int64)
        return self._rows_cache

    def _first_of_each(self, key: np.ndarray, size: int) -> np.ndarray:
        """Indices of the first occurrence of every distinct value in ``key`` (< ``size``):
        every position writes its index to a scratch slot, one write per slot wins, and a
        position is kept iff it reads its own index back (O(len(key)), no sort)."""
        if self._stamp.size < size:
            self._stamp = np.empty(size, dtype=np.int32)
        order = np.arange(key.size, dtype=np.int32)
        self._stamp[key] = order
        return np.flatnonzero(self._stamp[key] == order)

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

    # ------------------------------------------------------------------ the one-row engine
    # ``step`` for a handful of games, and random playouts: the same algorithm as the vectorised
    # ``_place`` below, statement for statement, on one game's packed row as a Python list
    # (base offset 0), so that it writes exactly the same values (tests/test_vec_env.py compares
    # the rows byte for byte). Rare events that need whole-row work reuse the vectorised code on
    # a one-row array: R8's pair rule near the end of a double game, and the final scores.

    def _step_one(self, data: np.ndarray, x: int) -> None:
        """``step`` for a batch of one game (a single-game search steps one node at a time)."""
        lay = self._lay
        F = data[0].tolist()
        if F[lay.done]:
            return
        if not (0 <= x <= lay.n and F[lay.legal + x] == 1):
            raise ValueError(f"illegal action {x} in game 0 "
                             f"(occupied, forbidden by R3, the R8 pair rule, or the button R4/R7)")
        self._step_row(F, x)
        data[0] = F

    def _step_row(self, F: list, x: int) -> None:
        """Play the legal action x in the running game whose packed row is the list F, in place."""
        lay = self._lay
        move_number = F[lay.move_number]
        F[lay.history + move_number] = x
        move_number += 1
        F[lay.move_number] = move_number
        if x == lay.n:
            mover = F[lay.to_move]
            F[lay.button] = mover  # R4: taking the button passes the turn
            F[lay.to_move] = BLACK + WHITE - mover
            F[lay.legal + lay.n] = 0
            return
        self._place_row(F, x, move_number)

    def _place_row(self, F: list, x: int, move_number: int) -> None:
        """``_place`` for one game (see there for the why of every step)."""
        lay = self._lay
        sent, p_ = lay.sent, lay.p
        colour_, legal_, deg_, label_ = lay.colour, lay.legal, lay.deg, lay.label
        partner_, nlegal_, black_, white_ = lay.partner, lay.nlegal, lay.black, lay.white
        nbr, adj = self._nbr_rows, self._adj_list
        me = F[lay.to_move]
        # --- x's neighbourhood, read before the placement (``_neighbourhood``)
        nb = nbr[x]
        deg = [F[deg_ + c] for c in nb]
        stones = [c for c in nb if F[colour_ + c]]  # (EMPTY is 0)
        k = len(stones)
        if k == 0:
            a = b = sent
            p = q = x
        else:
            a = stones[0]
            p = F[partner_ + a]
            if k == 1:
                b, q = sent, x
            else:
                b = stones[1]
                q = F[partner_ + b]
        # --- the legal cells that become illegal (``_lost_cells``); LEGAL is not read again
        # before the legality update, so each is cleared as soon as it is found (once each)
        if k == 2:
            cells = list(nb)
        elif k == 1:
            row = p * p_
            cells = [c if (d >= 2 or adj[row + c]) else sent for c, d in zip(nb, deg)]  # adj is symmetric
        else:
            cells = [c if d >= 2 else sent for c, d in zip(nb, deg)]
        cells[7] = x
        if k >= 1 and F[deg_ + a] == 1:
            cells += nbr[a]
        if k == 2:
            if F[deg_ + b] == 1:
                cells += nbr[b]
            row = q * p_
            cells += [c for c in nbr[p] if adj[row + c]]
        lost = []
        for c in cells:
            if F[legal_ + c]:
                F[legal_ + c] = 0
                lost.append(c)
        # --- ribbons
        ra, rb = F[label_ + a], F[label_ + b]
        black_a, black_b, white_a, white_b = F[black_ + ra], F[black_ + rb], F[white_ + ra], F[white_ + rb]
        a_wins = black_a + white_a >= black_b + white_b
        rid = x if k == 0 else (ra if a_wins else rb)
        F[colour_ + x] = me
        F[label_ + x] = rid
        F[partner_ + p] = q
        F[partner_ + q] = p
        is_black = me == BLACK
        F[black_ + rid] = black_a + black_b + is_black
        F[white_ + rid] = white_a + white_b + (not is_black)
        for c, d in zip(nb, deg):
            F[deg_ + c] = d + 1
        if k == 2:  # relabel the shorter ribbon's stones (list.index scans at C speed)
            loser = rb if a_wins else ra
            labels = F[label_:label_ + lay.n]
            at = -1
            try:
                while True:
                    at = labels.index(loser, at + 1)
                    F[label_ + at] = rid
            except ValueError:
                pass
        # --- legality
        F[lay.num_legal] -= len(lost)
        around = [c for z in lost for c in nbr[z]]
        for c in around:
            F[nlegal_ + c] -= 1
        # --- R5 claims, decided on the state after the placement, before any claim
        candidates = [c for c in around if F[nlegal_ + c] == 0]
        if F[nlegal_ + p] == 0:
            candidates.append(p)
        if candidates:
            claims = [
                F[label_ + c] for c in candidates
                if F[colour_ + c] != EMPTY and F[deg_ + c] <= 1 and F[nlegal_ + F[partner_ + c]] == 0
                and F[lay.claimed + F[label_ + c]] == 0
            ]
            if claims:
                self._claim_row(F, claims, BLACK + WHITE - me)  # R5: a tie to the placer's opponent
        # --- the turn (R4, R8) and the end of the game (R6, R8)
        if not self._double:
            F[lay.to_move] = BLACK + WHITE - me
            if self.config.game_type == "no_komi" and move_number == 1:
                F[legal_ + lay.n] = 1  # R7: the button once Black's first stone is down
            if F[lay.num_legal] == 0:
                F[lay.done] = 1
                F[legal_ + lay.n] = 0
                if F[lay.button] == EMPTY:
                    F[lay.button] = BLACK + WHITE - me  # R6
                self._row_winner(F)
            return
        turn_starts = move_number % 2 == 1
        F[lay.to_move] = BLACK + WHITE - me if turn_starts else me
        if turn_starts and F[lay.num_legal] <= _LOST_MAX:
            data = np.array([F], dtype=np.int16)  # R8's pair rule: rare, on a one-row array
            rows = np.zeros(1, dtype=np.int64)
            pair_ok = self._pair_mask(data, rows)
            legal = data[:, legal_:legal_ + lay.n]
            data[:, legal_:legal_ + lay.n] = np.where(pair_ok, legal, 2 * (legal != 0))
            if not pair_ok.any():
                self._end_double(data, rows)
            F[:] = data[0].tolist()
        elif not turn_starts and F[lay.num_legal] < _LOST_MAX:
            for c in range(legal_, legal_ + lay.n):
                if F[c] > 1:
                    F[c] = 1

    def _claim_row(self, F: list, rids: list[int], tie_to: int) -> None:
        """``_claim`` for one game: ribbons ``rids`` (may repeat) go to their majority."""
        lay = self._lay
        black_, white_ = lay.black, lay.white
        counts = [(r, F[black_ + r], F[white_ + r]) for r in rids]  # all read before any write
        recolour = {}
        for r, black, white in counts:
            winner = BLACK if black > white else WHITE if white > black else tie_to
            F[lay.claimed + r] = 1
            F[black_ + r] = black + white if winner == BLACK else 0
            F[white_ + r] = black + white if winner == WHITE else 0
            if black > 0 and white > 0:
                recolour[r] = winner
        if recolour:
            label_, colour_ = lay.label, lay.colour
            labels = F[label_:label_ + lay.n]
            for r, winner in recolour.items():
                at = -1
                try:
                    while True:
                        at = labels.index(r, at + 1)
                        F[colour_ + at] = winner
                except ValueError:
                    pass

    def _row_winner(self, F: list) -> None:
        """``_set_winner`` for one finished game (scores on a one-row array: once per game)."""
        lay = self._lay
        if lay.config.scoring == "standard":  # _scores' standard branch, on the list
            board = F[lay.colour:lay.colour + lay.n]
            button, komi = F[lay.button], F[lay.komi]
            black = board.count(BLACK) + 0.5 * (button == BLACK)
            white = board.count(WHITE) + 0.5 * (button == WHITE) + komi
        else:
            black, white = _scores(np.array([F], dtype=np.int16), lay)[0].tolist()
        F[lay.winner] = BLACK if black > white else WHITE if white > black else F[lay.button]

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
        lay = self._lay
        lo, hi = lay.legal, lay.legal + lay.n + 1
        if bsz == 1:
            F = data[0].tolist()
            actions = range(lay.n + 1)
            while not F[lay.done]:
                draw = rng.random()  # the same double as rng.random(1)
                if self._double:  # LEGAL 2 (R8 pair rule) is not a legal action
                    legal = [a for a, v in enumerate(F[lo:hi]) if v == 1]
                else:  # LEGAL is 0 or 1
                    legal = list(compress(actions, F[lo:hi]))
                self._step_row(F, legal[int(draw * len(legal))])
            data[0] = F
            return
        games = [data[i].tolist() for i in range(bsz)]
        running = [i for i in range(bsz) if not games[i][lay.done]]
        while running:
            draws = rng.random(bsz).tolist()
            for i in running:
                F = games[i]
                legal = [a for a, v in enumerate(F[lo:hi]) if v == 1]
                self._step_row(F, legal[int(draws[i] * len(legal))])
            running = [i for i in running if not games[i][lay.done]]
        data[:] = np.array(games, dtype=np.int16)

    def _validate(self, F: np.ndarray, rows: np.ndarray, base: np.ndarray, x: np.ndarray) -> None:
        lay = self._lay
        bad = (x < 0) | (x > lay.n)
        if not bad.any():
            bad = F[base + (lay.legal + x)] != 1  # R3, R4, R7 and R8's pair rule
        if bad.any():
            i = int(np.argmax(bad))
            raise ValueError(f"illegal action {int(x[i])} in game {int(rows[i])} "
                             f"(occupied, forbidden by R3, the R8 pair rule, or the button R4/R7)")

    def _neighbourhood(self, F: np.ndarray, base: np.ndarray, x: np.ndarray) -> _Neighbourhood:
        """Read x's surroundings before a stone is placed on the legal cell x (R3)."""
        lay = self._lay
        nb = lay.nbr[x]  # [K, 8]
        cells = base[:, None] + nb
        stone = F[cells + lay.colour] != EMPTY
        bits = stone.view(np.uint64).ravel()  # byte i set iff neighbour i is a stone
        k = np.bitwise_count(bits)
        low = bits & (np.uint64(0) - bits)  # the lowest set byte
        row8 = x * 8
        column = _BYTE_DIR[np.concatenate([low, bits ^ low]) % np.uint64(19)]  # [2K]
        ab = lay.nbr.ravel()[np.concatenate([row8, row8]) + column]
        base2 = np.concatenate([base, base])
        partner = F[base2 + (lay.partner + ab)]
        p = np.where(k >= 1, partner[:x.size], x)
        q = np.where(k == 2, partner[x.size:], x)
        return _Neighbourhood(nb=nb, cells=cells, deg=F[cells + lay.deg], k=k, ab=ab, base2=base2, p=p, q=q)

    def _lost_cells(self, F: np.ndarray, base: np.ndarray, x: np.ndarray,
                    h: _Neighbourhood) -> tuple[np.ndarray, np.ndarray]:
        """The legal cells that a stone on x makes illegal (DESIGN.md sec. 1), read from the
        state before the placement: ``(i, cell)`` pairs, game ``i`` of the K, x included; a
        cell may be listed twice."""
        lay = self._lay
        sent, p_ = lay.sent, lay.p
        k = h.k[:, None]
        # x's neighbours: k >= 3 after x, or x itself is a middle stone (k == 2), or with
        # k == 1 the cell also touches the far end p of x's new ribbon (a ring). Column 7 of
        # a neighbour row is always SENT: x goes there.
        ring = (k == 1) & lay.adj[h.nb * p_ + h.p[:, None]]
        near = np.where((h.deg >= 2) | (k == 2) | ring, h.nb, sent)
        near[:, 7] = x
        # x's stone neighbours with one neighbour before become middle stones: every empty
        # cell next to them becomes illegal (it would give them a third neighbour).
        ia = np.flatnonzero(F[h.base2 + (lay.deg + h.ab)] == 1)
        ia_rows = ia % x.size
        around_ab = lay.nbr[h.ab[ia]]
        # a merge (k == 2): a cell next to both new ends p and q would close a ring.
        ij = np.flatnonzero(h.k == 2)
        around_p = lay.nbr[h.p[ij]]
        closes = np.where(lay.adj[around_p * p_ + h.q[ij, None]], around_p, sent)
        # keep those legal now
        rows = np.concatenate([np.arange(x.size), ia_rows, ij])
        cells = np.concatenate([near, around_ab, closes])  # [K + |ia| + |ij|, 8]
        hit = np.flatnonzero(F[base[rows, None] + (lay.legal + cells)])
        return rows[hit // 8], cells.ravel()[hit]

    def _cells_left_after(self, F: np.ndarray, base: np.ndarray, x: np.ndarray) -> np.ndarray:
        """[K] legal cells that remain after a stone on the legal cell x (R8's pair rule)."""
        lay = self._lay
        h = self._neighbourhood(F, base, x)
        i, cells = self._lost_cells(F, base, x, h)
        distinct = np.unique(i * lay.p + cells) // lay.p
        return F[base + lay.num_legal] - np.bincount(distinct, minlength=x.size)

    def _pair_mask(self, data: np.ndarray, rows: np.ndarray) -> np.ndarray:
        """[R, N] bool R3-legal cells of ``rows`` after which a legal cell remains (R8)."""
        lay = self._lay
        legal = data[rows, lay.legal:lay.legal + lay.n] != 0
        ti, x = np.nonzero(legal)
        ok = self._cells_left_after(data.reshape(-1), rows[ti] * lay.width, x.astype(np.int64)) > 0
        mask = np.zeros_like(legal)
        mask[ti, x] = ok
        return mask

    def _place(self, data: np.ndarray, rows: np.ndarray, base: np.ndarray, x: np.ndarray,
               move_number: np.ndarray) -> None:
        """Place the mover's stone on the legal cells x of games ``rows``: R3 bookkeeping,
        R5 claims, then the turn (R4, R8) and the end of the game (R6, R8)."""
        lay = self._lay
        F = data.reshape(-1)
        me = F[base + lay.to_move]
        h = self._neighbourhood(F, base, x)
        li, lost = self._lost_cells(F, base, x, h)

        # --- ribbons: x starts one (k=0), extends one (k=1) or joins two (k=2); a join
        # keeps the longer ribbon's id and relabels the other one.
        kk = x.size
        rab = F[h.base2 + (lay.label + h.ab)]  # ids of the ribbons of a and b; SENT when absent
        black, white = F[h.base2 + (lay.black + rab)], F[h.base2 + (lay.white + rab)]
        ra, rb = rab[:kk], rab[kk:]
        black_a, black_b, white_a, white_b = black[:kk], black[kk:], white[:kk], white[kk:]
        a_wins = black_a + white_a >= black_b + white_b
        rid = np.where(h.k == 0, x, np.where(a_wins, ra, rb))
        F[base + (lay.colour + x)] = me
        F[base + (lay.label + x)] = rid
        F[base + (lay.partner + h.p)] = h.q
        F[base + (lay.partner + h.q)] = h.p
        is_black = me == BLACK
        F[base + (lay.black + rid)] = black_a + black_b + is_black
        F[base + (lay.white + rid)] = white_a + white_b + ~is_black
        F[h.cells + lay.deg] = h.deg + 1
        joined = np.flatnonzero(h.k == 2)
        if joined.size:
            jrows = rows[joined]
            loser = np.where(a_wins[joined], rb[joined], ra[joined])[:, None]
            labels = data[jrows, lay.label:lay.label + lay.n]
            data[jrows, lay.label:lay.label + lay.n] = np.where(labels == loser, rid[joined, None], labels)

        # --- legality: drop the cells that just became illegal (each once)
        first = self._first_of_each(li * lay.p + lost, rows.size * lay.p)
        li = li[first]
        lbase = base[li]
        cell_at = lbase + lost[first]  # flat index, without field offset
        F[cell_at + lay.legal] = 0
        F[base + lay.num_legal] -= np.bincount(li, minlength=rows.size).astype(np.int16)
        around = (lbase[:, None] + lay.nbr[cell_at - lbase]).ravel()  # [L * 8]
        np.subtract.at(F, around + lay.nlegal, np.int16(1))

        # --- R5: a ribbon can only just have become limited if it is x's, or it has an end
        # next to a cell that just became illegal. It is limited iff neither end has a legal
        # neighbour (cells next to middle stones never are legal, R3).
        maybe = np.flatnonzero(F[around + lay.nlegal] == 0)
        own = np.flatnonzero(F[base + (lay.nlegal + h.p)] == 0)  # x's ribbon, by its end p
        cand = np.concatenate([around[maybe], base[own] + h.p[own]])
        cand_row = np.concatenate([li[maybe // 8], own])
        cbase = base[cand_row]
        r = F[cand + lay.label].astype(np.int64)
        limited = np.flatnonzero(
            (F[cand + lay.colour] != EMPTY) & (F[cand + lay.deg] <= 1)
            & (F[cbase + (lay.nlegal + F[cand + lay.partner])] == 0)
            & (F[cbase + (lay.claimed + r)] == 0))
        if limited.size:
            cr = cand_row[limited]
            # R5: a tie goes to the opponent of the player who placed the stone.
            self._claim(data, rows[cr], r[limited], BLACK + WHITE - me[cr])

        # --- the turn (R4, R8) and the end of the game (R6, R8)
        if not self._double:
            F[base + lay.to_move] = BLACK + WHITE - me
            if self.config.game_type == "no_komi":
                # R7: the button may be taken once Black's first stone is down.
                opening = move_number == 1
                if opening.any():
                    F[base[opening] + (lay.legal + lay.n)] = 1
            over = F[base + lay.num_legal] == 0
            if over.any():
                ob = base[over]
                F[ob + lay.done] = 1
                F[ob + (lay.legal + lay.n)] = 0
                holder = F[ob + lay.button]
                # R6: an untaken button goes to the player who did not place the last stone.
                F[ob + lay.button] = np.where(holder == EMPTY, BLACK + WHITE - me[over], holder)
                self._set_winner(data, rows[over])
            return
        # R8: Black's single opening stone (move 1), then turns of two stones (2t, 2t+1).
        turn_starts = move_number % 2 == 1
        F[base + lay.to_move] = np.where(turn_starts, BLACK + WHITE - me, me)
        starting = rows[turn_starts]
        # R8 pair rule: only with few legal cells can a first stone take them all.
        needs_check = starting[F[base[turn_starts] + lay.num_legal] <= _LOST_MAX]
        if needs_check.size:
            pair_ok = self._pair_mask(data, needs_check)
            legal = data[needs_check, lay.legal:lay.legal + lay.n]
            data[needs_check, lay.legal:lay.legal + lay.n] = np.where(pair_ok, legal, 2 * (legal != 0))
            no_pair = ~pair_ok.any(axis=1)
            if no_pair.any():
                self._end_double(data, needs_check[no_pair])
        # After the first stone of a turn, its R8 restriction is lifted for the second one.
        restricted = rows[~turn_starts & (F[base + lay.num_legal] < _LOST_MAX)]
        if restricted.size:
            legal = data[restricted, lay.legal:lay.legal + lay.n]
            data[restricted, lay.legal:lay.legal + lay.n] = np.minimum(legal, 1)

    def _end_double(self, data: np.ndarray, rows: np.ndarray) -> None:
        """R8: no pair at the start of a turn ends the game; every ribbon not yet claimed goes
        to its majority, a tie to the player to move (who did not place the last stone)."""
        lay = self._lay
        n = lay.n
        cells = np.arange(n)
        sub = data[rows]
        unclaimed_root = ((sub[:, lay.label:lay.label + n] == cells)
                          & (sub[:, lay.colour:lay.colour + n] != EMPTY)
                          & (sub[:, lay.claimed:lay.claimed + n] == 0))
        ri, r = np.nonzero(unclaimed_root)
        if ri.size:
            self._claim(data, rows[ri], r.astype(np.int64), sub[ri, lay.to_move])
        data[rows, lay.done] = 1
        data[rows, lay.legal:lay.legal + n + 1] = 0
        data[rows, lay.num_legal] = 0
        self._set_winner(data, rows)

    def _claim(self, data: np.ndarray, rows: np.ndarray, rids: np.ndarray, tie_to: np.ndarray) -> None:
        """R5/R8: the majority colour takes each ribbon (``rows[i]``, ``rids[i]``), a tie going
        to ``tie_to[i]``; pairs may repeat. Mixed ribbons are recoloured stone by stone."""
        lay = self._lay
        F = data.reshape(-1)
        base = rows * lay.width
        black = F[base + (lay.black + rids)]
        white = F[base + (lay.white + rids)]
        winner = np.where(black > white, BLACK, np.where(white > black, WHITE, tie_to))
        total = black + white
        F[base + (lay.claimed + rids)] = 1
        F[base + (lay.black + rids)] = np.where(winner == BLACK, total, 0)
        F[base + (lay.white + rids)] = np.where(winner == WHITE, total, 0)
        mixed = np.flatnonzero((black > 0) & (white > 0))
        if not mixed.size:
            return  # monochrome ribbons already have the winner's colour
        # Recolour: the new colour per (game, ribbon id) in a table that every stone of the
        # claimed games looks up by its id. A game listed twice computes the same row twice,
        # so the repeated writes agree; the same ribbon listed twice is done once.
        p, n = lay.p, lay.n
        size = data.shape[0] * p
        mixed = mixed[self._first_of_each(rows[mixed] * p + rids[mixed], size)]
        rows = rows[mixed]
        key = rows * p + rids[mixed]
        if self._table.size < size:
            self._table = np.zeros(size, dtype=np.int16)
        self._table[key] = winner[mixed]
        labels = data[rows, lay.label:lay.label + n]
        new = self._table[(rows * p)[:, None] + labels]  # (empty cells: SENT's slot, 0)
        self._table[key] = 0
        colour = data[rows, lay.colour:lay.colour + n]
        data[rows, lay.colour:lay.colour + n] = np.where(new != EMPTY, new, colour)

    def _set_winner(self, data: np.ndarray, rows: np.ndarray) -> None:
        """R6/R8 winner of finished games: higher score; equal goes to the button holder, a
        draw (EMPTY) without a button (double)."""
        lay = self._lay
        s = _scores(data[rows], lay)
        holder = data[rows, lay.button]
        data[rows, lay.winner] = np.where(s[:, 0] > s[:, 1], BLACK,
                                          np.where(s[:, 1] > s[:, 0], WHITE, holder))


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


def _scores(data: np.ndarray, lay: _Layout) -> np.ndarray:
    """[R, 2] float32 [black, white] scores of packed rows ``data`` [R, W] (brief, R6)."""
    n = lay.n
    scoring = lay.config.scoring
    colour = data[:, lay.colour:lay.colour + n]
    komi = data[:, lay.komi].astype(np.float64)
    button = data[:, lay.button]
    out = np.zeros((data.shape[0], 2), dtype=np.float64)
    if scoring == "standard":
        out[:, 0] = (colour == BLACK).sum(axis=1)
        out[:, 1] = (colour == WHITE).sum(axis=1)
    else:
        # ribbons are their roots; owner = majority colour (claimed ribbons are monochrome),
        # a tied unclaimed ribbon counts for nobody
        is_root = (data[:, lay.label:lay.label + n] == np.arange(n)) & (colour != EMPTY)
        black = data[:, lay.black:lay.black + n].astype(np.int64)
        white = data[:, lay.white:lay.white + n].astype(np.int64)
        length = black + white
        majority = np.where(black > white, BLACK, np.where(white > black, WHITE, EMPTY))
        owner = np.where(is_root, majority, EMPTY)
        if scoring == "quadratic":
            out[:, 0] = (length ** 2 * (owner == BLACK)).sum(axis=1)
            out[:, 1] = (length ** 2 * (owner == WHITE)).sum(axis=1)
        else:
            return _longest_scores(length, owner, data[:, lay.komi].astype(np.int64), n)
    out[:, 0] += 0.5 * (button == BLACK)
    out[:, 1] += 0.5 * (button == WHITE) + komi
    return out.astype(np.float32)


def _longest_scores(length: np.ndarray, owner: np.ndarray, komi: np.ndarray, n: int) -> np.ndarray:
    """R6 longest: komi on one of White's longest ribbons, cancel equal-length opposite pairs;
    the colour of the longest remaining ribbon scores its length, the other 0."""
    rows = length.shape[0]
    bins = n + 1 + int(komi.max(initial=0))
    off = np.arange(rows, dtype=np.int64)[:, None] * bins
    white_len = np.where(owner == WHITE, length, 0)
    longest_white = white_len.max(axis=1, initial=0)
    is_black, is_white = owner == BLACK, owner == WHITE
    count_b = np.bincount((off + length)[is_black], minlength=rows * bins).reshape(rows, bins)
    count_w = np.bincount((off + length)[is_white], minlength=rows * bins).reshape(rows, bins)
    has_white = longest_white > 0
    wr = np.flatnonzero(has_white)
    count_w[wr, longest_white[wr]] -= 1
    count_w[wr, longest_white[wr] + komi[wr]] += 1
    # per length, cancelling pairs leaves only the surplus colour; the top such length wins
    surplus = count_b - count_w
    nonzero = surplus != 0
    top = bins - 1 - np.argmax(nonzero[:, ::-1], axis=1)
    any_left = nonzero.any(axis=1)
    top_colour = np.where(surplus[np.arange(rows), top] > 0, 0, 1)
    out = np.zeros((rows, 2), dtype=np.float32)
    left = np.flatnonzero(any_left)
    out[left, top_colour[left]] = top[left]
    return out
