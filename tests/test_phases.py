"""A job's phase clock (paraphrastic.phases): nested phases pause the outer one, the rest is `other`, the log line
parses back, and a stage run from the command line prints it."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest

from paraphrastic import phases

REPO = Path(__file__).resolve().parents[1]


def test_a_nested_phase_pauses_the_outer_one_and_the_rest_is_other():
    phases.start()
    phases.started_up()
    with phases.phase("training"):
        time.sleep(0.05)
        with phases.phase("writing"):
            time.sleep(0.1)
        time.sleep(0.05)
    time.sleep(0.05)
    spent = phases.summary()
    assert list(spent) == list(phases.PHASES)
    assert 0.1 <= spent["writing"] < 0.15 and 0.1 <= spent["training"] < 0.15  # the writing is not training's
    assert spent["other"] >= 0.05 and spent["loading"] == spent["evaluation"] == 0
    # start-up: from this process's start (pytest's imports) to started_up(), more than nothing
    assert spent["start-up"] > 0.1


def test_the_log_line_parses_back_and_the_last_line_counts():
    phases.start()
    with phases.phase("loading"):
        time.sleep(0.01)
    line = phases.line()
    assert line.startswith(phases.LINE) and f"loading={phases.summary()['loading']:.2f}" in line
    loading = phases.parse(line)["loading"]
    assert 0.01 <= loading < 1  # a loaded machine sleeps longer than asked
    text = f"first attempt\n{phases.LINE} start-up=9.00 loading=1.00\nresumed\n{line}\nlast words\n"
    parsed = phases.parse(text)
    assert set(parsed) == set(phases.PHASES) and parsed["loading"] == loading  # the last line, not the first
    assert phases.parse("no phases here\n") is None


def test_an_unknown_phase_is_refused():
    with pytest.raises(ValueError, match="phase 'sleeping'"), phases.phase("sleeping"):
        pass


def test_a_stage_prints_its_phases_to_its_log(tmp_path):
    """The command line starts the clock before it imports the step and prints the line when the stage ends (to
    standard error, which the rules' logs hold); a stage that fails prints none."""
    def check_params(*params: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "paraphrastic", *params, "check-params",
                               "--out", str(tmp_path / "checked.json")], cwd=REPO, capture_output=True, text=True,
                              timeout=300)

    ok = check_params()
    assert ok.returncode == 0, ok.stderr
    spent = phases.parse(ok.stderr)
    assert spent and set(spent) == set(phases.PHASES) and spent["start-up"] > 0
    failed = check_params("--params", str(tmp_path / "missing.yaml"))
    assert failed.returncode == 1 and phases.LINE not in failed.stderr
