"""prepare-supervised: the supervised tasks' tables (Sec. 4.3): the STS 2012-2015 sets pooled and split
40/10/50 per set, and SICK's official train/trial/test; with their pair counts beside the paper's."""

from __future__ import annotations

from pathlib import Path

from paraphrastic.data.corpus import write_table
from paraphrastic.data.fetch import verify_raw
from paraphrastic.data.supervised_splits import SUPERVISED_SCHEMA, TASKS, build_task_table, task_stats
from paraphrastic.provenance import write_result


def run(config: dict, *, raw, out_dir) -> None:
    verify_raw(raw)  # what fetch verified, unchanged
    sup = config["supervised"]
    out = Path(out_dir)
    stats = {}
    for task in TASKS:
        frame = build_task_table(task, raw, sets=sup["sts_sets"], split=sup["split"], max_pairs=sup.get("max_pairs"))
        write_table(frame, SUPERVISED_SCHEMA, out / f"{task}.parquet", stage="prepare_supervised")
        stats[task] = task_stats(task, frame)
        print(f"{task}: " + ", ".join(f"{n} {s}" for s, n in stats[task]["splits"].items()) + " pairs")
    write_result(out / "stats.json", stats, stage="prepare_supervised")
