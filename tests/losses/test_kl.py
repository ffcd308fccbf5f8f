"""The KL loss of the supervised heads: Tai et al.'s sparse target distribution and KL(p ‖ p̂)."""

from __future__ import annotations

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from paraphrastic.losses.kl import kl_loss, target_distribution


def test_integer_scores_are_one_hot():
    p = target_distribution(torch.tensor([1.0, 3.0, 5.0]), 1, 5)
    assert torch.equal(p, torch.tensor([[1, 0, 0, 0, 0], [0, 0, 1, 0, 0], [0, 0, 0, 0, 1]], dtype=torch.float64))


def test_fractional_scores_split_between_floor_and_floor_plus_one():
    # y = 3.6 in [1, 5]: p_3 = ⌊y⌋ − y + 1 = 0.4, p_4 = y − ⌊y⌋ = 0.6
    p = target_distribution(torch.tensor([3.6]), 1, 5)[0]
    assert torch.allclose(p, torch.tensor([0, 0, 0.4, 0.6, 0], dtype=torch.float64))
    # STS scores on 0-5: six classes 0..5
    p = target_distribution(torch.tensor([0.25, 4.8]), 0, 5)
    assert torch.allclose(p, torch.tensor([[0.75, 0.25, 0, 0, 0, 0], [0, 0, 0, 0, 0.2, 0.8]], dtype=torch.float64))


def test_target_is_a_distribution_whose_expectation_is_the_score():
    scores = torch.tensor(np.random.default_rng(0).uniform(1, 5, size=200))
    p = target_distribution(scores, 1, 5)
    assert torch.allclose(p.sum(1), torch.ones(200, dtype=torch.float64))
    assert (p >= 0).all() and ((p > 0).sum(1) <= 2).all()
    assert torch.allclose(p @ torch.arange(1, 6, dtype=torch.float64), scores)  # rᵀp = y


def test_scores_outside_the_range_are_rejected():
    with pytest.raises(ValueError, match=r"\[1, 5\]"):
        target_distribution(torch.tensor([0.5]), 1, 5)


def test_kl_loss_matches_the_definition_and_torch():
    p = target_distribution(torch.tensor([3.6, 1.0, 4.2]), 1, 5)
    log_q = F.log_softmax(torch.randn(3, 5, dtype=torch.float64), dim=1)
    by_hand = sum(sum(pi * (np.log(pi) - lq) for pi, lq in zip(row_p.tolist(), row_q.tolist(), strict=True) if pi > 0)
                  for row_p, row_q in zip(p, log_q, strict=True)) / 3
    assert kl_loss(log_q, p).item() == pytest.approx(by_hand, rel=1e-12)
    assert kl_loss(log_q, p).item() == pytest.approx(F.kl_div(log_q, p, reduction="batchmean").item(), rel=1e-12)
    assert kl_loss(torch.log(p.clamp_min(1e-300)), p).item() == pytest.approx(0.0, abs=1e-12)  # KL(p ‖ p) = 0


def test_kl_gradient_with_respect_to_the_logits_is_softmax_minus_target():
    logits = torch.randn(4, 6, dtype=torch.float64, requires_grad=True)
    p = target_distribution(torch.tensor([0.0, 2.5, 3.3, 5.0]), 0, 5)
    kl_loss(F.log_softmax(logits, dim=1), p).backward()
    assert torch.allclose(logits.grad, (F.softmax(logits, dim=1) - p) / 4)
