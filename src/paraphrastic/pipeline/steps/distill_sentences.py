"""distill-sentences: the distilled word vectors trained on the teacher's sentence embeddings
(:mod:`paraphrastic.training.sentence_distillation`), written as a vocabulary folder like ``distill``'s (the same
words and tokenizer.json), so the untrained baseline and a run with ``word_vectors: sentence_distilled`` read it as
they read others. Every text, the teacher's, the paraphrase pairs' and the evaluation sets' alike, is read by that
tokenizer, the one the static model ships (:mod:`paraphrastic.data.static_tokenizer`)."""

from __future__ import annotations

from dataclasses import asdict
from pathlib import Path

import numpy as np
import torch

from paraphrastic.atomic import sha256_file, write_text
from paraphrastic.configuration.params import selection_ids
from paraphrastic.data import vocab as vocabulary
from paraphrastic.data.corpus import read_table
from paraphrastic.data.sentence_targets import sentence_set, training_pairs
from paraphrastic.data.static_tokenizer import (
    TOKENIZER_FILE,
    TOKENIZER_SHA256,
    load_tokenizer,
    read_with,
    shipped_tokens,
)
from paraphrastic.errors import PipelineError
from paraphrastic.provenance import read_result, write_result
from paraphrastic.training.sentence_distillation import SentenceDistillationSettings, train, without_zipf_weights


def starting_vectors(distilled: Path,
                     settings: SentenceDistillationSettings) -> tuple[vocabulary.Vocabulary, np.ndarray]:
    """The distill stage's vocabulary and vectors in ``distilled`` as the trainer starts from them: as they are, or
    with ``start_weights: none`` the Zipf weights its coverage.json records divided out."""
    vocab, start = vocabulary.load_vectors(distilled)
    if settings.start_weights == "none":
        made = read_result(distilled / "coverage.json")
        if not {"sif_coefficient", "subwords"} <= made.keys():
            raise PipelineError(f"{distilled / 'coverage.json'}: no sif_coefficient or subwords; rerun distill")
        start = without_zipf_weights(start, sif_coefficient=made["sif_coefficient"], subwords=made["subwords"])
    return vocab, start


def run(config: dict, *, distilled, targets, target_embeddings, eval, corpus, out_dir, checkpoints, device=None,
        threads=None) -> None:
    settings = SentenceDistillationSettings.of(config)
    distilled, out = Path(distilled), Path(out_dir)
    vocab, start = starting_vectors(distilled, settings)
    tokenizer = load_tokenizer(distilled)
    if tokenizer is None:
        raise PipelineError(f"{distilled / TOKENIZER_FILE}: no such file, so nothing says how the static model reads "
                            "text; rerun distill")
    texts = read_table(targets)
    teacher = vocabulary.load_matrix(target_embeddings, rows_of=targets)
    if len(texts) != len(teacher):
        raise PipelineError(f"{target_embeddings}: {len(teacher)} teacher embeddings beside {targets}'s {len(texts)} "
                            "texts: not written together; rerun teacher_targets")
    selection = selection_ids(config)
    inputs = [distilled / "vocab.txt", distilled / "embeddings.npy", distilled / "coverage.json",
              distilled / TOKENIZER_FILE, Path(targets), Path(target_embeddings), Path(eval)]
    evaluation = read_with(read_table(eval), tokenizer)
    pairs, paired = None, {}
    if settings.paraphrase_weight:  # the paper's objective beside the teacher's, on these training pairs
        inputs.append(Path(corpus) / f"{settings.paraphrase_pairs}.parquet")
        kept, left_out = training_pairs(read_with(read_table(inputs[-1]), tokenizer), excluded=sentence_set(evaluation))
        pairs = [(vocab.ids(a), vocab.ids(b)) for a, b in kept]
        paired = {"paraphrase_pairs": {"pairs": len(pairs), "evaluation_sentences_excluded": left_out}}
    result = train(settings, vocab=vocab, embeddings=torch.from_numpy(start),
                   texts=[vocab.ids(t) for t in shipped_tokens(tokenizer, texts["text"])], targets=teacher,
                   eval_frame=evaluation,
                   selection=selection, inputs=inputs, pairs=pairs, checkpoint_dir=checkpoints,
                   device=device or config["device"], threads=threads)
    vocabulary.save_vectors(out, vocab, result["vectors"].astype(np.float32), stage="distill_sentences")
    write_text(out / TOKENIZER_FILE, (distilled / TOKENIZER_FILE).read_text(encoding="utf-8"))
    best = result["selected"]
    write_result(out / "training.json", stage="distill_sentences", values={
        "settings": asdict(settings), "texts": result["texts"], **paired,
        TOKENIZER_SHA256: sha256_file(out / TOKENIZER_FILE),
        "held_out_texts": result["held_out_texts"], "target_variance": result["target_variance"],
        "selected_epoch": best["epoch"], "selection_pearson": best["selection_pearson"],
        "transfer_pearson": best["transfer_pearson"],
        "history": [{k: v for k, v in row.items() if k != "per_dataset"} for row in result["history"]]})
    print(f"selected epoch {best['epoch']}: STS16 {best['selection_pearson']:.2f}, "
          f"transfer {best['transfer_pearson']:.2f} -> {out}")
