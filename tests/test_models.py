"""The defining identities of the encoders."""

from __future__ import annotations

import pytest
import torch

from paraphrastic.batching import pad
from paraphrastic.models import GatedRecurrentAveraging, PeepholeLSTM, build_model


def embeddings(vocab=12, dim=6, seed=0):
    g = torch.Generator().manual_seed(seed)
    weights = torch.randn(vocab, dim, generator=g)
    weights[0] = 0
    return weights


def reference_peephole_lstm(cell: PeepholeLSTM, x: torch.Tensor) -> torch.Tensor:
    """Gers et al. (2003), written out gate by gate for one sequence (T x d)."""
    hdim = cell.hidden_dim
    wx, wh, b = cell.weight_x, cell.weight_h, cell.bias
    w_ci, w_cf, w_co = cell.peephole
    h, c = torch.zeros(hdim), torch.zeros(hdim)
    out = []
    for x_t in x:
        z = x_t @ wx + h @ wh + b
        zi, zf, zc, zo = z[:hdim], z[hdim:2 * hdim], z[2 * hdim:3 * hdim], z[3 * hdim:]
        i = torch.sigmoid(zi + w_ci * c)
        f = torch.sigmoid(zf + w_cf * c)
        c = f * c + i * torch.tanh(zc)
        o = torch.sigmoid(zo + w_co * c)
        h = o * torch.tanh(c)
        out.append(h)
    return torch.stack(out)


def test_peephole_lstm_matches_the_equations():
    torch.manual_seed(0)
    cell = PeepholeLSTM(5, 4)
    x = torch.randn(2, 7, 5)
    batched = cell(x)
    for row in range(2):
        torch.testing.assert_close(batched[row], reference_peephole_lstm(cell, x[row]))


def test_gran_with_gate_forced_open_equals_avg():
    emb = embeddings()
    torch.manual_seed(1)
    gran = GatedRecurrentAveraging(emb)
    avg = build_model("avg", emb)
    with torch.no_grad():
        gran.gate_x.weight.zero_()
        gran.gate_h.weight.zero_()
        gran.gate_x.bias.fill_(100.0)  # σ(100) == 1 in float32
    tokens, mask = pad([[2, 3, 4], [5, 6]])
    torch.testing.assert_close(gran(tokens, mask), avg(tokens, mask))
    _, gate = gran.gates(tokens)
    assert torch.all(gate == 1)


@pytest.mark.parametrize("name", ["avg", "lstm", "lstmavg", "gran"])
def test_padding_does_not_change_embeddings(name):
    torch.manual_seed(2)
    model = build_model(name, embeddings())
    sentences = [[2, 3, 4, 5, 6], [7, 8], [9]]
    tokens, mask = pad(sentences)
    batched = model(tokens, mask)
    for row, sentence in enumerate(sentences):
        alone = model(*pad([sentence]))
        torch.testing.assert_close(batched[row], alone[0])


@pytest.mark.parametrize("name", ["lstm", "lstmavg", "gran"])
def test_hidden_size_other_than_the_word_vectors(name):
    from paraphrastic.evaluate import encode
    from paraphrastic.vocab import Vocabulary

    model = build_model(name, embeddings(dim=6), hidden_dim=9)
    out = encode(model, Vocabulary(["<pad>", "<unk>"] + [f"w{i}" for i in range(10)]), [["w1", "w2"], ["w3"]])
    assert out.shape == (2, model.output_dim) == (2, 6 if name == "gran" else 9)


def test_lstm_uses_the_last_real_state_and_lstmavg_the_mean():
    torch.manual_seed(3)
    emb = embeddings()
    lstm, lstmavg = build_model("lstm", emb), build_model("lstmavg", emb)
    lstmavg.load_state_dict(lstm.state_dict())
    tokens, mask = pad([[2, 3, 4], [5, 6]])
    states = lstm.lstm(lstm.embedding(tokens))
    torch.testing.assert_close(lstm(tokens, mask)[1], states[1, 1])
    torch.testing.assert_close(lstmavg(tokens, mask)[1], states[1, :2].mean(0))


@pytest.mark.parametrize("name", ["avg", "lstm", "lstmavg", "gran"])
def test_gradients_reach_embeddings_and_compositional_parameters(name):
    torch.manual_seed(4)
    model = build_model(name, embeddings())
    tokens, mask = pad([[2, 3, 4], [5, 6]])
    model(tokens, mask).sum().backward()
    assert model.embedding.weight.grad[2:7].abs().sum() > 0
    assert model.embedding.weight.grad[0].abs().sum() == 0  # padding row
    for param in model.compositional_parameters():
        assert param.grad is not None and param.grad.abs().sum() > 0
    assert (name == "avg") == (model.compositional_parameters() == [])
