import math
from pathlib import Path

import pytest

from paraphrastic import config, grids
from paraphrastic.errors import PipelineError

REPO = Path(__file__).resolve().parents[1]


def base_config(**extra) -> dict:
    c = {"data_profile": "offline", "experiments": {"solo": {"model": "avg", "train_set": "ppdb", "epochs": 1}},
         "grids": [{"id": "g", "model": "lstm", "train_set": "simpwiki", "epochs": 3, "fixed": {"scramble": 0.5},
                    "search": {"margin": [0.4, 0.8], "lambda_w": [1e-5, 0.0],
                               "reg": [{"dropout": 0.2}, {"word_dropout": 0.4}]}}]}
    c.update(extra)
    return c


def test_expansion_is_the_cartesian_product_with_dict_axes_merged():
    runs, rows = grids.expand(base_config())
    assert rows["solo"] == ["solo"] and len(rows["g"]) == 8
    points = [runs[n] for n in rows["g"]]
    assert all(p["scramble"] == 0.5 and p["model"] == "lstm" and p["epochs"] == 3 for p in points)
    assert sum("dropout" in p for p in points) == 4 and sum("word_dropout" in p for p in points) == 4
    assert len({(p["margin"], p["lambda_w"], p.get("dropout"), p.get("word_dropout")) for p in points}) == 8
    assert all(n.startswith("g__") for n in rows["g"])
    assert grids.expand(base_config())[0] == runs  # names are stable


def test_thinning_keeps_listed_values_per_profile():
    thin = {"offline": {"margin": [0.4], "lambda_w": [0.0], "word_dropout": [0.2]}}
    runs, rows = grids.expand(base_config(grid_thinning=thin))
    assert [runs[n] for n in rows["g"]] == [{"model": "lstm", "train_set": "simpwiki", "epochs": 3, "scramble": 0.5,
                                             "margin": 0.4, "lambda_w": 0.0, "dropout": 0.2}]
    with pytest.raises(PipelineError, match="thinning leaves no value for margin"):
        grids.expand(base_config(grid_thinning={"offline": {"margin": [0.6]}}))
    assert len(grids.expand(base_config(data_profile="paper", grid_thinning=thin))[0]) == 9


def test_select_over_runs_and_epochs():
    histories = {"a": [{"epoch": 1, "selection_pearson": 50.0, "transfer_pearson": 40.0},
                       {"epoch": 2, "selection_pearson": 52.0, "transfer_pearson": 39.0}],
                 "b": [{"epoch": 1, "selection_pearson": math.nan, "transfer_pearson": 45.0}]}
    assert grids.select(histories, ["a", "b"], "selection_pearson")[1]["epoch"] == 2
    run, epoch = grids.select(histories, ["a", "b"], "transfer_pearson")
    assert (run, epoch["epoch"]) == ("b", 1)


def test_paper_grids_are_the_papers_tuning_spaces():
    c = config.load(REPO / "params.yaml", REPO / "workflow/schemas/params.schema.yaml")
    c["data_profile"] = "paper"
    _, rows = grids.expand(c)
    assert len(rows["t1-lstm-ppdb"]) == 3 * 6 * 4  # margin x lambda_w x SOS/EOS tags
    assert len(rows["t2-lstm-l2"]) == 3 * 2 * 4  # margin x lambda_w {1e-5, 0} x lambda_c
    assert len(rows["t2-lstm-dropout-scrambling"]) == 3 * 2 * 3 * 6  # ... x scrambling x (dropout | word dropout)
    assert len(rows["t3-bigran"]) == 3 * 2 * 3 * 6 * 2  # ... x combination of directions


def test_runs_file_for_dvc_is_up_to_date():
    c = config.load(REPO / "params.yaml", REPO / "workflow/schemas/params.schema.yaml")
    assert (REPO / "workflow/runs.yaml").read_text() == grids.runs_file(grids.expand(c)[0]), \
        "regenerate with: python -m paraphrastic grids --write workflow/runs.yaml"
