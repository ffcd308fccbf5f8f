"""How a stage's process keeps the memory it frees, set once at the start of a command (see
:func:`keep_freed_memory`). Imports nothing heavy: every command calls it, also those that never import torch."""

from __future__ import annotations

import ctypes
import os

# Set to 0 to leave the C allocator's settings as they are (see keep_freed_memory).
KEEP_FREED_MEMORY = "PARAPHRASTIC_KEEP_FREED_MEMORY"
_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3  # glibc's malloc.h


def keep_freed_memory(largest: int = 1 << 30, top: int = 1 << 28) -> bool:
    """Let the C allocator keep a freed block of up to ``largest`` bytes for the next allocation instead of
    returning it to the system at once, and up to ``top`` bytes of free memory at the top of its heap; returns
    whether the settings were made.

    glibc serves a block over 32 MiB with a mapping of its own and unmaps it when it is freed, so a tensor that
    size made at every training step (the gradient of the distilled vectors' 62,130 x 256 embedding, 64 MB) is
    fresh memory each time, and the kernel zero-fills each of its pages on first touch: a third of a step of the
    distilled avg model (``benchmarks/allocator.py``). Kept in the heap, the same pages serve the next step.
    Results are bit-identical. The price is memory: big blocks in the heap leave holes between them, so a
    process's peak is higher (a distilled training job's by a fifth to a quarter; ``benchmarks/allocator.py`` measures
    it), and ``top`` bounds what the process keeps once it uses less. The stage commands call this at start; the
    library never does on its own. Where the C library is not glibc (macOS, musl) nothing changes."""
    if os.environ.get(KEEP_FREED_MEMORY, "1") == "0":
        return False
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (AttributeError, OSError):
        return False
    return bool(mallopt(_M_MMAP_THRESHOLD, largest)) and bool(mallopt(_M_TRIM_THRESHOLD, top))

