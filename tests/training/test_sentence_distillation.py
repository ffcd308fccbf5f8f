"""Sentence-level distillation: vectors trained towards a teacher's sentence embeddings, selected on STS 2016."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from paraphrastic.data.batching import pad
from paraphrastic.data.corpus import read_table
from paraphrastic.data.vocab import UNK_ID, Vocabulary, load_matrix
from paraphrastic.training.sentence_distillation import (
    SentenceDistillationSettings,
    WeightedWordMean,
    kept_vectors,
    pca_targets,
    post_process,
    sentence_means,
    sif_weights,
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
    rotated, everything = pca_targets(embeddings, 6)
    assert rotated.shape == (200, 6) and everything == pytest.approx(1.0)
    assert np.allclose(reduced.mean(0), 0, atol=1e-5)
    as_they_are, share = pca_targets(embeddings, None)  # the teacher's own space: not centred, not rotated
    assert np.allclose(as_they_are, embeddings, atol=1e-6) and share == 1.0


def test_the_folded_map_gives_each_sentence_exactly_its_mapped_mean():
    torch.manual_seed(0)
    model = WeightedWordMean(torch.randn(6, 3), out_dim=5)
    tokens, mask = torch.tensor([[2, 3, 4], [4, 5, 0]]), torch.tensor([[1.0, 1.0, 1.0], [1.0, 1.0, 0.0]])
    folded = kept_vectors(model, SentenceDistillationSettings(map="folded"), fit_texts=[])
    assert folded.shape == (6, 5)
    with torch.no_grad():
        assert torch.allclose(sentence_means(folded, [[2, 3, 4], [4, 5]]).float(), model(tokens, mask), atol=1e-6)
    dropped = kept_vectors(model, SentenceDistillationSettings(map="dropped"), fit_texts=[])
    assert torch.equal(dropped[UNK_ID + 1:], model.vectors()[UNK_ID + 1:])


@pytest.mark.parametrize("settings", [{}, {"map": "folded"}, {"post_processing": "whiten", "sif_after": 0.1}])
def test_the_unknown_words_row_is_kept_at_zero_whatever_the_steps_after_training(settings):
    """model2vec drops <unk> from a sentence's mean where sentence-transformers and avg average in its row: a zero row
    keeps all three on the same cosines, whatever map, weighting or whitening is folded into the others."""
    torch.manual_seed(0)
    model = WeightedWordMean(torch.randn(6, 3), out_dim=3)
    kept = kept_vectors(model, SentenceDistillationSettings(**settings), fit_texts=[[2, 3], [4, 5], [2, 5], [3, 4]])
    assert not kept[UNK_ID].any() and kept[UNK_ID + 1:].abs().sum(1).min() > 0


def test_whitening_fit_on_the_texts_leaves_their_sentence_vectors_centred_and_uncorrelated():
    rng = np.random.default_rng(3)
    vectors = torch.from_numpy(rng.normal(size=(40, 4)) * np.array([5.0, 1.0, 0.2, 3.0]) + 2.0).float()
    texts = [list(rng.integers(1, 40, size=rng.integers(2, 8))) for _ in range(300)]
    whitened = post_process(vectors, texts, whiten=True, output_dims=None)
    sentences = sentence_means(whitened, texts)
    assert whitened.shape == (40, 4)
    assert torch.allclose(sentences.mean(0), torch.zeros(4, dtype=torch.float64), atol=1e-4)
    assert torch.allclose(torch.cov(sentences.T), torch.eye(4, dtype=torch.float64), atol=1e-3)
    reduced = post_process(vectors, texts, whiten=False, output_dims=2)  # PCA: the two widest axes, not scaled
    spread = torch.cov(sentence_means(reduced, texts).T)
    assert reduced.shape == (40, 2) and spread[0, 0] >= spread[1, 1] > 0 and abs(float(spread[0, 1])) < 1e-3


def test_sif_after_training_weights_each_word_by_its_smoothed_frequency_in_the_training_texts():
    texts = [[2, 2, 3], [2, 4]]  # counts 0, 0, 3, 1, 1 plus one each: 10 in all
    weights = sif_weights(5, texts, 0.1)
    expected = torch.tensor([0.1 / (0.1 + c / 10) for c in (1, 1, 4, 2, 2)], dtype=torch.float64)
    assert torch.allclose(weights, expected)
    assert weights[2] < weights[3] == weights[4] < weights[0] == weights[1]  # the frequent word counts least
    torch.manual_seed(0)
    model = WeightedWordMean(torch.randn(5, 3), out_dim=3)
    weighted = kept_vectors(model, SentenceDistillationSettings(sif_after=0.1), fit_texts=texts)
    words = [0, 2, 3, 4]  # every row but <unk>'s, which stays zero
    assert torch.allclose(weighted[words], (model.vectors() * expected.float().unsqueeze(1))[words])
    # whitening comes after the weights: fit on the weighted vectors' sentence means
    both = kept_vectors(model, SentenceDistillationSettings(sif_after=0.1, post_processing="whiten"), fit_texts=texts)
    assert torch.allclose(both[words], post_process(weighted, texts, whiten=True, output_dims=None)[words])


def test_a_setting_outside_its_choices_is_an_error_naming_the_key():
    with pytest.raises(ValueError, match=r"word_vectors\.sentence_distilled\.loss: 'l1'"):
        SentenceDistillationSettings(loss="l1")


def fit(workspace, settings: SentenceDistillationSettings | None = None, **kw) -> dict:
    vocab = Vocabulary.load(workspace["vocab_dir"] / "vocab.txt")
    start = torch.from_numpy(load_matrix(workspace["vocab_dir"] / "embeddings.npy"))
    table = read_table(workspace["train"])
    texts = [vocab.ids(t) for t in list(table["tokens1"]) + list(table["tokens2"])]
    teacher = np.random.default_rng(5).normal(size=(len(texts), 12)).astype(np.float32)
    settings = settings or SentenceDistillationSettings(target_dims=4, epochs=3, batch_size=16, learning_rate=0.01,
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


def test_the_cosine_loss_with_the_map_folded_and_whitening_keeps_vectors_as_wide_as_the_targets(workspace):
    settings = SentenceDistillationSettings(target_dims=None, loss="cosine", map="folded", post_processing="whiten",
                                            epochs=2, batch_size=16, learning_rate=0.01, held_out=0.1, seed=2)
    result = fit(workspace, settings)
    history = result["history"]
    assert history[-1]["loss"] < history[0]["loss"] and 0 < history[-1]["held_out_loss"] < 2
    assert result["vectors"].shape == (load_matrix(workspace["vocab_dir"] / "embeddings.npy").shape[0], 12)
    assert result["target_variance"] == 1.0


def test_both_objectives_train_together_and_resume_to_the_same_vectors(workspace):
    """paraphrase_weight: the margin loss on pairs drawn from the epoch's stream, so a resumed epoch draws the same."""
    vocab = Vocabulary.load(workspace["vocab_dir"] / "vocab.txt")
    table = read_table(workspace["train"])
    pairs = [(vocab.ids(a), vocab.ids(b)) for a, b in zip(table["tokens1"], table["tokens2"], strict=True)]
    settings = SentenceDistillationSettings(target_dims=4, map="folded", paraphrase_weight=1.0, epochs=2,
                                            batch_size=16, learning_rate=0.01, held_out=0.1, seed=2)
    alone = fit(workspace, SentenceDistillationSettings(**{**settings.__dict__, "paraphrase_weight": 0.0}),
                checkpoints="alone")
    whole = fit(workspace, settings, pairs=pairs, checkpoints="whole")
    assert whole["history"][0]["loss"] > alone["history"][0]["loss"]  # the margin term is in the training loss
    assert fit(workspace, settings, pairs=pairs, checkpoints="parts", stop_after=1) == {"stopped_after_epoch": 1}
    assert np.array_equal(fit(workspace, settings, pairs=pairs, checkpoints="parts")["vectors"], whole["vectors"])
    with pytest.raises(ValueError, match="paraphrase_weight needs at least 2 paraphrase pairs"):
        fit(workspace, settings, checkpoints="none")


def test_a_least_squares_map_starts_where_the_squared_error_cannot_fall_by_moving_the_map():
    from paraphrastic.training.sentence_distillation import fit_map

    rng = np.random.default_rng(4)
    model = WeightedWordMean(torch.from_numpy(rng.normal(size=(30, 5))).float(), out_dim=3)
    texts = [list(rng.integers(1, 30, size=rng.integers(1, 6))) for _ in range(200)]
    goal = torch.from_numpy(rng.normal(size=(200, 3))).float()
    tokens, mask = pad(texts)
    before = float(((model(tokens, mask) - goal) ** 2).mean())
    fit_map(model, texts, goal)
    error = ((model(tokens, mask) - goal) ** 2).mean()
    error.backward()
    assert float(error) < before
    assert model.projection.weight.grad.abs().max() < 1e-5 and model.projection.bias.grad.abs().max() < 1e-5
