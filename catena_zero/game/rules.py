"""The reference rules engine of Catena: one game, move by move (RULES.md R1-R10).

This is the readable, authoritative implementation; the vectorised environment (``vec/``)
is diff-tested against it. Scoring (R6) lives in ``scoring.py``, the colour codes in
``colours.py``. It is incremental, following DESIGN.md sec. 1: every group is a ribbon (a
path), so a placement only changes things near the stone.

Shape legend:
    N  cells on the board, indexed 0..N-1 in notation order (sorted by (column, row))
    A  actions, N + 1: one per cell, then "take the button" (index N)

State kept per cell (plain Python lists: faster than numpy for one game):
    colour[N]    EMPTY / BLACK / WHITE, after claims (R5)
    stones[N]    number of neighbouring stones; for a stone this is its degree in its
                 chain (0..2), so a stone is an end iff stones <= 1 (R2)
    partner[N]   for an end: the other end of its ribbon (a single stone is its own
                 partner); the ring test of R3 is ``partner[a] == b``. Stale for others.
    legal[N]     the cell is empty and a placement there is legal (R3); illegal is forever
    rid[N]       ribbon id of a stone (-1 for empty cells)
State kept per ribbon id (a ribbon's id is the cell of one of its stones, so ids < N):
    length, black, white, end (one end; the other is partner[end]), claimed
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from itertools import compress

import numpy as np

from .colours import BLACK, COLOUR_CODES, COLOUR_NAMES, EMPTY, WHITE, opponent  # noqa: F401 (re-exported)
from ..errors import UserError
from .options import GameConfig
from .scoring import COLOURS
from .spec import BUTTON, BoardSpec, board_spec

# The most legal cells other than x that a stone on x can make illegal: only empty
# neighbours of x (<= 6), of its <= 2 stone neighbours (<= 5 each besides x) and of the
# two ends of its ribbon (<= 6 each) can change (DESIGN.md sec. 1), so at most 28. With
# more than _MAX_LOST + 1 legal cells, every first stone of a double turn leaves a legal
# cell for the second (R8) and no per-cell check is needed.
_MAX_LOST = 28


class IllegalMove(UserError):
    """A move that is malformed or not legal in the current position (state unchanged)."""


class GameNotOver(RuntimeError):
    """Asked for the result of a game that is still running."""


@lru_cache(maxsize=None)
def _neighbour_lists(side: int) -> tuple[tuple[int, ...], ...]:
    """Per cell, its on-board neighbours (R1) as a tuple (the spec's table without padding)."""
    spec = board_spec(side)
    pad = spec.pad
    return tuple(tuple(int(j) for j in row if j != pad) for row in spec.neighbours[:pad])


@lru_cache(maxsize=None)
def _move_names(side: int) -> tuple[tuple[str, ...], dict[str, int]]:
    """(R10 name of every action: the cells, then "button"; the action index of each name)."""
    names = (*board_spec(side).names, BUTTON)
    return names, {name: a for a, name in enumerate(names)}


@dataclass(frozen=True)
class Ribbon:
    """One ribbon (R2) as seen from outside the engine."""

    cells: tuple[str, ...]  # stones in chain order, from the end with the smaller index
    indices: tuple[int, ...]  # the same cells as indices
    ends: tuple[str, str]  # (first, last); the same cell twice for a single stone
    length: int
    black: int  # stones of each colour in it (after claims)
    white: int
    limited: bool  # R2: no legal empty cell next to it
    claimed: bool  # R5 (limited), or R8's final claim in double; claimed ribbons are monochrome

    @property
    def owner(self) -> str | None:
        """The colour the ribbon counts for in scoring: its majority, None on a tie (brief)."""
        if self.black == self.white:
            return None
        return "black" if self.black > self.white else "white"


class Game:
    """One game of Catena under a ``GameConfig`` (R4-R8), driven by moves in R10 notation.

    It speaks R10 throughout: moves are notation ("D5", "button") and colours their names
    ("black", "white"). Action indices and colour codes are the vectorised environment's
    (``vec/``); ``BoardSpec.action`` and ``action_name`` convert between the two. Inside, a
    move is still its action index: ``a < N`` places on cell ``a``, ``N`` takes the button.
    """

    # The mutable per-cell / per-ribbon lists and the move list; copy() duplicates these.
    _LISTS = ("_colour", "_stones", "_partner", "_legal", "_rid",
              "_rlen", "_rblack", "_rwhite", "_rend", "_rclaimed", "_actions")

    def __init__(self, config: GameConfig) -> None:
        if not isinstance(config, GameConfig):
            raise ValueError(f"Game needs a GameConfig, got {type(config).__name__}")
        self.config = config
        self.spec: BoardSpec = board_spec(config.side)
        n = self.spec.num_cells
        self._n = n
        self._nbrs = _neighbour_lists(config.side)
        self._names, self._index = _move_names(config.side)
        rule = config.game_type_rule
        self._double = rule.two_stones_a_turn  # plain bools: asked on every move
        self._has_button = rule.has_button
        self._button_at_start = rule.button_at_start
        # per cell
        self._colour = [EMPTY] * n
        self._stones = [0] * n
        self._partner = list(range(n))
        self._legal = [True] * n
        self._rid = [-1] * n
        self._num_legal = n
        # per ribbon id
        self._rlen = [0] * n
        self._rblack = [0] * n
        self._rwhite = [0] * n
        self._rend = [0] * n
        self._rclaimed = [False] * n
        # turn state
        self._to_move = BLACK
        self._pending_second = False
        self._button = EMPTY
        self._over = False
        self._actions: list[int] = []

    @classmethod
    def replay(cls, config: GameConfig, moves: Iterable[str]) -> Game:
        """A game after playing ``moves`` (R10 notation) in order."""
        game = cls(config)
        for move in moves:
            game.play(move)
        return game

    def copy(self) -> Game:
        """An independent copy (O(N) list copies; geometry and config are shared)."""
        new = Game.__new__(Game)
        new.__dict__.update(self.__dict__)
        for name in self._LISTS:
            setattr(new, name, getattr(self, name)[:])
        return new

    # ------------------------------------------------------------------ public state
    @property
    def to_move(self) -> str:
        """The player to move; in double the same player for both stones of a turn (R8);
        after the end, the player who would have moved next (R10)."""
        return COLOUR_NAMES[self._to_move]

    @property
    def is_over(self) -> bool:
        """R4: no stone can be placed anywhere; R8 (double): a turn starts without a pair."""
        return self._over

    @property
    def pending_second(self) -> bool:
        """Double (R8): the next stone is the second of a two-stone turn."""
        return self._pending_second

    @property
    def button_holder(self) -> str | None:
        """Who holds the button; after the end the R6 assignment; always None in double."""
        return COLOUR_NAMES.get(self._button)

    @property
    def history(self) -> list[str]:
        """The moves played, in R10 notation, in order (in double every stone is a move)."""
        names = self._names
        return [names[a] for a in self._actions]

    @property
    def move_number(self) -> int:
        """Moves played so far (stones and the button)."""
        return len(self._actions)

    @property
    def last_move(self) -> str | None:
        """The last move in notation, None before the first."""
        return self._names[self._actions[-1]] if self._actions else None

    def stone_at(self, cell: str) -> str | None:
        """Colour of the stone on ``cell`` ("D5"), None if empty; ``UserError`` for a non-cell."""
        return COLOUR_NAMES.get(self._colour[self.spec.cell(cell)])

    def position_key(self) -> tuple:
        """A hashable key equal for equal positions (board, mover, pair state, button).

        Everything else (partners, legality, claims) follows from the stones on the board.
        """
        return (bytes(self._colour), self._to_move, self._pending_second, self._button)

    # ------------------------------------------------------------------ legal moves
    def legal_moves(self) -> list[str]:
        """Legal moves in notation: cells sorted by (column, row), then "button"; [] once over.

        R3; in double (R8) a first stone of a two-stone turn must leave a legal cell; R4/R7 for
        the button (``can_take_button``).
        """
        if self._over:
            return []
        cells = compress(range(self._n), self._legal)
        if self._pair_rule_may_bind():
            cells = [x for x in cells if self._leaves_a_cell(x)]
        names = self._names
        moves = [names[x] for x in cells]
        if self.can_take_button():
            moves.append(BUTTON)
        return moves

    def unplayable_cells(self) -> list[int]:
        """Empty cells where nobody can ever place again, in index order: R3 forbids them, and
        a cell R3 forbids stays forbidden (stones are never removed); every empty cell once the
        game is over. Unlike ``legal_moves`` this ignores R8's pair rule, which can change."""
        empty = [x for x in range(self._n) if self._colour[x] == EMPTY]
        return empty if self._over else [x for x in empty if not self._legal[x]]

    def can_take_button(self) -> bool:
        """R4: the button is there, not taken, the game is running; R7: in no_komi not
        before Black's first stone; R8: never in double."""
        return (
            self._has_button
            and not self._over
            and self._button == EMPTY
            and (self._button_at_start or bool(self._actions))
        )

    # ------------------------------------------------------------------ playing
    def play(self, move: str) -> None:
        """Play a move in R10 notation ("D5" or "button"); IllegalMove, the state unchanged, if
        it is malformed (e.g. "d5", "Z99") or not legal now."""
        action = self._index.get(move) if isinstance(move, str) else None
        if action is None:
            raise IllegalMove(
                f"{move!r} is not a move: expected a cell of the side-{self.config.side} "
                f"board such as 'D5' or 'button' (R10)"
            )
        reason = self._why_illegal(action)
        if reason is not None:
            raise IllegalMove(reason)
        self._actions.append(action)
        if action == self._n:
            self._button = self._to_move  # R4: taking the button passes the turn
            self._to_move = opponent(self._to_move)
        else:
            self._place(action)

    def _why_illegal(self, action: int) -> str | None:
        """Why the action index ``action`` cannot be played now (a one-line message), or None."""
        if self._over:
            return f"the game is over; {self._names[action]} cannot be played"
        if action == self._n:
            if self.can_take_button():
                return None
            if not self._has_button:
                return f"there is no button in game type {self.config.game_type!r} (R8)"
            if self._button != EMPTY:
                return f"the button was already taken by {COLOUR_NAMES[self._button]} (R4)"
            return "the button cannot be taken before Black's first stone in no_komi (R7)"
        name = self.spec.names[action]
        if self._colour[action] != EMPTY:
            return f"{name} is occupied"
        if not self._legal[action]:
            return f"{name} is illegal: every group must stay a ribbon (R3): {self._r3_problem(action)}"
        if self._pair_rule_may_bind() and not self._leaves_a_cell(action):
            return f"{name} would leave no legal cell for the second stone of the turn (R8)"
        return None

    def _place(self, x: int) -> None:
        """Place the mover's stone on the legal cell x: R3 bookkeeping, R5 claims, R4/R8 turn."""
        colour = self._to_move
        neighbours, a, b = self._link(x, colour)
        # R3: only cells near x or next to the new ribbon's ends can change legality.
        lost = [z for z in self._affected(x, neighbours, a, b) if not self._r3_legal(z)]
        self._legal[x] = False
        for z in lost:
            self._legal[z] = False
        self._num_legal -= 1 + len(lost)
        ribbon = self._join_ribbons(x, neighbours, a, colour)
        # R5: a ribbon can only just have become limited if it is x's ribbon or has an end
        # next to a cell that just became illegal; claim each such one independently.
        candidates = {ribbon}
        for z in lost:
            for s in self._nbrs[z]:
                if self._colour[s] != EMPTY:
                    candidates.add(self._rid[s])
        for r in candidates:
            if not self._rclaimed[r] and self._is_limited(r):
                self._claim(r, tie_to=opponent(colour))
        self._advance_turn(colour)

    def _advance_turn(self, placer: int) -> None:
        """R4 (alternate; the game ends when no cell is legal, the button going to the player
        who did not place last, R6) or R8 (one opening stone, then pairs)."""
        if not self._double:
            self._to_move = opponent(placer)
            if self._num_legal == 0:
                self._over = True
                if self._button == EMPTY:
                    self._button = opponent(placer)
            return
        opening = len(self._actions) == 1  # Black's single opening stone is a whole turn
        if not opening and not self._pending_second:
            self._pending_second = True  # first stone of a pair; the second always has a cell
            return
        self._pending_second = False
        self._to_move = opponent(placer)
        if not self._pair_exists():
            self._end_double()

    def _end_double(self) -> None:
        """R8: no pair at the start of a turn ends the game; every ribbon not yet limited is
        claimed by its majority, a tie going to the player to move (who did not place last)."""
        self._over = True
        for r in self._ribbon_ids():
            if not self._rclaimed[r]:
                self._claim(r, tie_to=self._to_move)

    # ------------------------------------------------------------------ R3 internals
    def _r3_problem(self, z: int) -> str:
        """Which stones make the empty cell z illegal under R3 (z must be illegal), in words."""
        names = self.spec.names
        around = [s for s in self._nbrs[z] if self._colour[s] != EMPTY]
        if len(around) >= 3:
            return f"a stone there would touch {len(around)} stones ({', '.join(names[s] for s in sorted(around))})"
        if len(around) == 2 and self._rid[around[0]] == self._rid[around[1]]:
            a, b = around
            return f"{names[a]} and {names[b]} are stones of one ribbon, which it would close into a ring"
        middle = [s for s in around if self._stones[s] > 1]
        return f"{names[middle[0]]} is a middle stone of its ribbon and would touch a third stone"

    def _r3_legal(self, z: int) -> bool:
        """R3 for the empty cell z from its k neighbouring stones."""
        k = self._stones[z]
        if k == 0:
            return True
        if k >= 3:
            return False
        ends = []
        for s in self._nbrs[z]:
            if self._colour[s] != EMPTY:
                if self._stones[s] > 1:  # a middle stone would get a third neighbour
                    return False
                ends.append(s)
        return k == 1 or self._partner[ends[0]] != ends[1]  # k == 2: no ring

    def _link(self, x: int, colour: int) -> tuple[list[int], int, int]:
        """Put a stone on x and update colours, neighbour counts and partners.

        Returns x's neighbouring stones (all ends, as x was legal) and the two ends of the
        ribbon x is now in. Ribbon ids and statistics are left to ``_join_ribbons``.
        """
        neighbours = [s for s in self._nbrs[x] if self._colour[s] != EMPTY]
        if not neighbours:
            a = b = x
        elif len(neighbours) == 1:
            a, b = x, self._partner[neighbours[0]]  # a single stone is its own partner
        else:
            a, b = self._partner[neighbours[0]], self._partner[neighbours[1]]
        self._colour[x] = colour
        for z in self._nbrs[x]:
            self._stones[z] += 1
        self._partner[a] = b
        self._partner[b] = a
        return neighbours, a, b

    def _affected(self, x: int, neighbours: list[int], a: int, b: int) -> set[int]:
        """Currently legal cells whose legality a stone on x can change (DESIGN.md sec. 1):
        empty neighbours of x, of x's neighbouring stones and of the new ribbon's ends."""
        cells = set()
        legal = self._legal
        for c in (x, *neighbours, a, b):
            for z in self._nbrs[c]:
                if legal[z]:
                    cells.add(z)
        cells.discard(x)
        return cells

    def _leaves_a_cell(self, x: int) -> bool:
        """R8: after a stone on the legal cell x, would some legal cell remain?"""
        return self._num_legal - 1 - len(self._cells_lost_by(x)) > 0

    def _cells_lost_by(self, x: int) -> list[int]:
        """Legal cells other than x that a stone on x would make illegal; state unchanged.

        Links x tentatively (colours do not matter for R3) and undoes it afterwards.
        """
        saved_colour = self._colour[x]
        neighbours, a, b = self._link(x, BLACK)
        lost = [z for z in self._affected(x, neighbours, a, b) if not self._r3_legal(z)]
        self._unlink(x, neighbours, a, b, saved_colour)
        return lost

    def _unlink(self, x: int, neighbours: list[int], a: int, b: int, colour: int) -> None:
        """Undo ``_link``: the old partners follow from x's neighbouring stones."""
        self._colour[x] = colour
        for z in self._nbrs[x]:
            self._stones[z] -= 1
        # Before the link, each old end kept as a or b was partnered with the neighbour of
        # x on its side (or x itself was new and a == b == x).
        if not neighbours:
            self._partner[x] = x
        elif len(neighbours) == 1:
            y = neighbours[0]
            self._partner[b] = y
            self._partner[y] = b
        else:
            y0, y1 = neighbours
            self._partner[a] = y0
            self._partner[y0] = a
            self._partner[b] = y1
            self._partner[y1] = b

    def _pair_rule_may_bind(self) -> bool:
        """R8: the next stone is the first of a two-stone turn (not Black's opening stone)
        and few enough cells are legal that it might leave none for the second."""
        return (self._double and not self._pending_second and bool(self._actions)
                and self._num_legal <= _MAX_LOST + 1)

    def _pair_exists(self) -> bool:
        """R8: can the mover place two stones (a first stone that leaves a legal cell)?"""
        if self._num_legal > _MAX_LOST + 1:
            return True
        return any(self._leaves_a_cell(x) for x in compress(range(self._n), self._legal))

    # ------------------------------------------------------------------ ribbons (R2, R5)
    def _join_ribbons(self, x: int, neighbours: list[int], a: int, colour: int) -> int:
        """Give the new stone x its ribbon id: a new ribbon, the one it extends, or the
        merge of two (the shorter side is relabelled). Returns the id."""
        rid = self._rid
        if not neighbours:
            r = x
            self._rlen[r] = self._rblack[r] = self._rwhite[r] = 0
            self._rclaimed[r] = False
        elif len(neighbours) == 1:
            r = rid[neighbours[0]]
        else:
            y0, y1 = neighbours
            r, other, start = rid[y0], rid[y1], y1
            if self._rlen[r] < self._rlen[other]:
                r, other, start = other, r, y0
            for s in self._walk(start, came_from=x):
                rid[s] = r
            self._rlen[r] += self._rlen[other]
            self._rblack[r] += self._rblack[other]
            self._rwhite[r] += self._rwhite[other]
        rid[x] = r
        self._rlen[r] += 1
        if colour == BLACK:
            self._rblack[r] += 1
        else:
            self._rwhite[r] += 1
        self._rend[r] = a
        return r

    def _walk(self, start: int, came_from: int = -1) -> list[int]:
        """The stones of a chain from ``start`` onwards, moving away from ``came_from``.
        Each stone's neighbouring stones are exactly its chain neighbours (R2)."""
        chain = [start]
        prev, cur = came_from, start
        while True:
            nxt = -1
            for s in self._nbrs[cur]:
                if s != prev and self._colour[s] != EMPTY:
                    nxt = s
                    break
            if nxt < 0:
                return chain
            chain.append(nxt)
            prev, cur = cur, nxt

    def _is_limited(self, r: int) -> bool:
        """R2/R3: no legal empty cell next to either end (cells next to middle stones are
        never legal)."""
        end = self._rend[r]
        for e in (end, self._partner[end]):
            for z in self._nbrs[e]:
                if self._legal[z]:
                    return False
        return True

    def _claim(self, r: int, tie_to: int) -> None:
        """R5: the majority colour takes ribbon r and recolours it; a tie goes to ``tie_to``."""
        black, white = self._rblack[r], self._rwhite[r]
        winner = BLACK if black > white else WHITE if white > black else tie_to
        for s in self._walk(self._rend[r]):
            self._colour[s] = winner
        length = self._rlen[r]
        self._rblack[r], self._rwhite[r] = (length, 0) if winner == BLACK else (0, length)
        self._rclaimed[r] = True

    def _ribbon_ids(self) -> list[int]:
        """Ids of the ribbons on the board (an id is the cell of one of its own stones)."""
        rid = self._rid
        return [r for r in range(self._n) if rid[r] == r]

    def _owner(self, r: int) -> int:
        """Majority colour of ribbon r, EMPTY on a tie (claimed ribbons are monochrome)."""
        black, white = self._rblack[r], self._rwhite[r]
        return BLACK if black > white else WHITE if white > black else EMPTY

    def ribbons(self) -> list[Ribbon]:
        """Every ribbon on the board (R2), ordered by its first cell."""
        names = self.spec.names
        out = []
        for r in self._ribbon_ids():
            chain = self._walk(self._rend[r])
            if chain[-1] < chain[0]:
                chain.reverse()
            out.append(Ribbon(
                cells=tuple(names[c] for c in chain),
                indices=tuple(chain),
                ends=(names[chain[0]], names[chain[-1]]),
                length=self._rlen[r],
                black=self._rblack[r],
                white=self._rwhite[r],
                limited=self._is_limited(r),
                claimed=self._rclaimed[r],
            ))
        out.sort(key=lambda ribbon: ribbon.indices[0])
        return out

    # ------------------------------------------------------------------ scoring (R6, R8)
    def owned_lengths(self) -> tuple[list[int], list[int]]:
        """(Black's, White's) ribbon lengths, in ribbon-id order: each ribbon counts for its
        majority colour, a tied unclaimed one for nobody (claimed ribbons are monochrome)."""
        lengths = {BLACK: [], WHITE: []}
        for r in self._ribbon_ids():
            owner = self._owner(r)
            if owner != EMPTY:
                lengths[owner].append(self._rlen[r])
        return lengths[BLACK], lengths[WHITE]

    def scores(self) -> dict[str, float]:
        """Scores as defined by the rules (R6, docs/RULES.md), usable during the game and final at the end:
        its scoring record's formula of the stones and the owned ribbons."""
        stones = (self._colour.count(BLACK), self._colour.count(WHITE))
        rule = self.config.scoring_rule
        lengths = self.owned_lengths() if rule.reads_lengths else None
        return dict(zip(COLOURS, rule.scores(self.config.komi, self.button_holder, stones, lengths)))

    @property
    def winner(self) -> str | None:
        """The winner once over (R6, R8): higher score; equal scores go to the button holder
        (longest with nothing left), or are a draw (None) without a button (double)."""
        if not self._over:
            raise GameNotOver("the game is not over yet; winner is only defined at the end")
        s = self.scores()
        if s["black"] != s["white"]:
            return "black" if s["black"] > s["white"] else "white"
        return self.button_holder

    def result_value(self, colour: str) -> float:
        """+1 if ``colour`` ("black" or "white") won, -1 if it lost, 0 for a draw; GameNotOver
        while running."""
        if colour not in COLOUR_CODES:
            raise ValueError(f"colour must be 'black' or 'white', got {colour!r}")
        winner = self.winner
        if winner is None:
            return 0.0
        return 1.0 if winner == colour else -1.0

    # ------------------------------------------------------------------ misc
    def __repr__(self) -> str:
        state = "over" if self._over else f"{self.to_move} to move"
        return (f"Game(side={self.config.side}, {self.config.game_type}, {self.config.scoring}, "
                f"komi={self.config.komi}, {len(self._actions)} moves, {state})")
