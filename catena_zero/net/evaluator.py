"""``NetEvaluator``: the network as an evaluation function (``catena_zero.evaluation.EvalFn``) over env states.

Shape legend: B batch of games, A actions (N cells, then the button), S = 12 board symmetries,
C planes, G grid width 2n-1.

One call encodes the B states, runs one batched forward pass (``S * B`` positions with symmetry
averaging), masks illegal actions and returns numpy arrays. Values are P(win) - P(loss) for the
player to move (AlphaZero's scalar value from KataGo-style win/draw/loss logits).
"""

from __future__ import annotations

import numpy as np
import torch

from ..config import NetConfig
from ..game.spec import NUM_SYMMETRIES
from ..game.vec_env import EnvState, VecEnv
from ..evaluation import Evaluation
from .device import inference_autocast, resolve_device
from .features import encode, grid_symmetries, inverse_action_symmetries, score_scale
from .model import CatenaNet


def masked_softmax(logits: torch.Tensor, legal: torch.Tensor) -> torch.Tensor:
    """[..., A] probabilities over the legal actions; all 0 in a row without any (a finished game)."""
    masked = logits.masked_fill(~legal, float("-inf"))
    masked = masked.masked_fill(~legal.any(dim=-1, keepdim=True), 0.0)  # avoid NaN rows
    return torch.softmax(masked, dim=-1) * legal


class NetEvaluator:
    """Evaluates EnvStates of ``env`` with ``model`` (placed on ``config.device`` and put in eval mode).

    Where a game is over the value and score are the exact results (``env.terminal_value``,
    ``env.score_margin``, R6) and the priors are all 0, since there is no legal action.
    """

    def __init__(self, model: CatenaNet, env: VecEnv, config: NetConfig) -> None:
        self.device = resolve_device(config.device)
        self.model = model.to(self.device).eval()
        self.env = env
        self.config = config
        self.score_scale = score_scale(env.config)
        side = env.spec.side
        # [S, G*G] and [S, A] index maps on the device, built once.
        self._grid_maps = torch.tensor(grid_symmetries(side), device=self.device)
        self._inverse_actions = torch.tensor(inverse_action_symmetries(side), device=self.device)

    @torch.inference_mode()
    def __call__(self, state: EnvState) -> Evaluation:
        features = encode(self.env, state)
        legal = torch.as_tensor(self.env.legal_actions(state), device=self.device)  # [B, A] bool
        planes = torch.as_tensor(features.planes, device=self.device)  # [B, C, G, G]
        globals_ = torch.as_tensor(features.globals, device=self.device)  # [B, F]
        if self.config.symmetry_average:
            priors, value, score = self._symmetry_averaged(planes, globals_, legal)
        else:
            priors, value, score = self._forward(planes, globals_, legal)
        priors, value = priors.cpu().numpy(), value.cpu().numpy()
        score = score.cpu().numpy() * np.float32(self.score_scale)
        done = np.asarray(state.done)
        if done.any():
            value = np.where(done, self.env.terminal_value(state), value)
            score = np.where(done, self.env.score_margin(state), score)
        return Evaluation(
            priors=priors.astype(np.float32, copy=False),
            value=value.astype(np.float32, copy=False),
            score=score.astype(np.float32, copy=False),
        )

    def _forward(
        self, planes: torch.Tensor, globals_: torch.Tensor, legal: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """One forward pass -> priors [B, A], value [B], normalised score [B] (float32)."""
        with inference_autocast(self.device, self.config.mixed_precision):
            out = self.model(planes, globals_)
        priors = masked_softmax(out.policy_logits.float(), legal)
        wdl = torch.softmax(out.wdl_logits.float(), dim=-1)
        return priors, wdl[:, 0] - wdl[:, 2], out.score.float()

    def _symmetry_averaged(
        self, planes: torch.Tensor, globals_: torch.Tensor, legal: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """Mean of the evaluations of the 12 transformed positions, in one forward pass of S * B."""
        b, c, g, _ = planes.shape
        s = NUM_SYMMETRIES
        sym_planes = planes.flatten(2)[:, :, self._grid_maps]  # [B, C, S, G*G]
        sym_planes = sym_planes.permute(2, 0, 1, 3).reshape(s * b, c, g, g)
        with inference_autocast(self.device, self.config.mixed_precision):
            out = self.model(sym_planes, globals_.repeat(s, 1))
        # Map each transformed policy back onto the original cells before masking and averaging.
        logits = out.policy_logits.float().view(s, b, -1)  # [S, B, A]
        index = self._inverse_actions[:, None, :].expand(s, b, -1)
        logits = torch.gather(logits, 2, index)
        priors = masked_softmax(logits, legal[None]).mean(dim=0)
        wdl = torch.softmax(out.wdl_logits.float(), dim=-1).view(s, b, 3)
        value = (wdl[..., 0] - wdl[..., 2]).mean(dim=0)
        return priors, value, out.score.float().view(s, b).mean(dim=0)
