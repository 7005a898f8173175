"""The packed layout of vectorised Catena: one int16 row per game (RULES.md R1-R10).

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
public fields of ``EnvState`` (``state.py``: ``board``, ``to_move`` ...) are typed read-only
snapshots of column slices. int16 holds every value: cells and ids < 273, lengths <= 271, komi <= 1000.

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

import numpy as np

from ..options import RuleSet
from ..colours import BLACK
from ..spec import BoardSpec, board_spec

# A stone on x (with k stone neighbours) makes legal cells illegal only among (DESIGN.md
# sec. 1): x; its 6 - k empty neighbours; for each stone neighbour that stops being an end,
# its neighbours other than x and its chain neighbour (4); and if x joins two ribbons, the
# common neighbours of the new ends (2 at most on a hex grid). That is at most
# 1 + 4 + 2 * 4 + 2 = 15 cells, so with more legal cells every first stone of a double turn
# leaves one for the second (R8) and the pair rule needs no per-cell check.
_LOST_MAX = 15

@dataclass(frozen=True, eq=False)
class _Layout:
    """Column offsets of the packed game row, and the static tables of one board size."""

    rules: RuleSet  # what the layout and the stepping depend on (komi is per game)
    double: bool  # R8, two stones a turn (the game-type record's, as a plain bool: asked every step)
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

    def __reduce__(self):
        # Pickled as its rules only (the tables are about 53 KB on side 6): unpickling looks the
        # layout up in this process's cache, so states sent between processes (Ray) stay small
        # and belong to every VecEnv of the same rules on arrival.
        return (_layout_for, (self.rules,))


# One layout per rule set and process, shared by every VecEnv and every unpickled EnvState.
_LAYOUTS: dict[RuleSet, _Layout] = {}


def _layout_for(rules: RuleSet) -> _Layout:
    """The cached layout of a rule set (built on first use)."""
    layout = _LAYOUTS.get(rules)
    if layout is None:
        layout = _LAYOUTS[rules] = _make_layout(rules)
    return layout


def _make_layout(rules: RuleSet) -> _Layout:
    spec = board_spec(rules.side)
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
    t[offsets["legal"] + n] = rules.game_type_rule.button_at_start
    t[offsets["label"]:offsets["label"] + p] = sent
    t[offsets["partner"]:offsets["partner"] + p] = np.arange(p)
    t[offsets["nlegal"]:offsets["nlegal"] + n] = spec.degree
    t[offsets["history"]:offsets["history"] + n + 1] = -1
    for arr in (nbr, adj, t):
        arr.setflags(write=False)
    return _Layout(rules=rules, double=rules.game_type_rule.two_stones_a_turn, spec=spec, n=n, p=p, sent=sent,
                   width=width, **offsets,
                   nbr=nbr, adj=adj.ravel(), template=t)
