"""Siamese CBOW (Kenter et al. 2016) and its word2vec baseline, on small synthetic inputs."""

from __future__ import annotations

import dataclasses
import json

import numpy as np
import pandas as pd
import pytest
import torch

from paraphrastic.configuration.settings import SiameseSettings
from paraphrastic.data import siamese_corpus
from paraphrastic.data.corpus import EVAL_SCHEMA, write_table
from paraphrastic.data.vocab import SPECIAL
from paraphrastic.models.files import load_model
from paraphrastic.training import siamese_cbow as sc


def test_negatives_avoid_the_sentence_and_its_neighbours():
    centers = np.array([0, 1, 2])
    pairs = np.array([[-1, 1], [0, 2], [1, 3]])
    drawn = sc.sample_negatives(centers, pairs, 50, np.arange(6), torch.Generator().manual_seed(0))
    for c, (a, b), row in zip(centers, pairs, drawn, strict=True):
        assert not set(row) & {c, a, b}


def test_learning_rate_falls_linearly_to_zero_per_batch():
    weight = torch.nn.Parameter(torch.zeros(2))
    opt = torch.optim.SGD([weight], lr=1.0)
    schedule = sc.linear_decay(opt, 1.0, total_batches=4, batches_per_epoch=2, batch_size=10)
    seen = []
    for epoch, start in ((1, 0), (1, 10), (2, 0), (2, 10)):
        schedule(epoch, start)
        seen.append(opt.param_groups[0]["lr"])
    assert seen == [1.0, 0.75, 0.5, 0.25]


def test_vocabularies_of_the_two_initialisations():
    words = pd.DataFrame({"word": ["the", "cat", "zebra", "qqq"], "count": [9, 5, 0, 7],
                          "pretrained": [True, True, True, False]})
    vectors = np.zeros((len(SPECIAL) + 4, 3), dtype=np.float32)
    vectors[len(SPECIAL):] = np.arange(12).reshape(4, 3)
    vocab, matrix = sc.initial_embeddings(words, vectors, "pretrained", 6, 0.01, torch.Generator().manual_seed(0))
    assert vocab.words[len(SPECIAL):] == ["the", "cat", "zebra", "qqq"]
    assert matrix[vocab.index["zebra"]].tolist() == [6.0, 7.0, 8.0] and float(matrix[:4].abs().sum()) == 0
    assert float(matrix[vocab.index["qqq"]].abs().max()) < 0.1  # no vector: N(0, 0.01²)
    vocab, matrix = sc.initial_embeddings(words, vectors, "random", 6, 0.01, torch.Generator().manual_seed(0), dim=7)
    assert vocab.words[len(SPECIAL):] == ["the", "qqq"] and matrix.shape == (len(SPECIAL) + 2, 7)


def synthetic_corpus(tmp_path):
    """Documents alternating two topics, and an eval table of pairs within and across topics."""
    rng = np.random.default_rng(0)
    topics = [["cat", "dog", "pet", "fur"], ["car", "road", "wheel", "fuel"]]
    lines = []
    for d in range(30):
        lines.append(f"# newdoc id = d{d}")
        for _ in range(6):
            words = rng.choice(topics[d % 2], 4)
            lines += [f"# text = {' '.join(words)} the .", "1\tx\t_\t_\t_\t_\t0\troot\t_\t_", ""]
    path = tmp_path / "c.conllu"
    path.write_text("\n".join(lines) + "\n")
    eval_rows = []
    for i in range(40):
        a, b = rng.integers(2), rng.integers(2)
        s1, s2 = list(rng.choice(topics[a], 3)), list(rng.choice(topics[b], 3))
        eval_rows.append({"dataset": "sts12.MSRvid", "group": "STS 2012", "line": i + 1, "s1": " ".join(s1),
                          "s2": " ".join(s2), "score": 4.0 if a == b else 1.0, "tokens1": s1, "tokens2": s2})
    eval_frame = pd.DataFrame(eval_rows)
    write_table(eval_frame, EVAL_SCHEMA, tmp_path / "eval.parquet")
    vectors = tmp_path / "vectors.txt"
    gen = np.random.default_rng(1)
    vectors.write_text("".join(f"{w} {' '.join(f'{v:.4f}' for v in gen.normal(size=8))}\n"
                               for w in ["cat", "dog", "pet", "car", "road", "the", "."]))
    siamese_corpus.prepare([path], vectors, eval_frame, tmp_path / "corpus")
    return tmp_path / "corpus", tmp_path / "eval.parquet"


SETTINGS = SiameseSettings(name="t", seed=3, init="random", init_std=0.01, min_count=2, negatives=2, batch_size=16,
                           epochs=4, learning_rate=50.0, dim=None)


@pytest.mark.fault("interrupted training")
def test_training_learns_the_topics_and_resumes_exactly(tmp_path):
    corpus, eval_path = synthetic_corpus(tmp_path)
    kw = {"corpus_dir": corpus, "eval_path": eval_path, "sets": ["sts12.MSRvid"], "progress": False, "threads": 1}
    info = sc.train_siamese(SETTINGS, out_dir=tmp_path / "a", checkpoint_dir=tmp_path / "ca", **kw)
    history = json.loads((tmp_path / "a/history.json").read_text())
    assert history[-1]["loss"] < history[0]["loss"]
    assert info["final"]["mean_pearson"] > info["initial"]["mean_pearson"] + 10  # neighbours share a topic
    model, vocab, _ = load_model(tmp_path / "a/model.pt")
    assert model.__class__.__name__ == "WordAveraging" and float(model.embedding.weight[:4].detach().abs().sum()) == 0
    # killed after 2 epochs, rerun: the same embeddings (the rate schedule and negatives resume too)
    assert sc.train_siamese(SETTINGS, out_dir=tmp_path / "b", checkpoint_dir=tmp_path / "cb", stop_after=2,
                            **kw) == {"stopped_after_epoch": 2}
    sc.train_siamese(SETTINGS, out_dir=tmp_path / "b", checkpoint_dir=tmp_path / "cb", **kw)
    again, _, _ = load_model(tmp_path / "b/model.pt")
    assert torch.equal(model.embedding.weight, again.embedding.weight)




@pytest.mark.fault("model and checkpoint files")
def test_a_damaged_checkpoint_is_named_and_training_starts_again_to_the_same_embeddings(tmp_path, capsys):
    # Siamese CBOW keeps the last epoch (no epoch-N.pt is read back); last.pt is its only checkpoint read.
    corpus, eval_path = synthetic_corpus(tmp_path)
    kw = {"corpus_dir": corpus, "eval_path": eval_path, "sets": ["sts12.MSRvid"], "progress": False, "threads": 1}
    settings = dataclasses.replace(SETTINGS, epochs=2)
    sc.train_siamese(settings, out_dir=tmp_path / "a", checkpoint_dir=tmp_path / "ca", **kw)
    sc.train_siamese(settings, out_dir=tmp_path / "b", checkpoint_dir=tmp_path / "cb", stop_after=1, **kw)
    last = tmp_path / "cb/last.pt"
    state = torch.load(last, weights_only=True)  # tensors and plain values only
    state["model"]["embedding.weight"] = state["model"]["embedding.weight"][:, :3]  # not this run's shape
    torch.save(state, last)
    capsys.readouterr()
    sc.train_siamese(settings, out_dir=tmp_path / "b", checkpoint_dir=tmp_path / "cb", **kw)
    out = capsys.readouterr().out
    assert f"{last}: damaged checkpoint: it does not fit this run's model" in out and "training again" in out
    a, _, _ = load_model(tmp_path / "a/model.pt")
    b, _, _ = load_model(tmp_path / "b/model.pt")
    assert torch.equal(a.embedding.weight, b.embedding.weight)
    ha, hb = (json.loads((tmp_path / d / "history.json").read_text()) for d in ("a", "b"))
    assert [(h["loss"], h["per_dataset"]) for h in ha] == [(h["loss"], h["per_dataset"]) for h in hb]
    sc.train_siamese(settings, out_dir=tmp_path / "b", checkpoint_dir=tmp_path / "cb", **kw)
    out = capsys.readouterr().out
    assert "resuming from" in out and "damaged checkpoint" not in out
