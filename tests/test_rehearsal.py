"""The paper profile's data path, rehearsed end to end at a small fraction of its size (benchmarks/rehearsal.py):
stand-in upstream files served over loopback HTTP, the unmodified paper profile's stages with no mirror, and
every generated pair and malformed line accounted for. The full-size run is the same command at --scale 1."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "benchmarks"))

import cluster_plan  # noqa: E402
import rehearsal  # noqa: E402

pytestmark = pytest.mark.integration


def test_paper_profile_rehearsal_at_small_scale(tmp_path, mirror):
    # Scored on one STS 2016 set (with the selection sets): the recurrent models' scoring of all 22 sets at d=300 was
    # a minute of the suite's time, and the data path, not the scoring, is what this rehearses
    result = rehearsal.rehearse(tmp_path, scale=0.002, batches=2, families=("avg", "lstmavg", "gran"), mirror=mirror,
                                supervised_batches=2, eval_sets=["sts16.headlines"])
    stages = [row["stage"] for row in result["stages"]]
    assert stages[:6] == list(rehearsal.DATA_STAGES) and len(stages) == 12  # + 3 families, PPDB, evaluate, supervised
    assert stages[-2:] == ["evaluate (gran, d=300)", "train_supervised (gran on sick, d=300, 2 batches)"]
    assert all(row["wall_s"] > 0 and row["peak_rss_mb"] > 0 for row in result["stages"])
    checks = result["checks"]
    assert checks["simpwiki_pairs"] == round(167_689 * 0.002) - 1  # one generated pair has an empty side
    assert checks["match_direction"] == "ppdb_sampled_to_simpwiki"
    run = tmp_path / "run"
    fetched = json.loads((run / "data/raw/FETCHED.json").read_text())
    assert all(r["origin"].startswith(("http://", "https://")) for r in fetched)  # downloaded, not the mirror
    assert any(r["origin"].endswith("acl2017-demo.zip#ppdb-XL-ordered-data.txt") for r in fetched)
    for family in ("avg", "lstmavg", "gran"):
        info = json.loads((run / f"data/models/rehearsal-{family}/seed1/train.json").read_text())
        assert info["settings"]["max_pairs"] == 200
    assert "| prepare_train |" in rehearsal.markdown(result)
    assert result["device"] == "cpu"  # from the training jobs' own train.json
    # The cluster plan from these measurements: every job of the paper profile, the short ones grouped
    config = rehearsal.paper_config(REPO / "params.yaml")
    rows = {r["rule"]: r for r in cluster_plan.plan(config, result, mirror)}
    jobs = (rows["train"]["jobs"], rows["train_supervised"]["jobs"], rows["train_universal"]["jobs"])
    # the paper's 1,758 grid runs, the 6 of avg's Table 4 row again on the distilled word vectors and the 6 on the
    # sentence-distilled ones (the recurrent rows' twins wait for `extended`), and two more seeds of the 108 runs of
    # the gate analysis's GRAN row
    assert jobs == (1758 + 6 + 6 + 2 * 108, 652, 7194)
    hours = cluster_plan.RULES["train"]["runtime"] / 60
    assert rows["train"]["submissions"] == 1986 and rows["train"]["gpu_hours_reserved"] == 1986 * hours
    assert (rows["train_supervised"]["submissions"], rows["train_universal"]["submissions"]) == (163, 1799)
    assert all(r["cpu_hours"] > 0 and r["peak_mb"] > 0 for r in rows.values())
    assert "| train_universal | 7,194 | 1,799 (4 per) |" in cluster_plan.markdown(list(rows.values()), result)
    # a group of 4 one-thread jobs, run one after another, holds 4 CPUs while they run
    universal = rows["train_universal"]
    assert universal["cpu_hours_allocated"] == pytest.approx(4 * universal["cpu_hours"])
    assert rows["train"]["cpu_hours_allocated"] is None  # a GPU job: its duration is not measured here
    # A rehearsal on a GPU node adds each training rule's hours at its speeds: given these same speeds, the
    # same hours; the rules the profile keeps on CPUs are shown in parentheses (what the GPU would take).
    as_gpu = dict(result, device="cuda: a stand-in")
    with_gpu = {r["rule"]: r for r in cluster_plan.plan(config, result, mirror, gpu=as_gpu)}
    for rule in ("train", "train_supervised", "train_universal"):
        assert with_gpu[rule]["gpu_hours_measured"] == pytest.approx(rows[rule]["cpu_hours"])
    assert with_gpu["prepare_train"]["gpu_hours_measured"] is None
    text = cluster_plan.markdown(list(with_gpu.values()), result, as_gpu)
    assert f"| 1,986 | {rows['train']['cpu_hours']:,.0f} |" in text and "on cuda: a stand-in" in text
    assert f"| ({rows['train_universal']['cpu_hours']:,.0f}) |" in text
    on_cpu = tmp_path / "rehearsal_cpu.json"
    on_cpu.write_text(json.dumps(result))
    with pytest.raises(SystemExit, match="ran on cpu, not a GPU"):
        cluster_plan.main(["--rehearsal", str(on_cpu), "--gpu-rehearsal", str(on_cpu), "--results", str(tmp_path)])
    # The checker is not a formality: a count that disagrees with the generated data stops the rehearsal.
    wrong = json.loads(json.dumps(result["generated"]))
    wrong["ppdb"]["skipped"]["blank"] += 1
    with pytest.raises(SystemExit, match="ppdb skipped"):
        rehearsal.check(run, wrong)
