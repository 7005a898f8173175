"""The one-row engine: ``VecEnv.step`` for a handful of games, and random playouts, on one
game's packed row as a Python list (numpy's fixed cost per call dominates below
``env.SMALL_BATCH`` games).

Shape legend: N cells, P = N + 2 slots per field, W row width (``layout.py``).
"""

from __future__ import annotations

from itertools import compress

import numpy as np

from ..colours import BLACK, EMPTY, WHITE
from .layout import _LOST_MAX, _Layout
from .scores import _row_scores


def _write_where(F: list, labels: list, key: int, offset: int, value: int) -> None:
    """``F[offset + i] = value`` for every cell i with ``labels[i] == key`` (list.index scans at
    C speed)."""
    at = -1
    try:
        while True:
            at = labels.index(key, at + 1)
            F[offset + at] = value
    except ValueError:
        pass


class RowEngine:
    """The one-row engine of ``VecEnv`` (a mixin): reads ``self._lay``, ``self._double``,
    ``self._button_after_opening``, ``self.config`` and the list tables ``self._nbr_rows``,
    ``self._adj_list`` that ``VecEnv.__init__`` sets; R8's rare whole-row work goes to ``BatchedEngine``."""

    _lay: _Layout

    # The same algorithm as the vectorised ``BatchedEngine._place``, statement for statement,
    # on one game's packed row as a Python list (base offset 0), so that it writes exactly the
    # same values (tests/test_vec_env.py compares the rows byte for byte). Rare events that need
    # whole-row work reuse the vectorised code on a one-row array: R8's pair rule near the end
    # of a double game, and the final scores.

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
        if k == 2:  # relabel the shorter ribbon's stones
            _write_where(F, F[label_:label_ + lay.n], rb if a_wins else ra, label_, rid)
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
            if self._button_after_opening and move_number == 1:
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
            labels = F[lay.label:lay.label + lay.n]
            for r, winner in recolour.items():
                _write_where(F, labels, r, lay.colour, winner)

    def _row_winner(self, F: list) -> None:
        """``_set_winner`` for one finished game (scores on a one-row array: once per game)."""
        lay = self._lay
        black, white = _row_scores(F, lay, lay.rules.scoring_rule)
        F[lay.winner] = BLACK if black > white else WHITE if white > black else F[lay.button]

    def _play_out_rows(self, data: np.ndarray, rng: np.random.Generator) -> None:
        """``VecEnv.play_out`` for a handful of games ``data`` [B, W]: the same draws, one
        ``rng.random(B)`` per round (``rng.random()`` for one game, the same double)."""
        bsz = data.shape[0]
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
