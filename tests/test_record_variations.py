"""Variations in a game record (R10, record version 2): lines tried from the game's positions are
saved with it as a tree, each replayed from its branch point, and read back as they were written."""

from __future__ import annotations

import pytest

from catena_zero.game import Game, GameConfig
from catena_zero.game.match import Match
from catena_zero.game.records import (RecordError, Record, Variation, format_record, parse_record, record_of)
from events import ev, evs, texts  # noqa: F401

CONFIG = GameConfig(side=3)


def finished(events: list[str]) -> Match:
    match = Match(CONFIG)
    for event in events:
        match.apply(ev(event))
    while match.phase != "over":
        match.apply(ev(match.game.legal_moves()[0]))
    return match


def test_a_tree_of_variations_reads_back_as_written():
    game = finished(["komi 2", "colour white", "C3", "A1"])
    record = record_of(game)
    # Variation 1 branches after move 1 of the game; variation 2 after move 4 (its end) of variation 1.
    one = Match(CONFIG)
    for event in texts(record.events)[:record.events_through_move(1)]:
        one.apply(ev(event))
    one.apply(ev("E5"))
    one.apply(ev("A3"))
    one.apply(ev("E3"))
    two_base = texts(one.events)
    two = Match(CONFIG)
    for event in two_base:
        two.apply(ev(event))
    while two.phase != "over":  # variation 2 is played to the end: it has a result
        two.apply(ev(two.game.legal_moves()[-1]))
    tree = Record(config=record.config, start=record.start, events=record.events, first=record.first,
                  result=record.result, variations=(
                      Variation(parent=0, move=1, events=tuple(evs(["E5", "A3", "E3"]))),
                      Variation(parent=1, move=4, events=tuple(two.events[len(two_base):]),
                                result=record_of(two).result)))
    text = format_record(tree)
    assert text.startswith("catena-record 2\n")
    assert "\nvariation after 1\nE5\nA3\nE3\nend\nvariation after 4 of 1\n" in text
    back = parse_record(text)
    assert back == tree
    assert back.line_events(1) == tuple(one.events) and back.line_events(2) == tuple(two.events)
    assert back.variations[1].result is not None and back.variations[0].result is None
    # A record without variations is still version 1, which every reader reads.
    assert format_record(record).startswith("catena-record 1\n") and parse_record(format_record(record)) == record


@pytest.mark.parametrize("tail, error", [
    ("variation after 1\nC3\nend\n", r"line \d+: move 'C3' is illegal"),  # C3 is taken at move 1
    ("variation after 99\nE5\nend\n", r"variation after move 99: its line has \d+ moves"),
    ("variation after 1 of 2\nE5\nend\n", r"branches from variation 2, which is not written before it"),
    ("variation 1\nE5\nend\n", r"expected 'variation after K' or 'variation after K of N'"),
    ("variation after 1\nE5\n", r"record ends before the 'end' line"),
])
def test_a_bad_variation_is_named_at_its_line(tail, error):
    text = format_record(record_of(finished(["komi 2", "colour white", "C3"]))).replace("catena-record 1", "catena-record 2")
    with pytest.raises(RecordError, match=error):
        parse_record(text + tail)


def test_variations_need_version_2_and_a_finished_variation_its_result():
    text = format_record(record_of(finished(["komi 2", "colour white", "C3"])))
    with pytest.raises(RecordError, match="variations need 'catena-record 2'"):
        parse_record(text + "variation after 1\nE5\nend\n")
    game = Game(CONFIG)
    game.play("C3")
    plain = format_record(game).replace("catena-record 1", "catena-record 2")
    rest = Game(CONFIG)
    rest.play("C3")
    while not rest.is_over:
        rest.play(rest.legal_moves()[0])
    moves = "\n".join(rest.history[1:])
    with pytest.raises(RecordError, match="the game is over after the events but the record has no result line"):
        parse_record(plain + f"variation after 1\n{moves}\nend\n")
