"""teacher-targets: the unlabelled text the mirror holds (the training pairs' sentences, SimpWiki's extra pairs, the
treebank's sentences; no evaluation sentence) with the teacher's embedding of each, the targets of
``distill-sentences`` (:mod:`paraphrastic.data.sentence_targets`). Kept apart from the training so that retuning it
never encodes the text again."""

from __future__ import annotations

import time
from pathlib import Path

from paraphrastic.configuration.params import profile
from paraphrastic.data import readers
from paraphrastic.data import vocab as vocabulary
from paraphrastic.data.corpus import read_table, write_table
from paraphrastic.data.fetch import verify_raw
from paraphrastic.data.sentence_targets import (
    TARGETS_SCHEMA,
    remove_checkpoints,
    sentence_set,
    teacher_embeddings,
    unlabelled_texts,
)
from paraphrastic.data.static_tokenizer import WordSplitter
from paraphrastic.data.transformer_folders import transformer_folder
from paraphrastic.provenance import write_result
from paraphrastic.runtime import prepare_job


def _sides(frame, split) -> list[tuple[str, list[str]]]:
    """A pair table's texts with their words (``split``): the first sides, then the second (as token_lists)."""
    return [(text, split(text)) for side in ("1", "2") for text in frame[f"s{side}"]]


def _extra_pairs(config: dict, raw: Path, split) -> list[tuple[str, list[str]]]:
    """SimpWiki's extra pairs (the profile's ``extra_pairs``), kept as the training pairs are, with their words
    (``split``); each pair's two texts in turn."""
    simpwiki = profile(config)["simpwiki"]
    pairs = [pair for first, second in simpwiki.get("extra_pairs") or []
             for pair in readers.read_aligned_pairs(raw / first, raw / second, fmt=simpwiki["format"])]
    return [(text, split(text)) for pair in pairs for text in (pair.s1, pair.s2)]


def run(config: dict, *, raw, corpus, treebank, out, embeddings, stats, checkpoints=None, device=None,
        threads=None) -> None:
    verify_raw(raw)  # what fetch verified, unchanged
    device = prepare_job(device or config["device"], threads)
    settings = config["word_vectors"]["sentence_distilled"]
    raw, corpus = Path(raw), Path(corpus)
    # every text's words as the static model's tokenizer cuts them: an evaluation sentence is one whose words are
    split = WordSplitter(config["word_vectors"]["tokenizer"])
    excluded = sentence_set(split.read(read_table(corpus / "eval.parquet")))

    def treebank_sentences() -> list[tuple[str, list[str]]]:
        return [(text, split(text)) for text in read_table(treebank)["text"]]

    # each source is read only when `sources` names it; their order is the order texts are kept in
    readers_of = {"simpwiki": lambda: _sides(read_table(corpus / "simpwiki.parquet"), split),
                  "ppdb": lambda: _sides(read_table(corpus / "ppdb.parquet"), split),
                  "simpwiki_extra": lambda: _extra_pairs(config, raw, split),
                  "treebank": treebank_sentences}
    frame, counts = unlabelled_texts({name: read() for name, read in readers_of.items() if name in settings["sources"]},
                                     excluded=excluded, max_per_source=settings["max_per_source"])
    teacher = transformer_folder(config["word_vectors"]["distilled"]["teacher"],
                                 where="word_vectors.distilled.teacher")
    print(f"encoding {len(frame)} texts with {teacher}")
    start = time.perf_counter()
    vectors = teacher_embeddings(list(frame["text"]), teacher, device=str(device), checkpoints=checkpoints)
    seconds = time.perf_counter() - start
    write_table(frame, TARGETS_SCHEMA, out, stage="teacher_targets")
    vocabulary.save_matrix(embeddings, vectors, stage="teacher_targets", rows_of=out)  # row i: the table's text i
    write_result(stats, {"texts": len(frame), "dim": int(vectors.shape[1]), "sources": counts,
                         "teacher": config["word_vectors"]["distilled"]["teacher"], "seconds": round(seconds, 1),
                         "texts_per_second": round(len(frame) / max(seconds, 1e-9), 1), "device": str(device)},
                 stage="teacher_targets")
    remove_checkpoints(checkpoints)
    shares = ", ".join(f"{source} {count['texts']}" for source, count in counts.items())
    print(f"{len(frame)} texts ({shares}) in {seconds:.0f} s -> {out}")
