"""The similarity head of the supervised experiments (Tai et al. 2015; Sec. 4.3 of the paper).

For a pair with embeddings h_L, h_R: h× = h_L ⊙ h_R, h+ = |h_L − h_R|, h_s = σ(W× h× + W+ h+ + b_h),
p̂ = softmax(W_p h_s + b_p), and the predicted score is ŷ = rᵀp̂ with r = [low .. high].
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

from paraphrastic.models.encoders import SentenceEncoder


class SimilarityHead(nn.Module):
    """h_L, h_R -> log p̂ over the score classes (the layers above the two sentence embeddings)."""

    def __init__(self, dim: int, hidden: int, low: int, high: int):
        super().__init__()
        self.low, self.high = low, high
        self.product = nn.Linear(dim, hidden, bias=False)  # W×
        self.difference = nn.Linear(dim, hidden)  # W+ and b_h
        self.output = nn.Linear(hidden, high - low + 1)  # W_p, b_p
        for layer in (self.product, self.difference, self.output):
            nn.init.xavier_uniform_(layer.weight)
        nn.init.zeros_(self.difference.bias)
        nn.init.zeros_(self.output.bias)
        self.register_buffer("classes", torch.arange(low, high + 1, dtype=torch.float32))

    def forward(self, left: torch.Tensor, right: torch.Tensor) -> torch.Tensor:
        hidden = torch.sigmoid(self.product(left * right) + self.difference((left - right).abs()))
        return F.log_softmax(self.output(hidden), dim=-1)

    def score(self, log_predicted: torch.Tensor) -> torch.Tensor:
        """ŷ = rᵀp̂."""
        return log_predicted.exp() @ self.classes


class PairScorer(nn.Module):
    """A sentence encoder with the similarity head on top: what one supervised job trains."""

    def __init__(self, encoder: SentenceEncoder, head: SimilarityHead):
        super().__init__()
        self.encoder, self.head = encoder, head

    def forward(self, tokens: torch.Tensor, mask: torch.Tensor, pairs: int) -> torch.Tensor:
        """Rows 0..pairs-1 of ``tokens`` are the left sentences, the next ``pairs`` the right ones."""
        embedded = self.encoder(tokens, mask)
        return self.head(embedded[:pairs], embedded[pairs:])
