"""Sentence encoders g(s): Wieting & Gimpel (2017) Sec. 3.1 and Wieting et al. (2016) Sec. 3.

Inputs are right-padded id matrices ``tokens`` (B x T) with a float ``mask`` (B x T, 1 = real
token). Every encoder owns the word embeddings W_w; everything else is the compositional W_c.
A model is chosen by name from :data:`MODELS`; its options travel with it in model.pt.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

from paraphrastic.models.recurrent import ElmanRNN, FusedGatedSum, PeepholeLSTM, reverse_padded

# The values the penalties pull parameters back to (initial_embeddings, and initial_<parameter> where λ_c regularises
# towards initial values) are buffers whose names start with this. They are not saved: a job builds them again from
# its inputs exactly as it first did (the vectors file, or a universal run's transfer model; the checkpoint's
# fingerprint covers both), so a resumed job regularises identically, and a model file or checkpoint holds the
# vocabulary's vectors once rather than twice. Files written before kept them: load_weights drops them.
ANCHOR = "initial_"


def load_weights(module: nn.Module, state: dict) -> None:
    """``module.load_state_dict(state)``, strict, after dropping the anchors a file written before they stopped
    being saved holds (``encoder.initial_embeddings``, ...): a model's own anchors are the ones it was built with."""
    module.load_state_dict({k: v for k, v in state.items() if not k.rpartition(".")[2].startswith(ANCHOR)})


class SentenceEncoder(nn.Module):
    """Word embeddings with the input regularisers of Sec. 4.2 (dropout and word dropout).

    ``tags`` adds SOS/EOS tokens around every sentence (footnote 4); the vocabulary supplies them.
    """

    #: iRNN regularises W_c towards its initial values instead of towards zero.
    regularize_to_initial = False

    def __init__(self, embeddings: torch.Tensor, *, dropout: float = 0.0, word_dropout: float = 0.0,
                 word_dropout_rescale: bool = True, tags: str = "none"):
        super().__init__()
        self.embedding = nn.Embedding.from_pretrained(embeddings.clone(), freeze=False, padding_idx=0)
        # W_w,initial for the λ_w penalty: an anchor (see ANCHOR), rebuilt with the model, never saved.
        self.register_buffer("initial_embeddings", embeddings.clone(), persistent=False)
        self.dropout = dropout
        self.word_dropout = word_dropout
        self.word_dropout_rescale = word_dropout_rescale
        self.tags = tags

    @property
    def dim(self) -> int:
        """Word-vector dimension."""
        return self.embedding.embedding_dim

    @property
    def output_dim(self) -> int:
        """Sentence-embedding dimension (an LSTM's hidden size may differ from the word vectors')."""
        return self.dim

    def embed(self, tokens: torch.Tensor) -> torch.Tensor:
        x = self.embedding(tokens)
        if self.training and self.word_dropout:
            # Word dropout (Iyyer et al., 2015): drop whole word vectors. The authors' Lasagne DropoutLayer scales
            # the kept ones by 1/(1 − p) (rescale=True, lasagne/noise.py); word_dropout_rescale=False does not.
            keep = (torch.rand(tokens.shape, device=x.device) >= self.word_dropout).unsqueeze(-1)
            x = x * (keep / (1.0 - self.word_dropout)) if self.word_dropout_rescale else x * keep
        if self.training and self.dropout:
            x = F.dropout(x, self.dropout, training=True)
        return x

    def compositional_parameters(self) -> list[nn.Parameter]:
        return [p for name, p in self.named_parameters() if not name.startswith("embedding.")]

    def remember_initial_compositional(self) -> None:
        for name, p in self.named_parameters():
            if not name.startswith("embedding."):
                self.register_buffer(ANCHOR + name.replace(".", "_"), p.detach().clone(), persistent=False)

    def initial_compositional(self) -> list[torch.Tensor]:
        return [getattr(self, ANCHOR + name.replace(".", "_")) for name, _ in self.named_parameters()
                if not name.startswith("embedding.")]


def masked_mean(values: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    return (values * mask.unsqueeze(-1)).sum(1) / mask.sum(1, keepdim=True).clamp(min=1.0)


def last_state(states: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    last = mask.sum(1).long().clamp(min=1) - 1
    return states[torch.arange(states.shape[0], device=states.device), last]


def _glorot(layer: nn.Linear) -> nn.Linear:
    # Lasagne's DenseLayer default, as in the original code.
    nn.init.xavier_uniform_(layer.weight)
    if layer.bias is not None:
        nn.init.zeros_(layer.bias)
    return layer


class WordAveraging(SentenceEncoder):
    """avg (PARAGRAM-PHRASE): the mean of the word embeddings."""

    def forward(self, tokens: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        return masked_mean(self.embed(tokens), mask)


class Projection(SentenceEncoder):
    """proj: W_p (mean of the word embeddings) + b."""

    def __init__(self, embeddings: torch.Tensor, **kw):
        super().__init__(embeddings, **kw)
        self.projection = _glorot(nn.Linear(self.dim, self.dim))

    def forward(self, tokens, mask):
        return self.projection(masked_mean(self.embed(tokens), mask))


class DeepAveraging(SentenceEncoder):
    """dan (Iyyer et al., 2015): the mean of the word embeddings through 1-2 nonlinear layers."""

    def __init__(self, embeddings: torch.Tensor, *, layers: int = 1, activation: str = "tanh", **kw):
        super().__init__(embeddings, **kw)
        if layers not in (1, 2) or activation not in ("tanh", "relu"):
            raise ValueError("dan takes layers 1 or 2 and activation tanh or relu")
        self.layers = nn.ModuleList(_glorot(nn.Linear(self.dim, self.dim)) for _ in range(layers))
        self.activation = torch.tanh if activation == "tanh" else torch.relu

    def forward(self, tokens, mask):
        h = masked_mean(self.embed(tokens), mask)
        for layer in self.layers:
            h = self.activation(layer(h))
        return h


class RecurrentNetwork(SentenceEncoder):
    """rnn: the last hidden state of h_t = f(W_x x_t + W_h h_{t-1} + b), f tanh or ReLU."""

    def __init__(self, embeddings: torch.Tensor, *, activation: str = "tanh", hidden_dim: int | None = None, **kw):
        super().__init__(embeddings, **kw)
        if activation not in ("tanh", "relu"):
            raise ValueError("rnn takes activation tanh or relu")
        self.rnn = ElmanRNN(self.dim, hidden_dim or self.dim, activation=activation)

    @property
    def output_dim(self) -> int:
        return self.rnn.hidden_dim

    def forward(self, tokens, mask):
        return last_state(self.rnn(self.embed(tokens)), mask)


class IdentityRNN(SentenceEncoder):
    """irnn: identity-initialised weights, zero bias, identity activation, final state / length.

    Untrained it is exactly avg; its W_c is regularised towards those initial values.
    """

    regularize_to_initial = True

    def __init__(self, embeddings: torch.Tensor, **kw):
        super().__init__(embeddings, **kw)
        self.rnn = ElmanRNN(self.dim, self.dim, activation="identity", identity_init=True)
        self.remember_initial_compositional()

    def forward(self, tokens, mask):
        return last_state(self.rnn(self.embed(tokens)), mask) / mask.sum(1, keepdim=True).clamp(min=1.0)


class _Contextual(SentenceEncoder):
    """Shared by the LSTM models: h_t from a (bi)directional peephole LSTM.

    For Bi-models the forward and backward states are combined at each step, by their sum or by
    one tanh feed-forward layer over their concatenation (the two ways the paper tunes).
    """

    def __init__(self, embeddings: torch.Tensor, *, hidden_dim: int | None = None, output_gate: bool = True,
                 bidirectional: bool = False, combine: str = "sum", **kw):
        super().__init__(embeddings, **kw)
        hidden = hidden_dim or self.dim
        self.lstm = PeepholeLSTM(self.dim, hidden, output_gate=output_gate)
        self.bidirectional = bidirectional
        if bidirectional:
            if combine not in ("sum", "ff"):
                raise ValueError("combine must be sum or ff")
            self.backward_lstm = PeepholeLSTM(self.dim, hidden, output_gate=output_gate)
            self.combine = combine
            if combine == "ff":
                self.combiner = _glorot(nn.Linear(2 * hidden, hidden))

    @property
    def hidden_dim(self) -> int:
        return self.lstm.hidden_dim

    def states(self, x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        if not self.bidirectional:
            return self.lstm(x, mask)
        return self.combined(*self.directional_states(x, mask))

    def directional_states(self, x: torch.Tensor, mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """A Bi-model's forward and backward LSTM states, each at its own position."""
        return self.lstm(x, mask), reverse_padded(self.backward_lstm(reverse_padded(x, mask), mask), mask)

    def combined(self, forward: torch.Tensor, backward: torch.Tensor) -> torch.Tensor:
        """The two directions' values at each step: their sum, or a tanh layer over their concatenation."""
        if self.combine == "sum":
            return forward + backward
        return torch.tanh(self.combiner(torch.cat([forward, backward], dim=-1)))


class LSTMEncoder(_Contextual):
    """lstm (final hidden state h_{-1}), lstmavg / bilstmavg (mean of all hidden states)."""

    def __init__(self, embeddings: torch.Tensor, *, average: bool = False, **kw):
        super().__init__(embeddings, **kw)
        self.average = average

    @property
    def output_dim(self) -> int:
        return self.hidden_dim

    def forward(self, tokens, mask):
        states = self.states(self.embed(tokens), mask)
        return masked_mean(states, mask) if self.average else last_state(states, mask)


# GRAN's gate weights: N(0, 0.1²) and a zero bias (the authors' layer), or nn.Linear's uniform default
GATE_INITS = ("normal", "uniform")


class GatedRecurrentAveraging(_Contextual):
    """GRAN and its variants (Sec. 3.1); h_t comes from a peephole LSTM over the same words.

    1: a_t = x_t ⊙ σ(W_x x_t + W_h h_t + b), averaged (Eq. 1). With the gate forced open this is avg.
    2: a_t = h_t ⊙ σ(W_x x_t + W_h h_t + b), averaged.
    3: a_t = x_t ⊙ σ(W_x1 x_t + W_h1 h_t + b_1) + a_{t-1} ⊙ σ(W_x2 x_t + W_h2 h_t + b_2); a_{-1} / length.
    4: as 3, with W_a a_{t-1} inside both gates.
    5: a_t = x_t ⊙ σ(W_x1 x_t + W_h1 h_t + b_1) + h_t ⊙ σ(W_x2 x_t + W_h2 h_t + b_2), averaged (``gran5_readout:
       mean``, the paper's "reduced to word averaging or averaging LSTM states") or the last token's (``last``, the
       authors' code: models.py:182-185).
    bigran: variant 1 over bidirectional states. ``gate_per_direction``: each direction's GRAN has its own gate,
       a_t = x_t ⊙ σ(W_xf x_t + W_hf h_t^f + b_f) combined with x_t ⊙ σ(W_xb x_t + W_hb h_t^b + b_b) as the states
       are (the authors' code: two GRAN layers, models.py:187-205); else one gate over the combined states.

    The two options' defaults here are the older architectures, which model files written before them hold; the
    training settings choose the authors' (configuration/settings.py).
    """

    def __init__(self, embeddings: torch.Tensor, *, variant: int = 1, gate_init: str = "normal",
                 gran5_readout: str = "mean", gate_per_direction: bool = False, **kw):
        super().__init__(embeddings, **kw)
        if gran5_readout not in ("mean", "last"):
            raise ValueError("gran5_readout must be mean or last")
        self.gran5_readout = gran5_readout
        self.gate_per_direction = self.bidirectional and gate_per_direction
        if self.gate_per_direction and self.combine == "ff":
            # the combination is of the gated words (d each), not of the LSTM states
            self.combiner = _glorot(nn.Linear(2 * self.dim, self.dim))
        if variant not in (1, 2, 3, 4, 5):
            raise ValueError("GRAN variants are 1-5")
        if variant == 2 and self.hidden_dim != self.dim:
            raise ValueError("GRAN-2 gates h_t with a word-sized gate: hidden_dim must equal the vector size")
        if variant == 5 and self.hidden_dim != self.dim:
            raise ValueError("GRAN-5 sums gated x_t and h_t: hidden_dim must equal the vector size")
        self.variant = variant
        gates = 1 if variant in (1, 2) and not self.gate_per_direction else 2
        self.gate_x = nn.ModuleList(nn.Linear(self.dim, self.dim, bias=True) for _ in range(gates))
        self.gate_h = nn.ModuleList(nn.Linear(self.hidden_dim, self.dim, bias=False) for _ in range(gates))
        if variant == 4:
            self.gate_a = nn.ModuleList(nn.Linear(self.dim, self.dim, bias=False) for _ in range(gates))
        if gate_init not in GATE_INITS:
            raise ValueError(f"gate_init must be one of {GATE_INITS}")
        if gate_init == "normal":  # the authors' layer (lasagne_gran_layer.py:119-137): Normal(0.1), zero bias
            for layer in (*self.gate_x, *self.gate_h, *getattr(self, "gate_a", ())):
                nn.init.normal_(layer.weight, 0.0, 0.1)
                if layer.bias is not None:
                    nn.init.zeros_(layer.bias)

    @property
    def output_dim(self) -> int:
        return self.dim

    def gates(self, tokens: torch.Tensor, mask: torch.Tensor | None = None) -> tuple[torch.Tensor, torch.Tensor]:
        """(x, σ(W_x x_t + W_h h_t + b)) at every position for GRAN-1/2; used by the gate analysis."""
        if self.variant not in (1, 2) or self.gate_per_direction:
            raise ValueError("per-token gates are defined for GRAN-1 and GRAN-2 (one gate a token)")
        mask = torch.ones(tokens.shape, device=tokens.device) if mask is None else mask
        x = self.embed(tokens)
        states = self.states(x, mask)
        return x, torch.sigmoid(self.gate_x[0](x) + self.gate_h[0](states))

    def forward(self, tokens, mask):
        x = self.embed(tokens)
        if self.gate_per_direction:
            gated = [x * torch.sigmoid(gx(x) + gh(h)) for gx, gh, h in
                     zip(self.gate_x, self.gate_h, self.directional_states(x, mask), strict=True)]
            return masked_mean(self.combined(*gated), mask)
        states = self.states(x, mask)
        if self.variant in (1, 2):
            gate = torch.sigmoid(self.gate_x[0](x) + self.gate_h[0](states))
            return masked_mean((x if self.variant == 1 else states) * gate, mask)
        pre = self.gate_preactivations(x, states)
        if self.variant == 5:
            words = x * torch.sigmoid(pre[:, :, 0]) + states * torch.sigmoid(pre[:, :, 1])
            return last_state(words, mask) if self.gran5_readout == "last" else masked_mean(words, mask)
        # GRAN-3/4: a running gated sum of the words, read at each sequence's last token.
        lengths = mask.sum(1, keepdim=True)
        return FusedGatedSum.apply(x, pre, lengths.squeeze(1).long(), self.weight_a()) / lengths.clamp(min=1.0)

    def gate_preactivations(self, x: torch.Tensor, states: torch.Tensor) -> torch.Tensor:
        """GRAN-3/4/5's two gates' W_x x_t + W_h h_t + b at every position, stacked: B x T x 2 x d."""
        return torch.stack([gx(x) + gh(states) for gx, gh in zip(self.gate_x, self.gate_h, strict=True)], dim=2)

    def weight_a(self) -> torch.Tensor | None:
        """GRAN-4's W_a of both gates as one d x 2d matrix (a_{t-1} W_a gives both gates' terms); None otherwise."""
        if self.variant != 4:
            return None
        return torch.cat([ga.weight.t() for ga in self.gate_a], dim=1)


MODEL_OPTIONS = {"hidden_dim", "output_gate", "combine", "layers", "activation", "dropout", "word_dropout",
                 "word_dropout_rescale", "gate_init", "gran5_readout", "gate_per_direction", "tags"}
_COMMON = ("dropout", "word_dropout", "word_dropout_rescale", "tags")

MODELS = {
    "avg": (WordAveraging, {}, ()),
    "proj": (Projection, {}, ()),
    "dan": (DeepAveraging, {}, ("layers", "activation")),
    "rnn": (RecurrentNetwork, {}, ("activation", "hidden_dim")),
    "irnn": (IdentityRNN, {}, ()),
    "lstm": (LSTMEncoder, {"average": False}, ("hidden_dim", "output_gate")),
    "lstmavg": (LSTMEncoder, {"average": True}, ("hidden_dim", "output_gate")),
    "bilstmavg": (LSTMEncoder, {"average": True, "bidirectional": True}, ("hidden_dim", "output_gate", "combine")),
    "gran": (GatedRecurrentAveraging, {"variant": 1}, ("hidden_dim", "gate_init")),
    "gran2": (GatedRecurrentAveraging, {"variant": 2}, ("gate_init",)),
    "gran3": (GatedRecurrentAveraging, {"variant": 3}, ("hidden_dim", "gate_init")),
    "gran4": (GatedRecurrentAveraging, {"variant": 4}, ("hidden_dim", "gate_init")),
    "gran5": (GatedRecurrentAveraging, {"variant": 5}, ("gate_init", "gran5_readout")),
    "bigran": (GatedRecurrentAveraging, {"variant": 1, "bidirectional": True}, ("hidden_dim", "combine",
                                                                                 "gate_init", "gate_per_direction")),
}


def build_model(name: str, embeddings: torch.Tensor, **options) -> SentenceEncoder:
    """Build a registered encoder; options a model does not take are ignored, unknown ones rejected."""
    if name not in MODELS:
        raise KeyError(f"unknown model {name!r}; known: {sorted(MODELS)}")
    unknown = set(options) - MODEL_OPTIONS
    if unknown:
        raise KeyError(f"unknown model option(s) {sorted(unknown)}; known: {sorted(MODEL_OPTIONS)}")
    cls, fixed, accepted = MODELS[name]
    chosen = {k: v for k, v in options.items() if v is not None and (k in accepted or k in _COMMON)}
    return cls(embeddings, **fixed, **chosen)
