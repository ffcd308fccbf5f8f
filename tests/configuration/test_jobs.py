"""The jobs a config defines: each run once per seed (and per task), and the tables the workflow reads."""

from pathlib import Path

import pytest

from paraphrastic.configuration import grids
from paraphrastic.configuration import params as config
from paraphrastic.configuration.jobs import JobTables, jobs, seeds_of, supervised_jobs
from paraphrastic.errors import PipelineError
from tests.configuration.configs import base_config, supervised_config

REPO = Path(__file__).resolve().parents[2]
SCHEMA = REPO / "workflow/schemas/params.schema.yaml"


def test_seeds_come_from_the_run_then_the_config():
    c = config.load(REPO / "params.test.yaml", SCHEMA)
    assert seeds_of(c, c["experiments"]["lstm-simpwiki"]) == [1]  # top-level `seeds: 1`
    del c["seeds"]  # no seeds anywhere: the training seed, else `seed`
    assert seeds_of(c, c["experiments"]["lstm-simpwiki"]) == [1]
    c["experiments"]["lstm-simpwiki"]["seeds"] = 3
    assert seeds_of(c, c["experiments"]["lstm-simpwiki"]) == [1, 2, 3]
    c["train"]["seed"] = 4  # no seeds anywhere: the training default seed
    assert seeds_of(c, c["experiments"]["avg-ppdb"]) == [4]
    c["seeds"] = [5, 6]
    assert seeds_of(c, c["experiments"]["avg-ppdb"]) == [5, 6]
    c["experiments"]["avg-ppdb"]["seed"] = 11  # a run's own single seed wins over the default list
    assert seeds_of(c, c["experiments"]["avg-ppdb"]) == [11]
    config.validate(c, SCHEMA)


def test_seeds_are_replicas_not_part_of_a_runs_name():
    one = base_config()
    many = base_config()
    many["grids"][0]["seeds"] = 3
    runs_one, rows_one = grids.expand(one)
    runs_many, rows_many = grids.expand(many)
    assert rows_one == rows_many  # adding seeds renames nothing, so finished jobs stay valid
    c = dict(many, seed=1, train={"batch_size": 100})
    table = jobs(c, runs_many)
    assert len(table) == 1 + 8 * 3
    assert {j["seed"] for j in table.values() if j["run"] == rows_many["g"][0]} == {1, 2, 3}
    assert jobs(dict(c, seeds=[7, 9]), runs_one)["solo.seed9"] == {"run": "solo", "seed": 9, "train_set": "ppdb",
                                                                  "vocab_dir": "data/vocab"}


def test_supervised_runs_train_once_per_task_and_seed():
    c = supervised_config()
    runs, rows = grids.expand_supervised(c)
    assert len(rows["s-avg"]) == 1 and len(rows["s-uni"]) == 4  # thinned: λ_w 0 | (1e-3, 0) x λ_c 2 values
    assert runs[rows["s-avg"][0]] == {"model": "avg", "lambda_w": 0.0, "dropout": 0.2}
    assert all(runs[n]["init"] == "g" for n in rows["s-uni"])
    table = supervised_jobs(c, runs)
    assert len(table) == 2 + 4 * 2  # s-avg on both tasks; s-uni on SICK only, two seeds
    assert {j["task"] for j in table.values() if j["init"]} == {"sick"}
    with pytest.raises(PipelineError, match=r"tasks \['sick'\] are not in supervised.tasks"):
        supervised_jobs(supervised_config(tasks=["sts"]))


def test_job_tables_of_the_tiny_config():
    c = config.load(REPO / "params.test.yaml", SCHEMA)
    tables = JobTables.of(c)
    # 7 runs, 2 experiments again on the distilled vectors and one on the sentence-distilled ones (no `evaluate` job:
    # an experiment's twin is no experiment); the gate analysis's row, gran-simpwiki, trains a second seed
    assert len(tables.runs) == 10 and len(tables.jobs) == 13 and len(tables.experiment_jobs) == 6
    assert tables.jobs["lstmavg-simpwiki-distilled.seed1"]["vocab_dir"] == "data/distilled"
    assert tables.jobs["avg-simpwiki_matched-sentence_distilled.seed1"]["vocab_dir"] == "data/sentence_distilled"
    assert set(tables.row_jobs("t-lstmavg-reg")) == {key for key, job in tables.jobs.items()
                                                    if job["run"].startswith("t-lstmavg-reg__")}
    assert len(tables.row_jobs("gran-simpwiki", "avg-ppdb")) == 3
    with pytest.raises(PipelineError, match="no experiment or grid row named 'nope'"):
        tables.row_jobs("nope")
    universal = tables.supervised_jobs_of(universal=True)
    assert universal and all(j["init"] == "gran-simpwiki" for j in universal.values())
    assert len(universal) + len(tables.supervised_jobs_of(universal=False)) == len(tables.supervised_jobs)
    assert set(tables.siamese_jobs) == {"scbow-pretrained", "scbow-random"}
    assert {(j["task"], j["run"]) for j in tables.pwim_jobs.values()} == \
        {("sick", "pwim"), ("sts2014", "pwim"), ("sick", "pwim-no-context")}
