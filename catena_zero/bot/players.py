"""The one player protocol (``Player``) with its declared ``Capabilities``, the R7 set-up
choices of a match, and ``RandomPlayer``.

A player chooses game moves (``choose(game, rng)``) and says what else it can do in
``capabilities``, a frozen record read instead of probing for methods (OpenSpiel's ``Bot`` and
AlphaZero.jl's ``AbstractPlayer`` likewise give every player one interface; a person at the
terminal is a player too, ``commands/play.py``):

- ``setup``: how it makes the R7 set-up choices (komi, colour, swap). ``JUDGED``: by its own
  heads, through ``choose_komi``, ``choose_colour`` and ``choose_swap`` (a ``SetupPolicy``: an
  exported bot, a bot file's network agent); ``CONFIGURED``: the configured komi, a random
  colour (predictable for a person setting up a game); ``RANDOM``: uniformly at random;
  ``ASKED``: it is asked through ``choose_setup(match, rng)`` (a person types the choice).
  ``setup_answer`` is the one place that answers by the policy.
- ``rule_sets``: the rule sets it plays (None: any); ``check_plays`` refuses others in one line.
- ``komi_curve``: it estimates a fair komi, ``komi_curve(config) -> KomiEstimate`` (``own_fair_komi``
  reads the komi off it).
- ``analysis``: it analyses, ``play_and_analyze(game, **budget)``, ``analyze(game, **budget)``
  and ``ownership(game)`` (``bot.Bot``).

``choose_event`` is the one way a player acts in a match: ``choose`` in play, ``setup_answer``
before it, which is the one function for every set-up answer; the judged answers become events
in ``setup_event``, the one place that mapping lives (the bot, the page and the engine use it).
Randomness is always the caller's ``np.random.Generator``.

Players of a kind string (``play --opponent random``, ``mcts:K``, ``net:FILE``) come from the one
registry of player kinds, ``eval/specs.py`` (``make_player``): a batched agent at batch size one
(``agents.AgentPlayer``), a bot file's as its ``Bot``, built on that same agent, so it plays the
same way in every command. ``RandomPlayer`` is the reference engine's random mover
(``catena-zero random-game``, tests): a ``Game``-level helper without a ``VecEnv``, not a
registry kind.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Optional, Protocol, runtime_checkable

import numpy as np

from ..errors import UserError
from ..game.options import GameConfig, RuleSet, komi_range

if TYPE_CHECKING:
    from ..game import Game
    from ..game.match import Match

# How a player makes the R7 set-up choices (``Capabilities.setup``).
JUDGED = "judged"  # by its own heads: choose_komi, choose_colour, choose_swap (SetupPolicy)
CONFIGURED = "configured"  # the configured komi, a random colour
RANDOM = "random"  # uniformly at random
ASKED = "asked"  # it answers itself: choose_setup(match, rng) (a person at the terminal)
SETUP_POLICIES = (JUDGED, CONFIGURED, RANDOM, ASKED)


class UnsupportedGame(UserError):
    """A game whose side, game type or scoring the player was not trained for (one-line message)."""


@dataclass(frozen=True)
class Capabilities:
    """What a player can do besides choosing moves; callers read this, never probe for methods."""

    setup: str = CONFIGURED  # how it makes the R7 set-up choices: one of SETUP_POLICIES
    rule_sets: Optional[tuple[RuleSet, ...]] = None  # the rule sets it plays; None: any game
    komi_curve: bool = False  # komi_curve(config) -> KomiEstimate: its own fair komi (game type komi)
    analysis: bool = False  # play_and_analyze, analyze, ownership (bot.Bot's analysis API)

    def __post_init__(self) -> None:
        # A capability record is written in code, never typed: a bad one is a programming error.
        if self.setup not in SETUP_POLICIES:
            raise ValueError(f"setup must be one of {SETUP_POLICIES}, got {self.setup!r}")
        if self.rule_sets is not None:
            object.__setattr__(self, "rule_sets", tuple(self.rule_sets))

    def plays(self, config: GameConfig) -> bool:
        """Whether it plays a game under ``config`` (its side, game type and scoring; any komi)."""
        return self.rule_sets is None or any(r.covers(config) for r in self.rule_sets)


@runtime_checkable
class Player(Protocol):
    """One player of single games; see the module docstring for the optional parts that
    ``capabilities`` declares."""

    capabilities: Capabilities

    def choose(self, game: "Game", rng: np.random.Generator) -> str:
        """A legal move for ``game.to_move`` in R10 notation (a cell like "D5", or "button")."""
        ...


def own_fair_komi(player: Optional[Player], config: GameConfig) -> Optional[int]:
    """The fair komi of ``config``'s rule set by the player's own estimate (``catena-zero komi
    --bot`` computes the same), offered where the komi is chosen (R7); None for no player, for a
    game type without komi, and for a player that declares no ``komi_curve`` (without a network
    its guess would mislead)."""
    if player is None or not player.capabilities.komi_curve or config.game_type != "komi":
        return None
    curve = player.komi_curve(config)  # type: ignore[attr-defined]  # declared by capabilities.komi_curve
    return None if curve is None else int(curve.komi)


def check_plays(player: Player, config: GameConfig, who: str = "this player") -> RuleSet:
    """``config``'s rule set if ``player`` plays it (``Capabilities.rule_sets``), else
    ``UnsupportedGame`` naming what it was trained for, one line."""
    if not player.capabilities.plays(config):
        trained = ", ".join(str(r) for r in player.capabilities.rule_sets or ())
        raise UnsupportedGame(f"{who} was trained for {trained}; it does not play {RuleSet.of(config)} "
                              f"(komi aside, side, game type and scoring must match)")
    return RuleSet.of(config)


class RandomPlayer:
    """Uniform over the legal moves (R3, R4, R8), and uniform over the set-up choices (R7)."""

    name = "random"
    capabilities = Capabilities(setup=RANDOM)

    def choose(self, game: "Game", rng: np.random.Generator) -> str:
        moves = game.legal_moves()
        if not moves:
            raise ValueError("the game is over: there is no legal move to choose")
        return moves[int(rng.integers(len(moves)))]


def setup_choices(match: "Match") -> list[str]:
    """The set-up events open to the player to act (R7): komi choices, or colour choices."""
    return _choices(match.phase, match.config)


def _choices(phase: str, config: GameConfig) -> list[str]:
    if phase == "komi":
        lo, hi = komi_range(config.scoring)
        return [f"komi {k}" for k in range(lo, hi + 1)]
    if phase == "colour":
        # R7: under no_komi the second player keeps White or swaps to take over Black's stone
        # ("colour black" is the same choice as "swap").
        return ["colour white", "swap"] if config.game_type == "no_komi" else ["colour black", "colour white"]
    raise ValueError(f"no set-up choice in phase {phase!r}")


class SetupPolicy(Protocol):
    """A player that makes the R7 set-up choices by judgement (``Bot``: by its value and score
    heads): the komi to offer, the colour to take at a komi, whether to swap under no_komi."""

    def choose_komi(self, config: "GameConfig") -> int: ...

    def choose_colour(self, config: "GameConfig", komi: int) -> str: ...

    def choose_swap(self, game: "Game") -> bool: ...


def setup_event(policy: SetupPolicy, phase: str, config: "GameConfig", game: "Optional[Game]") -> str:
    """The one mapping of a set-up policy's answers to an R10 event (R7), for the match's
    ``phase``: "komi K" in phase komi; in phase colour "colour black|white", or under no_komi
    "swap" / "colour white" (keep White) after Black's first stone (``game``). What the policy
    answers is checked for its type here; the match then checks the event against the rules."""
    if phase == "komi":
        komi = policy.choose_komi(config)
        if isinstance(komi, bool) or not isinstance(komi, (int, np.integer)):
            raise TypeError(f"the komi choice must be a whole number, got {komi!r}")
        return f"komi {int(komi)}"
    if phase == "colour":
        if config.game_type == "no_komi":
            return "swap" if policy.choose_swap(game) else "colour white"
        colour = policy.choose_colour(config, game.config.komi if game is not None else config.komi)
        if colour not in ("black", "white"):
            raise TypeError(f"the colour choice must be 'black' or 'white', got {colour!r}")
        return f"colour {colour}"
    raise ValueError(f"no set-up choice in phase {phase!r}")


def setup_answer(player: Player, phase: str, config: GameConfig, game: "Optional[Game]",
                 rng: np.random.Generator, match: "Optional[Match]" = None) -> str:
    """The one function for a player's set-up answer (R7) in ``phase`` of a match under ``config``
    (``game``: the match's game, None before the komi), by its declared ``Capabilities.setup``.
    ``match`` is needed only by an ``ASKED`` player (a person), who is shown the match."""
    policy = player.capabilities.setup
    if policy == JUDGED:
        return setup_event(player, phase, config, game)  # type: ignore[arg-type]  # JUDGED: a SetupPolicy
    if policy == ASKED:
        if match is None:
            raise ValueError("a player who is asked for the set-up needs the match")
        return player.choose_setup(match, rng)  # type: ignore[attr-defined]  # ASKED declares it
    if policy == CONFIGURED and phase == "komi":
        return f"komi {config.komi}"
    choices = _choices(phase, config)
    return choices[int(rng.integers(len(choices)))]


def choose_event(player: Player, match: "Match", rng: np.random.Generator) -> str:
    """The next event of ``match`` chosen by ``player``: a move in play (``choose``), a set-up
    choice before it (``setup_answer``, by the player's declared set-up policy)."""
    if match.phase == "play":
        return player.choose(match.game, rng)
    return setup_answer(player, match.phase, match.config, match.game, rng, match)
