"""dvc.yaml and workflow/runs.yaml are generated from the stage graph and params.yaml, and dvc.lock is current."""

import hashlib
import re
from pathlib import Path

import yaml

from paraphrastic.experiments import config
from paraphrastic.pipeline.dvc import CHECK_PARAMS, dvc_yaml, runs_file
from paraphrastic.pipeline.graph import STAGES, code_paths

REPO = Path(__file__).resolve().parents[2]
SCHEMA = REPO / "workflow/schemas/params.schema.yaml"


def dvc_stages() -> dict:
    return yaml.safe_load((REPO / "dvc.yaml").read_text())["stages"]


def test_dvc_yaml_is_generated_from_the_stage_graph():
    assert (REPO / "dvc.yaml").read_text() == dvc_yaml(), \
        "dvc.yaml is stale: python -m paraphrastic dvc-yaml --write dvc.yaml"


def test_runs_file_for_dvc_is_up_to_date():
    c = config.load(REPO / "params.yaml", SCHEMA)
    assert (REPO / "workflow/runs.yaml").read_text() == runs_file(c), \
        "regenerate with: python -m paraphrastic grids --write workflow/runs.yaml"


def test_every_stage_command_is_a_library_call_and_placeholders_are_resolved():
    for name, stage in dvc_stages().items():
        cmd = stage.get("do", stage)["cmd"]
        assert cmd.startswith("python -m paraphrastic "), name
        assert not re.search(r"(?<!\$)\{", cmd), (name, cmd)  # no Snakemake-style {placeholder} left


def test_dvc_deps_are_the_stages_data_and_derived_code():
    stages = {**STAGES, CHECK_PARAMS.name: CHECK_PARAMS}
    checked = CHECK_PARAMS.outs["checked"].path
    for name, stage in dvc_stages().items():
        deps = stage.get("do", stage)["deps"]
        code = [d for d in deps if d.startswith("src/")]
        assert code == code_paths(stages[name]), name
        assert len(deps) == len(stages[name].deps) + len(code) + (checked in deps), name


def test_params_are_checked_before_any_stage_removes_its_outputs():
    """`dvc repro` removes a changed stage's outputs before running it: every stage descends from check_params,
    which depends on all of params.yaml."""
    stages = dvc_stages()
    assert list(stages)[0] == "check_params" and stages["check_params"]["params"] == [{"params.yaml": None}]
    written = {out: name for name, stage in stages.items() for out in stage.get("do", stage).get("outs", [])
               if isinstance(out, str)}
    written.update((p.split("/{")[0].split("/$")[0], n) for p, n in list(written.items()))

    def upstream(name: str) -> set[str]:
        deps = stages[name].get("do", stages[name])["deps"]
        found = {written[d] for d in deps if d in written} | {n for d in deps for p, n in written.items()
                                                                if d.startswith(p + "/") or p.startswith(d + "/")}
        return found | {u for stage in found - {name} for u in upstream(stage)}

    for name in stages:
        if name != "check_params":
            assert "check_params" in upstream(name), name


def test_committed_dvc_lock_is_current_for_the_offline_data_stages():
    """dvc.lock pins the offline profile's data stages; it must match today's commands, params and code."""
    lock = yaml.safe_load((REPO / "dvc.lock").read_text())["stages"]
    params = config.load(REPO / "params.yaml", SCHEMA)
    assert params["data_profile"] == "offline"
    stages = dvc_stages()
    for name in ("fetch", "prepare_eval", "prepare_train", "match", "vocab"):
        entry = lock[name]
        assert " ".join(entry["cmd"].split()) == stages[name]["cmd"], name
        assert set(entry["params"]["params.yaml"]) == set(stages[name]["params"]), name
        assert {d["path"] for d in entry["deps"]} == set(stages[name]["deps"]), name
        assert {o["path"] for o in entry["outs"]} == set(stages[name]["outs"]), name
        for key, value in entry["params"]["params.yaml"].items():
            assert config.param_value(params, key) == value, (name, key)
        for dep in entry["deps"]:
            if dep["path"].startswith(("src/", "workflow/")):
                digest = hashlib.md5((REPO / dep["path"]).read_bytes()).hexdigest()
                assert digest == dep["md5"], f"{name}: {dep['path']} changed; refresh with `dvc commit {name}`"
