"""Release basics: the version, the licence and citation files, the changelog, and a wheel whose command works
from any directory (it carries the params schema, the sources manifest and both configs)."""

import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
import yaml

import paraphrastic
from paraphrastic import resources
from paraphrastic.cli.main import main

REPO = Path(__file__).resolve().parents[1]


def test_version(capsys):
    with pytest.raises(SystemExit) as exited:
        main(["--version"])
    assert exited.value.code == 0 and capsys.readouterr().out == f"paraphrastic {paraphrastic.__version__}\n"


def test_licence_citation_and_changelog_agree():
    citation = yaml.safe_load((REPO / "CITATION.cff").read_text())
    changelog = (REPO / "CHANGELOG.md").read_text()
    released = re.findall(r"^## (\d+\.\d+\.\d+) - (\d{4}-\d\d-\d\d)", changelog, re.M)
    assert (citation["version"], str(citation["date-released"])) == released[0]  # the latest release
    assert paraphrastic.__version__ == released[0][0] or paraphrastic.__version__.endswith(".dev0")
    assert citation["license"] == "MIT" and (REPO / "LICENSE").read_text().startswith("MIT License")
    assert 'license = "MIT"' in (REPO / "pyproject.toml").read_text()
    assert {ref["title"] for ref in citation["references"]} == {
            "Revisiting Recurrent Networks for Paraphrastic Sentence Embeddings",
            "Towards Universal Paraphrastic Sentence Embeddings",
            "Siamese CBOW: Optimizing Word Embeddings for Sentence Representations",
            "Pairwise Word Interaction Modeling with Deep Neural Networks for Semantic Similarity Measurement"}


def test_the_wheel_works_from_any_directory(tmp_path):
    source = tmp_path / "source"
    for name in ("pyproject.toml", "setup.py", "MANIFEST.in", "README.md", "LICENSE", "src", *resources.SHIPPED):
        target = source / name
        target.parent.mkdir(parents=True, exist_ok=True)
        if (REPO / name).is_dir():
            shutil.copytree(REPO / name, target, ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
        else:
            shutil.copyfile(REPO / name, target)
    built = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w",
                            str(tmp_path / "dist"), str(source)], capture_output=True, text=True, timeout=300)
    assert built.returncode == 0, built.stderr[-3000:]
    wheel = next((tmp_path / "dist").glob("paraphrastic-*.whl"))
    assert wheel.name.startswith(f"paraphrastic-{paraphrastic.__version__}-")
    site = tmp_path / "site"
    zipfile.ZipFile(wheel).extractall(site)
    for name in resources.SHIPPED:
        assert (site / "paraphrastic/_resources" / name).read_bytes() == (REPO / name).read_bytes(), name
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()

    def command(*args: str) -> str:
        proc = subprocess.run([sys.executable, "-m", "paraphrastic", *args], cwd=elsewhere, capture_output=True,
                              text=True, env={"PYTHONPATH": str(site), "PATH": "/usr/bin:/bin"}, timeout=120)
        assert proc.returncode == 0, proc.stderr[-3000:]
        return proc.stdout

    assert command("--version") == f"paraphrastic {paraphrastic.__version__}\n"
    command("default-params", "--tiny", "--write", "mine.yaml")
    assert (elsewhere / "mine.yaml").read_text() == (REPO / "params.test.yaml").read_text()
    assert "every job's settings are valid" in command("--params", "mine.yaml", "grids")
    help_text = "".join(command("fetch", "--help").split())  # argparse wraps the long default
    assert str(site / "paraphrastic/_resources/workflow/sources.yaml") in help_text
