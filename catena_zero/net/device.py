"""Device placement, inference precision and CPU threads for the network (NetConfig.device,
.mixed_precision, .cpu_precision: ``inference_dtype``; ``set_torch_threads`` for self-play actors)."""

from __future__ import annotations

import contextlib
import math

import torch

from ..errors import UserError


def resolve_device(name: str, field: str = "net.device") -> torch.device:
    """"auto" = the first CUDA device when one is available, else the CPU; "cpu", "cuda", "cuda:i" as given.

    Asking for CUDA on a machine without it is an error, not a silent fall-back to the CPU; the
    error names ``field``, the setting the name came from.
    """
    if name == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if name == "cpu":
        return torch.device("cpu")
    if name.startswith("cuda"):
        if not torch.cuda.is_available():
            raise UserError(f"{field} is {name!r} but CUDA is not available on this machine")
        try:
            device = torch.device(name)
        except RuntimeError:  # a malformed name ("cuda:x"): torch's own RuntimeError
            raise UserError(f"{field} must be 'auto', 'cpu' or 'cuda[:i]', got {name!r}") from None
        if device.index is not None and device.index >= torch.cuda.device_count():
            raise UserError(f"{field} is {name!r} but only {torch.cuda.device_count()} CUDA device(s) exist")
        return device
    raise UserError(f"{field} must be 'auto', 'cpu' or 'cuda[:i]', got {name!r}")


def inference_dtype(device: torch.device, mixed_precision: bool, cpu_precision: str = "float32") -> torch.dtype:
    """The compute dtype of inference on ``device``.

    CUDA: bfloat16 (float16 on GPUs without it) when ``mixed_precision``. CPU: bfloat16 when
    ``cpu_precision == "bfloat16"`` (or ``"auto"`` on a CPU with AVX512_BF16 or AMX), else float32.
    oneDNN runs bfloat16 convolutions fast only on CPUs with those instructions; elsewhere it is
    several times slower than float32 (scripts/bench_net.py measures both on the machine).
    """
    if device.type == "cuda":
        if not mixed_precision:
            return torch.float32
        return torch.bfloat16 if torch.cuda.is_bf16_supported() else torch.float16
    if cpu_precision == "auto":
        cpu_precision = "bfloat16" if cpu_has_fast_bfloat16() else "float32"
    if cpu_precision == "bfloat16":
        return torch.bfloat16
    if cpu_precision != "float32":
        raise ValueError(f"cpu_precision must be 'float32', 'bfloat16' or 'auto', got {cpu_precision!r}")
    return torch.float32


def inference_autocast(
    device: torch.device, mixed_precision: bool, cpu_precision: str = "float32"
) -> contextlib.AbstractContextManager:
    """The autocast of an eval-mode ``CatenaNet`` forward in ``inference_dtype``'s precision (none in
    float32). ``NetEvaluator`` needs none: its ``folded.FoldedNet`` runs natively in that dtype."""
    dtype = inference_dtype(device, mixed_precision, cpu_precision)
    if dtype == torch.float32:
        return contextlib.nullcontext()
    return torch.autocast(device_type=device.type, dtype=dtype)


def cpu_has_fast_bfloat16() -> bool:
    """Whether this CPU runs bfloat16 convolutions natively (AVX512_BF16 or AMX), the condition
    under which ``cpu_precision: auto`` takes bfloat16 (scripts/bench_net.py measures both)."""
    probes = ("_is_avx512_bf16_supported", "_is_amx_tile_supported")  # torch.cpu's own CPUID checks
    return any(bool(getattr(torch.cpu, name, lambda: False)()) for name in probes)


def set_torch_threads(num_cpus: float) -> int:
    """Size torch's CPU thread pools to a process's CPU share; returns the intra-op thread count.

    For a self-play actor that was given ``num_cpus`` CPUs (Ray's ``num_cpus``, fractional allowed):
    intra-op threads (the ones a convolution splits over) = max(1, floor(num_cpus)), so actors
    sharing a machine do not oversubscribe its cores (OpenMP threads that outnumber the cores
    spin-wait and preempt each other).
    Inter-op threads = 1: eager inference never runs ops concurrently, and the pool is created
    lazily. torch fixes the inter-op count once any inter-op work has started, so a later call
    leaves it as it is instead of failing. Call it first thing in the actor process, before
    building the network.
    """
    if not num_cpus > 0:
        raise ValueError(f"num_cpus must be > 0, got {num_cpus}")
    threads = max(1, math.floor(num_cpus))
    torch.set_num_threads(threads)
    if torch.get_num_interop_threads() != 1:
        try:
            torch.set_num_interop_threads(1)
        except RuntimeError:  # already started in this process: it can no longer change
            pass
    return threads
