"""The one player protocol (bot/players.py, issue 27): what a player can do is declared in its
``Capabilities`` and honoured from there, never found by probing for methods."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

import catena_zero
from catena_zero.bot.players import (
    CONFIGURED, JUDGED, RANDOM, Capabilities, Player, RandomPlayer, UnsupportedGame, check_plays, choose_event,
    own_fair_komi, setup_answer,
)
from catena_zero.config import Config
from catena_zero.eval.specs import make_player
from catena_zero.game import GameConfig
from catena_zero.game.match import Match
from catena_zero.game.options import RuleSet
from catena_zero.web.bots import Snapshot, bot_answer

PACKAGE = Path(catena_zero.__file__).resolve().parent


class Stub:
    """A player whose every optional part exists, so only its declared capabilities can decide."""

    name = "stub"
    game_config = GameConfig(side=3)
    simulations, seconds = None, None

    def __init__(self, capabilities: Capabilities) -> None:
        self.capabilities = capabilities

    def choose(self, game, rng) -> str:
        return game.legal_moves()[0]

    def select_move(self, game, **budget) -> str:
        return game.legal_moves()[0]

    def play_and_analyze(self, game, **budget):
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
    assert setup_answer(Stub(Capabilities(setup=JUDGED)), "komi", config, None, rng) == "komi 9"
    assert setup_answer(Stub(Capabilities(setup=CONFIGURED)), "komi", config, None, rng) == "komi 5"
    randoms = {setup_answer(Stub(Capabilities(setup=RANDOM)), "komi", config, None, rng) for _ in range(200)}
    assert len(randoms) > 5  # uniform over 0..15, not the stub's 9 nor the configured 5
    match = Match(config)
    match.apply("komi 3")
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
    assert bot_answer(bare, Snapshot.of(match)).analysis is None  # select_move, not play_and_analyze

    class Curve:
        komi = 4

    full = Stub(Capabilities(setup=JUDGED, komi_curve=True))
    full.komi_curve = lambda c: Curve()
    assert own_fair_komi(full, config) == 4
    assert own_fair_komi(full, GameConfig(side=3, game_type="no_komi")) is None  # no komi to choose


# getattr/hasattr on a player, a bot or an agent: how capabilities were found before issue 27.
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
    assert match.events == []  # the loop applies a person's event as it applies a program's
    match.apply("komi 7")
    with pytest.raises(Abandoned):
        choose_event(person, match, rng)
