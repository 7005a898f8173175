"""The SPRT of ``catena-zero evaluate --book N --sprt ELO0,ELO1`` end to end: a network never
accepts H1 against itself, and accepts it against ``random`` within a few pairs; a match over a
book reports its pentanomial counts; the komi of every match of a rule set is its reference's."""

from __future__ import annotations

import re

import numpy as np
import pytest

from catena_zero.cli import main
from catena_zero.eval.arena import SprtPlan, play_sprt, reference_komi
from catena_zero.eval.book import shipped_book
from catena_zero.eval.specs import build_agent
from catena_zero.game.options import GameConfig, RuleSet

BOT = "catena_zero/bots/side4.bot"


def _sprt_line(out: str) -> str:
    lines = out.strip().splitlines()
    assert lines[-1].startswith("sprt: "), lines[-1]  # the verdict is the last line
    return lines[-1]


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_a_network_never_accepts_h1_against_itself(seed, capsys):
    assert main(["evaluate", BOT, BOT, "--book", "150", "--sprt", "0,40", "--sims", "4",
                 "--seed", str(seed)]) == 0
    line = _sprt_line(capsys.readouterr().out)
    assert not line.startswith("sprt: H1 accepted"), line
    assert line.startswith("sprt: H0 accepted")  # every pair splits 1-1: the score is 50% exactly


def test_a_network_accepts_h1_against_random_within_a_few_pairs(capsys):
    assert main(["evaluate", BOT, "random", "--book", "150", "--sprt", "0,40", "--sims", "4"]) == 0
    out = capsys.readouterr().out
    line = _sprt_line(out)
    assert line.startswith("sprt: H1 accepted"), line
    pairs = int(re.search(r": (\d+) pairs, LLR", line).group(1))
    assert pairs <= 48  # three parts of 16 pairs at most
    from catena_zero.eval.book import shipped_book
    from catena_zero.game.options import RuleSet

    komi = shipped_book(RuleSet(4, "komi", "standard")).komi  # the shipped book's, balanced by the shipped bot
    assert f"komi {komi} (the book's komi, balanced by side4.bot)" in out


def test_a_long_match_says_where_it_stands_after_each_undecided_part(capsys):
    # Self against self: every pair splits, H0 is accepted after the second part of 16 pairs, and
    # the first part's standing goes to stderr as it ends (the report comes only at the end).
    assert main(["evaluate", BOT, BOT, "--book", "150", "--sprt", "0,40", "--sims", "2", "--max-pairs", "40"]) == 0
    captured = capsys.readouterr()
    assert _sprt_line(captured.out).startswith("sprt: H0 accepted (elo0 0, elo1 40, alpha 0.05, beta 0.05): 32 pairs")
    interim = [line for line in captured.err.splitlines() if not re.fullmatch(r"games \d+ of \d+ finished .*", line)]
    assert len(interim) == 1, interim
    assert re.fullmatch(r"sprt so far \(elo0 0, elo1 40, alpha 0.05, beta 0.05\): 16 pairs, LLR -?\d+\.\d\d in "
                        r"\[-2\.94, 2\.94\], Elo \+0 \[-\d+, \+\d+\] \(\d+\.\d min\)", interim[0]), interim[0]


def test_max_pairs_ends_inconclusive(capsys):
    assert main(["evaluate", BOT, "random", "--book", "150", "--sprt", "0,40", "--sims", "2",
                 "--max-pairs", "3"]) == 0
    line = _sprt_line(capsys.readouterr().out)
    assert line.startswith("sprt: inconclusive") and ": 3 pairs," in line and "the pairs ran out" in line


def test_play_sprt_stops_between_parts_and_numbers_the_games_in_pairs():
    agent, other = build_agent(BOT), build_agent("random")
    agent.search = agent.search.__class__(**{**agent.search.__dict__, "num_simulations": 2})
    book = shipped_book(RuleSet(4, "komi", "standard"))
    heard = []
    result, outcome = play_sprt(agent, other, book.game, book.first(40), None, np.random.default_rng(0),
                                SprtPlan(0, 40, batch_pairs=8),
                                on_part=lambda so_far, test: heard.append((so_far.pentanomial.pairs, test.decision)))
    assert result.game.komi == book.komi and result.komi_source == "the book's komi, balanced by side4.bot"
    assert result.book.startswith("book of 40 openings")
    assert outcome.decision == "H1" and outcome.pairs == result.pentanomial.pairs
    assert outcome.pairs % 8 == 0 and outcome.pairs < 40
    # every part but the deciding one was reported, undecided, as it ended
    assert heard == [(pairs, None) for pairs in range(8, outcome.pairs, 8)]
    assert [g.index for g in result.games] == list(range(2 * outcome.pairs))
    assert [g.opening for g in result.games[::2]] == list(book.openings[:outcome.pairs])
    assert all(g.a_black == (g.index % 2 == 0) for g in result.games)


def test_one_komi_for_every_match_of_a_rule_set():
    # The reference (the shipped bot's fair komi), whichever networks play.
    estimate = reference_komi(GameConfig(side=4))
    assert estimate is not None and estimate.komi == shipped_book(RuleSet(4, "komi", "standard")).komi
    assert "reference network, the shipped side4.bot" in estimate.source
    assert reference_komi(GameConfig(side=9)) is None  # no shipped bot for side 9
    assert reference_komi(GameConfig(side=4, game_type="no_komi")) is None


def test_a_match_without_a_complete_pair_falls_back_to_wilson():
    from catena_zero.eval.arena import play_match, report_lines

    result = play_match(build_agent("random"), build_agent("greedy"), GameConfig(side=2), 1, 0,
                        np.random.default_rng(0))
    assert result.pentanomial.pairs == 0
    assert any("(Wilson, no complete pair)" in line for line in report_lines(result))
