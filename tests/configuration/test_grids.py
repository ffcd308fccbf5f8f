"""The paper's tuning grids, expanded into one run per configuration and thinned per data profile."""

from pathlib import Path

import pytest

from paraphrastic.configuration import grids
from paraphrastic.configuration import params as config
from paraphrastic.errors import PipelineError
from tests.configuration.configs import base_config

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


def test_distilled_rows_are_twins_with_the_same_settings_on_the_distilled_vectors():
    c = base_config(word_vectors={"distilled_rows": ["solo", "g"]})
    runs, rows = grids.expand(c)
    plain, _ = grids.expand(base_config())
    assert rows["solo-distilled"] == ["solo-distilled"]
    assert runs["solo-distilled"] == dict(plain["solo"], word_vectors="distilled")
    assert len(rows["g-distilled"]) == len(rows["g"]) == 8
    for name, twin in zip(rows["g"], rows["g-distilled"], strict=True):
        assert twin.startswith("g-distilled__") and runs[twin] == dict(runs[name], word_vectors="distilled")
    # a twin is named as the same row written out by hand would be
    by_hand = base_config(grids=[dict(base_config()["grids"][0], id="g-distilled",
                                      fixed={"scramble": 0.5, "word_vectors": "distilled"})])
    assert sorted(grids.expand(by_hand)[1]["g-distilled"]) == sorted(rows["g-distilled"])
    assert set(grids.expand(base_config(word_vectors={"distilled_rows": "all"}))[1]) == {
        "solo", "g", "solo-distilled", "g-distilled"}
    assert grids.row_labels(c)["g-distilled"] == grids.row_labels(c)["g"]


def test_distilled_thinning_replaces_the_named_axes_for_the_twins_only():
    thin = {"offline": {"margin": [0.4], "lambda_w": [0.0]}}
    c = base_config(grid_thinning=thin, word_vectors={"distilled_rows": ["solo", "g"],
                                                      "distilled_thinning": {"offline": {"lambda_w": [1e-5, 0.0]},
                                                                             "paper": {"lambda_w": [1e-5]}}})
    runs, rows = grids.expand(c)
    assert {runs[n]["lambda_w"] for n in rows["g"]} == {0.0} and len(rows["g"]) == 2
    twins = [runs[n] for n in rows["g-distilled"]]
    assert len(twins) == 4 and {t["margin"] for t in twins} == {0.4}  # margin still thinned as the row's
    assert sorted(t["lambda_w"] for t in twins) == [0.0, 0.0, 1e-5, 1e-5]
    # the λ_w = 0 twins keep the names they had before the override (their trained models stay theirs)
    plain = grids.expand(dict(c, word_vectors={"distilled_rows": ["solo", "g"]}))[1]["g-distilled"]
    assert set(plain) < set(rows["g-distilled"])
    assert rows["solo-distilled"] == ["solo-distilled"]  # an experiment has no search to thin
    # the report's whole grid ignores both thinnings
    assert len(grids.expand(grids.unthinned(c))[1]["g-distilled"]) == 8


@pytest.mark.parametrize("rows, message", [
    (["nope"], "word_vectors.distilled_rows: no experiment or grid row named 'nope'"),
    (["hand"], "row 'hand' already trains on the distilled vectors"),
])
def test_distilled_rows_must_name_rows_on_the_pretrained_vectors(rows, message):
    c = base_config(word_vectors={"distilled_rows": rows})
    c["experiments"]["hand"] = {"model": "avg", "train_set": "ppdb", "epochs": 1, "word_vectors": "distilled"}
    with pytest.raises(PipelineError, match=message):
        grids.expand(c)


def test_a_twin_name_already_in_use_is_an_error():
    c = base_config(word_vectors={"distilled_rows": ["solo"]})
    c["experiments"]["solo-distilled"] = {"model": "avg", "train_set": "ppdb", "epochs": 1}
    with pytest.raises(PipelineError, match="'solo-distilled' is already a row of params; rename it"):
        grids.expand(c)


def test_gate_seeds_add_seeds_to_the_analysed_rows_runs_only():
    c = base_config(seeds=1, train={}, gates={"gran_row": "g", "seeds": 3},
                    word_vectors={"distilled_rows": ["g", "solo"]})
    runs, rows = grids.expand(c)
    assert all(grids.seeds_of(c, runs[n]) == [1, 2, 3] for n in rows["g"])
    assert grids.seeds_of(c, runs["solo"]) == [1]
    assert all(grids.seeds_of(c, runs[n]) == [1] for n in rows["g-distilled"])  # the twin: as its row's own seeds
    runs = grids.expand(dict(c, gates={"gran_row": "solo", "seeds": 2}))[0]  # an experiment as the gate row
    assert (grids.seeds_of(c, runs["solo"]), grids.seeds_of(c, runs["solo-distilled"])) == ([1, 2], [1])
    assert set(runs) == set(grids.expand(dict(c, gates={"gran_row": "g", "seeds": None}))[0])  # no run renamed
    c["grids"][0]["seeds"] = [5]
    assert grids.seeds_of(c, grids.expand(c)[0][rows["g"][0]]) == [1, 2, 3, 5]  # added to the row's own
