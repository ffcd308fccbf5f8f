"""Eq. 4's penalties: λ_c on the compositional parameters (towards their initial values for the iRNN), λ_w on
the word embeddings."""

import torch

from paraphrastic.losses.regularization import regularization
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
