"""Self-play: batched games of the network against itself (``play.py``), spread over Ray actors
(``workers.py``, the only module that imports Ray)."""
