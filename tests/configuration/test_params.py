"""params.yaml: loaded and validated against the schema, with each error's path named."""

import copy
from pathlib import Path

import pytest
import yaml

from paraphrastic.configuration import params as config
from paraphrastic.data.corpus import TRAIN_SETS
from paraphrastic.data.similarity_tasks import PWIM_TASKS, SUPERVISED_TASKS
from paraphrastic.data.vocab import TAGS
from paraphrastic.errors import PipelineError
from paraphrastic.losses.margin import NEGATIVE_SAMPLING
from paraphrastic.models.encoders import MODELS

REPO = Path(__file__).resolve().parents[2]
SCHEMA = REPO / "workflow/schemas/params.schema.yaml"


@pytest.mark.parametrize("name", ["params.yaml", "params.test.yaml"])
def test_shipped_configs_validate(name):
    c = config.load(REPO / name, SCHEMA)
    assert c["data_profile"] == "offline"


@pytest.mark.fault("params.yaml")
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


def test_the_schema_names_what_the_code_defines():
    """Each list of names is defined once in the code; the schema, which Snakemake also reads, must agree."""
    schema = yaml.safe_load(SCHEMA.read_text())
    defs, props = schema["$defs"], schema["properties"]
    assert defs["training"]["properties"]["model"]["enum"] == list(MODELS)
    assert defs["training"]["properties"]["train_set"]["enum"] == list(TRAIN_SETS)
    assert defs["training"]["properties"]["sampling"]["enum"] == list(NEGATIVE_SAMPLING)
    assert defs["training"]["properties"]["tags"]["enum"] == list(TAGS)
    assert props["supervised"]["properties"]["tasks"]["items"]["enum"] == list(SUPERVISED_TASKS)
    assert list(props["pwim"]["properties"]["tasks"]["properties"]) == list(PWIM_TASKS)
    assert props["pwim"]["properties"]["runs"]["additionalProperties"]["properties"]["tasks"]["items"]["enum"] == \
        list(PWIM_TASKS)


def test_mirror_env_overrides_params(monkeypatch):
    c = {"mirror": "../shared/data"}
    monkeypatch.setenv(config.MIRROR_ENV, "/elsewhere")
    assert config.mirror_dir(c) == Path("/elsewhere")
    monkeypatch.setenv(config.MIRROR_ENV, "")
    assert config.mirror_dir(c) is None


