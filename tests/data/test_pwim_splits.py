"""PWIM's three tasks as tables: the seeded validation hold-out and the pair counts beside the paper's."""

from __future__ import annotations

import pandas as pd
import pytest

from paraphrastic.data import pwim_splits, similarity_tasks
from paraphrastic.errors import PipelineError


def test_hold_out_is_seeded_per_set_and_sized():
    frame = pd.DataFrame({"dataset": ["a"] * 50 + ["b"] * 20})
    split = pwim_splits.hold_out(frame, 0.1, seed=1)
    assert (split[:50] == "validation").sum() == 5 and (split[50:] == "validation").sum() == 2
    assert split.equals(pwim_splits.hold_out(frame, 0.1, seed=1))
    assert not split.equals(pwim_splits.hold_out(frame, 0.1, 2))
    with pytest.raises(PipelineError, match="validation_fraction"):
        pwim_splits.hold_out(frame, 1.0, seed=1)


def test_tasks_from_the_mirror_match_the_paper_counts(mirror):
    msrvid, _ = pwim_splits.build_task_table("msrvid", mirror, max_length=32, validation_fraction=0.1, seed=1)
    counts = msrvid["split"].value_counts().to_dict()
    assert counts == {"train": 675, "validation": 75, "test": 750}  # the organisers' 750 / 750 halves
    sts, notes = pwim_splits.build_task_table("sts2014", mirror, max_length=48, validation_fraction=0.1, seed=1)
    assert notes["train_before_length_filter"] == 7592  # Sec. 8: "a total of 7,592"
    assert 0 < notes["removed"] < 400  # the paper removed 210 with its tokenizer
    assert (sts["split"] == "test").sum() == 3750 and set(sts.loc[sts["split"] == "test", "dataset"]) == \
        {s.id for s in similarity_tasks.STS2014_TEST}
    fits = sts[sts["split"] != "test"]
    assert fits["tokens1"].map(len).max() <= 48 and fits["tokens2"].map(len).max() <= 48
