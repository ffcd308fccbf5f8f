"""Where a job runs: its torch device and its number of torch threads."""

from __future__ import annotations

import torch

from paraphrastic.errors import PipelineError

DEVICES = "auto (CUDA when present), cpu, cuda or cuda:N"


def resolve_device(name: str = "auto") -> torch.device:
    """``auto`` is CUDA when this machine has it, else the CPU. A device named outright must exist here: a job
    asked to run on a GPU stops with a clear error on a machine without one rather than fall back to the CPU
    (a silent change of its speed, and of its floating-point results)."""
    if name == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    try:
        device = torch.device(name)
    except (RuntimeError, TypeError):
        raise PipelineError(f"device {name!r} is not a device: use {DEVICES}") from None
    if device.type == "cuda":
        if not torch.cuda.is_available():
            build = "built without CUDA" if torch.version.cuda is None else f"CUDA {torch.version.cuda}"
            raise PipelineError(f"device {name!r}: this machine has no CUDA device (torch {torch.__version__}, "
                                f"{build}); use cpu or auto")
        if device.index is not None and device.index >= torch.cuda.device_count():
            raise PipelineError(f"device {name!r}: this machine has {torch.cuda.device_count()} CUDA device(s), "
                                f"numbered from 0")
    elif device.type != "cpu":
        raise PipelineError(f"device {name!r} is not supported: use {DEVICES}")
    return device


def set_threads(threads: int | None) -> None:
    """An explicit torch thread count: Snakemake limits a job's threads through OMP_NUM_THREADS and DVC
    does not, and float results depend on the thread count, so both tools must give the same one."""
    if threads:
        torch.set_num_threads(threads)


def prepare_job(device: str = "auto", threads: int | None = None) -> torch.device:
    """A job's torch threads set (see :func:`set_threads`) and its device resolved."""
    set_threads(threads)
    return resolve_device(device)
