"""prepare-eval: every evaluation and selection set, read and tokenised into one parquet table, with token
statistics per set."""

from __future__ import annotations

from paraphrastic.configuration.params import eval_sets
from paraphrastic.data.corpus import EVAL_SCHEMA, build_eval_table, token_stats, write_table
from paraphrastic.data.fetch import verify_raw
from paraphrastic.provenance import write_result


def run(config: dict, *, raw, out, stats) -> None:
    verify_raw(raw)  # what fetch verified, unchanged
    frame = build_eval_table(eval_sets(config), raw)
    write_table(frame, EVAL_SCHEMA, out, stage="prepare_eval")
    per_set = {name: token_stats(rows) for name, rows in frame.groupby("dataset", sort=False)}
    write_result(stats, per_set, stage="prepare_eval")
    print(f"{len(frame)} scored pairs in {len(per_set)} evaluation sets -> {out}")
