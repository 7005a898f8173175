"""Players: the ``Player`` protocol, ``RandomPlayer``, and ``make_player``, the one factory that
builds a player from a kind string such as ``"random"`` (the CLI's ``--opponent``).

A player chooses game moves (``choose``). Before play, a match (R7) asks for set-up choices
(komi, colour); a player may answer them with an optional ``choose_setup`` method, otherwise
``default_setup`` answers for it. Randomness is always the caller's ``np.random.Generator``.

Adding a kind: write a builder ``(arg, config) -> Player`` (``arg`` is the text after ':' in
``kind:arg``, or None) and add a ``PlayerKind`` to ``PLAYER_KINDS`` below; the CLI's
``--opponent`` lists and accepts it from then on. Builders import heavy modules (search,
torch) inside the function, so that the CLI starts fast and ``bot`` depends on nothing heavy.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable, Optional, Protocol, runtime_checkable

import numpy as np

from ..errors import UserError
from ..game.options import komi_range

if TYPE_CHECKING:
    from ..config import Config
    from ..game import Game
    from ..game.match import Match


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


# ------------------------------------------------------------------------------ the factory

PlayerBuilder = Callable[[Optional[str], "Config"], Player]


@dataclass(frozen=True)
class PlayerKind:
    """How to build one kind of player: ``build(arg, config)`` gets the text after ':' (or None)."""

    build: PlayerBuilder
    usage: str  # how it is written on the command line, e.g. "random" or "mcts:K"
    help: str  # one line for --help


def _build_random(arg: str | None, config: "Config") -> Player:
    if arg is not None:
        raise UserError(f"player kind 'random' takes no argument, got 'random:{arg}'")
    return RandomPlayer()


def _build_mcts(arg: str | None, config: "Config") -> Player:
    if arg is None:
        raise UserError("player kind 'mcts' needs a simulation count: write mcts:K, as in mcts:200")
    from .search_player import build_mcts_player  # the search stack is imported only when asked for

    return build_mcts_player(arg, config)


def _build_net(arg: str | None, config: "Config") -> Player:
    from .search_player import build_net_player  # imports torch: only when asked for

    return build_net_player(arg, config)


PLAYER_KINDS: dict[str, PlayerKind] = {
    "random": PlayerKind(_build_random, "random", "uniformly random legal moves"),
    "mcts": PlayerKind(_build_mcts, "mcts:K", "classic MCTS, K simulations with random rollouts"),
    "net": PlayerKind(_build_net, "net:FILE", "a trained network: a checkpoint or an exported bot file"),
}


def player_kinds() -> list[PlayerKind]:
    return list(PLAYER_KINDS.values())


def make_player(spec: str, config: "Config") -> Player:
    """Build a player from ``kind`` or ``kind:arg`` (e.g. "random", "mcts:64"); ValueError if unknown."""
    kind, sep, arg = spec.strip().partition(":")
    entry = PLAYER_KINDS.get(kind)
    if entry is None:
        known = ", ".join(k.usage for k in PLAYER_KINDS.values())
        raise UserError(f"unknown player kind {spec!r} (known: {known})")
    return entry.build(arg if sep else None, config)
