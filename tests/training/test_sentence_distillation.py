"""Sentence-level distillation: vectors trained towards a teacher's sentence embeddings, selected on STS 2016."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from paraphrastic.data.corpus import read_table
from paraphrastic.data.vocab import Vocabulary, load_matrix
from paraphrastic.training.sentence_distillation import (
    SentenceDistillationSettings,
    WeightedWordMean,
    pca_targets,
    train,
)


def test_untrained_the_weighted_directions_are_the_vectors_and_a_sentence_their_mean():
    vectors = torch.tensor([[0.0, 0.0], [3.0, 4.0], [1.0, 0.0]])  # a zero row (<pad>) stays zero
    model = WeightedWordMean(vectors, out_dim=2)
    assert torch.allclose(model.vectors(), vectors)
    with torch.no_grad():
        model.projection.weight.copy_(torch.eye(2))
        model.projection.bias.zero_()
    tokens, mask = torch.tensor([[1, 2, 0]]), torch.tensor([[1.0, 1.0, 0.0]])
    assert torch.allclose(model(tokens, mask), torch.tensor([[2.0, 2.0]]))


def test_pca_targets_keep_the_variance_they_say():
    rng = np.random.default_rng(0)
    embeddings = rng.normal(size=(200, 6)) * np.array([5, 3, 1, 0.1, 0.1, 0.1])
    reduced, kept = pca_targets(embeddings, 2)
    assert reduced.shape == (200, 2) and 0.9 < kept < 1
    whole, everything = pca_targets(embeddings, None)
    assert whole.shape == (200, 6) and everything == pytest.approx(1.0)
    assert np.allclose(reduced.mean(0), 0, atol=1e-5)


def fit(workspace, **kw) -> dict:
    vocab = Vocabulary.load(workspace["vocab_dir"] / "vocab.txt")
    start = torch.from_numpy(load_matrix(workspace["vocab_dir"] / "embeddings.npy"))
    table = read_table(workspace["train"])
    texts = [vocab.ids(t) for t in list(table["tokens1"]) + list(table["tokens2"])]
    teacher = np.random.default_rng(5).normal(size=(len(texts), 12)).astype(np.float32)
    settings = SentenceDistillationSettings(target_dims=4, epochs=3, batch_size=16, learning_rate=0.01,
                                            held_out=0.1, seed=2)
    return train(settings, vocab=vocab, embeddings=start, texts=texts, targets=teacher,
                 eval_frame=read_table(workspace["eval"]), selection=["sts16.headlines"],
                 inputs=[workspace["vocab_dir"] / "embeddings.npy"], threads=1, progress=False,
                 checkpoint_dir=workspace["root"] / kw.pop("checkpoints", "ck"), **kw)


def test_training_lowers_the_held_out_error_and_keeps_the_best_sts16_epoch(workspace):
    result = fit(workspace)
    history = result["history"]
    assert [row["epoch"] for row in history] == [1, 2, 3]
    assert history[-1]["loss"] < history[0]["loss"]
    assert result["selected"] == max(history, key=lambda row: row["selection_pearson"])
    assert result["vectors"].shape == load_matrix(workspace["vocab_dir"] / "embeddings.npy").shape
    assert result["held_out_texts"] == round(0.1 * result["texts"])


def test_a_run_stopped_after_an_epoch_resumes_to_the_same_vectors(workspace):
    whole = fit(workspace, checkpoints="whole")
    assert fit(workspace, checkpoints="parts", stop_after=1) == {"stopped_after_epoch": 1}
    resumed = fit(workspace, checkpoints="parts")
    assert np.array_equal(resumed["vectors"], whole["vectors"])
    assert [r["selection_pearson"] for r in resumed["history"]] == [r["selection_pearson"] for r in whole["history"]]
