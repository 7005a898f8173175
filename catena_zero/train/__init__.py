"""Training: the driver's side of a run.

``driver`` (the loop of a run, resume, bounds, the run folder's lock), ``stages`` (a staged run's
bookkeeping), ``replay`` (``ReplayBuffer``, ``Batch``), ``losses`` (``Losses``), ``learner``
(``Learner``, with the weight average), ``checkpointer`` (checkpoints and the replay file),
``inloop`` (the in-loop matches' result record and the type of the evaluation the driver is
handed), ``inloop_schedule`` (when they run and where their results go), ``runlog`` (TensorBoard),
``cputime`` (where the run's CPU time goes), ``progress`` (the progress line)."""
