"""The design's cluster command as typed: `snakemake --cores 8 --profile slurm`, run from a fresh clone's root, finds
the project's SLURM profile without a prior step (Snakemake looks a profile name up in the working directory before
the user's config folder; `slurm` there links to profiles/slurm)."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]

def profile_found(cwd: Path, home: Path, monkeypatch) -> str:
    """Where Snakemake's own lookup finds the profile `slurm` from ``cwd``, for a user whose HOME is ``home``."""
    from snakemake.cli import get_profile_dir

    monkeypatch.chdir(cwd)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    found = get_profile_dir("slurm")
    return str(found[1].resolve()) if found else "None"


def test_profile_slurm_is_found_from_the_repository_root_without_an_install_step(tmp_path, monkeypatch):
    assert (REPO / "slurm").is_symlink() and os.readlink(REPO / "slurm") == "profiles/slurm"
    assert profile_found(REPO, tmp_path, monkeypatch) == str((REPO / "profiles/slurm/config.yaml").resolve())


def test_the_repositorys_profile_comes_before_a_slurm_profile_in_the_users_config_folder(tmp_path, monkeypatch):
    """As its header says: a user's own `slurm` profile is reached by its path (or layered with a second
    --profile), never silently mixed in."""
    mine = tmp_path / ".config/snakemake/slurm/config.yaml"
    mine.parent.mkdir(parents=True)
    mine.write_text("executor: slurm\njobs: 500\n")
    assert profile_found(REPO, tmp_path, monkeypatch) == str((REPO / "profiles/slurm/config.yaml").resolve())
    # from elsewhere, Snakemake finds the user's
    assert profile_found(tmp_path, tmp_path, monkeypatch) == str(mine.resolve())
    header = (REPO / "profiles/slurm/config.yaml").read_text()
    assert "~/.config/snakemake is not reached from this folder" in header


def planned_train_resources(*options: str) -> tuple[int, str]:
    """``snakemake -n --profile slurm OPTIONS`` for one training job of the tiny config: its exit status and what it
    printed (each planned job's resources among it)."""
    import subprocess
    import sys

    import yaml

    jobs = yaml.safe_load((REPO / "workflow/runs.yaml").read_text())["jobs"]
    job = next(iter(jobs.values()))
    target = f"data/models/{job['run']}/seed{job['seed']}/model.pt"
    proc = subprocess.run([sys.executable, "-m", "snakemake", "-n", "--profile", "slurm", *options, "--forcerun",
                           "train", "--", target], cwd=REPO, capture_output=True, text=True, timeout=300)
    return proc.returncode, proc.stdout + proc.stderr


@pytest.mark.fault("cluster resources")
def test_an_override_of_one_resource_keeps_the_training_jobs_gpu_and_a_bad_value_stops_before_submitting(
        tmp_path):
    """The documented `--set-resources train:slurm_partition=NAME` changes the partition and nothing else (the
    rule's GPU, memory and time stay); a site profile's `set-resources` likewise; a value SLURM would refuse in one
    stops the plan, naming the rule and the resource, before anything is submitted."""
    from paraphrastic.pipeline.job_resources import RULES

    rc, out = planned_train_resources("--set-resources", "train:slurm_partition=a100")
    planned = re.findall(r"^\s+resources: (.*gpu=.*)$", out, re.M)
    assert rc == 0 and planned, out[-3000:]
    train = RULES["train"]
    assert all(f"mem_mb={train['mem_mb']}," in line and f"runtime={train['runtime']}," in line
               and "slurm_partition=a100" in line and line.endswith(f"gpu={train['gpu']}") for line in planned), planned
    site = tmp_path / "site"
    site.mkdir()
    (site / "config.yaml").write_text("set-resources:\n  train:\n    runtime: 600\n    slurm_partition: 7\n")
    rc, out = planned_train_resources("--profile", str(site))
    assert rc != 0 and "set-resources train: slurm_partition=7 is not a name (a non-empty string)" in out, out[-3000:]
    assert "nothing was submitted" in out


def test_resource_values_a_cluster_would_refuse_are_named_with_where_they_come_from():
    from paraphrastic.pipeline.job_resources import problems

    assert problems({"set-resources train": {"runtime": 600, "gpu": 0, "slurm_partition": "a100", "mine": "x"},
                     "default-resources": {"mem_mb": 8000, "tmpdir": None}}) == []
    assert problems({"set-resources train": {"mem_mb": 0, "gpu": True, "slurm_account": "  ", "runtime": "1h"},
                     "default-resources": {"slurm_partition": 7}}) == [
        "set-resources train: mem_mb=0 is not a number of at least 1",
        "set-resources train: gpu=True is not a number of at least 0",
        "set-resources train: slurm_account='  ' is not a name (a non-empty string)",
        "set-resources train: runtime='1h' is not a number of at least 1",
        "default-resources: slurm_partition=7 is not a name (a non-empty string)"]
