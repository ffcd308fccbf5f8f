"""Where a job runs: its torch device and its number of torch threads."""

from __future__ import annotations

import torch


def resolve_device(name: str = "auto") -> torch.device:
    """``auto`` is CUDA when this machine has it, else the CPU; ``cpu`` and ``cuda`` are taken as given."""
    if name == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    return torch.device(name)


def set_threads(threads: int | None) -> None:
    """An explicit torch thread count: Snakemake limits a job's threads through OMP_NUM_THREADS and DVC
    does not, and float results depend on the thread count, so both tools must give the same one."""
    if threads:
        torch.set_num_threads(threads)


def prepare_job(device: str = "auto", threads: int | None = None) -> torch.device:
    """A job's torch threads set (see :func:`set_threads`) and its device resolved."""
    set_threads(threads)
    return resolve_device(device)
