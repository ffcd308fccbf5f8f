"""Which library modules each pipeline stage runs: its code dependencies.

The Snakemake rules list these as inputs and dvc.yaml as deps (a test keeps the two equal), so an
edit to a model reruns training under both tools. cli.py, config.py, atomic.py and errors.py are
shared plumbing and deliberately left out.
"""

from __future__ import annotations

_READ = ["readers.py", "tokenize.py", "corpus.py"]
_SCORE = ["evaluate.py", "models.py", "batching.py", "vocab.py", "corpus.py", "datasets.py"]

STAGE_CODE: dict[str, list[str]] = {
    "fetch": ["fetch.py"],
    "prepare_eval": [*_READ, "datasets.py"],
    "prepare_train": _READ,
    "match": ["corpus.py"],
    "vocab": ["vocab.py", "readers.py", "corpus.py"],
    "train": ["train.py", "objective.py", *_SCORE],
    "evaluate": ["train.py", *_SCORE],
    "baseline": _SCORE,
    "report": ["report.py", "datasets.py"],
}


def code_paths(stage: str) -> list[str]:
    return [f"src/paraphrastic/{module}" for module in STAGE_CODE[stage]]
