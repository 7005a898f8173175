"""A deliberately naive, from-scratch Catena oracle for tests (RULES.md read literally).

Nothing here is incremental and nothing is shared with ``catena_zero.game.rules`` except the
board geometry: every question is answered by recomputing groups with a flood fill and
trying placements on a copy of the board. It is slow (tests use small boards) and exists
only to cross-check the real engines.
"""

from __future__ import annotations

from catena_zero.game.spec import board_spec

BLACK, WHITE = 1, 2


def other(colour: int) -> int:
    return 3 - colour


class NaiveGame:
    def __init__(self, side: int, game_type: str, scoring: str, komi: int = 0):
        self.spec = board_spec(side)
        self.n = self.spec.num_cells
        self.adj = [[int(j) for j in self.spec.neighbours[i] if j < self.n] for i in range(self.n)]
        self.game_type, self.scoring, self.komi = game_type, scoring, komi
        self.board = [0] * self.n
        self.to_move = BLACK
        self.button = 0
        self.over = False
        self.stones_this_turn = 0  # double: stones placed in the current turn
        self.last_placer = 0

    # --- R2 / R3 from scratch -------------------------------------------------------------
    def groups(self, board):
        seen, out = set(), []
        for s in range(self.n):
            if board[s] and s not in seen:
                comp, stack = [], [s]
                seen.add(s)
                while stack:
                    x = stack.pop()
                    comp.append(x)
                    for y in self.adj[x]:
                        if board[y] and y not in seen:
                            seen.add(y)
                            stack.append(y)
                out.append(frozenset(comp))
        return out

    def all_ribbons(self, board) -> bool:
        """R2: every group is a chain: degrees <= 2 and no cycle (edges = stones - 1)."""
        for g in self.groups(board):
            degs = [sum(1 for y in self.adj[x] if board[y]) for x in g]
            if max(degs) > 2 or sum(degs) // 2 != len(g) - 1:
                return False
        return True

    def legal_cell(self, board, x) -> bool:
        """R3 literally: placing on x keeps every group a ribbon."""
        if board[x]:
            return False
        trial = list(board)
        trial[x] = BLACK
        return self.all_ribbons(trial)

    def legal_cells(self, board):
        return [x for x in range(self.n) if self.legal_cell(board, x)]

    def limited(self, board, group) -> bool:
        """R2: no stone can legally be placed on any empty cell adjacent to the ribbon."""
        return not any(
            self.legal_cell(board, y) for x in group for y in self.adj[x] if not board[y]
        )

    # --- R5 --------------------------------------------------------------------------------
    def place(self, board, x, colour):
        """Place and claim every ribbon that has just become limited; returns the new board."""
        before = {g for g in self.groups(board) if self.limited(board, g)}
        new = list(board)
        new[x] = colour
        for g in self.groups(new):
            if g in before or not self.limited(new, g):
                continue
            self.claim(new, g, tie_to=other(colour))
        return new

    def claim(self, board, group, tie_to):
        b = sum(1 for s in group if board[s] == BLACK)
        w = len(group) - b
        winner = BLACK if b > w else WHITE if w > b else tie_to
        for s in group:
            board[s] = winner

    # --- R4 / R8 turn structure --------------------------------------------------------------
    def pair_ok(self, board, x, colour) -> bool:
        """R8: the first stone of a pair must leave a legal cell for the second."""
        return bool(self.legal_cells(self.place(board, x, colour)))

    def first_stone_of_pair(self) -> bool:
        return self.game_type == "double" and self.stones_this_turn == 0 and any(self.board)

    def legal_moves(self):
        if self.over:
            return []
        cells = self.legal_cells(self.board)
        if self.first_stone_of_pair():
            cells = [x for x in cells if self.pair_ok(self.board, x, self.to_move)]
        moves = [self.spec.names[x] for x in cells]
        if self.game_type != "double" and not self.button and not (
            self.game_type == "no_komi" and not any(self.board)
        ):
            moves.append("button")
        return moves

    def play(self, move):
        assert move in self.legal_moves(), move
        if move == "button":
            self.button = self.to_move
            self.to_move = other(self.to_move)
            return
        x = self.spec.cell(move)
        first_stone = not any(self.board)
        self.board = self.place(self.board, x, self.to_move)
        self.last_placer = self.to_move
        if self.game_type == "double":
            self.stones_this_turn += 1
            if first_stone or self.stones_this_turn == 2:
                self.to_move, self.stones_this_turn = other(self.to_move), 0
                self.start_double_turn()
            return
        self.to_move = other(self.to_move)
        if not self.legal_cells(self.board):
            self.finish()

    def start_double_turn(self):
        cells = self.legal_cells(self.board)
        if any(self.pair_ok(self.board, x, self.to_move) for x in cells):
            return
        # R8: no pair; unlimited ribbons go to their majority, tie to the opponent of the last placer.
        for g in self.groups(self.board):
            if not self.limited(self.board, g):
                self.claim(self.board, g, tie_to=other(self.last_placer))
        self.over = True

    def finish(self):
        self.over = True
        if self.game_type != "double" and not self.button:
            self.button = other(self.last_placer)  # R6

    # --- R6 ----------------------------------------------------------------------------------
    def ribbon_owners(self):
        """(length, owner) of every ribbon; owner 0 for a tied unlimited ribbon."""
        out = []
        for g in self.groups(self.board):
            b = sum(1 for s in g if self.board[s] == BLACK)
            w = len(g) - b
            out.append((len(g), BLACK if b > w else WHITE if w > b else 0))
        return out

    def scores(self):
        bonus = {BLACK: 0.0, WHITE: float(self.komi)}
        if self.button:
            bonus[self.button] += 0.5
        if self.scoring == "standard":
            s = {c: sum(1 for v in self.board if v == c) + bonus[c] for c in (BLACK, WHITE)}
        elif self.scoring == "quadratic":
            s = dict(bonus)
            for length, owner in self.ribbon_owners():
                if owner:
                    s[owner] += length * length
        else:
            lengths = {BLACK: [], WHITE: []}
            for length, owner in self.ribbon_owners():
                if owner:
                    lengths[owner].append(length)
            if lengths[WHITE]:
                lengths[WHITE].sort()
                lengths[WHITE][-1] += self.komi
            for length in list(lengths[BLACK]):
                if length in lengths[WHITE]:
                    lengths[WHITE].remove(length)
                    lengths[BLACK].remove(length)
            best = {c: max(lengths[c], default=0) for c in (BLACK, WHITE)}
            # Only the colour with the longest remaining ribbon scores (its length).
            s = {c: float(best[c]) if best[c] > best[other(c)] else 0.0 for c in (BLACK, WHITE)}
        return {"black": s[BLACK], "white": s[WHITE]}

    def winner(self):
        s = self.scores()
        if s["black"] != s["white"]:
            return "black" if s["black"] > s["white"] else "white"
        if self.button:
            return "black" if self.button == BLACK else "white"
        return None
