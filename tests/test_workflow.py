"""Snakemake and DVC describe one graph: the same code deps and training inputs on both sides."""

from pathlib import Path

import yaml

from paraphrastic import config
from paraphrastic.stages import STAGE_CODE, code_paths

REPO = Path(__file__).resolve().parents[1]


def dvc_stages() -> dict:
    return yaml.safe_load((REPO / "dvc.yaml").read_text())["stages"]


def test_dvc_code_deps_match_the_stage_table():
    stages = dvc_stages()
    assert set(stages) == set(STAGE_CODE)
    for name, stage in stages.items():
        body = stage.get("do", stage)
        src = [d for d in body["deps"] if d.startswith("src/")]
        assert src == code_paths(name), name


def test_snakemake_rules_take_code_deps_from_the_same_table():
    rules = "".join(p.read_text() for p in (REPO / "workflow/rules").glob("*.smk"))
    for name in STAGE_CODE:
        assert f'code=code_paths("{name}")' in rules, name


def test_every_training_set_has_one_parquet_file():
    # dvc.yaml names a training job's input data/corpus/${item.train_set}.parquet
    assert all(path == f"data/corpus/{name}.parquet" for name, path in config.TRAIN_SETS.items())
    assert "data/corpus/${item.train_set}.parquet" in dvc_stages()["train"]["do"]["deps"]


def test_every_stage_command_is_a_library_call():
    for name, stage in dvc_stages().items():
        assert stage.get("do", stage)["cmd"].startswith("python -m paraphrastic "), name
