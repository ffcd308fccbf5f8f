"""The recurrent cores the throughput benchmark swaps into a model, and the GEMM-only ceiling.

(a) ``NaivePeepholeLSTM``: the textbook cell, written as the equations read: per timestep, one
    Linear per gate on x_t and on h_{t-1}, autograd through everything.
(a') ``AutogradPeepholeLSTM``: input projections of all steps hoisted into one matmul, autograd
    through every step (the project's implementation before the fused kernel).
(b) the project's ``PeepholeLSTM`` (``FusedPeepholeLSTM``: padding skipped, hand-written backward pass).
(a), (a') and (c) run over the padding, as a plain implementation does.
(c) ``TorchLSTM``: ``nn.LSTM`` (no peepholes), a reference for what the framework's own kernel does.
(d) ``gemm_shapes``: the matrix products (b)'s training step does; timing them alone gives the
    ceiling for the project's kernel (a library with faster products, e.g. oneDNN's packed-weight
    LSTM behind nn.LSTM, can still beat it).
"""

from __future__ import annotations

import time

import torch
from torch import nn

from paraphrastic.models.recurrent import peephole_lstm_autograd


class NaivePeepholeLSTM(nn.Module):
    def __init__(self, input_dim: int, hidden_dim: int, output_gate: bool = True):
        super().__init__()
        self.output_gate = output_gate
        self.hidden_dim = hidden_dim
        self.x_gates = nn.ModuleList(nn.Linear(input_dim, hidden_dim) for _ in range(4))
        self.h_gates = nn.ModuleList(nn.Linear(hidden_dim, hidden_dim, bias=False) for _ in range(4))
        self.peephole = nn.Parameter(torch.randn(3, hidden_dim) * 0.1)

    def forward(self, x: torch.Tensor, mask: torch.Tensor | None = None) -> torch.Tensor:
        h = x.new_zeros(x.shape[0], self.hidden_dim)
        c = x.new_zeros(x.shape[0], self.hidden_dim)
        outputs = []
        for t in range(x.shape[1]):
            x_t, h_prev = x[:, t], h
            i = torch.sigmoid(self.x_gates[0](x_t) + self.h_gates[0](h_prev) + self.peephole[0] * c)
            f = torch.sigmoid(self.x_gates[1](x_t) + self.h_gates[1](h_prev) + self.peephole[1] * c)
            c = f * c + i * torch.tanh(self.x_gates[2](x_t) + self.h_gates[2](h_prev))
            h = torch.tanh(c)
            if self.output_gate:
                h = torch.sigmoid(self.x_gates[3](x_t) + self.h_gates[3](h_prev) + self.peephole[2] * c) * h
            outputs.append(h)
        return torch.stack(outputs, dim=1)


class AutogradPeepholeLSTM(nn.Module):
    def __init__(self, cell: nn.Module):
        super().__init__()
        self.cell = cell

    def forward(self, x: torch.Tensor, mask: torch.Tensor | None = None) -> torch.Tensor:
        c = self.cell
        return peephole_lstm_autograd(x, c.weight_x, c.weight_h, c.bias, c.peephole, c.output_gate)


class TorchLSTM(nn.Module):
    def __init__(self, input_dim: int, hidden_dim: int):
        super().__init__()
        self.lstm = nn.LSTM(input_dim, hidden_dim, batch_first=True)

    def forward(self, x: torch.Tensor, mask: torch.Tensor | None = None) -> torch.Tensor:
        return self.lstm(x)[0]


CORES = {
    "naive": lambda cell: NaivePeepholeLSTM(cell.weight_x.shape[0], cell.hidden_dim, cell.output_gate),
    "autograd": AutogradPeepholeLSTM,
    "fused": lambda cell: cell,
    "nn.LSTM": lambda cell: TorchLSTM(cell.weight_x.shape[0], cell.hidden_dim),
}


def with_core(model: nn.Module, core: str) -> nn.Module:
    """The model with its LSTM(s) replaced by the named core (the same sizes)."""
    for attr in ("lstm", "backward_lstm"):
        if hasattr(model, attr):
            setattr(model, attr, CORES[core](getattr(model, attr)))
    return model


def gemm_shapes(model_name: str, lengths: list[int], steps: int, dim: int, hidden: int) -> list[tuple[int, int, int]]:
    """(m, k, n) of every matrix product in one forward + backward pass of the encoder, as the project's
    kernel does them, on a batch of sentences with these ``lengths`` padded to ``steps``; plus the
    hardest-negative similarity matrix. The recurrence covers real tokens only (step t: the sentences
    still running); GRAN's gate layers run over the padded batch, as models/encoders.py applies them."""
    sentences, padded = len(lengths), len(lengths) * steps
    tokens = int(sum(lengths))
    running = [sum(1 for n in lengths if n > t) for t in range(steps)]
    shapes = []
    if model_name != "avg":
        directions = 2 if model_name.startswith("bi") else 1
        per_direction = [(tokens, dim, 4 * hidden)]  # input projections
        per_direction += [(n, hidden, 4 * hidden) for n in running[1:] if n]  # h_{t-1} W_h (h_{-1} = 0)
        per_direction += [(n, 4 * hidden, hidden) for n in running if n]  # backward: dgates W_h^T
        # backward: dx, dW_x, dW_h
        per_direction += [(tokens, 4 * hidden, dim), (dim, tokens, 4 * hidden), (hidden, tokens, 4 * hidden)]
        shapes += per_direction * directions
    if "gran" in model_name:
        for fan_in in (dim, hidden):  # the gate's W_x x_t and W_h h_t: forward, input gradient, weight gradient
            shapes += [(padded, fan_in, dim), (padded, dim, fan_in), (fan_in, padded, dim)]
    shapes.append((sentences, dim, sentences))
    return shapes


def time_gemms(shapes: list[tuple[int, int, int]], repeats: int = 1) -> float:
    """Seconds for the products alone (operands allocated beforehand; distinct shapes share operands)."""
    operands = {s: (torch.randn(s[0], s[1]), torch.randn(s[1], s[2])) for s in set(shapes)}
    for a, b in operands.values():  # warm up each shape once
        a @ b
    start = time.perf_counter()
    for _ in range(repeats):
        for s in shapes:
            a, b = operands[s]
            a @ b
    return (time.perf_counter() - start) / repeats
