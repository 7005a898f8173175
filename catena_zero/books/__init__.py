"""The opening books that ship with catena-zero: one ``<rule set>.book`` per shipped bot's rule set,
drawn from the fixed seed and balanced by that bot (``catena-zero book``; ``catena_zero.eval.book``
finds them). Every match of a comparison over ``--book N`` starts from the same openings."""
