"""Residual tower over hex-board planes with global pooling (AlphaZero; KataGo 2019).

Shape legend:
    B  batch                      C  input planes (features.NUM_PLANES)
    F  global inputs (features.NUM_GLOBALS)
    G  axial grid width, 2n-1     N  cells on the board, A = N + 1 actions (cells, then the button)
    K  trunk channels (NetConfig.channels), H head channels (NetConfig.head_channels)

One network serves every board side: it sees a ``[B, C, G, G]`` grid, every layer's output is
multiplied by the board mask (so off-board grid cells never carry a value), the only reductions
over the board are masked means and maxima, and per-cell outputs are gathered with
``spec.cell_to_grid``. Nothing depends on ``G`` except through the mask.

Mixed batches (``forward(planes, globals_, sides)``): samples of different board sides share one
forward pass, each padded to the batch's grid with its board at the grid origin (KataGo's
``NNPos::xyToPos``: a smaller board sits in the top-left corner of the net's grid;
``features.pad_features``). Then the mask, the cell counts of the pooled means, the size term and the
cell gather are per sample (``Board.mixed``), and a sample of side n gets its own N_n cells and
button in ``policy_logits[b, :N_n + 1]`` and ``ownership[b, :N_n]``, the same values (up to float
rounding) as the unpadded forward of that sample on its own grid. The rest of each row is padding:
``PAD_LOGIT`` in the policy, 0 in the ownership. Without ``sides`` every sample fills the grid.

Hex convolution: on the axial grid the six neighbours of ``(c, r)`` are the 3x3 square around it
minus the corners ``(dc, dr) = (+1, -1)`` and ``(-1, +1)`` (``spec.HEX_DIRECTIONS``). ``HexConv2d``
zeroes those two taps, so each layer sees exactly the cell and its hex neighbours.

Memory layout: with ``NetConfig.channels_last`` (the default) activations are NHWC, which oneDNN's
CPU convolutions run faster than NCHW (whole forward 1.25-1.6x on the development machine,
scripts/bench_net.py); every elementwise pass keeps the layout of its input.

This forward is the training one (batch statistics, gradients, the ownership target). Inference
(``inference.NetEvaluator``) runs the same network through ``folded.FoldedNet``: eval-mode batch
norms folded into the convolutions once per weight version, the ownership head only on request.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from ..config import NetConfig
from ..errors import UserError
from ..game.options import MAX_SIDE, MIN_SIDE
from ..game.spec import HEX_DIRECTIONS, board_spec, num_cells
from .features import NUM_GLOBALS, NUM_PLANES, grid_side

# KataGo scales one pooled mean by (board width - 14) / 10, centred on 19x19. The hex analogue of
# the width is sqrt(cells); centre it on the standard side-6 board (R1).
REFERENCE_CELLS = num_cells(6)
POOL_FEATURES = 3  # mean, size-scaled mean, max (KataGo 2019, sec. 3)
# Policy logit of the padding actions of a mixed batch: far below any real logit, so a softmax
# gives them 0, yet finite in float16/bfloat16, so ``target * log_softmax`` stays 0 where the
# padded target is 0 (-inf would give 0 * -inf = NaN in a cross-entropy).
PAD_LOGIT = -1.0e4


@dataclass(frozen=True)
class NetOutput:
    """Per-cell network outputs for B positions, all from the perspective of the player to move."""

    # In a mixed batch A and N are the grid's (its full side's); sample b of side n uses the first
    # N_n + 1 and N_n entries, the rest is padding (PAD_LOGIT, 0).
    policy_logits: torch.Tensor  # [B, A] cells in notation order, then the button (index N)
    wdl_logits: torch.Tensor  # [B, 3] win, draw, loss
    score: torch.Tensor  # [B] final score margin / features.score_scale(game), mover minus opponent
    # [B, N] in [-1, 1]: +1 mover's stone at the end, -1 opponent's, 0 empty. None where the caller did not
    # ask for it (folded.FoldedNet without ownership=True: search uses only policy, value and score).
    ownership: torch.Tensor | None


def size_term(cells: int) -> float:
    """Scale of the size-scaled pooled mean: 0 on side 6, negative on smaller boards."""
    return (math.sqrt(cells) - math.sqrt(REFERENCE_CELLS)) / 10.0


class SideTables:
    """Per-side lookup tables for mixed batches on one ``G`` grid, indexed by side (0..(G+1)/2).

    Each side n's board sits at the grid origin (rows and columns 0..2n-2). Rows for sides that
    do not fit (and 0, 1) are unused.
    """

    def __init__(self, grid_size: int, device: torch.device) -> None:
        full = board_spec(grid_side(grid_size))
        g, sides = grid_size, range(MIN_SIDE, full.side + 1)
        n_full, a_full = full.num_cells, full.num_actions
        masks = torch.zeros(full.side + 1, g, g, dtype=torch.bool)
        cells = torch.ones(full.side + 1)  # 1, not 0, on unused rows: no 0/0 anywhere
        size_terms = torch.zeros(full.side + 1)
        # Gather indices into [cell values (G*G), button, pad] and [cell values (G*G), pad].
        actions = torch.full((full.side + 1, a_full), g * g + 1, dtype=torch.long)
        cell_index = torch.full((full.side + 1, n_full), g * g, dtype=torch.long)
        for side in sides:
            spec = board_spec(side)
            r, c = np.divmod(spec.cell_to_grid, spec.grid_size)
            at = torch.from_numpy(r * g + c)  # [N_side] the side's cells in the G grid, board at the origin
            masks[side].view(-1)[at] = True
            cells[side] = spec.num_cells
            size_terms[side] = size_term(spec.num_cells)
            actions[side, : spec.num_cells] = at
            actions[side, spec.num_cells] = g * g
            cell_index[side, : spec.num_cells] = at
        self.grid_size = g
        self.max_side = full.side
        self.masks = masks.to(device)  # [side, G, G]
        self.cells = cells.to(device)  # [side]
        self.size_terms = size_terms.to(device)  # [side]
        self.actions = actions.to(device)  # [side, A]
        self.cell_index = cell_index.to(device)  # [side, N]


class Board:
    """Where the board cells of a batch are in its ``[G, G]`` grid; shared by all layers of a forward.

    Uniform (``Board(grid_size, device)``): every sample's board fills the grid, the mask broadcasts
    over the batch. Mixed (``Board.mixed``): one board per sample, at the grid origin; the mask,
    the cell counts and the gathers are per sample.
    """

    def __init__(self, grid_size: int, device: torch.device) -> None:
        spec = board_spec(grid_side(grid_size))
        self.mixed_batch = False
        self.mask = torch.tensor(spec.board_mask, device=device).view(1, 1, grid_size, grid_size)
        self.fmask = self.mask.float()  # [1, 1, G, G] 1.0 on board cells
        self.num_cells = spec.num_cells  # cells per sample
        self.cell_to_grid = torch.tensor(spec.cell_to_grid, device=device)  # [N]
        # Size term of the pooled features: 0 on side 6, negative on smaller boards.
        self.size_term = size_term(spec.num_cells)
        self.total_cells: torch.Tensor | None = None  # mixed only: cells in the whole batch

    @classmethod
    def mixed(cls, sides: torch.Tensor, tables: SideTables) -> "Board":
        """A board per sample: ``sides`` [B] long, each in MIN_SIDE..(G+1)/2, on ``tables``' device."""
        board = cls.__new__(cls)
        g = tables.grid_size
        board.mixed_batch = True
        board.mask = tables.masks[sides].view(-1, 1, g, g)  # [B, 1, G, G]
        board.fmask = board.mask.float()
        cells = tables.cells[sides]  # [B]
        board.num_cells = cells[:, None]  # [B, 1], divides the pooled sums
        board.size_term = tables.size_terms[sides][:, None]  # [B, 1]
        board.total_cells = cells.sum()
        board.action_index = tables.actions[sides]  # [B, A]
        board.cell_index = tables.cell_index[sides]  # [B, N]
        return board

    def cells_in_batch(self, batch: int) -> torch.Tensor | int:
        """On-board cells summed over the batch (the count of masked batch-norm statistics)."""
        return self.total_cells if self.mixed_batch else self.num_cells * batch

    def gather_actions(self, cells: torch.Tensor, button: torch.Tensor) -> torch.Tensor:
        """cells [B, G*G], button [B, 1] -> [B, A] logits: each sample's cells, its button, then PAD_LOGIT."""
        if not self.mixed_batch:
            return torch.cat([cells[:, self.cell_to_grid], button], dim=1)
        pad = torch.full_like(button, PAD_LOGIT)
        return torch.gather(torch.cat([cells, button, pad], dim=1), 1, self.action_index)

    def gather_cells(self, values: torch.Tensor) -> torch.Tensor:
        """values [B, G*G] -> [B, N]: each sample's cells in notation order, then 0."""
        if not self.mixed_batch:
            return values[:, self.cell_to_grid]
        return torch.gather(torch.cat([values, values.new_zeros(values.shape[0], 1)], dim=1), 1, self.cell_index)


def hex_kernel_mask() -> torch.Tensor:
    """[3, 3] float: 1 on the centre and the six hex neighbours (R1), 0 on the other two corners.

    Grid rows are board rows (flat index r*G + c), so the conv tap at kernel row i, column j reads
    the cell at offset (dc, dr) = (j - 1, i - 1); the zeros land on (+1, -1) and (-1, +1).
    """
    mask = torch.zeros(3, 3)
    mask[1, 1] = 1.0
    for dc, dr in HEX_DIRECTIONS:
        mask[1 + dr, 1 + dc] = 1.0
    return mask


class HexConv2d(nn.Conv2d):
    """3x3 convolution restricted to the hex neighbourhood (the two non-adjacent corner taps are 0)."""

    def __init__(self, in_channels: int, out_channels: int, bias: bool = False) -> None:
        super().__init__(in_channels, out_channels, kernel_size=3, padding=1, bias=bias)
        self.register_buffer("tap_mask", hex_kernel_mask(), persistent=False)
        with torch.no_grad():
            self.weight.mul_(self.tap_mask)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self._conv_forward(x, self.weight * self.tap_mask, self.bias)


class MaskedBatchNorm2d(nn.Module):
    """Batch norm whose batch statistics count on-board cells only; the output is masked.

    Plain BatchNorm2d would average in the off-board zeros, whose share depends on the board
    side, so statistics learned on one side would be wrong on another (KataGo masks its
    normalisation the same way).

    It is not an ``nn.BatchNorm2d`` (its forward needs the board, so it cannot stand where one is
    called), but it holds the same state under the same names, ``nn.BatchNorm2d``'s version 2
    (``weight``, ``bias``, ``running_mean``, ``running_var``, ``num_batches_tracked``), so
    checkpoints and bot files read and write as they always have.
    """

    _version = 2  # the state-dict version of nn.BatchNorm2d whose state this is
    running_mean: torch.Tensor  # [K] buffers, registered in __init__
    running_var: torch.Tensor
    num_batches_tracked: torch.Tensor  # [] int64

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float = 0.1) -> None:
        super().__init__()
        self.num_features, self.eps, self.momentum = num_features, eps, momentum
        self.weight = nn.Parameter(torch.empty(num_features))
        self.bias = nn.Parameter(torch.empty(num_features))
        self.register_buffer("running_mean", torch.zeros(num_features))
        self.register_buffer("running_var", torch.ones(num_features))
        self.register_buffer("num_batches_tracked", torch.tensor(0, dtype=torch.long))
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """The identity map with fresh statistics: weight 1, bias 0, running mean 0, variance 1."""
        with torch.no_grad():
            self.weight.fill_(1.0)
            self.bias.zero_()
            self.running_mean.zero_()
            self.running_var.fill_(1.0)
            self.num_batches_tracked.zero_()

    def extra_repr(self) -> str:
        return f"{self.num_features}, eps={self.eps}, momentum={self.momentum}"

    def forward(self, x: torch.Tensor, board: Board) -> torch.Tensor:
        if self.training:
            count = board.cells_in_batch(x.shape[0])
            mean = (x * board.fmask).sum(dim=(0, 2, 3)) / count
            var = (((x - mean.view(1, -1, 1, 1)) * board.fmask) ** 2).sum(dim=(0, 2, 3)) / count
            with torch.no_grad():
                self.running_mean.lerp_(mean.float(), self.momentum)
                self.running_var.lerp_(var.float() * count / (count - 1), self.momentum)
                self.num_batches_tracked += 1
        else:
            mean, var = self.running_mean, self.running_var
        scale = self.weight * torch.rsqrt(var + self.eps)
        shift = self.bias - mean * scale
        if board.mixed_batch:  # a per-sample mask: scale and shift, then mask (two passes)
            y = torch.addcmul(shift.view(1, -1, 1, 1).to(x.dtype), x, scale.view(1, -1, 1, 1).to(x.dtype))
            return y.mul_(board.fmask)  # in place is safe for autograd: addcmul does not save its output
        # One fused pass: x * (scale on board) + (shift on board), so the output is masked whatever
        # the input holds off the board. Elementwise passes cost as much as the convs on a CPU.
        # The [1, K, G, G] operands take x's memory layout, so the output keeps it (NHWC stays NHWC).
        layout = torch.channels_last if x.is_contiguous(memory_format=torch.channels_last) else torch.contiguous_format
        masked_scale = (scale.view(1, -1, 1, 1) * board.fmask).to(x.dtype).contiguous(memory_format=layout)  # [1, K, G, G]
        masked_shift = (shift.view(1, -1, 1, 1) * board.fmask).to(x.dtype).contiguous(memory_format=layout)
        return torch.addcmul(masked_shift, x, masked_scale)


def masked_global_pool(x: torch.Tensor, board: Board) -> torch.Tensor:
    """[B, K, G, G] -> [B, 3K]: mean, size-scaled mean and max over each sample's on-board cells (KataGo 2019)."""
    mean = (x * board.fmask).sum(dim=(2, 3)) / board.num_cells  # num_cells: a number, or [B, 1] when mixed
    peak = x.masked_fill(~board.mask, float("-inf")).amax(dim=(2, 3))
    return torch.cat([mean, mean * board.size_term, peak], dim=1)


class GlobalPoolingBias(nn.Module):
    """KataGo's global pooling branch: pool some channels, map them to a per-channel bias.

    It lets a block see the whole board at once (how many moves are left, who leads), which a
    stack of local convolutions sees only after many layers.
    """

    def __init__(self, pool_channels: int, out_channels: int) -> None:
        super().__init__()
        self.norm = MaskedBatchNorm2d(pool_channels)
        self.linear = nn.Linear(POOL_FEATURES * pool_channels, out_channels)

    def forward(self, g: torch.Tensor, board: Board) -> torch.Tensor:
        pooled = masked_global_pool(F.relu(self.norm(g, board), inplace=True), board)  # [B, 3 * pool_channels]
        return self.linear(pooled)[:, :, None, None]  # [B, out_channels, 1, 1]


class ResidualBlock(nn.Module):
    """Pre-activation residual block (BN-ReLU-conv twice), optionally with a pooling branch."""

    def __init__(self, channels: int, pool_channels: int = 0) -> None:
        super().__init__()
        self.channels = channels
        self.pool_channels = pool_channels
        self.norm1 = MaskedBatchNorm2d(channels)
        self.conv1 = HexConv2d(channels, channels + pool_channels)
        self.pool = GlobalPoolingBias(pool_channels, channels) if pool_channels else None
        self.norm2 = MaskedBatchNorm2d(channels)
        self.conv2 = HexConv2d(channels, channels)

    def forward(self, x: torch.Tensor, board: Board) -> torch.Tensor:
        # conv1's output leaks off the board; the masked norms reading it (norm2, the pool's) drop it.
        h = self.conv1(F.relu(self.norm1(x, board), inplace=True))
        if self.pool is not None:
            h, g = h.split([self.channels, self.pool_channels], dim=1)
            h = h + self.pool(g, board)
        h = self.conv2(F.relu(self.norm2(h, board), inplace=True))
        return torch.addcmul(x, h, board.fmask)  # x + h on the board; x is already 0 off it


class PolicyHead(nn.Module):
    """[B, A] logits: cells from a conv biased by pooled features, the button from the pooled features.

    Taking the button is a global decision (R4/R6: it is worth 0.5 and decides longest-scoring
    ties), so it reads the pooled branch rather than any single cell (KataGo's pass logit).
    """

    def __init__(self, channels: int, head_channels: int) -> None:
        super().__init__()
        self.cells = nn.Conv2d(channels, head_channels, 1, bias=False)
        self.gpool = nn.Conv2d(channels, head_channels, 1, bias=False)
        self.gpool_norm = MaskedBatchNorm2d(head_channels)
        self.gpool_bias = nn.Linear(POOL_FEATURES * head_channels, head_channels)
        self.norm = MaskedBatchNorm2d(head_channels)
        self.cell_logit = nn.Conv2d(head_channels, 1, 1)
        self.button_logit = nn.Linear(POOL_FEATURES * head_channels, 1)

    def forward(self, x: torch.Tensor, board: Board) -> torch.Tensor:
        pooled = masked_global_pool(F.relu(self.gpool_norm(self.gpool(x), board), inplace=True), board)  # [B, 3H]
        h = self.cells(x) + self.gpool_bias(pooled)[:, :, None, None]
        cells = self.cell_logit(F.relu(self.norm(h, board), inplace=True)).flatten(1)  # [B, G*G]
        return board.gather_actions(cells, self.button_logit(pooled))  # [B, A]


class ValueHead(nn.Module):
    """Win/draw/loss logits, score margin and per-cell ownership (KataGo's auxiliary targets)."""

    def __init__(self, channels: int, head_channels: int, hidden: int) -> None:
        super().__init__()
        self.conv = nn.Conv2d(channels, head_channels, 1, bias=False)
        self.norm = MaskedBatchNorm2d(head_channels)
        self.ownership = nn.Conv2d(head_channels, 1, 1)
        self.hidden = nn.Linear(POOL_FEATURES * head_channels, hidden)
        self.wdl = nn.Linear(hidden, 3)
        self.score = nn.Linear(hidden, 1)

    def forward(self, x: torch.Tensor, board: Board) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        v = F.relu(self.norm(self.conv(x), board), inplace=True)  # [B, H, G, G]
        ownership = torch.tanh(board.gather_cells(self.ownership(v).flatten(1)))  # [B, N]
        h = F.relu(self.hidden(masked_global_pool(v, board)))
        return self.wdl(h), self.score(h).squeeze(1), ownership


def check_inputs(
    planes: torch.Tensor, globals_: torch.Tensor, sides: torch.Tensor | None, num_planes: int, num_globals: int
) -> int:
    """ValueError unless planes [B, C, G, G], globals [B, F] and sides [B] (or None) fit a forward
    (``CatenaNet``'s and ``folded.FoldedNet``'s); returns G."""
    if planes.ndim != 4 or planes.shape[1] != num_planes or planes.shape[2] != planes.shape[3]:
        raise ValueError(f"planes must be [B, {num_planes}, G, G], got {list(planes.shape)}")
    g = planes.shape[2]
    if g % 2 == 0 or not 2 * MIN_SIDE - 1 <= g <= 2 * MAX_SIDE - 1:
        raise ValueError(f"grid size must be 2n-1 for a side n in {MIN_SIDE}..{MAX_SIDE}, got {g}")
    if globals_.shape != (planes.shape[0], num_globals):
        raise ValueError(f"globals must be [{planes.shape[0]}, {num_globals}], got {list(globals_.shape)}")
    if sides is not None:
        if sides.shape != (planes.shape[0],):
            raise ValueError(f"sides must be [{planes.shape[0]}], got {list(sides.shape)}")
        if len(sides) and not (MIN_SIDE <= int(sides.min()) and int(sides.max()) <= grid_side(g)):
            raise ValueError(f"sides must be in {MIN_SIDE}..{grid_side(g)} on a {g}x{g} grid, got {sides.tolist()}")
    return g


class CatenaNet(nn.Module):
    """Trunk of residual hex-conv blocks + policy and value heads; ``forward(planes, globals)``."""

    def __init__(self, config: NetConfig, num_planes: int = NUM_PLANES, num_globals: int = NUM_GLOBALS) -> None:
        super().__init__()
        self.config = config
        self.num_planes = num_planes
        self.num_globals = num_globals
        k = config.channels
        self.stem = HexConv2d(num_planes, k)
        # Rules and button state enter as a per-channel bias on the trunk (KataGo's global inputs).
        self.global_in = nn.Linear(num_globals, k, bias=False)
        pool_channels = max(k // 4, 1)
        every = config.global_pool_every
        self.blocks = nn.ModuleList(
            ResidualBlock(k, pool_channels if every and (i + 1) % every == 0 else 0) for i in range(config.blocks)
        )
        self.trunk_norm = MaskedBatchNorm2d(k)
        self.policy = PolicyHead(k, config.head_channels)
        self.value = ValueHead(k, config.head_channels, config.value_hidden)
        self._boards: dict[tuple[int, torch.device], Board] = {}
        self._side_tables: dict[tuple[int, torch.device], SideTables] = {}

    def board(self, grid_size: int, device: torch.device, sides: torch.Tensor | None = None) -> Board:
        """The uniform board of the grid, or with ``sides`` [B] one board per sample at the grid origin."""
        key = (int(grid_size), device)  # int: under TorchScript tracing a shape is a tensor
        if sides is not None:
            if key not in self._side_tables:
                self._new_side_tables(key)
            tables = self._side_tables[key]
            # A batch whose boards all fill the grid takes the uniform path (fused, broadcast mask).
            if not bool((sides == tables.max_side).all()):
                return Board.mixed(sides.to(device=device, dtype=torch.long), tables)
        if key not in self._boards:
            self._new_board(key)
        return self._boards[key]

    # Built once per grid and device, outside torch.compile's tracing (it cannot trace building
    # tensors from the spec's numpy tables); later calls only read the caches.
    @torch.compiler.disable
    def _new_board(self, key: tuple[int, torch.device]) -> None:
        self._boards[key] = Board(*key)

    @torch.compiler.disable
    def _new_side_tables(self, key: tuple[int, torch.device]) -> None:
        self._side_tables[key] = SideTables(*key)

    def forward(self, planes: torch.Tensor, globals_: torch.Tensor, sides: torch.Tensor | None = None) -> NetOutput:
        """planes [B, C, G, G], globals [B, F] (features.encode), sides [B] or None -> NetOutput.

        Without ``sides`` every sample is a board of side (G+1)/2. With ``sides`` (a mixed batch,
        features.pad_features) sample b is a side-``sides[b]`` board at the grid origin, and its
        outputs are ``policy_logits[b, :N_b + 1]`` and ``ownership[b, :N_b]`` (see the module notes).
        ``sides`` may stay on the CPU when the model is on a GPU: its checks then need no device sync.
        """
        grid = check_inputs(planes, globals_, sides, self.num_planes, self.num_globals)
        board = self.board(grid, planes.device, sides)
        if self.config.channels_last:
            planes = planes.contiguous(memory_format=torch.channels_last)
        x = (self.stem(planes * board.fmask) + self.global_in(globals_)[:, :, None, None]) * board.fmask
        for block in self.blocks:
            x = block(x, board)
        x = F.relu(self.trunk_norm(x, board), inplace=True)
        policy_logits = self.policy(x, board)
        wdl, score, ownership = self.value(x, board)
        return NetOutput(policy_logits=policy_logits, wdl_logits=wdl, score=score, ownership=ownership)


def model_from_config(config: NetConfig, generator: torch.Generator | None = None) -> CatenaNet:
    """A freshly initialised network; ``generator`` makes the initialisation reproducible.

    PyTorch initialises layers from its global generator, so with ``generator`` the model is built
    under a forked global state seeded from it, leaving the caller's global state untouched.
    """
    if generator is None:
        return CatenaNet(config)
    seed = int(torch.randint(0, 2**62, (1,), generator=generator))
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        return CatenaNet(config)


def deepened(model: CatenaNet, config: NetConfig, generator: torch.Generator | None = None) -> CatenaNet:
    """The network of ``config`` (``model``'s architecture with more blocks) computing exactly
    ``model``'s function: its blocks and heads copied, the new blocks appended after them with their
    last convolution zero, so each adds nothing to the trunk (Net2DeeperNet, Chen et al. 2016; the
    zero residual branch of Goyal et al. 2017). Pre-activation blocks make this exact in training and
    in eval mode alike. Training then grows the new blocks from that start: a longer run of a deeper
    network continues where the shallower one stopped instead of from random weights. A block keeps
    its global pooling branch, which depends only on its index (``global_pool_every``).
    ``generator`` draws the new blocks' other weights. ``ValueError`` if ``config`` is not ``model``'s
    architecture with at least as many blocks."""
    old = model.config
    same = dataclasses.replace(config.architecture(), blocks=old.blocks) == old.architecture()
    if not same or config.blocks < old.blocks:
        raise ValueError(f"a network of {old.blocks} blocks deepens only to its own architecture with more blocks")
    grown = model_from_config(config, generator)
    grown.load_state_dict(model.state_dict(), strict=False)  # missing: the new blocks' tensors
    with torch.no_grad():
        for block in grown.blocks[old.blocks:]:
            block.conv2.weight.zero_()
    return grown.train(model.training)


class WeightsMismatch(UserError):
    """A state dict does not fit the network of a ``NetConfig`` (missing, unexpected or misshapen tensors)."""


def model_from_weights(config: NetConfig, weights: dict) -> CatenaNet:
    """The network of ``config`` holding ``weights`` (a state dict), in eval mode: the one way a
    checkpoint, a bot file or weights sent to a worker become a model. ``WeightsMismatch`` (one
    line, torch's first) if they do not fit; callers prefix where the weights came from."""
    model = CatenaNet(config)
    try:
        model.load_state_dict(weights)
    except (RuntimeError, TypeError, AttributeError) as exc:
        first = str(exc).strip().splitlines()[0][:200] if str(exc).strip() else type(exc).__name__
        raise WeightsMismatch(f"weights do not fit its network config: {first}") from None
    return model.eval()


def num_parameters(model: nn.Module) -> int:
    """Number of trainable parameters (masked corner taps of hex kernels included)."""
    return sum(p.numel() for p in model.parameters() if p.requires_grad)


# CatenaNet's one layer that reads the global inputs: [channels, F] (``CatenaNet.global_in``).
_GLOBALS_WEIGHT = "global_in.weight"


def weights_in_current_layout(weights: dict, version: int, error: type[UserError], where: str) -> dict:
    """``weights`` (a state dict) of input layout ``version`` in the code's layout (artifacts/network.py's
    docstring: its new one-hot slots get zero weights); ``error`` naming ``where`` for a layout the code cannot read."""
    from . import features  # read at call time: the layouts a test declares are the ones in force

    if version == features.INPUT_LAYOUT_VERSION:
        return weights
    problem = features.layout_problem(version)
    if problem is not None:
        raise error(f"{where}: {problem}")
    positions = features.INPUT_LAYOUT.global_positions(features.input_layout(version))
    old = weights.get(_GLOBALS_WEIGHT)
    if old is None or old.ndim != 2 or old.shape[1] != len(positions):
        return weights  # not the network it claims to be: its own check names the misfit
    new = old.new_zeros((old.shape[0], features.INPUT_LAYOUT.num_globals))
    new[:, torch.from_numpy(positions)] = old
    return {**weights, _GLOBALS_WEIGHT: new}
