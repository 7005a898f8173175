"""scripts/_machine.py, the benchmarks' CPU description: /proc/cpuinfo parsing, the instruction set the
float32 kernels run at, and the float32 peak arithmetic (the parts that need no torch or machine)."""

import importlib.util
import sys
from pathlib import Path

import pytest

_path = Path(__file__).resolve().parent.parent / "scripts" / "_machine.py"
_spec = importlib.util.spec_from_file_location("_machine", _path)
machine = importlib.util.module_from_spec(_spec)
sys.modules.setdefault("_machine", machine)  # dataclasses look their module up while it loads
_spec.loader.exec_module(machine)

SAPPHIRE = ("fpu sse sse2 ssse3 fma sse4_1 sse4_2 avx f16c avx2 avx512f avx512dq avx512bw avx512vl "
            "avx512_bf16 amx_bf16 amx_tile amx_int8")
EPYC_ZEN2 = "fpu sse sse2 ssse3 fma sse4_1 sse4_2 avx f16c avx2 sha_ni"
SANDY = "fpu sse sse2 ssse3 sse4_1 sse4_2 avx"


def cpuinfo(flags: str, mhz: str | None = "2599.998", processors: int = 2) -> str:
    blocks = []
    for i in range(processors):
        lines = [f"processor\t: {i}", "vendor_id\t: GenuineIntel", f"model name\t: Test CPU {i}"]
        if mhz is not None:
            lines.append(f"cpu MHz\t\t: {mhz if i == 0 else '1000.0'}")
        lines.append(f"flags\t\t: {flags if i == 0 else 'fpu'}")
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks) + "\n"


def test_cpuinfo_gives_the_first_processors_model_flags_and_clock_and_the_count():
    info = machine.parse_cpuinfo(cpuinfo(SAPPHIRE, processors=3))
    assert info.model == "Test CPU 0"
    assert info.mhz == pytest.approx(2599.998)
    assert {"avx512f", "amx_tile", "fma"} <= info.flags and "fpu" in info.flags
    assert info.processors == 3


def test_cpuinfo_without_a_clock_or_flags():
    info = machine.parse_cpuinfo(cpuinfo("", mhz=None, processors=1))
    assert info.mhz is None and info.flags == frozenset() and info.processors == 1
    assert machine.parse_cpuinfo("").model == "unknown CPU"


@pytest.mark.parametrize("flags, level, per_cycle, name", [
    (SAPPHIRE, "AVX-512", 64, "AVX-512 (+AVX512_BF16, AMX)"),  # 16 lanes x FMA 2 x 2 units
    (EPYC_ZEN2, "AVX2", 32, "AVX2"),  # 8 lanes x FMA 2 x 2 units
    (SANDY, "AVX", 16, "AVX"),  # 8-lane add + 8-lane multiply
    ("fpu sse sse2", "SSE", 8, "SSE"),
])
def test_the_instruction_set_and_its_float32_flops_per_cycle(flags, level, per_cycle, name):
    isa = machine.isa_of(frozenset(flags.split()))
    assert isa.level == level and isa.name == name and isa.capped_by == ""
    assert machine.flops_per_cycle(isa) == per_cycle
    assert machine.flops_per_cycle(isa, fma_units=1) == (per_cycle // 2 if isa.fma and level != "AVX" else per_cycle)


def test_torch_dispatch_or_onednn_cap_lower_the_level_and_drop_the_avx512_extras():
    flags = frozenset(SAPPHIRE.split())
    by_torch = machine.isa_of(flags, "AVX2")
    assert (by_torch.level, by_torch.amx, by_torch.avx512_bf16, by_torch.capped_by) == ("AVX2", False, False, "torch")
    assert machine.flops_per_cycle(by_torch) == 32
    by_onednn = machine.isa_of(flags, "AVX512", "AVX2")
    assert (by_onednn.level, by_onednn.capped_by) == ("AVX2", "ONEDNN_MAX_CPU_ISA")
    both = machine.isa_of(flags, "AVX2", "avx2")
    assert both.capped_by == "torch, ONEDNN_MAX_CPU_ISA"
    # caps at or above the CPU's level, and non-x86 or unset capabilities, change nothing
    for torch_cap, onednn in (("AVX512", "AVX512_CORE_AMX"), ("AVX512", "ALL"), ("", ""), ("VSX", "")):
        isa = machine.isa_of(flags, torch_cap, onednn)
        assert isa.level == "AVX-512" and isa.amx and isa.capped_by == ""
    assert machine.isa_of(frozenset(EPYC_ZEN2.split()), "AVX512").level == "AVX2"  # no level above the CPU's
    assert machine.isa_of(flags, "DEFAULT").level == "SSE"


def test_peak_arithmetic():
    peak = machine.Peak(cores=1, mhz=2600.0, flops_per_cycle=64)
    assert peak.gflops == pytest.approx(166.4)
    assert machine.Peak(cores=2, mhz=3000.0, flops_per_cycle=32).gflops == pytest.approx(192.0)
    # 8.32 GFLOP in 0.1 s on a 166.4 GFLOP/s core: half of its peak
    assert peak.fraction(8.32e9, 0.1) == pytest.approx(0.5)
    assert peak.derivation() == "1 core(s) x 2600 MHz x 64 FLOPs/cycle = 166.4 GFLOP/s"


def test_median_seconds_takes_the_middle_call():
    ticks = iter([0.0, 1.0, 0.0, 5.0, 0.0, 2.0, 0.0, 3.0, 0.0, 4.0])
    # the warm-up call is untimed; five calls timed as 1, 5, 2, 3, 4 s: the median is 3
    assert machine.median_seconds(lambda: None, seconds=0.0, min_calls=5, clock=lambda: next(ticks)) == 3.0
