"""static-model: the sentence-distilled vectors as a static model a user picks up (beyond the paper): exported as
sentence-transformers' ``StaticEmbedding``, which model2vec reads too (:func:`paraphrastic.export.export`), scored as a
user loads it (model2vec and sentence-transformers, raw text, their tokenizer), and with a model card written from the
run's own files (:mod:`paraphrastic.model_card`): the distillation's texts and settings, those scores, its speed timed
beside all-MiniLM-L6-v2's, and the published static models' scores. It reads no trained model of the paper's tables:
the static model builds from the distillation stages alone."""

from __future__ import annotations

import tempfile
from pathlib import Path

import torch

from paraphrastic.data import vocab as vocabulary
from paraphrastic.data.corpus import read_table
from paraphrastic.data.static_tokenizer import TOKENIZER_FILE, load_tokenizer
from paraphrastic.errors import PipelineError
from paraphrastic.evaluation.mteb_sts import published
from paraphrastic.export import export_scored
from paraphrastic.model_card import static_model_card
from paraphrastic.models.encoders import build_model
from paraphrastic.models.files import save_model
from paraphrastic.provenance import read_result, write_result

NAME = "paraphrastic-static-minilm"


def model_name(config: dict) -> str:
    """The static model's name: a config that caps the training corpora (the tests' tiny config) makes another model
    than the one the README and the docs describe, and its card says so in its name."""
    capped = (config.get("data") or {}).get("max_train_pairs")
    return f"{NAME}-tiny-config" if capped else NAME
def run(config: dict, *, vectors, distilled, eval, published_scores, out_dir, scores, threads=None) -> None:
    vectors, distilled = Path(vectors), Path(distilled)
    words, array = vocabulary.load_vectors(vectors)
    matrix = torch.from_numpy(array)
    info = read_result(distilled / "coverage.json")
    pieces = info.get("pieces", 0)
    entries = len(words) - len(vocabulary.SPECIAL) - pieces - (1 if info.get("subwords") else 0)  # the marker row
    options = {"tags": "none"}
    frame = read_table(eval)
    with tempfile.TemporaryDirectory() as scratch:
        model_path = Path(scratch) / "model.pt"
        # the folder's tokenizer, recorded in the model file: the export ships it, so a user's text is read as the
        # vectors were trained and scored
        tokenizer = load_tokenizer(vectors)
        if tokenizer is None:
            raise PipelineError(f"{vectors / TOKENIZER_FILE}: no such file; rerun distill_sentences")
        save_model(model_path, build_model("avg", matrix, **options), "avg", options, words,
                   {"settings": {"model": "avg", "word_vectors": "sentence_distilled"}, "vectors": str(vectors),
                    "tokenizer": tokenizer.to_str()})
        folder, measured = export_scored(
            model_path, out_dir, frame=frame, selection=config["evaluation"]["selection"], threads=threads or 1,
            teacher_batch_size=config["reference_encoder"]["batch_size"],
            card_of=lambda measured: static_model_card(
                name=model_name(config), dims=int(matrix.shape[1]), words=entries, pieces=pieces,
                teacher=config["word_vectors"]["distilled"]["teacher"], targets=read_result(vectors / "targets.json"),
                training=read_result(vectors / "training.json"), loaded=measured,
                published=published(published_scores), tokenizer=info["tokenizer"]))
    write_result(Path(scores), measured, stage="static_model")
    m2v = measured["model2vec"]["summary"]
    print(f"{model_name(config)}: {len(words):,} rows of {matrix.shape[1]} dimensions -> {folder} (README.md: its "
          "model card); "
          f"as model2vec loads it, {m2v['transfer_sets']}-set r {m2v['transfer_pearson']:.1f} -> {scores}")
