"""siamese-corpus: the ordered treebank sentences Siamese CBOW trains on, their words and pretrained vectors."""

from __future__ import annotations

from pathlib import Path

from paraphrastic.configuration.params import profile
from paraphrastic.data.corpus import read_table
from paraphrastic.data.fetch import verify_raw
from paraphrastic.data.siamese_corpus import prepare
from paraphrastic.data.similarity_tasks import STS_2012_2015


def run(config: dict, *, raw, eval, out_dir) -> None:
    verify_raw(raw)  # what fetch verified, unchanged
    prof = profile(config)
    siamese = config["siamese_cbow"]
    paths = [Path(raw) / prof["treebank"][part] for part in siamese["corpus"]]
    frame = read_table(eval)
    frame = frame[frame["dataset"].isin(STS_2012_2015)]
    stats = prepare(paths, Path(raw) / prof["embeddings"], frame, out_dir, max_sentences=siamese.get("max_sentences"))
    print(f"{stats['sentences']} sentences in {stats['documents']} documents, {stats['tokens']} tokens -> {out_dir}")
