"""The margin objective of Eq. 2-4 with hardest in-batch negatives (Eq. 5, "MAX")."""

from __future__ import annotations

import torch
import torch.nn.functional as F

from .models import SentenceEncoder


def hardest_negatives(g1: torch.Tensor, g2: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Indices (into cat[g1, g2]) of the most cosine-similar sentence from *another* pair.

    Candidates are both sentences of every other pair in the mini-batch; a pair's own two
    sentences are excluded. One similarity matrix per batch, no loop over pairs. Selection is not
    differentiated (argmax), but the chosen negatives' embeddings are, as in the original code.
    """
    batch = g1.shape[0]
    with torch.no_grad():
        pool = F.normalize(torch.cat([g1, g2]), dim=1)
        sims = pool @ pool.T  # 2B x 2B
        own = torch.arange(2 * batch, device=g1.device) % batch
        sims.masked_fill_(own.unsqueeze(0) == own.unsqueeze(1), float("-inf"))
        best = sims.argmax(dim=1)
    return best[:batch], best[batch:]


def margin_loss(g1: torch.Tensor, g2: torch.Tensor, margin: float) -> torch.Tensor:
    """mean over pairs of max(0, δ − cos(g1,g2) + cos(g1,t1)) + max(0, δ − cos(g1,g2) + cos(g2,t2))."""
    if g1.shape[0] < 2:
        raise ValueError("hardest in-batch negatives need at least 2 pairs in a batch")
    n1, n2 = hardest_negatives(g1, g2)
    pool = torch.cat([g1, g2])
    positive = F.cosine_similarity(g1, g2)
    loss = F.relu(margin - positive + F.cosine_similarity(g1, pool[n1])) + F.relu(
        margin - positive + F.cosine_similarity(g2, pool[n2])
    )
    return loss.mean()


def regularization(model: SentenceEncoder, lambda_c: float, lambda_w: float) -> torch.Tensor:
    """λ_c‖W_c‖² + λ_w‖W_w,initial − W_w‖² (Eq. 4; the original Theano code scaled both by ½)."""
    total = model.embedding.weight.new_zeros(())
    if lambda_c:
        total = total + lambda_c * sum(p.pow(2).sum() for p in model.compositional_parameters())
    if lambda_w:
        total = total + lambda_w * (model.embedding.weight - model.initial_embeddings).pow(2).sum()
    return total
