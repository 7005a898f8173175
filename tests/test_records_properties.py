"""Records against careless and hostile text, and properties over generated games
(hypothesis): every legal game round-trips; a mutated record is refused naming a line, or reads
exactly the events its lines show (no event hidden in a comment, none lost)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from events import choose_event, ev, evs, texts  # noqa: F401
from catena_zero.bot.players import setup_choices
from catena_zero.cli import main
from catena_zero.game.match import Match, Phase
from catena_zero.game.notation import parse_event
from catena_zero.game.options import GAME_TYPES, SCORINGS, GameConfig
from catena_zero.game.records import RecordError, format_record, parse_record
from catena_zero.game.rules import Game

HIDERS = ["\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029", "\r", "\x00", "\x1b", "\x7f"]


def played(config: GameConfig, picks: list[int], setup: bool):
    """A game (or a match with its R7 set-up) of the events ``picks`` choose among the legal ones."""
    state = Match(config) if setup else Game(config)
    for pick in picks:
        if (state.phase is Phase.OVER) if setup else state.is_over:
            break
        if setup:
            options = evs(state.game.legal_moves()) if state.phase is Phase.PLAY else setup_choices(state)
            state.apply(options[pick % len(options)])
        else:
            options = state.legal_moves()
            state.play(options[pick % len(options)])
    return state


@pytest.mark.parametrize("hider", HIDERS)
def test_a_line_break_other_than_newline_cannot_hide_an_event(hider, tmp_path, capsys):
    game = played(GameConfig(side=3), [0, 1], setup=False)
    text = format_record(game)
    hidden = text.replace("events\n", f"events\n# C3 was a blunder, retracted{hider}C3\n")
    with pytest.raises(RecordError, match=r"^line \d+: control character U\+") as info:
        parse_record(hidden)
    assert info.value.line == text.splitlines().index("events") + 2
    path = tmp_path / "r.txt"
    path.write_text(hidden, encoding="utf-8", newline="")
    assert main(["show", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and ("control character" in err or "NUL" in err) and "Traceback" not in err


def test_crlf_records_read_as_their_lf_form_and_tabs_are_allowed():
    game = played(GameConfig(side=3), [2, 0, 1, 3], setup=False)
    text = format_record(game)
    record = parse_record(text)
    assert parse_record(text.replace("\n", "\r\n")) == record
    assert parse_record(text.replace("events\n", "events\n\t# a tab\t\n")) == record


@st.composite
def games(draw):
    game_type = draw(st.sampled_from(GAME_TYPES))
    scoring = draw(st.sampled_from(SCORINGS))
    side = draw(st.integers(2, 5))
    komi = draw(st.integers(0, 15)) if game_type == "komi" else 0
    setup = draw(st.booleans())
    picks = draw(st.lists(st.integers(0, 10_000), max_size=40))
    return played(GameConfig(side=side, game_type=game_type, scoring=scoring, komi=komi), picks, setup)


@given(games())
def test_every_legal_game_round_trips(state):
    text = format_record(state)
    record = parse_record(text)
    assert format_record(record) == text
    game = state.game if isinstance(state, Match) else state
    replayed = record.replay()
    replayed_game = replayed.game if isinstance(replayed, Match) else replayed
    assert (replayed_game is None) == (game is None)
    if game is not None:
        assert replayed_game.history == game.history and replayed_game.is_over == game.is_over


def _visible_events(text: str, side: int) -> list[str]:
    """The events a person reading the lines sees: between 'events' and 'end', comments dropped."""
    lines = [raw.split("#", 1)[0].strip() for raw in text.split("\n")]
    lines = [line for line in lines if line]
    start = lines.index("events") + 1
    end = lines.index("end", start) if "end" in lines[start:] else len(lines)
    return [str(parse_event(line, side)) for line in lines[start:end]]


_mutations = st.tuples(st.sampled_from(["insert", "delete", "replace"]), st.integers(0, 10**6),
                       st.sampled_from(HIDERS + list("#\n \t1Aab") + ["D", "end", "button", "\u00e9", "\ufeff"]))


@given(games(), st.lists(_mutations, min_size=1, max_size=3))
def test_a_mutated_record_is_refused_with_a_line_or_reads_what_its_lines_show(state, mutations):
    text = format_record(state)
    for kind, at, chunk in mutations:
        at %= len(text) + 1
        if kind == "insert":
            text = text[:at] + chunk + text[at:]
        elif kind == "delete":
            text = text[:at] + text[at + 1:]
        else:
            text = text[:at] + chunk + text[at + 1:]
    try:
        record = parse_record(text)
    except RecordError as exc:
        assert str(exc).startswith("line ") and exc.line is not None and "\n" not in str(exc)
        return
    assert texts(record.events) == _visible_events(text, record.config.side)
    assert parse_record(format_record(record)) == record


@pytest.mark.slow
@settings(max_examples=3000)
@given(games(), st.lists(_mutations, min_size=1, max_size=3))
def test_mutated_records_many_examples(state, mutations):
    test_a_mutated_record_is_refused_with_a_line_or_reads_what_its_lines_show.hypothesis.inner_test(state, mutations)
