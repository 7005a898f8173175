"""``NetEvaluator``: the network as an evaluation function over env states, for one rule set
(``__call__``: ``catena_zero.evaluation.EvalFn``) or several at once (``evaluate_many``:
``catena_zero.evaluation.BatchEvalFn``).

Shape legend: B batch of games, A actions (N cells, then the button), S = 12 board symmetries,
C planes, G grid width 2n-1.

One call encodes the states, runs ONE batched forward pass (``S * B`` positions with symmetry
averaging), masks illegal actions and returns numpy arrays. Values are P(win) - P(loss) for the
player to move (AlphaZero's scalar value from KataGo-style win/draw/loss logits).

Mixed rules (``evaluate_many``): groups of games with different sides, scorings or game types
(KataGo trains one net over many rule sets) still share one forward pass: each group is encoded
on its own grid, all are padded to the largest grid with each board at the grid origin
(``features.pad_features``), and the outputs are split back per group.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from ..config import NetConfig
from ..evaluation import Evaluation
from ..game.spec import NUM_SYMMETRIES
from ..game.vec_env import EnvState, VecEnv
from .device import inference_autocast, resolve_device
from .features import Features, encode, grid_symmetries, inverse_action_symmetries, pad_features, score_scale
from .model import CatenaNet


def masked_softmax(logits: torch.Tensor, legal: torch.Tensor) -> torch.Tensor:
    """[..., A] probabilities over the legal actions; all 0 in a row without any (a finished game)."""
    masked = logits.masked_fill(~legal, float("-inf"))
    masked = masked.masked_fill(~legal.any(dim=-1, keepdim=True), 0.0)  # avoid NaN rows
    return torch.softmax(masked, dim=-1) * legal


@dataclass(frozen=True)
class _Group:
    """One (env, state) item of ``evaluate_many``, encoded: its rows in the padded forward batch."""

    env: VecEnv
    state: EnvState
    features: Features  # [R, C, g, g] with R = B, or S * B symmetry-transformed copies
    legal: np.ndarray  # [B, A] bool
    start: int  # first row in the padded batch


class NetEvaluator:
    """Evaluates EnvStates with ``model`` (placed on ``config.device`` and put in eval mode).

    ``env`` is the environment of ``__call__`` (an ``EvalFn`` over its states); ``evaluate_many``
    takes each group's environment with its states, and needs no ``env``.
    Where a game is over the value and score are the exact results (``env.terminal_value``,
    ``env.score_margin``, R6) and the priors are all 0, since there is no legal action.
    With ``config.compile`` the forward pass is ``torch.compile``d (compiled on the first call of
    each input shape).
    """

    def __init__(self, model: CatenaNet, env: VecEnv | None, config: NetConfig) -> None:
        self.device = resolve_device(config.device)
        self.model = model.to(self.device).eval()
        self.env = env
        self.config = config
        self._forward_fn = torch.compile(self.model) if config.compile else self.model
        # Per side: [S, G*G] grid and [S, A] inverse action symmetry maps on the device.
        self._symmetry_maps: dict[int, tuple[torch.Tensor, torch.Tensor]] = {}

    def __call__(self, state: EnvState) -> Evaluation:
        if self.env is None:
            raise ValueError("this NetEvaluator has no env: call evaluate_many([(env, state), ...])")
        return self.evaluate_many([(self.env, state)])[0]

    @torch.inference_mode()
    def evaluate_many(self, items: list[tuple[VecEnv, EnvState]]) -> list[Evaluation]:
        """One Evaluation per (env, state) item, in order, from ONE forward pass over all their games."""
        if not items:
            return []
        groups, start = [], 0
        for env, state in items:
            features = encode(env, state)
            if self.config.symmetry_average:
                features = self._symmetry_expand(features, env.spec.side)
            groups.append(_Group(env, state, features, env.legal_actions(state), start))
            start += features.batch_size
        if len(groups) == 1:
            batch, sides = groups[0].features, None  # one grid: nothing to pad
        else:
            batch = pad_features([group.features for group in groups])
            sides = torch.as_tensor(batch.sides, device=self.device)
        planes = torch.as_tensor(batch.planes, device=self.device)  # [R, C, G, G]
        globals_ = torch.as_tensor(batch.globals, device=self.device)  # [R, F]
        with inference_autocast(self.device, self.config.mixed_precision, self.config.cpu_precision):
            out = self._forward_fn(planes, globals_, sides)
        logits = out.policy_logits.float()  # [R, A_max]
        wdl = torch.softmax(out.wdl_logits.float(), dim=-1)
        values = wdl[:, 0] - wdl[:, 2]  # [R]
        scores = out.score.float()  # [R] normalised
        return [self._finish(group, logits, values, scores) for group in groups]

    def _finish(self, group: _Group, logits: torch.Tensor, values: torch.Tensor, scores: torch.Tensor) -> Evaluation:
        """Split one group's rows out of the padded outputs: its own actions, legal mask, exact results."""
        env, state = group.env, group.state
        rows = slice(group.start, group.start + group.features.batch_size)
        legal = torch.as_tensor(group.legal, device=self.device)  # [B, A]
        logits = logits[rows, : legal.shape[1]]  # its own N cells and button come first in the row
        value, score = values[rows], scores[rows]
        if self.config.symmetry_average:
            b, s = legal.shape[0], NUM_SYMMETRIES
            _, inverse = self._maps(env.spec.side)
            # Map each transformed policy back onto the original cells before masking and averaging.
            index = inverse[:, None, :].expand(s, b, -1)
            sym_logits = torch.gather(logits.reshape(s, b, -1), 2, index)  # [S, B, A]
            priors = masked_softmax(sym_logits, legal[None]).mean(dim=0)
            value, score = value.reshape(s, b).mean(dim=0), score.reshape(s, b).mean(dim=0)
        else:
            priors = masked_softmax(logits, legal)
        priors, value = priors.cpu().numpy(), value.cpu().numpy()
        score = score.cpu().numpy() * np.float32(score_scale(env.config))
        done = np.asarray(state.done)
        if done.any():
            value = np.where(done, env.terminal_value(state), value)
            score = np.where(done, env.score_margin(state), score)
        return Evaluation(
            priors=priors.astype(np.float32, copy=False),
            value=value.astype(np.float32, copy=False),
            score=score.astype(np.float32, copy=False),
        )

    def _maps(self, side: int) -> tuple[torch.Tensor, torch.Tensor]:
        if side not in self._symmetry_maps:
            self._symmetry_maps[side] = (
                torch.tensor(grid_symmetries(side), device=self.device),
                torch.tensor(inverse_action_symmetries(side), device=self.device),
            )
        return self._symmetry_maps[side]

    def _symmetry_expand(self, features: Features, side: int) -> Features:
        """[B, ...] -> [S * B, ...]: the 12 transformed positions, symmetry-major (row k * B + b)."""
        b, c, g, _ = features.planes.shape
        grid_maps = grid_symmetries(side)  # [S, G*G]
        planes = features.planes.reshape(b, c, g * g)[:, :, grid_maps]  # [B, C, S, G*G]
        planes = planes.transpose(2, 0, 1, 3).reshape(NUM_SYMMETRIES * b, c, g, g)
        return Features(planes=np.ascontiguousarray(planes), globals=np.tile(features.globals, (NUM_SYMMETRIES, 1)))
