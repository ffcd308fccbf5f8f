"""The recurrent cells: the peephole LSTM against its equations, and the fused kernel against autograd."""

from __future__ import annotations

import pytest
import torch

from paraphrastic.models.recurrent import FusedPeepholeLSTM, PeepholeLSTM, peephole_lstm_autograd, reverse_padded


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
