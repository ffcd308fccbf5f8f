"""Training only the word-embedding rows a job's sentences reach gives the weights training every row gives, bit for
bit, with the other rows left at their values; the trainers do it with the same results and model files."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import torch

from paraphrastic.data.batching import pad
from paraphrastic.data.vocab import Vocabulary, load_matrix, save_matrix
from paraphrastic.losses.regularization import regularization
from paraphrastic.models.encoders import build_model
from paraphrastic.models.files import load_model, load_scorer
from paraphrastic.runtime import deterministic_cuda
from paraphrastic.training import supervised as supervised_module
from paraphrastic.training import transfer as transfer_module
from paraphrastic.training.epochs import adam
from paraphrastic.training.reached_rows import (
    ALIGNMENT,
    ReachedRows,
    aligned_rows,
    narrow_embedding,
    reached_ids,
    widen_embedding,
)
from tests.conftest import settings
from tests.training.test_supervised import run_supervised, supervised_table  # noqa: F401 (a fixture)

# d = 50 and 21 rows read (25 with the special rows): the last elements of their flat matrix, which Adam's step takes
# out of its vectorised loop, are the last read row's, not the whole matrix's last row's, unless the rows kept are
# aligned (reached_rows.ALIGNMENT)
VOCABULARY, DIM, REACHED = 73, 50, 21


def _batches(rng: np.random.Generator, reachable: np.ndarray, count: int) -> list[list[list[int]]]:
    """``count`` batches of 8 sentences over ``reachable``, each batch reading its highest row (the rows' last)."""
    return [[[int(reachable.max())]] + [list(rng.choice(reachable, size=rng.integers(1, 7))) for _ in range(7)]
            for _ in range(count)]


def _train(model: str, options: dict, *, narrowed: bool, lambda_w: float, epsilon: str,
           device: str = "cpu") -> tuple[dict, torch.Tensor]:
    """Adam steps of ``model`` on ``device``, on batches that reach a part of the vocabulary; its state after them
    (on the CPU)."""
    rng = np.random.default_rng(0)
    reachable = rng.choice(np.arange(4, VOCABULARY - 1), size=REACHED, replace=False)
    batches = _batches(rng, reachable, 40)
    torch.manual_seed(0)
    embeddings = torch.randn(VOCABULARY, DIM)
    encoder = build_model(model, embeddings, **options)
    if narrowed:
        narrow_embedding(encoder, reached_ids(*batches))
    encoder.to(device)
    optimizer = adam(encoder.parameters(), 0.01, epsilon=epsilon)
    encoder.train()
    torch.manual_seed(1)  # dropout's and word dropout's masks
    for batch in batches:
        tokens, mask = pad(batch)
        loss = encoder(tokens.to(device), mask.to(device)).pow(2).sum() + regularization(encoder, 1e-3, lambda_w)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    widen_embedding(encoder)
    return {key: value.cpu() for key, value in encoder.state_dict().items()}, embeddings


def _assert_narrowed_trains_as_whole(model: str, options: dict, **how) -> None:
    """Training ``model`` on its reached rows gives every weight that training all rows gives, bit for bit."""
    whole, embeddings = _train(model, options, narrowed=False, **how)
    narrowed, _ = _train(model, options, narrowed=True, **how)
    assert narrowed.keys() == whole.keys()
    for key, value in whole.items():
        assert torch.equal(narrowed[key], value), key
    moved = (whole["embedding.weight"] != embeddings).any(dim=1)
    assert 0 < int(moved.sum()) <= REACHED  # the test trains some rows and leaves the others


@pytest.mark.parametrize("model, options", [
    ("avg", {}),
    ("lstmavg", {"dropout": 0.2}),
    ("gran", {"word_dropout": 0.3}),
    ("bilstmavg", {"combine": "ff"}),
])
@pytest.mark.parametrize("lambda_w, epsilon", [(0.0, "uncorrected"), (1e-3, "uncorrected"), (1e-3, "corrected")])
def test_training_the_reached_rows_gives_every_weight_of_training_them_all(model, options, lambda_w, epsilon):
    _assert_narrowed_trains_as_whole(model, options, lambda_w=lambda_w, epsilon=epsilon)


@pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA device")
@pytest.mark.parametrize("model, options", [("avg", {}), ("gran", {"word_dropout": 0.3})])
def test_on_cuda_training_the_reached_rows_gives_every_weight_of_training_them_all_too(model, options):
    deterministic_cuda()  # as a job on CUDA is
    _assert_narrowed_trains_as_whole(model, options, lambda_w=1e-3, epsilon="corrected", device="cuda")


def test_an_id_outside_the_reached_rows_is_an_index_error_never_another_words_vector():
    encoder = build_model("avg", torch.randn(200, 64))
    narrow_embedding(encoder, reached_ids([[5, 6]]))
    assert isinstance(encoder.embedding, ReachedRows)
    assert encoder.embedding.rows.tolist() == [0, 1, 2, 3, 5, 6, 199]  # the special rows, the two read, the last
    assert torch.equal(encoder.embedding(torch.tensor([5])), encoder.embedding.whole[[5]])
    with pytest.raises(IndexError):
        encoder.embedding(torch.tensor([7]))
    with pytest.raises(ValueError, match="already narrowed"):
        narrow_embedding(encoder, reached_ids([[5]]))


@pytest.mark.parametrize("vocabulary, dim", [(73, 50), (62_126, 256), (50_193, 50), (1_000, 300), (30, 7)])
def test_the_rows_kept_end_with_the_last_and_number_as_many_as_the_whole_modulo_the_alignment(vocabulary, dim):
    ids = reached_ids([[5, 9, 11]])
    rows = aligned_rows(ids, vocabulary, dim)
    assert set(ids.tolist()) <= set(rows.tolist()) and rows.tolist() == sorted(set(rows.tolist()))
    assert (len(rows) * dim - vocabulary * dim) % ALIGNMENT == 0
    last = rows[-math.ceil(ALIGNMENT / dim):].tolist()  # the rows holding the flat matrix's last ALIGNMENT elements
    assert last == list(range(vocabulary - len(last), vocabulary))


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


def _narrowed_run_equals_whole_run(monkeypatch, module, vocab_dir, run) -> tuple[Path, np.ndarray]:
    """``run(name)`` (a trainer of ``module`` writing into the folder it returns), with rows no sentence reads added to
    the vocabulary, once as the trainer does it and once with its narrowing patched out: the same outputs. The first
    run's folder, and the matrix."""
    matrix = _with_unreached_rows(vocab_dir)
    seen = _narrowings(monkeypatch, module)
    narrowed = run("narrowed")
    assert len(seen) == 1 and seen[0][0] <= seen[0][1] - UNREACHED
    monkeypatch.setattr(module, "narrow_embedding", lambda encoder, rows: None)
    _assert_same(_outputs(narrowed), _outputs(run("whole")))
    return narrowed, matrix


def _assert_whole_vocabulary(embedding: torch.nn.Embedding, vocab: Vocabulary, matrix: np.ndarray) -> None:
    """A saved model's embedding: every row of the vocabulary, the unread ones as they were."""
    assert embedding.num_embeddings == len(vocab) == len(matrix)
    assert torch.equal(embedding.weight[-UNREACHED:], torch.from_numpy(matrix[-UNREACHED:]))


def test_a_transfer_run_on_its_reached_rows_has_the_results_and_model_file_of_one_on_every_row(workspace,
                                                                                              monkeypatch):
    ws = workspace

    def run(out: str) -> Path:
        transfer_module.train(settings(model="gran", dropout=0.2, lambda_w=1e-3, scramble=0.5,
                                       evaluate_every="quarter"),
                              train_path=ws["train"], vocab_dir=ws["vocab_dir"], eval_path=ws["eval"],
                              selection=["sts16.headlines"], out_dir=ws["root"] / out,
                              checkpoint_dir=ws["root"] / f"ck-{out}", progress=False, threads=1)
        return ws["root"] / out

    out, matrix = _narrowed_run_equals_whole_run(monkeypatch, transfer_module, ws["vocab_dir"], run)
    model, vocab, _ = load_model(out / "model.pt")
    _assert_whole_vocabulary(model.embedding, vocab, matrix)


def test_a_supervised_run_on_its_reached_rows_has_the_results_and_model_file_of_one_on_every_row(
        workspace, supervised_table, monkeypatch):  # noqa: F811 (the fixture)
    def run(name: str) -> Path:
        run_supervised(workspace, supervised_table, name, dropout=0.2, lambda_w=1e-3, scramble=0.5)
        return workspace["root"] / name / "out"

    out, matrix = _narrowed_run_equals_whole_run(monkeypatch, supervised_module, workspace["vocab_dir"], run)
    model, vocab, _ = load_scorer(out / "model.pt")
    _assert_whole_vocabulary(model.encoder.embedding, vocab, matrix)
