"""The error family users can fix, told apart from bugs.

``UserError`` and its subclasses (a bad config, record, move, flag, file or checkpoint) are
problems the person at the keyboard can fix: ``cli.main`` reports them as one line
``catena-zero: error: ...`` with exit status 2. Every other exception is a bug in catena-zero:
``cli.main`` says so in one line with where to report it, and prints the traceback with
``--debug`` or ``CATENA_ZERO_DEBUG=1``.

``UserError`` derives from ``ValueError`` so that library callers that catch ``ValueError``
keep working; the CLI catches ``UserError`` (and ``OSError``: a missing or unwritable file),
never a bare ``ValueError``.
"""

from __future__ import annotations


class UserError(ValueError):
    """A problem the user can fix (bad input of any kind); its message is one line naming it."""
