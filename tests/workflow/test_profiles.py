"""The design's cluster command as typed: `snakemake --cores 8 --profile slurm`, run from a fresh clone's root, finds
the project's SLURM profile without a prior step (Snakemake looks a profile name up in the working directory before
the user's config folder; `slurm` there links to profiles/slurm)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

LOOKUP = """
from snakemake.cli import get_profile_dir
found = get_profile_dir("slurm")
print(found[1].resolve() if found else None)
"""


def profile_found(cwd: Path, home: Path) -> str:
    """Where Snakemake's own lookup finds the profile `slurm` from ``cwd``, for a user whose HOME is ``home``."""
    env = {k: v for k, v in os.environ.items() if k not in ("XDG_CONFIG_HOME", "SNAKEMAKE_PROFILE")}
    proc = subprocess.run([sys.executable, "-c", LOOKUP], cwd=cwd, env=env | {"HOME": str(home)}, capture_output=True,
                          text=True, timeout=120, check=True)
    return proc.stdout.strip()


def test_profile_slurm_is_found_from_the_repository_root_without_an_install_step(tmp_path):
    assert (REPO / "slurm").is_symlink() and os.readlink(REPO / "slurm") == "profiles/slurm"
    assert profile_found(REPO, tmp_path) == str((REPO / "profiles/slurm/config.yaml").resolve())


def test_the_repositorys_profile_comes_before_a_slurm_profile_in_the_users_config_folder(tmp_path):
    """As its header says: a user's own `slurm` profile is reached by its path (or layered with a second
    --profile), never silently mixed in."""
    mine = tmp_path / ".config/snakemake/slurm/config.yaml"
    mine.parent.mkdir(parents=True)
    mine.write_text("executor: slurm\njobs: 500\n")
    assert profile_found(REPO, tmp_path) == str((REPO / "profiles/slurm/config.yaml").resolve())
    assert profile_found(tmp_path, tmp_path) == str(mine.resolve())  # from elsewhere, Snakemake finds the user's
    header = (REPO / "profiles/slurm/config.yaml").read_text()
    assert "~/.config/snakemake is not reached from this folder" in header
