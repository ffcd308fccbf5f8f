"""report: our numbers beside the papers' tables, as data/report/report.md and a self-contained report.html,
with metrics.json (every row's score: what `dvc metrics diff` compares), timings.json (what the hardware
measured), runs.csv (every transfer job) and record.json (the sha256 of each of the report's files, which carry no
record of their own: metrics.json is DVC's to read; `verify` checks them)."""

from __future__ import annotations

from pathlib import Path

from paraphrastic.pipeline.graph import STAGES
from paraphrastic.provenance import write_result
from paraphrastic.report.build import build_report

RECORD_OUTPUT = "record"  # the report stage's output that records the others


def run(config: dict, *, data_dir, out_dir) -> None:
    out_dir = Path(out_dir)
    path = build_report(config, data_dir=Path(data_dir), out_dir=out_dir)
    outs = STAGES["report"].outs
    written = tuple(sorted(Path(out.path).name for name, out in outs.items() if name != RECORD_OUTPUT))
    record = out_dir / Path(outs[RECORD_OUTPUT].path).name
    write_result(record, {"files": list(written)}, stage="report", files=written)
    print(f"report written to {path}")
