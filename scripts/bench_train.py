"""Benchmark: replay memory per position, sample + encode throughput, learner steps per second.

Shape legend: B samples per batch (``--batch``, 256 = TrainConfig.batch_size), N cells.

1. Bytes per position of ``ReplayBuffer`` on sides 4, 6 and 10 and a mixed 4+6+10 buffer (the
   arrays' real sizes), and what 1,000,000 side-6 positions take.
2. ``ReplayBuffer.sample(B)`` on side 6 (uniform draw from the window, ``encode`` of the packed
   rows, random symmetry of planes, policy and ownership), against the baseline measured in the
   same run: ``encode`` alone of B rows already gathered (what any replay of env rows must pay).
3. ``Learner.step`` (forward, losses, backward, clipping, SGD step) for the tiny net and the
   default ``NetConfig()`` on side 6 batches, against the baseline of one forward pass of the same
   batch in eval mode.

4. Fraction of the CPU's float32 peak (section ``peak``): ``Learner.step`` on 1 thread (the
   learner's share of quick.yaml's 2-core run) of quick.yaml's 4x32 network (side 4), side6.yaml's
   5x32 and the shipped side6.bot's 8x32 (side 6), each with its run's train section (AdamW, batch
   128; ``--peak-batch``): FLOPs per sample of forward + backward (convolutions and matmuls, torch's
   ``FlopCounterMode``), milliseconds per step (median CPU time), and the fraction of the nominal
   peak and of a one-thread 2048^3 matmul's (``scripts/_machine.py``). Rows against it: NCHW, oneDNN
   off, half and double the batch (samples/s), inter-op threads 1 against torch's default (a process
   each); a row on the same batch is the same step when the total loss and every gradient (against
   the largest) are within ``GRAD_TOLERANCE`` of the reference's. ``--emulate-avx2``: AVX2 kernels.

Positions come from uniformly random games. Sections 2-3: each figure is the fastest of repeated
timings (other processes on a shared machine only slow a run down). Every run prints the CPU, its
instruction set and the peak first.

Measured 2026-12-07 with ``--sections peak --peak-seconds 2`` on a 2-core KVM guest "Intel(R)
Xeon(R) Processor" (family 6 model 167, 2600 MHz, flags avx2 fma avx512f/bw/vl avx512_bf16 amx_tile),
two training runs beside it (CPU time, medians); batch 128, ms/step (fraction of nominal / of
matmul peak); matmul peak AVX-512 146.6, AVX2 (``--emulate-avx2``) 107.4 GFLOP/s:

| net | MFLOP/sample | AVX-512 | AVX2 (emulated) |
| --- | ---: | ---: | ---: |
| quick 4x32, side 4 | 24.1 | 93.8 (19.8% / 22.5%) | 90.1 (41.2% / 31.9%) |
| side6 5x32, side 6 | 73.0 | 220.6 (25.4% / 28.9%) | 249.4 (45.0% / 34.9%) |
| side6.bot 8x32, side 6 | 116.5 | 333.4 (26.9% / 30.5%) | 368.0 (48.7% / 37.7%) |

The step is not bound by FLOPs: AVX2 kernels run it as fast (quick) or 1.1x slower (side 6). By
torch's profiler (quick, AVX-512) the convolutions forward and backward take about a third of it
and the elementwise passes of the masked batch norms (multiply by the board mask, sums, squares,
copies) most of the rest. Rows (AVX-512 / AVX2): NCHW 1.00-1.03x / 0.97-1.02x (the same step,
except AVX2 side 6 with gradients 3-6e-4 apart); oneDNN off 0.58-0.62x / 0.58-0.66x; batch 64
0.85-0.94x / 0.84-0.99x and 256 0.93-1.11x / 0.96-1.03x samples/s; inter-op threads 1 or 2 equal
within the noise (quick, 4 alternating processes each: 73.8 vs 72.2 ms).

Run: .venv/bin/python scripts/bench_train.py [--batch 256] [--threads T] [--sections peak] [--emulate-avx2]
The last line reads ``bench_train [ISA]: side 6 batch B: sample+encode X samples/s (encode alone Y),
side 6 batch B: tiny net S1 steps/s, default net S2 steps/s, P bytes/position, NET step F% of nominal
peak, M% of matmul peak, ...``.
"""

from __future__ import annotations

import argparse
import dataclasses
import subprocess
import sys
import time
import warnings

import numpy as np
import torch

from catena_zero.config import NetConfig, ReplayConfig, TrainConfig
from catena_zero.game import GameConfig
from catena_zero.game.options import RuleSet
from catena_zero.game.vec import EMPTY, VecEnv
from catena_zero.net import encode
from catena_zero.selfplay.types import Trajectory
from catena_zero.train.learner import Learner
from catena_zero.train.replay import Batch, ReplayBuffer, position_bytes

import _machine  # scripts/_machine.py: the CPU, its instruction set and float32 peak

# torch.backends.mkldnn.flags warns on every entry and exit that TF32 is for Intel GPUs only
warnings.filterwarnings("ignore", message="TF32 acceleration on top of oneDNN")

SIDE = 6
MIN_SECONDS = 2.0
TINY = NetConfig(blocks=2, channels=16, global_pool_every=1, head_channels=8, value_hidden=16)


def best_seconds(fn, min_seconds: float = MIN_SECONDS) -> float:
    """Fastest of repeated calls of ``fn`` (after a warm-up), over at least ``min_seconds``."""
    fn()
    best, started = float("inf"), time.perf_counter()
    while time.perf_counter() - started < min_seconds:
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def random_trajectory(game: GameConfig, games: int, rng: np.random.Generator) -> Trajectory:
    """Positions of uniformly random games with their final targets (policy: uniform over legal moves)."""
    env = VecEnv(game)
    state = env.reset(games, rng.integers(0, 8, size=games))
    rows, policies, owner_game = [], [], []
    while not state.done.all():
        active = np.flatnonzero(~state.done)
        legal = env.legal_actions(state)
        rows.append(state.data[active].copy())
        policies.append((legal[active] / legal[active].sum(axis=1, keepdims=True)).astype(np.float16))
        owner_game.append(active)
        env.step(state, np.where(legal, rng.random(legal.shape), -1.0).argmax(axis=1))
    data, game_of = np.concatenate(rows), np.concatenate(owner_game)
    probe = env.reset(len(data))
    probe.data[:] = data
    mover = probe.to_move
    final = state.board[game_of]
    winner = state.winner[game_of]
    t = len(data)
    return Trajectory(
        game=game, states=data, policy=np.concatenate(policies), has_policy=rng.random(t) < 0.5,
        outcome=np.where(winner == EMPTY, 0, np.where(winner == mover, 1, -1)).astype(np.int8),
        score=rng.normal(0, 5, t).astype(np.float32),
        ownership=np.where(final == EMPTY, 0, np.where(final == mover[:, None], 1, -1)).astype(np.int8),
        weight=np.ones(t, dtype=np.float32), version=np.zeros(t, dtype=np.int32),
    )


GRAD_TOLERANCE = 1e-4  # |d total loss| and max |d grad| / max |grad| (over all parameters): the same step


def side_batch(side: int, size: int, seed: int = 0) -> Batch:
    """A replay sample of ``size`` positions of random side-``side`` games (the learner's input)."""
    rng = np.random.default_rng(seed)
    game = GameConfig(side=side)
    buffer = ReplayBuffer(ReplayConfig(capacity=50_000, min_positions=1), [RuleSet.of(game)])
    while buffer.positions_added < 4 * size:
        buffer.add(random_trajectory(game, 64, rng))
    return buffer.sample(size, rng)


def _mkldnn(enabled: bool):
    """torch.backends.mkldnn.flags (oneDNN on or off for the convolutions)."""
    return torch.backends.mkldnn.flags(enabled=enabled)


def ceiling_learner(entry, channels_last: bool = True) -> Learner:
    """The learner of ``entry``'s run (its train section, on the CPU, no warm-up), weights from seed 0."""
    train = dataclasses.replace(entry.train, warmup_steps=0, device="cpu", compile=False)
    net = dataclasses.replace(entry.net, channels_last=channels_last)
    return Learner(net, train, generator=torch.Generator().manual_seed(0))


def gradients(entry, batch: Batch, channels_last: bool, mkldnn: bool) -> tuple[float, list[torch.Tensor]]:
    """Total loss and gradients of one training forward + backward from the seed-0 weights."""
    learner = ceiling_learner(entry, channels_last)
    learner.model.train()
    with _mkldnn(mkldnn):
        losses = learner.losses(batch)
        losses.total.backward()
    return float(losses.total.detach()), [p.grad.clone() for p in learner.model.parameters() if p.grad is not None]


def bench_peak(args, machine) -> dict:
    """The learner step (forward, losses, backward, clipping, optimiser) of quick.yaml's, side6.yaml's
    and the shipped side6.bot's networks against the CPU's float32 peak, on 1 thread (the learner's
    share in quick.yaml's 2-core run), and the cheap candidate speed-ups as rows against it."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    matmul = _machine.measured_peak()
    nominal = machine.nominal.gflops if machine.nominal else float("nan")
    print(f"4. fraction of peak, learner step, 1 thread, CPU time (median); {machine.tag()} nominal peak "
          f"{nominal:.1f} GFLOP/s per core, measured peak (one-thread 2048^3 float32 matmul) {matmul:.1f} GFLOP/s. "
          "FLOPs: convolutions and matmuls of forward + backward, torch's FlopCounterMode")
    print(f"   {'net':<16} {'side':>4} {'batch':>5}  {'variant':<24} {'MFLOP/sample':>12} {'ms/step':>8} "
          f"{'samples/s':>9} {'GFLOP/s':>8} {'%nominal':>8} {'%matmul':>8} {'vs ref':>7}  {'|dloss|':>8} "
          f"{'rel dgrad':>9}  same")
    fractions = {}
    for entry in _machine.ceiling_nets():
        b = args.peak_batch or entry.train.batch_size
        rows = [(b, "channels_last (ref)", True, True), (b, "nchw", False, True),
                (b, "channels_last mkldnn off", True, False), (b // 2, "channels_last", True, True),
                (b * 2, "channels_last", True, True)]
        batches = {size: side_batch(entry.side, size) for size in {row[0] for row in rows}}
        ref_loss, ref_grads = gradients(entry, batches[b], True, True)
        ref_per_sample = None
        for size, variant, channels_last, mkldnn in rows:
            learner = ceiling_learner(entry, channels_last)

            def step(learner=learner, batch=batches[size], mkldnn=mkldnn):
                with _mkldnn(mkldnn):
                    learner.step(batch)

            flops = _machine.count_flops(step) / size
            seconds = _machine.median_seconds(step, args.peak_seconds)
            per_sample = seconds / size
            ref_per_sample = ref_per_sample or per_sample
            gflops = flops / per_sample / 1e9
            same = "-"
            if size == b:  # the same batch: the same step within the tolerance?
                loss, grads = gradients(entry, batches[size], channels_last, mkldnn)
                dloss = abs(loss - ref_loss)
                # against the largest gradient of any parameter: a parameter whose gradient is zero up
                # to rounding (a bias that a batch norm cancels) has no relative difference worth naming
                scale = max(float(r.abs().max()) for r in ref_grads)
                dgrad = max(float((g - r).abs().max()) for g, r in zip(grads, ref_grads)) / scale
                same = (f"{dloss:>8.1e} {dgrad:>9.1e}  "
                        f"{'yes' if dloss <= GRAD_TOLERANCE and dgrad <= GRAD_TOLERANCE else 'NO'}")
            print(f"   {entry.label:<16} {entry.side:>4} {size:>5}  {variant:<24} {flops / 1e6:>12.2f} "
                  f"{seconds * 1e3:>8.2f} {1 / per_sample:>9.0f} {gflops:>8.2f} {gflops / nominal:>8.1%} "
                  f"{gflops / matmul:>8.1%} {ref_per_sample / per_sample:>6.2f}x  {same}")
            if variant.endswith("(ref)"):
                fractions[entry.label] = (gflops / nominal, gflops / matmul)
        probes = {}
        for interop in (1, 0):
            cmd = [sys.executable, __file__, "--interop-probe", str(interop), "--probe-net", entry.label,
                   "--peak-seconds", str(args.peak_seconds)] + (["--peak-batch", str(b)] if args.peak_batch else [])
            count, sec = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout.split()[-2:]
            probes[interop] = (int(count), float(sec))
        print(f"   {entry.label:<16} {entry.side:>4} {b:>5}  inter-op threads {probes[1][0]} vs torch's default "
              f"({probes[0][0]}): {probes[1][1] * 1e3:.2f} vs {probes[0][1] * 1e3:.2f} ms/step (one process each)")
    torch.set_num_threads(threads)
    return fractions


def interop_probe(interop: int, label: str, batch: int | None, seconds: float) -> None:
    """Subprocess: the median CPU seconds of one learner step of ceiling net ``label`` with ``interop``
    inter-op threads (0: torch's default), 1 intra-op thread; prints the count and the seconds."""
    if interop:
        torch.set_num_interop_threads(interop)
    torch.set_num_threads(1)
    entry = next(e for e in _machine.ceiling_nets() if e.label == label)
    learner = ceiling_learner(entry)
    batch_ = side_batch(entry.side, batch or entry.train.batch_size)
    print(torch.get_num_interop_threads(), _machine.median_seconds(lambda: learner.step(batch_), seconds))


def main() -> None:
    _machine.emulate_avx2(sys.argv)
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batch", type=int, default=TrainConfig().batch_size)
    parser.add_argument("--threads", type=int, default=None, help="torch threads (default: torch's choice)")
    parser.add_argument("--sections", nargs="+", default=["memory", "sample", "learner", "peak"],
                        choices=["memory", "sample", "learner", "peak"])
    parser.add_argument("--peak-batch", type=int, default=None,
                        help="section peak: the reference batch (default: each run's train.batch_size)")
    parser.add_argument("--peak-seconds", type=float, default=3.0, help="section peak: time each row this long")
    parser.add_argument("--emulate-avx2", action="store_true",
                        help="run with torch, oneDNN and MKL capped at AVX2 (scripts/_machine.py)")
    parser.add_argument("--interop-probe", type=int, default=None, help=argparse.SUPPRESS)
    parser.add_argument("--probe-net", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.interop_probe is not None:
        interop_probe(args.interop_probe, args.probe_net, args.peak_batch, args.peak_seconds)
        return
    if args.threads:
        torch.set_num_threads(args.threads)
    b = args.batch
    machine = _machine.describe()
    print(machine.line())
    parts = []
    if "memory" in args.sections:
        parts.append(f"{memory()} bytes/position")
    if "sample" in args.sections or "learner" in args.sections:
        parts[:0] = sample_and_learner(args, b)
    if "peak" in args.sections:
        fractions = bench_peak(args, machine)
        parts += [f"{label} step {nom:.1%} of nominal peak, {mm:.1%} of matmul peak"
                  for label, (nom, mm) in fractions.items()]
    print(f"bench_train {machine.tag()}: " + ", ".join(parts))


def memory() -> int:
    """Section 1: bytes per position of the replay buffer; returns side 6's."""
    print("1. replay memory (ReplayBuffer arrays: packed env row int16, policy float16, ownership int8, scalars)")
    for sides in ((4,), (6,), (10,), (4, 6, 10)):
        games = [GameConfig(side=s) for s in sides]
        buffer = ReplayBuffer(ReplayConfig(capacity=1000), [RuleSet.of(g) for g in games])
        assert buffer.bytes_per_position == position_bytes([RuleSet.of(g) for g in games])
        label = "+".join(map(str, sides))
        print(f"   side {label:>6}: {buffer.bytes_per_position:6.0f} bytes/position, "
              f"1M positions {buffer.bytes_per_position * 1e6 / 2**30:5.2f} GiB")
    return position_bytes([RuleSet.of(GameConfig(side=SIDE))])


def sample_and_learner(args, b: int) -> list[str]:
    """Sections 2 (sample + encode) and 3 (learner steps of the tiny and default nets); their summaries."""
    rng = np.random.default_rng(0)
    game = GameConfig(side=SIDE)
    trajectory = random_trajectory(game, 128, rng)
    buffer = ReplayBuffer(ReplayConfig(capacity=100_000, min_positions=1), [RuleSet.of(game)])
    while buffer.positions_added < 20_000:
        buffer.add(trajectory)
    env = VecEnv(game)
    rows = trajectory.states[rng.integers(0, trajectory.num_positions, size=b)]

    def encode_alone() -> None:
        state = env.reset(b)
        state.data[:] = rows
        encode(env, state)

    parts = []
    if "sample" in args.sections:
        sample_s = best_seconds(lambda: buffer.sample(b, rng))
        encode_s = best_seconds(encode_alone)
        print(f"2. sample+encode, side {SIDE}, batch {b} ({buffer.window} positions in the window)")
        print(f"   ReplayBuffer.sample: {sample_s * 1e3:7.2f} ms = {b / sample_s:8.0f} samples/s")
        print(f"   encode alone (baseline): {encode_s * 1e3:7.2f} ms = {b / encode_s:8.0f} samples/s "
              f"(sampling and symmetries add {100 * (sample_s / encode_s - 1):.0f}%)")
        parts.append(f"side {SIDE} batch {b}: sample+encode {b / sample_s:.0f} samples/s (encode alone {b / encode_s:.0f})")
    if "learner" not in args.sections:
        return parts

    batch = buffer.sample(b, rng)
    print(f"3. learner, side {SIDE}, batch {b}, {torch.get_num_threads()} torch threads, device "
          f"{Learner(TINY, TrainConfig()).device}")
    rates = {}
    for name, net in (("tiny", TINY), ("default", NetConfig())):
        learner = Learner(net, TrainConfig(warmup_steps=0), generator=torch.Generator().manual_seed(0))
        step_s = best_seconds(lambda: learner.step(batch), min_seconds=4.0 if name == "default" else MIN_SECONDS)
        part = batch.parts[0]
        planes = torch.from_numpy(part.planes).to(learner.device)
        globals_ = torch.from_numpy(part.globals).to(learner.device)

        def forward() -> None:
            learner.model.eval()
            with torch.inference_mode():
                learner.model(planes, globals_)

        forward_s = best_seconds(forward)
        rates[name] = 1.0 / step_s
        print(f"   {name:>7} net ({net.blocks} blocks x {net.channels}): step {step_s * 1e3:8.1f} ms = "
              f"{1 / step_s:6.2f} steps/s = {b / step_s:7.0f} samples/s; forward alone (baseline) "
              f"{forward_s * 1e3:7.1f} ms, step/forward {step_s / forward_s:4.1f}x")
    parts.append(f"side {SIDE} batch {b}: tiny net {rates['tiny']:.2f} steps/s, default net {rates['default']:.2f} steps/s")
    return parts

if __name__ == "__main__":
    main()
