"""One stage graph: dvc.yaml is generated from stages.py and the Snakemake rules read the same table."""

import hashlib
import re
from pathlib import Path

import yaml

from paraphrastic.experiments import config
from paraphrastic.experiments.config import param_value
from paraphrastic.pipeline.dvc import dvc_yaml
from paraphrastic.pipeline.graph import STAGES, code_digest, code_paths

REPO = Path(__file__).resolve().parents[2]


def dvc_stages() -> dict:
    return yaml.safe_load((REPO / "dvc.yaml").read_text())["stages"]


def test_dvc_yaml_is_generated_from_the_stage_graph():
    assert (REPO / "dvc.yaml").read_text() == dvc_yaml(), \
        "dvc.yaml is stale: python -m paraphrastic dvc-yaml --write dvc.yaml"


def rules_text() -> str:
    return "".join(p.read_text() for p in sorted((REPO / "workflow/rules").glob("*.smk")))


def test_every_stage_is_a_snakemake_rule_built_from_the_table():
    rules = rules_text()
    assert set(re.findall(r"^rule (\w+):", rules, re.M)) == set(STAGES)
    for name in STAGES:
        # inputs, code deps, params and the command all come from the stage table
        for piece in (f'code=code_paths("{name}")', f'**stage_params("{name}")', f'stage_shell("{name}")'):
            assert piece in rules, (name, piece)


def test_every_training_set_has_one_parquet_file():
    # the train stage reads data/corpus/{train_set}.parquet (DVC: ${item.train_set})
    assert all(path == f"data/corpus/{name}.parquet" for name, path in config.TRAIN_SETS.items())
    assert "data/corpus/${item.train_set}.parquet" in dvc_stages()["train"]["do"]["deps"]


def test_every_stage_command_is_a_library_call_and_placeholders_are_resolved():
    for name, stage in dvc_stages().items():
        cmd = stage.get("do", stage)["cmd"]
        assert cmd.startswith("python -m paraphrastic "), name
        assert not re.search(r"(?<!\$)\{", cmd), (name, cmd)  # no Snakemake-style {placeholder} left


def test_no_two_stages_share_an_output():
    seen = {}
    for stage in STAGES.values():
        for path in [o.path for o in stage.outs.values()] + list(stage.persistent):
            assert path not in seen, f"{path}: {seen[path]} and {stage.name}"
            seen[path] = stage.name


def test_code_digest_changes_with_the_code(tmp_path):
    for path in code_paths("match"):
        target = tmp_path / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text("x = 1\n")
    before = code_digest("match", tmp_path)
    (tmp_path / "src/paraphrastic/data/corpus.py").write_text("x = 2\n")
    assert code_digest("match", tmp_path) != before


def test_committed_dvc_lock_is_current_for_the_offline_data_stages():
    """dvc.lock pins the offline profile's data stages; it must match today's commands, params and code."""
    lock = yaml.safe_load((REPO / "dvc.lock").read_text())["stages"]
    params = config.load(REPO / "params.yaml", REPO / "workflow/schemas/params.schema.yaml")
    assert params["data_profile"] == "offline"
    stages = dvc_stages()
    for name in ("fetch", "prepare_eval", "prepare_train", "match", "vocab"):
        entry = lock[name]
        assert " ".join(entry["cmd"].split()) == stages[name]["cmd"], name
        assert set(entry["params"]["params.yaml"]) == set(stages[name]["params"]), name
        assert {d["path"] for d in entry["deps"]} == set(stages[name]["deps"]), name
        assert {o["path"] for o in entry["outs"]} == set(stages[name]["outs"]), name
        for key, value in entry["params"]["params.yaml"].items():
            assert param_value(params, key) == value, (name, key)
        for dep in entry["deps"]:
            if dep["path"].startswith(("src/", "workflow/")):
                digest = hashlib.md5((REPO / dep["path"]).read_bytes()).hexdigest()
                assert digest == dep["md5"], f"{name}: {dep['path']} changed; refresh with `dvc commit {name}`"
