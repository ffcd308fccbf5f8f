"""distill: word vectors for every word of the training corpora (and, with ``evaluation_words``, the evaluation sets'),
distilled from a sentence transformer (:mod:`paraphrastic.data.distill`), written as a vocabulary folder like
``vocab``'s, so a run with ``word_vectors: distilled`` trains from it exactly as others do from GloVe. The words are
the training text as the static model's tokenizer cuts it (``word_vectors.tokenizer``,
:mod:`paraphrastic.data.static_tokenizer`), which the folder's tokenizer.json holds over its vocabulary."""

from __future__ import annotations

import time
from pathlib import Path

from paraphrastic.atomic import sha256_file
from paraphrastic.data import vocab as vocabulary
from paraphrastic.data.corpus import read_table, token_lists
from paraphrastic.data.distill import distill_vectors, distillation_vocabulary, with_special_rows
from paraphrastic.data.static_tokenizer import TOKENIZER_FILE, TOKENIZER_SHA256, WordSplitter, save_tokenizer
from paraphrastic.data.transformer_folders import transformer_folder
from paraphrastic.provenance import write_result
from paraphrastic.runtime import prepare_job


def run(config: dict, *, corpus, out_dir, device=None, threads=None) -> None:
    settings = config["word_vectors"]["distilled"]
    device = prepare_job(device or config["device"], threads)
    corpus, out = Path(corpus), Path(out_dir)
    # every text cut as the static model's tokenizer cuts it, whatever tokens the tables hold
    split = WordSplitter(config["word_vectors"]["tokenizer"])
    tables = {name: split.read(read_table(corpus / f"{name}.parquet")) for name in ("simpwiki", "ppdb", "eval")}
    evaluation = token_lists(tables["eval"]) if settings["evaluation_words"] else []
    words = distillation_vocabulary(token_lists(tables["simpwiki"]) + token_lists(tables["ppdb"]), evaluation,
                                    settings["max_words"])
    teacher = transformer_folder(settings["teacher"], where="word_vectors.distilled.teacher")
    print(f"distilling {len(words)} words{' and the pieces of its tokenizer' if settings['subwords'] else ''} "
          f"from {teacher}")
    start = time.perf_counter()
    entries, vectors = distill_vectors(words, teacher, dims=settings["dims"],
                                       sif_coefficient=settings["sif_coefficient"], device=str(device),
                                       subwords=settings["subwords"], reachable=split.reaches)
    seconds = time.perf_counter() - start
    vocab, matrix = with_special_rows(entries, vectors, subwords=settings["subwords"])
    vocabulary.save_vectors(out, vocab, matrix, stage="distill")
    save_tokenizer(out, config["word_vectors"]["tokenizer"], vocab.index)
    report = {"words": len(vocab), "pieces": len(entries) - len(words), "dim": int(matrix.shape[1]),
              "teacher": settings["teacher"], "subwords": settings["subwords"],
              "tokenizer": config["word_vectors"]["tokenizer"],
              TOKENIZER_SHA256: sha256_file(out / TOKENIZER_FILE),
              "dims": settings["dims"], "sif_coefficient": settings["sif_coefficient"],
              "max_words": settings["max_words"], "evaluation_words": settings["evaluation_words"],
              "seconds": round(seconds, 1), "device": str(device),
              "coverage": {name: vocabulary.coverage(vocab, token_lists(frame)) for name, frame in tables.items()}}
    write_result(out / "coverage.json", report, stage="distill")
    print({k: v for k, v in report.items() if k != "coverage"})
