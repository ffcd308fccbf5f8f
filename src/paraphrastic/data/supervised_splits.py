"""The supervised similarity data of Sec. 4.3: the 20 STS 2012-2015 sets pooled and split 40/10/50
per set with a fixed seed, and SICK 2014's official train/trial/test splits.

Both become one parquet table per task with a ``split`` column (train | validation | test) beside the
evaluation table's columns, so every pair can be traced to its file and line.
"""

from __future__ import annotations

import zlib

import numpy as np
import pandas as pd
import pyarrow as pa

from paraphrastic.data.corpus import EVAL_SCHEMA, build_eval_table, token_stats
from paraphrastic.data.similarity_tasks import SICK_SPLITS, SUPERVISED_TASKS, sts_sets
from paraphrastic.errors import PipelineError

TASKS = SUPERVISED_TASKS
SPLITS = ("train", "validation", "test")
SUPERVISED_SCHEMA = pa.schema([*EVAL_SCHEMA, ("split", pa.string())])

# Sec. 4.3: the paper's split sizes, reported beside ours.
PAPER_SPLITS = {"sts": {"train": 4481, "validation": 1207, "test": 6060},
                "sick": {"train": 4500, "validation": 500, "test": 4927}}
# Gold scores lie in [low, high]; the head predicts a distribution over the integers in between.
SCORE_RANGE = {"sts": (0, 5), "sick": (1, 5)}


def split_per_set(frame: pd.DataFrame, train: float, validation: float, seed: int) -> pd.Series:
    """Shuffle each set with ``seed`` and cut it into train / validation / test by the fractions.

    The shuffle of a set depends only on the seed and the set's id, so adding or removing other sets
    leaves its split unchanged.
    """
    if train + validation >= 1:
        raise PipelineError(f"supervised.split: train {train} + validation {validation} leaves no test pairs")
    split = pd.Series("", index=frame.index, dtype=object)
    for name, rows in frame.groupby("dataset", sort=False).groups.items():
        order = np.random.default_rng([seed, zlib.crc32(name.encode())]).permutation(len(rows))
        n_train, n_val = round(train * len(rows)), round(validation * len(rows))
        labels = np.array(["test"] * len(rows), dtype=object)
        labels[order[:n_train]] = "train"
        labels[order[n_train:n_train + n_val]] = "validation"
        split[rows] = labels
    return split


def cap(frame: pd.DataFrame, max_pairs: int | None, seed: int) -> pd.DataFrame:
    """At most ``max_pairs`` pairs per split, drawn with ``seed`` (the tiny test config)."""
    if not max_pairs:
        return frame
    parts = []
    for _, rows in frame.groupby("split", sort=False):
        if len(rows) > max_pairs:
            keep = np.sort(np.random.default_rng(seed).permutation(len(rows))[:max_pairs])
            rows = rows.iloc[keep]
        parts.append(rows)
    return pd.concat(parts).sort_index().reset_index(drop=True)


def build_task_table(task: str, raw_root, *, sets: str | list[str], split: dict,
                     max_pairs: int | None = None) -> pd.DataFrame:
    """One task's pairs with their ``split``: STS pools the STS 2012-2015 ``sets`` (``"all"`` or ids) and
    splits each by ``split`` (train and validation fractions, seed); SICK keeps its official files. At most
    ``max_pairs`` per split (tests)."""
    if task == "sts":
        frame = build_eval_table(sts_sets(sets), raw_root)
        frame["split"] = split_per_set(frame, split["train"], split["validation"], split["seed"])
    elif task == "sick":
        parts = []
        for name, spec in SICK_SPLITS.items():
            part = build_eval_table([spec], raw_root)
            part["split"] = name
            parts.append(part)
        frame = pd.concat(parts, ignore_index=True)
    else:
        raise PipelineError(f"unknown supervised task {task!r}; known: {TASKS}")
    return cap(frame, max_pairs, split["seed"])


def task_stats(task: str, frame: pd.DataFrame) -> dict:
    """Pairs per split beside the paper's, token statistics, and which sets were pooled."""
    counts = frame["split"].value_counts()
    return {"splits": {s: int(counts.get(s, 0)) for s in SPLITS}, "paper": PAPER_SPLITS[task],
            "sets": list(dict.fromkeys(frame["dataset"])), "score_range": list(SCORE_RANGE[task]),
            **{f"tokens_{s}": token_stats(frame[frame["split"] == s]) for s in SPLITS if counts.get(s, 0)}}


