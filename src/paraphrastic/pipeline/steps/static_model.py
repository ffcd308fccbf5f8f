"""static-model: the sentence-distilled vectors as a static model a user picks up (beyond the paper): exported as
sentence-transformers' ``StaticEmbedding``, which model2vec reads too (:func:`paraphrastic.export.export`), with a
model card written from the run's own files (:mod:`paraphrastic.model_card`): the distillation's texts and settings,
the encoder comparison's scores and speed, and the published static models' scores beside them."""

from __future__ import annotations

import tempfile
from pathlib import Path

import torch

from paraphrastic.data import vocab as vocabulary
from paraphrastic.evaluation.mteb_sts import published
from paraphrastic.export import export
from paraphrastic.model_card import static_model_card
from paraphrastic.models.encoders import build_model
from paraphrastic.models.files import save_model
from paraphrastic.provenance import read_result

NAME = "paraphrastic-static-minilm"


def run(config: dict, *, vectors, distilled, encoders, published_scores, out_dir) -> None:
    vectors, distilled = Path(vectors), Path(distilled)
    words, array = vocabulary.load_vectors(vectors)
    matrix = torch.from_numpy(array)
    comparison = read_result(Path(encoders))
    info = read_result(distilled / "coverage.json")
    pieces = info.get("pieces", 0)
    entries = len(words) - len(vocabulary.SPECIAL) - pieces - (1 if info.get("subwords") else 0)  # the marker row
    card = static_model_card(
        name=NAME, dims=int(matrix.shape[1]), words=entries, pieces=pieces,
        teacher=config["word_vectors"]["distilled"]["teacher"], targets=read_result(vectors / "targets.json"),
        training=read_result(vectors / "training.json"), ours=comparison["untrained"]["sentence_distilled"],
        reference=comparison["reference"], published=published(published_scores), threads=comparison["threads"])
    options = {"tags": "none"}
    with tempfile.TemporaryDirectory() as scratch:
        model_path = Path(scratch) / "model.pt"
        save_model(model_path, build_model("avg", matrix, **options), "avg", options, words,
                   {"settings": {"model": "avg", "word_vectors": "sentence_distilled"}, "vectors": str(vectors)})
        folder = export(model_path, Path(out_dir), static=True, card=card)
    print(f"{NAME}: {len(words):,} rows of {matrix.shape[1]} dimensions -> {folder} (README.md: its model card)")
