"""He & Lin (2016): the vectorised layers against Algorithms 1 and 2 as printed, and the model's invariances."""

from __future__ import annotations

import math

import pytest
import torch

from paraphrastic.models.pwim import CHANNELS, DeepConvNet, PairwiseWordInteraction, focus_mask, similarity_cube

PADDING = 32
HIDDEN = 4


def random_states(lengths: list[int], hidden: int, seed: int, dtype=torch.float64) -> torch.Tensor:
    """BiLSTM-like states (B, max len, 2*hidden), zero past each length."""
    g = torch.Generator().manual_seed(seed)
    states = torch.randn(len(lengths), max(lengths), 2 * hidden, generator=g, dtype=dtype)
    for row, length in enumerate(lengths):
        states[row, length:] = 0
    return states


def comparison_unit(a: torch.Tensor, b: torch.Tensor) -> list[float]:
    """Eq. 10 written out for one pair of vectors."""
    return [float(a @ b / (a.norm() * b.norm())), float((a - b).norm()), float(a @ b)]


def reference_cube(states1, states2, lengths1, lengths2, hidden, padding):
    """Algorithm 1 as printed: a loop over (t, s), then zero padding to padding x padding (Sec. 7)."""
    cube = torch.zeros(len(lengths1), CHANNELS, padding, padding, dtype=torch.float64)
    for b, (len1, len2) in enumerate(zip(lengths1, lengths2, strict=True)):
        for t in range(len1):
            for s in range(len2):
                bi1, bi2 = states1[b, t], states2[b, s]
                for1, back1 = bi1[:hidden], bi1[hidden:]  # unpack (Eq. 9)
                for2, back2 = bi2[:hidden], bi2[hidden:]
                values = (comparison_unit(bi1, bi2) + comparison_unit(for1, for2) + comparison_unit(back1, back2)
                          + comparison_unit(for1 + back1, for2 + back2) + [1.0])
                cube[b, :, t, s] = torch.tensor(values, dtype=torch.float64)
    return cube


def reference_focus(cube, lengths1, lengths2):
    """Algorithm 2 as printed, per pair: a full sort, then the sequential loop with s1tag/s2tag.

    Returns the mask and, per pair, the cells each pass tagged. Sorts are stable, so ties keep row-major order.
    """
    mask = torch.full(cube.shape, 0.1, dtype=cube.dtype)
    selections = []
    for b, (len1, len2) in enumerate(zip(lengths1, lengths2, strict=True)):
        cells = [(t, s) for t in range(len1) for s in range(len2)]
        cosine_order = sorted(cells, key=lambda ts: -float(cube[b, 9, ts[0], ts[1]]))
        distance_order = sorted(cells, key=lambda ts: float(cube[b, 10, ts[0], ts[1]]))  # smallest = most similar
        passes = []
        for order in (cosine_order, distance_order):
            s1tag, s2tag = [0] * len1, [0] * len2
            tagged = []
            for pos_s1, pos_s2 in order:
                if s1tag[pos_s1] + s2tag[pos_s2] == 0:
                    s1tag[pos_s1] = 1
                    s2tag[pos_s2] = 1
                    mask[b, :, pos_s1, pos_s2] = 1
                    tagged.append((pos_s1, pos_s2))
            passes.append(tagged)
        selections.append(passes)
    mask[:, 12] = 1
    return mask, selections


LENGTHS1 = [5, 1, 7, 3, 9]
LENGTHS2 = [4, 6, 1, 3, 9]


def test_similarity_cube_matches_algorithm_1():
    states1 = random_states(LENGTHS1, HIDDEN, seed=1)
    states2 = random_states(LENGTHS2, HIDDEN, seed=2)
    cube = similarity_cube(states1, states2, torch.tensor(LENGTHS1), torch.tensor(LENGTHS2), hidden=HIDDEN,
                           padding=PADDING)
    expected = reference_cube(states1, states2, LENGTHS1, LENGTHS2, HIDDEN, PADDING)
    assert cube.shape == (len(LENGTHS1), CHANNELS, PADDING, PADDING)
    torch.testing.assert_close(cube, expected, atol=1e-5, rtol=1e-5)
    for b, (len1, len2) in enumerate(zip(LENGTHS1, LENGTHS2, strict=True)):
        assert torch.all(cube[b, 12, :len1, :len2] == 1)
        outside = torch.ones(PADDING, PADDING, dtype=torch.bool)
        outside[:len1, :len2] = False
        assert torch.all(cube[b][:, outside] == 0)


def test_similarity_cube_ignores_states_past_the_length():
    states1 = random_states(LENGTHS1, HIDDEN, seed=3)
    states2 = random_states(LENGTHS2, HIDDEN, seed=4)
    lengths1, lengths2 = torch.tensor(LENGTHS1), torch.tensor(LENGTHS2)
    clean = similarity_cube(states1, states2, lengths1, lengths2, hidden=HIDDEN, padding=PADDING)
    noisy1, noisy2 = states1.clone(), states2.clone()
    for b, (len1, len2) in enumerate(zip(LENGTHS1, LENGTHS2, strict=True)):
        noisy1[b, len1:] = 7.0
        noisy2[b, len2:] = -3.0
    assert torch.equal(similarity_cube(noisy1, noisy2, lengths1, lengths2, hidden=HIDDEN, padding=PADDING), clean)


def test_similarity_cube_gradients_are_finite_for_zero_and_identical_states():
    states1 = random_states([3, 2], HIDDEN, seed=5, dtype=torch.float32)
    states1[0, 1] = 0  # a zero state inside the sentence: cosine and norms at 0
    states2 = states1.clone()  # identical states: L2 distance 0
    states1.requires_grad_(True)
    states2.requires_grad_(True)
    lengths = torch.tensor([3, 2])
    cube = similarity_cube(states1, states2, lengths, lengths, hidden=HIDDEN, padding=PADDING)
    assert torch.isfinite(cube).all()
    cube.sum().backward()
    assert torch.isfinite(states1.grad).all() and torch.isfinite(states2.grad).all()


def test_similarity_cube_rejects_sentences_longer_than_the_padding():
    states = random_states([PADDING + 1], HIDDEN, seed=6)
    lengths = torch.tensor([PADDING + 1])
    with pytest.raises(ValueError):
        similarity_cube(states, states, lengths, lengths, hidden=HIDDEN, padding=PADDING)


def check_focus(cube, lengths1, lengths2):
    mask = focus_mask(cube, torch.tensor(lengths1), torch.tensor(lengths2))
    expected, selections = reference_focus(cube, lengths1, lengths2)
    assert mask.shape == cube.shape and not mask.requires_grad
    torch.testing.assert_close(mask, expected, atol=0, rtol=0)
    for b, (len1, len2) in enumerate(zip(lengths1, lengths2, strict=True)):
        by_cosine, by_distance = selections[b]
        assert len(by_cosine) == len(by_distance) == min(len1, len2)
        important = mask[b, 0] == 1
        assert int(important.sum()) == len(set(by_cosine) | set(by_distance))
        assert not important[len1:].any() and not important[:, len2:].any()
        # every channel but the indicator carries the same weights
        assert torch.all(mask[b, :12] == mask[b, :1])


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_focus_mask_matches_algorithm_2(seed):
    lengths1 = [5, 1, 7, 3, 9, 1, 12]
    lengths2 = [4, 6, 1, 3, 9, 1, 2]
    g = torch.Generator().manual_seed(seed)
    cube = torch.randn(len(lengths1), CHANNELS, PADDING, PADDING, generator=g, dtype=torch.float64)
    check_focus(cube, lengths1, lengths2)


def test_focus_mask_matches_algorithm_2_with_ties():
    lengths1 = [6, 4, 8]
    lengths2 = [5, 8, 8]
    g = torch.Generator().manual_seed(3)
    cube = torch.randint(0, 3, (3, CHANNELS, PADDING, PADDING), generator=g).double()
    check_focus(cube, lengths1, lengths2)


def test_focus_mask_on_a_real_cube():
    states1 = random_states(LENGTHS1, HIDDEN, seed=7, dtype=torch.float32)
    states2 = random_states(LENGTHS2, HIDDEN, seed=8, dtype=torch.float32)
    cube = similarity_cube(states1, states2, torch.tensor(LENGTHS1), torch.tensor(LENGTHS2), hidden=HIDDEN,
                           padding=PADDING)
    check_focus(cube, LENGTHS1, LENGTHS2)


@pytest.mark.parametrize("padding", [32, 48])
def test_deep_convnet_gives_log_probabilities(padding):
    torch.manual_seed(0)
    net = DeepConvNet(padding, classes=5, fc_dim=16)
    logp = net(torch.randn(3, CHANNELS, padding, padding))
    assert logp.shape == (3, 5)
    torch.testing.assert_close(logp.exp().sum(1), torch.ones(3))
    # Table 1: both configurations pool down to a 1x1 map of 128 channels
    assert net.features(torch.zeros(1, CHANNELS, padding, padding)).shape == (1, 128, 1, 1)


def test_deep_convnet_rejects_other_paddings():
    with pytest.raises(ValueError):
        DeepConvNet(40, classes=5)


def tiny_embeddings(vocab: int = 30, dim: int = 6) -> torch.Tensor:
    g = torch.Generator().manual_seed(0)
    weights = torch.randn(vocab, dim, generator=g)
    weights[0] = 0
    return weights


def tiny_model(**kwargs) -> PairwiseWordInteraction:
    torch.manual_seed(0)
    return PairwiseWordInteraction(tiny_embeddings(), classes=5, hidden_dim=HIDDEN, fc_dim=16, **kwargs).eval()


def pad_batch(sentences: list[list[int]], extra: int = 0) -> tuple[torch.Tensor, torch.Tensor]:
    width = max(map(len, sentences)) + extra
    tokens = torch.zeros(len(sentences), width, dtype=torch.long)
    for row, sentence in enumerate(sentences):
        tokens[row, :len(sentence)] = torch.tensor(sentence)
    return tokens, torch.tensor([len(sentence) for sentence in sentences])


FIRSTS = [[3, 4, 5, 6], [7], [8, 9, 10, 11, 12, 13, 14], [15, 16]]
SECONDS = [[3, 5, 6], [7, 8, 9, 2, 1], [20], [15, 16]]


def test_a_pair_does_not_depend_on_its_batch_or_padding():
    model = tiny_model()
    with torch.no_grad():
        together = model(*pad_batch(FIRSTS), *pad_batch(SECONDS))
        padded = model(*pad_batch(FIRSTS, extra=3), *pad_batch(SECONDS, extra=5))
        alone = torch.cat([model(*pad_batch([first]), *pad_batch([second]))
                           for first, second in zip(FIRSTS, SECONDS, strict=True)])
    assert together.shape == (len(FIRSTS), 5)
    torch.testing.assert_close(together, alone, atol=1e-5, rtol=1e-5)
    torch.testing.assert_close(padded, alone, atol=1e-5, rtol=1e-5)


def test_sentences_longer_than_the_padding_are_truncated():
    model = tiny_model()
    g = torch.Generator().manual_seed(1)
    long = torch.randint(1, 30, (PADDING + 5,), generator=g).tolist()
    other = [3, 4, 5]
    with torch.no_grad():
        full = model(*pad_batch([long]), *pad_batch([other]))
        cut = model(*pad_batch([long[:PADDING]]), *pad_batch([other]))
        swapped = model(*pad_batch([other]), *pad_batch([long]))
        swapped_cut = model(*pad_batch([other]), *pad_batch([long[:PADDING]]))
    torch.testing.assert_close(full, cut)
    torch.testing.assert_close(swapped, swapped_cut)


def kl_style_loss(logp: torch.Tensor, seed: int = 0) -> torch.Tensor:
    g = torch.Generator().manual_seed(seed)
    target = torch.softmax(torch.randn(logp.shape, generator=g), dim=1)
    return -(target * logp).sum(1).mean()


def test_only_the_lstm_and_convnet_learn():
    model = tiny_model().train()
    kl_style_loss(model(*pad_batch(FIRSTS), *pad_batch(SECONDS))).backward()
    assert not model.embedding.weight.requires_grad and model.embedding.weight.grad is None
    for name, parameter in model.named_parameters():
        if name.startswith(("lstm.", "convnet.")):
            assert parameter.grad is not None and parameter.grad.abs().sum() > 0, name
    embedding_size = model.embedding.weight.numel()
    assert model.parameter_count() == sum(p.numel() for p in model.parameters()) - embedding_size


def test_gradients_are_finite_for_identical_sentences():
    model = tiny_model().train()
    tokens, lengths = pad_batch(FIRSTS)
    kl_style_loss(model(tokens, lengths, tokens.clone(), lengths.clone())).backward()
    for name, parameter in model.named_parameters():
        if parameter.grad is not None:
            assert torch.isfinite(parameter.grad).all(), name


def test_ablations_run_and_change_the_output():
    full = tiny_model()
    without_focus = tiny_model(focus=False)
    without_context = tiny_model(context=False)
    without_focus.load_state_dict(full.state_dict())
    without_context.convnet.load_state_dict(full.convnet.state_dict())
    assert without_context.lstm is None
    batch = (*pad_batch(FIRSTS), *pad_batch(SECONDS))
    with torch.no_grad():
        outputs = [model(*batch) for model in (full, without_focus, without_context)]
    for output in outputs:
        assert output.shape == (len(FIRSTS), 5) and torch.isfinite(output).all()
    assert not torch.allclose(outputs[0], outputs[1])
    assert not torch.allclose(outputs[0], outputs[2])
    kl_style_loss(without_context.train()(*batch)).backward()
    assert without_context.convnet.features[0].weight.grad is not None


def test_empty_sentences_are_rejected():
    model = tiny_model()
    tokens, lengths = pad_batch(FIRSTS)
    with pytest.raises(ValueError):
        model(tokens, lengths, tokens, torch.tensor([3, 0, 1, 2]))


def conv_parameters(in_channels: int, out_channels: int) -> int:
    return in_channels * out_channels * 9 + out_channels


@pytest.mark.parametrize("dim", [50, 300])
def test_parameter_count_follows_table_1(dim):
    model = PairwiseWordInteraction(torch.zeros(3, dim), classes=5, hidden_dim=250, padding=48)
    widths = [CHANNELS, 128, 164, 192, 192, 128]
    convnet = sum(conv_parameters(a, b) for a, b in zip(widths, widths[1:], strict=False))
    fully_connected = 128 * 128 + 128 + 128 * 5 + 5
    # PyTorch's LSTM keeps two bias vectors per gate; per direction 4 gates of W (250 x dim) and U (250 x 250)
    lstm = 2 * (4 * 250 * (dim + 250) + 2 * 4 * 250)
    assert model.parameter_count() == convnet + fully_connected + lstm
    if dim == 50:
        assert math.isclose(model.parameter_count(), 1.7e6, rel_tol=0.05)  # Table 9


@pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA device")
def test_runs_on_cuda():
    model = tiny_model().cuda()
    tokens1, lengths1 = pad_batch(FIRSTS)
    tokens2, lengths2 = pad_batch(SECONDS)
    with torch.no_grad():
        on_cpu = tiny_model()(tokens1, lengths1, tokens2, lengths2)
        on_gpu = model(tokens1.cuda(), lengths1.cuda(), tokens2.cuda(), lengths2.cuda())
    torch.testing.assert_close(on_gpu.cpu(), on_cpu, atol=1e-4, rtol=1e-4)
