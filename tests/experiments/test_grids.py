import math
from pathlib import Path

import pytest

from paraphrastic.errors import PipelineError
from paraphrastic.evaluation.selection import select
from paraphrastic.experiments import config, grids
from paraphrastic.experiments.jobs import jobs as job_table
from paraphrastic.experiments.jobs import supervised_jobs
from paraphrastic.experiments.settings import supervised_experiment

REPO = Path(__file__).resolve().parents[2]


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


def test_seeds_are_replicas_not_part_of_a_runs_name():
    one = base_config()
    many = base_config()
    many["grids"][0]["seeds"] = 3
    runs_one, rows_one = grids.expand(one)
    runs_many, rows_many = grids.expand(many)
    assert rows_one == rows_many  # adding seeds renames nothing, so finished jobs stay valid
    c = dict(many, seed=1, train={"batch_size": 100})
    jobs = job_table(c, runs_many)
    assert len(jobs) == 1 + 8 * 3
    assert {j["seed"] for j in jobs.values() if j["run"] == rows_many["g"][0]} == {1, 2, 3}
    assert job_table(dict(c, seeds=[7, 9]), runs_one)["solo.seed9"] == \
        {"run": "solo", "seed": 9, "train_set": "ppdb"}


def test_paper_grids_are_the_papers_tuning_spaces():
    c = config.load(REPO / "params.yaml", REPO / "workflow/schemas/params.schema.yaml")
    c["data_profile"] = "paper"
    _, rows = grids.expand(c)
    assert len(rows["t1-lstm-ppdb"]) == 3 * 6 * 4  # margin x lambda_w x SOS/EOS tags
    assert len(rows["t2-lstm-l2"]) == 3 * 2 * 4  # margin x lambda_w {1e-5, 0} x lambda_c
    assert len(rows["t2-lstm-dropout-scrambling"]) == 3 * 2 * 3 * 6  # ... x scrambling x (dropout | word dropout)
    assert len(rows["t3-bigran"]) == 3 * 2 * 3 * 6 * 2  # ... x combination of directions


def supervised_config(**extra) -> dict:
    sup = {"tasks": ["sts", "sick"], "train": {"epochs": 10, "batch_size": 25, "lambda_w": 0.0},
           "grids": [{"id": "s-avg", "model": "avg", "search": {"lambda_w": [1e-5, 0.0], "dropout": [0.2, 0.4]}},
                     {"id": "s-uni", "model": "gran", "init": "g", "tasks": ["sick"], "seeds": 2,
                      "search": {"lambda_w": [1.0, 1e-3, 0.0], "lambda_c": [1e-3, 0.0]}}],
           "thinning": {"offline": {"lambda_w": [0.0, 1e-3], "dropout": [0.2]}}}
    sup.update(extra)
    return base_config(supervised=sup, seeds=1)


def test_supervised_grids_expand_into_jobs_per_task_and_seed():
    c = supervised_config()
    runs, rows = grids.expand_supervised(c)
    assert len(rows["s-avg"]) == 1 and len(rows["s-uni"]) == 4  # thinned: λ_w 0 | (1e-3, 0) x λ_c 2 values
    assert runs[rows["s-avg"][0]] == {"model": "avg", "lambda_w": 0.0, "dropout": 0.2}
    assert all(runs[n]["init"] == "g" for n in rows["s-uni"])
    jobs = supervised_jobs(c, runs)
    assert len(jobs) == 2 + 4 * 2  # s-avg on both tasks; s-uni on SICK only, two seeds
    assert {j["task"] for j in jobs.values() if j["init"]} == {"sick"}
    name = rows["s-uni"][0]
    settings = supervised_experiment(c, name, "sick", 2, runs)
    assert settings["epochs"] == 10 and settings["task"] == "sick" and settings["seed"] == 2
    assert "tasks" not in settings and "seeds" not in settings and settings["name"] == name
    with pytest.raises(PipelineError, match="no job for task 'sts'"):
        supervised_experiment(c, name, "sts", 1, runs)
    with pytest.raises(PipelineError, match=r"tasks \['sick'\] are not in supervised.tasks"):
        supervised_jobs(supervised_config(tasks=["sts"]))


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
