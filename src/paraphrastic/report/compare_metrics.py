"""Two runs' metrics.json side by side, one metric a line: what `dvc metrics show A B` prints as one row per file
with a column per metric (hundreds of columns), read as a person reads it. Metrics are the flattened keys
(``t3-gran.test``); those only one run has (another config's rows) are counted, or listed with ``every``."""

from __future__ import annotations

import json
import math
from pathlib import Path

from paraphrastic.errors import PipelineError


def flatten(value, prefix: str = "") -> dict[str, float]:
    """{"a": {"b": 1}} -> {"a.b": 1}: the numbers of a metrics file by their dotted keys."""
    if isinstance(value, dict):
        return {key: number for name, inner in value.items()
                for key, number in flatten(inner, f"{prefix}{name}.").items()}
    return {prefix.rstrip("."): value} if isinstance(value, (int, float)) and not isinstance(value, bool) else {}


EVALUATED = "evaluated"  # metrics.json's key for how many transfer and selection sets the run's means are over


def read(path: Path) -> dict[str, float]:
    try:
        return flatten(json.loads(Path(path).read_text(encoding="utf-8")))
    except json.JSONDecodeError as exc:
        raise PipelineError(f"{path}:{exc.lineno}: not JSON ({exc.msg})") from exc


def _sets(metrics: dict[str, float]) -> dict[str, float]:
    return {key.removeprefix(f"{EVALUATED}."): value for key, value in metrics.items()
            if key.startswith(f"{EVALUATED}.")}


def _number(value: float | None) -> str:
    if value is None:
        return "–"
    return "– (not computed)" if isinstance(value, float) and math.isnan(value) else f"{value:.2f}"


def compare(first: Path, second: Path, *, every: bool = False) -> str:
    """The metrics both files hold, one a line (metric, each file's value, the change); then how many only one
    holds, or, with ``every``, those too."""
    a, b = read(first), read(second)
    shared = [key for key in a if key in b]
    keys = shared + ([key for key in a if key not in b] + [key for key in b if key not in a] if every else [])
    if not keys:
        return f"{first} and {second} share no metric (another config's rows?); --all lists every one"
    width, left, right = max(map(len, keys)), len(str(first)), len(str(second))  # each value under its file's name
    lines = [f"{'metric':<{width}}  {first}  {second}  change"]
    sets = (_sets(a), _sets(b))
    if all(sets) and sets[0] != sets[1]:
        over = [", ".join(f"{value:g} {key.replace('_', ' ')}" for key, value in s.items()) for s in sets]
        lines.insert(0, f"note: the two runs' means are over different sets ({first}: {over[0]}; {second}: "
                        f"{over[1]}), so a change below mixes that with the models'")
    for key in keys:
        x, y = a.get(key), b.get(key)
        change = f"{y - x:+.2f}" if x is not None and y is not None and not math.isnan(y - x) else ""
        lines.append(f"{key:<{width}}  {_number(x):>{left}}  {_number(y):>{right}}  {change}")
    only = (len(set(a) - set(b)), len(set(b) - set(a)))
    if any(only) and not every:
        lines.append(f"({only[0]} metrics only in {first}, {only[1]} only in {second}: rows the other config does "
                     "not have; --all lists them)")
    return "\n".join(lines)
