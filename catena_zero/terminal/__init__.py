"""The game in a terminal (``catena-zero play``): ``session`` runs one match (``play_in_terminal``),
``person`` is the person typing (``TerminalPlayer``, ``TerminalReader``, undo), ``texts`` is what
the terminal says (help, the rules in brief, each phase's introduction and set-up advice).

The command (``commands/play.py``) parses its arguments, builds the players and calls
``play_in_terminal``; nothing here reads arguments or files."""

from .person import Abandoned, TerminalPlayer, TerminalReader, UndoableMatch, UndoAsked
from .session import PlayResult, play_in_terminal

__all__ = ["Abandoned", "PlayResult", "TerminalPlayer", "TerminalReader", "UndoAsked", "UndoableMatch",
           "play_in_terminal"]
