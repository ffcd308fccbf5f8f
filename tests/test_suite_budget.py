"""The suite's time budget (tests/conftest.py): a run that passes but takes longer than PARAPHRASTIC_TEST_BUDGET_S
fails at its end, naming the budget, and the record it writes holds the run's wall time and slowest tests."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.conftest import TEST_BUDGET, TEST_RECORD

REPO = Path(__file__).resolve().parents[1]


def run_budgeted(tmp_path: Path, budget: str) -> tuple[subprocess.CompletedProcess, dict]:
    # a suite of one test that sleeps, run with this repository's conftest (rootdir and confcutdir: the repository)
    (tmp_path / "test_sleeps.py").write_text("import time\n\ndef test_sleeps():\n    time.sleep(0.3)\n")
    record = tmp_path / "record.json"
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--rootdir", str(REPO),
                           "-c", str(REPO / "pyproject.toml"), "--confcutdir", str(REPO), "-p", "tests.conftest",
                           str(tmp_path / "test_sleeps.py")],
                          cwd=REPO, env=dict(os.environ, **{TEST_BUDGET: budget, TEST_RECORD: str(record)}),
                          capture_output=True, text=True, timeout=300)
    return proc, json.loads(record.read_text())


def test_a_passing_run_over_its_budget_fails(tmp_path):
    proc, record = run_budgeted(tmp_path, "0.2")
    assert proc.returncode == 1, proc.stdout[-2000:]
    assert "1 passed" in proc.stdout and "OVER its budget of 0.2 s" in proc.stdout
    assert record["over_budget"] and record["seconds"] >= 0.3 and record["budget_s"] == 0.2
    assert record["slowest"][0]["test"].endswith("::test_sleeps")


def test_a_run_within_its_budget_passes(tmp_path):
    proc, record = run_budgeted(tmp_path, "600")
    assert proc.returncode == 0, proc.stdout[-2000:]
    assert "within its budget of 600 s" in proc.stdout and not record["over_budget"] and record["tests"] == 1
    assert record["tests_cpu_s"] is None or 0 <= record["tests_cpu_s"] <= os.cpu_count() * record["tests_s"] + 1
