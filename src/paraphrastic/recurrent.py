"""Recurrent cells, run over right-padded batches (B x T x d); states past a sequence's end are never read."""

from __future__ import annotations

import torch
from torch import nn


class PeepholeLSTM(nn.Module):
    """The LSTM of Gers et al. (2003) with peephole connections from the cell to every gate.

    i_t = σ(W_xi x_t + W_hi h_{t-1} + w_ci ⊙ c_{t-1} + b_i)
    f_t = σ(W_xf x_t + W_hf h_{t-1} + w_cf ⊙ c_{t-1} + b_f)
    c_t = f_t ⊙ c_{t-1} + i_t ⊙ tanh(W_xc x_t + W_hc h_{t-1} + b_c)
    o_t = σ(W_xo x_t + W_ho h_{t-1} + w_co ⊙ c_t + b_o)
    h_t = o_t ⊙ tanh(c_t)            (without the output gate: h_t = tanh(c_t), Wieting et al. 2016)

    The input projections of all timesteps are one matmul before the recurrence. Initialisation
    follows Lasagne's LSTMLayer defaults, which the original Theano code used: N(0, 0.1) weights and
    peepholes, zero biases, zero initial states.
    """

    def __init__(self, input_dim: int, hidden_dim: int, *, output_gate: bool = True, init_std: float = 0.1):
        super().__init__()
        self.hidden_dim = hidden_dim
        self.output_gate = output_gate
        self.weight_x = nn.Parameter(torch.randn(input_dim, 4 * hidden_dim) * init_std)
        self.weight_h = nn.Parameter(torch.randn(hidden_dim, 4 * hidden_dim) * init_std)
        self.bias = nn.Parameter(torch.zeros(4 * hidden_dim))
        self.peephole = nn.Parameter(torch.randn(3, hidden_dim) * init_std)  # w_ci, w_cf, w_co

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        batch, steps, _ = x.shape
        projected = torch.addmm(self.bias, x.reshape(batch * steps, -1), self.weight_x).view(batch, steps, 4, -1)
        h = x.new_zeros(batch, self.hidden_dim)
        c = x.new_zeros(batch, self.hidden_dim)
        w_ci, w_cf, w_co = self.peephole
        outputs = []
        for t in range(steps):
            gates = projected[:, t] + (h @ self.weight_h).view(batch, 4, -1)
            i = torch.sigmoid(gates[:, 0] + w_ci * c)
            f = torch.sigmoid(gates[:, 1] + w_cf * c)
            c = f * c + i * torch.tanh(gates[:, 2])
            h = torch.tanh(c)
            if self.output_gate:
                h = torch.sigmoid(gates[:, 3] + w_co * c) * h
            outputs.append(h)
        return torch.stack(outputs, dim=1)


class ElmanRNN(nn.Module):
    """h_t = f(W_x x_t + W_h h_{t-1} + b) (Wieting et al. 2016, "RNN"; with identity init, "iRNN")."""

    ACTIVATIONS = {"tanh": torch.tanh, "relu": torch.relu, "identity": lambda v: v}

    def __init__(self, input_dim: int, hidden_dim: int, *, activation: str = "tanh", identity_init: bool = False,
                 init_std: float = 0.1):
        super().__init__()
        if activation not in self.ACTIVATIONS:
            raise ValueError(f"activation must be one of {sorted(self.ACTIVATIONS)}")
        if identity_init and input_dim != hidden_dim:
            raise ValueError("an identity-initialised RNN needs hidden_dim == input_dim")
        self.hidden_dim = hidden_dim
        self.activation = activation
        if identity_init:
            self.weight_x = nn.Parameter(torch.eye(input_dim))
            self.weight_h = nn.Parameter(torch.eye(hidden_dim))
        else:
            self.weight_x = nn.Parameter(torch.randn(input_dim, hidden_dim) * init_std)
            self.weight_h = nn.Parameter(torch.randn(hidden_dim, hidden_dim) * init_std)
        self.bias = nn.Parameter(torch.zeros(hidden_dim))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        batch, steps, _ = x.shape
        projected = torch.addmm(self.bias, x.reshape(batch * steps, -1), self.weight_x).view(batch, steps, -1)
        f = self.ACTIVATIONS[self.activation]
        h = x.new_zeros(batch, self.hidden_dim)
        outputs = []
        for t in range(steps):
            h = f(projected[:, t] + h @ self.weight_h)
            outputs.append(h)
        return torch.stack(outputs, dim=1)


def reverse_padded(values: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Reverse each sequence within its own length (padding stays at the end); its own inverse."""
    lengths = mask.sum(1).long()
    steps = torch.arange(values.shape[1], device=values.device).unsqueeze(0)
    index = torch.where(steps < lengths.unsqueeze(1), lengths.unsqueeze(1) - 1 - steps, steps)
    return values.gather(1, index.unsqueeze(-1).expand_as(values))
