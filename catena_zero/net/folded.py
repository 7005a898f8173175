"""Inference-only forward of a ``CatenaNet``: ``FoldedNet``, the eval-mode network with its batch norms
folded into the layers that feed them, once per weight version, and the ownership head only on request.

Shape legend:
    B  batch                      C  input planes (features.NUM_PLANES)
    F  global inputs (features.NUM_GLOBALS)
    G  axial grid width, 2n-1     N  cells on the board, A = N + 1 actions (cells, then the button)
    K  trunk channels             P  pooled channels of a block's global pooling branch (K // 4)
    H  head channels

Why: self-play, matches and bots read only the policy, value and score of an eval-mode forward, yet
``CatenaNet.forward`` (the training forward: batch statistics, gradients, the ownership target; kept
as it is for the learner) rebuilds every hex kernel (weight * tap mask) and every masked batch-norm
affine on each call and runs the ownership head. Here, once per weight version (``sync``):

- an eval-mode batch norm is a per-channel affine map ``s * x + t`` (``s = gamma / sqrt(var + eps)``,
  ``t = beta - mean * s``). Where it directly follows a convolution or a linear layer (a block's
  conv1 feeds norm2 and the pooling branch's norm; the pooling branch's linear adds into norm2's
  input; the heads' 1x1 convs feed their norms; the policy's pooled bias adds into its norm's
  input) it is folded into that layer: ``W' = s W``, ``b' = s b + t``;
- the three 1x1 convolutions that read the trunk (policy cells, policy pooling, value) are one 1x1
  convolution with 3H outputs (one GEMM);
- the norm before each block's conv1 and the trunk norm read the residual stream, which stays
  unnormalised, so they remain one ``addcmul`` pass with the precomputed ``s`` and ``t``;
- masking: values are zeroed off the board only where a 3x3 convolution reads them next (an
  off-board value would leak into the board's edge cells) and before the pooled means and maxima.
  After the trunk every layer is 1x1 and only board cells are gathered, so the heads need no mask;
  and the maxima of a ReLU output zeroed off the board are those over the board cells (every
  value is >= 0 and a board has cells).

The outputs equal ``CatenaNet.forward``'s in eval mode up to float rounding (tests/test_net.py, sides
3, 4, 6 and mixed batches, with random batch-norm statistics), uniform and mixed batches alike.

Weight versions: the fold reads the source network's parameters and buffers, and ``sync`` refolds
whenever any of them changed since the last fold: a tensor's version counter counts its in-place
writes (``load_state_dict``, an optimiser step, ``copy_``) and its storage address changes when it is
replaced (``param.data = ...``, ``.to(device)``, ``load_state_dict(assign=True)``). So a caller that
loads weights into the source network (``SelfPlayer.set_weights``) needs no call of its own; the
evaluator syncs before every forward. The one write this cannot see is an in-place change, inside
``torch.inference_mode``, of a tensor created inside it (inference tensors keep no version).

Precision: ``dtype`` float32, bfloat16 or float16. The folded tensors are cast once per fold and the
inputs on entry, and the whole forward runs in that dtype with no autocast (which would cast every
weight again on every call).
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch import nn

from ..game.spec import board_spec
from .model import (
    PAD_LOGIT,
    CatenaNet,
    MaskedBatchNorm2d,
    NetOutput,
    ResidualBlock,
    SideTables,
    check_inputs,
    size_term,
)


def _affine(norm: MaskedBatchNorm2d) -> tuple[torch.Tensor, torch.Tensor]:
    """The eval-mode map of a batch norm, ``x -> s * x + t``: (s, t), each [channels] float32."""
    scale = norm.weight * torch.rsqrt(norm.running_var + norm.eps)
    return scale, norm.bias - norm.running_mean * scale


def _store(module: nn.Module, name: str, value: torch.Tensor, dtype: torch.dtype, layout: torch.memory_format) -> None:
    """Set the (non-persistent) buffer ``name`` to ``value`` in ``dtype`` and ``layout``.

    In place where the old buffer fits, so that a ``torch.compile``d forward keeps reading the same
    tensors; else a new buffer, always a copy (``value`` may be one of the source's own tensors, and a
    later in-place refold must not write into it).
    """
    value = value.detach().to(dtype=dtype).contiguous(memory_format=layout)
    old = module._buffers.get(name)
    fits = (old is not None and old.shape == value.shape and old.dtype == value.dtype and old.device == value.device
            and old.is_contiguous(memory_format=layout))
    # An inference tensor (made inside torch.inference_mode) can be written only inside it.
    if fits and not (old.is_inference() and not torch.is_inference_mode_enabled()):
        old.copy_(value)
    else:
        module.register_buffer(name, value.clone(memory_format=layout), persistent=False)


@dataclass(frozen=True)
class _Board:
    """Where the board cells of a batch are, in the compute dtype; shared by all layers of a forward."""

    fmask: torch.Tensor  # [1 or B, 1, G, G] 1 on board cells, 0 off
    cells: torch.Tensor | int  # [B, 1] or a number: board cells per sample, the divisor of the pooled means
    size_term: torch.Tensor | float  # [B, 1] or a number: model.size_term of each sample's board
    cell_to_grid: torch.Tensor | None  # [N] uniform: the board cells' grid positions, notation order
    action_index: torch.Tensor | None  # [B, A] mixed: indices into [cells (G*G), button, pad]
    cell_index: torch.Tensor | None  # [B, N] mixed: indices into [cells (G*G), pad]

    def relu_on_board(self, x: torch.Tensor) -> torch.Tensor:
        """ReLU, then 0 off the board, in place; x [B, K, G, G]."""
        return x.relu_().mul_(self.fmask)

    def pool(self, x: torch.Tensor) -> torch.Tensor:
        """[B, K, G, G] (>= 0, 0 off the board) -> [B, 3K]: mean, size-scaled mean and max over the board cells."""
        mean = x.sum(dim=(2, 3)) / self.cells
        return torch.cat([mean, mean * self.size_term, x.amax(dim=(2, 3))], dim=1)

    def gather_actions(self, cells: torch.Tensor, button: torch.Tensor) -> torch.Tensor:
        """cells [B, G*G], button [B, 1] -> [B, A] logits: each sample's cells, its button, then PAD_LOGIT."""
        if self.action_index is None:
            return torch.cat([cells[:, self.cell_to_grid], button], dim=1)
        pad = torch.full_like(button, PAD_LOGIT)
        return torch.gather(torch.cat([cells, button, pad], dim=1), 1, self.action_index)

    def gather_cells(self, values: torch.Tensor) -> torch.Tensor:
        """values [B, G*G] -> [B, N]: each sample's cells in notation order, then 0."""
        if self.cell_index is None:
            return values[:, self.cell_to_grid]
        return torch.gather(torch.cat([values, values.new_zeros(values.shape[0], 1)], dim=1), 1, self.cell_index)


class _Grid:
    """The boards of one grid size and device in the compute dtype: uniform, and per side for mixed batches."""

    def __init__(self, grid_size: int, device: torch.device, dtype: torch.dtype) -> None:
        self.tables = SideTables(grid_size, device)
        self.fmasks = self.tables.masks[:, None].to(dtype)  # [side, 1, G, G]
        self.cells = self.tables.cells.to(dtype)[:, None]  # [side, 1]
        self.size_terms = self.tables.size_terms.to(dtype)[:, None]  # [side, 1]
        full = board_spec(self.tables.max_side)
        self.uniform = _Board(
            fmask=self.fmasks[full.side : full.side + 1],  # [1, 1, G, G]: the full board fills the grid
            cells=full.num_cells,
            size_term=size_term(full.num_cells),
            cell_to_grid=torch.tensor(full.cell_to_grid, device=device),
            action_index=None,
            cell_index=None,
        )

    def mixed(self, sides: torch.Tensor) -> _Board:
        """One board per sample at the grid origin: ``sides`` [B] long, on the grid's device."""
        return _Board(
            fmask=self.fmasks[sides],  # [B, 1, G, G]
            cells=self.cells[sides],  # [B, 1]
            size_term=self.size_terms[sides],  # [B, 1]
            cell_to_grid=None,
            action_index=self.tables.actions[sides],  # [B, A]
            cell_index=self.tables.cell_index[sides],  # [B, N]
        )


class _Stem(nn.Module):
    """The hex stem convolution plus the global inputs' per-channel bias, masked."""

    def fold(self, net: CatenaNet, dtype: torch.dtype, layout: torch.memory_format) -> None:
        _store(self, "weight", net.stem.weight * net.stem.tap_mask, dtype, layout)  # [K, C, 3, 3]
        _store(self, "global_weight", net.global_in.weight, dtype, torch.contiguous_format)  # [K, F]

    def forward(self, planes: torch.Tensor, globals_: torch.Tensor, board: _Board) -> torch.Tensor:
        bias = F.linear(globals_, self.global_weight)[:, :, None, None]  # [B, K, 1, 1]
        return (F.conv2d(planes * board.fmask, self.weight, padding=1) + bias).mul_(board.fmask)  # [B, K, G, G]


class _Block(nn.Module):
    """A residual block with norm2 and the pooling branch's norm folded into conv1 (and its linear)."""

    def __init__(self, channels: int, pool_channels: int) -> None:
        super().__init__()
        self.channels = channels
        self.pool_channels = pool_channels

    def fold(self, block: ResidualBlock, dtype: torch.dtype, layout: torch.memory_format) -> None:
        scale1, shift1 = _affine(block.norm1)
        scale2, shift2 = _affine(block.norm2)
        out_scale, out_shift = scale2, shift2  # [K + P]: conv1's outputs are norm2's inputs (and the pool norm's)
        if block.pool is not None:
            # norm2 reads conv1's first K channels plus the pool's bias, so it scales that bias too.
            pool_scale, pool_shift = _affine(block.pool.norm)
            out_scale, out_shift = torch.cat([scale2, pool_scale]), torch.cat([shift2, pool_shift])
            linear = block.pool.linear
            _store(self, "pool_weight", scale2[:, None] * linear.weight, dtype, torch.contiguous_format)  # [K, 3P]
            _store(self, "pool_bias", scale2 * linear.bias, dtype, torch.contiguous_format)  # [K]
        _store(self, "norm_scale", scale1.view(1, -1, 1, 1), dtype, torch.contiguous_format)  # [1, K, 1, 1]
        _store(self, "norm_shift", shift1.view(1, -1, 1, 1), dtype, torch.contiguous_format)
        conv1 = block.conv1.weight * block.conv1.tap_mask * out_scale.view(-1, 1, 1, 1)  # [K + P, K, 3, 3]
        _store(self, "conv1_weight", conv1, dtype, layout)
        _store(self, "conv1_bias", out_shift, dtype, torch.contiguous_format)  # [K + P]
        _store(self, "conv2_weight", block.conv2.weight * block.conv2.tap_mask, dtype, layout)  # [K, K, 3, 3]

    def forward(self, x: torch.Tensor, board: _Board) -> torch.Tensor:
        # relu(norm1(x)) zeroed off the board: conv1 reads it (x itself is already 0 off the board).
        h = board.relu_on_board(torch.addcmul(self.norm_shift, x, self.norm_scale))  # [B, K, G, G]
        h = F.conv2d(h, self.conv1_weight, self.conv1_bias, padding=1)  # [B, K + P, G, G], normalised
        if self.pool_channels:
            h, g = h.split([self.channels, self.pool_channels], dim=1)
            pooled = board.pool(board.relu_on_board(g))  # [B, 3P]
            h = h + F.linear(pooled, self.pool_weight, self.pool_bias)[:, :, None, None]
        h = F.conv2d(board.relu_on_board(h), self.conv2_weight, padding=1)  # [B, K, G, G]
        return torch.addcmul(x, h, board.fmask)  # x + h on the board; x is already 0 off it


class _Heads(nn.Module):
    """Trunk norm, then the policy and value heads from one 1x1 convolution with their norms folded in."""

    def __init__(self, head_channels: int) -> None:
        super().__init__()
        self.head_channels = head_channels

    def fold(self, net: CatenaNet, dtype: torch.dtype, layout: torch.memory_format) -> None:
        flat = torch.contiguous_format
        policy, value = net.policy, net.value
        trunk_scale, trunk_shift = _affine(net.trunk_norm)
        _store(self, "trunk_scale", trunk_scale.view(1, -1, 1, 1), dtype, flat)  # [1, K, 1, 1]
        _store(self, "trunk_shift", trunk_shift.view(1, -1, 1, 1), dtype, flat)
        gpool_scale, gpool_shift = _affine(policy.gpool_norm)
        cells_scale, cells_shift = _affine(policy.norm)
        value_scale, value_shift = _affine(value.norm)
        conv = torch.cat([  # [3H, K, 1, 1]: policy pooling, policy cells, value
            policy.gpool.weight * gpool_scale.view(-1, 1, 1, 1),
            policy.cells.weight * cells_scale.view(-1, 1, 1, 1),
            value.conv.weight * value_scale.view(-1, 1, 1, 1),
        ])
        _store(self, "conv_weight", conv, dtype, layout)
        _store(self, "conv_bias", torch.cat([gpool_shift, cells_shift, value_shift]), dtype, flat)  # [3H]
        # The policy norm reads cells(x) + gpool_bias(pooled): it scales that bias too.
        _store(self, "gpool_bias_weight", cells_scale[:, None] * policy.gpool_bias.weight, dtype, flat)  # [H, 3H]
        _store(self, "gpool_bias_bias", cells_scale * policy.gpool_bias.bias, dtype, flat)  # [H]
        layers = {"cell_logit": policy.cell_logit, "button_logit": policy.button_logit, "ownership": value.ownership,
                  "hidden": value.hidden, "wdl": value.wdl, "score": value.score}
        for name, layer in layers.items():
            _store(self, f"{name}_weight", layer.weight, dtype, layout if layer.weight.ndim == 4 else flat)
            _store(self, f"{name}_bias", layer.bias, dtype, flat)

    def forward(self, x: torch.Tensor, board: _Board, ownership: bool):
        # No mask from here on: every layer is 1x1 and only board cells are pooled or gathered.
        x = torch.addcmul(self.trunk_shift, x, self.trunk_scale).relu_()  # [B, K, G, G]
        h = self.head_channels
        gpool, cells, v = F.conv2d(x, self.conv_weight, self.conv_bias).split([h, h, h], dim=1)  # [B, H, G, G] each
        pooled = board.pool(board.relu_on_board(gpool))  # [B, 3H]
        cells = cells + F.linear(pooled, self.gpool_bias_weight, self.gpool_bias_bias)[:, :, None, None]
        cell_logits = F.conv2d(cells.relu_(), self.cell_logit_weight, self.cell_logit_bias).flatten(1)  # [B, G*G]
        policy_logits = board.gather_actions(cell_logits, F.linear(pooled, self.button_logit_weight, self.button_logit_bias))
        v = board.relu_on_board(v)  # [B, H, G, G]
        hidden = F.linear(board.pool(v), self.hidden_weight, self.hidden_bias).relu_()  # [B, value_hidden]
        wdl = F.linear(hidden, self.wdl_weight, self.wdl_bias)  # [B, 3]
        score = F.linear(hidden, self.score_weight, self.score_bias).squeeze(1)  # [B]
        owned = None
        if ownership:
            owned = torch.tanh(board.gather_cells(F.conv2d(v, self.ownership_weight, self.ownership_bias).flatten(1)))
        return policy_logits, wdl, score, owned


class FoldedNet(nn.Module):
    """The eval-mode forward of ``source`` with folded batch norms (see the module notes).

    ``forward(planes, globals_, sides=None, ownership=False)`` takes ``CatenaNet.forward``'s inputs and
    gives its eval-mode ``NetOutput``, with ``ownership`` None unless asked for. ``source`` is not a
    submodule (its parameters are not this module's; this one has only non-persistent buffers): it
    is read by ``sync``, which refolds after its weights changed. Eval mode whatever ``source.training``
    says: running statistics, never batch statistics.
    """

    def __init__(self, source: CatenaNet, dtype: torch.dtype = torch.float32) -> None:
        super().__init__()
        if dtype not in (torch.float32, torch.bfloat16, torch.float16):
            raise ValueError(f"dtype must be float32, bfloat16 or float16, got {dtype}")
        config = source.config
        self.dtype = dtype
        self.num_planes = source.num_planes
        self.num_globals = source.num_globals
        self.channels_last = config.channels_last
        self._source = (source,)  # a tuple: not registered as a submodule
        # Every tensor the fold may read, as (dict, name): re-read on each check, since
        # load_state_dict(assign=True) replaces the tensors themselves.
        self._watched = [(tensors, name) for module in source.modules()
                         for tensors in (module._parameters, module._buffers)
                         for name, tensor in tensors.items() if tensor is not None]
        self.stem = _Stem()
        self.blocks = nn.ModuleList(_Block(b.channels, b.pool_channels) for b in source.blocks)
        self.heads = _Heads(config.head_channels)
        self._grids: dict[tuple[int, torch.device], _Grid] = {}
        self._version: tuple | None = None
        self.sync()

    @property
    def source(self) -> CatenaNet:
        return self._source[0]

    def _weights_version(self) -> tuple:
        """Changes whenever a tensor of the source is written in place or replaced (module notes)."""
        try:
            return tuple((tensors[name]._version, tensors[name].data_ptr()) for tensors, name in self._watched)
        except RuntimeError:  # inference tensors keep no version counter: their address only
            return tuple((-1 if t.is_inference() else t._version, t.data_ptr())
                         for t in (tensors[name] for tensors, name in self._watched))

    def sync(self) -> bool:
        """Refold if the source's weights changed since the last fold; True if it refolded. Cheap
        otherwise (one look at each source tensor's version, ~40 us for the default net)."""
        version = self._weights_version()
        if version == self._version:
            return False
        layout = torch.channels_last if self.channels_last else torch.contiguous_format
        source = self.source
        with torch.no_grad():
            self.stem.fold(source, self.dtype, layout)
            for folded, block in zip(self.blocks, source.blocks):
                folded.fold(block, self.dtype, layout)
            self.heads.fold(source, self.dtype, layout)
        self._version = version
        return True

    def _board(self, grid_size: int, device: torch.device, sides: torch.Tensor | None) -> _Board:
        key = (int(grid_size), device)
        if key not in self._grids:
            self._new_grid(key)
        grid = self._grids[key]
        # A batch whose boards all fill the grid takes the uniform path (broadcast mask), as in CatenaNet.
        if sides is None or bool((sides == grid.tables.max_side).all()):
            return grid.uniform
        return grid.mixed(sides.to(device=device, dtype=torch.long))

    # Built once per grid and device, outside torch.compile's tracing (as CatenaNet's boards).
    @torch.compiler.disable
    def _new_grid(self, key: tuple[int, torch.device]) -> None:
        self._grids[key] = _Grid(*key, self.dtype)

    def forward(
        self, planes: torch.Tensor, globals_: torch.Tensor, sides: torch.Tensor | None = None, ownership: bool = False
    ) -> NetOutput:
        """planes [B, C, G, G], globals [B, F], sides [B] or None -> NetOutput in ``dtype``, as
        ``CatenaNet.forward`` in eval mode; ``ownership`` [B, N] only with ``ownership=True``, else None."""
        board = self._board(check_inputs(planes, globals_, sides, self.num_planes, self.num_globals), planes.device, sides)
        planes = planes.to(self.dtype)
        if self.channels_last:
            planes = planes.contiguous(memory_format=torch.channels_last)
        x = self.stem(planes, globals_.to(self.dtype), board)  # [B, K, G, G]
        for block in self.blocks:
            x = block(x, board)
        policy_logits, wdl, score, owned = self.heads(x, board, ownership)
        return NetOutput(policy_logits=policy_logits, wdl_logits=wdl, score=score, ownership=owned)
