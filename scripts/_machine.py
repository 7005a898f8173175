"""The machine a benchmark ran on: its CPU, the instruction set its float32 kernels use, and that
instruction set's float32 peak, so that every figure can be read against the hardware's ceiling.

Shared by ``scripts/bench_*.py`` (import it as ``_machine``: scripts/ is the running script's folder).
The pure parts (``parse_cpuinfo``, ``isa_of``, ``flops_per_cycle``, ``Peak``) take strings and numbers
and are tested in tests/test_bench_machine.py; ``describe``, ``measured_peak`` and ``count_flops``
read this machine and torch.

Peak (float32 FLOPs per second) = cores used x clock x FLOPs per cycle per core, where FLOPs per cycle
= vector lanes x 2 (a fused multiply-add is two FLOPs) x 2 (two FMA units per core, as on every
Intel core since Haswell with AVX2 and the Xeon Gold/Platinum parts with AVX-512, and AMD Zen 2
onwards). So AVX-512: 16 x 2 x 2 = 64; AVX2 with FMA: 8 x 2 x 2 = 32; AVX without FMA: 8 lanes x
(one add + one multiply) = 16; SSE: 8. A part with one AVX-512 FMA unit (some Xeon Silver/Bronze,
client Ice Lake) or a 2x128-bit AVX2 datapath (Zen 1) reaches half of that: hence the achievable
peak, ``measured_peak``, a large float32 matmul on one thread (MKL's best kernel), timed in the same
run. The clock is /proc/cpuinfo's "cpu MHz" (in a VM, the host's nominal clock; turbo can exceed it,
the measured peak includes it). AMX and AVX512_BF16 speed up bfloat16 and int8 only, not float32.

The instruction set the kernels use is the lowest of the CPU's (flags), torch's ATen dispatch
(``torch.backends.cpu.get_cpu_capability()``, capped by ``ATEN_CPU_CAPABILITY``) and oneDNN's cap
(``ONEDNN_MAX_CPU_ISA``): ``--emulate-avx2`` (``emulate_avx2``) sets those and MKL's
(``MKL_ENABLE_INSTRUCTIONS``) to AVX2 and restarts the script, so an AVX-512 machine runs the
AVX2 kernels an AVX2 CPU would (its clock and caches stay its own).
"""

from __future__ import annotations

import os
import sys
import time
from dataclasses import dataclass
from typing import Callable, Optional

# The ISA levels, lowest first, with their float32 vector lanes and whether they have FMA.
LEVELS = ("SSE", "AVX", "AVX2", "AVX-512")
_LANES = {"SSE": 4, "AVX": 8, "AVX2": 8, "AVX-512": 16}
FMA_UNITS = 2  # FMA units per core assumed by the nominal peak (module notes)

# What caps a level in the environment (torch's ATen dispatch and oneDNN read these at start-up).
AVX2_ENV = {"ATEN_CPU_CAPABILITY": "avx2", "ONEDNN_MAX_CPU_ISA": "AVX2", "MKL_ENABLE_INSTRUCTIONS": "AVX2"}
_EMULATED = "CATENA_BENCH_EMULATED_ISA"  # set by emulate_avx2 in the restarted process


@dataclass(frozen=True)
class CpuInfo:
    """What /proc/cpuinfo says of the first processor, and how many it lists."""

    model: str
    flags: frozenset[str]
    mhz: Optional[float]  # None where /proc/cpuinfo gives no clock
    processors: int


def parse_cpuinfo(text: str) -> CpuInfo:
    """/proc/cpuinfo's text -> model name, flags and clock of its first processor, and the count."""
    first: dict[str, str] = {}
    processors = 0
    for line in text.splitlines():
        key, sep, value = line.partition(":")
        key = key.strip()
        if not sep:
            continue
        if key == "processor":
            processors += 1
        if processors <= 1 and key not in first:
            first[key] = value.strip()
    try:
        mhz: Optional[float] = float(first["cpu MHz"])
    except (KeyError, ValueError):
        mhz = None
    return CpuInfo(model=first.get("model name", "unknown CPU"), flags=frozenset(first.get("flags", "").split()),
                   mhz=mhz, processors=max(processors, 1))


@dataclass(frozen=True)
class Isa:
    """The vector instruction set float32 kernels run with, and the extras the CPU has."""

    level: str  # one of LEVELS
    fma: bool
    avx512_bf16: bool = False
    amx: bool = False
    capped_by: str = ""  # what lowered the level below the CPU's, "" if nothing

    @property
    def name(self) -> str:
        extras = [x for x, has in (("AVX512_BF16", self.avx512_bf16), ("AMX", self.amx)) if has]
        base = self.level + ("" if self.fma or self.level in ("SSE", "AVX") else " (no FMA)")
        return base + (f" (+{', '.join(extras)})" if extras else "")


def cpu_level(flags: frozenset[str]) -> str:
    """The highest level in LEVELS that the CPU flags name."""
    if "avx512f" in flags:
        return "AVX-512"
    if "avx2" in flags:
        return "AVX2"
    if "avx" in flags:
        return "AVX"
    return "SSE"


def _torch_level(capability: str) -> Optional[str]:
    """torch.backends.cpu.get_cpu_capability() ("AVX512", "AVX2", "DEFAULT", ...) as a level;
    None for a non-x86 capability (no cap known)."""
    return {"AVX512": "AVX-512", "AVX2": "AVX2", "DEFAULT": "SSE"}.get(capability.upper())


def _onednn_level(cap: str) -> Optional[str]:
    """ONEDNN_MAX_CPU_ISA ("AVX2", "AVX512_CORE", "AVX2_VNNI", ...) as a level; None if unset."""
    cap = cap.upper()
    if not cap or cap in ("ALL", "DEFAULT"):
        return None
    if cap.startswith("AVX512") or cap.startswith("AVX10"):
        return "AVX-512"
    if cap.startswith("AVX2"):
        return "AVX2"
    if cap.startswith("AVX"):
        return "AVX"
    return "SSE"


def isa_of(flags: frozenset[str], torch_capability: str = "", onednn_max_isa: str = "") -> Isa:
    """The level float32 kernels run at: the CPU's, lowered by torch's dispatch and oneDNN's cap."""
    cpu = level = cpu_level(flags)
    capped = []
    for source, cap in (("torch", _torch_level(torch_capability) if torch_capability else None),
                        ("ONEDNN_MAX_CPU_ISA", _onednn_level(onednn_max_isa))):
        if cap is not None and LEVELS.index(cap) < LEVELS.index(cpu):
            level = min(level, cap, key=LEVELS.index)
            capped.append(source)
    amx = level == "AVX-512" and "amx_tile" in flags
    bf16 = level == "AVX-512" and "avx512_bf16" in flags
    return Isa(level=level, fma="fma" in flags, avx512_bf16=bf16, amx=amx, capped_by=", ".join(capped))


def flops_per_cycle(isa: Isa, fma_units: int = FMA_UNITS) -> int:
    """Float32 FLOPs per cycle per core: lanes x 2 x FMA units with FMA, lanes x 2 (one add and one
    multiply port) without (module notes)."""
    lanes = _LANES[isa.level]
    return lanes * 2 * fma_units if isa.fma and isa.level in ("AVX2", "AVX-512") else lanes * 2


@dataclass(frozen=True)
class Peak:
    """A float32 peak: cores x clock x FLOPs per cycle per core."""

    cores: int
    mhz: float
    flops_per_cycle: int

    @property
    def gflops(self) -> float:
        return self.cores * self.mhz * 1e6 * self.flops_per_cycle / 1e9

    def fraction(self, flops: float, seconds: float) -> float:
        """The fraction of this peak that ``flops`` FLOPs in ``seconds`` reach."""
        return flops / seconds / (self.gflops * 1e9)

    def derivation(self) -> str:
        return (f"{self.cores} core(s) x {self.mhz:.0f} MHz x {self.flops_per_cycle} FLOPs/cycle "
                f"= {self.gflops:.1f} GFLOP/s")


# --- this machine ----------------------------------------------------------------------------------


def emulate_avx2(argv: list[str]) -> None:
    """``--emulate-avx2`` in ``argv``: restart this script with AVX2_ENV set (and the flag removed),
    before torch has chosen its kernels; otherwise return."""
    if "--emulate-avx2" not in argv:
        return
    env = dict(os.environ, **AVX2_ENV, **{_EMULATED: "AVX2"})
    args = [a for a in argv if a != "--emulate-avx2"]
    os.execve(sys.executable, [sys.executable, *args], env)


@dataclass(frozen=True)
class Machine:
    cpu: CpuInfo
    isa: Isa
    torch_capability: str
    nominal: Optional[Peak]  # per core; None where the clock is unknown

    def line(self) -> str:
        """One line naming the CPU, the instruction set and the peak, for a benchmark's header."""
        emulated = os.environ.get(_EMULATED)
        cap = f", capped by {self.isa.capped_by}" if self.isa.capped_by else ""
        peak = (f"float32 peak per core {self.nominal.derivation()} (2 FMA units assumed)"
                if self.nominal else "float32 peak unknown (no clock in /proc/cpuinfo)")
        return (f"machine: {self.cpu.model}, {os.cpu_count()} CPUs, "
                f"{f'{self.cpu.mhz:.0f} MHz' if self.cpu.mhz else 'clock unknown'}; "
                f"instruction set {self.isa.name}{cap}{' (emulated: --emulate-avx2)' if emulated else ''}; "
                f"torch {self.torch_capability or 'absent'}; {peak}; load average {os.getloadavg()[0]:.1f}")

    def tag(self) -> str:
        """Short form for a summary line: the level the kernels ran at, and the CPU's extras."""
        return f"[{self.isa.name}{', emulated' if os.environ.get(_EMULATED) else ''}]"


def describe() -> Machine:
    """This machine: /proc/cpuinfo (Linux; elsewhere flags and clock are unknown) and torch's dispatch."""
    try:
        with open("/proc/cpuinfo") as f:
            cpu = parse_cpuinfo(f.read())
    except OSError:
        cpu = CpuInfo(model="unknown CPU", flags=frozenset(), mhz=None, processors=os.cpu_count() or 1)
    try:
        import torch

        capability = torch.backends.cpu.get_cpu_capability()
    except ImportError:  # a benchmark of numpy code on a machine without torch
        capability = ""
    isa = isa_of(cpu.flags, capability, os.environ.get("ONEDNN_MAX_CPU_ISA", ""))
    nominal = Peak(1, cpu.mhz, flops_per_cycle(isa)) if cpu.mhz else None
    return Machine(cpu=cpu, isa=isa, torch_capability=capability, nominal=nominal)


def measured_peak(size: int = 2048, repeats: int = 5) -> float:
    """Achievable float32 GFLOP/s of one thread: the fastest of ``repeats`` [size x size] @ [size x size]
    matmuls (2 size^3 FLOPs), in CPU time (being preempted by other jobs does not count)."""
    import torch

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        a = torch.randn(size, size, generator=torch.Generator().manual_seed(0))
        b = torch.randn(size, size, generator=torch.Generator().manual_seed(1))
        a @ b
        best = float("inf")
        for _ in range(repeats):
            started = time.process_time()
            a @ b
            best = min(best, time.process_time() - started)
    finally:
        torch.set_num_threads(threads)
    return 2 * size ** 3 / best / 1e9


def count_flops(fn: Callable[[], object]) -> int:
    """FLOPs of the matmuls and convolutions (forward and backward) that one call of ``fn`` runs, by
    torch's FlopCounterMode (elementwise ops, norms and the optimiser are not counted: they are a
    small share of the work and not what a FLOP peak measures)."""
    from torch.utils.flop_counter import FlopCounterMode

    with FlopCounterMode(display=False) as counter:
        fn()
    return counter.get_total_flops()


def median_seconds(fn: Callable[[], object], seconds: float, min_calls: int = 5,
                   clock: Callable[[], float] = time.process_time) -> float:
    """Median time of one call of ``fn`` (after one warm-up call), over at least ``seconds`` and
    ``min_calls`` calls; CPU time by default (robust to other jobs preempting this one)."""
    fn()
    times: list[float] = []
    started = time.perf_counter()
    while len(times) < min_calls or time.perf_counter() - started < seconds:
        t = clock()
        fn()
        times.append(clock() - t)
    times.sort()
    return times[len(times) // 2]


@dataclass(frozen=True)
class CeilingNet:
    """A network whose fraction of peak the benchmarks report: its config's shape, board and training."""

    label: str
    net: object  # NetConfig (device cpu)
    side: int
    train: object  # TrainConfig of the run that trains it


def ceiling_nets() -> list[CeilingNet]:
    """quick.yaml's 4x32 (side 4), side6.yaml's 5x32 and the shipped side6.bot's 8x32 (side 6),
    as their configs and the bot's header say; trained as their config says (side6.yaml for the bot)."""
    import dataclasses
    from pathlib import Path

    from catena_zero.artifacts.botfile import read_bot
    from catena_zero.config import load_config

    root = Path(__file__).resolve().parent.parent
    quick, side6 = load_config(root / "configs/quick.yaml"), load_config(root / "configs/side6.yaml")
    bot = read_bot(root / "catena_zero/bots/side6.bot").header

    def cpu(net):
        return dataclasses.replace(net, device="cpu")

    return [CeilingNet(f"quick {quick.net.blocks}x{quick.net.channels}", cpu(quick.net), quick.game.side, quick.train),
            CeilingNet(f"side6 {side6.net.blocks}x{side6.net.channels}", cpu(side6.net), side6.game.side, side6.train),
            CeilingNet(f"side6.bot {bot.net.blocks}x{bot.net.channels}", cpu(bot.net), bot.game.side, side6.train)]
