"""Quoting user input in one-line error messages without echoing megabytes of it.

A message names the problem and shows the offending text, but a record with a 10 MB line
or a config value full of NUL bytes must not turn into a 20 MB error: ``quote`` shows at most
``limit`` characters of the ``repr`` and says how long the whole was.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Any

QUOTE_LIMIT = 40  # characters of repr shown; every valid event, key or value is shorter


def quote(value: Any, limit: int = QUOTE_LIMIT) -> str:
    """``repr(value)``, cut to about ``limit`` characters with the full length noted:
    ``'DDDDDDDD...' (10,485,760 characters)``."""
    if not isinstance(value, str):
        text = repr(value)
        return text if len(text) <= limit else text[:limit] + "..."
    if len(value) <= limit and len(repr(value)) <= limit + 2:
        return repr(value)
    keep = min(len(value), limit)
    while keep > 1 and len(repr(value[:keep])) > limit + 2:  # escapes such as \x00 take 4 characters
        keep -= 1
    shown = repr(value[:keep])
    return f"{shown[:-1]}...{shown[-1]} ({len(value):,} characters)"


_ANSI = re.compile(r"\x1b(\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(\x07|\x1b\\)|[@-Z\\-_])")  # CSI, OSC, 2-byte escapes


def one_line(text: Any) -> str:
    """``text`` as one clean line for an error message: terminal escape sequences (torch's coloured
    messages) removed, every other control character a space, runs of whitespace one space."""
    text = _ANSI.sub("", str(text))
    text = "".join(" " if unicodedata.category(ch)[0] in "CZ" and ch != " " else ch for ch in text)
    return " ".join(text.split())
