"""The margin objective of Eq. 2-4 with in-batch negatives: MAX (Eq. 5), MIX or RAND (Wieting et al. 2016)."""

from __future__ import annotations

import torch
import torch.nn.functional as F

NEGATIVE_SAMPLING = ("max", "mix", "rand")


def _own_pair_mask(batch: int, device) -> torch.Tensor:
    own = torch.arange(2 * batch, device=device) % batch
    return own.unsqueeze(0) == own.unsqueeze(1)  # 2B x 2B: True where both are of the same pair


def hardest_negatives(g1: torch.Tensor, g2: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """MAX: indices (into cat[g1, g2]) of each sentence's most cosine-similar sentence of *another* pair, chosen as
    the authors' code chooses it (utils.get_pairs_fast, utils.py:64-100). One similarity matrix per batch, no
    loop over pairs. Selection is not differentiated (argmax), but the chosen negatives' embeddings are, as in the
    original code.

    Their details, followed: the cosines are computed in float64 (scipy's ``pdist``: in float32 a near-tie, such as
    a pair's two near-identical sides, is broken otherwise); the pair's own two sentences count as cosine 0 (their
    distance is set to 1), so a sentence whose every candidate has a negative cosine gets its pair's first
    sentence; and ties go to the first candidate in their order, pair by pair, each pair's first sentence before
    its second.
    """
    batch = g1.shape[0]
    with torch.no_grad():
        pool = F.normalize(torch.cat([g1, g2]).double(), dim=1)
        sims = pool @ pool.T
        sims.masked_fill_(_own_pair_mask(batch, g1.device), 0.0)
        theirs = torch.arange(2 * batch, device=g1.device).view(2, batch).T.reshape(-1)  # g1_0, g2_0, g1_1, ...
        best = theirs[sims[:, theirs].argmax(dim=1)]
    return best[:batch], best[batch:]


def random_negatives(g1: torch.Tensor, generator: torch.Generator | None = None) -> tuple[torch.Tensor, torch.Tensor]:
    """RAND: a uniformly random sentence from another pair of the mini-batch, for each side."""
    batch = g1.shape[0]
    # Draw among the 2B - 2 candidates, then skip over the pair's own two positions.
    draw = torch.randint(0, 2 * batch - 2, (2 * batch,), generator=generator).to(g1.device)
    own = torch.arange(2 * batch, device=g1.device) % batch
    pick = draw + (draw >= own).long()  # skip position `own` (first sentence of the pair)
    pick = pick + (pick >= own + batch).long()  # and `own + batch` (its paraphrase)
    return pick[:batch], pick[batch:]


def choose_negatives(g1: torch.Tensor, g2: torch.Tensor, *, sampling: str = "max",
                     generator: torch.Generator | None = None) -> tuple[torch.Tensor, torch.Tensor]:
    """Each pair's negatives t1 (for g1) and t2 (for g2), as indices into cat[g1, g2] (see :func:`margin_loss`)."""
    if g1.shape[0] < 2:
        raise ValueError("in-batch negatives need at least 2 pairs in a batch")
    if sampling not in NEGATIVE_SAMPLING:
        raise ValueError(f"sampling must be one of {NEGATIVE_SAMPLING}")
    if sampling == "mix":
        sampling = "max" if torch.rand((), generator=generator).item() < 0.5 else "rand"
    return hardest_negatives(g1, g2) if sampling == "max" else random_negatives(g1, generator)


def hinge(g1: torch.Tensor, g2: torch.Tensor, t1: torch.Tensor, t2: torch.Tensor, margin: float) -> torch.Tensor:
    """mean over pairs of max(0, δ − cos(g1,g2) + cos(g1,t1)) + max(0, δ − cos(g1,g2) + cos(g2,t2)) (Eq. 2)."""
    positive = F.cosine_similarity(g1, g2)
    loss = F.relu(margin - positive + F.cosine_similarity(g1, t1)) + F.relu(
        margin - positive + F.cosine_similarity(g2, t2)
    )
    return loss.mean()


def margin_loss(g1: torch.Tensor, g2: torch.Tensor, margin: float, *, sampling: str = "max",
                generator: torch.Generator | None = None) -> torch.Tensor:
    """The :func:`hinge` with each pair's negatives chosen from the same embeddings, g1 and g2.

    ``sampling``: "max" (hardest negatives), "rand", or "mix" (MAX with probability 0.5 for the
    mini-batch, RAND otherwise). ``generator`` makes RAND/MIX draws reproducible across a resume.
    """
    n1, n2 = choose_negatives(g1, g2, sampling=sampling, generator=generator)
    pool = torch.cat([g1, g2])
    return hinge(g1, g2, pool[n1], pool[n2], margin)
