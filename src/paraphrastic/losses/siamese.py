"""Siamese CBOW's objective (Kenter et al. 2016, Eq. 1 and Sec. 2.1): a softmax over the cosines of a
sentence to its neighbours and to random sentences, against the target 1/|S+| on every neighbour."""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F


def siamese_loss(center: torch.Tensor, candidates: torch.Tensor, positive: torch.Tensor,
                 present: torch.Tensor) -> torch.Tensor:
    """Categorical cross-entropy of Eq. 1's softmax against the target of Sec. 2.1, mean over sentences.

    center (B, d); candidates (B, K, d): the positives first, then the negatives; positive (B, K) bool;
    present (B, K) bool: False for a missing neighbour (a document's first or last sentence), which
    is left out of the softmax as it is not in S+ ∪ S−.
    """
    logits = F.cosine_similarity(center.unsqueeze(1), candidates, dim=-1, eps=1e-8)
    logits = logits.masked_fill(~present, -math.inf)
    target = (positive & present).float()
    target = target / target.sum(dim=1, keepdim=True)
    log_p = F.log_softmax(logits, dim=1).masked_fill(~present, 0.0)
    return -(target * log_p).sum(dim=1).mean()
