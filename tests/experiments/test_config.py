import copy
from pathlib import Path

import pytest
import yaml

from paraphrastic.errors import PipelineError
from paraphrastic.experiments import config, grids, jobs, settings
from paraphrastic.pipeline.steps.fetch import required_raw_files

REPO = Path(__file__).resolve().parents[2]
SCHEMA = REPO / "workflow/schemas/params.schema.yaml"


@pytest.mark.parametrize("name", ["params.yaml", "params.test.yaml"])
def test_shipped_configs_validate(name):
    c = config.load(REPO / name, SCHEMA)
    assert c["data_profile"] == "offline"
    assert all(f for f in required_raw_files(c))


def test_paper_profile_needs_upstream_files():
    c = config.load(REPO / "params.yaml", SCHEMA)
    c["data_profile"] = "paper"
    files = required_raw_files(c)
    assert "simpwiki/v2/normal.aligned" in files and "ppdb/ppdb-XL-ordered-data.txt" in files
    manifest = yaml.safe_load((REPO / "workflow/sources.yaml").read_text())["files"]
    assert set(files) <= set(manifest)


@pytest.mark.parametrize("path, value, message", [
    (("grids", 0, "model"), "transformer", "grids/0/model"),
    (("grids", 0, "search"), {"margin": []}, "grids/0/search/margin"),
    (("train", "batch_size"), 1, "train/batch_size"),
    (("evaluation", "sets"), ["sts99.nothing"], "unknown evaluation set"),
    (("data_profile",), "online", "data_profile"),
])
def test_bad_config_is_rejected_with_its_path(path, value, message):
    c = copy.deepcopy(config.load(REPO / "params.yaml", SCHEMA))
    node = c
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    with pytest.raises((PipelineError, KeyError), match=message):
        config.validate(c, SCHEMA)
    for bad in ({"train": {**c["train"], "seeds": 2}}, {"grids": [{"id": "g", "model": "avg", "train_set": "ppdb",
                                                                   "epochs": 1, "search": {"seed": [1, 2]}}]}):
        with pytest.raises(PipelineError, match="does not match"):
            config.validate({**c, **bad}, SCHEMA)


def test_mirror_env_overrides_params(monkeypatch):
    c = {"mirror": "../shared/data"}
    monkeypatch.setenv(config.MIRROR_ENV, "/elsewhere")
    assert config.mirror_dir(c) == Path("/elsewhere")
    monkeypatch.setenv(config.MIRROR_ENV, "")
    assert config.mirror_dir(c) is None


def test_experiment_settings_overlay_defaults():
    c = config.load(REPO / "params.test.yaml", SCHEMA)
    s = settings.experiment(c, "lstm-simpwiki")
    assert (s["model"], s["epochs"], s["batch_size"], s["learning_rate"], s["seed"]) == ("lstm", 1, 100, 0.001, 1)
    c = config.load(REPO / "params.yaml", SCHEMA)
    name = next(n for n in grids.expand(c)[0] if n.startswith("t1-lstm-ppdb__"))
    s = settings.experiment(c, name)
    assert (s["model"], s["train_set"], s["epochs"], s["margin"], s["lambda_w"]) == \
        ("lstm", "ppdb_matched", 3, 0.4, 0.0)
    with pytest.raises(PipelineError, match="no experiment"):
        settings.experiment(c, "nope")


def test_a_jobs_settings_hold_its_one_seed():
    c = config.load(REPO / "params.test.yaml", SCHEMA)
    assert jobs.seeds_of(c, c["experiments"]["lstm-simpwiki"]) == [1]  # top-level `seeds: 1`
    del c["seeds"]  # no seeds anywhere: the training seed, else `seed`
    assert jobs.seeds_of(c, c["experiments"]["lstm-simpwiki"]) == [1]
    c["experiments"]["lstm-simpwiki"]["seeds"] = 3
    assert jobs.seeds_of(c, c["experiments"]["lstm-simpwiki"]) == [1, 2, 3]
    s = settings.experiment(c, "lstm-simpwiki", seed=2)
    assert s["seed"] == 2 and "seeds" not in s
    with pytest.raises(PipelineError, match="seeds \\[1, 2, 3\\], not 4"):
        settings.experiment(c, "lstm-simpwiki", seed=4)
    c["train"]["seed"] = 4  # no seeds anywhere: the training default seed
    assert jobs.seeds_of(c, c["experiments"]["avg-ppdb"]) == [4]
    c["seeds"] = [5, 6]
    assert jobs.seeds_of(c, c["experiments"]["avg-ppdb"]) == [5, 6]
    c["experiments"]["avg-ppdb"]["seed"] = 11  # a run's own single seed wins over the default list
    assert jobs.seeds_of(c, c["experiments"]["avg-ppdb"]) == [11]
    config.validate(c, SCHEMA)
