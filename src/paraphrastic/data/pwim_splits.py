"""The three similarity tasks of He & Lin (2016, Sec. 8) as tables with a ``split`` column.

- ``sick``: SICK 2014's official train / trial / test (the trial set tunes and selects, as the paper's).
- ``msrvid``: STS 2012 MSRvid, the organisers' train half (750 pairs) and test half (750 pairs).
- ``sts2014``: the six STS 2014 test sets, trained on every STS 2012 (train and test) and 2013 pair whose
  sentences fit the 48-word padding ("we excluded training sentences with lengths longer than the 48
  word padding limit, resulting in 7,382 training pairs out of a total of 7,592").

The paper names no validation data for MSRvid and STS 2014; here a seeded ``validation_fraction`` of
each training set is held out to choose the epoch, so no test pair chooses anything.
"""

from __future__ import annotations

import zlib
from pathlib import Path

import numpy as np
import pandas as pd

from paraphrastic.data.corpus import build_eval_table
from paraphrastic.data.similarity_tasks import MSRVID, PWIM_TASKS, SICK_SPLITS, STS2014_TEST, STS2014_TRAIN
from paraphrastic.data.supervised_splits import cap
from paraphrastic.errors import PipelineError

TASKS = PWIM_TASKS
SCORE_RANGE = {"sick": (1, 5), "msrvid": (0, 5), "sts2014": (0, 5)}
# Sec. 8 and Table 2: the paper's pair counts, reported beside ours.
PAPER_PAIRS = {"sick": {"train": 4500, "validation": 500, "test": 4927},
               "msrvid": {"train": 750, "test": 750},
               "sts2014": {"train": 7382, "train_before_length_filter": 7592, "test": 3750}}


def hold_out(frame: pd.DataFrame, fraction: float, seed: int) -> pd.Series:
    """``train`` / ``validation`` per row: a seeded ``fraction`` of each dataset is held out."""
    if not 0 < fraction < 1:
        raise PipelineError(f"pwim.validation_fraction must lie in (0, 1), got {fraction}")
    split = pd.Series("train", index=frame.index, dtype=object)
    for name, rows in frame.groupby("dataset", sort=False).indices.items():
        order = np.random.default_rng([seed, zlib.crc32(name.encode())]).permutation(len(rows))
        split.iloc[rows[order[: max(1, round(fraction * len(rows)))]]] = "validation"
    return split


def _with_split(frame: pd.DataFrame, split: str | pd.Series) -> pd.DataFrame:
    frame = frame.copy()
    frame["split"] = split
    return frame


def build_task_table(task: str, raw_root, *, max_length: int, validation_fraction: float, seed: int,
                     max_pairs: int | None = None) -> tuple[pd.DataFrame, dict]:
    """(table, notes): the task's pairs with ``split``; notes count what the length filter removed."""
    notes: dict = {}
    if task == "sick":
        parts = [_with_split(build_eval_table([spec], raw_root), split) for split, spec in SICK_SPLITS.items()]
    elif task in ("msrvid", "sts2014"):
        train_specs, test_specs = ((MSRVID["train"],), (MSRVID["test"],)) if task == "msrvid" else \
            (STS2014_TRAIN, STS2014_TEST)
        train = build_eval_table(list(train_specs), raw_root)
        if task == "sts2014":
            fits = (train["tokens1"].map(len) <= max_length) & (train["tokens2"].map(len) <= max_length)
            notes = {"train_before_length_filter": len(train), "removed_longer_than": max_length,
                     "removed": int((~fits).sum())}
            train = train[fits].reset_index(drop=True)
        parts = [_with_split(train, hold_out(train, validation_fraction, seed)),
                 _with_split(build_eval_table(list(test_specs), raw_root), "test")]
    else:
        raise PipelineError(f"unknown PWIM task {task!r}; known: {TASKS}")
    return cap(pd.concat(parts, ignore_index=True), max_pairs, seed), notes


def prepare(settings: dict, raw_root, vectors_path, out_dir) -> dict:
    """{task}.parquet for each task, the vocabulary and frozen vectors of all their words, stats.json."""
    from paraphrastic.data.corpus import token_stats, write_table
    from paraphrastic.data.supervised_splits import SUPERVISED_SCHEMA
    from paraphrastic.data.vocab import build, coverage, save_vectors
    from paraphrastic.provenance import write_result

    out_dir = Path(out_dir)
    tables, stats = {}, {}
    for task, spec in settings["tasks"].items():
        frame, notes = build_task_table(task, raw_root, max_length=int(spec["padding"]),
                                        validation_fraction=float(settings["validation_fraction"]),
                                        seed=int(settings["split_seed"]), max_pairs=settings.get("max_pairs"))
        tables[task] = frame
        counts = frame["split"].value_counts()
        stats[task] = {"pairs": {s: int(counts.get(s, 0)) for s in ("train", "validation", "test")},
                       "paper": PAPER_PAIRS[task], "sets": list(dict.fromkeys(frame["dataset"])), **notes,
                       "tokens": token_stats(frame)}
    token_lists = [t for f in tables.values() for column in ("tokens1", "tokens2") for t in f[column]]
    vocab, matrix = build(token_lists, vectors_path)
    for task, frame in tables.items():
        write_table(frame, SUPERVISED_SCHEMA, out_dir / f"{task}.parquet", stage="prepare_pwim")
    save_vectors(out_dir, vocab, matrix, stage="prepare_pwim")
    summary = {"tasks": stats, "vocabulary": len(vocab), "coverage": coverage(vocab, token_lists)}
    write_result(out_dir / "stats.json", summary, stage="prepare_pwim")
    return summary
