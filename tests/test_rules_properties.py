"""Property tests of the reference engine against an independent, slow rules checker.

The checker below knows only RULES.md: it recomputes groups by flood fill, legality by
trying each placement (R3), limited ribbons (R2), claims (R5), the end of the game (R4,
R8) and the final claim of double (R8) from the board alone, never from engine internals.
Random games (explicit ``np.random.Generator``) over all 9 option combinations and several
sides give thousands of positions.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from catena_zero.game import BLACK, EMPTY, WHITE, Game, GameConfig, IllegalMove, board_spec
from positions import board_codes, legal_actions, legal_cells, play_action

GAME_TYPES = ("komi", "no_komi", "double")
SCORINGS = ("standard", "longest", "quadratic")


# ----------------------------------------------------------------------------- slow checker
class Slow:
    """From-scratch rules on a board (list of colour codes) of one side."""

    def __init__(self, side: int) -> None:
        spec = board_spec(side)
        self.n = spec.num_cells
        self.nbrs = [[int(j) for j in row if j != spec.pad] for row in spec.neighbours[: self.n]]

    def groups(self, occupied) -> list[frozenset[int]]:
        """R2 groups: maximal connected sets of stones, colour ignored (flood fill)."""
        seen, out = set(), []
        for start in range(self.n):
            if not occupied[start] or start in seen:
                continue
            group, stack = {start}, [start]
            while stack:
                c = stack.pop()
                for d in self.nbrs[c]:
                    if occupied[d] and d not in group:
                        group.add(d)
                        stack.append(d)
            seen |= group
            out.append(frozenset(group))
        return out

    def is_ribbon(self, group) -> bool:
        """R2: a chain - every stone has <= 2 neighbours in it and it has no cycle."""
        degrees = [sum(d in group for d in self.nbrs[c]) for c in group]
        return max(degrees) <= 2 and sum(degrees) // 2 == len(group) - 1

    def legal(self, board, x) -> bool:
        """R3 by definition: after the placement every group is still a ribbon."""
        if board[x] != EMPTY:
            return False
        occupied = [c != EMPTY for c in board]
        occupied[x] = True
        return all(self.is_ribbon(g) for g in self.groups(occupied) if x in g)

    def legal_cells(self, board) -> list[int]:
        return [x for x in range(self.n) if self.legal(board, x)]

    def first_stone_cells(self, board) -> list[int]:
        """R8: first stones of a pair must leave a legal cell for the second."""
        out = []
        for x in self.legal_cells(board):
            after = list(board)
            after[x] = BLACK
            if any(self.legal(after, y) for y in range(self.n)):
                out.append(x)
        return out

    def limited(self, board, group, legal) -> bool:
        """R2: no legal empty cell next to any stone of the ribbon."""
        return not any(legal[d] for c in group for d in self.nbrs[c])


def legal_flags(slow: Slow, board) -> list[bool]:
    return [slow.legal(board, x) for x in range(slow.n)]


# ----------------------------------------------------------------------------- random play
def check_position(g: Game, slow: Slow, ever_illegal: set[int], seen: Counter) -> list[bool]:
    """Invariants of one running or finished position; returns the slow legality flags."""
    board = [int(c) for c in board_codes(g)]
    occupied = [c != EMPTY for c in board]
    legal = legal_flags(slow, board)
    # R2: every group is a ribbon, and the engine's ribbons are exactly the groups.
    groups = slow.groups(occupied)
    assert all(slow.is_ribbon(grp) for grp in groups)
    ribbons = g.ribbons()
    assert sorted(map(sorted, groups)) == sorted(sorted(r.indices) for r in ribbons)
    for r in ribbons:
        chain = r.indices
        assert all(chain[i + 1] in slow.nbrs[chain[i]] for i in range(len(chain) - 1))
        assert r.length == len(chain)
        assert r.black == sum(board[c] == BLACK for c in chain)
        assert r.white == sum(board[c] == WHITE for c in chain)
        assert r.limited == slow.limited(board, set(chain), legal)
        if r.limited or r.claimed:  # R5: limited (and finally claimed) ribbons are monochrome
            assert r.black == 0 or r.white == 0
        if not g.is_over:
            assert r.claimed == r.limited  # R5: claimed exactly when limited
    # R3: illegal is forever.
    for x in range(slow.n):
        if not legal[x] and board[x] == EMPTY:
            ever_illegal.add(x)
        if x in ever_illegal:
            assert not legal[x]
    if g.is_over:
        assert g.legal_moves() == []
        assert g.button_holder is None if g.config.game_type == "double" else g.button_holder
        return legal
    # Legal moves equal the from-scratch recomputation (R3, R8 pair rule).
    pair_rule = g.config.game_type == "double" and g.move_number > 0 and not g.pending_second
    expected = slow.first_stone_cells(board) if pair_rule else slow.legal_cells(board)
    seen["pair rule excluded a cell"] += pair_rule and expected != slow.legal_cells(board)
    assert legal_cells(g) == expected
    names = [g.spec.names[x] for x in expected]
    button_ok = (g.config.game_type_rule.has_button and g.button_holder is None
                 and not (g.config.game_type == "no_komi" and g.move_number == 0))
    assert g.legal_moves() == names + (["button"] if button_ok else [])
    return legal


def expected_after_stone(slow: Slow, board_before, legal_before, x, placer) -> list[int]:
    """R5 from scratch: the board after ``placer`` puts a stone on x and the ribbons that
    just became limited are claimed (majority; tie to the placer's opponent)."""
    after = list(board_before)
    after[x] = placer
    occupied = [c != EMPTY for c in after]
    legal_after = legal_flags(slow, after)
    limited_before = {
        grp for grp in slow.groups([c != EMPTY for c in board_before])
        if slow.limited(board_before, grp, legal_before)
    }
    for grp in slow.groups(occupied):
        if grp in limited_before or not slow.limited(after, grp, legal_after):
            continue
        black = sum(after[c] == BLACK for c in grp)
        white = len(grp) - black
        winner = BLACK if black > white else WHITE if white > black else BLACK + WHITE - placer
        for c in grp:
            after[c] = winner
    return after


def final_double_claim(slow: Slow, board, to_move) -> list[int]:
    """R8: at the end every not yet limited ribbon goes to its majority; tie to the mover."""
    out = list(board)
    legal = legal_flags(slow, board)
    for grp in slow.groups([c != EMPTY for c in board]):
        if slow.limited(board, grp, legal):
            continue
        black = sum(board[c] == BLACK for c in grp)
        white = len(grp) - black
        winner = BLACK if black > white else WHITE if white > black else to_move
        for c in grp:
            out[c] = winner
    return out


def play_checked_game(cfg: GameConfig, rng: np.random.Generator, seen: Counter,
                      button_rate: float = 0.1) -> None:
    """Play a random game, checking every position and every transition; ``seen`` counts
    what happened, so tests can assert that the interesting cases were exercised."""
    g, slow, ever_illegal = Game(cfg), Slow(cfg.side), set()
    while True:
        legal = check_position(g, slow, ever_illegal, seen)
        seen["positions"] += 1
        if g.is_over:
            break
        actions = legal_actions(g)
        if actions[-1] == slow.n and rng.random() < button_rate:
            action = slow.n
        else:
            cells = [a for a in actions if a < slow.n]
            action = cells[rng.integers(len(cells))]
        board = [int(c) for c in board_codes(g)]
        mover, pending, moves = g.to_move, g.pending_second, g.move_number
        snapshot = g.copy()
        play_action(g, action)
        assert g.history[-1] == g.last_move and g.move_number == moves + 1
        if action == slow.n:  # R4: the button passes the turn, the board is unchanged
            assert [int(c) for c in board_codes(g)] == board and g.button_holder == mover
            assert g.to_move != mover and not g.is_over
            continue
        expected = expected_after_stone(slow, board, legal, action, 1 if mover == "black" else 2)
        seen["stones recoloured by a claim"] += sum(
            b != EMPTY and b != e for b, e in zip(board, expected))
        if cfg.game_type == "double":
            opening = moves == 0
            if not opening and not pending:  # first stone of a pair: same player again
                assert g.pending_second and g.to_move == mover and not g.is_over
            else:
                assert not g.pending_second and g.to_move != mover
                no_pair = not slow.first_stone_cells(expected)
                assert g.is_over == no_pair  # R8: ends when a turn starts without a pair
                if no_pair:
                    seen["double games ended"] += 1
                    expected = final_double_claim(slow, expected, 1 if g.to_move == "black" else 2)
        else:
            assert g.to_move != mover
            assert g.is_over == (not any(legal_flags(slow, expected)))  # R4
            if g.is_over:  # R6: an untaken button goes to who did not place last
                assert g.button_holder == (snapshot.button_holder or g.to_move)
        assert [int(c) for c in board_codes(g)] == expected
        # The copy taken before the move is untouched by it.
        assert [int(c) for c in board_codes(snapshot)] == board and snapshot.move_number == moves


@pytest.mark.parametrize("game_type", GAME_TYPES)
@pytest.mark.parametrize("scoring", SCORINGS)
def test_random_games_all_options_match_slow_rules(game_type, scoring):
    """R2-R8 invariants on random games of all 9 option combinations, sides 2-6."""
    rng = np.random.default_rng([GAME_TYPES.index(game_type), SCORINGS.index(scoring)])
    komi = 5 if game_type == "komi" else 0
    seen = Counter()
    for side, games in ((2, 30), (3, 20), (4, 8), (5, 2), (6, 1)):
        cfg = GameConfig(side=side, game_type=game_type, scoring=scoring, komi=komi)
        for _ in range(games):
            play_checked_game(cfg, rng, seen)
    assert seen["positions"] > 600 and seen["stones recoloured by a claim"] > 0
    if game_type == "double":
        assert seen["double games ended"] == 61 and seen["pair rule excluded a cell"] > 0


def test_illegal_move_leaves_state_unchanged():
    """IllegalMove never changes anything, whatever the reason (R3, R4, R8, R10)."""
    rng = np.random.default_rng(7)
    for game_type in GAME_TYPES:
        g = Game(GameConfig(side=3, game_type=game_type))
        while not g.is_over:
            key, history = g.position_key(), g.history
            legal = g.legal_moves()
            for move in (*g.spec.names, "button"):
                if move not in legal:
                    with pytest.raises(IllegalMove):
                        g.play(move)
            for bad in ("", "Z99", "d5", "A0", " B2", None, 3.0, 0):
                with pytest.raises(IllegalMove):
                    g.play(bad)
            assert g.position_key() == key and g.history == history
            assert g.legal_moves() == legal
            g.play(legal[rng.integers(len(legal))])
        key = g.position_key()
        with pytest.raises(IllegalMove, match="over"):
            g.play(g.spec.names[0])
        assert g.position_key() == key


def test_copy_is_independent_and_replay_reproduces():
    """copy() shares nothing mutable; replaying the history gives the same position."""
    rng = np.random.default_rng(11)
    for game_type in GAME_TYPES:
        cfg = GameConfig(side=4, game_type=game_type)
        g = Game(cfg)
        while not g.is_over:
            c = g.copy()
            moves = g.legal_moves()
            g.play(moves[rng.integers(len(moves))])
            if not c.is_over:
                c.play(c.legal_moves()[-1])
        r = Game.replay(cfg, g.history)
        assert r.position_key() == g.position_key() and r.scores() == g.scores()
        assert r.winner == g.winner and r.history == g.history


def test_cells_lost_by_a_stone_match_slow_rules():
    """The R8 pair rule rests on ``Game._cells_lost_by(x)``: the legal cells a stone on x
    would make illegal (DESIGN.md sec. 1). Check it, and that it leaves the state as it
    was, against the slow checker on random positions; also the bound ``_MAX_LOST``."""
    from catena_zero.game.rules import _MAX_LOST

    rng = np.random.default_rng(23)
    checked = 0
    for side in (2, 3, 4):
        slow = Slow(side)
        for _ in range(6):
            g = Game(GameConfig(side=side, game_type="komi"))
            while not g.is_over:
                board = [int(c) for c in board_codes(g)]
                legal = legal_flags(slow, board)
                key, cells = g.position_key(), legal_cells(g)
                for x in cells:
                    after = list(board)
                    after[x] = BLACK
                    expected = {y for y in range(slow.n)
                                if y != x and legal[y] and not slow.legal(after, y)}
                    lost = g._cells_lost_by(x)
                    assert set(lost) == expected and len(lost) <= _MAX_LOST
                    checked += 1
                assert g.position_key() == key and legal_cells(g) == cells
                play_action(g, cells[rng.integers(len(cells))])
    assert checked > 500
