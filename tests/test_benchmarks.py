"""The benchmark command runs end to end (a smoke run on a tiny synthetic corpus; no timing is asserted)."""

from __future__ import annotations

import ast
import importlib
import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from paraphrastic.data.corpus import write_table

REPO = Path(__file__).resolve().parents[1]


BENCHMARKS = REPO / "benchmarks"
# The three rooms of scripts beside the library: the measurements, the harness that runs the authors' code, and the
# programs that write the pages. A script imports its siblings, measured.py and the fidelity package as top-level
# modules.
ROOMS = {"benchmarks": BENCHMARKS, "fidelity": REPO / "fidelity", "pages": REPO / "pages"}
LOCAL = {p.stem for room in ROOMS.values() for p in room.glob("*.py")} | {"fidelity"}
SCRIPTS = sorted(str(p.relative_to(REPO)) for room in ROOMS.values() for p in room.rglob("*.py"))


@pytest.mark.parametrize("script", SCRIPTS)
def test_every_name_a_benchmark_script_imports_from_the_project_exists(script, monkeypatch):
    """A script most runs never start (some need a whole offline run) still finds every name it takes from the
    library or a sibling script, at the top or inside a function (distill_choice.py imported two that had moved)."""
    for path in (REPO, BENCHMARKS, REPO / Path(script).parts[0]):  # its own room first, as when it runs
        monkeypatch.syspath_prepend(str(path))
    package = ".".join(Path(script).parent.parts)
    for node in ast.walk(ast.parse((REPO / script).read_text(encoding="utf-8"))):
        if not isinstance(node, ast.ImportFrom):
            continue
        module = importlib.util.resolve_name("." * node.level + (node.module or ""), package) if node.level \
            else node.module
        if module.split(".")[0] not in {"paraphrastic", *LOCAL}:
            continue
        imported = importlib.import_module(module)
        for alias in node.names:
            assert hasattr(imported, alias.name) or importlib.util.find_spec(f"{module}.{alias.name}"), \
                f"{script}:{node.lineno}: {module} has no {alias.name}"


def test_benchmark_command_writes_its_tables(tmp_path):
    rng = np.random.default_rng(0)
    words = [f"w{i}" for i in range(40)]

    def sentence():
        return [str(w) for w in rng.choice(words, rng.integers(1, 12))]

    corpus = pd.DataFrame({"tokens1": [sentence() for _ in range(400)], "tokens2": [sentence() for _ in range(400)]})
    write_table(corpus, None, tmp_path / "simpwiki.parquet", stage="prepare_train")
    (tmp_path / "vocab.txt").write_text("\n".join(["<pad>", "<unk>", "<s>", "</s>", *words]) + "\n")
    evaluation = pd.DataFrame({"dataset": ["sts12.MSRvid"] * 5, "s1": ["a"] * 5, "s2": ["b"] * 5, "score": [1.0] * 5,
                  "tokens1": [["w1"]] * 5, "tokens2": [["w2"]] * 5})
    write_table(evaluation, None, tmp_path / "eval.parquet", stage="prepare_eval")
    out = subprocess.run([sys.executable, "benchmarks/run.py", "--quick", "--models", "avg", "gran", "--dims", "8",
                          "--corpus", str(tmp_path / "simpwiki.parquet"), "--vocab", str(tmp_path / "vocab.txt"),
                          "--eval", str(tmp_path / "eval.parquet"), "--params", str(tmp_path / "missing.yaml"),
                          "--no-minilm", "--memory-dim", "8", "--out", str(tmp_path / "results")],
                         cwd=REPO, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    result = json.loads((tmp_path / "results" / "results.json").read_text())
    gran = next(r for r in result["throughput"] if r["model"] == "gran")
    assert {"naive", "autograd", "fused", "nn.LSTM", "gemm", "fused_bucketed"} <= set(gran)
    assert 0 <= result["padding"]["bucketed"] <= result["padding"]["random"] < 1
    assert result["memory"][0]["peak_rss_mib"] > 0
    table = (tmp_path / "results" / "results.md").read_text()
    assert "| gran | 8 |" in table and "Padding" in table and "Peak RSS" in table


def test_tokenize_speed_benchmark_runs(mirror, tmp_path):
    out = subprocess.run([sys.executable, "benchmarks/tokenize_speed.py", "--quick", "--mirror", str(mirror),
                          "--out", str(tmp_path / "tokenize_speed")], cwd=REPO, capture_output=True, text=True,
                         timeout=600)
    assert out.returncode == 0, out.stderr
    assert "| paraphrastic tokenize (now) |" in out.stdout and "Same tokens on 500 of 500 sentences" in out.stdout
    assert (tmp_path / "tokenize_speed.md").read_text() == out.stdout
    assert json.loads((tmp_path / "tokenize_speed.json").read_text())["agreed"] == 500


def test_time_profile_sums_each_rules_jobs_and_phases(tmp_path):
    """benchmarks/time_profile.py on a made-up run: two train jobs (one log of an older run without a phase line)
    and one fetch job; job seconds, shares, phases and the run's span, checked by hand."""
    from paraphrastic.phases import LINE

    header = "s\th:m:s\tmax_rss\tmax_vms\tmax_uss\tmax_pss\tio_in\tio_out\tmean_load\tcpu_time\n"
    # b stood stopped for most of its seconds: it worked 10 CPU seconds of its 50
    jobs = {("train", "a.seed1"): (30.0, 28.0, 600.0,
                                   "start-up=5 loading=2 training=20 evaluation=2 writing=1 other=0"),
            ("train", "b.seed1"): (50.0, 10.0, 700.0, None),
            ("fetch", "fetch"): (20.0, 4.0, 30.0, "start-up=1 other=19")}
    for (rule, job), (seconds, cpu, rss, spent) in jobs.items():
        (tmp_path / "logs/benchmarks" / rule).mkdir(parents=True, exist_ok=True)
        (tmp_path / "logs/benchmarks" / rule / f"{job}.tsv").write_text(
            header + f"{seconds}\t0:00:{int(seconds)}\t{rss}\t1\t1\t1\t1\t1\t1\t{cpu}\n")
        (tmp_path / "logs" / rule).mkdir(exist_ok=True)
        (tmp_path / "logs" / rule / f"{job}.log").write_text("working\n" + (f"{LINE} {spent}\n" if spent else ""))
    # the jobs ended at 100 s (fetch, started at 80), 130 s (a, started at 100) and 150 s (b, started at 100)
    for (rule, job), ended in {("fetch", "fetch"): 100, ("train", "a.seed1"): 130, ("train", "b.seed1"): 150}.items():
        os.utime(tmp_path / "logs/benchmarks" / rule / f"{job}.tsv", (ended, ended))
    out = subprocess.run([sys.executable, "benchmarks/time_profile.py", str(tmp_path), "--label", "a test",
                          "--out", str(tmp_path / "profile")], cwd=REPO, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    result = json.loads((tmp_path / "profile.json").read_text())
    assert result["wall_seconds"] == 70  # 150 - 80
    train, fetch = result["rules"]  # heaviest first
    assert (train["rule"], train["jobs"], train["seconds"], train["share"]) == ("train", 2, 80.0, 0.8)
    assert train["phased_jobs"] == 1 and train["phases"]["training"] == 20 and train["peak_rss_mb"] == 700
    assert train["cpu_seconds"] == 38 and fetch["cpu_seconds"] == 4
    assert fetch["phases"] == {"start-up": 1, "loading": 0, "training": 0, "evaluation": 0, "writing": 0, "other": 19}
    table = (tmp_path / "profile.md").read_text()
    assert "| train   | 2      | 80      | 80.0%   | 38      |" in table and "20 (67%)" in table
    assert "70 s (1.2 min)" in table and "| **all** | 3      | 100     | 100%    | 42      |" in table
    # with Snakemake's logs, the span is that of the invocation that finished jobs, not of a later `--touch`
    logs = tmp_path / ".snakemake/log"
    logs.mkdir(parents=True)
    (logs / "2026-01-01T000000.000000.snakemake.log").write_text(
        "Building DAG of jobs...\n[Thu Jan  1 00:00:00 2026]\nlocalrule fetch:\n[Thu Jan  1 00:01:40 2026]\n"
        "Finished jobid: 1 (Rule: fetch)\n[Thu Jan  1 00:05:00 2026]\nFinished jobid: 2 (Rule: train)\n")
    (logs / "2026-01-01T010000.000000.snakemake.log").write_text("Touching output files...\n[Thu Jan  1 01:00:00 "
                                                                 "2026]\n[Thu Jan  1 01:09:00 2026]\n")
    subprocess.run([sys.executable, "benchmarks/time_profile.py", str(tmp_path), "--out", str(tmp_path / "profile")],
                   cwd=REPO, check=True, capture_output=True)
    assert json.loads((tmp_path / "profile.json").read_text())["wall_seconds"] == 300
    # a run stopped and resumed has no one wall time: the jobs' seconds over the cores say what it takes
    (logs / "2026-01-02T000000.000000.snakemake.log").write_text(
        "[Fri Jan  2 00:00:00 2026]\nFinished jobid: 3 (Rule: train)\n[Fri Jan  2 00:00:30 2026]\n")
    subprocess.run([sys.executable, "benchmarks/time_profile.py", str(tmp_path), "--out", str(tmp_path / "profile"),
                    "--cores", "2"], cwd=REPO, check=True, capture_output=True)
    result = json.loads((tmp_path / "profile.json").read_text())
    assert result["wall_seconds"] is None and [i["seconds"] for i in result["invocations"]] == [300, 30]
    assert "made in 2 Snakemake invocations" in (tmp_path / "profile.md").read_text()
    assert "over 2 cores, 50 s (0.0 h)" in (tmp_path / "profile.md").read_text()  # 100 job seconds
    assert "over the 2 cores come to 21 s" in (tmp_path / "profile.md").read_text()  # 42 CPU seconds
    # a job given two threads occupies both cores: its seconds count twice
    (logs / "2026-01-02T000000.000000.snakemake.log").write_text(
        "[Fri Jan  2 00:00:00 2026]\nlocalrule train:\n    log: logs/train/b.seed1.log\n"
        "    benchmark: logs/benchmarks/train/b.seed1.tsv\n    threads: 2\n"
        "Finished jobid: 3 (Rule: train)\n[Fri Jan  2 00:00:30 2026]\n")
    subprocess.run([sys.executable, "benchmarks/time_profile.py", str(tmp_path), "--out", str(tmp_path / "profile"),
                    "--cores", "2"], cwd=REPO, check=True, capture_output=True)
    assert "over 2 cores, 75 s (0.0 h)" in (tmp_path / "profile.md").read_text()  # 30 + 2 × 50 + 20 core-seconds
    assert json.loads((tmp_path / "profile.json").read_text())["restarted"] == []
    assert "more than one invocation" not in (tmp_path / "profile.md").read_text()
    # a job started in two invocations (stopped, then resumed) holds its last attempt's seconds only: said
    first = logs / "2026-01-01T000000.000000.snakemake.log"
    first.write_text(first.read_text() + "localrule train:\n    benchmark: logs/benchmarks/train/b.seed1.tsv\n")
    subprocess.run([sys.executable, "benchmarks/time_profile.py", str(tmp_path), "--out", str(tmp_path / "profile")],
                   cwd=REPO, check=True, capture_output=True)
    assert json.loads((tmp_path / "profile.json").read_text())["restarted"] == ["logs/benchmarks/train/b.seed1.tsv"]
    assert "1 job(s) were started in more than one invocation" in (tmp_path / "profile.md").read_text()


def test_time_profile_names_the_critical_path_from_snakemakes_own_log(tmp_path, monkeypatch):
    """A real Snakemake run of a diamond (fetch -> slow and quick -> report): the critical path goes through the
    slower branch; an input that is a folder waits for the jobs that wrote inside it (time_profile.critical_path)."""
    rules = {"fetch": ([], ["raw/a", "raw/b"], 1), "slow": (["raw/a"], ["out/slow"], 2),
             "quick": (["raw/b"], ["out/quick"], 0), "report": (["out/slow", "out/quick"], ["report.md"], 0)}
    text = 'rule all:\n    input: "report.md"\n'
    for rule, (inputs, outputs, sleep) in rules.items():
        flagged = [f"update({path!r})" for path in outputs]  # as the pipeline flags its outputs: "out/slow (update)"
        text += (f"rule {rule}:\n" + (f"    input: {', '.join(map(repr, inputs))}\n" if inputs else "")
                 + f"    output: {', '.join(flagged)}\n"
                 + f"    benchmark: 'logs/benchmarks/{rule}/job.tsv'\n"
                 + f"    shell: 'sleep {sleep}; mkdir -p raw out; touch {' '.join(outputs)}'\n")
    (tmp_path / "Snakefile").write_text(text)
    subprocess.run([sys.executable, "-m", "snakemake", "--cores", "1"], cwd=tmp_path, check=True, capture_output=True,
                   timeout=300)
    subprocess.run([sys.executable, "benchmarks/time_profile.py", str(tmp_path), "--out", str(tmp_path / "profile")],
                   cwd=REPO, check=True, capture_output=True)
    critical = json.loads((tmp_path / "profile.json").read_text())["critical_path"]
    assert [job["job"] for job in critical["jobs"]] == ["fetch/job", "slow/job", "report/job"], critical
    assert critical["seconds"] >= 3 and "The critical path" in (tmp_path / "profile.md").read_text()
    # an input that is a folder: the jobs that wrote inside it
    found = [{"rule": rule, "job": "job", "seconds": seconds} for rule, seconds in (("a", 5), ("b", 1), ("c", 2))]
    log = ["rule a:", "    output: out/x/model.pt (update)", "    benchmark: logs/benchmarks/a/job.tsv",
           "rule b:", "    output: out/y/model.pt", "    benchmark: logs/benchmarks/b/job.tsv",
           "rule c:", "    input: out", "    output: summary.json", "    benchmark: logs/benchmarks/c/job.tsv"]
    monkeypatch.syspath_prepend(str(BENCHMARKS))
    import time_profile

    assert [job["job"] for job in time_profile.critical_path(found, [("log", log)])["jobs"]] == ["a/job", "c/job"]
    # a folder input that holds a later job's output makes no loop
    log = ["rule a:", "    input: out", "    output: out/a.json", "    benchmark: logs/benchmarks/a/job.tsv",
           "rule b:", "    input: out/a.json", "    output: out/b.json", "    benchmark: logs/benchmarks/b/job.tsv"]
    assert time_profile.critical_path(found[:2], [("log", log)])["seconds"] == 6
    # a last job its benchmark measured at 0 s still ends the chain (the diamond's report/job, ahead of which the tie
    # went to whichever chain came first)
    found[1]["seconds"] = 0.0
    log = ["rule a:", "    output: a.json", "    benchmark: logs/benchmarks/a/job.tsv",
           "rule b:", "    input: a.json", "    output: b.json", "    benchmark: logs/benchmarks/b/job.tsv"]
    for order in (log, log[3:] + log[:3]):
        assert [job["job"] for job in time_profile.critical_path(found[:2], [("log", order)])["jobs"]] == [
            "a/job", "b/job"]


def test_gated_sum_benchmark_compares_equal_gradients(tmp_path):
    """benchmarks/gated_sum.py times GRAN-3/4's fused sum against the step-by-step recurrence and fails if their
    gradients differ (a smoke run at d=8; no timing is asserted)."""
    out = subprocess.run([sys.executable, "benchmarks/gated_sum.py", "--dims", "8", "--repeats", "1",
                          "--out", str(tmp_path / "gated_sum.json")], cwd=REPO, capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, out.stderr
    rows = json.loads((tmp_path / "gated_sum.json").read_text())["rows"]
    assert [(r["model"], r["dim"]) for r in rows] == [("gran3", 8), ("gran4", 8)]
    assert all(r["fused_ms"] > 0 and r["step_by_step_ms"] > 0 for r in rows)


def test_the_sentence_distillation_table_gives_seed_spreads_marks_the_pick_and_the_default(monkeypatch):
    """benchmarks/sentence_distill_ablation.py's table: a variant's seeds as mean ± sd, STS 2016's pick in bold, the
    settings params.yaml names in italics, and that variant's distance to the targets under the table."""
    monkeypatch.syspath_prepend(str(BENCHMARKS))
    ablation = importlib.import_module("sentence_distill_ablation")
    settings = {"loss": "cosine", "epochs": 8, "seed": 1}

    def row(name, seed, sts16, loss="squared_error"):
        return {"name": name, "seed": seed, "what": name, "settings": {"loss": loss, "epochs": 8, "seed": seed},
                "sources": None, "dims": 4, "selected_epoch": 2, "sts16": sts16, "sts22": 70.0 + seed,
                "mteb": 73.0 + seed / 10, "seconds": 10.0, "tokenizer": "treebank_like"}

    earlier = {key: value for key, value in row("chosen", 1, 79.0, "cosine").items() if key != "tokenizer"}
    result = {"commit": "abc", "threads": 1, "texts": 100,
              "rows": [row("base", 1, 75.0), row("chosen", 1, 76.0, "cosine"), row("chosen", 2, 75.0, "cosine"),
                       {**row("twin", 1, 74.0, "cosine"), "twin": True},
                       row("paraphrase-unweighted-start-384", 1, 74.5, "cosine"), earlier]}
    table = ablation.markdown(result, settings, "treebank_like")
    current, before = table.split("Measured before the static tokenizer")
    assert "| chosen | chosen | 4 | 1 | 2 | 79.00 |" in before and "79.00" not in current  # apart, and not the pick
    assert "| base | base | 4 | 1 | 2 | 75.00 | 71.00 | 73.10 | 10 |" in table
    assert "| twin | twin |" in table  # trained further from the default's vectors: not the default itself
    assert "| paraphrase-unweighted-start-384 |" in table  # the same settings from other starting vectors
    assert "| ***chosen*** | chosen | 4 | 2 | 2, 2 | 75.50 ± 0.71 | 71.50 ± 0.71 | 73.15 ± 0.07 | 10 |" in table
    assert "over its 2 seed(s): MTEB's mean 73.15 against potion-base-8M's published 73.49 by -0.34" in table
    assert "the 22-set mean 71.50 against the floor of 71.0 by +0.50" in table


@pytest.mark.fault("command inputs")
def test_mteb_sts_checks_every_argument_before_any_work(tmp_path, capsys, monkeypatch):
    """benchmarks/mteb_sts.py: a missing table, model or folder, an empty or repeated label is one line naming the
    argument (argparse's usage error), before MiniLM or a model is loaded; nothing is written."""
    monkeypatch.syspath_prepend(str(BENCHMARKS))
    mteb_sts = importlib.import_module("mteb_sts")
    monkeypatch.setattr(mteb_sts, "run", lambda args: pytest.fail("it started work"))
    vectors = tmp_path / "vectors"
    vectors.mkdir()
    (vectors / "vocab.txt").write_text("the\n")
    static = tmp_path / "static"  # an export whose weights were cut short
    static.mkdir()
    (static / "modules.json").write_text("[]")
    from safetensors.numpy import save_file

    save_file({"embedding.weight": np.ones((50, 16), np.float32)}, str(static / "model.safetensors"))
    whole = (static / "model.safetensors").read_bytes()
    (static / "model.safetensors").write_bytes(whole[: len(whole) // 2])
    out = ["--out", str(tmp_path / "out")]
    for argv, said in (
            (["--exports", f"s={static}"], f"--exports s={static}: {static / 'model.safetensors'}: not readable "
                                           "safetensors"),
            (["--eval", str(tmp_path / "no.parquet")], f"--eval {tmp_path / 'no.parquet'}: no such file"),
            (["--models", f"m={tmp_path / 'no.pt'}"], f"m={tmp_path / 'no.pt'}: {tmp_path / 'no.pt'} is no file"),
            (["--vectors", f"v={vectors}"], f"--vectors v={vectors}: {vectors} has no embeddings.npy"),
            (["--exports", f"=={tmp_path}"], "give LABEL=PATH (an empty label)"),
            (["--vectors", f"all-MiniLM-L6-v2={tmp_path}"], "the label 'all-MiniLM-L6-v2' is given twice")):
        with pytest.raises(SystemExit) as stopped:
            mteb_sts.main(["--eval", str(vectors / "vocab.txt"), *argv, *out])
        assert stopped.value.code == 2
        assert said in capsys.readouterr().err
    assert not list(tmp_path.glob("out*"))


def test_the_static_tokenizers_table_puts_the_projects_score_beside_each_librarys_as_loaded(tmp_path, monkeypatch):
    """static_tokenizer.py --table: per tokenizer, the project's STS 2016 and 22-set means, each library's 22-set and
    MTEB means as loaded, and the largest per-set difference between a library's score and the project's; a
    tokenizer not made is named."""
    monkeypatch.syspath_prepend(str(BENCHMARKS))
    static_tokenizer = importlib.import_module("static_tokenizer")
    from paraphrastic.evaluation.mteb_sts import MTEB_TASKS
    from paraphrastic.provenance import data_folder, write_result

    for k, tokenizer in enumerate(static_tokenizer.TOKENIZERS):
        out = tmp_path / "work" / tokenizer
        (out / "results").mkdir(parents=True)
        (out / static_tokenizer.MADE_AT).write_text("abc\n")
        sets = {"sts12.MSRvid": {"pearson": 60.0 + k}, "sts16.headlines": {"pearson": 70.0 + k}}
        library = {"summary": {"transfer_pearson": 65.0 + k}, "per_dataset": sets,
                   "mteb": {task: {"spearman": 72.0 + k} for task in MTEB_TASKS}}
        shifted = {**library, "per_dataset": {**sets, "sts12.MSRvid": {"pearson": 60.02 + k}}}
        with data_folder(out):
            write_result(static_tokenizer.baseline_of(out), {"summary": {"selection_pearson": 70.0 + k,
                                                                         "transfer_pearson": 65.0 + k},
                                                             "datasets": sets}, stage="baseline_sentence_distilled")
            write_result(static_tokenizer.loaded_of(out), {"model2vec": library, "sentence_transformers": shifted},
                         stage="static_model")
    result = tmp_path / "static_tokenizer"
    assert static_tokenizer.main(["--table", "--work", str(tmp_path / "work"), "--out", str(result)]) == 0
    table = result.with_suffix(".md").read_text()
    first = static_tokenizer.TOKENIZERS[0]
    assert f"| {first} | 70.00 | 65.00 | 65.00 | 72.00 | 65.00 | 72.00 | 0.0200 |" in table
    assert "Made at abc, tabled at" in table
    (tmp_path / "work" / first / "results" / "static_model.json").unlink()
    with pytest.raises(SystemExit, match="static_model.json: not made"):
        static_tokenizer.main(["--table", "--work", str(tmp_path / "work"), "--out", str(result)])
