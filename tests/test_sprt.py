"""Paired-game statistics and the GSPRT (eval/sprt.py): pentanomial moments and intervals worked by
hand, the Wilson fallback for all-alike pairs, Wald's bounds, LLRs against closed forms, and the
test's error rates on simulated matches of known Elo."""

from __future__ import annotations

import math
import numbers

import numpy as np
import pytest

from catena_zero.eval.ratings import Z95, elo_from_score, expected_score, score_interval
from catena_zero.eval.sprt import (
    PAIR_SCORES,
    Pentanomial,
    SprtResult,
    sprt_bounds,
    sprt_llr,
    sprt_test,
)

# ------------------------------------------------------------------------- pentanomial


def test_moments_by_hand():
    # per-game scores of the outcomes: x = 0, .25, .5, .75, 1
    # (0,0,2,0,0): both pairs split 1-1, x = .5 twice: score .5, variance 0
    p = Pentanomial((0, 0, 2, 0, 0))
    assert (p.pairs, p.score, p.pair_variance, p.score_stderr) == (2, 0.5, 0.0, 0.0)
    # (1,0,0,0,1): x = 0 and 1: score .5, variance (.25 + .25) / 2 = .25, stderr sqrt(.25 / 2)
    p = Pentanomial((1, 0, 0, 0, 1))
    assert (p.score, p.pair_variance) == (0.5, 0.25)
    assert p.score_stderr == pytest.approx(math.sqrt(0.125))
    # (1,1,1,1,1): x = 0..1 in quarters: score .5, variance (.25 + .0625 + 0 + .0625 + .25) / 5 = .125
    p = Pentanomial((1, 1, 1, 1, 1))
    assert p.score == 0.5 and p.pair_variance == pytest.approx(0.125)
    # (3,5,10,6,2): points 0 + 2.5 + 10 + 9 + 4 = 25.5 over 26 pairs = 52 games: score 25.5 / 52
    p = Pentanomial((3, 5, 10, 6, 2))
    assert p.score == pytest.approx(25.5 / 52)
    assert p.elo == pytest.approx(elo_from_score(25.5 / 52))
    assert p.describe() == "pairs 0/0.5/1/1.5/2: 3 5 10 6 2"
    # no pairs: undefined moments, the whole score range
    empty = Pentanomial((0, 0, 0, 0, 0))
    assert math.isnan(empty.score) and math.isnan(empty.pair_variance) and math.isnan(empty.elo)
    assert empty.score_interval() == (0.0, 1.0)


def test_normal_interval_on_the_pair_mean_by_hand():
    # (1,0,0,0,1): s = .5, stderr sqrt(.25 / 2) = .35355: .5 +- 1.96 * .35355 = .5 +- .693, clipped
    assert Pentanomial((1, 0, 0, 0, 1)).score_interval() == (0.0, 1.0)
    # (2,0,16,0,2): s = .5, variance 4 * .25 / 20 = .05, stderr sqrt(.05 / 20) = .05: .5 +- .098
    lo, hi = Pentanomial((2, 0, 16, 0, 2)).score_interval()
    assert (lo, hi) == pytest.approx((0.5 - Z95 * 0.05, 0.5 + Z95 * 0.05))
    # a wider z, a wider interval
    assert Pentanomial((2, 0, 16, 0, 2)).score_interval(z=3.0) == pytest.approx((0.35, 0.65))


def test_all_alike_pairs_fall_back_to_wilson_over_pairs():
    # 10 sweeps: variance 0, so the normal interval would be the point 1; Wilson over 10 trials
    # that each scored 1 reaches from 10 / (10 + z^2) to 1
    sweep = Pentanomial((0, 0, 0, 0, 10))
    assert sweep.pair_variance == 0.0 and sweep.score == 1.0
    lo, hi = sweep.score_interval()
    assert hi == 1.0 and lo == pytest.approx(10 / (10 + Z95**2)) and lo < 1.0
    assert sweep.score_interval() == pytest.approx(score_interval(10, 0, 0))  # but exactly 1 at the top
    assert sweep.elo == math.inf and sweep.elo_interval() == (elo_from_score(lo), math.inf)
    # 5 pairs all split 1-1: Wilson over 5 trials each scoring .5, centred on .5, inside (0, 1)
    split = Pentanomial((0, 0, 5, 0, 0))
    lo, hi = split.score_interval()
    assert 0.0 < lo < 0.5 < hi < 1.0 and lo == pytest.approx(1 - hi)
    assert (lo, hi) == pytest.approx(score_interval(2.5, 0, 2.5))
    # all 1.5-point pairs: Wilson over 4 trials scoring .75
    assert Pentanomial((0, 0, 0, 4, 0)).score_interval() == pytest.approx(score_interval(3, 0, 1))


def test_pair_variance_not_the_game_variance_is_used():
    # 20 pairs with no draws: 18 split 1-1 (a lopsided opening each time, won by the side that had
    # it), 1 swept by A, 1 by B. As 40 independent games: 20 wins, 20 losses, per-game variance .25.
    p = Pentanomial((1, 0, 18, 0, 1))
    games = np.array([0, 0] + [1, 0] * 18 + [1, 1])  # [40] A's points per game
    assert games.var() == 0.25 and games.mean() == p.score == 0.5
    # per pair: x = 0, .5 (18 times), 1: variance (.25 + .25) / 20 = .025 (not .25 / 2 = .125 of a
    # pair of independent games): stderr sqrt(.025 / 20) = .03536, half-width 1.96 * .03536 = .0693
    assert p.pair_variance == pytest.approx(0.025)
    lo, hi = p.score_interval()
    assert hi - lo == pytest.approx(2 * Z95 * math.sqrt(0.025 / 20))
    game_lo, game_hi = score_interval(20, 0, 20)  # Wilson over the 40 games: half-width ~ .15
    assert hi - lo < 0.5 * (game_hi - game_lo)
    # every pair split 1-1: the pair variance is 0 where the games' is .25; the fallback is used
    split = Pentanomial((0, 0, 20, 0, 0))
    assert split.pair_variance == 0.0 and np.array([1, 0] * 20).var() == 0.25
    assert split.score_interval() == pytest.approx(score_interval(10, 0, 10))


def test_elo_interval_maps_the_score_interval_monotonically():
    for counts in [(3, 5, 10, 6, 2), (0, 1, 4, 9, 7), (6, 2, 1, 0, 0), (2, 0, 16, 0, 2)]:
        p = Pentanomial(counts)
        lo, hi = p.score_interval()
        elo_lo, elo_hi = p.elo_interval()
        assert (elo_lo, elo_hi) == (elo_from_score(lo), elo_from_score(hi))
        assert elo_lo <= p.elo <= elo_hi
    # more pairs of the same shape, a narrower interval
    small, large = Pentanomial((3, 5, 10, 6, 2)), Pentanomial((30, 50, 100, 60, 20))
    assert np.diff(large.elo_interval()) < np.diff(small.elo_interval())


def test_of_and_add():
    p = Pentanomial.of([2.0, 1.0, 1.5, 1.0, 0.0, 0.5, np.float64(1.0), 2])
    assert p.counts == (1, 1, 3, 1, 2)
    assert Pentanomial.of([]) == Pentanomial((0, 0, 0, 0, 0))
    assert Pentanomial.of(PAIR_SCORES).counts == (1, 1, 1, 1, 1)
    total = p + Pentanomial((1, 0, 0, 2, 0))
    assert total.counts == (2, 1, 3, 3, 2) and total.pairs == p.pairs + 3
    assert Pentanomial(np.array([1, 2, 3, 4, 5])).counts == (1, 2, 3, 4, 5)  # numpy ints become ints
    assert type(Pentanomial(np.array([1, 2, 3, 4, 5])).counts[0]) is int


@pytest.mark.parametrize("counts", [(1, 2, 3, 4), (1, 2, 3, 4, 5, 6), (1, -1, 0, 0, 0), (1.0, 0, 0, 0, 0),
                                    (True, 0, 0, 0, 0), 5, "abcde"])
def test_bad_counts_raise(counts):
    with pytest.raises(ValueError):
        Pentanomial(counts)


@pytest.mark.parametrize("points", [0.25, 3.0, -0.5, math.nan, "1", None, True])
def test_bad_pair_points_raise(points):
    with pytest.raises(ValueError):
        Pentanomial.of([1.0, points])


def test_add_needs_a_pentanomial():
    with pytest.raises(TypeError):
        Pentanomial((1, 0, 0, 0, 0)) + (1, 0, 0, 0, 0)  # type: ignore[operator]


# ------------------------------------------------------------------------------ GSPRT


def test_wald_bounds():
    lower, upper = sprt_bounds(0.05, 0.05)
    assert lower == pytest.approx(math.log(0.05 / 0.95)) and lower == pytest.approx(-2.944, abs=1e-3)
    assert upper == pytest.approx(2.944, abs=1e-3)
    assert sprt_bounds(0.05, 0.1) == pytest.approx((math.log(0.1 / 0.95), math.log(0.9 / 0.05)))


@pytest.mark.parametrize("alpha,beta", [(0.0, 0.05), (0.05, 0.0), (1.0, 0.05), (0.6, 0.5), (-0.1, 0.1)])
def test_bad_error_rates_raise(alpha, beta):
    with pytest.raises(ValueError):
        sprt_bounds(alpha, beta)
    with pytest.raises(ValueError):
        sprt_test(Pentanomial((1, 1, 1, 1, 1)), 0.0, 40.0, alpha, beta)


@pytest.mark.parametrize("elo0,elo1", [(40.0, 0.0), (10.0, 10.0), (0.0, math.inf), (math.nan, 10.0)])
def test_bad_elo_bounds_raise(elo0, elo1):
    with pytest.raises(ValueError):
        sprt_test(Pentanomial((1, 1, 1, 1, 1)), elo0, elo1)


def test_llr_against_a_constructed_closed_form():
    # Choose the answer first. q = (.1, .2, .4, .2, .1) has mean s = .5; for lam = .4 and
    # d = x - s = (-.5, -.25, 0, .25, .5), p_i = q_i (1 + lam d_i) = q_i (.8, .9, 1, 1.1, 1.2)
    # = (.08, .18, .40, .22, .12), which sums to 1 + lam sum q_i d_i = 1 and has mean .53. Then
    # q_i = p_i / (1 + lam d_i) is the constrained MLE of p at mean .5 (H0: Elo 0), and at p's own
    # mean .53 (H1) the MLE is p itself. So for 100 pairs (8, 18, 40, 22, 12), all cells filled
    # (no regularisation), LLR = sum n_i log(p_i / q_i) = sum n_i log(1 + lam d_i)
    # = 8 log .8 + 18 log .9 + 40 log 1 + 22 log 1.1 + 12 log 1.2
    # = -1.78515 - 1.89648 + 0 + 2.09682 + 2.18786 = 0.60305
    p = Pentanomial((8, 18, 40, 22, 12))
    assert p.score == pytest.approx(0.53)
    expected = 8 * math.log(0.8) + 18 * math.log(0.9) + 22 * math.log(1.1) + 12 * math.log(1.2)
    assert expected == pytest.approx(0.60305, abs=1e-5)
    assert sprt_llr(p, 0.0, elo_from_score(0.53)) == pytest.approx(expected, rel=1e-10)
    # swapping the hypotheses negates the LLR
    assert sprt_llr(p, elo_from_score(0.53), 0.0) == pytest.approx(-expected, rel=1e-10)


@pytest.mark.parametrize("losses,sweeps", [(4, 6), (40, 60), (75, 25)])
def test_llr_of_sweeps_and_losses_is_the_binomial_sprt(losses, sweeps):
    # Only 0- and 2-point pairs: on two outcomes the constrained MLE is closed form, (1 - s, s),
    # so LLR = n0 log((1 - s1) / (1 - s0)) + n4 log(s1 / s0), Wald's SPRT over pairs as trials.
    # The 3 empty middle cells get 1e-3 pairs each, which moves the MLE only slightly.
    s0, s1 = expected_score(0.0), expected_score(40.0)
    closed = losses * math.log((1 - s1) / (1 - s0)) + sweeps * math.log(s1 / s0)
    llr = sprt_llr(Pentanomial((losses, 0, 0, 0, sweeps)), 0.0, 40.0)
    assert llr == pytest.approx(closed, rel=1e-6, abs=1e-6)


def test_llr_sign_symmetry_and_edges():
    # better results raise the LLR of "A is 40 Elo better" against "equal"
    ladder = [(6, 4, 6, 4, 0), (2, 4, 10, 6, 2), (1, 2, 10, 8, 5), (0, 1, 5, 10, 10)]
    llrs = [sprt_llr(Pentanomial(c), 0.0, 40.0) for c in ladder]
    assert llrs == sorted(llrs) and llrs[0] < 0 < llrs[-1]
    # symmetric counts are at Elo 0 exactly: q0 = p (lam = 0), and any other mean is less likely
    symmetric = Pentanomial((2, 3, 10, 3, 2))
    assert sprt_llr(symmetric, 0.0, 40.0) < 0 and sprt_llr(symmetric, -40.0, 0.0) > 0
    # ... and symmetric hypotheses about it tie (mirror the outcomes and the means)
    assert sprt_llr(symmetric, -30.0, 30.0) == pytest.approx(0.0, abs=1e-12)
    # no pairs: no evidence
    assert sprt_llr(Pentanomial((0, 0, 0, 0, 0)), 0.0, 40.0) == 0.0
    # an infinite Elo bound puts the mean outside (0, 1): LLR 0
    assert sprt_llr(Pentanomial((1, 1, 1, 1, 1)), 0.0, math.inf) == 0.0
    # few or all-alike pairs: finite thanks to the regularised empty cells
    for counts in [(0, 0, 0, 0, 1), (0, 0, 0, 0, 37), (0, 0, 5, 0, 0), (1, 0, 0, 0, 0)]:
        assert math.isfinite(sprt_llr(Pentanomial(counts), 0.0, 40.0))
    assert sprt_llr(Pentanomial((0, 0, 0, 0, 37)), 0.0, 40.0) > 0 > sprt_llr(Pentanomial((0, 0, 5, 0, 0)), 0.0, 40.0)


def test_decision_and_line():
    p = Pentanomial((3, 5, 10, 6, 2))
    result = sprt_test(p, 0.0, 40.0)
    assert isinstance(result, SprtResult) and result.pairs == 26 and result.decision is None
    assert result.llr == sprt_llr(p, 0.0, 40.0)
    lo, hi = p.elo_interval()
    assert result.line(p, False) == (
        f"sprt: inconclusive (elo0 0, elo1 40, alpha 0.05, beta 0.05): 26 pairs, LLR {result.llr:.2f} "
        f"in [-2.94, 2.94], Elo {round(p.elo):+d} [{round(lo):+d}, {round(hi):+d}]")
    assert result.line(p, True).endswith("; the pairs ran out")
    assert result.line(p, False, interim=True) == result.line(p, False).replace("sprt: inconclusive", "sprt so far")
    strong = Pentanomial((1, 2, 10, 30, 4))
    line = sprt_test(strong, 0.0, 40.0).line(strong, True)
    assert line.startswith("sprt: H1 accepted (elo0 0, elo1 40, alpha 0.05, beta 0.05): 47 pairs, LLR ")
    assert "ran out" not in line
    weak = Pentanomial((4, 30, 10, 2, 1))
    assert sprt_test(weak, 0.0, 40.0).line(weak, False).startswith("sprt: H0 accepted (elo0 0, elo1 40,")
    # a sweep's Elo is +inf: the line gives its finite lower bound instead
    sweep = Pentanomial((0, 0, 0, 0, 37))
    lo, _ = sweep.elo_interval()
    assert sprt_test(sweep, 0.0, 40.0).line(sweep, False).endswith(f"Elo >= {round(lo):+d}")
    lost = Pentanomial((37, 0, 0, 0, 0))
    assert sprt_test(lost, 0.0, 40.0).line(lost, False).endswith(f"Elo <= {-round(lo):+d}")
    # the bounds decide, inclusively
    at = SprtResult(elo0=0.0, elo1=40.0, alpha=0.05, beta=0.05, pairs=0, llr=2.0, lower=-2.0, upper=2.0)
    assert at.decision == "H1"
    assert SprtResult(0.0, 40.0, 0.05, 0.05, 0, -2.0, -2.0, 2.0).decision == "H0"
    with pytest.raises(ValueError):
        result.line(strong, True)  # another match's pairs
    with pytest.raises(ValueError):
        sprt_test(strong, 0.0, 40.0).line(strong, False, interim=True)  # decided: no interim line
    with pytest.raises(ValueError):
        result.line(p, True, interim=True)  # no pairs left to play


# ------------------------------------------------------------------------- simulation


def simulate_pairs(elo: float, pairs: int, rng: np.random.Generator, draw_rate: float = 0.0) -> np.ndarray:
    """[pairs] float64 A's points in simulated pairs at a true Elo difference ``elo``, for tests of
    the statistics and of the test's error rates.

    Both games of a pair are independent (no opening effect, so the pair variance is the sum of two
    game variances): each is a draw with probability ``draw_rate``, a win with w = s - draw_rate / 2
    and a loss with 1 - w - draw_rate, s = expected_score(elo), so the expected score is still s.
    ValueError when no such w exists (draw_rate / 2 > min(s, 1 - s))."""
    if isinstance(pairs, bool) or not isinstance(pairs, numbers.Integral) or pairs < 0:
        raise ValueError(f"pairs must be a non-negative integer, got {pairs!r}")
    if not 0.0 <= draw_rate <= 1.0:
        raise ValueError(f"draw_rate must be in [0, 1], got {draw_rate}")
    s = expected_score(elo)
    win = s - draw_rate / 2
    if not 0.0 <= win <= 1.0 - draw_rate:
        raise ValueError(f"a draw rate of {draw_rate} cannot give an expected score of {s:.4f}")
    u = rng.random((int(pairs), 2))  # [pairs, 2] one uniform per game
    points = np.where(u < win, 1.0, np.where(u < win + draw_rate, 0.5, 0.0))
    return points.sum(axis=1)


def test_simulate_pairs_has_the_asked_score_and_draws():
    rng = np.random.default_rng(1)
    points = simulate_pairs(100.0, 20_000, rng, draw_rate=0.3)
    assert points.shape == (20_000,) and set(np.unique(points)) <= set(PAIR_SCORES)
    assert points.mean() / 2 == pytest.approx(expected_score(100.0), abs=0.005)
    halves = (points * 2) % 2  # an odd number of half points: exactly one game of the pair drawn
    assert halves.mean() == pytest.approx(2 * 0.3 * 0.7, abs=0.01)
    assert simulate_pairs(0.0, 0, rng).shape == (0,)
    with pytest.raises(ValueError):
        simulate_pairs(400.0, 10, rng, draw_rate=0.5)  # s = .909: no room for half the games drawn
    with pytest.raises(ValueError):
        simulate_pairs(0.0, -1, rng)
    with pytest.raises(ValueError):
        simulate_pairs(0.0, 10, rng, draw_rate=1.5)


def accepted_h1_share(true_elo: float, runs: int, seed: int, draw_rate: float) -> float:
    """The share of ``runs`` sequential GSPRTs (elo0 0, elo1 40, alpha = beta = .05, a look after
    every pair, at most 10,000 pairs) on simulated pairs at ``true_elo`` that accept H1."""
    rng = np.random.default_rng(seed)
    lower, upper = sprt_bounds(0.05, 0.05)
    accepted = 0
    for _ in range(runs):
        counts = [0] * 5
        pairs = 0
        while pairs < 10_000:
            for points in simulate_pairs(true_elo, 64, rng, draw_rate):  # drawn in blocks, looked at singly
                counts[int(2 * points)] += 1
                pairs += 1
                llr = sprt_llr(Pentanomial(tuple(counts)), 0.0, 40.0)  # type: ignore[arg-type]
                if llr >= upper or llr <= lower or pairs >= 10_000:
                    break
            if llr >= upper or llr <= lower:
                break
        accepted += llr >= upper
    return accepted / runs


def test_error_rates_on_simulated_matches():
    # at the H1 Elo the test should accept H1 about 1 - beta = 95% of the time (a little more: the
    # LLR overshoots the bound), at the H0 Elo about alpha = 5%; with 200 runs the binomial
    # standard error of a 5% share is 1.5%, so the margins below are ~4.5 standard errors
    assert accepted_h1_share(40.0, runs=200, seed=11, draw_rate=0.0) >= 0.88
    assert accepted_h1_share(0.0, runs=200, seed=12, draw_rate=0.3) <= 0.12
