"""Elo maths: a match's score rate and Elo difference with intervals, and Bradley-Terry ratings.

Shape legend: P players, F free (fitted) players = P - 1 (the anchor is fixed at 0).

Units. Bradley-Terry (Bradley and Terry 1952) with logistic strengths r: P(i beats j) =
1 / (1 + exp(r_j - r_i)). Elo is the same model on the scale Elo = r * 400 / ln 10, so 400 Elo
points are odds of 10 to 1 (Elo 1978; the scale BayesElo, Ordo and KataGo's elo.py report).
Draws count as half a win for each side (as in Elo's expected score).

One match (``score_interval``, ``elo_interval``): the score rate s = (W + D/2) / n with Wilson's
score interval (Wilson 1927), which stays inside [0, 1] and is sensible at 0 or n wins where the
normal approximation collapses to a point; counting a draw as half a win and half a loss makes
the binomial variance s(1 - s) an upper bound of the trinomial one, so the interval is slightly
conservative with draws. The Elo interval maps the score interval's endpoints through the
logistic Elo transform, which is monotone, so it is a 95% interval for the Elo difference too
(an all-wins match gets +inf as its upper end, honestly).

Several players (``fit_ratings``): maximum a posteriori strengths by Newton's method on the
concave log-posterior, with a prior in units of virtual games, as KataGo's elo.py does: every
fitted player gets ``prior_games`` virtual games, half won and half lost, against a player of
rating 0, and optionally ``sequential_prior_games`` virtual drawn games between neighbours of a
given order (consecutive checkpoints of a run are alike). The prior keeps every rating finite
(a player that won all its games) and makes ratings of players not connected to the anchor
defined; with a few virtual games it weighs little against real results. The anchor (random) is
fixed at 0. Uncertainties: the inverse of the negative Hessian of the log-posterior at the
optimum (the observed Fisher information), scaled to Elo; the standard error of a rating is
relative to the anchor.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Iterable, Optional, Sequence

import numpy as np

ELO_PER_NATURAL = 400.0 / math.log(10.0)  # Elo points per unit of logistic strength
Z95 = 1.959963984540054  # two-sided 95% quantile of the standard normal


# ------------------------------------------------------------------------------ one match


def score_rate(wins: float, draws: float, losses: float) -> float:
    """(W + D/2) / n; nan for no games."""
    n = wins + draws + losses
    return (wins + 0.5 * draws) / n if n > 0 else float("nan")


def score_interval(wins: float, draws: float, losses: float, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval (Wilson 1927) of the score rate; (0, 1) for no games."""
    n = wins + draws + losses
    if n <= 0:
        return 0.0, 1.0
    s = score_rate(wins, draws, losses)
    centre = (s + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(s * (1 - s) / n + z * z / (4 * n * n))
    return max(0.0, centre - half), min(1.0, centre + half)


def elo_from_score(score: float) -> float:
    """Elo difference whose expected score is ``score`` (logistic): -400 log10(1/s - 1); +-inf at 1, 0."""
    if score >= 1.0:
        return math.inf
    if score <= 0.0:
        return -math.inf
    return -400.0 * math.log10(1.0 / score - 1.0)


def expected_score(elo_difference: float) -> float:
    """The inverse of ``elo_from_score``: 1 / (1 + 10^(-d/400))."""
    return 1.0 / (1.0 + 10.0 ** (-elo_difference / 400.0))


def elo_interval(wins: float, draws: float, losses: float, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval mapped through ``elo_from_score`` (monotone, so still 95%)."""
    lo, hi = score_interval(wins, draws, losses, z)
    return elo_from_score(lo), elo_from_score(hi)


@dataclass(frozen=True)
class Tally:
    """Wins, draws and losses of one side in some games: the one result record of a match, a ladder
    pair, a rating fit's pair and an ablation's column."""

    wins: int
    draws: int
    losses: int

    @classmethod
    def of(cls, points: Iterable[float]) -> "Tally":
        """The tally of per-game points: 1 a win, 0.5 a draw, 0 a loss."""
        points = list(points)
        return cls(wins=points.count(1.0), draws=points.count(0.5), losses=points.count(0.0))

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def score(self) -> float:
        return score_rate(self.wins, self.draws, self.losses)

    @property
    def score_interval(self) -> tuple[float, float]:
        return score_interval(self.wins, self.draws, self.losses)

    @property
    def elo(self) -> float:
        return elo_from_score(self.score) if self.games else float("nan")

    @property
    def elo_interval(self) -> tuple[float, float]:
        return elo_interval(self.wins, self.draws, self.losses)

    def line(self) -> str:
        """``+W =D -L``, as every report writes a tally."""
        return f"+{self.wins} ={self.draws} -{self.losses}"


def elo_number(elo: float, signed: bool = True) -> str:
    """An Elo figure as every report writes it: whole points (``+35``; a rating, ``signed`` False:
    ``35``), never ``-0``; ``+inf``/``-inf`` for a sweep."""
    if math.isinf(elo):
        return "+inf" if elo > 0 else "-inf"
    return f"{round(elo) + 0:+d}" if signed else f"{round(elo) + 0:d}"  # + 0 turns a rounded -0 into 0


def elo_text(elo: float, low: float, high: float, label: str = "Elo ") -> str:
    """An Elo difference with its 95% interval, ``Elo +35 [-20, +90]``; a sweep, whose estimate is
    infinite (the likelihood grows without bound), as its interval's finite end: ``Elo >= +310``,
    ``Elo <= -310``. ``label`` comes first (a table's column says it already: "")."""
    if math.isinf(elo):
        return f"{label}>= {elo_number(low)}" if elo > 0 else f"{label}<= {elo_number(high)}"
    return f"{label}{elo_number(elo)} [{elo_number(low)}, {elo_number(high)}]"


# ------------------------------------------------------------------------- rating fits


@dataclass(frozen=True)
class PairResult:
    """Games between two players: ``tally`` is ``a``'s (its wins are ``a``'s, its losses ``b``'s)."""

    a: str
    b: str
    tally: Tally

    @property
    def games(self) -> int:
        return self.tally.games


@dataclass(frozen=True)
class RatingFit:
    """Fitted ratings, in Elo, anchored at ``anchor`` = 0."""

    players: tuple[str, ...]  # [P]
    elo: np.ndarray  # [P] float64 rating in Elo
    stderr: np.ndarray  # [P] float64 standard error relative to the anchor (0 for the anchor)
    games: np.ndarray = field(repr=False)  # [P] float64 real games played
    score: np.ndarray = field(repr=False)  # [P] float64 points scored in them (draws as halves)
    anchor: str = "random"
    iterations: int = 0

    def index(self, player: str) -> int:
        return self.players.index(player)

    def rating(self, player: str) -> float:
        return float(self.elo[self.index(player)])


def results_matrix(results: Iterable[PairResult], players: Sequence[str]) -> np.ndarray:
    """[P, P] points: wins[i, j] = games i won against j plus half the draws between them."""
    index = {p: i for i, p in enumerate(players)}
    wins = np.zeros((len(players), len(players)))
    for r in results:
        if r.a not in index or r.b not in index:
            raise ValueError(f"result {r.a} vs {r.b} names a player not in the list")
        if r.a == r.b:
            raise ValueError(f"a player cannot play itself in a rating fit ({r.a})")
        if min(r.tally.wins, r.tally.draws, r.tally.losses) < 0:
            raise ValueError(f"negative game counts in {r}")
        t = r.tally
        i, j = index[r.a], index[r.b]
        wins[i, j] += t.wins + 0.5 * t.draws
        wins[j, i] += t.losses + 0.5 * t.draws
    return wins


def fit_ratings(
    results: Iterable[PairResult],
    players: Optional[Sequence[str]] = None,
    anchor: str = "random",
    prior_games: float = 2.0,
    sequential: Sequence[str] = (),
    sequential_prior_games: float = 0.0,
    tolerance: float = 1e-10,
    max_iterations: int = 200,
) -> RatingFit:
    """MAP Bradley-Terry ratings in Elo (module docstring); ``anchor`` fixed at 0.

    prior_games: virtual games (half won, half lost) of every fitted player against rating 0
        (KataGo elo.py's centre prior; 2 by default, i.e. one virtual win and one virtual loss).
        0 gives the maximum-likelihood fit, which needs every player connected to the anchor and
        none with all wins or all losses.
    sequential, sequential_prior_games: virtual drawn games between consecutive players of
        ``sequential`` (e.g. checkpoints by step; KataGo's sequential prior).
    """
    results = list(results)
    players = _fit_players(results, players, anchor)
    if prior_games < 0 or sequential_prior_games < 0:
        raise ValueError("prior game counts must be >= 0")
    real = results_matrix(results, players)  # [P, P]
    index = {p: i for i, p in enumerate(players)}
    wins = real.copy()
    for a, b in zip(sequential, sequential[1:]):
        i, j = index[a], index[b]
        wins[i, j] += 0.5 * sequential_prior_games
        wins[j, i] += 0.5 * sequential_prior_games
    centre = np.full(len(players), float(prior_games))
    centre[index[anchor]] = 0.0
    posterior = _Posterior(wins, centre)
    free = np.array([i for i in range(len(players)) if players[i] != anchor])  # [F]
    if free.size == 0:
        raise ValueError("nothing to fit: only the anchor is a player")
    r, hess, iterations = _newton(posterior, free, tolerance, max_iterations)
    covariance = np.zeros((len(players), len(players)))
    try:
        covariance[np.ix_(free, free)] = np.linalg.inv(-hess[np.ix_(free, free)])
    except np.linalg.LinAlgError:
        covariance[np.ix_(free, free)] = np.inf
    if not np.isfinite(r).all() or np.abs(r).max() > 50:
        raise ValueError(
            "the ratings diverge for these results (a player won or lost every game, or is not "
            "connected to the anchor); use a prior (prior_games > 0)")
    covariance *= ELO_PER_NATURAL ** 2
    return RatingFit(players=players, elo=r * ELO_PER_NATURAL, stderr=np.sqrt(np.maximum(np.diag(covariance), 0.0)),
                     games=(real + real.T).sum(axis=1), score=real.sum(axis=1),
                     anchor=anchor, iterations=iterations)


def _fit_players(results: list[PairResult], players: Optional[Sequence[str]], anchor: str) -> tuple[str, ...]:
    """The players of a fit: those given, else the anchor and everyone in ``results``; checked."""
    if players is None:
        seen: dict[str, None] = {anchor: None}
        for r in results:
            seen.setdefault(r.a)
            seen.setdefault(r.b)
        players = list(seen)
    players = tuple(players)
    if anchor not in players:
        raise ValueError(f"the anchor {anchor!r} is not among the players")
    if len(set(players)) != len(players):
        raise ValueError("players must be distinct")
    return players


@dataclass(frozen=True)
class _Posterior:
    """The log-posterior of strengths r (natural units): ``wins`` [P, P] the points i scored
    against j (real and sequential-prior games), ``centre`` [P] each player's centre-prior games."""

    wins: np.ndarray  # [P, P]
    centre: np.ndarray  # [P]

    def __call__(self, r: np.ndarray) -> tuple[float, np.ndarray, np.ndarray]:
        """log-posterior, gradient [P] and Hessian [P, P] at strengths r."""
        wins, centre, count = self.wins, self.centre, len(r)
        total = wins + wins.T  # [P, P] games between i and j, virtual ones included
        d = r[:, None] - r[None, :]
        log_p = -np.logaddexp(0.0, -d)  # log sigmoid(r_i - r_j)
        p = np.exp(log_p)
        value = float((wins * log_p).sum())
        grad = (wins - total * p).sum(axis=1)
        weight = total * p * (1.0 - p)  # symmetric
        hess = weight.copy()
        np.fill_diagonal(hess, 0.0)
        hess[np.diag_indices(count)] = -weight.sum(axis=1) + np.diag(weight)
        # centre prior: prior_games / 2 wins and losses against a fixed rating 0
        log_c, log_cm = -np.logaddexp(0.0, -r), -np.logaddexp(0.0, r)
        pc = np.exp(log_c)
        value += float((0.5 * centre * (log_c + log_cm)).sum())
        grad += centre * (0.5 - pc)
        hess[np.diag_indices(count)] -= centre * pc * (1.0 - pc)
        return value, grad, hess


def _newton(posterior: _Posterior, free: np.ndarray, tolerance: float,
            max_iterations: int) -> tuple[np.ndarray, np.ndarray, int]:
    """The maximum of the (concave) posterior over the ``free`` strengths, the others at 0:
    strengths [P], the Hessian there [P, P] and the iterations taken."""
    r = np.zeros(len(posterior.centre))
    iterations = 0
    value, grad, hess = posterior(r)
    for iterations in range(1, max_iterations + 1):
        h = hess[np.ix_(free, free)]
        try:
            step = np.linalg.solve(h, -grad[free])
        except np.linalg.LinAlgError:
            raise ValueError(
                "the ratings are not determined by these results (a player is not connected to the "
                "anchor, or won or lost every game); use a prior (prior_games > 0)") from None
        # Newton's step on a concave function, halved until the posterior does not drop.
        scale = 1.0
        while True:
            trial = r.copy()
            trial[free] += scale * step
            trial_value, trial_grad, trial_hess = posterior(trial)
            if trial_value >= value - 1e-12 or scale < 1e-6:
                break
            scale *= 0.5
        r, value, grad, hess = trial, trial_value, trial_grad, trial_hess
        if np.abs(scale * step).max() < tolerance:
            break
    return r, hess, iterations
