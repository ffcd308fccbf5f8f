"""Model selection within a row: over runs and epochs, runs ranked by their seeds' mean."""

import math

import pytest

from paraphrastic.errors import PipelineError
from paraphrastic.evaluation.selection import select


def test_select_over_runs_and_epochs():
    histories = {("a", 1): [{"epoch": 1, "selection_pearson": 50.0, "transfer_pearson": 40.0},
                            {"epoch": 2, "selection_pearson": 52.0, "transfer_pearson": 39.0}],
                 ("b", 1): [{"epoch": 1, "selection_pearson": math.nan, "transfer_pearson": 45.0}]}
    seeds = {"a": [1], "b": [1]}
    run, epochs = select(histories, ["a", "b"], seeds, "selection_pearson")
    assert (run, epochs[1]["epoch"]) == ("a", 2)
    run, epochs = select(histories, ["a", "b"], seeds, "transfer_pearson")
    assert (run, epochs[1]["epoch"]) == ("b", 1)


def test_select_with_seeds_ranks_runs_by_their_seeds_mean():
    def h(*scores):
        return [{"epoch": i + 1, "selection_pearson": s, "transfer_pearson": s} for i, s in enumerate(scores)]

    # a: one lucky seed (60) and a poor one (40); b: two steady seeds (52, 53)
    histories = {("a", 1): h(55.0, 60.0), ("a", 2): h(40.0, 38.0), ("b", 1): h(52.0), ("b", 2): h(53.0)}
    run, epochs = select(histories, ["a", "b"], {"a": [1, 2], "b": [1, 2]}, "selection_pearson")
    assert run == "b" and {s: e["epoch"] for s, e in epochs.items()} == {1: 1, 2: 1}
    # each seed at its own best epoch
    run, epochs = select(histories, ["a"], {"a": [1, 2]}, "selection_pearson")
    assert {s: e["epoch"] for s, e in epochs.items()} == {1: 2, 2: 1}
    # a run with a collapsed seed (never scored) is not eligible
    histories[("b", 2)] = h(math.nan)
    assert select(histories, ["a", "b"], {"a": [1, 2], "b": [1, 2]}, "selection_pearson")[0] == "a"
    with pytest.raises(PipelineError, match="scored epoch for every seed"):
        select(histories, ["b"], {"b": [1, 2]}, "selection_pearson")
