"""Reviewing a game with a bot (bot/review.py, ``catena-zero analyze``): the losses of moves worked
by hand, one numbering (moves counted, set-up choices apart), the table and graph of a whole game."""

from __future__ import annotations

import pytest

from bot_files import save_tiny_checkpoint
from catena_zero.bot import Bot, RuleSet
from catena_zero.artifacts.botfile import export_bot
from catena_zero.bot.review import Judged, MoveReview, judge, review_game
from catena_zero.cli import main
from catena_zero.game import Game, GameConfig
from catena_zero.game.match import Match
from catena_zero.game.records import load_record, record_of, save_record
from catena_zero.artifacts.checkpoint import load_checkpoint
from events import ev, evs, texts  # noqa: F401


@pytest.fixture(scope="module")
def bot_path(tmp_path_factory):
    root = tmp_path_factory.mktemp("analyze")
    out = root / "tiny.bot"
    export_bot(load_checkpoint(save_tiny_checkpoint(root / "run")), out,
               trained_for=[RuleSet(3, "komi", "standard"), RuleSet(3, "double", "standard")])
    return out


def test_a_moves_loss_is_its_players_value_before_less_after_worked_by_hand():
    before, after = Judged(value=0.5, lead=3.0, best="B2"), Judged(value=-0.1, lead=-1.0, best="C3")
    black = MoveReview(number=1, colour="black", played="C2", before=before, after=after)
    white = MoveReview(number=2, colour="white", played="C2", before=before, after=after)
    # Black went from +0.5 to -0.1 (its view): lost 0.6 and 4 points. White made the same change
    # happen, which in White's view is a gain: nothing lost (losses stop at 0, as OGS reports them).
    assert black.value_loss == pytest.approx(0.6) and black.lead_loss == pytest.approx(4.0)
    assert white.value_loss == 0.0 and white.lead_loss == 0.0


def test_the_table_never_prints_a_negative_or_minus_zero_loss():
    from catena_zero.bot.review import GameReview
    from catena_zero.commands.analyze import table_lines

    judged = [Judged(value=v, lead=l, best="A1") for v, l in ((0.0, 0.0), (0.3, 2.0), (0.304, 2.04), (0.9, 6.0))]
    moves = tuple(MoveReview(number=k + 1, colour=("black", "white")[k % 2], played="A1", before=judged[k],
                             after=judged[k + 1]) for k in range(3))
    # Move 1 (Black) gained, move 2 (White) lost 0.2% and 0.04 points (rounds to 0), move 3 (Black) gained.
    review = GameReview(config=GameConfig(side=3), setup=(), moves=moves, budget="4 simulations", over=False)
    rows = [line.split() for line in table_lines(review) if line[:4].strip().isdigit()]
    assert [row[-2:] for row in rows] == [["0", "0.0"], ["0", "0.0"], ["0", "0.0"]]
    assert not [line for line in table_lines(review) if "-0" in line.replace("-0.", "")]  # no "-0" anywhere


def test_a_finished_game_is_judged_by_its_result(bot_path):
    bot = Bot.load(bot_path, simulations=2, device="cpu")
    rng_moves = Game(GameConfig(side=3, komi=5))
    while not rng_moves.is_over:
        rng_moves.play(rng_moves.legal_moves()[0])
    judged = judge(bot, rng_moves)
    scores = rng_moves.scores()
    assert judged.best is None and judged.lead == scores["black"] - scores["white"]
    assert judged.value == {"black": 1.0, "white": -1.0, None: 0.0}[rng_moves.winner]


def _finished_match(tmp_path):
    match = Match(GameConfig(side=3))
    match.apply(ev("komi 4"))
    match.apply(ev("colour white"))
    while match.phase != "over":
        match.apply(ev(match.game.legal_moves()[-1]))
    path = tmp_path / "game.txt"
    save_record(path, match)
    return path, match


def test_review_numbers_moves_apart_from_the_setup_and_ends_at_the_result(bot_path, tmp_path):
    path, match = _finished_match(tmp_path)
    record = load_record(path)
    bot = Bot.load(bot_path, simulations=4, device="cpu")
    seen = []
    review = review_game(bot, record, progress=lambda done, total: seen.append((done, total)))
    moves = match.game.history
    assert review.setup == ("komi 4", "colour white") and review.over and review.budget == "4 simulations"
    assert [m.number for m in review.moves] == list(range(1, len(moves) + 1))
    assert [m.played for m in review.moves] == list(moves)
    assert [m.colour for m in review.moves][0] == "black"
    assert seen[-1] == (len(moves) + 1, len(moves) + 1) and len(seen) == len(moves) + 1
    for a, b in zip(review.moves, review.moves[1:]):
        assert a.after == b.before  # one search per position, shared by the moves on both sides of it
    assert review.moves[-1].after == judge(bot, match.game)  # the result
    assert all(m.before.best is not None for m in review.moves)
    worst = review.worst(3)
    assert worst == sorted(worst, key=lambda m: -m.value_loss) and all(m.value_loss > 0 for m in worst)


def test_analyze_prints_a_row_per_move_and_writes_the_graph(bot_path, tmp_path, capsys):
    path, match = _finished_match(tmp_path)
    graph = tmp_path / "review.png"
    assert main(["analyze", str(path), "--bot", str(bot_path), "--simulations", "4", "--device", "cpu",
                 "--graph", str(graph)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[1] == "set-up (not numbered): komi 4, colour white"
    rows = [line for line in out if line[:4].strip().isdigit()]
    assert [int(line.split()[0]) for line in rows] == list(range(1, len(match.game.history) + 1))
    assert [line.split()[2] for line in rows] == list(match.game.history)
    assert any(line.startswith("result: black win% ") for line in out)
    assert out[-1] == f"graph written to {graph}"
    assert graph.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


def test_analyze_refuses_what_it_cannot_do_in_one_line(bot_path, tmp_path, capsys):
    side4 = tmp_path / "side4.txt"
    save_record(side4, Game(GameConfig(side=4)))
    for argv, fragment in (
        (["analyze", str(side4), "--bot", str(bot_path)], "it does not play side 4"),
        (["analyze", str(tmp_path / "missing.txt"), "--bot", str(bot_path)], "missing.txt"),
        (["analyze", str(side4), "--bot", str(bot_path), "--graph", str(tmp_path / "g.svg")], "PNG"),
        (["analyze", str(side4), "--bot", str(bot_path), "--graph", str(side4)], "side4.txt"),
    ):
        assert main(argv) == 2, argv
        err = capsys.readouterr().err
        assert err.startswith("catena-zero: error: ") and err.count("\n") == 1 and fragment in err, err
    assert load_record(side4) == record_of(Game(GameConfig(side=4)))  # the record was not touched
