"""prepare-train: the profile's SimpWiki and PPDB pairs, tokenised into simpwiki.parquet and ppdb.parquet as
data.reading says (ours, or as the authors' code reads them), capped by data.max_train_pairs, and their token
statistics with the lines the readers skipped."""

from __future__ import annotations

from pathlib import Path

from paraphrastic.configuration.params import profile, simpwiki_files
from paraphrastic.data import readers
from paraphrastic.data.corpus import TRAIN_SCHEMA, build_train_table, token_stats, write_table
from paraphrastic.data.fetch import verify_raw
from paraphrastic.provenance import write_result


def run(config: dict, *, raw, out_dir) -> None:
    verify_raw(raw)  # what fetch verified, unchanged
    prof = profile(config)
    raw, out = Path(raw), Path(out_dir)
    cap, seed = config["data"].get("max_train_pairs"), config["seed"]
    skipped = {"simpwiki": readers.SkippedLines(), "ppdb": readers.SkippedLines()}
    simpwiki_pairs = []
    for first, second in simpwiki_files(config):
        simpwiki_pairs += readers.read_aligned_pairs(raw / first, raw / second, fmt=prof["simpwiki"]["format"],
                                                     skipped=skipped["simpwiki"])
    ppdb_pairs = readers.read_ppdb(raw / prof["ppdb"]["path"], fmt=prof["ppdb"]["format"], skipped=skipped["ppdb"])
    stats = {}
    for name, pairs in (("simpwiki", simpwiki_pairs), ("ppdb", ppdb_pairs)):
        frame = build_train_table(pairs, max_pairs=cap, seed=seed, reading=config["data"]["reading"])
        write_table(frame, TRAIN_SCHEMA, out / f"{name}.parquet", stage="prepare_train",
                    about={"reading": config["data"]["reading"]})  # which a training job records as its text's
        stats[name] = token_stats(frame) | {"reading": config["data"]["reading"],
                                            "skipped_lines": skipped[name].as_dict()}
    write_result(out / "train_stats.json", stats, stage="prepare_train")
    print(stats)
