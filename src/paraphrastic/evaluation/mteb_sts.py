"""MTEB's STS12-STS16, the protocol the published static and sentence-transformer models are scored on: each year's
STS test pairs pooled into one set, cosine similarity, Spearman × 100 its main score (Pearson beside it). MTEB's STS13
is the year's pairs but SMT's, which the organisers did not license for redistribution.

Our 22-set mean instead averages one Pearson per source (MSRpar, headlines, ...); the two are not comparable, so an
encoder of ours is scored both ways, and beside published models only this way.
"""

from __future__ import annotations

import pandas as pd

from paraphrastic.errors import PipelineError

MTEB_TASKS = {"STS12": "STS 2012", "STS13": "STS 2013", "STS14": "STS 2014", "STS15": "STS 2015", "STS16": "STS 2016"}
NOT_IN_MTEB = ("sts13.SMT",)
# The size of each task's test split in MTEB's task metadata: the pooled sets must be exactly these pairs
MTEB_PAIRS = {"STS12": 3108, "STS13": 1500, "STS14": 3750, "STS15": 3000, "STS16": 1186}


def pooled(frame: pd.DataFrame, *, where: str = "the evaluation table") -> pd.DataFrame:
    """The rows of the evaluation table that make up MTEB's STS tasks, ``dataset`` relabelled to the task (STS12, ...).

    A year whose pairs are not all there (``evaluation.sets`` leaves some out, a damaged table) is an error: a pooled
    correlation over other pairs would not be MTEB's."""
    by_group = {group: task for task, group in MTEB_TASKS.items()}
    rows = frame[frame["group"].isin(by_group) & ~frame["dataset"].isin(NOT_IN_MTEB)].copy()
    rows["dataset"] = rows["group"].map(by_group)
    counts = rows["dataset"].value_counts().to_dict()
    wrong = {task: counts.get(task, 0) for task, size in MTEB_PAIRS.items() if counts.get(task, 0) != size}
    if wrong:
        raise PipelineError(f"{where}: MTEB's STS tasks need every test pair of their year; found "
                            + ", ".join(f"{task} {n} of {MTEB_PAIRS[task]}" for task, n in wrong.items()))
    return rows
