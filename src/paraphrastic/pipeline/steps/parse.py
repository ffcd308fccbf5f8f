"""parse: the gate sentences tagged and parsed by the Stanza models, cached, so that editing the gate
analysis never parses again."""

from __future__ import annotations

import time
from pathlib import Path

from paraphrastic.data.corpus import read_table, write_table
from paraphrastic.runtime import resolve_device, set_threads
from paraphrastic.training.stanza import load_pipeline, parse


def run(config: dict, *, sentences, models, out, threads=None) -> None:
    set_threads(threads)
    table = read_table(sentences)
    pipeline = load_pipeline(Path(models), str(resolve_device(config["device"])))
    started = time.time()
    frame = parse(pipeline, [list(t) for t in table["tokens"]], batch_size=config["gates"]["parse_batch_size"])
    write_table(frame, None, out, stage="parse")
    print(f"parsed {len(table)} sentences ({len(frame)} words) in {time.time() - started:.0f} s -> {out}")
