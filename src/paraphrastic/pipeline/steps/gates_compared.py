"""gates-compared: the parser comparison (with ``extended``): the gate analysis's agreement with the paper measured
again from the second Stanza models' tags and labels, and the two parsers' agreement with each other."""

from __future__ import annotations

from pathlib import Path

from paraphrastic.analysis.gates import compare_parsers
from paraphrastic.runtime import set_threads


def run(config: dict, *, data_dir, parses, compared_parses, compared_models, out, threads=None) -> None:
    set_threads(threads)
    summary = compare_parsers(config, data_dir=Path(data_dir), parses_path=parses,
                              compared_parses_path=compared_parses, compared_models=compared_models, out=out,
                              device=config["device"])
    both = summary["with_analysis_parser"]
    print(f"the two parsers agree on {both['xpos']:.1f}% of the Penn tags, {both['sd_label']:.1f}% of the labels "
          f"-> {out}")
