"""The single-game ``Player`` protocol, the R7 set-up choices of a match, and ``RandomPlayer``.

A player chooses game moves (``choose``). Before play, a match (R7) asks for set-up choices
(komi, colour); a player may answer them with an optional ``choose_setup`` method, otherwise
``default_setup`` answers for it. A player that judges them (a ``SetupPolicy``: komi, colour,
swap) turns its answers into events through ``setup_event``, the one place that mapping lives
(the bot, the page and the engine use it). Randomness is always the caller's ``np.random.Generator``.

Players of a kind string (``play --opponent random``, ``mcts:K``, ``net:FILE``) come from the one
registry of player kinds, ``eval/specs.py`` (``make_player``): a batched agent at batch size one
(``eval.agents.AgentPlayer``), or for a bot file its ``Bot`` (``bot.py``, which is a Player too).
``RandomPlayer`` is the reference engine's random mover (``catena-zero random-game``, tests): a
``Game``-level helper without a ``VecEnv``, not a registry kind.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional, Protocol, runtime_checkable

import numpy as np

from ..game.options import komi_range

if TYPE_CHECKING:
    from ..game import Game
    from ..game.match import Match
    from ..game.options import GameConfig


@runtime_checkable
class Player(Protocol):
    def choose(self, game: "Game", rng: np.random.Generator) -> str:
        """A legal move for ``game.to_move`` in R10 notation (a cell like "D5", or "button")."""
        ...


class RandomPlayer:
    """Uniform over the legal moves (R3, R4, R8), and uniform over the set-up choices (R7)."""

    def choose(self, game: "Game", rng: np.random.Generator) -> str:
        moves = game.legal_moves()
        if not moves:
            raise ValueError("the game is over: there is no legal move to choose")
        return moves[int(rng.integers(len(moves)))]

    def choose_setup(self, match: "Match", rng: np.random.Generator) -> str:
        return random_setup(match, rng)


def setup_choices(match: "Match") -> list[str]:
    """The set-up events open to the player to act (R7): komi choices, or colour choices."""
    config = match.config
    if match.phase == "komi":
        lo, hi = komi_range(config.scoring)
        return [f"komi {k}" for k in range(lo, hi + 1)]
    if match.phase == "colour":
        # R7: under no_komi the second player keeps White or swaps to take over Black's stone
        # ("colour black" is the same choice as "swap").
        return ["colour white", "swap"] if config.game_type == "no_komi" else ["colour black", "colour white"]
    raise ValueError(f"no set-up choice in phase {match.phase!r}")


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


def random_setup(match: "Match", rng: np.random.Generator) -> str:
    """A uniformly random set-up event (R7) for the player to act."""
    choices = setup_choices(match)
    return choices[int(rng.integers(len(choices)))]


def default_setup(match: "Match", rng: np.random.Generator) -> str:
    """The set-up choice (R7) for a player without ``choose_setup``: the configured komi
    (``match.config.komi``, predictable for a person setting up a game), a random colour."""
    if match.phase == "komi":
        return f"komi {match.config.komi}"
    return random_setup(match, rng)


def choose_event(player: Player, match: "Match", rng: np.random.Generator) -> str:
    """The next event of ``match`` chosen by ``player``: a move in play, a set-up choice before.

    A player may answer set-up choices with ``choose_setup(match, rng)`` (a search player could
    pick the komi its value head calls fair); otherwise ``default_setup`` answers for it.
    """
    if match.phase == "play":
        return player.choose(match.game, rng)
    choose_setup = getattr(player, "choose_setup", None)
    return choose_setup(match, rng) if choose_setup is not None else default_setup(match, rng)
