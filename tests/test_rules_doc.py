"""docs/RULES.md cannot drift from the engine: every worked example on that page is replayed
here. A ``<!-- check KEY=VALUE ... -->`` comment sets up a position (a Game from ``moves``, or
a Match from comma-separated ``events``) and states facts about it; the ``text`` block right
after it, if any, must be exactly the board ``render_ascii`` draws (without its legend).
``<!-- check-record -->`` follows a record that must parse and replay.

Run ``python tests/test_rules_doc.py --fill`` after changing an example to redraw its board.
"""

from __future__ import annotations

import re
import shlex
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from catena_zero.game import Game, GameConfig
from catena_zero.game.match import Match
from catena_zero.game.notation import read_event
from catena_zero.game.records import parse_record
from catena_zero.game.render import render_ascii, status_lines

DOC = Path(__file__).resolve().parents[1] / "docs" / "RULES.md"
CHECK = re.compile(r"<!-- check (?P<args>.*?) -->")
BLOCK = re.compile(r"\s*```text\n(?P<body>.*?)```", re.S)  # matched at the end of a comment
KNOWN = {"side", "type", "scoring", "komi", "moves", "events", "legal", "illegal", "colours", "claimed",
         "unclaimed", "over", "winner", "scores", "button", "to_move", "pending", "phase", "first"}


@dataclass(frozen=True)
class Example:
    line: int
    facts: dict
    diagram: str | None  # the text block after the comment, None if there is none
    span: tuple[int, int] | None  # where the block's body is in the page


def examples(text: str) -> list[Example]:
    out = []
    for found in CHECK.finditer(text):
        facts = dict(item.split("=", 1) for item in shlex.split(found.group("args")))
        block = BLOCK.match(text, found.end())
        body = block.group("body") if block else None
        span = block.span("body") if block else None
        out.append(Example(text.count("\n", 0, found.start()) + 1, facts, body, span))
    return out


def position(facts: dict) -> tuple[Game, Match | None]:
    config = GameConfig(side=int(facts["side"]), game_type=facts.get("type", "komi"),
                        scoring=facts.get("scoring", "standard"), komi=int(facts.get("komi", 0)))
    if "events" in facts:
        match = Match.replay(config, [read_event(e.strip()) for e in facts["events"].split(",")])
        return match.game, match
    return Game.replay(config, facts.get("moves", "").split()), None


def ribbon_cells(game: Game, claimed: bool) -> set[str]:
    return {c for r in game.ribbons() if (r.claimed or r.limited) == claimed for c in r.cells}


def check(facts: dict) -> None:
    assert set(facts) <= KNOWN, set(facts) - KNOWN
    game, match = position(facts)
    legal = game.legal_moves()
    for cell in facts.get("legal", "").split():
        assert cell in legal, f"{cell} should be legal"
    for cell in facts.get("illegal", "").split():
        assert game.stone_at(cell) is None and cell not in legal, f"{cell} should be an empty, illegal cell"
    for item in facts.get("colours", "").split():
        cell, colour = item.split("=")
        assert game.stone_at(cell) == colour, f"{cell} should be {colour}"
    claimed, unclaimed = ribbon_cells(game, True), ribbon_cells(game, False)
    for cell in facts.get("claimed", "").split():
        assert cell in claimed, f"{cell} should be in a claimed ribbon"
    for cell in facts.get("unclaimed", "").split():
        assert cell in unclaimed, f"{cell} should be in a ribbon not claimed"
    if "claimed" in facts:  # the listed cells are all the claimed ones
        assert claimed == set(facts["claimed"].split()), claimed
    if "over" in facts:
        assert game.is_over == (facts["over"] == "yes")
    if "winner" in facts:
        assert (game.winner or "draw") == facts["winner"]
    if "scores" in facts:
        stated = {k: float(v) for k, v in (item.split("=") for item in facts["scores"].split())}
        assert game.scores() == stated, game.scores()
    if "button" in facts:
        assert (game.button_holder or "none") == facts["button"]
    if "to_move" in facts:
        assert game.to_move == facts["to_move"]
    if "pending" in facts:
        assert game.pending_second == (facts["pending"] == "yes")
    if "phase" in facts:
        assert match.phase == facts["phase"]
    if "first" in facts:
        assert match.colour_of("first") == facts["first"]


def diagram(facts: dict) -> str:
    game, match = position(facts)
    return render_ascii(game, legend=False, match=match)


TEXT = DOC.read_text(encoding="utf-8")
EXAMPLES = examples(TEXT)


def test_the_page_has_examples_for_every_section():
    assert len(EXAMPLES) >= 20
    for section in range(1, 11):
        assert f"## R{section} " in TEXT, section


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda e: f"line{e.line}")
def test_example_holds_in_the_engine(example):
    check(example.facts)
    if example.diagram is not None:
        assert example.diagram == diagram(example.facts), "run python tests/test_rules_doc.py --fill"


def test_every_example_announced_with_a_colon_is_shown():
    """A sentence ending in ':' right before a check comment promises a picture: the rendered
    page must show one (the comment itself is invisible), not a colon and nothing."""
    for found in CHECK.finditer(TEXT):
        before = TEXT[:found.start()].rstrip().splitlines()[-1]
        if before.endswith(":"):
            line = TEXT.count("\n", 0, found.start()) + 1
            assert BLOCK.match(TEXT, found.end()), f"RULES.md line {line}: {before!r} is followed by no diagram"


def test_sample_record_replays():
    at = TEXT.index("<!-- check-record -->")
    block = TEXT[:at].rsplit("```text\n", 1)[1].split("```", 1)[0]
    record = parse_record(block)
    assert record.result is not None and record.result.winner == "black"
    assert record.position().button_holder == "white"


def test_printed_result_sample_is_what_the_program_prints():
    """The R6 sample of a finished game's lines is ``status_lines`` of the game just above it."""
    at = TEXT.index("When a game ends, `catena-zero` prints")
    sample = TEXT[at:].split("```text\n", 1)[1].split("```", 1)[0]
    before = [e for e in EXAMPLES if TEXT.count("\n", 0, at) + 1 > e.line][-1]
    game, match = position(before.facts)
    assert sample == "\n".join(status_lines(game, match)) + "\n"


def test_the_page_cites_no_outside_file():
    assert "../" not in TEXT and "shared/" not in TEXT


if __name__ == "__main__" and sys.argv[1:] == ["--fill"]:
    out, last = [], 0
    for example in EXAMPLES:
        if example.span is not None:
            start, end = example.span
            out += [TEXT[last:start], diagram(example.facts)]
            last = end
    DOC.write_text("".join(out) + TEXT[last:], encoding="utf-8")
    print(f"redrew {sum(e.span is not None for e in EXAMPLES)} boards in {DOC}")
