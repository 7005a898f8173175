"""The examples of RULES.md and hand-checked positions, played as real move sequences.

Side-3 board (19 cells) used by several tests, rows bottom to top; (c, r) is adjacent to
(c+-1, r), (c, r+-1), (c+1, r+1) and (c-1, r-1) (R1):
    row 5:          C5 D5 E5
    row 4:       B4 C4 D4 E4
    row 3:    A3 B3 C3 D3 E3
    row 2:    A2 B2 C2 D2
    row 1:    A1 B1 C1
"""

from __future__ import annotations

import numpy as np
import pytest

from catena_zero.game import Game, GameConfig, GameNotOver, IllegalMove
from positions import board_codes, legal_cells, play_action


def colours(g: Game, cells: str) -> list[str | None]:
    return [g.stone_at(c) for c in cells.split()]


def ribbon_of(g: Game, cell: str):
    (ribbon,) = [r for r in g.ribbons() if cell in r.cells]
    return ribbon


# ----------------------------------------------------------------------------- R1, R10
def test_r1_board_sizes_and_r10_notation():
    """R1: a side-n board has 3n(n-1)+1 cells; R10: legal moves are listed in notation,
    sorted by (column, row), the button last."""
    for side in range(2, 11):
        g = Game(GameConfig(side=side))
        assert len(legal_cells(g)) == 3 * side * (side - 1) + 1
    moves = Game(GameConfig(side=6)).legal_moves()
    assert moves[:7] == ["A1", "A2", "A3", "A4", "A5", "A6", "B1"]
    assert "F11" in moves and "K6" in moves and "K5" not in moves and moves[-1] == "button"


# ----------------------------------------------------------------------------- R3
def test_r3_seed_example():
    """R3 seed example (side 6): stones on C5 D5 E5 and G5 H6 H7."""
    g = Game.replay(GameConfig(side=6), ["C5", "D5", "E5", "G5", "H6", "H7"])
    assert [r.cells for r in g.ribbons()] == [("C5", "D5", "E5"), ("G5", "H6", "H7")]
    legal = g.legal_moves()
    assert "B5" in legal  # extends C5-E5
    assert "F5" in legal  # joins C5-E5 and G5-H7
    assert "D6" not in legal  # with C5 and D5: a ring of three
    assert "G6" not in legal  # three neighbouring stones
    assert "I6" not in legal  # H6 would get a third neighbour
    for cell in ("D6", "G6", "I6"):
        with pytest.raises(IllegalMove, match="R3"):
            g.play(cell)
    # The message names the stones that make the problem.
    for cell, why in (("D6", "C5 and D5 are stones of one ribbon, which it would close into a ring"),
                      ("G6", "a stone there would touch 3 stones (G5, H6, H7)"),
                      ("I6", "H6 is a middle stone of its ribbon and would touch a third stone")):
        with pytest.raises(IllegalMove) as raised:
            g.play(cell)
        assert str(raised.value) == f"{cell} is illegal: every group must stay a ribbon (R3): {why}"
    g.play("F5")  # the join is playable and makes one ribbon of seven
    assert ribbon_of(g, "C5").cells == ("C5", "D5", "E5", "F5", "G5", "H6", "H7")


def test_r3_illegal_cells_stay_illegal():
    """R3: stones are never removed, so a cell that became illegal never becomes legal."""
    rng = np.random.default_rng(3)
    g = Game(GameConfig(side=4))
    seen_illegal: set[int] = set()
    while not g.is_over:
        legal = set(legal_cells(g))
        empty = set(np.flatnonzero(board_codes(g) == 0).tolist())
        assert not (seen_illegal & legal)
        seen_illegal |= empty - legal
        play_action(g, sorted(legal)[rng.integers(len(legal))])


# ----------------------------------------------------------------------------- R5
def test_r5_seed_example_white_claims_a_ribbon_it_did_not_touch():
    """R5 seed example (side 6): A1-A6 has four White stones and can grow only at B7;
    White's C8 extends C7-E7, B7 gets three neighbours, A1-A6 is limited and White's."""
    moves = [
        "A2", "A1",  # B, W: B2 becomes illegal (ring A1-A2)
        "A5", "A3",
        "C1", "A4",  # W A4 joins A1-A3 and A5
        "C2", "A6",  # C1-C2 makes B1 touch three stones; B6 touches the middle stone A5
        "C7", "D7",
        "E7",        # B7 now joins A6 and C7: still legal, the only growth cell of A1-A6
    ]
    g = Game.replay(GameConfig(side=6), moves)
    assert colours(g, "A1 A2 A3 A4 A5 A6") == ["white", "black", "white", "white", "black", "white"]
    assert {"B1", "B2", "B6"}.isdisjoint(g.legal_moves()) and "B7" in g.legal_moves()
    assert not ribbon_of(g, "A1").limited
    assert g.to_move == "white"
    g.play("C8")
    assert "B7" not in g.legal_moves()
    claimed = ribbon_of(g, "A1")
    assert claimed.cells == ("A1", "A2", "A3", "A4", "A5", "A6")
    assert claimed.limited and claimed.claimed and (claimed.black, claimed.white) == (0, 6)
    assert colours(g, "A2 A5") == ["white", "white"]  # Black's stones turned White
    # The ribbon White extended is not limited and keeps its colours.
    other = ribbon_of(g, "C8")
    assert not other.limited and colours(g, "C7 D7 E7 C8") == ["black", "white", "black", "white"]


def test_r5_tie_goes_to_opponent_of_placer():
    """R5: White's E5 limits E3-D3-D4-E5 (2 Black, 2 White): the tie goes to Black."""
    g = Game.replay(GameConfig(side=3), ["E3", "D4", "D3"])  # D3 joins E3 and D4
    g.play("E5")  # extends D4; E4 (four stones), D5 and D2 (middle stones) are illegal
    ribbon = ribbon_of(g, "E5")
    assert ribbon.cells == ("E3", "D3", "D4", "E5") and ribbon.limited
    assert colours(g, "E3 D3 D4 E5") == ["black"] * 4


def test_r5_own_move_can_hand_stones_to_the_opponent():
    """R5: White's own limiting stone E5 joins a Black-majority ribbon and turns Black."""
    g = Game.replay(GameConfig(side=3), ["E3", "A1", "D3", "C1", "D4"])
    g.play("E5")
    ribbon = ribbon_of(g, "E5")
    assert ribbon.limited and (ribbon.black, ribbon.white) == (4, 0)
    assert g.stone_at("E5") == "black"
    assert colours(g, "A1 C1") == ["white", "white"]  # untouched elsewhere


def test_r5_one_placement_claims_own_and_other_ribbons_independently():
    """R5: Black's C4 limits its own ribbon C4-C5 (tie, 1-1: to White, the opponent) and
    the single White stone A3 (by blocking B4, its last growth cell) in one placement."""
    moves = ["B2", "C2", "A1", "A3", "E4", "C5", "E5", "C1"]
    g = Game.replay(GameConfig(side=3), moves)
    # White's C1 limited A1-B2-C2-C1 (2-2): the tie went to Black, White's opponent.
    assert colours(g, "A1 B2 C2 C1") == ["black"] * 4
    assert not ribbon_of(g, "A3").limited and "B4" in g.legal_moves()
    g.play("C4")
    assert "B4" not in g.legal_moves()
    assert ribbon_of(g, "A3").limited and g.stone_at("A3") == "white"
    c4 = ribbon_of(g, "C4")
    assert c4.cells == ("C4", "C5") and c4.limited
    assert colours(g, "C4 C5") == ["white", "white"]  # Black's own stone handed over
    assert colours(g, "E4 E5") == ["black", "black"] and not ribbon_of(g, "E4").limited


def test_r5_limited_single_stone_keeps_its_colour_and_limited_ribbons_never_change():
    """R5: a stone placed as an immediately limited single stone is its own colour's; the
    limited chain C1-C2-C3-B3-A3 (3 Black, 2 White) is Black's and never changes again."""
    g = Game.replay(GameConfig(side=3), ["C1", "C2", "C3", "B3"])
    g.play("A3")  # B1, B2, D2 (next to C2), A2, B4 (next to B3) are all illegal now
    chain = ribbon_of(g, "A3")
    assert chain.cells == ("A3", "B3", "C3", "C2", "C1") and chain.limited
    assert colours(g, "C1 C2 C3 B3 A3") == ["black"] * 5
    g.play("A1")  # White: no neighbouring stone, all neighbours B1, A2, B2 illegal
    single = ribbon_of(g, "A1")
    assert single.cells == ("A1",) and single.limited and g.stone_at("A1") == "white"
    while not g.is_over:
        g.play(g.legal_moves()[0])
    assert colours(g, "C1 C2 C3 B3 A3 A1") == ["black"] * 5 + ["white"]


# ----------------------------------------------------------------------------- R4, R6
def test_r4_game_ends_when_no_cell_is_legal_and_r6_button_goes_to_non_placer():
    """R4: side 2, after Black's B1 no cell is legal: the game is over at once (all ribbons
    limited and claimed); R6: the untaken button goes to White, who did not place last;
    R10: White is "to move"."""
    g = Game.replay(GameConfig(side=2), ["A1", "A2", "B3", "C3"])
    assert g.legal_moves() == ["B1", "C2", "button"]
    g.play("B1")
    assert g.is_over and g.legal_moves() == []
    assert g.button_holder == "white" and g.to_move == "white"
    (ribbon,) = g.ribbons()
    assert ribbon.cells == ("B1", "A1", "A2", "B3", "C3")
    assert ribbon.limited and (ribbon.black, ribbon.white) == (5, 0)
    assert g.scores() == {"black": 5.0, "white": 0.5} and g.winner == "black"
    for move in ("C2", "button"):
        with pytest.raises(IllegalMove, match="over"):
            g.play(move)


def test_r4_button_taken_once_passes_the_turn_and_is_kept():
    """R4: taking the button is a whole turn; only once; the holder keeps it (R6)."""
    g = Game(GameConfig(side=2))
    g.play("button")
    assert g.button_holder == "black" and g.to_move == "white" and g.history == ["button"]
    assert "button" not in g.legal_moves()
    with pytest.raises(IllegalMove, match="already taken"):
        g.play("button")
    for move in ["A1", "A2", "B3", "C3", "B1"]:
        g.play(move)
    assert g.is_over and g.last_move == "B1" and g.to_move == "black"
    assert g.button_holder == "black"  # kept, although White placed the last stone


def test_r7_no_komi_button_not_before_first_stone():
    """R7: in no_komi the first move is Black's stone; the button comes after."""
    g = Game(GameConfig(side=3, game_type="no_komi"))
    assert "button" not in g.legal_moves()
    with pytest.raises(IllegalMove, match="no_komi"):
        g.play("button")
    g.play("C3")
    assert g.legal_moves()[-1] == "button"
    g.play("button")
    assert g.button_holder == "white" and g.to_move == "black"


def test_komi_game_black_may_take_button_first():
    """R4: in game type komi nothing stops Black from taking the button at once."""
    g = Game(GameConfig(side=3, game_type="komi", komi=4))
    assert g.legal_moves()[-1] == "button"
    g.play("button")
    assert g.button_holder == "black"


# ----------------------------------------------------------------------------- R8
def test_r8_double_turn_order_and_no_button():
    """R8: Black's single opening stone, then two stones per turn by the same player."""
    g = Game(GameConfig(side=4, game_type="double"))
    assert "button" not in g.legal_moves()
    with pytest.raises(IllegalMove, match="double"):
        g.play("button")
    order = []
    for move in ["D4", "A1", "G7", "A4", "G4", "D1", "D7"]:
        order.append((g.to_move, g.pending_second))
        g.play(move)
    assert order == [
        ("black", False),
        ("white", False), ("white", True),
        ("black", False), ("black", True),
        ("white", False), ("white", True),
    ]
    assert g.to_move == "black" and not g.pending_second and g.button_holder is None


def test_r8_first_stone_must_leave_a_cell_for_the_second():
    """R8: White's D4 would join D3 and D5 and make E3, E4 and E5 illegal, leaving no cell
    for the second stone, so it is not a legal first stone; as a second stone it is."""
    moves = ["D3", "C2", "B4", "C5", "C1", "A2", "D5", "B3", "A1"]
    g = Game.replay(GameConfig(side=3, game_type="double"), moves)
    assert g.to_move == "white" and not g.pending_second
    assert g.legal_moves() == ["E3", "E4", "E5"]
    with pytest.raises(IllegalMove, match="R8"):
        g.play("D4")
    g.play("E5")
    assert g.pending_second and g.to_move == "white" and g.legal_moves() == ["E3", "E4"]
    g.play("E3")  # the second stone may leave nothing: Black then has no pair (R8)
    assert g.is_over and g.to_move == "black"


def test_r8_end_claims_unlimited_ribbons_tie_to_player_to_move():
    """R8: after Black's B3 White has no legal pair: the game ends; A2-B3-C4-D5-E5 (3 Black,
    2 White) goes to Black, B1-C2-D2-E3 (2-2) to White, the opponent of the last placer."""
    moves = ["D2", "D5", "A2", "C2", "E5", "E3", "B1", "C4", "B3"]
    g = Game.replay(GameConfig(side=3, game_type="double"), moves)
    assert g.is_over and g.to_move == "white" and not g.pending_second
    assert g.legal_moves() == [] and g.button_holder is None
    five, four = ribbon_of(g, "B3"), ribbon_of(g, "B1")
    assert set(five.cells) == {"A2", "B3", "C4", "D5", "E5"} and five.claimed
    assert set(four.cells) == {"B1", "C2", "D2", "E3"} and four.claimed
    assert colours(g, "A2 B3 C4 D5 E5") == ["black"] * 5
    assert colours(g, "B1 C2 D2 E3") == ["white"] * 4
    assert g.scores() == {"black": 5.0, "white": 4.0} and g.winner == "black"


def test_r8_double_game_has_odd_stone_count_and_is_never_drawn_when_played():
    """R8: a finished double game has 1 + 2k stones, so standard/quadratic never tie."""
    rng = np.random.default_rng(8)
    for side in (2, 3, 4):
        for scoring in ("standard", "quadratic"):
            g = Game(GameConfig(side=side, game_type="double", scoring=scoring))
            while not g.is_over:
                moves = g.legal_moves()  # cells only: no button in double (R8)
                g.play(moves[rng.integers(len(moves))])
            assert g.move_number % 2 == 1 and g.winner is not None


# ----------------------------------------------------------------------------- API errors
def test_malformed_moves_and_errors():
    """R10: the engine takes upper-case cells and "button" only; bad input is IllegalMove
    (a ValueError) and leaves the state as it was."""
    g = Game.replay(GameConfig(side=6), ["D5"])
    key, history = g.position_key(), g.history
    for bad in ("Z99", "", "d5", "D 5", "D05", "A7", "L1", "Button", "pass", "komi 3"):
        with pytest.raises(IllegalMove, match="not a move"):
            g.play(bad)
    with pytest.raises(IllegalMove, match="occupied"):
        g.play("D5")
    for bad in (-1, 92, True, None, ["D6"]):
        with pytest.raises(IllegalMove, match="not a move"):
            g.play(bad)
    assert g.position_key() == key and g.history == history
    assert issubclass(IllegalMove, ValueError)
    with pytest.raises(ValueError):
        g.stone_at("Z99")
    assert g.stone_at("D5") == "black" and g.stone_at("D6") is None
    with pytest.raises(GameNotOver):
        g.winner
    with pytest.raises(GameNotOver):
        g.result_value("black")
    with pytest.raises(ValueError):
        Game("side 6")


@pytest.mark.parametrize(
    "options",
    [
        dict(side=1), dict(side=11), dict(side="6"), dict(game_type="triple"),
        dict(scoring="area"), dict(komi=16), dict(komi=-1), dict(komi=1.5),
        dict(scoring="quadratic", komi=1001), dict(game_type="double", komi=3),
        dict(game_type="no_komi", komi=1),
    ],
)
def test_bad_options(options):
    """R9: invalid options are a ValueError naming the problem."""
    with pytest.raises(ValueError):
        GameConfig(**options)


def test_notation_and_action_indices_convert_both_ways():
    """R10 notation is the game's; action indices the environment's: ``BoardSpec.action`` is the
    inverse of ``action_name`` (the cells in notation order, then the button)."""
    g = Game.replay(GameConfig(side=4), ["D4", "button", "C3"])
    spec = g.spec
    every = range(spec.num_actions)
    assert [spec.action_name(a) for a in every] == [*spec.names, "button"]
    assert [spec.action(spec.action_name(a)) for a in every] == list(every)
    for bad in ("Z99", "d4", "Button", ""):
        with pytest.raises(ValueError, match="not a cell"):
            spec.action(bad)
    assert g.history == ["D4", "button", "C3"]
    assert g.move_number == 3 and g.last_move == "C3"
    assert g.stone_at("C3") == "black"  # the button passed the turn


def test_r3_messages_name_stones_next_to_the_cell_over_random_games():
    """Over random games: every illegal empty cell's message names stones that touch it, and
    the reason it gives holds on the board (a ring: both stones in one ribbon)."""
    import re

    rng = np.random.default_rng(11)
    checked = 0
    for _ in range(20):
        g = Game(GameConfig(side=4))
        while not g.is_over:
            legal, board = set(legal_cells(g)), board_codes(g)
            for cell in range(g.spec.num_cells):
                if board[cell] != 0 or cell in legal:
                    continue
                name = g.spec.names[cell]
                message = g._why_illegal(cell)
                if message is None or "R3" not in message:
                    continue  # R8's pair rule, not R3
                named = re.findall(r"\b([A-Z][0-9]+)\b", message.split("(R3): ", 1)[1])
                touching = {g.spec.names[s] for s in g.spec.neighbours[cell] if s < g.spec.num_cells}
                assert named and set(named) <= touching, (name, message)
                if "ring" in message:
                    a, b = named
                    assert ribbon_of(g, a) == ribbon_of(g, b)
                checked += 1
            play_action(g, sorted(legal)[rng.integers(len(legal))])
    assert checked > 500
