"""The benchmark command runs end to end (a smoke run on a tiny synthetic corpus; no timing is asserted)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd

REPO = Path(__file__).resolve().parents[1]


def test_benchmark_command_writes_its_tables(tmp_path):
    rng = np.random.default_rng(0)
    words = [f"w{i}" for i in range(40)]

    def sentence():
        return [str(w) for w in rng.choice(words, rng.integers(1, 12))]

    corpus = pd.DataFrame({"tokens1": [sentence() for _ in range(400)], "tokens2": [sentence() for _ in range(400)]})
    corpus.to_parquet(tmp_path / "simpwiki.parquet")
    (tmp_path / "vocab.txt").write_text("\n".join(["<pad>", "<unk>", "<s>", "</s>", *words]) + "\n")
    pd.DataFrame({"dataset": ["sts12.MSRvid"] * 5, "s1": ["a"] * 5, "s2": ["b"] * 5, "score": [1.0] * 5,
                  "tokens1": [["w1"]] * 5, "tokens2": [["w2"]] * 5}).to_parquet(tmp_path / "eval.parquet")
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


def test_tokenize_speed_benchmark_runs(mirror):
    out = subprocess.run([sys.executable, "benchmarks/tokenize_speed.py", "--quick", "--mirror", str(mirror)],
                         cwd=REPO, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    assert "| paraphrastic tokenize (now) |" in out.stdout and "Same tokens on 500 of 500 sentences" in out.stdout
