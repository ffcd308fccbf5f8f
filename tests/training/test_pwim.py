"""PWIM's data (He & Lin 2016, Sec. 8) and training loop, on the mirror's files and small synthetic tables."""

from __future__ import annotations

import dataclasses
import json

import numpy as np
import pandas as pd
import pytest
import torch

from paraphrastic.configuration.settings import PwimSettings
from paraphrastic.data.corpus import write_table
from paraphrastic.data.supervised_splits import SUPERVISED_SCHEMA
from paraphrastic.data.vocab import SPECIAL, Vocabulary, save_matrix
from paraphrastic.training.pwim import padded, scores_with_sets, train_pwim


def test_sentences_are_cut_to_the_padding():
    tokens, lengths = padded([[5] * 40, [6, 7]], 32, "cpu")
    assert tokens.shape == (2, 32) and lengths.tolist() == [32, 2] and tokens[1, 2:].eq(0).all()


def test_weighted_mean_over_sets():
    frame = pd.DataFrame({"dataset": ["a"] * 4 + ["b"] * 8, "score": [0, 1, 2, 3] + list(range(8))})
    predicted = np.array([0, 1, 2, 3] + [7, 6, 5, 4, 3, 2, 1, 0], dtype=float)
    scores = scores_with_sets(frame, predicted)
    assert scores["per_set"]["a"]["pearson"] == pytest.approx(100)
    assert scores["weighted_mean_pearson"] == pytest.approx((4 * 100 - 8 * 100) / 12)


def _table(tmp_path):
    rng = np.random.default_rng(0)
    words = [f"w{i}" for i in range(12)]
    rows = []
    for split, n in (("train", 30), ("validation", 8), ("test", 8)):
        for i in range(n):
            a = list(rng.choice(words, rng.integers(2, 7)))
            b = a[: rng.integers(1, len(a) + 1)] + list(rng.choice(words, 2))
            rows.append({"dataset": "sick.test", "group": "2014 SICK", "line": i, "s1": " ".join(a), "s2": " ".join(b),
                         "score": float(rng.uniform(1, 5)), "tokens1": a, "tokens2": b, "split": split})
    write_table(pd.DataFrame(rows), SUPERVISED_SCHEMA, tmp_path / "sick.parquet")
    Vocabulary(SPECIAL + words).save(tmp_path / "vocab.txt")
    matrix = np.random.default_rng(1).normal(size=(len(SPECIAL) + len(words), 6)).astype(np.float32)
    matrix[: len(SPECIAL)] = 0
    save_matrix(tmp_path / "embeddings.npy", matrix)
    return tmp_path / "sick.parquet"


SETTINGS = PwimSettings(name="t", task="sick", seed=2, epochs=3, batch_size=7, learning_rate=1e-3, hidden_dim=5,
                        padding=32, context=True, focus=True, fc_dim=8)


@pytest.mark.fault("interrupted training")
def test_training_selects_on_validation_and_resumes_exactly(tmp_path):
    table = _table(tmp_path)
    kw = {"table_path": table, "vocab_dir": tmp_path, "progress": False, "threads": 1, "device": "cpu"}
    info = train_pwim(SETTINGS, out_dir=tmp_path / "a", checkpoint_dir=tmp_path / "ca", **kw)
    history = json.loads((tmp_path / "a/history.json").read_text())
    best = max(history, key=lambda h: h["validation_pearson"])
    assert info["selected_epoch"] == best["epoch"] and info["validation"]["pearson"] == best["validation_pearson"]
    assert info["pairs"] == {"train": 30, "validation": 8, "test": 8} and len(info["epoch_seconds"]) == 3
    assert -100 <= info["test"]["pearson"] <= 100 and info["test"]["mse"] >= 0
    assert "test_pearson" not in history[0]  # the test split is scored once, for the chosen epoch
    payload = torch.load(tmp_path / "a/model.pt", weights_only=True)
    assert payload["model"] == "pwim" and payload["epoch"] == info["selected_epoch"]
    assert train_pwim(SETTINGS, out_dir=tmp_path / "b", checkpoint_dir=tmp_path / "cb", stop_after=1, **kw) == \
        {"stopped_after_epoch": 1}
    resumed = train_pwim(SETTINGS, out_dir=tmp_path / "b", checkpoint_dir=tmp_path / "cb", **kw)
    assert resumed["test"] == info["test"] and resumed["selected_epoch"] == info["selected_epoch"]
    again = torch.load(tmp_path / "b/model.pt", weights_only=True)
    assert all(torch.equal(again["state_dict"][k], v) for k, v in payload["state_dict"].items())


def test_ablations_train_too(tmp_path):
    table = _table(tmp_path)
    for change in ({"context": False}, {"focus": False}, {"padding": 48}):
        info = train_pwim(dataclasses.replace(SETTINGS, **change, epochs=1), table_path=table, vocab_dir=tmp_path,
                          out_dir=tmp_path / str(change), checkpoint_dir=tmp_path / f"c{change}", progress=False,
                          threads=1, device="cpu")
        assert info["selected_epoch"] == 1


@pytest.mark.fault("model and checkpoint files")
def test_a_damaged_checkpoint_of_the_selected_epoch_is_recomputed(tmp_path, capsys):
    table = _table(tmp_path)
    kw = {"table_path": table, "vocab_dir": tmp_path, "progress": False, "threads": 1, "device": "cpu",
          "out_dir": tmp_path / "a", "checkpoint_dir": tmp_path / "ca"}
    settings = dataclasses.replace(SETTINGS, epochs=2)
    info = train_pwim(settings, **kw)
    payload = torch.load(tmp_path / "a/model.pt", weights_only=True)
    damaged = tmp_path / "ca" / f"epoch-{info['selected_epoch']}.pt"
    damaged.write_bytes(damaged.read_bytes()[:200])
    capsys.readouterr()
    again = train_pwim(settings, **kw)
    out = capsys.readouterr().out
    assert f"{damaged}: damaged checkpoint" in out and "training again from the start" in out
    assert again["test"] == info["test"] and again["selected_epoch"] == info["selected_epoch"]
    retrained = torch.load(tmp_path / "a/model.pt", weights_only=True)
    assert all(torch.equal(retrained["state_dict"][k], v) for k, v in payload["state_dict"].items())
    train_pwim(settings, **kw)  # its checkpoints are whole again (and readable: tensors and plain values only)
    out = capsys.readouterr().out
    assert "resuming from" in out and "damaged checkpoint" not in out
