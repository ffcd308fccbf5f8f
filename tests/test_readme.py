"""The README's measured blocks equal what benchmarks/readme.py writes from the committed results
(benchmarks/results/): a number there is never typed by hand."""

from __future__ import annotations

import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "benchmarks"))

import readme  # noqa: E402


def test_every_measured_block_of_the_readme_equals_its_results():
    _, changed = readme.filled(readme.README.read_text())
    assert not changed, f"README blocks {changed} differ from benchmarks/results/: run python benchmarks/readme.py"


def test_a_block_that_differs_is_named(tmp_path, monkeypatch):
    text = readme.README.read_text()
    start = "<!-- test suite -->\n"
    spoiled = text.replace(start, start + "typed by hand\n", 1)
    _, changed = readme.filled(spoiled)
    assert changed == ["test suite"]
