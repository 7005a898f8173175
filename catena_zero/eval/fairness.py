"""Does the fair komi a network names mean something? (R6, R7)

Three checks, printed by ``catena-zero komi-check``:

- **Black's share in self-play.** The network plays itself (the same search on both sides, no
  noise) from varied openings (``opening_plies`` random plies, distinct up to symmetry, each played
  twice with the colours swapped) at the komi it names, k, and at k - 2 and k + 2. At a fair komi
  Black should win about half (40-60%), more at k - 2 (less komi for White) and less at k + 2.
- **Settling.** The fair-komi estimate self-play logged during the run
  (``selfplay/fair_komi/<rule set>`` in TensorBoard): its range over the last third of the run.
- **Even split of a baseline.** For a player without a value head (``mcts:K``) the same self-play
  over a range of komis: the komi where Black's share is nearest one half (``most_even_komi``).
- **Exact on side 3.** Exhaustive search (``search.solver.exact_fair_komi``) knows the komis k, k + 1
  at which perfect play flips from a Black win to a White win; a side-3 network should name one.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Optional

import numpy as np

from ..artifacts.layout import TENSORBOARD_DIR
from ..game.options import GameConfig, RuleSet


@dataclass(frozen=True)
class BlackShare:
    """Self-play of one network at one komi."""

    komi: int
    games: int
    black_wins: int
    draws: int

    @property
    def share(self) -> float:
        """Black's score rate: (wins + draws / 2) / games."""
        return (self.black_wins + 0.5 * self.draws) / self.games

    @property
    def interval(self) -> tuple[float, float]:
        from .ratings import score_interval

        return score_interval(self.black_wins, self.draws, self.games - self.black_wins - self.draws)


def black_share(agent, game: GameConfig, komi: int, games: int, rng: np.random.Generator,
                opening_plies: int = 2) -> BlackShare:
    """The network against itself at ``komi``: how often Black wins."""
    from .arena import play_match

    from ..game.rules import BLACK, EMPTY

    result = play_match(agent, agent, game, games, komi, rng, opening_plies=opening_plies)
    return BlackShare(komi=komi, games=games, black_wins=sum(g.winner == BLACK for g in result.games),
                      draws=sum(g.winner == EMPTY for g in result.games))


def most_even_komi(shares: list[BlackShare]) -> BlackShare:
    """The komi at which Black's share is nearest one half (the lower komi on a tie): where two
    equal players split most evenly. For players without a value head (``mcts:K``) this is the
    only fair komi there is."""
    if not shares:
        raise ValueError("no komi was played")
    from fractions import Fraction  # exact: 55% and 45% must tie, as they do on paper

    return min(shares, key=lambda s: (abs(Fraction(2 * s.black_wins + s.draws, s.games) - 1), s.komi))


def komi_settling(run_dir: str | Path, rules: RuleSet) -> Optional[tuple[list[int], list[float]]]:
    """(steps, fair komi) that self-play logged for ``rules`` in the run's TensorBoard events (under
    its key, e.g. ``selfplay/fair_komi/side4-komi-standard``); None when the run logged none."""
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    folder = Path(run_dir) / TENSORBOARD_DIR
    if not folder.is_dir():
        return None
    events = EventAccumulator(str(folder), size_guidance={"scalars": 0})
    events.Reload()
    tag = f"selfplay/fair_komi/{rules.key}"
    if tag not in events.Tags().get("scalars", []):
        return None
    scalars = events.Scalars(tag)
    return [s.step for s in scalars], [s.value for s in scalars]


def last_third_range(steps: list[int], komis: list[float]) -> tuple[float, float]:
    """(lowest, highest) fair komi over the last third of the steps."""
    if not steps:
        raise ValueError("no fair-komi values logged")
    cut = steps[0] + (steps[-1] - steps[0]) * 2 / 3
    tail = [k for s, k in zip(steps, komis) if s >= cut]
    return min(tail), max(tail)


@dataclass(frozen=True)
class KomiBracket:
    """Black's value on either side of a fair komi: ahead (value > 0) at ``ahead``, behind (<= 0)
    from ``behind``, the nearest such komis with the fair komi in [ahead, behind] (None: no such
    komi on that side in range)."""

    ahead: Optional[int]
    behind: Optional[int]
    crossings: int  # how often the value changes sign over the range (1 on a monotone curve)


def komi_bracket(komis: np.ndarray, black_value: np.ndarray, fair: int) -> KomiBracket:
    """The crossing of even next to ``fair`` (a komi of ``komis``, ascending). The fair komi is the
    one closest to even with ties (values within ``VALUE_RESOLUTION``) broken by the score head, so
    on a flat curve it may sit komis away from where the value changes sign (side6-quadratic.bot:
    249, value +0.005, while the value turns at 256/257); a bracket printed beside it must hold it.
    At ``fair`` itself Black is ahead (value > 0) or behind (<= 0); the bracket runs from there to
    the nearest komi on the other side of even."""
    komis, values = np.asarray(komis), np.asarray(black_value, dtype=np.float64)
    i = int(np.flatnonzero(komis == fair)[0])
    ahead_at = values > 0
    crossings = int(np.count_nonzero(ahead_at[1:] != ahead_at[:-1]))
    if ahead_at[i]:
        later = np.flatnonzero(~ahead_at[i:])
        return KomiBracket(ahead=fair, behind=int(komis[i + later[0]]) if later.size else None, crossings=crossings)
    earlier = np.flatnonzero(ahead_at[:i + 1])
    return KomiBracket(ahead=int(komis[earlier[-1]]) if earlier.size else None, behind=fair, crossings=crossings)
