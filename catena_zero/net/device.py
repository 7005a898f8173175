"""Device placement and inference precision for the network (NetConfig.device, .mixed_precision)."""

from __future__ import annotations

import contextlib

import torch


def resolve_device(name: str) -> torch.device:
    """"auto" = the first CUDA device when one is available, else the CPU; "cpu", "cuda", "cuda:i" as given.

    Asking for CUDA on a machine without it is an error, not a silent fall-back to the CPU.
    """
    if name == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if name == "cpu":
        return torch.device("cpu")
    if name.startswith("cuda"):
        if not torch.cuda.is_available():
            raise ValueError(f"net.device is {name!r} but CUDA is not available on this machine")
        device = torch.device(name)
        if device.index is not None and device.index >= torch.cuda.device_count():
            raise ValueError(f"net.device is {name!r} but only {torch.cuda.device_count()} CUDA device(s) exist")
        return device
    raise ValueError(f"net.device must be 'auto', 'cpu' or 'cuda[:i]', got {name!r}")


def inference_autocast(device: torch.device, mixed_precision: bool) -> contextlib.AbstractContextManager:
    """bfloat16 (or float16 on GPUs without it) autocast on CUDA; on the CPU always float32.

    CPU autocast to bfloat16 is slower than float32 on most CPUs and only adds rounding.
    """
    if device.type != "cuda" or not mixed_precision:
        return contextlib.nullcontext()
    dtype = torch.bfloat16 if torch.cuda.is_bf16_supported() else torch.float16
    return torch.autocast(device_type="cuda", dtype=dtype)
