"""Siamese CBOW's objective: cross-entropy of the cosine softmax against 1/|S+|."""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F

from paraphrastic.losses.siamese import siamese_loss


def test_loss_is_cross_entropy_of_the_cosine_softmax_against_one_over_positives():
    torch.manual_seed(0)
    center, candidates = torch.randn(3, 5), torch.randn(3, 4, 5)
    positive = torch.tensor([[True, True, False, False]] * 3)
    present = torch.tensor([[True, True, True, True], [False, True, True, True], [True, True, True, True]])
    loss = siamese_loss(center, candidates, positive, present)
    expected = []
    for i in range(3):
        keep = present[i]
        cos = F.cosine_similarity(center[i][None], candidates[i][keep])
        p = torch.softmax(cos, 0)
        pos = positive[i][keep]
        expected.append(-(torch.log(p[pos])).mean())  # target 1/|S+| on each present neighbour
    assert torch.allclose(loss, torch.stack(expected).mean(), atol=1e-6)
    # the paper's example: 2 positives, 2 negatives -> target (0.5, 0.5, 0, 0); its minimum is finite
    ideal = siamese_loss(torch.ones(1, 2), torch.tensor([[[1.0, 1.0], [1.0, 1.0], [-1.0, -1.0], [-1.0, -1.0]]]),
                            positive[:1], present[:1])
    assert math.isclose(float(ideal), -math.log(math.e / (2 * math.e + 2 / math.e)), rel_tol=1e-5)
