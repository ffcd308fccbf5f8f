"""vocab: every word of the training corpora and evaluation sets that has a pretrained vector, the initial
embedding matrix, and the vectors' coverage of each table (with the vector-file lines read leniently)."""

from __future__ import annotations

from pathlib import Path

from paraphrastic.configuration.params import profile
from paraphrastic.data import vocab as vocabulary
from paraphrastic.data.corpus import read_table, token_lists
from paraphrastic.data.fetch import verify_raw
from paraphrastic.data.readers import SkippedLines
from paraphrastic.provenance import write_result


def run(config: dict, *, raw, corpus, out_dir) -> None:
    verify_raw(raw)  # what fetch verified, unchanged
    corpus, out = Path(corpus), Path(out_dir)
    tables = {name: read_table(corpus / f"{name}.parquet") for name in ("simpwiki", "ppdb", "eval")}
    everything = [s for frame in tables.values() for s in token_lists(frame)]
    embeddings = profile(config)["embeddings"]
    skipped = SkippedLines()
    vocab, matrix = vocabulary.build(everything, Path(raw) / embeddings, skipped)
    vocabulary.save_vectors(out, vocab, matrix, stage="vocab")
    report = {"words": len(vocab), "dim": int(matrix.shape[1]), "embeddings": embeddings,
              "skipped_lines": skipped.as_dict(),
              "coverage": {name: vocabulary.coverage(vocab, token_lists(frame)) for name, frame in tables.items()}}
    write_result(out / "coverage.json", report, stage="vocab")
    print(report)
