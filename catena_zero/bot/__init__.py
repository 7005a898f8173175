"""Players and the exported bot (the bot file itself: ``artifacts/botfile.py``).

- players.py: the one ``Player`` contract with its declared ``Capabilities`` and ``next_turn``,
  the one way a player is asked for its next event in a match, ``RandomPlayer`` (players of a kind string such
  as ``mcts:K`` come from the registry, ``eval/specs.py``);
- agent.py: the batched ``Agent`` and the network's ``NetAgent``, every kind's way to act;
- bot.py: ``Bot``, an exported network that plays, picks komi/colour/swap (R7) and analyses;
- engine.py: the GTP-style text protocol around a ``Bot`` (``catena-zero engine``); analysis.py:
  the JSON-lines analysis engine (``catena-zero analysis``); review.py: a game's review by a bot;
- shipped.py: the bots that ship with the package (``catena_zero/bots/``) and which plays a rule set.
"""

from ..game.options import RuleSet
from ..search.komi import KomiEstimate
from .bot import Analysis, Bot, MoveAnalysis
from ..artifacts.botfile import BOT_FORMAT, BOT_VERSION, BotFileError, BotHeader
from .players import Budget, Capabilities, Player, RandomPlayer, Turn, UnsupportedGame, next_turn

__all__ = [
    "Analysis",
    "Capabilities",
    "Bot",
    "BotFileError",
    "BotHeader",
    "BOT_FORMAT",
    "BOT_VERSION",
    "KomiEstimate",
    "MoveAnalysis",
    "RuleSet",
    "UnsupportedGame",
    "Player",
    "RandomPlayer",
    "next_turn",
    "Budget",
    "Turn",
]
