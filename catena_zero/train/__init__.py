"""Training: replay buffer, losses, learner, checkpoints (the driver's side of a run)."""
