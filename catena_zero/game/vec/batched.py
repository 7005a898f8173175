"""The batched engine: one placement in K games at once, as gathers and scatters on the
flattened ``[B * W]`` array (DESIGN.md sec. 1; the "why it is fast" of ``layout.py``).

Shape legend: B games in the state, K games being stepped, N cells, P = N + 2 slots per
field, W row width (``layout.py``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..colours import BLACK, EMPTY, WHITE
from .layout import _LOST_MAX, _Layout
from .scores import _scores

# A row of 8 bools viewed as a uint64 has one byte per column. Its lowest set bit, isolated
# as ``v & -v``, is one of 8 powers 256**j, told apart by their residues mod 19 (distinct and
# nonzero); residue 0 (no column set) decodes to column 7, which is always SENT. Built from
# the actual view, so it holds for either byte order.
_BYTE_DIR = np.full(19, 7, dtype=np.int64)
_BYTE_DIR[np.eye(8, dtype=bool).view(np.uint64).ravel() % 19] = np.arange(8)
_BYTE_DIR.setflags(write=False)


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


class BatchedEngine:
    """The vectorised placement of ``VecEnv`` (a mixin): reads ``self._lay``, ``self._double``,
    ``self._button_after_opening``, ``self.config`` and the scratch arrays ``self._rows_cache``,
    ``self._stamp``, ``self._table`` that ``VecEnv.__init__`` sets."""

    _lay: _Layout

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
            if self._button_after_opening:
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
