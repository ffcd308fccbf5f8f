"""Training only the word-embedding rows a job's sentences reach gives the weights training every row gives, bit for
bit, with the other rows left at their values; the trainers do it with the same results and model files."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import torch

from paraphrastic.data.batching import pad
from paraphrastic.data.vocab import Vocabulary, load_matrix, save_matrix
from paraphrastic.losses.regularization import regularization
from paraphrastic.models.encoders import build_model
from paraphrastic.models.files import load_model, load_scorer
from paraphrastic.training import supervised as supervised_module
from paraphrastic.training import transfer as transfer_module
from paraphrastic.training.epochs import adam
from paraphrastic.training.reached_rows import ReachedRows, narrow_embedding, reached_ids, widen_embedding
from tests.conftest import settings
from tests.training.test_supervised import run_supervised, supervised_table  # noqa: F401 (a fixture)

VOCABULARY, DIM = 60, 6


def _batches(rng: np.random.Generator, reachable: np.ndarray, count: int) -> list[list[list[int]]]:
    return [[list(rng.choice(reachable, size=rng.integers(1, 7))) for _ in range(8)] for _ in range(count)]


def _train(model: str, options: dict, *, narrowed: bool, lambda_w: float, epsilon: str) -> tuple[dict, torch.Tensor]:
    """A few Adam steps of ``model`` on batches that reach a third of the vocabulary; its state after them."""
    rng = np.random.default_rng(0)
    reachable = rng.choice(np.arange(4, VOCABULARY), size=VOCABULARY // 3, replace=False)
    batches = _batches(rng, reachable, 6)
    torch.manual_seed(0)
    embeddings = torch.randn(VOCABULARY, DIM)
    encoder = build_model(model, embeddings, **options)
    if narrowed:
        narrow_embedding(encoder, reached_ids(*batches))
    optimizer = adam(encoder.parameters(), 0.01, epsilon=epsilon)
    encoder.train()
    torch.manual_seed(1)  # dropout's and word dropout's masks
    for batch in batches:
        tokens, mask = pad(batch)
        loss = encoder(tokens, mask).pow(2).sum() + regularization(encoder, 1e-3, lambda_w)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    widen_embedding(encoder)
    return encoder.state_dict(), embeddings


@pytest.mark.parametrize("model, options", [
    ("avg", {}),
    ("lstmavg", {"dropout": 0.2}),
    ("gran", {"word_dropout": 0.3, "tags": "both"}),
    ("bilstmavg", {"combine": "ff"}),
])
@pytest.mark.parametrize("lambda_w, epsilon", [(0.0, "uncorrected"), (1e-3, "uncorrected"), (1e-3, "corrected")])
def test_training_the_reached_rows_gives_every_weight_of_training_them_all(model, options, lambda_w, epsilon):
    whole, embeddings = _train(model, options, narrowed=False, lambda_w=lambda_w, epsilon=epsilon)
    narrowed, _ = _train(model, options, narrowed=True, lambda_w=lambda_w, epsilon=epsilon)
    assert narrowed.keys() == whole.keys()
    for key, value in whole.items():
        assert torch.equal(narrowed[key], value), key
    moved = (whole["embedding.weight"] != embeddings).any(dim=1)
    assert 0 < int(moved.sum()) < VOCABULARY // 2  # the test trains some rows and leaves most


def test_an_id_outside_the_reached_rows_is_an_index_error_never_another_words_vector():
    encoder = build_model("avg", torch.randn(10, 4))
    narrow_embedding(encoder, reached_ids([[5, 6]]))
    assert isinstance(encoder.embedding, ReachedRows)
    assert encoder.embedding.weight.shape == (6, 4)  # the four special rows and the two reached
    assert torch.equal(encoder.embedding(torch.tensor([5])), encoder.embedding.whole[[5]])
    with pytest.raises(IndexError):
        encoder.embedding(torch.tensor([7]))
    with pytest.raises(ValueError, match="already narrowed"):
        narrow_embedding(encoder, reached_ids([[5]]))


UNREACHED = 12  # rows the trainer tests add to the vocabulary, which no sentence of theirs reads


def _with_unreached_rows(vocab_dir) -> np.ndarray:
    """The workspace's vocabulary with rows no sentence reads (each of its words is in some sentence); the matrix."""
    vocab = Vocabulary.load(vocab_dir / "vocab.txt")
    Vocabulary(vocab.words + [f"unread{i}" for i in range(UNREACHED)]).save(vocab_dir / "vocab.txt")
    matrix = load_matrix(vocab_dir / "embeddings.npy")
    extra = np.random.default_rng(5).normal(size=(UNREACHED, matrix.shape[1])).astype(matrix.dtype)
    matrix = np.concatenate([matrix, extra])
    save_matrix(vocab_dir / "embeddings.npy", matrix)
    return matrix


def _narrowings(monkeypatch, module) -> list[tuple[int, int]]:
    """(rows kept, vocabulary rows) of each narrowing ``module`` does from now on."""
    seen = []

    def narrow(encoder, rows):
        seen.append((len(rows), encoder.embedding.num_embeddings))
        narrow_embedding(encoder, rows)

    monkeypatch.setattr(module, "narrow_embedding", narrow)
    return seen


def _outputs(out) -> dict:
    """What a run leaves that must not depend on how it trained: its history (but its timings) and model file."""
    history = pd.read_json(out / "history.json").drop(columns=["train_seconds", "pairs_per_second"])
    return {"history": history, "model": torch.load(out / "model.pt", weights_only=False)}


def _assert_same(narrowed: dict, whole: dict) -> None:
    # the recorded loss sums λ_w's penalty over fewer rows, which may round its last bits otherwise
    pd.testing.assert_series_equal(narrowed["history"].pop("loss"), whole["history"].pop("loss"), rtol=1e-6)
    pd.testing.assert_frame_equal(narrowed["history"], whole["history"], check_exact=True)
    state, whole_state = narrowed["model"].pop("state_dict"), whole["model"].pop("state_dict")
    assert state.keys() == whole_state.keys()
    for key, value in whole_state.items():
        assert torch.equal(state[key], value), key
    assert narrowed["model"].keys() == whole["model"].keys()


def test_a_transfer_run_on_its_reached_rows_has_the_results_and_model_file_of_one_on_every_row(workspace,
                                                                                              monkeypatch):
    ws = workspace

    def run(out: str) -> dict:
        transfer_module.train(settings(model="gran", dropout=0.2, lambda_w=1e-3, scramble=0.5,
                                       evaluate_every="quarter"),
                              train_path=ws["train"], vocab_dir=ws["vocab_dir"], eval_path=ws["eval"],
                              selection=["sts16.headlines"], out_dir=ws["root"] / out,
                              checkpoint_dir=ws["root"] / f"ck-{out}", progress=False, threads=1)
        return _outputs(ws["root"] / out)

    matrix = _with_unreached_rows(ws["vocab_dir"])
    seen = _narrowings(monkeypatch, transfer_module)
    narrowed = run("narrowed")
    assert len(seen) == 1 and seen[0][0] <= seen[0][1] - UNREACHED
    monkeypatch.setattr(transfer_module, "narrow_embedding", lambda encoder, rows: None)
    _assert_same(narrowed, run("whole"))
    model, vocab, _ = load_model(ws["root"] / "narrowed" / "model.pt")
    assert model.embedding.num_embeddings == len(vocab) == len(matrix)
    assert torch.equal(model.embedding.weight[-UNREACHED:], torch.from_numpy(matrix[-UNREACHED:]))


def test_a_supervised_run_on_its_reached_rows_has_the_results_and_model_file_of_one_on_every_row(
        workspace, supervised_table, monkeypatch):  # noqa: F811 (the fixture)
    def run(name: str) -> dict:
        run_supervised(workspace, supervised_table, name, dropout=0.2, lambda_w=1e-3, scramble=0.5)
        return _outputs(workspace["root"] / name / "out")

    matrix = _with_unreached_rows(workspace["vocab_dir"])
    seen = _narrowings(monkeypatch, supervised_module)
    narrowed = run("narrowed")
    assert len(seen) == 1 and seen[0][0] <= seen[0][1] - UNREACHED
    monkeypatch.setattr(supervised_module, "narrow_embedding", lambda encoder, rows: None)
    _assert_same(narrowed, run("whole"))
    model, vocab, _ = load_scorer(workspace["root"] / "narrowed" / "out" / "model.pt")
    assert model.encoder.embedding.num_embeddings == len(vocab) == len(matrix)
    assert torch.equal(model.encoder.embedding.weight[-UNREACHED:], torch.from_numpy(matrix[-UNREACHED:]))
