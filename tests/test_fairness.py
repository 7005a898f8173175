"""Fair-komi checks (eval/fairness.py, catena-zero komi-check): worked by hand, and tiny runs on side 2."""

import runpy
import sys
from pathlib import Path

import numpy as np
import pytest

from catena_zero.eval.agents import RandomAgent
from catena_zero.eval.fairness import BlackShare, black_share, komi_settling, last_third_range, most_even_komi
from catena_zero.game.options import GameConfig, RuleSet

ROOT = Path(__file__).resolve().parents[1]


def test_most_even_komi_by_hand():
    shares = [BlackShare(komi=6, games=40, black_wins=30, draws=0),  # 75%
              BlackShare(komi=7, games=40, black_wins=22, draws=0),  # 55%
              BlackShare(komi=8, games=40, black_wins=18, draws=0),  # 45%: as near as 7, lower komi wins
              BlackShare(komi=9, games=40, black_wins=8, draws=0)]   # 20%
    assert most_even_komi(shares).komi == 7
    assert most_even_komi(shares[2:]).komi == 8
    with pytest.raises(ValueError, match="no komi"):
        most_even_komi([])


def test_share_counts_draws_as_half_and_has_an_interval():
    share = BlackShare(komi=0, games=10, black_wins=4, draws=2)
    assert share.share == 0.5
    lo, hi = share.interval
    assert lo < 0.5 < hi


def test_last_third_range_by_hand():
    steps = [0, 100, 200, 300, 400, 500, 600]
    komis = [0, 13, 2, 9, 10, 11, 10]
    assert last_third_range(steps, komis) == (10, 11)  # steps 400..600
    with pytest.raises(ValueError):
        last_third_range([], [])


def test_black_share_of_random_self_play_on_side_2(tmp_path):
    share = black_share(RandomAgent(), GameConfig(side=2), komi=0, games=6, rng=np.random.default_rng(0),
                        opening_plies=1)
    assert share.games == 6 and 0 <= share.black_wins + share.draws <= 6
    assert komi_settling(tmp_path, RuleSet(2, "komi", "standard")) is None  # no TensorBoard events there


def test_the_komi_check_script_is_the_command_even_split_of_a_baseline(monkeypatch, capsys):
    argv = ["fair_komi.py", "random", "--side", "2", "--komis", "0-2", "--games", "4", "--openings", "1"]
    monkeypatch.setattr(sys, "argv", argv)
    with pytest.raises(SystemExit) as exit_:
        runpy.run_path(str(ROOT / "scripts" / "fair_komi.py"), run_name="__main__")
    assert exit_.value.code == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert [line.split()[1] for line in lines[:3]] == ["0:", "1:", "2:"]
    assert lines[-1].startswith("komi-check: random against itself, side 2 standard: splits most evenly at komi ")
