"""Paired-game statistics and the sequential test that decides a match: pentanomial counts, the
score's interval from the pair variance, and the generalised SPRT (GSPRT) over pairs.

Letter legend: O = the 5 outcomes of a pair (A's points 0, 1/2, 1, 3/2, 2); x_i = the per-game
score of outcome i, i.e. its points / 2, in {0, 1/4, 1/2, 3/4, 1}; n_i = pairs with outcome i,
n = sum n_i; p_i = n_i / n.

Why pairs (cutechess-cli's ``-repeat``, fishtest's pentanomial statistics): the two games of a
pair start from one opening with colours swapped, so they are not independent: a lopsided opening
gives both games to the same colour (the pair scores 1 point), a stronger player wins both (2
points). Counting the 2n games as independent trials (the Wilson interval over games of
``ratings.py``) misstates the variance; the pair is the independent unit. The match's per-game
score is the mean of x over the pairs, s = sum p_i x_i, with variance var(x) / n, where var(x) =
sum p_i (x_i - s)^2 is the maximum-likelihood (1/n) variance of one pair's per-game score, the
form fishtest's ``stats`` uses. The interval is the normal one, s +- z sqrt(var(x) / n), clipped
to [0, 1]. Where every pair scored alike (A won every game, or every pair split 1-1) var(x) is 0
and the normal interval collapses to a point; there it falls back to Wilson's interval (Wilson
1927) over the n pairs, each one trial scoring x, which is conservative and stays inside [0, 1].
The Elo interval maps the score interval's ends through the logistic Elo transform (monotone).

The test (``sprt_llr``, ``sprt_test``): Wald's sequential probability ratio test (Wald 1945,
"Sequential tests of statistical hypotheses") generalised to the pentanomial model as fishtest
runs it (M. Van den Bergh, "A generalised SPRT for pentanomial results", and his note on the
constrained multinomial MLE behind fishtest's ``MLE_expected``). H0: the expected per-game score
is s0 = expected_score(elo0), H1: s1 = expected_score(elo1) (logistic Elo, as ``ratings.py``).
The hypotheses fix only the mean, not the 5 outcome probabilities, so each is represented by the
distribution q_k of largest likelihood among those with mean s_k: maximising sum n_i log q_i
subject to sum q_i = 1 and sum q_i x_i = s gives, by Lagrange multipliers,

    q_i = p_i / (1 + lam (x_i - s)),   lam the root of  f(lam) = sum p_i (x_i - s) / (1 + lam (x_i - s)),

which is strictly decreasing on the interval (-1 / max(x - s), -1 / min(x - s)) that keeps every
q_i positive, running from +inf to -inf there, so the root is unique (``_constrained_mle``:
Newton's method kept inside a shrinking bracket). Then LLR = sum_i n_i log(q1_i / q0_i). As fishtest
does, empty outcomes get ``EMPTY_CELL_PAIRS`` pairs before the MLE, so that a few pairs, or pairs
that all scored alike, give a finite LLR (an outcome never seen would otherwise force q_i = 0 and
the support of q would not reach s). The LLR is 0 with no pairs, or when s_k is not strictly inside
the outcomes' range [0, 1] (an infinite Elo bound). The test stops when the LLR leaves Wald's
interval (log(beta / (1 - alpha)), log((1 - beta) / alpha)): at or below the lower bound H0 is
accepted, at or above the upper one H1; alpha and beta are the error rates (Wald's bounds make the
realised rates at most about alpha and beta, the overshoot of the bound only lowering them).
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass
from typing import Iterable, Optional, Sequence

import numpy as np

from .ratings import Z95, elo_from_score, elo_text, expected_score, score_interval

PAIR_SCORES = (0.0, 0.5, 1.0, 1.5, 2.0)  # [O] A's points in a pair (same opening, colours swapped)
OUTCOME_SCORES = tuple(points / 2 for points in PAIR_SCORES)  # [O] x_i: the per-game score of each
EMPTY_CELL_PAIRS = 1e-3  # pairs given to an outcome never seen, before the MLE (fishtest's epsilon)
_NEWTON_STEPS = 100  # far more than needed: Newton inside a bracket converges in ~10 steps


# ----------------------------------------------------------------------------- pentanomial


@dataclass(frozen=True)
class Pentanomial:
    """A match's complete pairs by A's points (module docstring)."""

    counts: tuple[int, int, int, int, int]  # [O] pairs in which A scored 0, 1/2, 1, 3/2, 2 points

    def __post_init__(self) -> None:
        try:
            counts = tuple(self.counts)
        except TypeError:
            raise ValueError(f"a pentanomial is 5 non-negative counts, got {self.counts!r}") from None
        # bool is an int subclass, but True as a count is a caller's slip, not a count
        if len(counts) != 5 or any(isinstance(c, bool) or not isinstance(c, numbers.Integral) or c < 0
                                   for c in counts):
            raise ValueError(f"a pentanomial is 5 non-negative integer counts, got {self.counts!r}")
        object.__setattr__(self, "counts", tuple(int(c) for c in counts))  # numpy ints to plain ints

    @classmethod
    def of(cls, pair_points: Iterable[float]) -> Pentanomial:
        """The counts of A's points per pair, each one of ``PAIR_SCORES``."""
        counts = [0] * len(PAIR_SCORES)
        for points in pair_points:
            if isinstance(points, bool) or not isinstance(points, numbers.Real) or points not in PAIR_SCORES:
                raise ValueError(f"a pair scores one of {PAIR_SCORES} points, got {points!r}")
            counts[PAIR_SCORES.index(float(points))] += 1
        return cls.of_counts(counts)

    @classmethod
    def of_counts(cls, counts: Iterable[int]) -> Pentanomial:
        """Of any five counts (a list read from a file, a sum), checked as the constructor checks them."""
        c = tuple(counts)
        if len(c) != len(PAIR_SCORES):
            raise ValueError(f"a pentanomial is 5 non-negative integer counts, got {c!r}")
        return cls((c[0], c[1], c[2], c[3], c[4]))

    def __add__(self, other: Pentanomial) -> Pentanomial:
        if not isinstance(other, Pentanomial):
            return NotImplemented
        return Pentanomial.of_counts(a + b for a, b in zip(self.counts, other.counts))

    @property
    def pairs(self) -> int:
        return sum(self.counts)

    @property
    def score(self) -> float:
        """A's mean per-game score: the mean pair score / 2; nan for no pairs."""
        if not self.pairs:
            return math.nan
        return sum(c * x for c, x in zip(self.counts, OUTCOME_SCORES)) / self.pairs

    @property
    def pair_variance(self) -> float:
        """Variance of one pair's per-game score (points / 2), maximum likelihood (1/n); nan for no pairs."""
        if not self.pairs:
            return math.nan
        s = self.score
        return sum(c * (x - s) ** 2 for c, x in zip(self.counts, OUTCOME_SCORES)) / self.pairs

    @property
    def score_stderr(self) -> float:
        """Standard error of ``score``: sqrt(pair_variance / pairs); nan for no pairs."""
        return math.sqrt(self.pair_variance / self.pairs) if self.pairs else math.nan

    @property
    def all_alike(self) -> bool:
        """Every pair scored the same (pair variance exactly 0); False for no pairs."""
        return sum(1 for c in self.counts if c) == 1

    def score_interval(self, z: float = Z95) -> tuple[float, float]:
        """(lo, hi) of ``score``: normal on the pair mean, clipped to [0, 1]; Wilson's over pairs
        when every pair scored alike (module docstring); (0, 1) for no pairs."""
        if not self.pairs:
            return 0.0, 1.0
        s = self.score
        if self.all_alike:
            # each pair one trial scoring x: s * n "wins" and (1 - s) * n "losses" of n trials
            lo, hi = score_interval(s * self.pairs, 0.0, (1.0 - s) * self.pairs, z)
            # Wilson's end at a sweep is 1 in exact arithmetic but can round to 1 - 1e-16, which
            # would give a finite (and meaningless, ~ +6000) upper Elo instead of +inf
            return (0.0 if s == 0.0 else lo), (1.0 if s == 1.0 else hi)
        half = z * self.score_stderr
        return max(0.0, s - half), min(1.0, s + half)

    @property
    def elo(self) -> float:
        """The Elo difference of ``score`` (+-inf for a sweep); nan for no pairs."""
        return elo_from_score(self.score) if self.pairs else math.nan

    def elo_interval(self, z: float = Z95) -> tuple[float, float]:
        """The score interval's ends through ``elo_from_score`` (monotone, so the same coverage)."""
        lo, hi = self.score_interval(z)
        return elo_from_score(lo), elo_from_score(hi)

    def describe(self) -> str:
        return f"pairs 0/0.5/1/1.5/2: {' '.join(str(c) for c in self.counts)}"


# ----------------------------------------------------------------------------------- GSPRT


def _constrained_mle(frequencies: Sequence[float], mean: float) -> Optional[tuple[float, ...]]:
    """[O] q: the distribution of largest likelihood under ``frequencies`` (p, every p_i > 0) with
    sum q_i x_i = ``mean`` (module docstring); None when ``mean`` is not strictly inside (0, 1)."""
    d = [x - mean for x in OUTCOME_SCORES]  # [O]
    if max(d) <= 0 or min(d) >= 0:
        return None
    # f(lam) runs from +inf at lo to -inf at hi (every p_i > 0), so the bracket always holds the root
    lo, hi = -1.0 / max(d), -1.0 / min(d)
    lam = 0.0  # lam = 0 is q = p, the answer when p already has the mean; lo < 0 < hi
    for _ in range(_NEWTON_STEPS):
        ratios = [di / (1.0 + lam * di) for di in d]
        f = sum(pi * r for pi, r in zip(frequencies, ratios))
        if f > 0:
            lo = lam
        elif f < 0:
            hi = lam
        else:
            break
        slope = -sum(pi * r * r for pi, r in zip(frequencies, ratios))  # f' < 0
        step = lam - f / slope
        if not lo < step < hi:  # Newton left the bracket: bisect instead
            step = 0.5 * (lo + hi)
        if abs(step - lam) <= 1e-15 * max(1.0, abs(lam)):
            break
        lam = step
    q = [pi / (1.0 + lam * di) for pi, di in zip(frequencies, d)]
    total = sum(q)  # 1 at the root; dividing removes the last rounding
    return tuple(qi / total for qi in q)


def sprt_llr(p: Pentanomial, elo0: float, elo1: float) -> float:
    """The GSPRT log-likelihood ratio of H1 (Elo elo1) against H0 (Elo elo0) for ``p``'s pairs:
    sum_i n_i log(q1_i / q0_i) (module docstring); 0 for no pairs or an infinite Elo bound."""
    if not p.pairs:
        return 0.0
    regularised = [c if c else EMPTY_CELL_PAIRS for c in p.counts]
    total = sum(regularised)
    frequencies = [c / total for c in regularised]
    q0 = _constrained_mle(frequencies, expected_score(elo0))
    q1 = _constrained_mle(frequencies, expected_score(elo1))
    if q0 is None or q1 is None:
        return 0.0
    # the real counts weigh the log-ratios: an empty outcome adds nothing to the likelihood
    return sum(c * math.log(a / b) for c, a, b in zip(p.counts, q1, q0) if c)


def sprt_bounds(alpha: float, beta: float) -> tuple[float, float]:
    """Wald's (lower, upper) = (log(beta / (1 - alpha)), log((1 - beta) / alpha))."""
    if not (0 < alpha < 1 and 0 < beta < 1 and alpha + beta < 1):
        raise ValueError(f"the SPRT needs 0 < alpha, beta < 1 and alpha + beta < 1, got {alpha}, {beta}")
    return math.log(beta / (1 - alpha)), math.log((1 - beta) / alpha)


def _elo_text(p: Pentanomial) -> str:
    """"Elo +52 [+10, +95]"; a sweep, whose estimate is infinite, as its finite bound "Elo >= +310"."""
    if not p.pairs:
        return "Elo undefined (no pairs)"
    return elo_text(p.elo, *p.elo_interval())


@dataclass(frozen=True)
class SprtResult:
    """Where a sequential test of H0 (Elo elo0) against H1 (Elo elo1) stands after ``pairs`` pairs."""

    elo0: float
    elo1: float
    alpha: float  # the chance of accepting H1 when H0 holds
    beta: float  # the chance of accepting H0 when H1 holds
    pairs: int
    llr: float
    lower: float  # Wald's bounds (sprt_bounds)
    upper: float

    @property
    def decision(self) -> Optional[str]:
        """"H1" once the LLR reaches the upper bound, "H0" once it reaches the lower one, else None."""
        if self.llr >= self.upper:
            return "H1"
        if self.llr <= self.lower:
            return "H0"
        return None

    def line(self, p: Pentanomial, max_pairs_reached: bool, interim: bool = False) -> str:
        """One line: ``sprt: H1 accepted``, ``sprt: H0 accepted`` or ``sprt: inconclusive`` (with
        ``interim``, an undecided test with pairs still to play: ``sprt so far``), then the test's
        parameters, the pairs, the LLR in its bounds and ``p``'s Elo with its interval; an undecided
        test that ran out of pairs says so at the end."""
        if p.pairs != self.pairs:
            raise ValueError(f"the pentanomial has {p.pairs} pairs but the test saw {self.pairs}")
        if interim and (self.decision is not None or max_pairs_reached):
            raise ValueError("only an undecided test with pairs to play has an interim line")
        verdict = {"H1": ": H1 accepted", "H0": ": H0 accepted", None: " so far" if interim else ": inconclusive"}[self.decision]
        tail = "; the pairs ran out" if self.decision is None and max_pairs_reached else ""
        return (f"sprt{verdict} (elo0 {self.elo0:g}, elo1 {self.elo1:g}, alpha {self.alpha:g}, "
                f"beta {self.beta:g}): {self.pairs} pairs, LLR {self.llr:.2f} in [{self.lower:.2f}, "
                f"{self.upper:.2f}], {_elo_text(p)}{tail}")


def sprt_test(p: Pentanomial, elo0: float, elo1: float, alpha: float = 0.05, beta: float = 0.05) -> SprtResult:
    """The GSPRT of ``p``'s pairs: H0 Elo = elo0 against H1 Elo = elo1 (module docstring)."""
    if not (math.isfinite(elo0) and math.isfinite(elo1) and elo0 < elo1):
        raise ValueError(f"the SPRT needs finite Elo bounds elo0 < elo1, got {elo0}, {elo1}")
    lower, upper = sprt_bounds(alpha, beta)
    return SprtResult(elo0=elo0, elo1=elo1, alpha=alpha, beta=beta, pairs=p.pairs,
                      llr=sprt_llr(p, elo0, elo1), lower=lower, upper=upper)
