"""Benchmark: CPU inference speed of the network (catena_zero/net) against today's float32 path.

Shape legend: B positions per forward pass, C planes, G grid width (7 on side 4, 11 on side 6).

Baseline, measured in the same run: ``CatenaNet`` in eval mode under ``torch.inference_mode``,
float32, NCHW activations (``NetConfig(channels_last=False)``: the path before this benchmark).
For each network (default 6 blocks x 64 channels; tiny 3 x 32), side (4, 6) and batch (64, 256,
1024) it times, on encoded positions a few random moves into a game:

- ``float32 channels_last``: NHWC activations (``NetConfig.channels_last``);
- ``no_grad channels_last``: ``torch.no_grad`` instead of ``torch.inference_mode``;
- ``bfloat16 channels_last`` (and ``bfloat16 nchw`` at the smallest batch): CPU autocast
  (``NetConfig.cpu_precision = "bfloat16"``);
- ``compile channels_last`` at one batch (``--compile-batch``): ``torch.compile``, its compile time
  (first call) printed separately;
- ``jit.freeze channels_last`` / ``jit.freeze nchw``: TorchScript, traced for the batch, frozen and
  ``torch.jit.optimize_for_inference`` (conv-batch-norm folding, MKLDNN layouts), the one faster
  CPU path that needs no new package (ONNX Runtime or OpenVINO would be a new dependency, worth
  it only if this kind of graph-level fusion pays at all); tracing time printed separately.

Inference-only path (section ``inference``, first): ``folded.FoldedNet`` (what ``NetEvaluator``
runs: batch norms folded once per weight version, no ownership head) against today's path, the
eval-mode ``CatenaNet`` forward as ``NetEvaluator`` ran it before (channels_last, inference_mode,
float32, or bfloat16 autocast with ``cpu_precision = "bfloat16"``), per net, side and batch
(``--inference-batches``), in microseconds per position (CPU time of one forward / batch):

- ``today float32`` (the reference of the speed-ups and differences) and ``folded float32``;
- ``today bfloat16`` (autocast) and ``folded bfloat16`` (native bfloat16 weights and activations);
- ``compiled folded float32`` / ``bfloat16`` at ``--compile-batch`` (``NetConfig.compile``), the
  compile time (first call) printed separately.

Each row also gives the largest absolute differences, over the batch, of the priors, the value and
the normalised score from ``today float32``.

Each variant's accuracy against the baseline: the largest absolute difference of the priors
(softmax over legal actions) and of the value (P(win) - P(loss)) over the batch. "Equal accuracy"
means both within ``TOLERANCE`` = 1e-4 (float32 reassociation gives ~1e-6; bfloat16 keeps 8
mantissa bits, ~4e-3 relative). Then: torch threads 1 vs 2 (wall time), inter-op threads 1 vs
torch's default (a subprocess each: the inter-op count can be set once per process), and one
padded forward of a mixed side-4/5/6 batch against separate forwards per side (and
``NetEvaluator.evaluate_many`` against separate evaluator calls).

Timing: the shared development machine runs other jobs, so single-thread rows report the
process's CPU time (``time.process_time``: unaffected by being preempted), the fastest of
repeated calls after a warm-up, variants interleaved; the thread rows must use wall time.

Figures behind ``NetConfig``'s defaults (measured with this script on the AVX2 development CPU,
no AVX512_BF16/AMX): ``cpu_precision`` bfloat16 was 3-6x slower than float32 and off by up to
3e-4 in value; ``channels_last`` made inference 1.25-1.6x faster than NCHW; ``compile`` gained
1.05-1.1x over eager channels_last for the default net and 1.2-1.4x for a 3x32 net, after 12-180 s
of compiling per input shape; ``mixed_sides = "by_side"`` was 1.3-2x faster than one padded
forward with >= 64 games per side.

Fraction of the CPU's float32 peak (section ``peak``, first): the inference forward as ``NetEvaluator``
runs it (``FoldedNet`` float32, channels_last, inference_mode, 1 thread) of quick.yaml's 4x32 network
(side 4), side6.yaml's 5x32 and the shipped side6.bot's 8x32 (side 6), at the reference batch (the
first of ``--peak-batches``, 64: self-play's inference batch): FLOPs per position (convolutions and
matmuls, torch's ``FlopCounterMode``), microseconds per position (median CPU time), and the fraction
of the nominal peak (cores x clock x FLOPs per cycle of the instruction set) and of a one-thread
2048^3 float32 matmul timed in the same run (``scripts/_machine.py`` derives both). Rows against it,
outputs within ``TOLERANCE``: NCHW, oneDNN off (``torch.backends.mkldnn.flags``), the other batch
sizes, inter-op threads 1 against torch's default (a process each). ``--emulate-avx2`` restarts the
script with torch, oneDNN and MKL capped at AVX2: an AVX-512 machine then runs an AVX2 CPU's kernels
(at its own clock and caches). Every run prints the CPU, its instruction set and the peak first.

Measured 2026-12-07 with ``--sections peak --seconds 1.5`` on a 2-core KVM guest "Intel(R) Xeon(R)
Processor" (family 6 model 167, 2600 MHz, flags avx2 fma avx512f/bw/vl avx512_bf16 amx_tile; torch
2.13 dispatch AVX512), two training runs beside it (load average 5-6; CPU time, medians): batch 64,
us/position (fraction of nominal / of matmul peak); peaks AVX-512 166.4 nominal, 171.6 matmul;
AVX2 (``--emulate-avx2``) 83.2 nominal, 101.1 matmul GFLOP/s:

| net | MFLOP/position | AVX-512 | AVX2 (emulated) |
| --- | ---: | ---: | ---: |
| quick 4x32, side 4 | 8.15 | 104.5 (46.9% / 45.4%) | 125.4 (78.1% / 64.3%) |
| side6 5x32, side 6 | 24.6 | 264.4 (55.8% / 54.1%) | 355.1 (83.2% / 68.5%) |
| side6.bot 8x32, side 6 | 39.1 | 453.5 (51.8% / 50.2%) | 569.3 (82.5% / 67.9%) |

Rows against the reference (AVX-512 / AVX2), all within 1e-4 (priors 3e-8, values 6e-8): NCHW
0.84-0.87x / 0.83-0.86x; oneDNN off 0.36-0.60x / 0.43-0.79x; batch 32 0.84-0.96x / 0.85-0.97x, 128
0.98-1.11x / 1.05-1.13x, 256 0.92-1.15x / 1.08-1.15x (per position); inter-op threads 1 or 2 equal
within the noise. The AVX2 kernels are 1.2-1.35x slower per position at 78-83% of AVX2's nominal peak
(the forward is near its ceiling there; at AVX-512 it reaches about half). Outside the rows: oneDNN's
implicit bfloat16 (``torch.backends.mkldnn.conv.fp32_precision = "bf16"``, AVX512_BF16/AMX only) was
1.33x faster for side6 5x32 with values off by 4.9e-4.

Run: .venv/bin/python scripts/bench_net.py [--quick] [--emulate-avx2]
       .venv/bin/python scripts/bench_net.py --sections inference [--inference-batches 8 256]
       .venv/bin/python scripts/bench_net.py --sections peak [--peak-batches 64 32 128 256]
The last line reads ``bench_net [ISA]: NET batch 64 forward F% of nominal peak, M% of matmul peak, ...,
side 6 batch 256 default net: folded float32 Pf us/position vs
today float32 Pt (speed-up Rf), folded bfloat16 Rfb (today bfloat16 Rtb), float32 channels_last X ms vs
float32 nchw Y ms (speed-up R), bfloat16 Rb, compile Rc after T s, mixed 4/5/6 x 256:
padded/separate M`` (speed-ups against the respective baselines; M > 1 means the padded forward is
slower); parts whose section did not run are left out.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import subprocess
import sys
import time
import warnings
from dataclasses import dataclass
from typing import Callable

import numpy as np
import torch

from catena_zero.config import NetConfig
from catena_zero.game import GameConfig
from catena_zero.game.vec import VecEnv, random_legal_actions
from catena_zero.net import NetEvaluator, encode, model_from_config, model_from_weights, num_parameters
from catena_zero.net.device import inference_autocast, set_torch_threads
from catena_zero.net.folded import FoldedNet
from catena_zero.net.inference import masked_softmax
from catena_zero.net.features import pad_features

import _machine  # scripts/_machine.py: the CPU, its instruction set and float32 peak

# torch.backends.mkldnn.flags warns on every entry and exit that TF32 is for Intel GPUs only
warnings.filterwarnings("ignore", message="TF32 acceleration on top of oneDNN")

TOLERANCE = 1e-4  # max abs difference of priors and values that counts as equal accuracy
NETS = {
    "default": NetConfig(device="cpu"),
    "tiny": NetConfig(blocks=3, channels=32, head_channels=16, value_hidden=64, device="cpu"),
}


@dataclass(frozen=True)
class Variant:
    name: str
    channels_last: bool
    precision: str = "float32"  # "float32" or "bfloat16"
    grad_mode: str = "inference_mode"  # or "no_grad"
    compiled: bool = False
    frozen: bool = False  # TorchScript trace + freeze + optimize_for_inference


BASELINE = Variant("float32 nchw (baseline)", channels_last=False)
FAST = [
    BASELINE,
    Variant("float32 channels_last", channels_last=True),
    Variant("no_grad channels_last", channels_last=True, grad_mode="no_grad"),
]
BF16 = [Variant("bfloat16 channels_last", channels_last=True, precision="bfloat16")]
BF16_NCHW = Variant("bfloat16 nchw", channels_last=False, precision="bfloat16")
COMPILED = Variant("compile channels_last", channels_last=True, compiled=True)
FROZEN = [Variant("jit.freeze channels_last", channels_last=True, frozen=True),
          Variant("jit.freeze nchw", channels_last=False, frozen=True)]


class _Tuple(torch.nn.Module):
    """The network with a tuple output (TorchScript traces tensors and tuples, not dataclasses)."""

    def __init__(self, model: torch.nn.Module) -> None:
        super().__init__()
        self.model = model

    def forward(self, planes: torch.Tensor, globals_: torch.Tensor):
        out = self.model(planes, globals_)
        return out.policy_logits, out.wdl_logits, out.score, out.ownership


def positions(side: int, batch: int, seed: int = 0) -> tuple[VecEnv, object]:
    env = VecEnv(GameConfig(side=side))
    rng = np.random.default_rng(seed)
    state = env.reset(batch)
    for _ in range(min(10, env.spec.num_cells // 4)):
        env.step(state, random_legal_actions(env.legal_actions(state), rng))
    return env, state


def race(fns: dict[str, Callable[[], object]], seconds: float, clock=time.process_time) -> dict[str, float]:
    """Fastest call of each function (after one warm-up call each), interleaved, >= 2 timed calls each."""
    for fn in fns.values():
        fn()
    best = {name: float("inf") for name in fns}
    started, rounds = time.perf_counter(), 0
    while rounds < 2 or time.perf_counter() - started < seconds:
        for name, fn in fns.items():
            t = clock()
            fn()
            best[name] = min(best[name], clock() - t)
        rounds += 1
    return best


def outputs(out, legal: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    priors = masked_softmax(out.policy_logits.float(), legal)
    wdl = torch.softmax(out.wdl_logits.float(), dim=-1)
    return priors, wdl[:, 0] - wdl[:, 2]


class Runner:
    """Calls one network in one variant (layout, precision, grad mode, compiled or not)."""

    def __init__(self, config: NetConfig, state_dict: dict, variant: Variant) -> None:
        self.variant = variant
        self.model = model_from_weights(dataclasses.replace(config, channels_last=variant.channels_last), state_dict)
        self.forward = torch.compile(self.model) if variant.compiled else self.model
        self.compile_seconds = 0.0
        self._traced = None

    def __call__(self, planes: torch.Tensor, globals_: torch.Tensor):
        if self.variant.frozen:
            return self._frozen(planes, globals_)
        grad = torch.inference_mode() if self.variant.grad_mode == "inference_mode" else torch.no_grad()
        with grad, inference_autocast(torch.device("cpu"), False, self.variant.precision):
            return self.forward(planes, globals_)

    def _frozen(self, planes: torch.Tensor, globals_: torch.Tensor):
        from catena_zero.net.model import NetOutput

        with torch.no_grad():
            if self._traced is None:
                started = time.perf_counter()
                traced = torch.jit.trace(_Tuple(self.model).eval(), (planes, globals_), check_trace=False)
                self._traced = torch.jit.optimize_for_inference(torch.jit.freeze(traced))
                self._traced(planes, globals_)  # the first calls specialise the graph
                self.compile_seconds = time.perf_counter() - started
            policy, wdl, score, ownership = self._traced(planes, globals_)
        return NetOutput(policy_logits=policy, wdl_logits=wdl, score=score, ownership=ownership)


def bench_variants(args, name: str, config: NetConfig, summary: dict) -> None:
    model = model_from_config(config, torch.Generator().manual_seed(0))
    state_dict = model.state_dict()
    print(f"\n{name} net: {config.blocks} blocks x {config.channels} channels, {num_parameters(model):,} parameters")
    print(f"{'side':>4} {'batch':>5}  {'variant':<24} {'ms':>9} {'positions/s':>11} {'speed-up':>8}"
          f"  {'max|dprior|':>11} {'max|dvalue|':>11}  equal")
    for side in args.sides:
        env, state = positions(side, max(args.batches))
        features = encode(env, state)
        legal_all = torch.as_tensor(env.legal_actions(state))
        for batch in args.batches:
            planes = torch.as_tensor(features.planes[:batch])
            globals_ = torch.as_tensor(features.globals[:batch])
            legal = legal_all[:batch]
            variants = FAST + FROZEN + BF16 + ([BF16_NCHW] if batch == min(args.batches) else [])
            runners = {v.name: Runner(config, state_dict, v) for v in variants}
            if not args.no_compile and batch == args.compile_batch:
                runner = Runner(config, state_dict, COMPILED)
                t = time.perf_counter()
                runner(planes, globals_)
                runner.compile_seconds = time.perf_counter() - t
                runners[COMPILED.name] = runner
            fast = {n: (lambda r=r: r(planes, globals_)) for n, r in runners.items() if r.variant.precision == "float32"}
            times = race(fast, args.seconds)
            times |= race({n: (lambda r=r: r(planes, globals_)) for n, r in runners.items() if n not in fast}, 0.0)
            ref_priors, ref_value = outputs(runners[BASELINE.name](planes, globals_), legal)
            base = times[BASELINE.name]
            for vname, runner in runners.items():
                priors, value = outputs(runner(planes, globals_), legal)
                dp = float((priors - ref_priors).abs().max())
                dv = float((value - ref_value).abs().max())
                ratio = base / times[vname]
                equal = dp <= TOLERANCE and dv <= TOLERANCE
                extra = (f"  (compile {runner.compile_seconds:.1f} s)" if runner.variant.compiled else
                         f"  (trace {runner.compile_seconds:.1f} s)" if runner.variant.frozen else "")
                print(f"{side:>4} {batch:>5}  {vname:<24} {times[vname] * 1e3:>9.1f} {batch / times[vname]:>11,.0f} "
                      f"{ratio:>7.2f}x  {dp:>11.1e} {dv:>11.1e}  {'yes' if equal else 'NO'}{extra}")
                summary[(name, side, batch, vname)] = (times[vname] * 1e3, ratio, runner.compile_seconds)


def bench_inference(args, summary: dict) -> None:
    """The inference-only forward (FoldedNet) against today's eval-mode CatenaNet forward, per position."""
    cpu = torch.device("cpu")
    for name in args.nets:
        config = NETS[name]
        model = model_from_config(config, torch.Generator().manual_seed(0))
        randomise_batch_norms(model, torch.Generator().manual_seed(1))
        model.eval()
        folded = {"float32": FoldedNet(model), "bfloat16": FoldedNet(model, torch.bfloat16)}
        print(f"\ninference-only path, {name} net ({config.blocks} x {config.channels}): FoldedNet vs today's "
              "eval forward (channels_last, inference_mode), CPU time per position, 1 thread")
        print(f"{'side':>4} {'batch':>5}  {'variant':<26} {'us/pos':>8} {'vs today f32':>12} {'vs same prec':>12}"
              f"  {'max|dprior|':>11} {'max|dvalue|':>11} {'max|dscore|':>11}")
        for side in args.sides:
            env, state = positions(side, max(args.inference_batches))
            features = encode(env, state)
            legal_all = torch.as_tensor(env.legal_actions(state))
            for batch in args.inference_batches:
                planes = torch.as_tensor(features.planes[:batch])
                globals_ = torch.as_tensor(features.globals[:batch])
                legal = legal_all[:batch]

                def today(precision):
                    def run():
                        with torch.inference_mode(), inference_autocast(cpu, False, precision):
                            return model(planes, globals_)
                    return run

                def fold(precision, forward=None):
                    forward = forward if forward is not None else folded[precision]

                    def run():
                        with torch.inference_mode():
                            folded[precision].sync()  # what NetEvaluator does before each forward
                            return forward(planes, globals_)
                    return run

                fns = {"today float32": today("float32"), "folded float32": fold("float32"),
                       "today bfloat16": today("bfloat16"), "folded bfloat16": fold("bfloat16")}
                compile_seconds = {}
                if not args.no_compile and batch == args.compile_batch and name in args.compile_nets:
                    for precision in ("float32", "bfloat16"):
                        variant = f"compiled folded {precision}"
                        fns[variant] = fold(precision, torch.compile(folded[precision]))
                        started = time.perf_counter()
                        fns[variant]()
                        compile_seconds[variant] = time.perf_counter() - started
                times = race(fns, args.seconds)
                ref = fns["today float32"]()
                ref_priors, ref_value = outputs(ref, legal)
                for variant, fn in fns.items():
                    out = fn()
                    priors, value = outputs(out, legal)
                    dp = float((priors - ref_priors).abs().max())
                    dv = float((value - ref_value).abs().max())
                    ds = float((out.score.float() - ref.score).abs().max())
                    precision = "bfloat16" if variant.endswith("bfloat16") else "float32"
                    us = times[variant] / batch * 1e6
                    vs_f32 = times["today float32"] / times[variant]
                    vs_same = times[f"today {precision}"] / times[variant]
                    extra = f"  (compile {compile_seconds[variant]:.0f} s)" if variant in compile_seconds else ""
                    print(f"{side:>4} {batch:>5}  {variant:<26} {us:>8.1f} {vs_f32:>11.2f}x {vs_same:>11.2f}x"
                          f"  {dp:>11.1e} {dv:>11.1e} {ds:>11.1e}{extra}")
                    summary[("inference", name, side, batch, variant)] = (us, vs_f32, vs_same)


def bench_peak(args, machine, summary: dict) -> None:
    """The inference forward (``FoldedNet`` float32, as ``NetEvaluator`` runs it) of quick.yaml's,
    side6.yaml's and the shipped side6.bot's networks against the CPU's float32 peak, 1 thread, and
    the cheap candidate speed-ups as rows against it (outputs within ``TOLERANCE``)."""
    matmul = _machine.measured_peak()
    nominal = machine.nominal.gflops if machine.nominal else float("nan")
    summary[("peak", "matmul")] = matmul
    print(f"\nfraction of peak, inference forward (FoldedNet float32, what NetEvaluator runs), 1 thread, CPU time "
          f"(median); {machine.tag()} nominal peak {nominal:.1f} GFLOP/s per core, measured peak (one-thread "
          f"2048^3 float32 matmul) {matmul:.1f} GFLOP/s. FLOPs: convolutions and matmuls, torch's FlopCounterMode")
    print(f"{'net':<16} {'side':>4} {'batch':>5}  {'variant':<24} {'MFLOP/pos':>9} {'us/pos':>8} {'GFLOP/s':>8} "
          f"{'%nominal':>8} {'%matmul':>8} {'vs ref':>7}  {'max|dprior|':>11} {'max|dvalue|':>11}  equal")
    for entry in _machine.ceiling_nets():
        model = model_from_config(entry.net, torch.Generator().manual_seed(0))
        randomise_batch_norms(model, torch.Generator().manual_seed(1))
        model.eval()
        nchw = model_from_weights(dataclasses.replace(entry.net, channels_last=False), model.state_dict()).eval()
        folded = {True: FoldedNet(model), False: FoldedNet(nchw)}
        env, state = positions(entry.side, max(args.peak_batches))
        features = encode(env, state)
        legal_all = torch.as_tensor(env.legal_actions(state))
        ref_batch = args.peak_batches[0]
        rows = [(ref_batch, "channels_last (ref)", True, True)]
        rows += [(ref_batch, "nchw", False, True), (ref_batch, "channels_last mkldnn off", True, False)]
        rows += [(b, "channels_last", True, True) for b in args.peak_batches[1:]]
        ref_us = None
        for batch, variant, channels_last, mkldnn in rows:
            planes = torch.as_tensor(features.planes[:batch])
            globals_ = torch.as_tensor(features.globals[:batch])
            net = folded[channels_last]

            def forward(net=net, planes=planes, globals_=globals_, mkldnn=mkldnn):
                with torch.inference_mode(), torch.backends.mkldnn.flags(enabled=mkldnn):
                    return net(planes, globals_)

            flops = _machine.count_flops(forward) / batch
            seconds = _machine.median_seconds(forward, args.seconds) / batch
            ref_us = ref_us or seconds * 1e6
            with torch.inference_mode():
                ref_priors, ref_value = outputs(folded[True](planes, globals_), legal_all[:batch])
                priors, value = outputs(forward(), legal_all[:batch])
            dp, dv = float((priors - ref_priors).abs().max()), float((value - ref_value).abs().max())
            gflops = flops / seconds / 1e9
            print(f"{entry.label:<16} {entry.side:>4} {batch:>5}  {variant:<24} {flops / 1e6:>9.2f} {seconds * 1e6:>8.1f} "
                  f"{gflops:>8.2f} {gflops / nominal:>8.1%} {gflops / matmul:>8.1%} {ref_us / (seconds * 1e6):>6.2f}x"
                  f"  {dp:>11.1e} {dv:>11.1e}  {'yes' if dp <= TOLERANCE and dv <= TOLERANCE else 'NO'}")
            summary[("peak", entry.label, batch, variant)] = (gflops / nominal, gflops / matmul)
        count, ms = interop_run(1, args.seconds, entry.label)
        count0, ms0 = interop_run(0, args.seconds, entry.label)
        print(f"{entry.label:<16} {entry.side:>4} {ref_batch:>5}  inter-op threads {count} vs torch's default ({count0}): "
              f"{ms * 1e6 / ref_batch:.1f} vs {ms0 * 1e6 / ref_batch:.1f} us/pos (one process each)")


def randomise_batch_norms(model: torch.nn.Module, generator: torch.Generator) -> None:
    """Non-trivial batch-norm affines and running statistics (a fresh net's are 1 and 0), as a trained net's."""
    from catena_zero.net.model import MaskedBatchNorm2d

    with torch.no_grad():
        for module in model.modules():
            if isinstance(module, MaskedBatchNorm2d):
                k = module.num_features
                module.weight.copy_(torch.randn(k, generator=generator) * 0.3 + 1.0)
                module.bias.copy_(torch.randn(k, generator=generator) * 0.2)
                module.running_mean.copy_(torch.randn(k, generator=generator) * 0.5)
                module.running_var.copy_(torch.rand(k, generator=generator) + 0.5)


def bench_threads(args, summary: dict) -> None:
    print(f"\nthreads (wall time, float32 channels_last, side 6 batch 256; load average {os.getloadavg()[0]:.1f})")
    env, state = positions(6, 256)
    features = encode(env, state)
    planes, globals_ = torch.as_tensor(features.planes), torch.as_tensor(features.globals)
    for name, config in NETS.items():
        runner = Runner(config, model_from_config(config, torch.Generator().manual_seed(0)).state_dict(),
                        Variant("cl", channels_last=True))
        row = {}
        for threads in (1, 2):
            torch.set_num_threads(threads)
            row[threads] = race({"t": lambda: runner(planes, globals_)}, args.seconds, clock=time.perf_counter)["t"]
        torch.set_num_threads(1)
        print(f"  {name:<8} 1 thread {row[1] * 1e3:8.1f} ms   2 threads {row[2] * 1e3:8.1f} ms   "
              f"speed-up {row[1] / row[2]:.2f}x")
        summary[("threads", name)] = row[1] / row[2]
    inter = {}
    for interop in (1, 0):
        cmd = [sys.executable, __file__, "--interop-probe", str(interop), "--seconds", str(args.seconds)]
        count, ms = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout.split()[-2:]
        inter[interop] = (int(count), float(ms))
    print(f"  default  inter-op threads {inter[1][0]}: {inter[1][1]:.1f} ms, torch's default "
          f"({inter[0][0]}): {inter[0][1]:.1f} ms (1 intra-op thread, CPU time, one process each)")


def interop_run(interop: int, seconds: float, label: str, batch: int = 64) -> tuple[int, float]:
    """In a fresh process (the inter-op count can be set once per process): the inter-op thread
    count and the median CPU seconds of one FoldedNet forward of ceiling net ``label`` at ``batch``."""
    cmd = [sys.executable, __file__, "--interop-probe", str(interop), "--seconds", str(seconds),
           "--probe-net", label, "--peak-batches", str(batch)]
    count, sec = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout.split()[-2:]
    return int(count), float(sec)


def interop_probe(interop: int, seconds: float, label: str | None = None, batch: int = 64) -> None:
    """Subprocess: time the default net at side 6 batch 256 with ``interop`` inter-op threads (0: default);
    with ``label``, the FoldedNet forward of that ceiling net at ``batch`` (prints count and seconds)."""
    if interop:
        torch.set_num_interop_threads(interop)
    torch.set_num_threads(1)
    if label is not None:
        entry = next(e for e in _machine.ceiling_nets() if e.label == label)
        folded = FoldedNet(model_from_config(entry.net, torch.Generator().manual_seed(0)).eval())
        env, state = positions(entry.side, batch)
        features = encode(env, state)
        planes, globals_ = torch.as_tensor(features.planes), torch.as_tensor(features.globals)

        def forward():
            with torch.inference_mode():
                folded(planes, globals_)
        print(torch.get_num_interop_threads(), _machine.median_seconds(forward, seconds))
        return
    env, state = positions(6, 256)
    features = encode(env, state)
    planes, globals_ = torch.as_tensor(features.planes), torch.as_tensor(features.globals)
    config = NETS["default"]
    runner = Runner(config, model_from_config(config, torch.Generator().manual_seed(0)).state_dict(),
                    Variant("cl", channels_last=True))
    print(torch.get_num_interop_threads(), race({"t": lambda: runner(planes, globals_)}, seconds)["t"] * 1e3)


def bench_mixed(args, summary: dict) -> None:
    """One padded forward of a side-4/5/6 batch against one forward per side (same positions)."""
    sides = (4, 5, 6)
    print(f"\nmixed rules: sides {sides}, one padded forward (grid 11) vs one forward per side "
          "(float32 channels_last, CPU time); NetEvaluator.evaluate_many with mixed_sides pad / by_side")
    for name, config in NETS.items():
        if name not in args.nets:
            continue
        model = model_from_config(config, torch.Generator().manual_seed(0)).eval()
        padded_evaluator = NetEvaluator(model, None, config)
        by_side_evaluator = NetEvaluator(model, None, dataclasses.replace(config, mixed_sides="by_side"))
        for per_side in args.mixed_batches:
            items = [positions(side, per_side, seed=side) for side in sides]
            parts = [encode(env, state) for env, state in items]
            padded = pad_features(parts)
            pp, pg = torch.as_tensor(padded.planes), torch.as_tensor(padded.globals)
            ps = torch.as_tensor(padded.sides)
            separate = [(torch.as_tensor(f.planes), torch.as_tensor(f.globals)) for f in parts]

            def one_padded():
                with torch.inference_mode():
                    model(pp, pg, ps)

            def per_side_forwards():
                with torch.inference_mode():
                    for planes, globals_ in separate:
                        model(planes, globals_)

            t = race({"padded": one_padded, "separate": per_side_forwards,
                      "pad": lambda: padded_evaluator.evaluate_many(items),
                      "by_side": lambda: by_side_evaluator.evaluate_many(items)}, args.seconds)
            print(f"  {name:<8} {per_side:>4} per side: one padded forward {t['padded'] * 1e3:7.1f} ms, "
                  f"3 forwards {t['separate'] * 1e3:7.1f} ms (padded/separate {t['padded'] / t['separate']:.2f}); "
                  f"evaluate_many pad {t['pad'] * 1e3:7.1f} ms, by_side {t['by_side'] * 1e3:7.1f} ms")
            summary[("mixed", name, per_side)] = t["padded"] / t["separate"]


def bench_device(args, summary: dict) -> None:
    """``--device cuda``: the default and tiny nets on the accelerator, float32 against bfloat16
    autocast (``NetConfig.mixed_precision``), wall time after ``torch.cuda.synchronize``."""
    device = torch.device(args.device)
    print(f"\n{args.device}: {torch.cuda.get_device_name(device) if device.type == 'cuda' else device}")
    print(f"{'net':<8} {'side':>4} {'batch':>6}  {'precision':<9} {'ms':>8} {'positions/s':>12}")
    for name in args.nets:
        model = model_from_config(NETS[name], torch.Generator().manual_seed(0)).to(device).eval()
        for side in args.sides:
            env, state = positions(side, max(args.batches))
            features = encode(env, state)
            for batch in args.batches:
                planes = torch.as_tensor(features.planes[:batch]).to(device)
                globals_ = torch.as_tensor(features.globals[:batch]).to(device)
                for mixed in (False, True):
                    def forward():
                        with torch.inference_mode(), inference_autocast(device, mixed):
                            model(planes, globals_)
                        if device.type == "cuda":
                            torch.cuda.synchronize(device)

                    seconds = race({"x": forward}, args.seconds, clock=time.perf_counter)["x"]
                    precision = "bfloat16" if mixed else "float32"
                    summary[("device", name, side, batch, precision)] = batch / seconds
                    print(f"{name:<8} {side:>4} {batch:>6}  {precision:<9} {seconds * 1e3:>8.2f} {batch / seconds:>12,.0f}")


def main() -> None:
    _machine.emulate_avx2(sys.argv)
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sides", type=int, nargs="+", default=[4, 6])
    parser.add_argument("--batches", type=int, nargs="+", default=[64, 256, 1024])
    parser.add_argument("--nets", nargs="+", default=list(NETS), choices=list(NETS))
    parser.add_argument("--seconds", type=float, default=2.0, help="time each race for at least this long")
    parser.add_argument("--compile-batch", type=int, default=256)
    parser.add_argument("--no-compile", action="store_true")
    parser.add_argument("--mixed-batches", type=int, nargs="+", default=[8, 64, 256])
    parser.add_argument("--inference-batches", type=int, nargs="+", default=[8, 64, 256, 1024])
    parser.add_argument("--compile-nets", nargs="+", default=list(NETS), choices=list(NETS),
                        help="nets whose folded forward is also compiled (section inference)")
    parser.add_argument("--sections", nargs="+", default=["peak", "inference", "variants", "threads", "mixed"],
                        choices=["peak", "inference", "variants", "threads", "mixed", "device"])
    parser.add_argument("--peak-batches", type=int, nargs="+", default=[64, 32, 128, 256],
                        help="section peak: the first is the reference batch (self-play's inference batch), "
                             "the others batch-size rows")
    parser.add_argument("--emulate-avx2", action="store_true",
                        help="run with torch, oneDNN and MKL capped at AVX2 (scripts/_machine.py)")
    parser.add_argument("--device", default="cpu", help="with --sections device: e.g. cuda")
    parser.add_argument("--quick", action="store_true", help="side 6, batch 256, no compile, short races")
    parser.add_argument("--interop-probe", type=int, default=None, help=argparse.SUPPRESS)
    parser.add_argument("--probe-net", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.interop_probe is not None:
        interop_probe(args.interop_probe, args.seconds, args.probe_net, args.peak_batches[0])
        return
    if args.quick:
        args.sides, args.batches, args.no_compile, args.seconds, args.mixed_batches = [6], [256], True, 0.5, [64]
        args.inference_batches, args.peak_batches = [256], [64, 128]

    set_torch_threads(1)  # a self-play actor's share of a 2-core machine
    machine = _machine.describe()
    print(f"bench_net: torch {torch.__version__}; 1 intra-op thread unless stated; tolerance {TOLERANCE:g}")
    print(machine.line())
    summary: dict = {}
    if "peak" in args.sections:
        bench_peak(args, machine, summary)
    if "inference" in args.sections:
        bench_inference(args, summary)
    if "variants" in args.sections:
        for name in args.nets:
            bench_variants(args, name, NETS[name], summary)
    if "threads" in args.sections:
        bench_threads(args, summary)
    if "mixed" in args.sections:
        bench_mixed(args, summary)
    if "device" in args.sections:
        bench_device(args, summary)
        best = max((v, k) for k, v in summary.items() if k[0] == "device")
        print(f"bench_net {machine.tag()}: {args.device}: best {best[0]:,.0f} positions/s ({best[1][1]} net, side {best[1][2]}, "
              f"batch {best[1][3]}, {best[1][4]})")
        return

    parts = []
    side, batch = max(args.sides), args.compile_batch if args.compile_batch in args.batches else args.batches[0]
    infer_batch = args.compile_batch if args.compile_batch in args.inference_batches else args.inference_batches[0]
    infer = lambda v: summary.get(("inference", args.nets[0], side, infer_batch, v))  # noqa: E731
    if infer("folded float32"):
        parts += [f"side {side} batch {infer_batch} {args.nets[0]} net: folded float32 {infer('folded float32')[0]:.1f} "
                  f"us/position vs today float32 {infer('today float32')[0]:.1f} (speed-up {infer('folded float32')[1]:.2f}x)",
                  f"folded bfloat16 {infer('folded bfloat16')[1]:.2f}x (today bfloat16 {infer('today bfloat16')[1]:.2f}x)"]
        for precision in ("float32", "bfloat16"):
            if infer(f"compiled folded {precision}"):
                parts.append(f"compiled folded {precision} {infer(f'compiled folded {precision}')[1]:.2f}x")
    row = lambda v: summary.get((args.nets[0], side, batch, v))  # noqa: E731
    if row(BASELINE.name):
        base, cl, bf = row(BASELINE.name), row("float32 channels_last"), row("bfloat16 channels_last")
        where = "" if parts else f"side {side} batch {batch} {args.nets[0]} net: "
        parts += [f"{where}float32 channels_last {cl[0]:.1f} ms "
                  f"vs float32 nchw {base[0]:.1f} ms (speed-up {cl[1]:.2f}x)", f"bfloat16 {bf[1]:.2f}x"]
        frozen = row(FROZEN[0].name)
        if frozen:
            parts.append(f"jit.freeze channels_last {frozen[1]:.2f}x")
        if row(COMPILED.name):
            compiled = row(COMPILED.name)
            parts.append(f"compile {compiled[1]:.2f}x after {compiled[2]:.0f} s")
    mixed = summary.get(("mixed", args.nets[0], max(args.mixed_batches)))
    if mixed:
        parts.append(f"mixed 4/5/6 x {max(args.mixed_batches)}: padded/separate {mixed:.2f}")
    peak = [f"{label} batch {args.peak_batches[0]} forward {summary[k][0]:.1%} of nominal peak, "
            f"{summary[k][1]:.1%} of matmul peak" for k in summary
            if k[0] == "peak" and len(k) == 4 and k[3] == "channels_last (ref)" for label in (k[1],)]
    print(f"bench_net {machine.tag()}: " + ", ".join(peak + parts))


if __name__ == "__main__":
    main()
