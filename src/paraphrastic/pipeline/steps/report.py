"""report: our numbers beside the papers' tables, as data/report/report.md and a self-contained report.html,
with metrics.json (every row's score: what `dvc metrics diff` compares), timings.json (what the hardware
measured), runs.csv (every transfer job) and record.json (the sha256 of each, which `verify` checks)."""

from __future__ import annotations

from pathlib import Path

from paraphrastic.report.build import build_report


def run(config: dict, *, data_dir, out_dir) -> None:
    path = build_report(config, data_dir=Path(data_dir), out_dir=Path(out_dir))
    print(f"report written to {path}")
