"""Self-play: batched games of the network against itself (``play``: ``SelfPlayer``), recorded
as ``Trajectory`` records (``types``), spread over Ray actors (``workers``, the only module that
imports Ray); ``netns`` gives a local Ray a private network namespace, and ``reaper`` ends a local
Ray's processes when the driver ends, however it ends."""
