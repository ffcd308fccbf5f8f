"""The design's cluster command as typed: `snakemake --cores 8 --profile slurm`, run from a fresh clone's root, finds
the project's SLURM profile without a prior step (Snakemake looks a profile name up in the working directory before
the user's config folder; `slurm` there links to profiles/slurm)."""

from __future__ import annotations

import os
from pathlib import Path

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
