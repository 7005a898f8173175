"""The stages of a staged run (a recipe): where a run folder stands among them, and the config each
stage's session trains with.

A staged config (``Config.stages``, built by ``config.loading.stage_configs``) runs its stages in
order in one run folder: the run's counters (steps, positions, CPU time) go on across them, so the
checkpoints, TensorBoard and the learning curve have one axis. A stage's bound is its own amount,
counted from where the stage before ended (``StageStart``); the config's ``run.max_*`` bound the
whole run. A stage starts from the network the one before ended with (its last checkpoint, deepened
when the stage adds blocks: ``driver.StartingPoint``), with that stage's replay buffer while the
rule sets it plays include the previous stage's, and with a fresh optimiser and warmup. Every
checkpoint records its stage and where the stage began (``StageStart.as_counters``), so ``--resume``
continues inside the stage where the run stopped.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from ..config import Config, RunConfig

# The run counters a stage's start records (the driver's ``_Counters`` fields).
_COUNTERS = ("step", "positions", "games", "samples", "seconds", "cpu_seconds")
_NO_BOUNDS = {f"max_{k}": None for k in ("steps", "positions", "minutes", "cpu_minutes")}  # RunConfig's bounds, unset
_BOUND_COUNTER = {"cpu_minutes": ("cpu_seconds", 60.0), "positions": ("positions", 1.0), "steps": ("step", 1.0),
                  "minutes": ("seconds", 60.0)}


@dataclass(frozen=True)
class StageStart:
    """Stage ``index`` (0-based) of ``count``, named ``name``, and the run's counters when it began."""

    index: int
    count: int
    name: str
    step: int = 0
    positions: int = 0
    games: int = 0
    samples: int = 0
    seconds: float = 0.0
    cpu_seconds: float = 0.0

    def label(self) -> str:
        """``2/4 side6``: what the progress line and the summary call it."""
        return f"{self.index + 1}/{self.count} {self.name}"

    def as_counters(self) -> dict[str, float]:
        """What a checkpoint's counters keep of it (``stage`` and ``stage_<counter>``)."""
        return {"stage": self.index, **{f"stage_{key}": getattr(self, key) for key in _COUNTERS}}

    @classmethod
    def first(cls, config: Config) -> "StageStart":
        return cls(0, len(config.stages), config.stages[0].name)

    @classmethod
    def of_counters(cls, config: Config, counters: dict) -> "StageStart":
        """The stage a checkpoint's ``counters`` were written in (the first for a checkpoint without
        one: a run folder is only ever trained by its own config)."""
        index = min(max(int(counters.get("stage", 0)), 0), len(config.stages) - 1)
        values = {key: type(getattr(cls, key, 0))(counters.get(f"stage_{key}", 0)) for key in _COUNTERS}
        return cls(index, len(config.stages), config.stages[index].name, **values)

    @classmethod
    def next_after(cls, config: Config, previous: "StageStart", step: int, counters: dict) -> "StageStart":
        """The stage after ``previous``, beginning at a checkpoint's ``step`` and ``counters``."""
        index = previous.index + 1
        values = {key: type(getattr(cls, key, 0))(counters.get(key, 0)) for key in _COUNTERS if key != "step"}
        return cls(index, previous.count, config.stages[index].name, step=step, **values)


def _absolute(stage_run: RunConfig, start: StageStart) -> dict[str, float]:
    """The stage's own bound (its config's only ``run.max_*``) counted from ``start``, as
    ``run.max_*`` values of the run's counters."""
    out = {}
    for key, value in stage_run.bounds().items():
        counter, scale = _BOUND_COUNTER[key]
        total = getattr(start, counter) / scale + value
        out[f"max_{key}"] = int(round(total)) if key in ("steps", "positions") else total
    return out


def stage_bound(stage_config: Config, start: StageStart) -> RunConfig:
    """The stage's bound alone, in the run's counters (``driver.bound_reached`` of it says whether
    a checkpoint ended the stage)."""
    return dataclasses.replace(stage_config.run, **{**_NO_BOUNDS, **_absolute(stage_config.run, start)})


def session_config(recipe: Config, stage_config: Config, start: StageStart) -> Config:
    """The config one session of stage ``start.index`` trains with: the stage's config, its bound
    counted from ``start`` and capped by the recipe's ``run.max_*`` (both in the run's counters), the
    recipe's run settings otherwise (its name, root, actors). Its ``train.init_*`` stay the first
    stage's: where the run began (a later stage starts from the checkpoint the one before ended
    with, which the driver is told apart: ``driver.StartingPoint``)."""
    bounds = _absolute(stage_config.run, start)
    for key, value in recipe.run.bounds().items():  # the whole run's caps, already in the run's counters
        name = f"max_{key}"
        bounds[name] = min(bounds[name], value) if name in bounds else value
    return dataclasses.replace(stage_config, run=dataclasses.replace(recipe.run, **{**_NO_BOUNDS, **bounds}))


def keeps_replay(recipe: Config, configs: tuple[Config, ...], index: int) -> bool:
    """Whether stage ``index`` starts with the buffer of the stage before: its ``keep_replay`` and
    every rule set of the stage before among its own (the buffer holds only its rule sets)."""
    if index == 0 or not recipe.stages[index].keep_replay:
        return False
    return set(configs[index - 1].rule_sets()) <= set(configs[index].rule_sets())
