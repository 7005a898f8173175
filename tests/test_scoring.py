"""Scoring (RULES.md R6, R8; the brief's "Scores definition") on hand-checked final positions,
and against an independent, literal re-implementation on random positions.

Side-3 board, rows bottom to top (R1):
    row 5:          C5 D5 E5
    row 4:       B4 C4 D4 E4
    row 3:    A3 B3 C3 D3 E3
    row 2:    A2 B2 C2 D2
    row 1:    A1 B1 C1
"""

from __future__ import annotations

import numpy as np
import pytest

from catena_zero.game import BLACK, WHITE, Game, GameConfig, board_spec
from catena_zero.game.rules import COLOUR_CODES
from positions import board_codes

# Ten moves on side 3 (Black first) ending with two limited five-stone ribbons:
# A2-B3-C3-C2-B1 (White) and C5-D5-E5-E4-E3 (Black); White placed last, so Black gets the button.
FIVE_AND_FIVE = ["A2", "C3", "E3", "B1", "C2", "B3", "D5", "C5", "E5", "E4"]
# Nine moves on side 3 ending with ribbons Black {2, 1, 1} (C4-C5, A3, C1) and White
# {2, 2, 1} (A1-B2, D3-E3, E5); Black placed last, so White gets the button.
MIXED = ["C4", "B2", "A3", "D3", "C5", "A1", "C1", "E5", "E3"]


def final(moves, scoring, komi=0, game_type="komi", side=3) -> Game:
    g = Game.replay(GameConfig(side=side, game_type=game_type, scoring=scoring, komi=komi), moves)
    assert g.is_over
    return g


def owned_lengths(g: Game) -> dict[str, list[int]]:
    out = {"black": [], "white": []}
    for r in g.ribbons():
        out[r.owner].append(r.length)
    return {c: sorted(v) for c, v in out.items()}


# ----------------------------------------------------------------------------- hand-checked
def test_five_and_five_position():
    g = final(FIVE_AND_FIVE, "standard")
    assert owned_lengths(g) == {"black": [5], "white": [5]}
    assert g.button_holder == "black" and g.to_move == "black"  # R6 assignment, R10


@pytest.mark.parametrize(
    "scoring, komi, black, white, winner",
    [
        ("standard", 0, 5.5, 5.0, "black"),  # 5 stones + 0.5 button vs 5 stones
        ("standard", 1, 5.5, 6.0, "white"),  # komi for White
        ("quadratic", 0, 25.5, 25.0, "black"),  # 5**2 + 0.5 vs 5**2
        ("quadratic", 1, 25.5, 26.0, "white"),
        ("longest", 0, 0.0, 0.0, "black"),  # 5 and 5 cancel; nothing left: button holder wins
        ("longest", 1, 0.0, 6.0, "white"),  # komi makes White's 5 a 6: nothing cancels
    ],
)
def test_scores_five_and_five(scoring, komi, black, white, winner):
    """R6 on two equal ribbons: button half point, komi, longest cancellation and its tie rule."""
    g = final(FIVE_AND_FIVE, scoring, komi)
    assert g.scores() == {"black": black, "white": white}
    assert g.winner == winner
    loser = "white" if winner == "black" else "black"
    assert g.result_value(winner) == 1.0 and g.result_value(loser) == -1.0


def test_button_taken_during_the_game_is_kept():
    """R6: the button is assigned at the end only if nobody took it. Black takes it first,
    which flips every colour of FIVE_AND_FIVE; Black keeps the button although White ends
    as the player to move and Black placed the last stone."""
    g = final(["button"] + FIVE_AND_FIVE, "longest")
    assert owned_lengths(g) == {"black": [5], "white": [5]}
    assert g.button_holder == "black" and g.last_move == "E4" and g.to_move == "white"
    assert g.scores() == {"black": 0.0, "white": 0.0} and g.winner == "black"
    std = final(["button"] + FIVE_AND_FIVE, "standard", komi=2)
    assert std.scores() == {"black": 5.5, "white": 7.0} and std.winner == "white"


@pytest.mark.parametrize(
    "scoring, komi, black, white, winner",
    [
        ("standard", 0, 4.0, 5.5, "white"),  # 4 stones vs 5 stones + button
        ("quadratic", 0, 6.0, 9.5, "white"),  # 4+1+1 vs 4+4+1 + 0.5
        ("quadratic", 4, 6.0, 13.5, "white"),
        ("longest", 0, 0.0, 2.0, "white"),  # {2,1,1} vs {2,2,1}: 2-2 and 1-1 cancel, W 2 > B 1
        ("longest", 3, 0.0, 5.0, "white"),  # komi on one White 2: {5,2,1} vs {2,1,1}
    ],
)
def test_scores_mixed(scoring, komi, black, white, winner):
    """R6 with several ribbons per colour, including pairwise cancellation in longest."""
    g = final(MIXED, scoring, komi)
    assert owned_lengths(g) == {"black": [1, 1, 2], "white": [1, 2, 2]}
    assert g.button_holder == "white"
    assert g.scores() == {"black": black, "white": white}
    assert g.winner == winner


def test_double_final_scores_without_button():
    """R8: no button, no komi; the final claim makes every ribbon monochrome."""
    moves = ["D2", "D5", "A2", "C2", "E5", "E3", "B1", "C4", "B3"]
    expected = {"standard": (5.0, 4.0), "quadratic": (25.0, 16.0), "longest": (5.0, 0.0)}
    for scoring, (black, white) in expected.items():
        g = final(moves, scoring, game_type="double")
        assert g.button_holder is None
        assert g.scores() == {"black": black, "white": white} and g.winner == "black"


def set_up_double(scoring: str, stones: list[tuple[str, str]]) -> Game:
    """TEST-ONLY set-up: R8 draws "arise only in set-up positions" (an odd stone count
    rules them out in play), so this places the given (colour, cell) stones in a double
    game, each as the last stone of a turn, by forcing the mover before every stone. The
    engine's own placement, claiming and end-of-game logic do everything else."""
    g = Game(GameConfig(side=2, game_type="double", scoring=scoring))
    for colour, cell in stones:
        g._to_move, g._pending_second = COLOUR_CODES[colour], True
        g.play(cell)
    return g


@pytest.mark.parametrize("scoring", ["standard", "quadratic", "longest"])
def test_double_draw_in_set_up_position(scoring):
    """R8: with A1-A2 Black and C2-C3 White on side 2, the only legal cells B1 and B3 each
    join the two ribbons and make the other illegal, so no pair exists: the game ends,
    both ribbons are claimed by their majority and the results are equal: a draw."""
    g = set_up_double(scoring, [("black", "A1"), ("white", "C2"), ("white", "C3"), ("black", "A2")])
    assert g.is_over and g.button_holder is None
    assert owned_lengths(g) == {"black": [2], "white": [2]}
    s = g.scores()
    assert s["black"] == s["white"]
    assert g.winner is None and g.result_value("black") == 0.0 and g.result_value("white") == 0.0


def test_scores_during_the_game_count_majority_owners():
    """Brief: an unlimited ribbon counts for its majority colour; a tied one for nobody."""
    g = Game.replay(GameConfig(side=6, scoring="quadratic", komi=10), ["D5", "E5", "F5"])
    # D5-E5-F5 (2 Black, 1 White) is Black's: 3**2; White has komi only, no button yet.
    assert g.scores() == {"black": 9.0, "white": 10.0}
    g.play("G5")  # now 2-2: counts for nobody
    assert g.scores() == {"black": 0.0, "white": 10.0}
    longest = Game.replay(GameConfig(side=6, scoring="longest", komi=2), ["D5", "E5", "F5", "button"])
    assert longest.scores() == {"black": 3.0, "white": 0.0} and longest.button_holder == "white"
    std = Game.replay(GameConfig(side=6, komi=2), ["D5", "E5", "F5", "button"])
    assert std.scores() == {"black": 2.0, "white": 3.5}


# ----------------------------------------------------------------------------- independent scorer
def literal_scores(board, nbrs, button: str | None, komi: int, scoring: str) -> dict[str, float]:
    """The brief's definition, done literally from the board (flood-filled groups)."""
    groups, seen = [], set()
    for start, c in enumerate(board):
        if c == 0 or start in seen:
            continue
        group, stack = [start], [start]
        seen.add(start)
        while stack:
            for d in nbrs[stack.pop()]:
                if board[d] != 0 and d not in seen:
                    seen.add(d)
                    group.append(d)
                    stack.append(d)
        groups.append(group)
    owned = {"black": [], "white": []}
    for group in groups:
        black = sum(board[c] == BLACK for c in group)
        white = sum(board[c] == WHITE for c in group)
        if black != white:
            owned["black" if black > white else "white"].append(len(group))
    if scoring == "longest":
        if owned["white"]:
            owned["white"].sort(reverse=True)
            owned["white"][0] += komi
        changed = True
        while changed:  # repeatedly remove an equal-length opposite-colour pair
            changed = False
            for length in owned["black"]:
                if length in owned["white"]:
                    owned["black"].remove(length)
                    owned["white"].remove(length)
                    changed = True
                    break
        tops = {c: max(v, default=0) for c, v in owned.items()}
        if tops["black"] == tops["white"]:
            return {"black": 0.0, "white": 0.0}
        top = max(tops, key=tops.get)
        return {top: float(tops[top]), ("white" if top == "black" else "black"): 0.0}
    if scoring == "standard":
        score = {"black": float(board.count(BLACK)), "white": float(board.count(WHITE))}
    else:
        score = {c: float(sum(x * x for x in v)) for c, v in owned.items()}
    if button is not None:
        score[button] += 0.5
    score["white"] += komi
    return score


def test_scores_match_literal_definition_on_random_positions():
    """All option combinations, random komi, positions during and at the end of the game."""
    rng = np.random.default_rng(2024)
    checked = 0
    for side in (2, 3, 4, 6):
        spec = board_spec(side)
        nbrs = [[int(j) for j in row if j != spec.pad] for row in spec.neighbours[: spec.num_cells]]
        for game_type in ("komi", "no_komi", "double"):
            for scoring in ("standard", "longest", "quadratic"):
                for _ in range(4 if side < 6 else 1):
                    hi = 1000 if scoring == "quadratic" else 15
                    komi = int(rng.integers(hi + 1)) if game_type == "komi" else 0
                    g = Game(GameConfig(side=side, game_type=game_type, scoring=scoring, komi=komi))
                    while True:
                        board = [int(c) for c in board_codes(g)]
                        expected = literal_scores(board, nbrs, g.button_holder, komi, scoring)
                        assert g.scores() == expected
                        checked += 1
                        if g.is_over:
                            break
                        moves = g.legal_moves()
                        g.play(moves[rng.integers(len(moves))])
                    s = g.scores()
                    if s["black"] != s["white"]:
                        assert g.winner == max(s, key=s.get)
                    else:
                        assert g.winner == g.button_holder
                    if g.config.game_type_rule.has_button:
                        assert g.button_holder is not None  # R6: always assigned at the end
                        if scoring != "longest":
                            assert s["black"] != s["white"]  # R6: no ties with the button
    assert checked > 1000
