"""Elo maths (eval/ratings.py): hand-worked intervals, the two-player closed form, recovery of
known ratings from synthetic results, priors, and bad input."""

from __future__ import annotations

import math

import numpy as np
import pytest

from catena_zero.eval.ratings import (
    ELO_PER_NATURAL,
    PairResult,
    Tally,
    elo_from_score,
    elo_interval,
    expected_score,
    fit_ratings,
    score_interval,
    score_rate,
)


def test_elo_scale_and_logistic_transform_by_hand():
    assert ELO_PER_NATURAL == pytest.approx(173.7178, abs=1e-4)  # 400 / ln 10
    assert elo_from_score(0.5) == 0.0
    assert elo_from_score(10 / 11) == pytest.approx(400.0)  # odds 10:1 are 400 Elo
    assert elo_from_score(0.75) == pytest.approx(400 * math.log10(3))
    assert elo_from_score(1.0) == math.inf and elo_from_score(0.0) == -math.inf
    for d in (-700.0, -35.0, 0.0, 120.0, 500.0):
        assert elo_from_score(expected_score(d)) == pytest.approx(d)


def test_wilson_interval_by_hand():
    # 8 of 10 with z = 1.96: centre (0.8 + 0.19208) / 1.38416, half 1.96/1.38416 * sqrt(0.016 + 0.009604)
    lo, hi = score_interval(8, 0, 2)
    assert (lo, hi) == pytest.approx((0.4902, 0.9433), abs=1e-4)
    assert score_rate(3, 2, 5) == 0.4
    # all wins: the interval reaches 1, and the Elo interval +inf, but its lower end stays finite
    lo, hi = score_interval(20, 0, 0)
    assert hi == 1.0 and lo == pytest.approx(20 / (20 + 1.959963984540054**2))
    elo_lo, elo_hi = elo_interval(20, 0, 0)
    assert elo_hi == math.inf and 0 < elo_lo < 1000
    # symmetric in wins and losses, and shrinking with more games
    assert score_interval(2, 1, 7) == pytest.approx(tuple(1 - x for x in reversed(score_interval(7, 1, 2))))
    assert np.diff(score_interval(60, 0, 40)) < np.diff(score_interval(6, 0, 4))
    assert score_interval(0, 0, 0) == (0.0, 1.0)


@pytest.mark.parametrize("wins,draws,losses", [(30, 10, 20), (7, 0, 3), (1, 4, 1)])
def test_two_players_without_prior_is_the_closed_form(wins, draws, losses):
    fit = fit_ratings([PairResult("x", "random", Tally(wins, draws, losses))], prior_games=0.0)
    w, l, n = wins + draws / 2, losses + draws / 2, wins + draws + losses
    p = w / n
    assert fit.rating("random") == 0.0 and fit.stderr[fit.index("random")] == 0.0
    assert fit.rating("x") == pytest.approx(ELO_PER_NATURAL * math.log(w / l), abs=1e-6)
    # Fisher information of n games at probability p is n p (1 - p)
    assert fit.stderr[fit.index("x")] == pytest.approx(ELO_PER_NATURAL / math.sqrt(n * p * (1 - p)), rel=1e-6)
    assert fit.games.tolist() == [n, n] and fit.score[fit.index("x")] == pytest.approx(w)


def test_two_players_with_the_centre_prior_is_the_closed_form_with_virtual_games():
    # prior_games c: c/2 virtual wins and losses of x against rating 0 = the anchor's rating
    c = 4.0
    fit = fit_ratings([PairResult("random", "x", Tally(2, 0, 9))], prior_games=c)
    w, l = 9 + c / 2, 2 + c / 2
    assert fit.rating("x") == pytest.approx(ELO_PER_NATURAL * math.log(w / l), abs=1e-6)
    p = w / (w + l)
    assert fit.stderr[fit.index("x")] == pytest.approx(ELO_PER_NATURAL / math.sqrt((w + l) * p * (1 - p)), rel=1e-6)


def test_all_wins_needs_the_prior_and_stays_finite_with_it():
    results = [PairResult("x", "random", Tally(50, 0, 0))]
    with pytest.raises(ValueError, match="prior"):
        fit_ratings(results, prior_games=0.0)
    fit = fit_ratings(results, prior_games=2.0)
    # 51 wins, 1 loss: ln 51 natural units
    assert fit.rating("x") == pytest.approx(ELO_PER_NATURAL * math.log(51), abs=1e-6)


def test_recovers_known_ratings_from_many_synthetic_games():
    rng = np.random.default_rng(7)
    truth = {"random": 0.0, "a": 120.0, "b": 300.0, "c": 310.0, "d": 650.0}
    names = list(truth)
    results = []
    for i, x in enumerate(names):
        for y in names[i + 1:]:
            n = 3000
            p = expected_score(truth[x] - truth[y])
            draw = 0.2 * min(p, 1 - p)  # draws carry half a point each: P(win) = p - draw / 2 keeps E[score] = p
            wins, draws, losses = rng.multinomial(n, [p - draw / 2, draw, 1 - p - draw / 2])
            results.append(PairResult(x, y, Tally(wins, draws, losses)))
    fit = fit_ratings(results, players=names)
    for name in names:
        i = fit.index(name)
        assert abs(fit.elo[i] - truth[name]) < max(4 * fit.stderr[i], 1e-9), (name, fit.elo[i], fit.stderr[i])
        assert abs(fit.elo[i] - truth[name]) < 25
    assert 3 < fit.stderr[fit.index("d")] < 15  # thousands of games: errors of a few Elo


def test_a_chain_gauntlet_recovers_ratings_and_errors_grow_along_the_chain():
    rng = np.random.default_rng(3)
    truth = [0.0, 100.0, 250.0, 350.0]
    names = ["random", "s1", "s2", "s3"]
    results = []
    for i in range(1, 4):  # each plays only its predecessor: errors accumulate along the chain
        n = 2000
        wins = rng.binomial(n, expected_score(truth[i] - truth[i - 1]))
        results.append(PairResult(names[i], names[i - 1], Tally(wins, 0, n - wins)))
    fit = fit_ratings(results, players=names, prior_games=0.0)
    assert np.abs(fit.elo - truth).max() < 40
    assert fit.stderr[1] < fit.stderr[2] < fit.stderr[3]


def test_sequential_prior_pulls_neighbours_together_and_disconnected_players_need_it():
    results = [PairResult("s1", "random", Tally(8, 0, 2)), PairResult("s2", "s3", Tally(5, 0, 5))]
    with pytest.raises(ValueError):
        fit_ratings(results, prior_games=0.0)  # s2, s3 are not connected to the anchor
    loose = fit_ratings(results, players=["random", "s1", "s2", "s3"], prior_games=1.0)
    tied = fit_ratings(results, players=["random", "s1", "s2", "s3"], prior_games=1.0,
                       sequential=["s1", "s2", "s3"], sequential_prior_games=20.0)
    gap = lambda f: abs(f.rating("s1") - f.rating("s2"))
    assert gap(tied) < gap(loose)
    assert tied.stderr[tied.index("s3")] < loose.stderr[loose.index("s3")]


def test_bad_inputs_are_one_line_value_errors():
    with pytest.raises(ValueError, match="anchor"):
        fit_ratings([PairResult("a", "b", Tally(1, 0, 1))], players=["a", "b"])
    with pytest.raises(ValueError, match="itself"):
        fit_ratings([PairResult("a", "a", Tally(1, 0, 1))], players=["random", "a"])
    with pytest.raises(ValueError, match="negative"):
        fit_ratings([PairResult("a", "random", Tally(-1, 0, 1))])
    with pytest.raises(ValueError, match="not in the list"):
        fit_ratings([PairResult("a", "random", Tally(1, 0, 1))], players=["random"])


def test_one_result_record_and_one_elo_formatter():
    from catena_zero.eval.ratings import elo_number, elo_text

    t = Tally.of([1.0, 0.5, 0.0, 1.0])
    assert (t.wins, t.draws, t.losses, t.games, t.line()) == (2, 1, 1, 4, "+2 =1 -1")
    assert t.score == pytest.approx(0.625) and t.elo == pytest.approx(elo_from_score(0.625))
    assert (elo_number(-0.4), elo_number(35.2), elo_number(-35.6, signed=False), elo_number(math.inf)) == \
        ("+0", "+35", "-36", "+inf")
    assert elo_text(35.2, -20.4, 90.1) == "Elo +35 [-20, +90]"
    assert elo_text(math.inf, 310.4, math.inf) == "Elo >= +310" and elo_text(-math.inf, -math.inf, -310.4) == "Elo <= -310"
    assert elo_text(35.2, -20.4, 90.1, label="") == "+35 [-20, +90]"
