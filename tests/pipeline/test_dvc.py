"""dvc.yaml and workflow/runs.yaml are generated from the stage graph and params.yaml, and dvc.lock is current."""

import hashlib
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from paraphrastic.configuration import params as config
from paraphrastic.pipeline.dvc import CHECK_PARAMS, CODE_DIGESTS, dvc_yaml, runs_file
from paraphrastic.pipeline.graph import STAGES, code_listing, code_paths
from paraphrastic.pipeline.steps import code_digests

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
    """A stage depends on its data and on its code's listing (data/code/<stage>.sha256); code_digests, which writes
    the listings, on every file they list; check_params on its own files."""
    for name, stage in dvc_stages().items():
        deps = stage.get("do", stage)["deps"]
        code = [d for d in deps if d.startswith(("src/", "data/code/"))]
        if name in STAGES:
            assert code == [CODE_DIGESTS.outs[name].path], name
            assert len(deps) == len(STAGES[name].deps) + 1, name
        elif name == CHECK_PARAMS.name:
            assert code == code_paths(CHECK_PARAMS), name
        else:
            assert name == CODE_DIGESTS.name
            every = {path for s in (*STAGES.values(), CODE_DIGESTS) for path in code_paths(s)}
            assert code == sorted(every) and deps[0] == CHECK_PARAMS.outs["checked"].path, name
    assert set(CODE_DIGESTS.outs) == set(STAGES)


def copy_of_the_source(tmp_path: Path) -> Path:
    root = tmp_path / "checkout"
    for path in {p for name in STAGES for p in code_paths(name)}:
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_bytes((REPO / path).read_bytes())
    return root


def test_each_listing_is_sha256sum_of_the_stages_code_and_an_edit_changes_only_the_stages_that_run_it(
        tmp_path, monkeypatch, capsys):
    root = copy_of_the_source(tmp_path)
    monkeypatch.chdir(root)
    code_digests.run({}, out_dir="data/code")
    before = {name: (root / CODE_DIGESTS.outs[name].path).read_text() for name in STAGES}
    for name, listing in before.items():
        lines = [line.split("  ") for line in listing.splitlines()]
        assert [path for _, path in lines] == code_paths(name), name
        assert all(digest == hashlib.sha256((REPO / path).read_bytes()).hexdigest() for digest, path in lines), name
    assert "code of" in capsys.readouterr().out
    edited = root / "src/paraphrastic/report/pwim.py"  # only the report runs it
    edited.write_text(edited.read_text() + "\n# an edit\n")
    code_digests.run({}, out_dir="data/code")
    changed = {name for name in STAGES if (root / CODE_DIGESTS.outs[name].path).read_text() != before[name]}
    assert changed == {"report"}
    assert code_listing("report", root) == (root / "data/code/report.sha256").read_text()


def test_a_missing_source_file_is_named_and_no_listing_is_written(tmp_path, monkeypatch):
    root = copy_of_the_source(tmp_path)
    monkeypatch.chdir(root)
    (root / "src/paraphrastic/report/pwim.py").unlink()
    with pytest.raises(FileNotFoundError, match="src/paraphrastic/report/pwim.py"):
        code_digests.run({}, out_dir="data/code")
    assert not (root / "data/code").exists()


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


def dvc_yaml_load(path: Path):
    from ruamel.yaml import YAML

    return YAML(typ="safe", pure=True).load(path.read_text())


def _md5(data: bytes) -> str:
    return hashlib.md5(data).hexdigest()


def test_committed_dvc_lock_matches_the_commit_for_every_stage_it_records(tmp_path):
    """dvc.lock pins the DVC-only stages (check_params, code_digests) and the offline profile's data stages. On a
    fresh clone `dvc status` must report nothing as modified that the commit did not change (only outputs a clone
    lacks), so every stage the lock records matches today's commands, params, code and code listings."""
    from paraphrastic.atomic import write_json
    from paraphrastic.pipeline.steps.check_params import CHECKED

    lock = dvc_yaml_load(REPO / "dvc.lock")["stages"]  # as DVC reads it (YAML 1.2: 1e-05 is a number there, a
    # string to PyYAML)
    params = config.load(REPO / "params.yaml", SCHEMA)
    assert params["data_profile"] == "offline"
    stages = dvc_stages()
    assert {"check_params", "code_digests", "fetch", "prepare_eval", "prepare_train", "match", "vocab"} <= set(lock)
    refresh = "refresh with `dvc repro check_params code_digests {name}`"
    write_json(tmp_path / "checked.json", CHECKED)
    made = {"data/config/checked.json": _md5((tmp_path / "checked.json").read_bytes()),
            **{out.path: _md5(code_listing(stage, REPO).encode()) for stage, out in CODE_DIGESTS.outs.items()}}
    for name, entry in lock.items():
        stage, why = stages[name], refresh.format(name=name)
        assert " ".join(entry["cmd"].split()) == stage["cmd"], name
        recorded = entry.get("params", {}).get("params.yaml", {})
        if stage["params"] == [{"params.yaml": None}]:  # the whole file, read as DVC reads it
            assert recorded == dvc_yaml_load(REPO / "params.yaml"), f"{name}: params.yaml changed; {why}"
        else:
            assert set(recorded) == set(stage["params"]), name
            for key, value in recorded.items():
                assert config.param_value(params, key) == value, f"{name}: {key} changed; {why}"
        assert {d["path"] for d in entry["deps"]} == set(stage["deps"]), f"{name}: its deps changed; {why}"
        assert {o["path"] for o in entry["outs"]} == set(stage["outs"]), f"{name}: its outs changed; {why}"
        for dep in entry["deps"]:
            if dep["path"].startswith(("src/", "workflow/")):
                assert _md5((REPO / dep["path"]).read_bytes()) == dep["md5"], f"{name}: {dep['path']} changed; {why}"
            elif dep["path"] in made:  # a DVC-only stage's output, as it writes it today
                assert made[dep["path"]] == dep["md5"], f"{name}: {dep['path']} is written otherwise now; {why}"
        for out in entry["outs"]:
            if out["path"] in made:
                assert made[out["path"]] == out["md5"], f"{name}: {out['path']} is written otherwise now; {why}"


def test_a_fresh_clone_shows_only_missing_data_as_stale_and_dvc_as_the_readme_types_it_works(tmp_path):
    """What docs/reproducibility.md ("On a fresh clone") tells an auditor, on a clone of this commit: `dvc status`
    lists no recorded stage as changed but for data a clone lacks, and a stage never recorded only through data it
    lacks or the committed files it reads; `dvc repro --dry --force` runs nothing and names every stage. And the
    README's other DVC commands as typed: `dvc dag static_model` fits a screen, and in the quick look's folder the
    metrics and plots commands read that folder's files and leave nothing git would show."""
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", str(REPO), str(clone)], check=True, capture_output=True, timeout=120)

    def dvc(*args: str) -> str:
        proc = subprocess.run([sys.executable, "-m", "dvc", *args], cwd=clone, capture_output=True, text=True,
                              timeout=600)
        assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
        return proc.stdout

    status = json.loads(dvc("status", "--json"))
    lock = dvc_yaml_load(clone / "dvc.lock")["stages"]
    tracked = set(subprocess.run(["git", "ls-files"], cwd=clone, capture_output=True, text=True,
                                 check=True).stdout.split())
    assert set(lock) <= set(status)
    for stage, changes in status.items():
        for change in changes:
            assert isinstance(change, dict), (stage, change)  # e.g. "changed command": never on a clone
            for kind, paths in change.items():
                assert kind in ("changed deps", "changed outs"), (stage, kind, paths)
                for path, state in paths.items():
                    if state in ("deleted", "not in cache"):
                        assert not (clone / path).exists(), (stage, path)  # data a clone lacks
                    else:  # a stage the lock does not record: never run here, so its committed deps read as changed
                        assert stage not in lock, (stage, path, state)
                        assert path in tracked, (stage, path, state)

    plan = dvc("repro", "--dry", "--force")
    assert set(re.findall(r"^Running stage '([^']+)'", plan, re.M)) == set(status), plan[-3000:]
    assert not (clone / "data").exists() or not any((clone / "data").rglob("*.parquet"))  # a dry run writes nothing

    dag = dvc("dag", "static_model")
    assert "static_model" in dag and len(dag.splitlines()) <= 60, dag[-3000:]

    # the quick look's folder (scripts/quick-look.sh: quick/, the tiny config's run) holding a report and a history
    quick = clone / "quick"
    (quick / "data" / "report").mkdir(parents=True)
    metrics = json.loads((REPO / "docs" / "offline" / "metrics.json").read_text())
    (quick / "data" / "report" / "metrics.json").write_text(json.dumps(metrics))
    (quick / "data" / "models" / "t1-avg-ppdb" / "seed1").mkdir(parents=True)
    (quick / "data" / "models" / "t1-avg-ppdb" / "seed1" / "history.csv").write_text(
        "epoch,loss,selection_pearson,transfer_pearson\n1,0.31,61.25,55.5\n2,0.27,63.75,56.5\n")
    typed = re.findall(r"`(dvc (?:metrics|plots) show data/[^`]+)`", (clone / "README.md").read_text())
    assert [c.split()[1] for c in typed] == ["metrics", "plots"], typed
    shown = {}
    for command in typed:
        proc = subprocess.run(["bash", "-c", command], cwd=quick, capture_output=True, text=True, timeout=600,
                              env={**os.environ, "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}"})
        shown[command.split()[1]] = proc.stdout + proc.stderr
        assert proc.returncode == 0 and "failed" not in shown[command.split()[1]], (command, proc.stderr[-3000:])
    assert "data/report/metrics.json" in shown["metrics"], shown["metrics"][-3000:]
    page = (quick / "dvc_plots" / "index.html").read_text()
    assert "63.75" in page, page[:2000]
    dvc("plots", "show")  # at the root too (a clone has no plots yet): its page is no file git would show either
    assert (clone / "dvc_plots").is_dir()
    assert subprocess.run(["git", "status", "--porcelain"], cwd=clone, capture_output=True, text=True,
                          check=True).stdout == ""
