"""params.yaml: loaded and validated against the schema, with each error's path named."""

import copy
import re
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
    (("evaluation", "sets"), ["sts99.nothing"], r"evaluation.sets: unknown evaluation set\(s\) \['sts99.nothing'\]"),
    (("evaluation", "selection"), ["sts16.headline"], r"evaluation.selection: unknown evaluation set\(s\)"),
    (("supervised", "sts_sets"), ["sts12.MSRvd"], r"supervised.sts_sets: unknown evaluation set\(s\)"),
    (("seeds",), [-1], "seeds"),
    (("data_profile",), "online", "data_profile"),
    # a seed numpy's generator would refuse, found before any stage runs rather than by the match stage
    (("data", "match_seed"), -1, "data/match_seed"),
    (("pwim", "split_seed"), 2 ** 32, "pwim/split_seed"),
])
def test_bad_config_is_rejected_with_its_path(path, value, message):
    c = copy.deepcopy(config.load(REPO / "params.yaml", SCHEMA))
    node = c
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    with pytest.raises(PipelineError, match=message):
        config.validate(c, SCHEMA)
    for bad in ({"train": {**c["train"], "seeds": 2}}, {"grids": [{"id": "g", "model": "avg", "train_set": "ppdb",
                                                                   "epochs": 1, "search": {"seed": [1, 2]}}]}):
        with pytest.raises(PipelineError, match="does not match"):
            config.validate({**c, **bad}, SCHEMA)


DUPLICATE = "seed: 1\ntrain:\n  batch_size: 100\n  margin: 0.4\n  batch_size: 25\n"


@pytest.mark.fault("params.yaml")
@pytest.mark.parametrize("text, message", [
    (DUPLICATE, ":5: key 'batch_size' given twice (first at line 3)"),
    ("seed: 1\ntrain: [1, 2\nseeds: 3\n", ":3:6: not valid YAML: expected ',' or ']'"),
])
def test_a_key_given_twice_or_a_syntax_error_names_the_file_and_line(tmp_path, capsys, text, message):
    path = tmp_path / "params.yaml"
    path.write_text(text)
    with pytest.raises(PipelineError, match=f"^{re.escape(str(path) + message)}"):
        config.read_yaml(path)
    from paraphrastic.cli import main as cli

    assert cli.main(["--params", str(path), "grids"]) == 1  # the command line says the same, in one line
    assert f"{path}{message}" in capsys.readouterr().err


@pytest.mark.fault("params.yaml")
def test_snakemake_stops_on_a_key_given_twice_in_a_configfile(tmp_path):
    import subprocess
    import sys

    path = tmp_path / "dup.yaml"
    path.write_text(DUPLICATE)
    proc = subprocess.run([sys.executable, "-m", "snakemake", "-n", "--configfile", str(path)], cwd=REPO,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode != 0 and f"{path}:5: key 'batch_size' given twice" in proc.stdout + proc.stderr


@pytest.mark.fault("params.yaml")
def test_snakemake_names_the_line_of_a_syntax_error_in_a_configfile_with_verbose(tmp_path):
    """Snakemake parses --configfile before the workflow's code runs, so its own message has no line; with
    --verbose (as docs/faults.md says) it shows the parser's file, line and column."""
    import subprocess
    import sys

    path = tmp_path / "syntax.yaml"
    path.write_text("seed: 1\ntrain: [1, 2\nseeds: 3\n")
    command = [sys.executable, "-m", "snakemake", "-n", "--configfile", str(path)]
    plain = subprocess.run(command, cwd=REPO, capture_output=True, text=True, timeout=300)
    verbose = subprocess.run([*command, "--verbose"], cwd=REPO, capture_output=True, text=True, timeout=300)
    assert plain.returncode != 0 and "not valid JSON or YAML" in plain.stdout + plain.stderr
    assert verbose.returncode != 0 and f'in "{path}", line 3, column 6' in verbose.stdout + verbose.stderr


def test_merge_keys_may_override_what_they_merge(tmp_path):
    path = tmp_path / "m.yaml"
    path.write_text("base: &b {x: 1, y: 2}\nz:\n  <<: *b\n  y: 3\n")
    assert config.read_yaml(path) == {"base": {"x": 1, "y": 2}, "z": {"x": 1, "y": 3}}
    for name in ("params.yaml", "params.test.yaml"):
        assert config.read_yaml(REPO / name) == yaml.safe_load((REPO / name).read_text())


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


