"""Players: anything that chooses moves for a Game (bot/players.py); search players live in search/."""

from .players import Player, PlayerKind, RandomPlayer, choose_event, make_player, player_kinds

__all__ = ["Player", "PlayerKind", "RandomPlayer", "choose_event", "make_player", "player_kinds"]
