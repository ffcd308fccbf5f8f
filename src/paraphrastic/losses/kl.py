"""The KL loss of the supervised heads (Tai et al. 2015, Eq. 6-7): a gold score y becomes the sparse
distribution p with mass on ⌊y⌋ and ⌊y⌋ + 1 such that rᵀp = y; the loss is the mean KL(p ‖ p̂)."""

from __future__ import annotations

import torch


def target_distribution(scores: torch.Tensor, low: int, high: int) -> torch.Tensor:
    """Tai et al.'s sparse target p (Eq. 6) over the classes low..high, one row per score.

    p puts y − ⌊y⌋ on ⌊y⌋ + 1 and ⌊y⌋ − y + 1 on ⌊y⌋, so that Σ_i i·p_i = y (an integer score is one-hot).
    """
    scores = scores.to(torch.float64)
    if bool(((scores < low) | (scores > high)).any()):
        raise ValueError(f"scores must lie in [{low}, {high}]")
    floor = torch.floor(scores)
    upper = scores - floor
    classes = high - low + 1
    p = torch.zeros(len(scores), classes + 1, dtype=torch.float64)  # one spare column for y = high
    index = (floor - low).long().unsqueeze(1)
    p.scatter_(1, index, (1 - upper).unsqueeze(1))
    p.scatter_(1, index + 1, upper.unsqueeze(1))
    return p[:, :classes]


def kl_loss(log_predicted: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    """Eq. 7: mean over pairs of KL(p ‖ p̂) = Σ_i p_i (log p_i − log p̂_i), with 0 · log 0 = 0."""
    return (torch.xlogy(target, target) - target * log_predicted).sum(dim=1).mean()
