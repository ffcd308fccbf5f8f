"""The defining identities of the encoders."""

from __future__ import annotations

import pytest
import torch

from paraphrastic.data.batching import pad
from paraphrastic.models.encoders import MODELS, build_model


def embeddings(vocab=12, dim=6, seed=0):
    g = torch.Generator().manual_seed(seed)
    weights = torch.randn(vocab, dim, generator=g)
    weights[0] = 0
    return weights


def _open(linear, value=100.0):
    with torch.no_grad():
        linear.weight.zero_()
        if linear.bias is not None:
            linear.bias.fill_(value)  # σ(±100) is exactly 1 / 0 in float32


def test_gran_with_gate_forced_open_equals_avg():
    emb = embeddings()
    torch.manual_seed(1)
    gran, avg = build_model("gran", emb), build_model("avg", emb)
    _open(gran.gate_x[0])
    _open(gran.gate_h[0])
    tokens, mask = pad([[2, 3, 4], [5, 6]])
    torch.testing.assert_close(gran(tokens, mask), avg(tokens, mask))
    _, gate = gran.gates(tokens)
    assert torch.all(gate == 1)


def test_gran5_reduces_to_avg_or_to_lstmavg():
    emb = embeddings()
    torch.manual_seed(5)
    gran5 = build_model("gran5", emb)
    tokens, mask = pad([[2, 3, 4], [5, 6]])
    for gate in (*gran5.gate_h, *gran5.gate_x):
        _open(gate)
    with torch.no_grad():
        gran5.gate_x[1].bias.fill_(-100.0)  # first gate open, second shut: avg
    torch.testing.assert_close(gran5(tokens, mask), build_model("avg", emb)(tokens, mask))
    lstmavg = build_model("lstmavg", emb)
    lstmavg.lstm.load_state_dict(gran5.lstm.state_dict())
    with torch.no_grad():
        gran5.gate_x[0].bias.fill_(-100.0)
        gran5.gate_x[1].bias.fill_(100.0)  # first shut, second open: LSTMavg
    torch.testing.assert_close(gran5(tokens, mask), lstmavg(tokens, mask))


def test_gran5_reads_the_last_token_as_the_authors_code_or_averages_as_the_paper_says():
    emb = embeddings()
    torch.manual_seed(5)
    gran5 = build_model("gran5", emb, gran5_readout="last")
    for gate in (*gran5.gate_h, *gran5.gate_x):
        _open(gate)
    with torch.no_grad():
        gran5.gate_x[1].bias.fill_(-100.0)  # first gate open, second shut: the words themselves
    tokens, mask = pad([[2, 3, 4], [5, 6]])
    torch.testing.assert_close(gran5(tokens, mask), emb[[4, 6]])  # each sentence's last word
    assert build_model("gran5", emb).gran5_readout == "mean"  # a model file without the option: the average
    with pytest.raises(ValueError, match="gran5_readout must be"):
        build_model("gran5", emb, gran5_readout="first")


@pytest.mark.parametrize("per_direction, scale", [(True, 2.0), (False, 1.0)])
def test_bigran_gates_each_direction_as_the_authors_code_or_the_combined_states(per_direction, scale):
    # gates forced open: a gate per direction sums the word twice (x_t + x_t), one gate over the states passes it once
    emb = embeddings()
    torch.manual_seed(3)
    bigran = build_model("bigran", emb, gate_per_direction=per_direction)
    assert len(bigran.gate_x) == (2 if per_direction else 1)
    for gate in (*bigran.gate_h, *bigran.gate_x):
        _open(gate)
    tokens, mask = pad([[2, 3, 4], [5, 6]])
    torch.testing.assert_close(bigran(tokens, mask), scale * build_model("avg", emb)(tokens, mask))
    ff = build_model("bigran", emb, gate_per_direction=per_direction, combine="ff")
    assert ff(tokens, mask).shape == (2, emb.shape[1])
    if per_direction:
        with pytest.raises(ValueError, match="one gate a token"):
            bigran.gates(tokens)


def test_gran3_open_gates_sum_the_words_then_divide_by_length():
    emb = embeddings()
    gran3 = build_model("gran3", emb)
    for gate in (*gran3.gate_h, *gran3.gate_x):
        _open(gate)
    tokens, mask = pad([[2, 3, 4], [5, 6]])
    torch.testing.assert_close(gran3(tokens, mask), build_model("avg", emb)(tokens, mask))


def test_untrained_irnn_equals_avg():
    emb = embeddings()
    tokens, mask = pad([[2, 3, 4, 7], [5, 6]])
    torch.testing.assert_close(build_model("irnn", emb)(tokens, mask), build_model("avg", emb)(tokens, mask))


ALL = sorted(MODELS)


@pytest.mark.parametrize("name", ALL)
def test_padding_does_not_change_embeddings(name):
    torch.manual_seed(2)
    model = build_model(name, embeddings())
    sentences = [[2, 3, 4, 5, 6], [7, 8], [9]]
    tokens, mask = pad(sentences)
    batched = model(tokens, mask)
    assert batched.shape == (3, model.output_dim)
    for row, sentence in enumerate(sentences):
        torch.testing.assert_close(batched[row], model(*pad([sentence]))[0])


@pytest.mark.parametrize("name", ALL)
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


@pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA device")
@pytest.mark.parametrize("name", ALL)
def test_cuda_gives_the_cpu_embeddings_and_gradients(name):
    torch.manual_seed(4)
    model = build_model(name, embeddings())
    tokens, mask = pad([[2, 3, 4, 7, 8], [5, 6], [9]])
    model(tokens, mask).pow(2).sum().backward()
    on_cpu = {n: p.grad.clone() for n, p in model.named_parameters()}
    model.zero_grad()
    model.cuda()
    out = model(tokens.cuda(), mask.cuda())
    out.pow(2).sum().backward()
    torch.testing.assert_close(out.cpu(), model.cpu()(tokens, mask), rtol=1e-4, atol=1e-5)
    for n, p in model.named_parameters():
        torch.testing.assert_close(p.grad.cpu(), on_cpu[n], rtol=1e-4, atol=1e-5, msg=n)


def test_bidirectional_states_read_each_sequence_backwards():
    torch.manual_seed(6)
    model = build_model("bilstmavg", embeddings(), combine="sum")
    tokens, mask = pad([[2, 3, 4], [5, 6]])
    x = model.embedding(tokens)
    expected = model.lstm(x[1:, :2]) + model.backward_lstm(x[1:, :2].flip(1)).flip(1)
    torch.testing.assert_close(model.states(x, mask)[1, :2], expected[0])


@pytest.mark.parametrize("name", ["lstm", "lstmavg", "gran", "rnn"])
def test_hidden_size_other_than_the_word_vectors(name):
    from paraphrastic.data.vocab import SPECIAL, Vocabulary
    from paraphrastic.evaluation.similarity import encode

    model = build_model(name, embeddings(dim=6), hidden_dim=9)
    out = encode(model, Vocabulary(SPECIAL + [f"w{i}" for i in range(8)]), [["w1", "w2"], ["w3"]])
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


@pytest.mark.parametrize("rescale, scale", [(True, 1 / (1 - 0.4)), (False, 1.0)])
def test_word_dropout_drops_whole_vectors_scales_the_kept_ones_and_only_in_training(rescale, scale):
    # Lasagne's DropoutLayer (the authors' code) scales the kept words by 1/(1 - p); word_dropout_rescale=False does not
    torch.manual_seed(7)
    model = build_model("avg", embeddings(), word_dropout=0.4, word_dropout_rescale=rescale)
    tokens = torch.tensor([[2, 3, 4, 5, 6, 7, 8, 9, 10, 11]])
    dropped = model.embed(tokens)
    zero_rows = (dropped == 0).all(-1)
    assert 0 < zero_rows.sum() < 10
    torch.testing.assert_close(dropped[~zero_rows], model.embedding(tokens)[~zero_rows] * scale, rtol=0, atol=1e-6)
    model.eval()
    assert torch.equal(model.embed(tokens), model.embedding(tokens))


@pytest.mark.parametrize("name", ["gran", "gran4", "bigran"])
def test_gran_gates_start_as_the_authors_layer_or_as_nn_linear(name):
    gates = lambda m: [*m.gate_x, *m.gate_h, *getattr(m, "gate_a", [])]  # noqa: E731
    torch.manual_seed(0)
    normal = build_model(name, embeddings(vocab=400, dim=200))  # gate_init="normal": N(0, 0.1²), zero bias
    weights = torch.cat([g.weight.detach().flatten() for g in gates(normal)])
    assert abs(float(weights.std()) - 0.1) < 0.005 and all(not g.bias.any() for g in normal.gate_x)
    torch.manual_seed(0)
    uniform = build_model(name, embeddings(vocab=400, dim=200), gate_init="uniform")
    bound = 1 / 200 ** 0.5  # nn.Linear's U(±1/√fan-in)
    assert all(float(g.weight.detach().abs().max()) <= bound for g in gates(uniform)) and uniform.gate_x[0].bias.any()
    with pytest.raises(ValueError, match="gate_init must be one of"):
        build_model(name, embeddings(), gate_init="zeros")


def test_unknown_options_are_rejected():
    with pytest.raises(KeyError, match="unknown model option"):
        build_model("avg", embeddings(), layers_count=3)
    with pytest.raises(ValueError, match="dan takes"):
        build_model("dan", embeddings(), layers=3)
