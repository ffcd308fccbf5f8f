"""The README's cluster set-up: scripts/install-slurm-profile.sh installs the `slurm` profile that
`snakemake --cores 8 --profile slurm` finds, and never replaces one the user has."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / "scripts/install-slurm-profile.sh"


def install(home: Path) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "XDG_CONFIG_HOME"} | {"HOME": str(home)}
    return subprocess.run(["bash", str(SCRIPT)], env=env, capture_output=True, text=True, timeout=120)


def test_installs_the_template_where_snakemake_looks_up_a_profile_name(tmp_path):
    proc = install(tmp_path)
    assert proc.returncode == 0, proc.stderr
    installed = tmp_path / ".config/snakemake/slurm/config.yaml"
    assert installed.read_text() == (REPO / "profiles/slurm/config.yaml").read_text()
    assert f"installed: {installed}" in proc.stdout
    assert [p.name for p in installed.parent.iterdir()] == ["config.yaml"]  # no temporary file left


def test_never_replaces_a_profile_the_user_has(tmp_path):
    for name in ("config.yaml", "profile.yaml"):
        home = tmp_path / name
        mine = home / ".config/snakemake/slurm" / name
        mine.parent.mkdir(parents=True)
        mine.write_text("executor: slurm\njobs: 500\n")
        proc = install(home)
        assert proc.returncode == 0, proc.stderr
        assert f"kept: {mine} is already there" in proc.stdout
        assert mine.read_text() == "executor: slurm\njobs: 500\n"
        assert [p.name for p in mine.parent.iterdir()] == [name]
