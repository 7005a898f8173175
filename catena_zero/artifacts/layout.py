"""A run folder's layout: where ``catena-zero train`` writes what, named in one place.

    checkpoints/<run>/            the run folder (``run.root`` / the run's name)
        config.yaml               the run's full config (CONFIG_FILE), written at its start
        ckpt/step-00001234.pt     one checkpoint per kept step (CHECKPOINT_DIR, ``checkpoint_name``)
        replay.npz                the replay buffer's window, with each checkpoint (REPLAY_FILE)
        tensorboard/              the run's TensorBoard logs (TENSORBOARD_DIR); ``ladder/`` the ladder's
        .lock                     held by the process training the run (RUN_LOCK_FILE)
        recipe.bot, recipe-result.json   a recipe's end: its bot and summary (RECIPE_BOT, RECIPE_RESULT)

Plain names and ``os`` only (no torch, no numpy): the commands check their arguments with it
before anything heavy is imported.
"""

from __future__ import annotations

import os
import re

CONFIG_FILE = "config.yaml"
CHECKPOINT_DIR = "ckpt"
REPLAY_FILE = "replay.npz"
RUN_LOCK_FILE = ".lock"  # held by the one process training the run (fileio.lock_folder)
RECIPE_BOT = "recipe.bot"  # the bot a recipe's end writes into its run folder (eval/recipe.py)
RECIPE_RESULT = "recipe-result.json"  # that end's summary, which ship RUN NAME takes
TENSORBOARD_DIR = "tensorboard"
CHECKPOINT_FILE = re.compile(r"^step-(\d{8,})\.pt$")  # group 1: the step


def checkpoint_name(step: int) -> str:
    """The file name of the checkpoint of ``step`` in ``CHECKPOINT_DIR``."""
    return f"step-{step:08d}.pt"


def is_run_folder(folder: str) -> bool:
    """Whether ``folder`` is a training run's folder (it holds config.yaml and checkpoints or a
    replay buffer, or checkpoints alone)."""
    config = os.path.isfile(os.path.join(folder, CONFIG_FILE))
    checkpoints = os.path.join(folder, CHECKPOINT_DIR)
    if os.path.isdir(checkpoints):
        try:
            return config or any(CHECKPOINT_FILE.match(name) for name in os.listdir(checkpoints))
        except OSError:
            return config
    return config and os.path.isfile(os.path.join(folder, REPLAY_FILE))
