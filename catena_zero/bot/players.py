"""The one player contract: ``Player``, its declared ``Capabilities``, and ``next_turn``, the one
function by which a player is asked for its next event in a match.

A player chooses moves (``choose(game, rng, budget)``) and declares what else it can do in
``capabilities``, a frozen record read instead of probing for methods (OpenSpiel's ``Bot`` and
AlphaZero.jl's ``AbstractPlayer`` likewise give every player one interface). The players: an
``Agent`` at batch size one (``agent.py``; every kind of the registry, ``eval/specs.py``), an
exported ``Bot``, ``RandomPlayer``, and a person at the terminal (``terminal/``).

``next_turn`` (the terminal, the page, the engine and the arena's tests all ask through it) returns
a ``Turn``: in play the move (and, where asked of an ``Analyst``, the analysis of the same search);
before play the R7 set-up answer by ``Capabilities.setup``: ``JUDGED`` by a ``SetupJudge``'s heads,
``CONFIGURED`` the configured komi and a random colour (predictable for a person setting up a game),
``RANDOM``, or ``ASKED`` of a ``SetupAsker`` (a person types it). ``declared`` reaches a declared
capability as its typed Protocol, so no caller needs an untyped call.

Randomness is the caller's ``np.random.Generator``; ``rng=None`` asks for the position's own (a
bot's ``position_rng``: the same position, the same answer, as the page and the engine want).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Optional, Protocol, TypeVar, runtime_checkable

import numpy as np

from ..errors import UserError
from ..game.match import Match, Phase
from ..game.notation import Event, Word
from ..game.options import GameConfig, RuleSet, komi_range

if TYPE_CHECKING:
    from ..game import Game
    from ..search.komi import KomiEstimate

T = TypeVar("T")


class Setup(Word):
    """How a player makes the R7 set-up choices (``Capabilities.setup``; module docstring)."""

    JUDGED = "judged"
    CONFIGURED = "configured"
    RANDOM = "random"
    ASKED = "asked"


JUDGED, CONFIGURED, RANDOM, ASKED = Setup.JUDGED, Setup.CONFIGURED, Setup.RANDOM, Setup.ASKED
SETUP_POLICIES = tuple(Setup)


class UnsupportedGame(UserError):
    """A game whose side, game type or scoring the player was not trained for (one-line message)."""


@dataclass(frozen=True)
class Budget:
    """One move's search budget: a simulation count or a time limit; neither: the player's own."""

    simulations: Optional[int] = None
    seconds: Optional[float] = None


NO_BUDGET = Budget()


@dataclass(frozen=True)
class Capabilities:
    """What a player can do besides choosing moves; callers read this, never probe for methods."""

    setup: Setup = CONFIGURED  # how it makes the R7 set-up choices
    rule_sets: Optional[tuple[RuleSet, ...]] = None  # the rule sets it plays; None: any game
    komi_curve: bool = False  # a KomiCurver: its own fair komi (game types with komi)
    analysis: bool = False  # an Analyst: the analysis of the search that chose its move

    def __post_init__(self) -> None:
        # A capability record is written in code, never typed: a bad one is a programming error.
        if self.setup not in SETUP_POLICIES:
            raise ValueError(f"setup must be one of {tuple(map(str, SETUP_POLICIES))}, got {self.setup!r}")
        object.__setattr__(self, "setup", Setup(self.setup))
        if self.rule_sets is not None:
            object.__setattr__(self, "rule_sets", tuple(self.rule_sets))

    def plays(self, config: GameConfig) -> bool:
        """Whether it plays a game under ``config`` (its side, game type and scoring; any komi):
        the one spelling of the question (``check_plays`` refuses in one line)."""
        if not isinstance(config, GameConfig):  # else a player of any game would say yes to anything
            raise ValueError(f"expected a GameConfig, got {type(config).__name__}")
        return self.rule_sets is None or any(r.covers(config) for r in self.rule_sets)


@runtime_checkable
class Player(Protocol):
    """One player of single games; see the module docstring for the optional parts that
    ``capabilities`` declares."""

    capabilities: Capabilities

    @property
    def name(self) -> str: ...

    def choose(self, game: "Game", rng: Optional[np.random.Generator], budget: Budget = NO_BUDGET) -> str:
        """A legal move for ``game.to_move`` in R10 notation (a cell like "D5", or "button")."""
        ...


@runtime_checkable
class SetupJudge(Protocol):
    """``Setup.JUDGED``: the R7 set-up by judgement (a bot: by its value and score heads)."""

    def choose_komi(self, config: GameConfig) -> int: ...

    def choose_colour(self, config: GameConfig, komi: int) -> str: ...

    def choose_swap(self, game: "Game") -> bool: ...


@runtime_checkable
class SetupAsker(Protocol):
    """``Setup.ASKED``: the player gives its set-up event itself (a person types it)."""

    def choose_setup(self, match: Match, rng: np.random.Generator) -> Event: ...


@runtime_checkable
class KomiCurver(Protocol):
    """``Capabilities.komi_curve``: the fair komi by its own estimate (None without komi)."""

    def komi_curve(self, config: GameConfig) -> "Optional[KomiEstimate]": ...


@runtime_checkable
class Analyst(Protocol):
    """``Capabilities.analysis``: a move and the analysis of the search that chose it (None when
    nothing was searched: one legal move, the no_komi first stone)."""

    def play_and_analyze(self, game: "Game", budget: Budget = NO_BUDGET) -> tuple[str, Any]: ...


def declared(player: Player, capability: type[T], declared_by: bool) -> Optional[T]:
    """``player`` as the typed ``capability`` where its ``Capabilities`` declare it
    (``declared_by``), None where they do not; TypeError for a player that declares it without
    the methods (a programming error)."""
    if not declared_by:
        return None
    if not isinstance(player, capability):
        raise TypeError(f"{player.name} declares {capability.__name__} in its capabilities but lacks its methods")
    return player


def check_plays(player: Player, config: GameConfig, who: Optional[str] = None) -> RuleSet:
    """``config``'s rule set if ``player`` plays it (``Capabilities.plays``), else ``UnsupportedGame`` naming what it
    was trained for, one line (``who``: how to name it, by default its name)."""
    if not player.capabilities.plays(config):  # ValueError for what is not a GameConfig
        trained = ", ".join(str(r) for r in player.capabilities.rule_sets or ())
        raise UnsupportedGame(f"{who or player.name} was trained for {trained}; it does not play {RuleSet.of(config)} "
                              f"(komi aside, side, game type and scoring must match)")
    return RuleSet.of(config)


def own_fair_komi(player: Optional[Player], config: GameConfig) -> Optional[int]:
    """The fair komi of ``config``'s rule set by the player's own estimate (``catena-zero komi
    --bot`` computes the same), offered where the komi is chosen (R7); None for no player, for a
    game type without komi, and for a player that declares no ``komi_curve`` (without a network
    its guess would mislead)."""
    if player is None or not config.game_type_rule.has_komi:
        return None
    curver = declared(player, KomiCurver, player.capabilities.komi_curve)
    curve = None if curver is None else curver.komi_curve(config)
    return None if curve is None else int(curve.komi)


class RandomPlayer:
    """Uniform over the legal moves (R3, R4, R8), and uniform over the set-up choices (R7)."""

    name = "random"
    capabilities = Capabilities(setup=RANDOM)

    def choose(self, game: "Game", rng: Optional[np.random.Generator], budget: Budget = NO_BUDGET) -> str:
        moves = game.legal_moves()
        if not moves:
            raise ValueError("the game is over: there is no legal move to choose")
        rng = rng if rng is not None else np.random.default_rng([game.move_number])
        return moves[int(rng.integers(len(moves)))]


def setup_choices(match: Match) -> list[Event]:
    """The set-up events open to the player to act (R7): komi choices, or colour choices."""
    config = match.config
    if match.phase is Phase.KOMI:
        lo, hi = komi_range(config.scoring)
        return [Event.komi_choice(k) for k in range(lo, hi + 1)]
    if match.phase is Phase.COLOUR:
        # R7: under no_komi the second player keeps White or swaps to take over Black's stone
        # ("colour black" is the same choice as "swap").
        if config.game_type_rule.has_swap:
            return [Event.colour_choice("white"), Event.swap()]
        return [Event.colour_choice("black"), Event.colour_choice("white")]
    raise ValueError(f"no set-up choice in phase {match.phase}")


def setup_event(judge: SetupJudge, match: Match) -> Event:
    """The one mapping of a judge's answers to an event (R7), for the match's phase: a komi
    choice in phase komi; in phase colour a colour choice, or, where the game type has a swap,
    "swap" / "colour white" (keep White) after Black's first stone. What the judge answers is
    checked for its type here; the match then checks the event against the rules."""
    config, game = match.config, match.game
    if match.phase is Phase.KOMI:
        komi = judge.choose_komi(config)
        if isinstance(komi, bool) or not isinstance(komi, (int, np.integer)):
            raise TypeError(f"the komi choice must be a whole number, got {komi!r}")
        return Event.komi_choice(int(komi))
    if match.phase is Phase.COLOUR and game is not None:
        if config.game_type_rule.has_swap:
            return Event.swap() if judge.choose_swap(game) else Event.colour_choice("white")
        colour = judge.choose_colour(config, game.config.komi)
        if colour not in ("black", "white"):
            raise TypeError(f"the colour choice must be 'black' or 'white', got {colour!r}")
        return Event.colour_choice(colour)
    raise ValueError(f"no set-up choice in phase {match.phase}")


def setup_answer(player: Player, match: Match, rng: np.random.Generator) -> Event:
    """The player's set-up answer (R7) in ``match``, by its declared ``Capabilities.setup``."""
    policy = player.capabilities.setup
    judge = declared(player, SetupJudge, policy is JUDGED)
    if judge is not None:
        return setup_event(judge, match)
    asker = declared(player, SetupAsker, policy is ASKED)
    if asker is not None:
        return asker.choose_setup(match, rng)
    if policy is CONFIGURED and match.phase is Phase.KOMI:
        return Event.komi_choice(match.config.komi)
    choices = setup_choices(match)
    return choices[int(rng.integers(len(choices)))]


@dataclass(frozen=True)
class Turn:
    """A player's next event in a match and, for a move of a player asked for it that analyses,
    the analysis of the search that chose it (None otherwise)."""

    event: Event
    analysis: Any = None


def next_turn(player: Player, match: Match, rng: Optional[np.random.Generator] = None,
              budget: Budget = NO_BUDGET, *, analysis: bool = False) -> Turn:
    """``player``'s next event in ``match``: a move in play (``choose``, or ``play_and_analyze``
    with ``analysis`` where the player declares it), a set-up answer before (``setup_answer``).
    ``rng`` None: the position's own generator (module docstring); ``budget``: this move's."""
    game = match.game
    if match.phase is Phase.PLAY and game is not None:
        analyst = declared(player, Analyst, analysis and player.capabilities.analysis)
        if analyst is not None:
            move, info = analyst.play_and_analyze(game, budget)
            return Turn(Event.move(move), info)
        return Turn(Event.move(player.choose(game, rng, budget)))
    if rng is None:  # a random set-up answer drawn from the position: the same question, the same answer
        rng = np.random.default_rng([0 if game is None else game.move_number])
    return Turn(setup_answer(player, match, rng))
