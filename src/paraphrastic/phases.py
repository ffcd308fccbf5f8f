"""Where a job's wall time goes, by phase.

``start-up`` is the interpreter and the imports, from the process's start until the stage's step begins;
``loading`` reads inputs and builds models; ``training`` runs the optimisation steps; ``evaluation`` scores;
``writing`` saves checkpoints and outputs; ``other`` is what no phase claims. The command line starts the clock
and, when a stage ends, prints one line (:data:`LINE`) to the job's log, the rule's ``log:``, which
``benchmarks/time_profile.py`` reads beside Snakemake's benchmark files. A phase entered inside another pauses
the outer one, so no second is counted twice.
"""

from __future__ import annotations

import os
import time
from contextlib import contextmanager

PHASES = ("start-up", "loading", "training", "evaluation", "writing", "other")
LINE = "paraphrastic phases (s):"

_seconds: dict[str, float] = {}
_open: list[list] = []  # the phases entered and not left, innermost last: [name, since]
_process_started: list[float] = []


def _process_start() -> float:
    """The wall-clock time this process started: /proc/self/stat's start (clock ticks since boot) against the
    boot clock; where that cannot be read (not Linux), the time of the first call."""
    try:
        with open("/proc/self/stat") as stat:
            ticks = int(stat.read().rsplit(")", 1)[1].split()[19])  # field 22, starttime
        return time.time() - (time.clock_gettime(time.CLOCK_BOOTTIME) - ticks / os.sysconf("SC_CLK_TCK"))
    except (OSError, ValueError, IndexError, AttributeError):
        return time.time()


def start() -> None:
    """Start the clock of this process's stage (the command line does, before it imports the step)."""
    _seconds.clear()
    _open.clear()
    _process_started[:] = [min(_process_start(), time.time())]


def started_up() -> None:
    """The stage's step is about to run: everything since the process started was start-up."""
    if _process_started:
        _seconds["start-up"] = time.time() - _process_started[0]


@contextmanager
def phase(name: str):
    """Count the wall time of the block as ``name`` (one of :data:`PHASES`)."""
    if name not in PHASES:
        raise ValueError(f"phase {name!r} is not one of {PHASES}")
    now = time.perf_counter()
    if _open:  # pause the phase this one is inside
        outer = _open[-1]
        _seconds[outer[0]] = _seconds.get(outer[0], 0.0) + now - outer[1]
    _open.append([name, now])
    try:
        yield
    finally:
        now = time.perf_counter()
        _, since = _open.pop()
        _seconds[name] = _seconds.get(name, 0.0) + now - since
        if _open:
            _open[-1][1] = now


def summary() -> dict[str, float]:
    """Seconds per phase so far (each of :data:`PHASES`), ``other`` being the rest of the process's wall time."""
    counted = {name: _seconds.get(name, 0.0) for name in PHASES[:-1]}
    total = time.time() - _process_started[0] if _process_started else sum(counted.values())
    return {**counted, "other": max(total - sum(counted.values()), 0.0)}


def line() -> str:
    """The log line: ``paraphrastic phases (s): start-up=5.12 loading=0.40 ...``."""
    return LINE + " " + " ".join(f"{name}={seconds:.2f}" for name, seconds in summary().items())


def parse(text: str) -> dict[str, float] | None:
    """The phases of the last :func:`line` in a log's text (a resumed job's log holds its last attempt), or None."""
    found = None
    for row in text.splitlines():
        if row.startswith(LINE):
            found = {name: float(value) for name, _, value in
                     (item.partition("=") for item in row[len(LINE):].split())}
    return found
