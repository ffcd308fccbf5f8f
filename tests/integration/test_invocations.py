"""Integration: invocations that need a scratch checkout of their own rather than the tiny pipeline's runs
(tests/integration/test_pipeline.py), kept in their own file so that they run beside that file's runs."""

from __future__ import annotations

import json
import subprocess
import sys
import time

import pytest
import yaml

from tests.integration.test_pipeline import MIRROR_ENV, SNAKEMAKE, scratch_checkout, sh

pytestmark = pytest.mark.integration


@pytest.mark.fault("downloads")
def test_bad_mirror_fails_with_a_clear_error(tmp_path, mirror):
    root, env = scratch_checkout(tmp_path / "repo", mirror)
    env[MIRROR_ENV] = str(tmp_path / "no-such-mirror")
    proc = subprocess.run([sys.executable, "-m", "paraphrastic", "fetch"], cwd=root, env=env,
                          capture_output=True, text=True)
    assert proc.returncode == 1
    assert "offline mirror" in proc.stderr and "no-such-mirror" in proc.stderr
    assert not (root / "data/raw/sts").exists()


@pytest.mark.fault("concurrent invocations")
def test_a_second_invocation_does_not_change_the_config_a_running_workflow_reads(tmp_path, mirror):
    """Invocation A parses (resolving params.yaml), then waits; meanwhile a dry run B with another --configfile
    parses too; then A's fetch job runs. It must fetch what A's config requires, not what B's does."""
    from paraphrastic.pipeline.steps.fetch import required_raw_files

    root, env = scratch_checkout(tmp_path / "repo", mirror)
    config = yaml.safe_load((root / "params.yaml").read_text())
    config["gates"]["extra_sentences"] = False  # A fetches no SimpWiki v1 file (the gate sentences would)
    (root / "params.yaml").write_text(yaml.safe_dump(config, sort_keys=False))
    other = dict(config, data=dict(config["data"], simpwiki_extra=True))  # fetches SimpWiki v1 too
    (root / "other.yaml").write_text(yaml.safe_dump(other, sort_keys=False))
    assert set(required_raw_files(other)) > set(required_raw_files(config))
    gate = root / "gate"
    first = subprocess.Popen([*SNAKEMAKE, "--wait-for-files", str(gate), "--latency-wait", "300",
                              "data/raw/FETCHED.json"], cwd=root, env=env, stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, text=True)
    try:
        resolved = root / ".snakemake" / "paraphrastic"
        deadline = time.time() + 120
        while not (resolved.is_dir() and any(resolved.iterdir())) and first.poll() is None:
            assert time.time() < deadline, "the first invocation never parsed its Snakefile"
            time.sleep(0.5)
        time.sleep(2)  # the rest of its parse
        sh([*SNAKEMAKE, "-n", "--configfile", "other.yaml"], root, env)
        gate.touch()
        out, _ = first.communicate(timeout=600)
    finally:
        first.kill()
    assert first.returncode == 0, out[-4000:]
    fetched = {record["file"] for record in json.loads((root / "data/raw/FETCHED.json").read_text())}
    assert fetched == set(required_raw_files(config))
