"""The match protocol of RULES.md R7 (and R8 for double), events in R10 notation."""

from __future__ import annotations

import numpy as np
import pytest

from catena_zero.game import GameConfig, GameNotOver, IllegalMove, Match
from catena_zero.game.notation import Event
from events import ev, evs, texts  # noqa: F401


def finish(m: Match, rng: np.random.Generator) -> None:
    """Play random legal cells until the end, checking who is asked to act."""
    while m.phase == "play":
        game = m.game
        assert m.player_to_act == m.player_of(game.to_move)
        cells = [mv for mv in game.legal_moves() if mv != "button"]
        m.apply(ev(cells[rng.integers(len(cells))]))
    assert m.phase == "over" and m.player_to_act is None


def test_komi_protocol():
    """R7 komi: first chooses the komi, second chooses a colour, Black moves first."""
    m = Match(GameConfig(side=3, game_type="komi", scoring="standard", komi=9))
    assert m.phase == "komi" and m.player_to_act == "first" and m.game is None
    assert m.colour_of("first") is None and m.player_of("black") is None
    m.apply(ev("komi 4"))
    assert m.game is not None and m.game.config.komi == 4  # config.komi (9) is not used
    assert m.phase == "colour" and m.player_to_act == "second"
    m.apply(ev("colour black"))
    assert m.colour_of("second") == "black" and m.colour_of("first") == "white"
    assert m.player_of("white") == "first"
    assert m.phase == "play" and m.player_to_act == "second"  # Black moves first
    m.apply(ev("C3"))
    assert m.player_to_act == "first" and m.game.stone_at("C3") == "black"
    m.apply(ev("button"))
    assert m.game.button_holder == "white" and m.player_to_act == "second"
    finish(m, np.random.default_rng(1))
    assert texts(m.events)[:4] == ["komi 4", "colour black", "C3", "button"]
    assert texts(m.events)[4:] == m.game.history[2:]
    winner = m.game.winner
    assert m.winning_player == m.player_of(winner)


def test_komi_protocol_helpers_and_quadratic_range():
    """Events made in code are the same events; quadratic komi goes to 1000 (R6)."""
    m = Match(GameConfig(side=2, scoring="quadratic"))
    with pytest.raises(IllegalMove, match="0..1000"):
        m.apply(ev(Event.komi_choice(1001)))
    m.apply(ev(Event.komi_choice(1000)))
    m.apply(ev(Event.colour_choice("white")))
    assert texts(m.events) == ["komi 1000", "colour white"]
    assert m.colour_of("second") == "white" and m.player_to_act == "first"


def test_no_komi_protocol_keep_white():
    """R7 no_komi: first places Black's stone; "colour white": second keeps White and moves."""
    m = Match(GameConfig(side=3, game_type="no_komi"))
    assert m.phase == "play" and m.player_to_act == "first" and m.game.config.komi == 0
    assert m.colour_of("first") is None
    with pytest.raises(IllegalMove, match="no_komi"):
        m.apply(ev("button"))  # not before Black's first stone
    m.apply(ev("C3"))
    assert m.phase == "colour" and m.player_to_act == "second"
    with pytest.raises(IllegalMove, match="colour"):
        m.apply(ev("D4"))
    m.apply(ev("colour white"))
    assert m.colour_of("first") == "black" and m.colour_of("second") == "white"
    assert m.phase == "play" and m.player_to_act == "second"
    m.apply(ev("button"))
    assert m.game.button_holder == "white" and m.player_to_act == "first"
    assert texts(m.events) == ["C3", "colour white", "button"]


@pytest.mark.parametrize("event", ["swap", "colour black"])
def test_no_komi_protocol_swap(event):
    """R7 no_komi: "swap" (or "colour black"): second takes over Black and its stone; the
    first player then plays White and moves next."""
    m = Match(GameConfig(side=3, game_type="no_komi"))
    m.apply(ev("C3"))
    m.apply(ev(event))
    assert m.colour_of("second") == "black" and m.colour_of("first") == "white"
    assert m.game.stone_at("C3") == "black" and m.game.to_move == "white"
    assert m.player_to_act == "first"
    m.apply(ev("A1"))
    assert m.game.stone_at("A1") == "white" and m.player_to_act == "second"
    assert texts(m.events) == ["C3", event, "A1"]
    finish(m, np.random.default_rng(2))


def test_double_protocol():
    """R8: the first player is Black, no choices, no button; pairs of stones."""
    m = Match(GameConfig(side=3, game_type="double"))
    assert m.phase == "play" and m.colour_of("first") == "black" and m.colour_of("second") == "white"
    acts = []
    for move in ["C3", "A1", "E5", "A3"]:
        acts.append(m.player_to_act)
        m.apply(ev(move))
    assert acts == ["first", "second", "second", "first"]
    for bad in ("komi 0", "colour white", "swap", "button"):
        with pytest.raises(IllegalMove):
            m.apply(ev(bad))
    finish(m, np.random.default_rng(3))
    assert texts(m.events) == m.game.history


@pytest.mark.parametrize(
    "game_type, prefix, bad, match",
    [
        ("komi", [], "komi 16", "0..15"),
        ("komi", [], "komi -1", "malformed"),
        ("komi", [], "komi 07", "malformed"),
        ("komi", [], "komi", "malformed"),
        ("komi", [], "komi 3.5", "malformed"),
        ("komi", [], "colour white", "komi"),
        ("komi", [], "swap", "no_komi"),
        ("komi", [], "C3", "komi"),
        ("komi", ["komi 3"], "komi 4", "colour"),
        ("komi", ["komi 3"], "colour red", "malformed"),
        ("komi", ["komi 3"], "colour", "malformed"),
        ("komi", ["komi 3"], "swap", "no_komi"),
        ("komi", ["komi 3"], "C3", "colour"),
        ("komi", ["komi 3", "colour white"], "colour black", "move"),
        ("komi", ["komi 3", "colour white"], "Z9", "not a move"),
        ("komi", ["komi 3", "colour white"], "c3", "not a move"),
        ("no_komi", [], "colour white", "move by the first"),
        ("no_komi", [], "swap", "move"),
        ("no_komi", [], "komi 0", "move"),
        ("no_komi", ["C3"], "komi 0", "colour"),
        ("no_komi", ["C3", "swap"], "swap", "move"),
        ("no_komi", ["C3", "swap"], "C3", "occupied"),
    ],
)
def test_bad_events_per_phase(game_type, prefix, bad, match):
    """Anything wrong for the phase is an IllegalMove naming the problem; nothing changes."""
    m = Match.replay(GameConfig(side=3, game_type=game_type), evs(prefix))
    phase, actor, events = m.phase, m.player_to_act, texts(m.events)
    with pytest.raises(IllegalMove, match=match):
        m.apply(ev(bad))
    assert (m.phase, m.player_to_act, texts(m.events)) == (phase, actor, events)


def test_errors_after_the_end_and_bad_arguments():
    m = Match(GameConfig(side=2, game_type="komi"))
    with pytest.raises(GameNotOver):
        m.winning_player
    for event in ["komi 0", "colour black", "A1", "A2", "B3", "C3", "B1"]:
        m.apply(ev(event))
    assert m.phase == "over" and m.player_to_act is None
    assert m.winning_player == "second"  # Black (the second player) has 5 of 5 stones
    with pytest.raises(IllegalMove, match="over"):
        m.apply(ev("C2"))
    with pytest.raises(IllegalMove):
        m.apply(ev(None))
    with pytest.raises(ValueError):
        m.colour_of("third")
    with pytest.raises(ValueError):
        m.player_of("red")
    with pytest.raises(ValueError):
        Match("komi")


@pytest.mark.parametrize("game_type, events, actors", [
    ("komi", ["komi 2", "colour black", "C3", "B2", "button", "A1"],
     ["first", "second", "second", "first", "second", "first"]),
    ("no_komi", ["C3", "swap", "A1", "B2"], ["first", "second", "first", "second"]),
    ("double", ["C3", "A1", "B2", "E3", "E5"], ["first", "second", "second", "first", "first"]),
])
def test_actors_and_rewind(game_type, events, actors):
    """Each event's player is recorded as it is applied (R7: komi by the first, the colour by the
    second; R8: two stones a turn), and rewinding to k events is replaying the first k."""
    config = GameConfig(side=3, game_type=game_type)
    m = Match.replay(config, evs(events))
    assert m.actors == actors
    for keep in range(len(events), -1, -1):
        m.rewind(keep)
        fresh = Match.replay(config, evs(events[:keep]))
        assert texts(m.events) == events[:keep] and m.actors == actors[:keep]
        assert m.phase == fresh.phase and m.player_to_act == fresh.player_to_act
        assert (m.game is None) == (fresh.game is None)
        if m.game is not None:
            assert m.game.position_key() == fresh.game.position_key() and m.game.history == fresh.game.history
    with pytest.raises(ValueError, match="can keep 0..0 events"):
        m.rewind(1)


def test_a_copy_is_a_match_of_its_own():
    """``Match.copy``: what the page's worker thinks on while the event loop keeps the session's
    match; nothing done to one shows in the other (events, colours, the game)."""
    from catena_zero.game.match import Phase

    fresh = Match(GameConfig(side=3))
    twin = fresh.copy()
    assert twin.phase is Phase.KOMI and twin.game is None and twin.events == []
    twin.apply(ev("komi 4"))
    assert fresh.phase is Phase.KOMI and fresh.events == [] and fresh.game is None
    match = Match.replay(GameConfig(side=3), evs(["komi 4"]))
    twin = match.copy()
    assert (twin.phase, twin.events, twin.game.config) == (match.phase, match.events, match.game.config)
    twin.apply(ev("colour black"))
    assert match.phase is Phase.COLOUR and match.colour_of("second") is None and match.events == [ev("komi 4")]
    match.apply(ev("colour white"))
    twin.apply(ev("C3"))
    assert match.game.history == [] and twin.game.history == ["C3"]
    assert (match.colour_of("second"), twin.colour_of("second")) == ("white", "black")
    assert twin.actors == ["first", "second", "second"] and match.actors == ["first", "second"]


@pytest.mark.parametrize("game_type", ["komi", "no_komi", "double"])
def test_a_settled_match_is_in_play_at_its_game(game_type):
    """``Match.settled``: the engine's match, whose set-up was settled outside it (the komi by a
    command, the first player Black): in play at the game itself, no event of its own, and no
    set-up phase after the first stone, even under no_komi."""
    from catena_zero.game.match import Phase
    from catena_zero.game.rules import Game

    config = GameConfig(side=3, game_type=game_type, komi=7 if game_type == "komi" else 0)
    game = Game(config)
    match = Match.settled(game)
    assert match.game is game and match.game.config.komi == config.komi
    assert (match.phase, match.events, match.player_to_act) == (Phase.PLAY, [], "first")
    assert (match.colour_of("first"), match.colour_of("second")) == ("black", "white")
    rng = np.random.default_rng(0)
    match.apply(ev("C3"))
    assert match.phase is Phase.PLAY and game.history == ["C3"]  # the same game; no colour choice
    assert match.player_to_act == match.player_of(game.to_move)
    finish(match, rng)
    assert Match.settled(game).phase is Phase.OVER
