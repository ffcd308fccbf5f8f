"""The similarity head of the supervised experiments (Tai et al. 2015)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from paraphrastic.losses.kl import kl_loss, target_distribution
from paraphrastic.models.heads import SimilarityHead


def test_gradcheck_through_head_and_loss():
    torch.manual_seed(0)
    head = SimilarityHead(7, 5, 1, 5).double()
    left, right = (torch.randn(3, 7, dtype=torch.float64, requires_grad=True) for _ in range(2))
    p = target_distribution(torch.tensor([1.7, 4.0, 2.2]), 1, 5)
    assert torch.autograd.gradcheck(lambda a, b: kl_loss(head(a, b), p), (left, right))
    params = list(head.parameters())
    assert torch.autograd.gradcheck(lambda *w: kl_loss(torch.func.functional_call(
        head, dict(zip([n for n, _ in head.named_parameters()], w, strict=True)), (left.detach(), right.detach())),
        p), [w.detach().clone().requires_grad_() for w in params])


def test_head_on_a_hand_worked_example():
    head = SimilarityHead(2, 1, 1, 3)  # 2-d sentences, one hidden unit, classes 1..3
    with torch.no_grad():
        head.product.weight.copy_(torch.tensor([[1.0, 0.0]]))  # reads h×[0]
        head.difference.weight.copy_(torch.tensor([[0.0, -2.0]]))  # reads h+[1]
        head.difference.bias.fill_(0.5)
        head.output.weight.copy_(torch.tensor([[0.0], [1.0], [2.0]]))
        head.output.bias.zero_()
    left, right = torch.tensor([[2.0, 1.0]]), torch.tensor([[0.5, 3.0]])
    # h× = (1, 3), h+ = (1.5, 2): h_s = σ(1·1 − 2·2 + 0.5) = σ(−2.5); logits (0, h_s, 2 h_s)
    h = 1 / (1 + np.exp(2.5))
    p = np.exp([0, h, 2 * h]) / np.exp([0, h, 2 * h]).sum()
    assert np.allclose(head(left, right).exp().detach().numpy()[0], p, atol=1e-6)
    assert head.score(head(left, right)).item() == pytest.approx(float(p @ [1, 2, 3]), abs=1e-6)
    assert torch.allclose(head(left, right), head(right, left))  # h× and h+ are symmetric
