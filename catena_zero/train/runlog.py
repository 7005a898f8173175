"""A run's TensorBoard log (``checkpoints/<run>/tensorboard``): what the driver reports, by tag.

    loss/<term>, loss/learning_rate               every 10 learner steps
    selfplay/*, search/*, replay/*, cpu/*          every 50 learner steps, over the window since the last
    selfplay/fair_komi/<rule set key>              the self-play actors' fair-komi estimates
    selfplay/board                                 a rendered board of a finished self-play game
    eval/win_rate_vs_<opponent>, eval/cpu_seconds  each in-loop evaluation
    eval/skipped_for_cpu                           evaluations skipped for ``eval.max_cpu_share``
    config (text)                                  the run's config as a table, once
    run/stage, stage (text)                        a staged run's stage number and config, as each begins

The driver owns the loop; this module owns the writer and the tags (docs/TRAINING.md lists them).
"""

from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

from ..artifacts.layout import TENSORBOARD_DIR
from ..config import Config
from ..game.options import RuleSet
from ..selfplay.play import SelfPlayStats
from ..selfplay.types import Trajectory
from .cputime import CpuReport
from .inloop import InLoopResult
from .losses import Losses



@dataclass
class SelfPlayWindow:
    """Self-play statistics since the last ``RunLog.selfplay`` (then a fresh window starts)."""

    stats: SelfPlayStats = field(default_factory=SelfPlayStats)
    staleness_sum: float = 0.0  # learner steps between a position's weights and the step it arrived at
    staleness_count: int = 0
    started: float = field(default_factory=time.perf_counter)


class RunLog:
    """The TensorBoard writer of one session of a run (``purge_step`` drops a resumed run's future)."""

    def __init__(self, run_dir: Path, step: int, config: Optional[Config] = None) -> None:
        from torch.utils.tensorboard import SummaryWriter

        self.writer = SummaryWriter(str(run_dir / TENSORBOARD_DIR), purge_step=step or None)
        if config is not None:
            self.writer.add_text("config", config_markdown(config), 0)

    def losses(self, step: int, losses: Losses, learning_rate: float, weight_penalty: float, grad_norm: float) -> None:
        """The step's loss terms, its rate, the weight-decay penalty and the gradient norm before clipping."""
        for name, value in losses.items():
            self.writer.add_scalar(f"loss/{name}", value, step)
        self.writer.add_scalar("loss/learning_rate", learning_rate, step)
        self.writer.add_scalar("loss/weight_decay", weight_penalty, step)
        self.writer.add_scalar("loss/grad_norm", grad_norm, step)

    def selfplay(self, step: int, window: SelfPlayWindow, replay_size: int, replay_window: int, positions: int,
                 komi_estimates: dict[RuleSet, int], cpu: CpuReport, evaluations_skipped: int) -> None:
        """The window's self-play figures, the replay buffer, the CPU shares and the fair komi."""
        s = window.stats
        seconds = max(time.perf_counter() - window.started, 1e-9)
        scalars = {
            "selfplay/games_per_s": s.games / seconds,
            "selfplay/positions_per_s": s.plies / seconds,
            "search/simulations_per_s": s.simulations / seconds,
            "selfplay/inference_share": s.inference_seconds / max(s.seconds, 1e-9),
            "selfplay/weight_staleness": window.staleness_sum / max(window.staleness_count, 1),
            "replay/size": replay_size,
            "replay/window": replay_window,
            "selfplay/positions_total": positions,
        }
        if s.games:
            scalars.update({
                "selfplay/mean_game_length": s.game_plies / s.games,
                "selfplay/black_win_rate": s.black_wins / s.games,
                "selfplay/button_taken_rate": s.button_taken / s.games,
                "selfplay/resignation_rate": s.resignations / s.games,
                "selfplay/value_mse": s.value_sq_error / max(s.game_plies, 1),
            })
        if s.resign_checks:
            scalars["selfplay/false_resignation_rate"] = s.false_resignations / s.resign_checks
        if s.openings:
            scalars["selfplay/swap_rate"] = s.swaps / s.openings  # no_komi: second player takes Black
        for use, share in cpu.shares().items():
            scalars[f"cpu/share_{use}"] = share
        scalars["cpu/positions_per_selfplay_cpu_second"] = cpu.positions_per_selfplay_cpu_second
        scalars["eval/skipped_for_cpu"] = evaluations_skipped
        for rules, komi in komi_estimates.items():  # the tag keeps its name: runs logged before read the same
            scalars[f"selfplay/fair_komi/{rules.key}"] = komi
        for tag, value in scalars.items():
            self.writer.add_scalar(tag, value, step)

    def board(self, step: int, trajectory: Trajectory) -> None:
        """A rendered board of a finished self-play game (its last position)."""
        from ..game.figure import board_figure
        from ..game.vec import VecEnv

        env = VecEnv(trajectory.game)
        last = trajectory.num_positions - 1
        state = env.reset(1)
        state.data[:] = trajectory.states[last:last + 1]
        game = env.to_game(state, 0)
        figure = board_figure(game, title=f"{RuleSet.of(trajectory.game).key}, step {step}")
        self.writer.add_figure("selfplay/board", figure, step)

    def stage(self, step: int, index: int, label: str, config: Config) -> None:
        """A staged run's stage begins at ``step``: its number on ``run/stage`` (a step in the curve
        where it changes), its name and config as text."""
        self.writer.add_scalar("run/stage", index + 1, step)
        self.writer.add_text("stage", f"stage {label} from step {step}\n\n{config_markdown(config)}", step)

    def evaluation(self, step: int, result: InLoopResult) -> None:
        self.writer.add_scalar("eval/cpu_seconds", result.cpu_seconds, step)
        for opponent, rate in result.win_rates.items():
            self.writer.add_scalar(f"eval/win_rate_vs_{opponent}", rate, step)

    def close(self) -> None:
        self.writer.close()


def config_markdown(config: Config) -> str:
    """The config as a two-column Markdown table (TensorBoard's text tab renders it)."""
    rows = ["| key | value |", "| --- | --- |"]

    def walk(node, prefix: str) -> None:
        for f in dataclasses.fields(node):
            value = getattr(node, f.name)
            if dataclasses.is_dataclass(value):
                walk(value, f"{prefix}{f.name}.")
            else:
                rows.append(f"| {prefix}{f.name} | {value!r} |")

    walk(config, "")
    return "\n".join(rows)
