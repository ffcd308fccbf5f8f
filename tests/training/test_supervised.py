"""Supervised similarity (Sec. 4.3): the Tai et al. target and KL loss, the head, the STS split, and training."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import torch
import torch.nn.functional as F

from paraphrastic.data.corpus import write_table
from paraphrastic.data.supervised_tasks import SUPERVISED_SCHEMA, cap, split_per_set
from paraphrastic.data.vocab import Vocabulary
from paraphrastic.errors import PipelineError
from paraphrastic.experiments.settings import SupervisedSettings
from paraphrastic.losses.kl import kl_loss, target_distribution
from paraphrastic.losses.regularization import regularization
from paraphrastic.models.encoders import build_model
from paraphrastic.models.files import load_scorer, save_model
from paraphrastic.models.heads import SimilarityHead
from paraphrastic.training.supervised import predict, train_supervised, universal_encoder
from tests.conftest import synthetic_pairs

# ---- the target distribution p (Eq. 6) ------------------------------------------------------------

def test_integer_scores_are_one_hot():
    p = target_distribution(torch.tensor([1.0, 3.0, 5.0]), 1, 5)
    assert torch.equal(p, torch.tensor([[1, 0, 0, 0, 0], [0, 0, 1, 0, 0], [0, 0, 0, 0, 1]], dtype=torch.float64))


def test_fractional_scores_split_between_floor_and_floor_plus_one():
    # y = 3.6 in [1, 5]: p_3 = ⌊y⌋ − y + 1 = 0.4, p_4 = y − ⌊y⌋ = 0.6
    p = target_distribution(torch.tensor([3.6]), 1, 5)[0]
    assert torch.allclose(p, torch.tensor([0, 0, 0.4, 0.6, 0], dtype=torch.float64))
    # STS scores on 0-5: six classes 0..5
    p = target_distribution(torch.tensor([0.25, 4.8]), 0, 5)
    assert torch.allclose(p, torch.tensor([[0.75, 0.25, 0, 0, 0, 0], [0, 0, 0, 0, 0.2, 0.8]], dtype=torch.float64))


def test_target_is_a_distribution_whose_expectation_is_the_score():
    scores = torch.tensor(np.random.default_rng(0).uniform(1, 5, size=200))
    p = target_distribution(scores, 1, 5)
    assert torch.allclose(p.sum(1), torch.ones(200, dtype=torch.float64))
    assert (p >= 0).all() and ((p > 0).sum(1) <= 2).all()
    assert torch.allclose(p @ torch.arange(1, 6, dtype=torch.float64), scores)  # rᵀp = y


def test_scores_outside_the_range_are_rejected():
    with pytest.raises(ValueError, match=r"\[1, 5\]"):
        target_distribution(torch.tensor([0.5]), 1, 5)


# ---- the loss and the head --------------------------------------------------------------------------

def test_kl_loss_matches_the_definition_and_torch():
    p = target_distribution(torch.tensor([3.6, 1.0, 4.2]), 1, 5)
    log_q = F.log_softmax(torch.randn(3, 5, dtype=torch.float64), dim=1)
    by_hand = sum(sum(pi * (np.log(pi) - lq) for pi, lq in zip(row_p.tolist(), row_q.tolist(), strict=True) if pi > 0)
                  for row_p, row_q in zip(p, log_q, strict=True)) / 3
    assert kl_loss(log_q, p).item() == pytest.approx(by_hand, rel=1e-12)
    assert kl_loss(log_q, p).item() == pytest.approx(F.kl_div(log_q, p, reduction="batchmean").item(), rel=1e-12)
    assert kl_loss(torch.log(p.clamp_min(1e-300)), p).item() == pytest.approx(0.0, abs=1e-12)  # KL(p ‖ p) = 0


def test_kl_gradient_with_respect_to_the_logits_is_softmax_minus_target():
    logits = torch.randn(4, 6, dtype=torch.float64, requires_grad=True)
    p = target_distribution(torch.tensor([0.0, 2.5, 3.3, 5.0]), 0, 5)
    kl_loss(F.log_softmax(logits, dim=1), p).backward()
    assert torch.allclose(logits.grad, (F.softmax(logits, dim=1) - p) / 4)


def test_gradcheck_through_head_and_loss():
    torch.manual_seed(0)
    head = SimilarityHead(7, 5, 1, 5).double()
    left, right = (torch.randn(3, 7, dtype=torch.float64, requires_grad=True) for _ in range(2))
    p = target_distribution(torch.tensor([1.7, 4.0, 2.2]), 1, 5)
    assert torch.autograd.gradcheck(lambda a, b: kl_loss(head(a, b), p), (left, right))
    params = list(head.parameters())
    assert torch.autograd.gradcheck(lambda *w: kl_loss(torch.func.functional_call(
        head, dict(zip([n for n, _ in head.named_parameters()], w, strict=True)), (left.detach(), right.detach())),
        p), [w.detach().clone().requires_grad_() for w in params])


def test_head_on_a_hand_worked_example():
    head = SimilarityHead(2, 1, 1, 3)  # 2-d sentences, one hidden unit, classes 1..3
    with torch.no_grad():
        head.product.weight.copy_(torch.tensor([[1.0, 0.0]]))  # reads h×[0]
        head.difference.weight.copy_(torch.tensor([[0.0, -2.0]]))  # reads h+[1]
        head.difference.bias.fill_(0.5)
        head.output.weight.copy_(torch.tensor([[0.0], [1.0], [2.0]]))
        head.output.bias.zero_()
    left, right = torch.tensor([[2.0, 1.0]]), torch.tensor([[0.5, 3.0]])
    # h× = (1, 3), h+ = (1.5, 2): h_s = σ(1·1 − 2·2 + 0.5) = σ(−2.5); logits (0, h_s, 2 h_s)
    h = 1 / (1 + np.exp(2.5))
    p = np.exp([0, h, 2 * h]) / np.exp([0, h, 2 * h]).sum()
    assert np.allclose(head(left, right).exp().detach().numpy()[0], p, atol=1e-6)
    assert head.score(head(left, right)).item() == pytest.approx(float(p @ [1, 2, 3]), abs=1e-6)
    assert torch.allclose(head(left, right), head(right, left))  # h× and h+ are symmetric


# ---- the STS split ----------------------------------------------------------------------------------

def sts_frame(sizes: dict[str, int]) -> pd.DataFrame:
    return pd.DataFrame([{"dataset": name, "line": i + 1} for name, n in sizes.items() for i in range(n)])


def test_split_is_40_10_50_per_set_and_stable_when_sets_change():
    frame = sts_frame({"sts12.MSRpar": 750, "sts13.FNWN": 189})
    split = split_per_set(frame, 0.4, 0.1, seed=1)
    for name, n in (("sts12.MSRpar", 750), ("sts13.FNWN", 189)):
        counts = split[frame["dataset"] == name].value_counts()
        assert counts["train"] == round(0.4 * n) and counts["validation"] == round(0.1 * n)
        assert counts["test"] == n - round(0.4 * n) - round(0.1 * n)
    alone = sts_frame({"sts13.FNWN": 189})
    assert list(split_per_set(alone, 0.4, 0.1, seed=1)) == list(split[frame["dataset"] == "sts13.FNWN"])
    assert list(split_per_set(frame, 0.4, 0.1, seed=2)) != list(split)  # the seed matters
    with pytest.raises(PipelineError, match="no test pairs"):
        split_per_set(frame, 0.6, 0.4, seed=1)


def test_cap_keeps_at_most_n_pairs_per_split():
    frame = sts_frame({"sts12.MSRpar": 100})
    frame["split"] = split_per_set(frame, 0.4, 0.1, seed=1)
    capped = cap(frame, 20, seed=1)
    assert capped["split"].value_counts().to_dict() == {"train": 20, "validation": 10, "test": 20}


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
    predicted = predict(model, vocab, test)
    assert ((predicted >= 1) & (predicted <= 5)).all()
    from scipy import stats
    assert 100 * stats.pearsonr(predicted, test["score"]).statistic == pytest.approx(full["test_pearson"], abs=1e-4)


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
    model, vocab, _ = load_scorer(workspace["root"] / "uni/out/model.pt")
    assert any(name.startswith("initial_gate_x") for name, _ in model.encoder.named_buffers())
    test = pd.read_parquet(supervised_table).query("split == 'test'")
    from scipy import stats
    r = 100 * stats.pearsonr(predict(model, vocab, test), test["score"]).statistic
    assert r == pytest.approx(info["test_pearson"], abs=1e-4)
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
