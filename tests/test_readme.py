"""The README points only inside the repository and its board sample is what the program draws."""

from __future__ import annotations

import re
from pathlib import Path

from catena_zero.game import Game, GameConfig
from catena_zero.game.render import render_ascii

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")


def test_links_stay_inside_the_repository():
    assert "../" not in README and "shared/" not in README
    for target in re.findall(r"\]\(([^)#]+)", README):
        assert (ROOT / target).exists(), target
    assert "(docs/RULES.md)" in README and "(docs/DESIGN.md)" in README


def test_board_sample_is_drawn_by_the_program():
    sample = README.split("Side 3 after Black C3, White B4, Black D3:\n\n```\n", 1)[1].split("```", 1)[0]
    assert sample == render_ascii(Game.replay(GameConfig(side=3), ["C3", "B4", "D3"]), legend=False)
