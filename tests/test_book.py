"""Opening books (eval/book.py, commands/book.py): candidates one per symmetry class, balance by a
reference network, the file format and its checks, the shipped books, and matches over a book."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from catena_zero.cli import main
from catena_zero.eval.book import (BOOK_MAGIC, Book, BookError, _class_keys, candidate_openings, load_book,
                                   make_book, parse_book, reference_book, resolve_book, shipped_book, shipped_book_path)
from catena_zero.evalfn import Evaluation
from catena_zero.game.options import GameConfig, RuleSet
from catena_zero.game.rules import Game
from positions import legal_actions
from catena_zero.game.vec import BLACK, VecEnv

SHIPPED = [RuleSet(3, "komi", "standard"), RuleSet(4, "komi", "standard"), RuleSet(6, "komi", "standard")]


def _brute_force_classes(side: int, plies: int) -> set:
    """Symmetry classes of every legal sequence, by the reference engine and the spec's tables."""
    game = GameConfig(side=side)
    env = VecEnv(game)
    sym = env.spec.sym_gather_actions
    classes, frontier = set(), [()]
    for _ in range(plies):
        nxt = []
        for seq in frontier:
            g = Game.replay(game, map(env.spec.action_name, seq))
            nxt += [seq + (a,) for a in legal_actions(g)] if not g.is_over else []
        frontier = nxt
    for seq in frontier:
        if not Game.replay(game, map(env.spec.action_name, seq)).is_over:
            classes.add(min(tuple(int(x) for x in sym[k, list(seq)]) for k in range(sym.shape[0])))
    return classes


@pytest.mark.parametrize("side,plies", [(2, 2), (3, 1), (3, 2)])
def test_candidates_are_one_per_symmetry_class_and_cover_every_class(side, plies):
    env = VecEnv(GameConfig(side=side))
    found = candidate_openings(env, plies, 0, np.random.default_rng(1))
    keys = _class_keys(found, env.spec.sym_gather_actions)
    assert len(set(keys.tolist())) == len(found)  # no two of a class
    sym = env.spec.sym_gather_actions
    canonical = {min(tuple(int(x) for x in sym[k, row]) for k in range(sym.shape[0])) for row in found}
    assert canonical == _brute_force_classes(side, plies)


def test_the_first_ply_of_side_three_has_the_classes_counted_by_hand():
    # Side 3: 19 cells in 4 classes under the 12 symmetries (the centre; the 6 inner ring cells; the
    # 6 corners; the 6 edge middles), plus taking the button, a whole turn even on move 1 (R4) -> 5.
    env = VecEnv(GameConfig(side=3))
    assert len(candidate_openings(env, 1, 0, np.random.default_rng(0))) == 5


class _FixedValue:
    """An evaluation function whose value for Black is a function of the opening's first action."""

    def __init__(self, env: VecEnv, value_of_first: dict[int, float]) -> None:
        self.env, self.value_of_first = env, value_of_first

    def __call__(self, state) -> Evaluation:
        first = state.history[:, 0]
        black = np.array([self.value_of_first.get(int(a), 0.9) for a in first], dtype=np.float32)
        value = np.where(state.to_move == BLACK, black, -black).astype(np.float32)
        count = state.batch_size
        return Evaluation(priors=np.zeros((count, self.env.spec.num_actions), np.float32), value=value,
                          score=np.zeros(count, np.float32))


def test_balance_keeps_only_openings_near_even_and_the_seed_fixes_the_book():
    game = GameConfig(side=4, komi=5)
    env = VecEnv(game)
    centre = env.spec.cell("D4")
    book = make_book(game, 10, _FixedValue(env, {centre: 0.1}), max_value=0.3, reference="test")
    assert len(book) == 10 and all(o[0] == centre for o in book.openings)  # only the centre's openings pass
    assert all(abs(v - 0.1) < 1e-6 for v in book.values) and book.komi == 5
    again = make_book(game, 10, _FixedValue(env, {centre: 0.1}), max_value=0.3, reference="test")
    assert again.openings == book.openings  # BOOK_SEED: the same book every time
    unbalanced = make_book(game, 10, None)
    assert unbalanced.max_value is None and all(math.isnan(v) for v in unbalanced.values)
    assert "not balanced" in unbalanced.describe()


def test_a_small_board_deepens_the_book_when_its_plies_run_short():
    book = make_book(GameConfig(side=3, komi=10), 60, None)  # side 3 has 43 two-ply classes
    lengths = [len(o) for o in book.openings]
    assert lengths[:43] == [2] * 43 and set(lengths[43:]) == {3}
    with pytest.raises(BookError, match=r"only \d+ openings of 1-\d+ plies up to symmetry \(no game lasts \d+ plies\)"):
        make_book(GameConfig(side=2), 10_000, None, plies=1)


def test_a_book_that_runs_out_says_why_and_what_to_ask_for(monkeypatch):
    """Seen on side 6, no_komi: every 2-ply opening was more than 0.1 from even, and 3 plies are too
    many to enumerate; the line said "only 0 balanced openings of 2-2 plies" (and "3-2" for plies 3)."""
    from catena_zero.eval import book as book_module

    monkeypatch.setattr(book_module, "MAX_ENUMERATED", 50)  # side 3: 20 first actions, some 380 two-ply
    game = GameConfig(side=3, komi=5)
    none_even = _FixedValue(VecEnv(game), {})  # 0.9 for Black after every opening
    with pytest.raises(BookError, match=r"^side 3 has only 0 balanced openings of 1 ply up to symmetry \(2-ply "
                                        r"sequences are too many to enumerate\); ask for fewer openings, or a max "
                                        r"value above 0.3$"):
        make_book(game, 10, none_even, plies=1, max_value=0.3)
    with pytest.raises(BookError, match=r"^side 3 has no book openings of 2 plies: 2-ply sequences are too many to "
                                        r"enumerate; ask for fewer plies$"):
        make_book(game, 10, None, plies=2)


def test_the_file_round_trips_and_damage_is_refused_with_its_line(tmp_path):
    game = GameConfig(side=4, komi=7)
    env = VecEnv(game)
    book = make_book(game, 5, _FixedValue(env, {}), max_value=1.0, reference="ref.bot")
    text = book.text()
    assert text.startswith(BOOK_MAGIC + "\n")
    again = parse_book(text)
    assert again.openings == book.openings and again.komi == 7 and again.reference == "ref.bot"
    assert again.values == pytest.approx(book.values, abs=1e-3)
    lines = text.splitlines()
    first_opening = lines.index(next(line for line in lines[9:]))
    bad = list(lines)
    bad[first_opening] = "D4 D4"
    with pytest.raises(BookError, match=f"line {first_opening + 1}:"):
        parse_book("\n".join(bad))
    bad = list(lines) + [lines[first_opening]]
    with pytest.raises(BookError, match="the same opening as line"):
        parse_book("\n".join(bad))
    with pytest.raises(BookError, match="line 1: not a book"):
        parse_book("catena-record 1\n")
    with pytest.raises(BookError, match="lacks 'komi'"):
        parse_book("\n".join(line for line in lines if not line.startswith("komi")))
    with pytest.raises(BookError, match="komi 99 is not a komi"):
        parse_book(text.replace("komi 7", "komi 99"))
    fifo = tmp_path / "fifo"
    import os

    os.mkfifo(fifo)
    with pytest.raises(BookError, match="not a regular file"):
        load_book(fifo)  # refused before it is opened: a FIFO would hang the read


@pytest.mark.parametrize("rules", SHIPPED, ids=lambda r: r.key)
def test_the_shipped_books_are_the_books_their_seed_draws(rules):
    """Each shipped book loads, is balanced by its reference at its komi, and is what the fixed seed
    draws now (the same openings from the same reference): the file is the book written down."""
    book = shipped_book(rules)
    assert book is not None, shipped_book_path(rules)
    assert len(book) >= 100 and book.max_value == 0.3
    assert all(abs(v) <= 0.3 for v in book.values)
    assert resolve_book(str(len(book)), rules.game(book.komi), komi=book.komi) == book  # the shipped one ...
    drawn = resolve_book("20", rules.game(book.komi), komi=book.komi - 1)
    assert drawn.komi == book.komi - 1 and drawn.values != book.values[:20]  # ... another komi: judged anew
    assert resolve_book("20", rules.game(book.komi)).openings == book.openings[:20]
    again = reference_book(rules.game(), len(book))  # drawn afresh from the seed: the file's openings
    assert again.openings == book.openings and again.komi == book.komi


def test_the_book_command_writes_a_book_evaluate_plays(tmp_path, capsys):
    out = tmp_path / "side2.book"
    assert main(["book", "--side", "2", "--openings", "3", "--out", str(out)]) == 0
    assert "book of 3 openings" in capsys.readouterr().out
    book = load_book(out)
    assert len(book) == 3 and book.rules == RuleSet(2, "komi", "standard") and book.max_value is None
    assert main(["evaluate", "random", "greedy", "--side", "2", "--book", str(out), "--seed", "3"]) == 0
    report = capsys.readouterr().out
    assert "6 games" in report and "3 distinct, from the book of 3 openings" in report
    assert "pairs by A's points 0 / 0.5 / 1 / 1.5 / 2 (pentanomial):" in report
    assert main(["evaluate", "random", "greedy", "--side", "3", "--book", str(out)]) == 2
    assert "is for side 2 komi standard; this match is side 3" in capsys.readouterr().err
    assert main(["book", "--side", "2", "--openings", "0", "--out", str(out)]) == 2
    assert "--openings must be at least 1" in capsys.readouterr().err
    assert main(["evaluate", "random", "greedy", "--side", "2", "--book", "3", "--games", "4"]) == 2
    assert "--games and --book exclude each other" in capsys.readouterr().err
    assert main(["evaluate", "random", "greedy", "--side", "2", "--sprt", "0,40"]) == 2
    assert "--sprt plays the pairs of a book" in capsys.readouterr().err
    assert main(["evaluate", "random", "greedy", "--side", "2", "--book", "3", "--sprt", "40,0"]) == 2
    assert "needs ELO0 < ELO1" in capsys.readouterr().err
    assert main(["evaluate", "random", "greedy", "--side", "2", "--book", "3", "--sprt", "0,x"]) == 2
    assert "--sprt expects two Elo bounds" in capsys.readouterr().err
    assert main(["evaluate", "random", "greedy", "--side", "2", "--book", "3", "--sprt", "0,40",
                 "--max-pairs", "9"]) == 2
    assert "--max-pairs 9 is more than the book's 3 openings" in capsys.readouterr().err
