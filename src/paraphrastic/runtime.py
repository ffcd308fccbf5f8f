"""Where a job runs: its torch device and its number of torch threads."""

from __future__ import annotations

import os

import torch
from threadpoolctl import threadpool_limits

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


# What Snakemake sets to a job's threads (and the BLAS and OpenMP libraries read when they load)
THREAD_VARIABLES = ("OMP_NUM_THREADS", "GOTO_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS",
                    "VECLIB_MAXIMUM_THREADS", "NUMEXPR_NUM_THREADS")


def set_threads(threads: int | None) -> None:
    """An explicit thread count for torch and for the BLAS and OpenMP libraries of numpy, scipy and scikit-learn.

    Snakemake limits a job's threads through OMP_NUM_THREADS and its kin and DVC does not, and float results
    depend on the thread count (the distill stage's PCA, an SVD in scipy's BLAS, differed between the two engines
    with 1 thread on 2 cores), so both tools must give the same ones: the libraries already loaded are limited
    through threadpoolctl, and those loaded later read the variables."""
    if threads:
        torch.set_num_threads(threads)
        os.environ.update(dict.fromkeys(THREAD_VARIABLES, str(threads)))
        threadpool_limits(threads)


def deterministic_cuda() -> None:
    """Training on a GPU gives the same floats run after run, as on the CPU, so a killed job that resumes (or a
    damaged checkpoint trained again) reaches the uninterrupted result. CUDA's atomic additions (a sparse
    gradient's SGD step, ``index_add_``) sum in whatever order the threads arrive: torch's deterministic kernels
    are asked for instead (an operation that has none warns rather than stops the job), and cuBLAS reads its
    workspace setting for them when it first starts."""
    os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")
    torch.use_deterministic_algorithms(True, warn_only=True)


def prepare_job(device: str = "auto", threads: int | None = None) -> torch.device:
    """A job's torch threads set (see :func:`set_threads`) and its device resolved; on a GPU, deterministic
    (see :func:`deterministic_cuda`)."""
    set_threads(threads)
    resolved = resolve_device(device)
    if resolved.type == "cuda":
        deterministic_cuda()
    return resolved
