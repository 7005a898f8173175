"""The commands of ``catena-zero``, one module each (``cli.py`` only dispatches): train, evaluate,
ladder, ablate, curves, export, ship, play, serve, engine, analysis, analyze, show, book, komi,
komi_check, optimal_moves, random_game; ``common`` and ``bot_options`` hold the flags they share.

Each module has ``HELP`` (one line for ``catena-zero --help``), ``configure(parser)`` (its flags)
and ``run(args) -> int`` (its exit status). Heavy imports (torch, ray) happen inside ``run``, so
``catena-zero --help`` and the light commands start fast. A user error raises ``CliError``,
another ``errors.UserError`` or an ``OSError``, which ``cli.main`` prints as one line; any
other exception is reported as a bug (``cli.py``).
"""
