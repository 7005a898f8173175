"""What training leaves behind and everything else reads: the trained-network artifacts.

- layout.py: a run folder's layout (``config.yaml``, ``ckpt/step-*.pt``, ``replay.npz``,
  ``tensorboard/``), named once; it imports neither torch nor numpy, so the commands' argument
  checks can use it without the weight of either;
- checkpoint.py: the checkpoint file (weights, optimiser, counters, the run's config, the input
  layout's version), checked on every load;
- botfile.py: the bot file (safetensors weights plus a checked header: network, default search,
  default game, the rule sets it was trained for), ``export_bot`` / ``read_bot``;
- network.py: ``load_network(path)``, the one loader of a trained network, whichever file holds
  it: a checkpoint, a run folder (its newest checkpoint) or a bot file, read once into one
  ``TrainedNetwork`` record (KataGo's ``load_model``);
- export.py: ``write_bot_of``, the one writer of a bot file from a checkpoint or a run (``export``,
  ``ship``, a recipe's end);
- provenance.py: what made a network: its steps and the CPU of its run and of the network it
  started from (the ladder's CPU axis, the shipped bots' index).

The layer sits above ``config``, ``game`` and ``net`` and below everything that trains or plays,
so the learner, the evaluation and the bot all read networks the same way. Nothing is imported
here: ``from catena_zero.artifacts.layout import ...`` must stay light.
"""
