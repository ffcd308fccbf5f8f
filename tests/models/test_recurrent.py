"""The recurrent cells: the peephole LSTM against its equations, and the fused kernels (the LSTM's, GRAN-3/4's gated
sum) against autograd."""

from __future__ import annotations

import pytest
import torch

from paraphrastic.models.encoders import build_model
from paraphrastic.models.recurrent import (
    FusedGatedSum,
    FusedPeepholeLSTM,
    PeepholeLSTM,
    gated_sum_autograd,
    peephole_lstm_autograd,
    reverse_padded,
)


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
        o = torch.sigmoid(zo + w_co * c) if cell.output_gate else torch.ones_like(c)
        h = o * torch.tanh(c)
        out.append(h)
    return torch.stack(out)


@pytest.mark.parametrize("output_gate", [True, False])
def test_peephole_lstm_matches_the_equations(output_gate):
    torch.manual_seed(0)
    cell = PeepholeLSTM(5, 4, output_gate=output_gate)
    x = torch.randn(2, 7, 5)
    batched = cell(x)
    for row in range(2):
        torch.testing.assert_close(batched[row], reference_peephole_lstm(cell, x[row]))


@pytest.mark.parametrize("output_gate", [True, False])
def test_fused_backward_passes_gradcheck(output_gate):
    """The hand-written backward pass against finite differences, for the input and every parameter,
    on a padded batch (lengths 5, 2, 4: the running prefix shrinks and reorders)."""
    torch.manual_seed(2)
    cell = PeepholeLSTM(3, 4, output_gate=output_gate).double()
    with torch.no_grad():
        cell.bias.normal_()  # nonzero biases and peepholes exercise every term
    x = torch.randn(3, 5, 3, dtype=torch.double, requires_grad=True)
    lengths = torch.tensor([5, 2, 4])
    params = (cell.weight_x, cell.weight_h, cell.bias, cell.peephole)
    assert torch.autograd.gradcheck(lambda x, *p: FusedPeepholeLSTM.apply(x, lengths, *p, output_gate), (x, *params))


@pytest.mark.parametrize("output_gate", [True, False])
def test_fused_kernel_matches_autograd_on_every_real_token_and_skips_padding(output_gate):
    torch.manual_seed(3)
    cell = PeepholeLSTM(6, 5, output_gate=output_gate)
    lengths = [9, 3, 7, 1, 9, 0, 5]  # an empty row too: it never runs and its outputs stay 0
    x = torch.randn(len(lengths), 9, 6)
    mask = (torch.arange(9).unsqueeze(0) < torch.tensor(lengths).unsqueeze(1)).float()
    x = (x * mask.unsqueeze(-1)).requires_grad_()
    weights = torch.randn(len(lengths), 9, 5) * mask.unsqueeze(-1)  # a loss that reads every real state
    grads = []
    for fn in (lambda: cell(x, mask), lambda: peephole_lstm_autograd(x, cell.weight_x, cell.weight_h, cell.bias,
                                                                     cell.peephole, output_gate)):
        cell.zero_grad()
        x.grad = None
        out = fn()
        (out * weights).sum().backward()
        real = (out * mask.unsqueeze(-1)).detach()
        grads.append((real, x.grad.clone(), *(p.grad.clone() for p in cell.parameters())))
    for fused, reference in zip(*grads, strict=True):
        torch.testing.assert_close(fused, reference, rtol=1e-5, atol=1e-6)
    assert (cell(x, mask)[mask == 0] == 0).all()  # padding is not computed
    empty = torch.zeros(2, 4, 6, requires_grad=True)  # a batch with no token at all
    cell(empty, torch.zeros(2, 4)).sum().backward()
    assert (empty.grad == 0).all()


def test_reverse_padded_is_its_own_inverse():
    values = torch.arange(8.0).view(2, 4, 1)
    mask = torch.tensor([[1, 1, 1, 0], [1, 1, 0, 0]], dtype=torch.float)
    once = reverse_padded(values, mask)
    assert once[:, :, 0].tolist() == [[2, 1, 0, 3], [5, 4, 6, 7]]
    torch.testing.assert_close(reverse_padded(once, mask), values)


@pytest.mark.parametrize("with_weight_a", [False, True], ids=["gran3", "gran4"])
def test_fused_gated_sum_passes_gradcheck(with_weight_a):
    """GRAN-3/4's hand-written backward pass against finite differences, on a padded batch with an empty row."""
    torch.manual_seed(4)
    lengths = torch.tensor([5, 2, 0, 4])
    x = torch.randn(4, 5, 3, dtype=torch.double, requires_grad=True)
    pre = torch.randn(4, 5, 2, 3, dtype=torch.double, requires_grad=True)
    inputs = (x, pre, torch.randn(3, 6, dtype=torch.double, requires_grad=True)) if with_weight_a else (x, pre)
    assert torch.autograd.gradcheck(lambda x, pre, *w: FusedGatedSum.apply(x, pre, lengths, *(w or (None,))), inputs)


@pytest.mark.parametrize("with_weight_a", [False, True], ids=["gran3", "gran4"])
def test_fused_gated_sum_matches_autograd_and_ignores_padding(with_weight_a):
    torch.manual_seed(5)
    lengths = [9, 3, 7, 1, 9, 5]
    mask = (torch.arange(9).unsqueeze(0) < torch.tensor(lengths).unsqueeze(1)).float()
    x = torch.randn(len(lengths), 9, 6, requires_grad=True)
    pre = torch.randn(len(lengths), 9, 2, 6, requires_grad=True)
    weight_a = (torch.randn(6, 12) * 0.3).requires_grad_() if with_weight_a else None
    leaves = [t for t in (x, pre, weight_a) if t is not None]
    weights = torch.randn(len(lengths), 6)
    results = []
    for fn in (lambda: FusedGatedSum.apply(x, pre, mask.sum(1).long(), weight_a),
               lambda: gated_sum_autograd(x, pre, mask, weight_a)):
        for leaf in leaves:
            leaf.grad = None
        out = fn()
        (out * weights).sum().backward()
        results.append((out.detach(), *(leaf.grad.clone() for leaf in leaves)))
    for fused, reference in zip(*results, strict=True):
        torch.testing.assert_close(fused, reference, rtol=1e-5, atol=1e-6)
    # what follows a sentence's last token changes nothing
    noisy = x.detach() + torch.randn_like(x) * (1 - mask).unsqueeze(-1)
    torch.testing.assert_close(FusedGatedSum.apply(noisy, pre.detach(), mask.sum(1).long(), weight_a),
                               results[0][0])


@pytest.mark.parametrize("name", ["gran3", "gran4"])
def test_gran3_and_gran4_give_the_step_by_step_recurrence(name):
    """The encoders through the fused sum equal the equations run step by step with autograd (the code they had)."""
    torch.manual_seed(6)
    model = build_model(name, torch.randn(12, 5))
    tokens = torch.tensor([[2, 3, 4, 5], [6, 7, 0, 0], [8, 0, 0, 0]])
    mask = (tokens != 0).float()
    model(tokens, mask).pow(2).sum().backward()
    fused = {n: p.grad.clone() for n, p in model.named_parameters()}
    model.zero_grad()
    x = model.embed(tokens)
    pre = model.gate_preactivations(x, model.states(x, mask))
    reference = gated_sum_autograd(x, pre, mask, model.weight_a()) / mask.sum(1, keepdim=True)
    reference.pow(2).sum().backward()
    torch.testing.assert_close(model(tokens, mask), reference)
    for n, p in model.named_parameters():
        torch.testing.assert_close(p.grad, fused[n], rtol=1e-5, atol=1e-6, msg=n)
