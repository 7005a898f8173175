"""catena-zero: AlphaZero-style self-play for Catena."""
