"""The word2vec baseline of Siamese CBOW: gensim vectors averaged, scored like every model."""

from __future__ import annotations

import torch

from paraphrastic.models.files import load_model
from paraphrastic.training import word2vec as wb
from tests.training.test_siamese_cbow import synthetic_corpus


def test_word2vec_baseline_is_reproducible(tmp_path):
    corpus, eval_path = synthetic_corpus(tmp_path)
    settings = {"dim": 8, "window": 5, "min_count": 2, "sample": 1e-5, "negative": 5, "epochs": 2}
    kw = {"corpus_dir": corpus, "eval_path": eval_path, "sets": ["sts12.MSRvid"], "seed": 1, "threads": 1}
    first = wb.train_baselines(settings, out_dir=tmp_path / "w1", **kw)
    second = wb.train_baselines(settings, out_dir=tmp_path / "w2", **kw)
    assert set(first["architectures"]) == {"cbow", "skipgram"}
    for arch in ("cbow", "skipgram"):
        a, _, _ = load_model(tmp_path / "w1" / arch / "model.pt")
        b, vocab, _ = load_model(tmp_path / "w2" / arch / "model.pt")
        assert torch.equal(a.embedding.weight, b.embedding.weight) and "cat" in vocab.index
        assert first["architectures"][arch]["final"] == second["architectures"][arch]["final"]
