"""Eq. 4's penalties: λ_c on the compositional parameters (towards their initial values for the iRNN), λ_w on
the word embeddings."""

import pytest
import torch

from paraphrastic.losses.regularization import SquaredDistance, regularization
from paraphrastic.models.encoders import build_model


def test_regularization_terms():
    emb = torch.ones(4, 3)
    model = build_model("lstmavg", emb)
    with torch.no_grad():
        model.embedding.weight.add_(0.5)
    expected_w = 0.1 * 0.25 * 12
    expected_c = 0.01 * sum(float(p.detach().pow(2).sum()) for p in model.compositional_parameters())
    torch.testing.assert_close(regularization(model, 0.0, 0.1).item(), expected_w)
    torch.testing.assert_close(regularization(model, 0.01, 0.1).item(), expected_w + expected_c, rtol=1e-5,
                               atol=1e-6)


def test_irnn_is_regularised_towards_its_initial_weights():
    model = build_model("irnn", torch.randn(5, 3))
    assert regularization(model, 1.0, 0.0).item() == 0.0  # untrained: at its initial values
    with torch.no_grad():
        model.rnn.weight_h.add_(0.1)
    torch.testing.assert_close(regularization(model, 1.0, 0.0).item(), 9 * 0.01)


def test_the_word_penalty_has_autograds_gradient_exactly():
    """λ_w's penalty computes its gradient itself (one temporary the size of the embeddings, not three): the same
    gradient as autograd's (W − W0)² sum, bit for bit, beside the model's own loss; the value to rounding."""
    torch.manual_seed(0)
    model = build_model("lstmavg", torch.randn(50, 8))
    with torch.no_grad():
        model.embedding.weight.add_(0.1 * torch.randn(50, 8))
    ids = torch.tensor([[1, 2, 3], [4, 5, 0]])

    def gradients(penalty) -> tuple[float, dict]:
        model.zero_grad()
        loss = model(ids, torch.tensor([[1, 1, 1], [1, 1, 0]], dtype=torch.bool)).pow(2).sum() + penalty()
        loss.backward()
        return loss.item(), {name: p.grad.clone() for name, p in model.named_parameters() if p.grad is not None}

    value, ours = gradients(lambda: regularization(model, 0.0, 1e-3))
    reference_value, reference = gradients(
        lambda: 1e-3 * (model.embedding.weight - model.initial_embeddings).pow(2).sum())
    assert ours.keys() == reference.keys() and "embedding.weight" in ours
    assert all(torch.equal(ours[name], reference[name]) for name in ours)
    assert value == pytest.approx(reference_value, rel=1e-6)


def test_the_word_penalty_matches_finite_differences_once():
    weight = torch.randn(6, 4, dtype=torch.double, requires_grad=True)
    initial = torch.randn(6, 4, dtype=torch.double)
    penalty = SquaredDistance.apply(weight, initial, 0.3)
    penalty.backward(retain_graph=True)
    step = torch.zeros_like(weight)
    step[2, 1] = 1e-6
    numeric = (0.3 * ((weight.detach() + step - initial) ** 2).sum() - penalty.detach()) / 1e-6
    assert weight.grad[2, 1].item() == pytest.approx(numeric.item(), rel=1e-4)
    with pytest.raises(RuntimeError, match="back-propagated a second time"):  # its temporary is the gradient
        penalty.backward()
