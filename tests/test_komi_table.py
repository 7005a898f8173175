"""``komi --table`` never names a fair komi outside the bracket it prints (R7): a value head that
ties many komis to its resolution leaves the score head to pick the fair komi, komis away from where
the value turns (side6-quadratic.bot: fair 249, the value turning at 256/257)."""

from __future__ import annotations

import re

import numpy as np

from catena_zero.artifacts.botfile import RuleSet
from catena_zero.commands.komi import trained_rules_table
from catena_zero.eval.fairness import komi_bracket
from catena_zero.search.komi import KomiEstimate, fair_komi_of_curve


class CurveBot:
    """A stand-in with the two things the table reads: its rule sets and its komi curve."""

    def __init__(self, values, scores):
        komis = np.arange(len(values), dtype=np.int64)
        value, score = np.array(values, dtype=np.float64), np.array(scores, dtype=np.float64)
        self.trained_for = (RuleSet(6, "komi", "quadratic"),)
        self.curve = KomiEstimate(rules=self.trained_for[0], komi=fair_komi_of_curve(komis, value, score),
                                  komis=komis, black_value=value, black_score=score)

    def komi_curve(self, config):
        return self.curve


def table_row(bot) -> tuple[int, str, str]:
    row = trained_rules_table([("q.bot", bot)]).splitlines()[2]
    fair, ahead, behind = re.match(r"\| q\.bot \| 6 \| quadratic \| (\d+) \| (\S+) \| (\S+) \|", row).groups()
    return int(fair), ahead, behind


def test_a_flat_value_curve_keeps_the_fair_komi_inside_its_bracket():
    # Values tie to 0.01 over komis 2..6; the score head is nearest even at 2; the value turns at 6/7.
    values = [0.5, 0.3, 0.004, 0.003, 0.002, 0.001, 0.0005, -0.2, -0.5]
    scores = [9.0, 5.0, 0.1, 0.8, 1.2, 1.6, 2.0, -3.0, -6.0]
    bot = CurveBot(values, scores)
    fair, ahead, behind = table_row(bot)
    assert fair == 2
    assert (ahead, behind) == ("2", "7")  # was "6", "7": 2 outside
    assert int(ahead) <= fair <= int(behind)
    assert "from komi 2 to 6, within 0.01 of even" in trained_rules_table([("q.bot", bot)])


def test_the_bracket_holds_the_fair_komi_on_any_curve():
    rng = np.random.default_rng(5)
    for _ in range(200):
        values = np.cumsum(rng.normal(-0.02, 0.05, size=12)) + rng.uniform(-0.1, 0.3)
        komis = np.arange(12)
        fair = int(komis[rng.integers(12)])
        b = komi_bracket(komis, values, fair)
        assert (b.ahead is None or b.ahead <= fair) and (b.behind is None or fair <= b.behind)
        if b.ahead is not None:
            assert values[b.ahead] > 0
        if b.behind is not None:
            assert values[b.behind] <= 0
        # Nothing between them on the far side of even from the fair komi's.
        between = values[(b.ahead if b.ahead is not None else 0):(b.behind if b.behind is not None else 12)]
        assert ((between > 0).all() or (between[1:] <= 0).all())
