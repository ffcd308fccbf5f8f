"""code-digests: DVC's second stage. It writes, for each stage, sha256sum's listing of the source files the stage runs
(its derived code deps) to data/code/<stage>.sha256, the one file a DVC stage depends on for its code
(:data:`paraphrastic.pipeline.dvc.CODE_DIGESTS`). ``sha256sum -c data/code/train.sha256`` checks a checkout against
the code the listed stage last ran with."""

from __future__ import annotations

from pathlib import Path

from paraphrastic.atomic import write_text
from paraphrastic.pipeline.graph import STAGES, code_listing


def run(config: dict, *, out_dir) -> None:
    listings = {name: code_listing(name) for name in STAGES}  # every file read before anything is written
    for name, listing in listings.items():
        write_text(Path(out_dir) / f"{name}.sha256", listing)
    files = {line.split("  ", 1)[1] for listing in listings.values() for line in listing.splitlines()}
    print(f"code of {len(listings)} stages ({len(files)} source files) listed in {out_dir}")
