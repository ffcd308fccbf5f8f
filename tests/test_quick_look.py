"""The README's quick look (scripts/quick-look.sh): the tiny config's whole graph in a folder of its own, and the
benchmark that times it (benchmarks/quick_look.py)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "benchmarks"))

import quick_look  # noqa: E402

SCRIPT = REPO / "scripts" / "quick-look.sh"


def quick_look_run(folder: Path, *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    env = dict(os.environ, QUICK_LOOK_DIR=str(folder))
    return subprocess.run(["bash", str(SCRIPT), *args], env=env, capture_output=True, text=True, timeout=600,
                          cwd=cwd)


def test_the_quick_look_plans_every_stage_in_its_own_folder_and_leaves_data_alone(tmp_path, mirror):
    """A dry run from the folder: the links find the Snakefile, the workflow profile and the library; the tiny
    config's relative mirror (or $PARAPHRASTIC_MIRROR) resolves from there, or fetch's inputs would be missing."""
    data = REPO / "data"
    before = sorted(p.name for p in data.iterdir()) if data.is_dir() else []
    folder = tmp_path / "quick"
    done = quick_look_run(folder, "-n", "--config", "seeds=2")  # the user's override, over the tiny config
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    plan = done.stdout + done.stderr
    for rule in ("fetch", "train", "report", "static_model", "gates", "train_pwim", "train_siamese"):
        assert f"rule {rule}:" in plan, rule
    assert {p.name for p in folder.iterdir() if p.is_symlink()} == {"Snakefile", "workflow", "src", "profiles"}
    assert (folder / "workflow").resolve() == REPO / "workflow"
    config = yaml.safe_load((folder / "params.yaml").read_text())  # the tiny config, its paths made absolute
    tiny = yaml.safe_load((REPO / "params.test.yaml").read_text())
    assert config == {**tiny, "mirror": os.path.normpath(REPO / tiny["mirror"]),  # as typed: links kept
                      "paper_tables": os.path.normpath(REPO / tiny["paper_tables"])}
    resolved = [yaml.safe_load(p.read_text()) for p in (folder / ".snakemake" / "paraphrastic").glob("params-*.yaml")]
    assert [c["seeds"] for c in resolved] == [2]
    assert not (folder / "data").exists()  # a plan writes nothing
    # Snakemake's own commands in the folder, as in the checkout
    again = subprocess.run([sys.executable, "-m", "snakemake", "-n"], cwd=folder, capture_output=True, text=True,
                           timeout=300)
    assert again.returncode == 0 and "rule report:" in again.stdout + again.stderr, again.stderr[-3000:]
    assert (sorted(p.name for p in data.iterdir()) if data.is_dir() else []) == before


def test_the_quick_look_refuses_a_folder_that_is_a_file_or_holds_a_file_of_its_names(tmp_path):
    taken = tmp_path / "taken"
    taken.write_text("mine\n")
    done = quick_look_run(taken, "-n")
    assert done.returncode == 2 and f"{taken} is not a folder" in done.stderr
    assert taken.read_text() == "mine\n"
    folder = tmp_path / "quick"
    folder.mkdir()
    (folder / "Snakefile").write_text("# mine\n")
    done = quick_look_run(folder, "-n")
    assert done.returncode == 2 and "Snakefile exists and is not a link" in done.stderr
    assert (folder / "Snakefile").read_text() == "# mine\n"
    (folder / "Snakefile").unlink()
    (folder / "params.yaml").write_text("seeds: 3  # mine\n")
    done = quick_look_run(folder, "-n")
    assert done.returncode == 2 and "params.yaml exists and is not the config this script writes" in done.stderr
    assert (folder / "params.yaml").read_text() == "seeds: 3  # mine\n"


def write_report(folder: Path, text: str) -> None:
    report = folder / "data" / "report"
    report.mkdir(parents=True)
    for name in ("report.html", "metrics.json"):
        (report / name).write_text("{}")
    (report / "report.md").write_text(text)


def test_the_benchmark_refuses_a_report_that_is_not_whole_and_sums_each_rules_jobs(tmp_path):
    write_report(tmp_path / "whole", "# Report\n\n## Data\n\n## Table 1 (tiny config: 2 of 22 sets)\n\n| 55.1 |\n")
    assert quick_look.check_report(tmp_path / "whole") == {"sections": 2, "sections_marked_tiny": 1}
    write_report(tmp_path / "nan", "## Table 1 (tiny config: 2 of 22 sets)\n\n| nan [nan, nan] |\n")
    with pytest.raises(SystemExit, match="prints nan"):
        quick_look.check_report(tmp_path / "nan")
    write_report(tmp_path / "unmarked", "## Table 1\n\n| 55.1 |\n")
    with pytest.raises(SystemExit, match="no heading says 'tiny config'"):
        quick_look.check_report(tmp_path / "unmarked")
    (tmp_path / "unmarked" / "data" / "report" / "report.html").unlink()
    with pytest.raises(SystemExit, match="report.html: missing"):
        quick_look.check_report(tmp_path / "unmarked")
    for rule, job, seconds in (("train", "a", 2.5), ("train", "b", 1.25), ("fetch", "fetch", 0.5)):
        path = tmp_path / "whole" / "logs" / "benchmarks" / rule / f"{job}.tsv"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"s\th:m:s\tmax_rss\n{seconds}\t0:00:02\t100\n")
    assert quick_look.rule_seconds(tmp_path / "whole") == {"train": {"jobs": 2, "seconds": 3.8},
                                                          "fetch": {"jobs": 1, "seconds": 0.5}}


def test_a_configfile_typed_relative_to_where_the_command_runs_is_read_from_there(tmp_path):
    """`bash scripts/quick-look.sh --configfile mine.yaml`, typed in the folder that holds mine.yaml: read from
    there (not from the quick look's folder), it replaces the tiny config as the folder's params.yaml, its relative
    paths the checkout's as the tiny config's are."""
    typed = tmp_path / "typed"
    typed.mkdir()
    mine = yaml.safe_load((REPO / "params.test.yaml").read_text()) | {"seeds": 3}
    (typed / "mine.yaml").write_text(yaml.safe_dump(mine, sort_keys=False))
    folder = tmp_path / "quick"
    done = quick_look_run(folder, "-n", "--configfile", "mine.yaml", cwd=typed)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    config = yaml.safe_load((folder / "params.yaml").read_text())
    assert config["seeds"] == 3 and config["mirror"] == os.path.normpath(REPO / mine["mirror"])
    assert "# Edit " in (folder / "params.yaml").read_text().splitlines()[1]
    missing = quick_look_run(folder, "-n", "--configfile", "nope.yaml", cwd=typed)
    assert missing.returncode == 2 and f"--configfile {typed / 'nope.yaml'}: no such file" in missing.stderr


def test_the_scripts_make_the_path_options_typed_absolute_and_leave_targets_alone(tmp_path):
    for name in ("a.yaml", "b.yaml", "c.yaml", "d.yaml"):
        (tmp_path / name).write_text("seeds: 1\n")
    script = (f". scripts/typed-paths.sh; typed_paths {tmp_path} --configfile a.yaml --config x=1 "
              f"--configfile={tmp_path}/b.yaml -n data/report/report.md --profile slurm --profile ../site "
              '--configfiles c.yaml d.yaml; printf "%s\\n" "${TYPED[@]}"')
    out = subprocess.run(["bash", "-c", script], cwd=REPO, capture_output=True, text=True, check=True).stdout
    assert out.splitlines() == ["--configfile", f"{tmp_path}/a.yaml", "--config", "x=1",
                                f"--configfile={tmp_path}/b.yaml", "-n", "data/report/report.md", "--profile", "slurm",
                                "--profile", f"{tmp_path}/../site", "--configfiles", f"{tmp_path}/c.yaml",
                                f"{tmp_path}/d.yaml"]


@pytest.mark.parametrize("typed", [["--configfile", "params.tset.yaml"], ["--configfile=params.tset.yaml"],
                                   ["--configfiles", "a.yaml", "params.tset.yaml"]])
def test_a_mistyped_configfile_is_named_in_one_line_before_anything_runs(tmp_path, typed):
    """Snakemake 9 reads a --configfile before the workflow's code runs, and a missing one ends in a traceback; the
    scripts that run it name the file in one line first, before the environment's set-up."""
    (tmp_path / "a.yaml").write_text("seeds: 1\n")
    for script in ("reproduce.sh", "quick-look.sh"):
        done = subprocess.run(["bash", str(REPO / "scripts" / script), "-n", *typed], cwd=tmp_path, capture_output=True,
                              text=True, timeout=60, env=dict(os.environ, QUICK_LOOK_DIR=str(tmp_path / "quick")))
        assert done.returncode == 2, (script, done.stdout[-2000:], done.stderr[-2000:])
        assert done.stderr == f"error: --configfile {tmp_path / 'params.tset.yaml'}: no such file\n", script
        assert "setup:" not in done.stdout + done.stderr and not (tmp_path / "quick").exists()


def test_the_readmes_sentence_gives_the_first_run_with_its_set_up_beside_the_run_from_an_empty_folder():
    record = {"seconds": 294.0, "target_s": 300, "cpus": 2, "commit": "abc", "load_at_start": 0.9,
              "report": {"sections": 18, "sections_marked_tiny": 11}, "rules": {"train": {"jobs": 13, "seconds": 114}}}
    plain = quick_look.markdown(record)
    assert plain.startswith("The quick look took **4.9 min** from an empty folder on 2 CPUs")
    first = quick_look.markdown(record | {"first_run": {"seconds": 705.0, "setup_seconds": 171, "load_at_start": 1}})
    assert first.startswith("A first quick look, in a new clone, took **11.8 min**, of which the set-up (making "
                            "`.venv` and installing into it from pip's cache, saying what it installs as it goes) took "
                            "2.9 min. The quick look took **4.9 min** from an empty folder")
    assert quick_look.SETUP_DONE.search("setup: torch\nsetup: ready in 171 s\n").group(1) == "171"
