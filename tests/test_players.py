"""The one player protocol (bot/players.py): what a player can do is declared in its
``Capabilities`` and honoured from there, never found by probing for methods."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

import catena_zero
from catena_zero.bot.players import (
    CONFIGURED, JUDGED, RANDOM, Analyst, Budget, Capabilities, KomiCurver, Player, RandomPlayer, SetupAsker,
    SetupJudge, UnsupportedGame, check_plays, declared, next_turn, own_fair_komi, setup_answer,
)
from catena_zero.config import Config
from catena_zero.eval.specs import make_player
from catena_zero.game import GameConfig
from catena_zero.game.match import Match
from catena_zero.game.options import RuleSet
from events import choose_event, ev, evs, texts  # noqa: F401

PACKAGE = Path(catena_zero.__file__).resolve().parent


class Stub:
    """A player whose every optional part exists, so only its declared capabilities can decide."""

    name = "stub"
    game_config = GameConfig(side=3)
    simulations, seconds = None, None

    def __init__(self, capabilities: Capabilities) -> None:
        self.capabilities = capabilities

    def choose(self, game, rng, budget=Budget()) -> str:
        return game.legal_moves()[0]

    def play_and_analyze(self, game, budget=Budget()):
        raise AssertionError("analysis asked of a player that declares none")

    def komi_curve(self, config):
        raise AssertionError("fair komi asked of a player that declares none")

    def choose_komi(self, config) -> int:
        return 9

    def choose_colour(self, config, komi) -> str:
        return "black"

    def choose_swap(self, game) -> bool:
        return True


def test_capabilities_are_checked_and_plays_reads_the_rule_sets():
    with pytest.raises(ValueError, match="setup must be one of"):
        Capabilities(setup="heads")
    side3 = Capabilities(rule_sets=[RuleSet(3, "komi", "standard")])
    assert side3.rule_sets == (RuleSet(3, "komi", "standard"),)  # a list becomes a tuple: hashable, frozen
    assert side3.plays(GameConfig(side=3, komi=7)) and not side3.plays(GameConfig(side=4))
    assert Capabilities().plays(GameConfig(side=9, scoring="longest"))  # None: any game
    with pytest.raises(UnsupportedGame, match="stub was trained for side 3 komi standard; it does not play side 4"):
        check_plays(Stub(side3), GameConfig(side=4), "stub")


def test_setup_answer_follows_the_declared_policy():
    config = GameConfig(side=3, komi=5)
    rng = np.random.default_rng(0)
    match = Match(config)
    assert setup_answer(Stub(Capabilities(setup=JUDGED)), match, rng) == ev("komi 9")
    assert setup_answer(Stub(Capabilities(setup=CONFIGURED)), match, rng) == ev("komi 5")
    randoms = {str(setup_answer(Stub(Capabilities(setup=RANDOM)), match, rng)) for _ in range(200)}
    assert len(randoms) > 5  # uniform over 0..15, not the stub's 9 nor the configured 5
    match.apply(ev("komi 3"))
    assert choose_event(Stub(Capabilities(setup=JUDGED)), match, rng) == "colour black"
    colours = {choose_event(Stub(Capabilities(setup=CONFIGURED)), match, rng) for _ in range(50)}
    assert colours == {"colour black", "colour white"}


def test_players_declare_what_they_do():
    config = Config(game=GameConfig(side=3))
    assert RandomPlayer.capabilities.setup == RANDOM and isinstance(RandomPlayer(), Player)
    assert make_player("random", config).capabilities.setup == RANDOM
    uct = make_player("mcts:2", config).capabilities
    assert (uct.setup, uct.komi_curve, uct.analysis, uct.rule_sets) == (CONFIGURED, False, False, None)


def test_optional_parts_are_used_only_where_declared():
    config = GameConfig(side=3)
    bare = Stub(Capabilities(setup=JUDGED))
    assert own_fair_komi(bare, config) is None and own_fair_komi(None, config) is None
    match = Match(GameConfig(side=3, game_type="double"))
    turn = next_turn(bare, match, analysis=True)  # choose, not play_and_analyze (the stub's would fail)
    assert turn.analysis is None and turn.event == ev(match.game.legal_moves()[0])

    class Curve:
        komi = 4

    full = Stub(Capabilities(setup=JUDGED, komi_curve=True))
    full.komi_curve = lambda c: Curve()
    assert own_fair_komi(full, config) == 4
    assert own_fair_komi(full, GameConfig(side=3, game_type="no_komi")) is None  # no komi to choose


# getattr/hasattr on a player, a bot or an agent: how capabilities used to be found.
PROBE = re.compile(r"\b(?:getattr|hasattr)\(\s*(?:self\.)?(?:bot|player|players?\[[^]]*\]|agent|program|opponent|"
                   r"policy|b|p)\s*,\s*[\"']")


def test_no_capability_is_found_by_probing():
    probes = [f"{path.relative_to(PACKAGE)}:{n}: {line.strip()}"
              for path in sorted(PACKAGE.rglob("*.py"))
              for n, line in enumerate(path.read_text().splitlines(), 1) if PROBE.search(line)]
    assert not probes, "read the player's declared capabilities instead:\n" + "\n".join(probes)
    assert PROBE.search('curve = getattr(bot, "komi_curve", None)')  # the pattern finds the old probes
    assert PROBE.search('getattr(player, "choose_setup", None)')


def test_a_person_at_the_terminal_is_just_another_player():
    import io

    from catena_zero.bot.players import ASKED
    from catena_zero.terminal import Abandoned, TerminalPlayer, UndoableMatch

    match = UndoableMatch(GameConfig(side=3))
    person = TerminalPlayer(match, io.StringIO("moves\nkomi 99\n7\nquit\n"), io.StringIO())
    assert isinstance(person, Player) and person.capabilities.setup == ASKED
    rng = np.random.default_rng(0)
    assert choose_event(person, match, rng) == "komi 7"  # the bad komi was refused and asked again
    assert texts(match.events) == []  # the loop applies a person's event as it applies a program's
    match.apply(ev("komi 7"))
    with pytest.raises(Abandoned):
        choose_event(person, match, rng)


class Bare:
    """A player with nothing but ``choose``, whatever its capabilities declare."""

    name = "bare"

    def __init__(self, capabilities: Capabilities) -> None:
        self.capabilities = capabilities

    def choose(self, game, rng, budget=Budget()) -> str:
        return game.legal_moves()[0]


def test_declared_gives_the_typed_capability_and_refuses_one_declared_without_its_methods():
    from catena_zero.bot.players import ASKED

    stub = Stub(Capabilities(setup=JUDGED))
    assert declared(stub, SetupJudge, True) is stub and declared(stub, SetupJudge, False) is None
    komi, double = GameConfig(side=3, komi=7), GameConfig(side=3, game_type="double")
    asks = {
        SetupJudge: (Capabilities(setup=JUDGED), lambda p: next_turn(p, Match(komi))),
        SetupAsker: (Capabilities(setup=ASKED), lambda p: next_turn(p, Match(komi))),
        KomiCurver: (Capabilities(komi_curve=True), lambda p: own_fair_komi(p, komi)),
        Analyst: (Capabilities(analysis=True), lambda p: next_turn(p, Match(double), analysis=True)),
    }
    for protocol, (capabilities, ask) in asks.items():
        with pytest.raises(TypeError, match=f"bare declares {protocol.__name__} in its capabilities but lacks"):
            ask(Bare(capabilities))
    # Undeclared, the same questions never reach for the missing methods.
    assert str(next_turn(Bare(Capabilities()), Match(komi)).event) == "komi 7"  # the configured komi
    assert own_fair_komi(Bare(Capabilities()), komi) is None
    assert next_turn(Bare(Capabilities()), Match(double), analysis=True).analysis is None


# The one way a player acts in a match: its move or set-up answer is asked through next_turn.
ACTING = {"choose", "choose_setup"}
# A player may implement its own ``choose`` by another player's (``Bot.choose``: its agent's).
DELEGATING = {"choose"}


def direct_acts(source: str) -> list[tuple[int, str]]:
    """(line, code) of every use of a player's ``choose``/``choose_setup`` (called or passed on)
    outside a method of the same name, which may delegate to another player's."""
    import ast

    found: list[tuple[int, str]] = []

    def visit(node: ast.AST, inside: str) -> None:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            inside = node.name
        if isinstance(node, ast.Attribute) and node.attr in ACTING and not (
                node.attr == inside and inside in DELEGATING):
            found.append((node.lineno, ast.unparse(node)))
        for child in ast.iter_child_nodes(node):
            visit(child, inside)

    visit(ast.parse(source), "")
    return found


def test_players_act_in_a_match_only_through_next_turn():
    players_module = PACKAGE / "bot" / "players.py"
    direct = [f"{path.relative_to(PACKAGE)}:{line}: {code}"
              for path in sorted(PACKAGE.rglob("*.py")) if path != players_module
              for line, code in direct_acts(path.read_text())]
    assert not direct, "ask a player through players.next_turn:\n" + "\n".join(direct)
    # The check finds a direct call, a bound method passed on, and choose_setup anywhere; it lets
    # a player's own choose delegate to another's.
    assert [c for _, c in direct_acts("game.play(player.choose(game, rng))")] == ["player.choose"]
    assert [c for _, c in direct_acts("f = bot.choose\nx = p.choose_setup(m, r)")] == ["bot.choose", "p.choose_setup"]
    assert direct_acts("class B:\n    def choose(self, g, r):\n        return self.agent.choose(g, r)") == []
    assert direct_acts("class B:\n    def choose(self, g, r):\n        return self.a.choose_setup(g, r)") != []
    assert direct_acts("def play(self, g):\n    return self.agent.choose(g, None)") != []
