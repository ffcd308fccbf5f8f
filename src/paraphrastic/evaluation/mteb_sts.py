"""MTEB's STS12-STS16, the protocol the published static and sentence-transformer models are scored on: each year's
STS test pairs pooled into one set, cosine similarity, Spearman × 100 its main score (Pearson beside it). MTEB's STS13
is the year's pairs but SMT's, which the organisers did not license for redistribution.

Our 22-set mean instead averages one Pearson per source (MSRpar, headlines, ...); the two are not comparable, so an
encoder of ours is scored both ways, and beside published models only this way.
"""

from __future__ import annotations

import csv
from pathlib import Path

import pandas as pd

from paraphrastic.errors import PipelineError

MTEB_TASKS = {"STS12": "STS 2012", "STS13": "STS 2013", "STS14": "STS 2014", "STS15": "STS 2015", "STS16": "STS 2016"}
NOT_IN_MTEB = ("sts13.SMT",)
# The size of each task's test split in MTEB's task metadata: the pooled sets must be exactly these pairs
MTEB_PAIRS = {"STS12": 3108, "STS13": 1500, "STS14": 3750, "STS15": 3000, "STS16": 1186}


def _candidates(frame: pd.DataFrame) -> tuple[pd.DataFrame, dict[str, int]]:
    by_group = {group: task for task, group in MTEB_TASKS.items()}
    rows = frame[frame["group"].isin(by_group) & ~frame["dataset"].isin(NOT_IN_MTEB)].copy()
    rows["dataset"] = rows["group"].map(by_group)
    counts = rows["dataset"].value_counts().to_dict()
    return rows, {task: counts.get(task, 0) for task in MTEB_PAIRS}


def pooled(frame: pd.DataFrame, *, where: str = "the evaluation table") -> pd.DataFrame:
    """The rows of the evaluation table that make up MTEB's STS tasks, ``dataset`` relabelled to the task (STS12, ...).

    A year whose pairs are not all there (``evaluation.sets`` leaves some out, a damaged table) is an error: a pooled
    correlation over other pairs would not be MTEB's."""
    rows, counts = _candidates(frame)
    wrong = {task: n for task, n in counts.items() if n != MTEB_PAIRS[task]}
    if wrong:
        raise PipelineError(f"{where}: MTEB's STS tasks need every test pair of their year; found "
                            + ", ".join(f"{task} {n} of {MTEB_PAIRS[task]}" for task, n in wrong.items()))
    return rows


def whole_years(frame: pd.DataFrame) -> pd.DataFrame:
    """:func:`pooled`'s rows for the tasks whose every test pair is in ``frame``, and none for the others (a profile
    that evaluates on some of a year's sets scores no MTEB task of that year)."""
    rows, counts = _candidates(frame)
    return rows[rows["dataset"].isin([task for task, n in counts.items() if n == MTEB_PAIRS[task]])]


def published(path: Path | str) -> dict[str, dict[str, dict]]:
    """model -> task -> {spearman, pearson (× 100), source}, from the carried figures (a CSV of model, task,
    cosine_spearman, cosine_pearson, mteb_version, source: :data:`paraphrastic.pipeline.graph.PUBLISHED_MTEB_STS`);
    a row that is not one is an error naming its line."""
    found: dict[str, dict[str, dict]] = {}
    with open(path, encoding="utf-8", newline="") as handle:
        for line, row in enumerate(csv.DictReader(handle), start=2):
            try:
                if row["task"] not in MTEB_TASKS or not row["source"] or not row["model"]:
                    raise ValueError(f"task {row['task']!r} (one of {', '.join(MTEB_TASKS)}), a model and a source")
                if row["task"] in found.get(row["model"], {}):
                    raise ValueError(f"{row['model']} {row['task']} given twice")
                found.setdefault(row["model"], {})[row["task"]] = {
                    "spearman": 100 * float(row["cosine_spearman"]), "pearson": 100 * float(row["cosine_pearson"]),
                    "source": row["source"]}
            except (KeyError, TypeError, ValueError) as exc:
                raise PipelineError(f"{path}:{line}: not a published score ({exc})") from None
    return found


def mean_over_tasks(scores: dict[str, dict]) -> float | None:
    """The Spearman mean over the five tasks, or None where one is missing."""
    if not all(task in scores for task in MTEB_TASKS):
        return None
    return sum(scores[task]["spearman"] for task in MTEB_TASKS) / len(MTEB_TASKS)
