"""teacher-targets: the unlabelled text the mirror holds (the training pairs' sentences, SimpWiki's extra pairs, the
treebank's sentences; no evaluation sentence) with the teacher's embedding of each, the targets of
``distill-sentences`` (:mod:`paraphrastic.data.sentence_targets`). Kept apart from the training so that retuning it
never encodes the text again."""

from __future__ import annotations

import time
from pathlib import Path

from paraphrastic.atomic import write_json
from paraphrastic.configuration.params import profile
from paraphrastic.data import readers
from paraphrastic.data import vocab as vocabulary
from paraphrastic.data.corpus import read_table, write_table
from paraphrastic.data.fetch import verify_raw
from paraphrastic.data.sentence_targets import TARGETS_SCHEMA, teacher_embeddings, unlabelled_texts
from paraphrastic.data.transformer_folders import transformer_folder
from paraphrastic.runtime import prepare_job


def _sides(frame) -> list[tuple[str, list[str]]]:
    """A pair table's texts with their tokens: the first sides, then the second (as token_lists)."""
    return [(text, list(tokens)) for side in ("1", "2")
            for text, tokens in zip(frame[f"s{side}"], frame[f"tokens{side}"], strict=True)]


def run(config: dict, *, raw, corpus, treebank, out, embeddings, stats, device=None, threads=None) -> None:
    from paraphrastic.data.tokenize import tokenize  # NLTK: imported where it is used

    verify_raw(raw)  # what fetch verified, unchanged
    device = prepare_job(device or config["device"], threads)
    settings = config["word_vectors"]["sentence_distilled"]
    corpus = Path(corpus)
    evaluation = read_table(corpus / "eval.parquet")
    excluded = {tuple(t) for t in evaluation["tokens1"]} | {tuple(t) for t in evaluation["tokens2"]}
    extra = []
    for first, second in profile(config)["simpwiki"].get("extra_pairs") or []:
        for pair in readers.read_aligned_pairs(Path(raw) / first, Path(raw) / second,
                                               fmt=profile(config)["simpwiki"]["format"]):
            extra += [(pair.s1, tokenize(pair.s1, pretokenized=True)), (pair.s2, tokenize(pair.s2, pretokenized=True))]
    sentences = read_table(treebank)
    sources = {"simpwiki": _sides(read_table(corpus / "simpwiki.parquet")),
               "ppdb": _sides(read_table(corpus / "ppdb.parquet")),
               "simpwiki_extra": extra,
               "treebank": [(text, list(tokens)) for text, tokens in zip(sentences["text"], sentences["tokens"],
                                                                             strict=True)]}
    frame, counts = unlabelled_texts({k: v for k, v in sources.items() if k in settings["sources"]},
                                     excluded=excluded, max_per_source=settings["max_per_source"])
    teacher = transformer_folder(config["word_vectors"]["distilled"]["teacher"],
                                 where="word_vectors.distilled.teacher")
    print(f"encoding {len(frame)} texts with {teacher}")
    start = time.perf_counter()
    vectors = teacher_embeddings(list(frame["text"]), teacher, device=str(device))
    seconds = time.perf_counter() - start
    write_table(frame, TARGETS_SCHEMA, out, stage="teacher_targets")
    vocabulary.save_matrix(embeddings, vectors, stage="teacher_targets")
    write_json(stats, {"texts": len(frame), "dim": int(vectors.shape[1]), "sources": counts,
                       "teacher": config["word_vectors"]["distilled"]["teacher"], "seconds": round(seconds, 1),
                       "texts_per_second": round(len(frame) / max(seconds, 1e-9), 1), "device": str(device)})
    shares = ", ".join(f"{source} {count['texts']}" for source, count in counts.items())
    print(f"{len(frame)} texts ({shares}) in {seconds:.0f} s -> {out}")
