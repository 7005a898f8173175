"""R10 notation (game/notation.py) and game records (game/records.py): round trips through
the engine, and one-line errors naming the line for every kind of bad record."""

from __future__ import annotations

import os

import numpy as np
import pytest

from catena_zero.bot.players import RandomPlayer
from catena_zero.game import Game, GameConfig, board_spec
from catena_zero.game.match import Match
from positions import board_codes
from catena_zero.game.notation import Event, parse_cell, parse_event, parse_move
from catena_zero.game.records import (
    GameResult,
    RecordError,
    format_record,
    load_record,
    parse_record,
    record_of,
    save_record,
)
from events import choose_event, ev, evs, texts  # noqa: F401

# ------------------------------------------------------------------------------ notation


def test_every_cell_parses_from_lower_case_to_its_r10_name():
    for side in (2, 6, 10):
        for name in board_spec(side).names:
            assert parse_cell(name.lower(), side) == name
            assert parse_cell(f"  {name} ", side) == name
            assert str(parse_event(name.lower(), side)) == name


@pytest.mark.parametrize(
    "text, side, message",
    [
        ("Z9", 6, "not a cell of the side-6 board"),
        ("L1", 6, "not a cell of the side-6 board"),  # column L does not exist on side 6
        ("A7", 6, "not a cell of the side-6 board"),  # column A holds A1-A6 (R1)
        ("D05", 6, "leading zeros"),
        ("5D", 6, "column letter and a row number"),
        ("", 6, "column letter and a row number"),
    ],
)
def test_parse_cell_rejects_non_cells_with_a_reason(text, side, message):
    with pytest.raises(ValueError, match=message):
        parse_cell(text, side)


def test_parse_event_kinds_and_canonical_form():
    assert parse_event("d5", 6) == Event(kind="place", cell="D5")
    assert parse_event(" Button ", 6) == Event(kind="button")
    assert parse_event("KOMI 7", 6) == Event(kind="komi", komi=7)
    assert parse_event("color White", 6) == Event(kind="colour", colour="white")
    assert parse_event("swap", 6) == Event(kind="swap")
    assert [str(parse_event(t, 6)) for t in ("d5", "button", "komi  12", "Colour black", "SWAP")] == [
        "D5", "button", "komi 12", "colour black", "swap"]


def typings(text: str) -> list[str]:
    """Ways a person may type the canonical ``text`` (R10 UIs): any case, blanks around and between
    the words, "color" for "colour"."""
    spaced = "  ".join(text.split())
    return [text, text.lower(), text.upper(), text.title(), f"  {spaced}\t", text.replace("colour", "color")]


def test_every_event_prints_and_parses_back_to_itself():
    """Every event of every kind, on every board: its canonical text (``str``) reads back as the
    same record through ``read_event`` (files, protocols) and ``parse_event`` (what people type,
    in any of their ways); a move's ``as_move`` makes it again; the set-up kinds are R7's."""
    from catena_zero.game.notation import EventKind, read_event

    kinds = set()
    for side in range(2, 11):
        spec = board_spec(side)
        moves = [Event.move(spec.action_name(a)) for a in range(spec.num_cells)] + [Event.move("button")]
        setups = [Event.komi_choice(k) for k in range(1001)] + [Event.colour_choice(c) for c in ("black", "white")]
        for event in moves + setups + [Event.swap()]:
            text = str(event)
            assert read_event(text) == event, text
            assert all(parse_event(typed, side) == event for typed in typings(text)), text
            assert event.is_setup == (event.kind in (EventKind.KOMI, EventKind.COLOUR, EventKind.SWAP))
            if not event.is_setup:
                assert Event.move(event.as_move) == event
            kinds.add(event.kind)
    assert kinds == set(EventKind)


def test_an_event_is_of_its_kind_with_its_one_field():
    """A kind written as its word is the member (an event of kind "button" plays the button, not a
    cell named "None"); a field that its kind has not, or a missing one, is a programming error."""
    from catena_zero.game.notation import EventKind

    assert Event(kind="button").kind is EventKind.BUTTON and Event(kind="button").as_move == "button"
    assert str(Event(kind="place", cell="D5")) == "D5" and Event(kind="komi", komi=3).is_setup
    for fields, message in [({"kind": "place"}, "a place event has cell, got none"),
                            ({"kind": "swap", "komi": 3}, r"a swap event has no other field, got \['komi'\]"),
                            ({"kind": "komi", "komi": 3, "cell": "D5"}, "a komi event has komi, got"),
                            ({"kind": "pass"}, "'pass' is not a valid EventKind")]:
        with pytest.raises(ValueError, match=message):
            Event(**fields)


@pytest.mark.parametrize(
    "text, message",
    [
        ("", "empty input"),
        ("komi", "komi K"),
        ("komi -3", "komi K"),
        ("komi 2.5", "komi K"),
        ("colour red", "colour black"),
        ("button now", "takes no argument"),
        ("D5 E5", "not an event"),
        ("pass", "not an event"),
    ],
)
def test_parse_event_rejects_malformed_input(text, message):
    with pytest.raises(ValueError, match=message):
        parse_event(text, 6)


def test_parse_move_accepts_only_moves():
    assert parse_move("e4", 4) == "E4" and parse_move("button", 4) == "button"
    with pytest.raises(ValueError, match=r"set-up choice \(R7\), not a move"):
        parse_move("komi 3", 4)
    with pytest.raises(ValueError, match="'pass' is not a move: expected a cell like 'D5' or 'button'"):
        parse_move("pass", 4)
    with pytest.raises(ValueError, match="not a cell of the side-4 board"):
        parse_move("z9", 4)


# ------------------------------------------------------------------------------ records


def random_game(config: GameConfig, seed: int, moves: int | None = None) -> Game:
    rng, player, game = np.random.default_rng(seed), RandomPlayer(), Game(config)
    while not game.is_over and (moves is None or game.move_number < moves):
        game.play(player.choose(game, rng))
    return game


def random_match(config: GameConfig, seed: int, events: int | None = None) -> Match:
    rng, player, match = np.random.default_rng(seed), RandomPlayer(), Match(config)
    while match.phase != "over" and (events is None or len(match.events) < events):
        match.apply(ev(choose_event(player, match, rng)))
    return match


CONFIGS = [
    GameConfig(side=3),
    GameConfig(side=4, game_type="no_komi", scoring="longest"),
    GameConfig(side=4, game_type="double", scoring="quadratic"),
    GameConfig(side=5, scoring="quadratic", komi=40),
]


@pytest.mark.parametrize("config", CONFIGS)
def test_game_record_round_trip(config):
    """A finished Game's record replays (R10) to the same board, scores and winner."""
    game = random_game(config, seed=11)
    text = format_record(game)
    record = parse_record(text)
    assert record.start == "play" and record.config == config and record.first is None
    assert texts(record.events) == game.history
    assert record.result == GameResult(game.scores()["black"], game.scores()["white"], game.winner)
    replayed = record.position()
    assert board_codes(replayed).tolist() == board_codes(game).tolist()
    assert replayed.scores() == game.scores() and replayed.winner == game.winner
    assert format_record(record) == text  # the text form is canonical


@pytest.mark.parametrize("config", CONFIGS)
def test_match_record_round_trip_at_every_prefix(config):
    """Match records (R7 set-up + moves) parse at every length; unfinished ones have no result."""
    full = random_match(config, seed=5)
    assert full.phase == "over"
    for k in range(len(full.events) + 1):
        match = Match.replay(config, evs(full.events[:k]))
        record = parse_record(format_record(match))
        assert record.start == "setup" and texts(record.events) == texts(full.events)[:k]
        assert record.first == match.colour_of("first")
        assert (record.result is None) == (match.phase != "over")
        assert texts(record.replay().events) == texts(match.events)
    if config.game_type == "double":  # R8: first player is Black, fixed
        assert parse_record(format_record(full)).first == "black"


def test_record_text_lists_options_players_events_and_result():
    match = Match(GameConfig(side=3))
    for event in ("komi 4", "colour black", "C3"):
        match.apply(ev(event))
    lines = format_record(match).splitlines()
    assert lines[0] == "catena-record 1"
    for line in ("side 3", "game_type komi", "scoring standard", "start setup", "first white", "second black"):
        assert line in lines
    assert lines[lines.index("events") + 1:] == ["komi 4", "colour black", "C3", "end"]  # unfinished: no result
    finished = random_match(GameConfig(side=3), seed=2)
    s, winner = finished.game.scores(), finished.game.winner
    assert format_record(finished).splitlines()[-1] == f"result black {s['black']:g} white {s['white']:g} winner {winner}"


def test_comments_and_blank_lines_are_ignored():
    game = random_game(GameConfig(side=3), seed=4)
    lines = format_record(game).splitlines()
    commented = ["# a record", ""] + [f"  {line}   # note" for line in lines] + ["", "# end of file"]
    assert texts(parse_record("\n".join(commented)).events) == game.history


def test_replay_prefixes_and_bounds():
    match = random_match(GameConfig(side=3), seed=9, events=6)
    record = record_of(match)
    assert record.position(0).move_number == 0  # before the komi choice: an empty board
    assert record.position(2).move_number == 0 and record.position(2).config.komi == match.events[0].komi
    assert board_codes(record.position(6)).tolist() == board_codes(match.game).tolist()
    with pytest.raises(ValueError, match="has 6 events"):
        record.replay(7)


def test_save_and_load_are_atomic_and_faithful(tmp_path):
    path = tmp_path / "game.txt"
    game = random_game(GameConfig(side=4), seed=1)
    assert save_record(path, game) == path
    save_record(path, game)  # overwriting goes through os.replace as well
    assert sorted(os.listdir(tmp_path)) == ["game.txt"]  # no temporary file left behind
    assert load_record(path) == record_of(game)
    with pytest.raises(OSError, match="cannot write"):
        save_record(tmp_path / "missing" / "x.txt", game)


# --------------------------------------------------------------------------- bad records


def _finished_text() -> str:
    return format_record(random_game(GameConfig(side=3, komi=2), seed=3))


def _line_of(text: str, content: str) -> int:
    return text.splitlines().index(content) + 1


def test_illegal_move_names_its_line():
    text = _finished_text()
    lines = text.splitlines()
    events = lines.index("events")
    first_move = lines[events + 1]
    lines.insert(events + 2, first_move)  # the same cell twice: occupied (R3)
    with pytest.raises(RecordError, match=rf"^line {events + 3}: move '{first_move}' is illegal \(.*occupied"):
        parse_record("\n".join(lines))


@pytest.mark.parametrize(
    "edit, message",
    [
        (lambda t: t.replace("catena-record 1", "catena-record 7"), r"^line 1: unknown record version '7'"),
        (lambda t: t.replace("catena-record 1", "chess-record 1"), r"^line 1: not a Catena record"),
        (lambda t: t.replace("side 3\n", ""), r"^line \d+: missing header key 'side'"),
        (lambda t: t.replace("side 3", "side 3\nside 3"), r"^line 4: header key 'side' given twice"),
        (lambda t: t.replace("side 3", "board 3"), r"^line 3: unknown header key 'board'"),
        (lambda t: t.replace("side 3", "side 11"), r"^line 3: bad options: side must be in 2..10"),
        (lambda t: t.replace("komi 2", "komi two"), r"^line 6: komi must be a whole number"),
        (lambda t: t.replace("scoring standard", "scoring best"), r"^line 5: bad options: scoring must be one of"),
        (lambda t: t.replace("start play", "start middle"), r"^line 7: start must be 'setup' or 'play'"),
        (lambda t: t.replace("start play", "start play\nfirst black\nsecond white"), r"only meaningful in 'start setup'"),
        (lambda t: t.split("\nend\n")[0] + "\n", r"record ends before the 'end' line \(truncated\?\)"),
        (lambda t: t.split("\nend\n")[0], r"the record ends in the middle of this line \('\w+'\): the file is truncated"),
        (lambda t: t.split("events\n")[0], r"record ends before the 'events' line \(truncated\?\)"),
        (lambda t: t.replace("\nend\n", "\n"), r"result line before 'end'"),
        (lambda t: t.rsplit("\n", 2)[0] + "\n", r"game is over after the events but the record has no result line"),
        (lambda t: t.replace("winner", "champion"), r"expected 'result black B white W winner"),
        (lambda t: t + "more\n", r"unexpected text after the result line: 'more'"),
        (lambda t: "", r"^empty record"),
    ],
)
def test_bad_records_fail_with_one_line_naming_the_problem(edit, message):
    text = edit(_finished_text())
    with pytest.raises(RecordError, match=message) as info:
        parse_record(text)
    assert "\n" not in str(info.value)


def test_result_that_disagrees_with_the_replay_is_rejected():
    text = _finished_text()
    result = text.splitlines()[-1]
    _, _, b, _, w, _, winner = result.split()
    loser = "black" if winner == "white" else "white"
    line = _line_of(text, result)
    wrong_scores = text.replace(result, f"result black {float(b) + 1:g} white {w} winner {winner}")
    with pytest.raises(RecordError, match=rf"^line {line}: result scores .* disagree with the replay"):
        parse_record(wrong_scores)
    wrong_winner = text.replace(result, f"result black {b} white {w} winner {loser}")
    with pytest.raises(RecordError, match=rf"^line {line}: result winner {loser} disagrees with the replay"):
        parse_record(wrong_winner)
    unfinished = format_record(random_game(GameConfig(side=3), seed=3, moves=2))
    with pytest.raises(RecordError, match="result line given, but the game is not over"):
        parse_record(unfinished + result + "\n")


def test_players_header_must_match_the_colour_choice():
    match = Match(GameConfig(side=3))
    for event in ("komi 0", "colour black"):  # R7: the second player takes Black
        match.apply(ev(event))
    text = format_record(match)
    assert "first white" in text
    swapped = text.replace("first white", "first black").replace("second black", "second white")
    with pytest.raises(RecordError, match="header says first player is black, but the replay gives white"):
        parse_record(swapped)
    missing = text.replace("first white\n", "").replace("second black\n", "")
    with pytest.raises(RecordError, match="missing 'first'/'second'"):
        parse_record(missing)


def test_load_record_names_the_file(tmp_path):
    with pytest.raises(RecordError, match=r"cannot read record .*nowhere\.txt"):
        load_record(tmp_path / "nowhere.txt")
    bad = tmp_path / "bad.txt"
    bad.write_text(_finished_text().replace("catena-record 1", "catena-record 9"))
    with pytest.raises(RecordError, match=rf"^{bad}: line 1: unknown record version"):
        load_record(bad)
    binary = tmp_path / "binary.txt"
    binary.write_bytes(b"\xff\xfe\x00")
    with pytest.raises(RecordError, match="not a text file"):
        load_record(binary)


# ------------------------------------------------------------------ damaged and odd records


def test_record_cut_off_mid_line_is_reported_truncated_not_illegal():
    """A file cut inside an event ("D1" cut to "D", "colour white" to "colour wh") is a
    truncated file; the same text followed by a newline is an illegal event."""
    match = Match(GameConfig(side=3))
    for event in ("komi 2", "colour white", "C3", "D4"):
        match.apply(ev(event))
    text = format_record(match)
    for cut in ("colour wh", "D"):
        at = text.index(cut) + len(cut)
        lineno = text[:at].count("\n") + 1
        with pytest.raises(RecordError, match=rf"^line {lineno}: the record ends in the middle of this line "
                                              rf"\({cut!r}\): the file is truncated"):
            parse_record(text[:at])
        with pytest.raises(RecordError, match=rf"^line {lineno}: (move|event) {cut!r} is illegal"):
            parse_record(text[:at] + "\n")
    with pytest.raises(RecordError, match="the file is truncated"):
        parse_record(text[: len(text) - 2])  # cut inside the final 'end'



def test_truncated_inside_a_utf8_character_and_nul_bytes(tmp_path):
    path = tmp_path / "r.txt"
    path.write_bytes(format_record(Match(GameConfig(side=3))).encode() + "# caf\u00e9".encode()[:-1])
    with pytest.raises(RecordError, match=rf"^{path}: the record ends in the middle of a character: the file is truncated"):
        load_record(path)
    path.write_bytes(b"\0" * 100_000)
    with pytest.raises(RecordError) as info:
        load_record(path)
    assert str(info.value) == f"{path}: not a text file (it contains NUL bytes)"


@pytest.mark.parametrize("where", ["event", "header key", "header value", "first line"])
def test_error_messages_quote_at_most_a_few_characters(where):
    """A 10 MB line (or one full of NUL escapes) is quoted in a few dozen characters, once."""
    huge = "D" * 10_000_000
    text = format_record(Match(GameConfig(side=3)))
    edited = {
        "event": text.replace("events\n", f"events\n{huge}\n"),
        "header key": text.replace("side 3\n", f"side 3\n{huge} 1\n"),
        "header value": text.replace("scoring standard", f"scoring {huge}"),
        "first line": text.replace("catena-record 1", f"catena-record {huge}"),
    }[where]
    with pytest.raises(RecordError) as info:
        parse_record(edited)
    message = str(info.value)
    assert len(message) < 300 and "10,000,000 characters" in message, message[:300]
    nul = text.replace("events\n", "events\n" + "\0" * 100_000 + "\n")
    with pytest.raises(RecordError) as info:
        parse_record(nul)
    assert len(str(info.value)) < 300


def test_header_komi_must_agree_with_the_komi_choice():
    """R7: the first player chose komi 7, so a header saying komi 0 contradicts the events;
    records are written with the chosen komi."""
    match = Match(GameConfig(side=3))  # configured komi 0
    for event in ("komi 7", "colour black", "C3"):
        match.apply(ev(event))
    text = format_record(match)
    assert "\nkomi 7\nstart setup" in text
    record = parse_record(text)
    assert record.config.komi == 7 and record.position().config.komi == 7
    bad = text.replace("\nkomi 7\nstart setup", "\nkomi 0\nstart setup")
    lineno = _line_of(bad, "komi 0")
    with pytest.raises(RecordError, match=rf"^line {lineno}: header says komi 0 but the komi choice "
                                          rf"\(line {_line_of(bad, 'komi 7')}\) is komi 7; they must agree"):
        parse_record(bad)
    # Before the komi choice the header keeps the configured komi; nothing to agree with.
    early = Match(GameConfig(side=3, komi=5))
    assert parse_record(format_record(early)).config.komi == 5


def test_a_record_holds_event_records_not_their_text():
    """Text is read into ``Event``s once (``read_event``); a record built of strings would write
    the same file yet compare unequal to the record read back from it."""
    from catena_zero.game.records import Record, Variation

    config = GameConfig(side=3)
    assert Record(config=config, start="play", events=(ev("C3"),)).events == (ev("C3"),)
    for events in (("C3",), [ev("C3")], (ev("C3"), "A1")):
        with pytest.raises(TypeError, match="a record's events are a tuple of Event records"):
            Record(config=config, start="play", events=events)
        with pytest.raises(TypeError, match="a record's events are a tuple of Event records"):
            Variation(parent=0, move=0, events=events)
