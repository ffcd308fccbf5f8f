"""The paper's tuning grids, expanded into one run per configuration and thinned per data profile."""

from pathlib import Path

import pytest

from paraphrastic.errors import PipelineError
from paraphrastic.experiments import config, grids
from tests.experiments.configs import base_config

REPO = Path(__file__).resolve().parents[2]


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


def test_paper_grids_are_the_papers_tuning_spaces():
    c = config.load(REPO / "params.yaml", REPO / "workflow/schemas/params.schema.yaml")
    c["data_profile"] = "paper"
    _, rows = grids.expand(c)
    assert len(rows["t1-lstm-ppdb"]) == 3 * 6 * 4  # margin x lambda_w x SOS/EOS tags
    assert len(rows["t2-lstm-l2"]) == 3 * 2 * 4  # margin x lambda_w {1e-5, 0} x lambda_c
    assert len(rows["t2-lstm-dropout-scrambling"]) == 3 * 2 * 3 * 6  # ... x scrambling x (dropout | word dropout)
    assert len(rows["t3-bigran"]) == 3 * 2 * 3 * 6 * 2  # ... x combination of directions


def test_the_offline_supervised_grid_trains_every_table_row():
    c = config.load(REPO / "params.yaml", REPO / "workflow/schemas/params.schema.yaml")
    runs, rows = grids.expand_supervised(c)
    report = c["supervised"]["report"]
    for row in report["table5"] + report["table6"] + [r for pair in report["table8"] for r in pair]:
        assert rows[row], row
    transfer_rows = grids.expand(c)[1]
    for settings in runs.values():
        if "init" in settings:
            assert settings["init"] in transfer_rows  # universal rows start from a transfer row
            assert settings.get("lambda_w") in (0.0, 1e-3)
