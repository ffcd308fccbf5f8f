"""error-analysis: where avg and LSTMavg over- or underestimate gold similarity on the STS 2012-2015 pairs
(Sec. 5.1, Table 7)."""

from __future__ import annotations

from pathlib import Path

from paraphrastic.analysis.error_analysis import analyse
from paraphrastic.runtime import set_threads


def run(config: dict, *, data_dir, out_dir, threads=None) -> None:
    set_threads(threads)
    summary = analyse(config, Path(data_dir), Path(out_dir), device=config["device"])
    print(f"{summary['pairs']} STS pairs from {summary['datasets']} sets -> {out_dir}")
