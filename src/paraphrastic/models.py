"""Sentence encoders g(s) of Wieting & Gimpel (2017), Sec. 3.1.

Inputs are right-padded id matrices ``tokens`` (B x T) with a float ``mask`` (B x T, 1 = real
token). Every encoder owns the word embeddings W_w; everything else is the compositional W_c.
"""

from __future__ import annotations

import torch
from torch import nn


class SentenceEncoder(nn.Module):
    def __init__(self, embeddings: torch.Tensor):
        super().__init__()
        self.embedding = nn.Embedding.from_pretrained(embeddings.clone(), freeze=False, padding_idx=0)
        # W_w,initial for the λ_w penalty; kept in checkpoints so a resumed job regularises identically.
        self.register_buffer("initial_embeddings", embeddings.clone())

    @property
    def dim(self) -> int:
        """Word-vector dimension."""
        return self.embedding.embedding_dim

    @property
    def output_dim(self) -> int:
        """Sentence-embedding dimension (an LSTM's hidden size may differ from the word vectors')."""
        return self.dim

    def compositional_parameters(self) -> list[nn.Parameter]:
        return [p for name, p in self.named_parameters() if not name.startswith("embedding.")]


def masked_mean(values: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    return (values * mask.unsqueeze(-1)).sum(1) / mask.sum(1, keepdim=True).clamp(min=1.0)


class WordAveraging(SentenceEncoder):
    """avg: the mean of the word embeddings."""

    def forward(self, tokens: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        return masked_mean(self.embedding(tokens), mask)


class PeepholeLSTM(nn.Module):
    """The LSTM of Gers et al. (2003) with peephole connections from the cell to every gate.

    i_t = σ(W_xi x_t + W_hi h_{t-1} + w_ci ⊙ c_{t-1} + b_i)
    f_t = σ(W_xf x_t + W_hf h_{t-1} + w_cf ⊙ c_{t-1} + b_f)
    c_t = f_t ⊙ c_{t-1} + i_t ⊙ tanh(W_xc x_t + W_hc h_{t-1} + b_c)
    o_t = σ(W_xo x_t + W_ho h_{t-1} + w_co ⊙ c_t + b_o)
    h_t = o_t ⊙ tanh(c_t)

    The input projections of all timesteps are one matmul before the recurrence. Initialisation
    follows Lasagne's LSTMLayer defaults, which the original Theano code used: N(0, 0.1) weights and
    peepholes, zero biases, zero initial states.
    """

    def __init__(self, input_dim: int, hidden_dim: int, *, init_std: float = 0.1):
        super().__init__()
        self.hidden_dim = hidden_dim
        self.weight_x = nn.Parameter(torch.randn(input_dim, 4 * hidden_dim) * init_std)
        self.weight_h = nn.Parameter(torch.randn(hidden_dim, 4 * hidden_dim) * init_std)
        self.bias = nn.Parameter(torch.zeros(4 * hidden_dim))
        self.peephole = nn.Parameter(torch.randn(3, hidden_dim) * init_std)  # w_ci, w_cf, w_co

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """x: B x T x d -> hidden states B x T x h (states past a sequence's end are never read)."""
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
            o = torch.sigmoid(gates[:, 3] + w_co * c)
            h = o * torch.tanh(c)
            outputs.append(h)
        return torch.stack(outputs, dim=1)


class LSTMEncoder(SentenceEncoder):
    """lstm (final hidden state h_{-1}) or lstmavg (mean of all hidden states)."""

    def __init__(self, embeddings: torch.Tensor, *, hidden_dim: int | None = None, average: bool = False):
        super().__init__(embeddings)
        self.lstm = PeepholeLSTM(self.dim, hidden_dim or self.dim)
        self.average = average

    @property
    def output_dim(self) -> int:
        return self.lstm.hidden_dim

    def forward(self, tokens: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        states = self.lstm(self.embedding(tokens))
        if self.average:
            return masked_mean(states, mask)
        last = mask.sum(1).long().clamp(min=1) - 1
        return states[torch.arange(states.shape[0], device=states.device), last]


class GatedRecurrentAveraging(SentenceEncoder):
    """GRAN (Eq. 1): a_t = x_t ⊙ σ(W_x x_t + W_h h_t + b), averaged over t.

    h_t comes from a peephole LSTM over the same words. With the gate forced to ones this is avg.
    """

    def __init__(self, embeddings: torch.Tensor, *, hidden_dim: int | None = None):
        super().__init__(embeddings)
        hidden = hidden_dim or self.dim
        self.lstm = PeepholeLSTM(self.dim, hidden)
        self.gate_x = nn.Linear(self.dim, self.dim, bias=True)
        self.gate_h = nn.Linear(hidden, self.dim, bias=False)

    def gates(self, tokens: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """(x, σ(W_x x_t + W_h h_t + b)) for every position; also used for the gate analysis."""
        x = self.embedding(tokens)
        states = self.lstm(x)
        return x, torch.sigmoid(self.gate_x(x) + self.gate_h(states))

    def forward(self, tokens: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        x, gate = self.gates(tokens)
        return masked_mean(x * gate, mask)


MODELS = {
    "avg": lambda emb, **kw: WordAveraging(emb),
    "lstm": lambda emb, **kw: LSTMEncoder(emb, hidden_dim=kw.get("hidden_dim"), average=False),
    "lstmavg": lambda emb, **kw: LSTMEncoder(emb, hidden_dim=kw.get("hidden_dim"), average=True),
    "gran": lambda emb, **kw: GatedRecurrentAveraging(emb, hidden_dim=kw.get("hidden_dim")),
}


def build_model(name: str, embeddings: torch.Tensor, **options) -> SentenceEncoder:
    if name not in MODELS:
        raise KeyError(f"unknown model {name!r}; known: {sorted(MODELS)}")
    return MODELS[name](embeddings, **options)
