"""Recurrent cells, run over right-padded batches (B x T x d); states past a sequence's end are never read."""

from __future__ import annotations

import itertools

import torch
from torch import nn


class PeepholeLSTM(nn.Module):
    """The LSTM of Gers et al. (2003) with peephole connections from the cell to every gate.

    i_t = σ(W_xi x_t + W_hi h_{t-1} + w_ci ⊙ c_{t-1} + b_i)
    f_t = σ(W_xf x_t + W_hf h_{t-1} + w_cf ⊙ c_{t-1} + b_f)
    c_t = f_t ⊙ c_{t-1} + i_t ⊙ tanh(W_xc x_t + W_hc h_{t-1} + b_c)
    o_t = σ(W_xo x_t + W_ho h_{t-1} + w_co ⊙ c_t + b_o)
    h_t = o_t ⊙ tanh(c_t)            (without the output gate: h_t = tanh(c_t), Wieting et al. 2016)

    The input projections of all real tokens are one matmul before the recurrence, and the recurrence runs
    in :class:`FusedPeepholeLSTM` (padding skipped, a hand-written backward pass). Initialisation
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

    def forward(self, x: torch.Tensor, mask: torch.Tensor | None = None) -> torch.Tensor:
        """States at every position; with ``mask`` (B x T, 1 = real token) those past a sentence's end are 0."""
        if mask is None:
            lengths = torch.full((x.shape[0],), x.shape[1], dtype=torch.long, device=x.device)
        else:
            lengths = mask.sum(1).long()
        return FusedPeepholeLSTM.apply(x, lengths, self.weight_x, self.weight_h, self.bias, self.peephole,
                                       self.output_gate)


def peephole_lstm_autograd(x: torch.Tensor, weight_x: torch.Tensor, weight_h: torch.Tensor, bias: torch.Tensor,
                           peephole: torch.Tensor, output_gate: bool = True) -> torch.Tensor:
    """The same recurrence with autograd recording every step: the reference :class:`FusedPeepholeLSTM` is
    tested against (and a variant the benchmarks time). Input projections are one matmul here too."""
    batch, steps, _ = x.shape
    projected = torch.addmm(bias, x.reshape(batch * steps, -1), weight_x).view(batch, steps, 4, -1)
    h = x.new_zeros(batch, weight_h.shape[0])
    c = x.new_zeros(batch, weight_h.shape[0])
    w_ci, w_cf, w_co = peephole
    outputs = []
    for t in range(steps):
        gates = projected[:, t] + (h @ weight_h).view(batch, 4, -1)
        i = torch.sigmoid(gates[:, 0] + w_ci * c)
        f = torch.sigmoid(gates[:, 1] + w_cf * c)
        c = f * c + i * torch.tanh(gates[:, 2])
        h = torch.tanh(c)
        if output_gate:
            h = torch.sigmoid(gates[:, 3] + w_co * c) * h
        outputs.append(h)
    return torch.stack(outputs, dim=1)


def _packing(lengths: torch.Tensor, steps: int) -> tuple[torch.Tensor, list[int], list[int]]:
    """Where each real (sentence, step) of a B x T batch goes in a time-major packed layout.

    Sentences are taken longest first, so the ones still running at step t are a prefix of those
    running at t-1 (as in cuDNN's packed sequences). Returns the packed entries' flat indices into
    the (B·T) rows of the batch, and each step's row count and offset.
    """
    order = torch.sort(lengths.cpu(), descending=True, stable=True).indices
    sorted_lengths = lengths.cpu()[order]
    running = torch.arange(steps).unsqueeze(1) < sorted_lengths.unsqueeze(0)  # T x B, in the sorted order
    counts = running.sum(1).tolist()
    offsets = list(itertools.accumulate(counts[:-1], initial=0))
    step_index, rank = running.nonzero(as_tuple=True)  # time-major: step t's running rows, in order
    return (order[rank] * steps + step_index).to(lengths.device), counts, offsets


def _previous_rows(counts: list[int], offsets: list[int], device) -> torch.Tensor:
    """Each packed token's row one step earlier, same rank, as an index into the packed rows followed by one row of
    zeros (index ``tokens``, the state before a sentence's first step)."""
    tokens = sum(counts)
    return torch.cat([torch.arange(offsets[t - 1], offsets[t - 1] + n) if t else torch.full((n,), tokens)
                      for t, n in enumerate(counts) if n] or [torch.empty(0, dtype=torch.long)]).to(device)


def _with_zero_row(values: torch.Tensor) -> torch.Tensor:
    return torch.cat([values, values.new_zeros(1, *values.shape[1:])])


class FusedPeepholeLSTM(torch.autograd.Function):
    """The peephole LSTM over a right-padded batch (B x T x d, with lengths) → B x T x h, hand-written backward.

    Why, on a CPU at the paper's sizes (d ≤ 300, batches of 200 sentences):
    - padding: SimpWiki batches are ~70% padding when padded to their longest sentence. Only real
      tokens are computed: sentences run longest first and step t works on the prefix still running
      (outputs past a sentence's end are zero; nothing reads them). This changes no result.
    - autograd's bookkeeping per small kernel costs more than the arithmetic: the forward step is one
      addmm and nine in-place elementwise ops with no graph; the backward step five elementwise ops
      and one matmul, because every factor that does not depend on the incoming gradient (gate
      derivatives, peephole terms) is computed for all steps at once before the loop, and the
      weight gradients are single matmuls over all real tokens after it.
    """

    @staticmethod
    def forward(ctx, x, lengths, weight_x, weight_h, bias, peephole, output_gate: bool):
        batch, steps, dim = x.shape
        hidden_dim = weight_h.shape[0]
        index, counts, offsets = _packing(lengths, steps)
        inputs = x.reshape(batch * steps, dim).index_select(0, index)  # real tokens only, time-major
        tokens = inputs.shape[0]
        # Pre-activations of all tokens in one matmul; each step's rows then become its activations
        # (i, f, z, o) in place, which is all the backward pass needs.
        gates = torch.addmm(bias, inputs, weight_x).view(tokens, 4, hidden_dim)
        cells = x.new_empty(tokens, hidden_dim)
        states = x.new_empty(tokens, hidden_dim)
        tanh_cells = x.new_empty(tokens, hidden_dim)
        zeros = x.new_zeros(counts[0] if counts else 0, hidden_dim)
        in_forget_peep, out_peep = peephole[:2], peephole[2]
        for t, (n, at) in enumerate(zip(counts, offsets, strict=True)):
            if n == 0:
                break
            now = slice(at, at + n)
            before = slice(offsets[t - 1], offsets[t - 1] + n) if t else None
            c_prev = cells[before] if t else zeros[:n]
            step = gates[now]
            if t:
                step.view(n, 4 * hidden_dim).addmm_(states[before], weight_h)
            step[:, :2].addcmul_(c_prev.unsqueeze(1), in_forget_peep).sigmoid_()
            step[:, 2].tanh_()
            c = torch.mul(step[:, 1], c_prev, out=cells[now]).addcmul_(step[:, 0], step[:, 2])
            torch.tanh(c, out=tanh_cells[now])
            if output_gate:
                torch.mul(step[:, 3].addcmul_(c, out_peep).sigmoid_(), tanh_cells[now], out=states[now])
            else:
                states[now].copy_(tanh_cells[now])
        ctx.save_for_backward(index, inputs, weight_x, weight_h, peephole, gates, cells, states, tanh_cells)
        ctx.layout = (batch, steps, counts, offsets)
        ctx.output_gate = output_gate
        out = x.new_zeros(batch * steps, hidden_dim)
        return out.index_copy_(0, index, states).view(batch, steps, hidden_dim)

    @staticmethod
    def backward(ctx, grad_output):
        index, inputs, weight_x, weight_h, peephole, gates, cells, states, tanh_cells = ctx.saved_tensors
        batch, steps, counts, offsets = ctx.layout
        tokens, _, hidden_dim = gates.shape
        grad = grad_output.reshape(batch * steps, hidden_dim).index_select(0, index)
        # c_{t-1} and h_{t-1} of every packed token (zero at t = 0)
        previous = _previous_rows(counts, offsets, index.device)
        c_prev = _with_zero_row(cells).index_select(0, previous)
        h_prev = _with_zero_row(states).index_select(0, previous)
        i, f, z, o = gates.unbind(1)
        w_ci, w_cf, w_co = peephole
        # Gradient factors of every token, vectorised: pre-activation gradient = incoming gradient × factor.
        # aten's sigmoid_backward(g, s) = g·s(1−s) and tanh_backward(g, y) = g·(1−y²) are single fused kernels.
        sigmoid_grad, tanh_grad = torch.ops.aten.sigmoid_backward, torch.ops.aten.tanh_backward
        if ctx.output_gate:
            out_factor = sigmoid_grad(tanh_cells, o)  # dL/d(o pre-activation) = dh × this
            # dL/dc_t gains dh × this: through h = o·tanh(c_t) and through the o gate's peephole
            cell_from_h = tanh_grad(o, tanh_cells).addcmul_(out_factor, w_co)
        else:
            out_factor = None
            cell_from_h = tanh_grad(torch.ones_like(tanh_cells), tanh_cells)
        ifz_factor = gates.new_empty(tokens, 3, hidden_dim)  # × dc_t gives the i, f, z gradients
        sigmoid_grad.grad_input(z, i, grad_input=ifz_factor[:, 0])
        sigmoid_grad.grad_input(c_prev, f, grad_input=ifz_factor[:, 1])
        tanh_grad.grad_input(i, z, grad_input=ifz_factor[:, 2])
        cell_carry = torch.addcmul(f, ifz_factor[:, 0], w_ci).addcmul_(ifz_factor[:, 1], w_cf)  # dc_{t-1}/dc_t
        grad_gates = gates.new_empty(tokens, 4, hidden_dim)
        if out_factor is None:
            grad_gates[:, 3].zero_()
        # Running dh, dc of the sentences in rank order; a sentence's rows stay zero until its last step.
        dh = grad.new_zeros(counts[0] if counts else 0, hidden_dim)
        dc = torch.zeros_like(dh)
        weight_h_t = weight_h.t().contiguous()  # a transposed operand makes each small matmul several times slower
        for t in range(len(counts) - 1, -1, -1):
            n, at = counts[t], offsets[t]
            if n == 0:
                continue
            now = slice(at, at + n)
            step, dh_t, dc_t = grad_gates[now], dh[:n], dc[:n]
            dh_t.add_(grad[now])
            if out_factor is not None:
                torch.mul(dh_t, out_factor[now], out=step[:, 3])
            dc_t.addcmul_(dh_t, cell_from_h[now])
            torch.mul(dc_t.unsqueeze(1), ifz_factor[now], out=step[:, :3])
            dc_t.mul_(cell_carry[now])
            torch.mm(step.view(n, 4 * hidden_dim), weight_h_t, out=dh_t)
        flat = grad_gates.view(tokens, 4 * hidden_dim)
        grad_x = grad_weight_x = grad_weight_h = grad_bias = grad_peephole = None
        if ctx.needs_input_grad[0]:
            grad_x = flat.new_zeros(batch * steps, weight_x.shape[0])
            grad_x = grad_x.index_copy_(0, index, flat @ weight_x.t()).view(batch, steps, -1)
        if ctx.needs_input_grad[2]:
            grad_weight_x = inputs.t() @ flat
        if ctx.needs_input_grad[3]:
            grad_weight_h = h_prev.t() @ flat
        if ctx.needs_input_grad[4]:
            grad_bias = flat.sum(0)
        if ctx.needs_input_grad[5]:
            grad_peephole = torch.cat([(grad_gates[:, :2] * c_prev.unsqueeze(1)).sum(0),
                                       (grad_gates[:, 3] * cells).sum(0).unsqueeze(0)])
        return grad_x, None, grad_weight_x, grad_weight_h, grad_bias, grad_peephole, None


def gated_sum_autograd(x: torch.Tensor, pre: torch.Tensor, mask: torch.Tensor,
                       weight_a: torch.Tensor | None = None) -> torch.Tensor:
    """GRAN-3/4's running gated sum with autograd recording every step: the reference :class:`FusedGatedSum` is
    tested against. ``pre`` (B x T x 2 x d): both gates' pre-activations from x_t and h_t; ``weight_a`` (d x 2d,
    GRAN-4): a_{t-1}'s term in both gates. Returns a at each sentence's last token (B x d)."""
    a = x.new_zeros(x.shape[0], x.shape[2])
    outputs = []
    for t in range(x.shape[1]):
        g = pre[:, t]
        if weight_a is not None:
            g = g + (a @ weight_a).view_as(g)
        a = x[:, t] * torch.sigmoid(g[:, 0]) + a * torch.sigmoid(g[:, 1])
        outputs.append(a)
    last = mask.sum(1).long().clamp(min=1) - 1
    return torch.stack(outputs, dim=1)[torch.arange(x.shape[0], device=x.device), last]


class FusedGatedSum(torch.autograd.Function):
    """GRAN-3/4's running gated sum a_t = x_t ⊙ σ(g0_t) + a_{t-1} ⊙ σ(g1_t), g_t = pre_t (+ a_{t-1} W_a for GRAN-4),
    over a right-padded batch → a at each sentence's last token (B x d), with a hand-written backward pass.

    The same layout and reasons as :class:`FusedPeepholeLSTM`: only real tokens are computed, time-major with the
    sentences still running as a prefix, and each step is a few in-place kernels with no autograd graph (recorded
    step by step, GRAN-3 and GRAN-4 trained 3-7 times slower than GRAN). A sentence with no token gives zeros.
    """

    @staticmethod
    def forward(ctx, x, pre, lengths, weight_a):
        batch, steps, dim = x.shape
        index, counts, offsets = _packing(lengths, steps)
        inputs = x.reshape(batch * steps, dim).index_select(0, index)
        gates = pre.reshape(batch * steps, 2, dim).index_select(0, index)  # becomes σ(g0), σ(g1) in place
        sums = x.new_empty(inputs.shape[0], dim)
        for t, (n, at) in enumerate(zip(counts, offsets, strict=True)):
            if n == 0:
                break
            now = slice(at, at + n)
            step = gates[now]
            if t == 0:
                step.sigmoid_()
                torch.mul(inputs[now], step[:, 0], out=sums[now])
                continue
            before = sums[offsets[t - 1]:offsets[t - 1] + n]
            if weight_a is not None:
                step.view(n, 2 * dim).addmm_(before, weight_a)
            step.sigmoid_()
            torch.mul(inputs[now], step[:, 0], out=sums[now]).addcmul_(before, step[:, 1])
        # each sentence's last token among the packed rows (-1 for a sentence with none)
        position = torch.full((batch * steps,), -1, dtype=torch.long, device=index.device)
        position[index] = torch.arange(index.shape[0], device=index.device)
        last = position[torch.arange(batch, device=index.device) * steps + lengths.to(index.device).clamp(min=1) - 1]
        ctx.save_for_backward(index, inputs, gates, sums, weight_a, last)
        ctx.layout = (batch, steps, counts, offsets)
        out = x.new_zeros(batch, dim)
        out[last >= 0] = sums[last[last >= 0]]
        return out

    @staticmethod
    def backward(ctx, grad_output):
        index, inputs, gates, sums, weight_a, last = ctx.saved_tensors
        batch, steps, counts, offsets = ctx.layout
        tokens, _, dim = gates.shape
        # the output's gradient enters at each sentence's last token (an empty sentence's goes nowhere)
        grad = grad_output.new_zeros(tokens, dim)
        grad[last[last >= 0]] = grad_output[last >= 0]
        s0, s1 = gates.unbind(1)
        sigmoid_grad = torch.ops.aten.sigmoid_backward
        grad_gates = gates.new_zeros(tokens, 2, dim)
        grad_inputs = gates.new_empty(tokens, dim)
        da = grad.new_zeros(counts[0] if counts else 0, dim)  # running dL/da_t of the sentences in rank order
        weight_a_t = None if weight_a is None else weight_a.t().contiguous()
        for t in range(len(counts) - 1, -1, -1):
            n, at = counts[t], offsets[t]
            if n == 0:
                continue
            now = slice(at, at + n)
            da_t = da[:n]
            da_t.add_(grad[now])
            torch.mul(da_t, s0[now], out=grad_inputs[now])
            sigmoid_grad.grad_input(da_t * inputs[now], s0[now], grad_input=grad_gates[now, 0])
            if t == 0:
                break
            before = sums[offsets[t - 1]:offsets[t - 1] + n]
            sigmoid_grad.grad_input(da_t * before, s1[now], grad_input=grad_gates[now, 1])
            da_t.mul_(s1[now])
            if weight_a_t is not None:
                da_t.addmm_(grad_gates[now].view(n, 2 * dim), weight_a_t)
        grad_x = grad_pre = grad_weight_a = None
        if ctx.needs_input_grad[0]:
            grad_x = grad_inputs.new_zeros(batch * steps, dim).index_copy_(0, index, grad_inputs)
            grad_x = grad_x.view(batch, steps, dim)
        if ctx.needs_input_grad[1]:
            grad_pre = grad_gates.new_zeros(batch * steps, 2, dim).index_copy_(0, index, grad_gates)
            grad_pre = grad_pre.view(batch, steps, 2, dim)
        if weight_a is not None and ctx.needs_input_grad[3]:
            # a_{t-1} of every packed token (zero at t = 0)
            a_prev = _with_zero_row(sums).index_select(0, _previous_rows(counts, offsets, sums.device))
            grad_weight_a = a_prev.t() @ grad_gates.view(tokens, 2 * dim)
        return grad_x, grad_pre, None, grad_weight_a


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
