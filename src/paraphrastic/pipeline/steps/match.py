"""match: the token-matched PPDB / SimpWiki training sets of Sec. 4.1.2 (Table 1)."""

from __future__ import annotations

from pathlib import Path

from paraphrastic.data.corpus import TRAIN_SCHEMA, read_table, token_match, write_table
from paraphrastic.provenance import write_result


def run(config: dict, *, corpus) -> None:
    corpus = Path(corpus)
    simpwiki, ppdb, summary = token_match(read_table(corpus / "simpwiki.parquet"), read_table(corpus / "ppdb.parquet"),
                                          config["data"]["match_seed"])
    write_table(simpwiki, TRAIN_SCHEMA, corpus / "simpwiki_matched.parquet", stage="match")
    write_table(ppdb, TRAIN_SCHEMA, corpus / "ppdb_matched.parquet", stage="match")
    write_result(corpus / "match_summary.json", summary, stage="match")
    print(summary)
