"""The trained bots that ship with catena-zero: ``*.bot`` files (``catena-zero export``) and their
index, README.md (``catena-zero ship`` writes both; ``catena_zero.bot.shipped`` finds them)."""
