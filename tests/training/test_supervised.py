"""Supervised similarity (Sec. 4.3): the Tai et al. target and KL loss, the head, the STS split, and training."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
import torch

from paraphrastic.configuration.settings import SupervisedSettings
from paraphrastic.data.corpus import write_table
from paraphrastic.data.supervised_splits import SUPERVISED_SCHEMA
from paraphrastic.data.vocab import Vocabulary
from paraphrastic.errors import PipelineError
from paraphrastic.evaluation.similarity import PreparedSets
from paraphrastic.losses.regularization import regularization
from paraphrastic.models.encoders import build_model
from paraphrastic.models.files import load_scorer, save_model
from paraphrastic.training.supervised import predict, train_supervised, universal_encoder
from tests.conftest import synthetic_pairs

# ---- the target distribution p (Eq. 6) ------------------------------------------------------------


# ---- the loss and the head --------------------------------------------------------------------------


# ---- the STS split ----------------------------------------------------------------------------------


# ---- training -----------------------------------------------------------------------------------------

@pytest.fixture
def supervised_table(workspace):
    rng = np.random.default_rng(1)
    rows = []
    for split, n in (("train", 60), ("validation", 20), ("test", 20)):
        for i, (a, b) in enumerate(synthetic_pairs(rng, n)):
            overlap = len(set(a) & set(b)) / len(set(a) | set(b))
            rows.append({"dataset": "sick.x", "group": "2014 SICK", "line": i + 1, "s1": " ".join(a),
                         "s2": " ".join(b), "score": float(1 + 4 * overlap), "tokens1": a, "tokens2": b,
                         "split": split})
    path = workspace["root"] / "sick.parquet"
    write_table(pd.DataFrame(rows), SUPERVISED_SCHEMA, path)
    return path


def supervised_settings(**overrides) -> SupervisedSettings:
    base = {"name": "sup", "task": "sick", "model": "lstmavg", "epochs": 3, "batch_size": 8, "learning_rate": 0.01,
            "head_dim": 6, "lambda_w": 0.0, "lambda_c": 0.0, "lambda_s": 0.0, "hidden_dim": None, "seed": 2}
    return SupervisedSettings(**{**base, **overrides})


def run_supervised(workspace, table, name, **kw):
    extra = {k: kw.pop(k) for k in ("stop_after", "init_path") if k in kw}
    return train_supervised(supervised_settings(**kw), table_path=table, vocab_dir=workspace["vocab_dir"],
                            out_dir=workspace["root"] / name / "out", checkpoint_dir=workspace["root"] / name / "ck",
                            progress=False, threads=1, **extra)


@pytest.mark.fault("interrupted training")
def test_training_selects_on_validation_and_resumes_exactly(workspace, supervised_table):
    full = run_supervised(workspace, supervised_table, "full", dropout=0.2, scramble=0.5, lambda_s=1e-3)
    history = pd.read_csv(workspace["root"] / "full/out/history.csv")
    assert list(history["epoch"]) == [1, 2, 3]
    assert full["selected_epoch"] == int(history.loc[history["validation_pearson"].idxmax(), "epoch"])
    assert history["loss"].iloc[-1] < history["loss"].iloc[0]
    assert run_supervised(workspace, supervised_table, "part", dropout=0.2, scramble=0.5, lambda_s=1e-3,
                          stop_after=1) == {"stopped_after_epoch": 1}
    resumed = run_supervised(workspace, supervised_table, "part", dropout=0.2, scramble=0.5, lambda_s=1e-3)
    again = pd.read_csv(workspace["root"] / "part/out/history.csv")
    for column in ("loss", "validation_pearson", "test_pearson", "test_mse"):
        assert list(again[column]) == list(history[column]), column
    assert resumed["test_pearson"] == full["test_pearson"]

    # model.pt reloads into the same predictions
    model, vocab, payload = load_scorer(workspace["root"] / "full/out/model.pt")
    test = pd.read_parquet(supervised_table).query("split == 'test'")
    assert payload["epoch"] == full["selected_epoch"]
    predicted = predict(model, PreparedSets.for_model(model.encoder, vocab, test))
    assert ((predicted >= 1) & (predicted <= 5)).all()
    from scipy import stats
    # float32 agreement: on a GPU, predict's batches take other kernels than the trainer's (1e-6 apart, relative)
    assert 100 * stats.pearsonr(predicted, test["score"]).statistic == pytest.approx(full["test_pearson"], abs=1e-3)


def transfer_model(workspace, model="gran"):
    vocab = Vocabulary.load(workspace["vocab_dir"] / "vocab.txt")
    embeddings = torch.from_numpy(np.load(workspace["vocab_dir"] / "embeddings.npy"))
    torch.manual_seed(0)
    encoder = build_model(model, embeddings, dropout=0.4)
    with torch.no_grad():
        encoder.embedding.weight.add_(0.1)  # "trained": differs from the initial vectors
    path = workspace["root"] / "transfer.pt"
    save_model(path, encoder, model, {"dropout": 0.4}, vocab, {})
    return encoder, path


def test_universal_encoder_starts_at_and_is_pulled_back_to_the_transfer_model(workspace):
    transfer, path = transfer_model(workspace)
    vocab = Vocabulary.load(workspace["vocab_dir"] / "vocab.txt")
    encoder, options = universal_encoder(path, supervised_settings(name="u", model="gran", dropout=0.2), vocab)
    assert options["dropout"] == 0.2  # the supervised run's own regulariser, not the transfer run's 0.4
    assert torch.equal(encoder.embedding.weight, transfer.embedding.weight)
    assert torch.equal(encoder.initial_embeddings, transfer.embedding.weight)  # anchored at the transfer vectors
    assert regularization(encoder, 1.0, 1.0).item() == 0.0
    with torch.no_grad():
        encoder.gate_x[0].weight.add_(0.5)
        encoder.embedding.weight[3].add_(1.0)
    dims = encoder.dim
    expected = 1e-2 * 0.25 * dims * dims + 1e-3 * dims
    assert regularization(encoder, 1e-2, 1e-3).item() == pytest.approx(expected, rel=1e-5)
    with pytest.raises(PipelineError, match="cannot start from"):
        universal_encoder(path, supervised_settings(name="u", model="lstmavg"), vocab)
    with pytest.raises(PipelineError, match="another vocabulary"):
        universal_encoder(path, supervised_settings(name="u", model="gran"), Vocabulary(vocab.words[:-1]))


def test_universal_training_runs_and_reloads(workspace, supervised_table):
    _, path = transfer_model(workspace)
    info = run_supervised(workspace, supervised_table, "uni", model="gran", init="t3-gran", init_path=path,
                          lambda_w=1e-3, lambda_c=1e-3, epochs=2)
    assert info["init"] == str(path)
    model, vocab, payload = load_scorer(workspace["root"] / "uni/out/model.pt")
    # the anchors (the transfer model's values) are rebuilt from --init, not saved: the vectors are in the file once
    assert not [key for key in payload["state_dict"] if ".initial_" in key]
    test = pd.read_parquet(supervised_table).query("split == 'test'")
    from scipy import stats
    predicted = predict(model, PreparedSets.for_model(model.encoder, vocab, test))
    r = 100 * stats.pearsonr(predicted, test["score"]).statistic
    assert r == pytest.approx(info["test_pearson"], abs=1e-3)  # float32 agreement, as above
    # killed after its first epoch, it resumes from a checkpoint without anchors to the same result
    assert run_supervised(workspace, supervised_table, "uni-part", model="gran", init="t3-gran", init_path=path,
                          lambda_w=1e-3, lambda_c=1e-3, epochs=2, stop_after=1) == {"stopped_after_epoch": 1}
    resumed = run_supervised(workspace, supervised_table, "uni-part", model="gran", init="t3-gran", init_path=path,
                             lambda_w=1e-3, lambda_c=1e-3, epochs=2)
    def scores(name):  # each epoch's loss and scores (not its timing)
        return [{k: v for k, v in row.items() if k not in ("train_seconds", "pairs_per_second")}
                for row in json.loads((workspace["root"] / name / "out/history.json").read_text())]

    assert scores("uni-part") == scores("uni")
    assert resumed["test_pearson"] == info["test_pearson"]
    with pytest.raises(PipelineError, match="--init"):
        run_supervised(workspace, supervised_table, "uni2", model="gran", init="t3-gran")


def test_universal_regularisation_keeps_the_encoder_near_the_transfer_model(workspace, supervised_table):
    transfer, path = transfer_model(workspace)

    def drift(name, lam):
        run_supervised(workspace, supervised_table, name, model="gran", init="t3-gran", init_path=path,
                       lambda_w=lam, lambda_c=lam, epochs=2, learning_rate=0.05)
        model, _, _ = load_scorer(workspace["root"] / name / "out/model.pt")
        moved = model.encoder.state_dict()
        return sum((moved[k] - v).pow(2).sum().item() for k, v in transfer.state_dict().items()
                   if k == "embedding.weight" or not k.startswith("initial"))

    assert drift("pulled", 1.0) < 0.5 * drift("free", 0.0)


@pytest.mark.fault("model and checkpoint files")
def test_a_damaged_checkpoint_of_the_selected_epoch_is_recomputed(workspace, supervised_table, capsys):
    info = run_supervised(workspace, supervised_table, "dmg", epochs=2)
    weights = load_scorer(workspace["root"] / "dmg/out/model.pt")[0].state_dict()
    damaged = workspace["root"] / "dmg/ck" / f"epoch-{info['selected_epoch']}.pt"
    damaged.write_bytes(b"")
    capsys.readouterr()
    again = run_supervised(workspace, supervised_table, "dmg", epochs=2)
    out = capsys.readouterr().out
    assert f"{damaged}: damaged checkpoint: empty file" in out and "training again from the start" in out
    same = [k for k in info if k.startswith(("selected_epoch", "validation_", "test_"))]
    assert len(same) > 3 and all(again[k] == info[k] for k in same)
    retrained = load_scorer(workspace["root"] / "dmg/out/model.pt")[0].state_dict()
    assert all(torch.equal(retrained[k], v) for k, v in weights.items())
    run_supervised(workspace, supervised_table, "dmg", epochs=2)  # its checkpoints are whole (and readable) again
    out = capsys.readouterr().out
    assert "resuming from" in out and "damaged checkpoint" not in out
