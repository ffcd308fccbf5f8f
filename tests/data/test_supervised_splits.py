"""The supervised tasks' tables: the STS 40/10/50 split per set, and the cap per split."""

from __future__ import annotations

import pandas as pd
import pytest

from paraphrastic.data.supervised_splits import cap, split_per_set
from paraphrastic.errors import PipelineError


def sts_frame(sizes: dict[str, int]) -> pd.DataFrame:
    return pd.DataFrame([{"dataset": name, "line": i + 1} for name, n in sizes.items() for i in range(n)])


def test_split_is_40_10_50_per_set_and_stable_when_sets_change():
    frame = sts_frame({"sts12.MSRpar": 750, "sts13.FNWN": 189})
    split = split_per_set(frame, 0.4, 0.1, seed=1)
    for name, n in (("sts12.MSRpar", 750), ("sts13.FNWN", 189)):
        counts = split[frame["dataset"] == name].value_counts()
        assert counts["train"] == round(0.4 * n) and counts["validation"] == round(0.1 * n)
        assert counts["test"] == n - round(0.4 * n) - round(0.1 * n)
    alone = sts_frame({"sts13.FNWN": 189})
    assert list(split_per_set(alone, 0.4, 0.1, seed=1)) == list(split[frame["dataset"] == "sts13.FNWN"])
    assert list(split_per_set(frame, 0.4, 0.1, seed=2)) != list(split)  # the seed matters
    with pytest.raises(PipelineError, match="no test pairs"):
        split_per_set(frame, 0.6, 0.4, seed=1)


def test_cap_keeps_at_most_n_pairs_per_split():
    frame = sts_frame({"sts12.MSRpar": 100})
    frame["split"] = split_per_set(frame, 0.4, 0.1, seed=1)
    capped = cap(frame, 20, seed=1)
    assert capped["split"].value_counts().to_dict() == {"train": 20, "validation": 10, "test": 20}
