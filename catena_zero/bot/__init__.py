"""Players: anything that chooses moves for a Game (bot/players.py), search players (bot/search_player.py)."""

from .players import Player, PlayerKind, RandomPlayer, choose_event, make_player, player_kinds

__all__ = ["Player", "PlayerKind", "RandomPlayer", "choose_event", "make_player", "player_kinds"]
