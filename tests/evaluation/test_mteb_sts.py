"""MTEB's STS12-STS16 protocol: each year's test pairs pooled (STS13 without SMT), checked against MTEB's sizes; the
published figures carried with their sources; the calibration against all-MiniLM-L6-v2's published scores."""

from __future__ import annotations

import sys
from pathlib import Path

import pandas as pd
import pytest

from paraphrastic.errors import PipelineError
from paraphrastic.evaluation.mteb_sts import MTEB_PAIRS, MTEB_TASKS, pooled, published, whole_years
from paraphrastic.pipeline.graph import PUBLISHED_MTEB_STS

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "benchmarks"))

import mteb_sts  # noqa: E402


def _table(sizes: dict[str, int], smt: int = 750) -> pd.DataFrame:
    rows = [{"dataset": f"sts{task[3:]}.x", "group": MTEB_TASKS[task], "score": 1.0} for task, n in sizes.items()
            for _ in range(n)]
    rows += [{"dataset": "sts13.SMT", "group": "STS 2013", "score": 1.0}] * smt
    rows += [{"dataset": "sick.test", "group": "2014 SICK", "score": 1.0}] * 10
    return pd.DataFrame(rows)


def test_each_year_is_pooled_without_sts13_smt_and_must_be_whole():
    frame = pooled(_table(MTEB_PAIRS))
    assert frame["dataset"].value_counts().to_dict() == MTEB_PAIRS and "sick.test" not in set(frame["dataset"])
    with pytest.raises(PipelineError, match="the evaluation table: MTEB's STS tasks need every test pair of their "
                                            "year; found STS14 3749 of 3750"):
        pooled(_table({**MTEB_PAIRS, "STS14": 3749}))
    # a profile evaluating on part of a year scores the whole years only
    some = whole_years(_table({**MTEB_PAIRS, "STS14": 3749}))
    assert some["dataset"].value_counts().to_dict() == {t: n for t, n in MTEB_PAIRS.items() if t != "STS14"}
    assert whole_years(_table({"STS12": 5})).empty


def test_a_published_row_that_is_not_one_is_named_by_its_line(tmp_path):
    path = tmp_path / "published.csv"
    path.write_text("model,task,cosine_spearman,cosine_pearson,mteb_version,source\n"
                    "m,STS12,0.5,0.6,1,somewhere\nm,STS17,0.5,0.6,1,somewhere\n")
    with pytest.raises(PipelineError, match=r"published.csv:3: not a published score \(task 'STS17'"):
        published(path)
    path.write_text("model,task,cosine_spearman,cosine_pearson,mteb_version,source\n"
                    "m,STS12,0.5,0.6,1,somewhere\nm,STS12,0.5,0.6,1,elsewhere\n")
    with pytest.raises(PipelineError, match=r"published.csv:3: not a published score \(m STS12 given twice\)"):
        published(path)


def test_the_published_figures_carry_their_sources():
    cited = published(REPO / PUBLISHED_MTEB_STS)
    assert set(cited) == {"sentence-transformers/all-MiniLM-L6-v2", "minishlab/potion-base-8M",
                          "minishlab/potion-base-32M", "sentence-transformers/static-similarity-mrl-multilingual-v1",
                          "sentence-transformers/static-retrieval-mrl-en-v1"}
    for model, tasks in cited.items():
        assert set(tasks) <= set(MTEB_TASKS), model
        for task, score in tasks.items():
            assert 0 < score["spearman"] < 100
            folder = model.replace("/", "__")
            assert score["source"].startswith("embeddings-benchmark/results@") and f"/{folder}/" in score["source"]
            assert score["source"].endswith(f"/{task}.json")
    assert "STS16" not in cited["minishlab/potion-base-32M"]  # none published


def test_the_calibration_holds_within_half_a_point_on_every_task():
    cited = published(REPO / PUBLISHED_MTEB_STS)["sentence-transformers/all-MiniLM-L6-v2"]
    close = {task: {"spearman": s["spearman"] + 0.3} for task, s in cited.items()}
    assert mteb_sts.calibration(close, cited)["within"]
    far = {**close, "STS13": {"spearman": cited["STS13"]["spearman"] - 5.9}}
    result = mteb_sts.calibration(far, cited)
    assert not result["within"] and result["differences"]["STS13"] == pytest.approx(-5.9)
    text = mteb_sts.markdown({"commit": "abc", "measured": {"all-MiniLM-L6-v2": close},
                              "sts22": {"all-MiniLM-L6-v2": 71.234},
                              "published": published(REPO / PUBLISHED_MTEB_STS), "calibration": result})
    assert "largest difference -5.90 (NOT within 0.5)" in text
    assert "| minishlab/potion-base-32M | 62.72 | 77.59 | 72.90 | 80.76 | – | – | 73.50 | – | published |" in text
    assert "| 71.23 | measured |" in text  # our 22-set mean beside a measured encoder's MTEB scores
