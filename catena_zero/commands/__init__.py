"""The commands of ``catena-zero``, one module each (``cli.py`` only dispatches).

Each module has ``HELP`` (one line for ``catena-zero --help``), ``configure(parser)`` (its flags)
and ``run(args) -> int`` (its exit status). Heavy imports (torch, ray) happen inside ``run``, so
``catena-zero --help`` and the light commands start fast. A user error raises ``CliError``,
another ``errors.UserError`` or an ``OSError``, which ``cli.main`` prints as one line; any
other exception is reported as a bug (``cli.py``).
"""
