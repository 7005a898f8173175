"""Batched inference: ``NetEvaluator``, the network as an evaluation function over env states, for one rule set
(``__call__``: ``catena_zero.evalfn.EvalFn``) or several at once (``evaluate_many``:
``catena_zero.evalfn.BatchEvalFn``).

Shape legend: B batch of games, A actions (N cells, then the button), S = 12 board symmetries,
C planes, G grid width 2n-1.

One call encodes the states, runs ONE batched forward pass (``S * B`` positions with symmetry
averaging), masks illegal actions and returns numpy arrays. Values are P(win) - P(loss) for the
player to move (AlphaZero's scalar value from KataGo-style win/draw/loss logits).

The forward is the inference-only one, ``folded.FoldedNet``: the model's eval-mode outputs (to float
rounding) with its batch norms folded into the convolutions once per weight version, without the
ownership head (search reads only policy, value and score), in the compute dtype of
``device.inference_dtype``. Before each forward it refolds if the model's weights changed
(``FoldedNet.sync``: tensor versions), so loading weights into the model (``SelfPlayer.set_weights``)
is all a caller does.

Mixed rules (``evaluate_many``): groups of games with different sides, scorings or game types
(KataGo trains one net over many rule sets) still share one forward pass: each group is encoded
on its own grid, all are padded to the largest grid with each board at the grid origin
(``features.pad_features``), and the outputs are split back per group. Padding costs compute in
proportion to the padded grid area: on the CPU, with 64 or more games per side, one forward per
side (``NetConfig.mixed_sides = "by_side"``) measured faster (scripts/bench_net.py); with few
games per side, or on a GPU, one padded forward is.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from ..config import NetConfig
from ..evalfn import Evaluation
from ..game.spec import NUM_SYMMETRIES
from ..game.vec import EnvState, VecEnv
from .device import inference_dtype, resolve_device
from .features import (
    Features,
    encode,
    grid_side,
    grid_symmetries,
    inverse_action_symmetries,
    pad_features,
    score_scale,
)
from .folded import FoldedNet
from .model import CatenaNet


def masked_softmax(logits: torch.Tensor, legal: torch.Tensor) -> torch.Tensor:
    """[..., A] probabilities over the legal actions; all 0 in a row without any (a finished game)."""
    masked = logits.masked_fill(~legal, float("-inf"))
    masked = masked.masked_fill(~legal.any(dim=-1, keepdim=True), 0.0)  # avoid NaN rows
    return torch.softmax(masked, dim=-1) * legal


@dataclass(frozen=True)
class _Group:
    """One (env, state) item of ``evaluate_many``, encoded."""

    env: VecEnv
    state: EnvState
    features: Features  # [R, C, g, g] with R = B, or S * B symmetry-transformed copies
    legal: np.ndarray  # [B, A] bool


class NetEvaluator:
    """Evaluates EnvStates with ``model`` (placed on ``config.device`` and put in eval mode).

    ``env`` is the environment of ``__call__`` (an ``EvalFn`` over its states); ``evaluate_many``
    takes each group's environment with its states, and needs no ``env``.
    Where a game is over the value and score are the exact results (``env.terminal_value``,
    ``env.score_margin``, R6) and the priors are all 0, since there is no legal action.
    With ``config.compile`` the forward pass (``self.net``, the model folded) is ``torch.compile``d
    (compiled on the first call of each input shape; a refold writes the same tensors in place, so
    new weights need no new compile).
    """

    def __init__(self, model: CatenaNet, env: VecEnv | None, config: NetConfig, folded: FoldedNet | None = None) -> None:
        self.device = resolve_device(config.device)
        self.model = model.to(self.device).eval()
        self.env = env
        self.config = config
        self.dtype = inference_dtype(self.device, config.mixed_precision, config.cpu_precision)
        # ``folded``: another evaluator's fold of the same model (one fold per weight version, not one each)
        if folded is not None and (folded.source is not self.model or folded.dtype != self.dtype):
            raise ValueError("folded must be a FoldedNet of this model in this evaluator's dtype")
        self.net = folded if folded is not None else FoldedNet(self.model, self.dtype)
        self._forward_fn = torch.compile(self.net) if config.compile else self.net
        self._inverse_maps: dict[int, torch.Tensor] = {}  # per side: [S, A] on the device

    def __call__(self, state: EnvState) -> Evaluation:
        if self.env is None:
            raise ValueError("this NetEvaluator has no env: call evaluate_many([(env, state), ...])")
        return self.evaluate_many([(self.env, state)])[0]

    @torch.inference_mode()
    def evaluate_many(self, items: list[tuple[VecEnv, EnvState]]) -> list[Evaluation]:
        """One Evaluation per (env, state) item, in order, from ONE forward pass over all their games.

        With ``config.mixed_sides == "by_side"`` instead one forward per board side (groups of one
        side but different rules still share theirs), each on its own grid without padding.
        """
        groups = []
        for env, state in items:
            features = encode(env, state)
            if self.config.symmetry_average:
                features = self._symmetry_expand(features, env.spec.side)
            groups.append(_Group(env, state, features, env.legal_actions(state)))
        if self.config.mixed_sides == "by_side":
            calls: dict[int, list[int]] = {}
            for i, group in enumerate(groups):
                calls.setdefault(group.features.grid_size, []).append(i)
        else:
            calls = {0: list(range(len(groups)))} if groups else {}
        results: dict[int, Evaluation] = {}  # item index -> its evaluation
        for members in calls.values():
            for i, evaluation in zip(members, self._evaluate_groups([groups[i] for i in members])):
                results[i] = evaluation
        return [results[i] for i in range(len(groups))]  # every item is in one call

    @torch.inference_mode()
    def ownership(self, state: EnvState) -> np.ndarray:
        """[B, N] float32: the ownership head's expected final owner of each cell, in [-1, 1], for
        the player to move (+1: theirs, -1: the opponent's; KataGo's ownership map). Averaged over
        the 12 symmetries with ``config.symmetry_average``, like the policy. One forward with the
        head the search skips (``FoldedNet``'s ``ownership=True``): for analysis, not for search."""
        if self.env is None:
            raise ValueError("this NetEvaluator has no env")
        features = encode(self.env, state)
        if self.config.symmetry_average:
            features = self._symmetry_expand(features, self.env.spec.side)
        planes = torch.as_tensor(features.planes, device=self.device)  # [R, C, G, G]
        globals_ = torch.as_tensor(features.globals, device=self.device)  # [R, F]
        self.net.sync()
        owned = self.net(planes, globals_, None, ownership=True).ownership.float()  # [R, N]
        cells = self.env.spec.num_cells
        owned = owned[:, :cells]
        if self.config.symmetry_average:
            b = owned.shape[0] // NUM_SYMMETRIES
            index = self._inverse_actions(self.env.spec.side)[:, None, :cells].expand(NUM_SYMMETRIES, b, -1)
            owned = torch.gather(owned.reshape(NUM_SYMMETRIES, b, -1), 2, index).mean(dim=0)  # [B, N]
        return owned.cpu().numpy().astype(np.float32, copy=False)

    def _evaluate_groups(self, groups: list[_Group]) -> list[Evaluation]:
        """One forward pass over the groups' rows, padded to their largest grid, split back per group."""
        batch = groups[0].features if len(groups) == 1 else pad_features([group.features for group in groups])
        # Sides stay on the host: the model checks them there without a device sync; None when every
        # board fills the grid (one side, maybe several rule sets), the uniform fused path.
        mixed = batch.sides is not None and bool((batch.sides != grid_side(batch.grid_size)).any())
        sides = torch.as_tensor(batch.sides) if mixed else None
        planes = torch.as_tensor(batch.planes, device=self.device)  # [R, C, G, G]
        globals_ = torch.as_tensor(batch.globals, device=self.device)  # [R, F]
        self.net.sync()  # refold if the model's weights changed since the last call
        out = self._forward_fn(planes, globals_, sides)  # ownership skipped: search does not read it
        logits = out.policy_logits.float()  # [R, A_max]
        wdl = torch.softmax(out.wdl_logits.float(), dim=-1)
        values = wdl[:, 0] - wdl[:, 2]  # [R]
        scores = out.score.float()  # [R] normalised
        evaluations, start = [], 0
        for group in groups:
            rows = slice(start, start + group.features.batch_size)
            evaluations.append(self._finish(group, logits[rows], values[rows], scores[rows]))
            start = rows.stop
        return evaluations

    def _finish(self, group: _Group, logits: torch.Tensor, value: torch.Tensor, score: torch.Tensor) -> Evaluation:
        """One group's rows of the outputs -> its Evaluation: its own actions, legal mask, exact results."""
        env, state = group.env, group.state
        legal = torch.as_tensor(group.legal, device=self.device)  # [B, A]
        logits = logits[:, : legal.shape[1]]  # its own N cells and button come first in the row
        if self.config.symmetry_average:
            b, s = legal.shape[0], NUM_SYMMETRIES
            inverse = self._inverse_actions(env.spec.side)
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

    def _inverse_actions(self, side: int) -> torch.Tensor:
        """[S, A] inverse action symmetry maps of the side, on the device, built once."""
        if side not in self._inverse_maps:
            self._inverse_maps[side] = torch.tensor(inverse_action_symmetries(side), device=self.device)
        return self._inverse_maps[side]

    def _symmetry_expand(self, features: Features, side: int) -> Features:
        """[B, ...] -> [S * B, ...]: the 12 transformed positions, symmetry-major (row k * B + b)."""
        b, c, g, _ = features.planes.shape
        grid_maps = grid_symmetries(side)  # [S, G*G]
        planes = features.planes.reshape(b, c, g * g)[:, :, grid_maps]  # [B, C, S, G*G]
        planes = planes.transpose(2, 0, 1, 3).reshape(NUM_SYMMETRIES * b, c, g, g)
        return Features(planes=np.ascontiguousarray(planes), globals=np.tile(features.globals, (NUM_SYMMETRIES, 1)))
