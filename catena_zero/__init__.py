"""catena-zero: AlphaZero-style self-play training for the board game Catena."""

__version__ = "0.1.0"
