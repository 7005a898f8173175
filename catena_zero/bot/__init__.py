"""Players and the exported bot.

- players.py: the ``Player`` protocol, ``RandomPlayer``, the ``make_player`` factory;
- search_player.py: ``SearchPlayer`` (batched MCTS for one game);
- export.py: the bot file (safetensors weights + metadata header), ``export_bot`` / ``read_bot``;
- bot.py: ``Bot``, an exported network that plays, picks komi/colour/swap (R7) and analyses;
- engine.py: the GTP-style text protocol around a ``Bot`` (``catena-zero engine``).
"""

from ..game.options import RuleSet
from ..search.komi import KomiEstimate
from .bot import Analysis, Bot, MoveAnalysis, UnsupportedGame
from .export import BOT_FORMAT, BOT_VERSION, BotFileError, BotHeader
from .players import Player, PlayerKind, RandomPlayer, choose_event, make_player, player_kinds

__all__ = [
    "Analysis",
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
    "PlayerKind",
    "RandomPlayer",
    "choose_event",
    "make_player",
    "player_kinds",
]
