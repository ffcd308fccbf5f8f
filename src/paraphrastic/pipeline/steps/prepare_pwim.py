"""prepare-pwim: PWIM's three tasks as tables (SICK, MSRvid, STS 2014) and the frozen vectors of their words."""

from __future__ import annotations

from pathlib import Path

from paraphrastic.configuration.params import profile
from paraphrastic.data.fetch import verify_raw
from paraphrastic.data.pwim_splits import prepare


def run(config: dict, *, raw, out_dir) -> None:
    verify_raw(raw)  # what fetch verified, unchanged
    summary = prepare(config["pwim"], raw, Path(raw) / profile(config)["embeddings"], out_dir)
    for task, stats in summary["tasks"].items():
        print(f"{task}: " + ", ".join(f"{n} {s}" for s, n in stats["pairs"].items()) + " pairs")
