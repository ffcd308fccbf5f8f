"""gates: the GRAN's gate L1 norms by POS tag and dependency label (Sec. 5.2, Tables 9-11), for the
oracle-selected run of ``gates.gran_row``."""

from __future__ import annotations

from pathlib import Path

from paraphrastic.analysis.gates import analyse
from paraphrastic.runtime import set_threads


def run(config: dict, *, data_dir, parses, out_dir, threads=None) -> None:
    set_threads(threads)
    summary = analyse(config, data_dir=Path(data_dir), parses_path=parses, out_dir=out_dir, device=config["device"])
    print(f"gate norms of {summary['model']['run']} over {summary['tokens']} words -> {out_dir}")
