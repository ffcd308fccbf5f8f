"""Adam with its ε where the authors' Lasagne adds it (``adam_epsilon: uncorrected``) or where torch adds it
(``corrected``): the first follows Lasagne's update to float rounding, the second is torch's Adam, and a job
resumed from a checkpoint continues the first's schedule."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from paraphrastic.training.epochs import EPSILON, LasagneAdam, adam

# gradients from large to smaller than the first steps' ε: where the two placements part
GRADIENTS = np.array([[1e-2, -3e-4, 2e-6, -5e-8, 0.0]] * 6) * np.linspace(1.0, 0.2, 6)[:, None]


def lasagne_steps(start: np.ndarray, gradients: np.ndarray, lr: float, beta1=0.9, beta2=0.999) -> np.ndarray:
    """Lasagne's adam (lasagne/updates.py:567-631), in float64."""
    param, m, v = start.astype(np.float64), np.zeros_like(start, np.float64), np.zeros_like(start, np.float64)
    for t, g in enumerate(gradients, start=1):
        a_t = lr * math.sqrt(1 - beta2 ** t) / (1 - beta1 ** t)
        m = beta1 * m + (1 - beta1) * g
        v = beta2 * v + (1 - beta2) * g ** 2
        param = param - a_t * m / (np.sqrt(v) + EPSILON)
    return param


# the fused kernel LasagneAdam sets ε for, step by step, is the CPU's or CUDA's
DEVICES = ["cpu", pytest.param("cuda", marks=pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA"))]


def torch_steps(optimizer_of, gradients: np.ndarray, start: np.ndarray, split: int | None = None,
                device: str = "cpu") -> np.ndarray:
    """The parameter after an optimizer's steps on ``device``; with ``split``, the optimizer is rebuilt from its
    state_dict after that many steps, as a resumed job rebuilds it from its checkpoint."""
    param = torch.nn.Parameter(torch.tensor(start, dtype=torch.float64, device=device))
    optimizer = optimizer_of([param])
    for step, g in enumerate(gradients):
        if step == split:
            state = optimizer.state_dict()
            optimizer = optimizer_of([param])
            optimizer.load_state_dict(state)
        param.grad = torch.tensor(g, dtype=torch.float64, device=device)
        optimizer.step()
    return param.detach().cpu().numpy()


@pytest.mark.parametrize("device", DEVICES)
def test_uncorrected_follows_lasagnes_update_where_torchs_adam_does_not(device):
    start = np.ones(GRADIENTS.shape[1])
    theirs = lasagne_steps(start, GRADIENTS, lr=1e-3)
    ours = torch_steps(lambda p: adam(p, 1e-3, epsilon="uncorrected"), GRADIENTS, start, device=device)
    np.testing.assert_allclose(ours, theirs, rtol=0, atol=1e-12)
    corrected = torch_steps(lambda p: adam(p, 1e-3, epsilon="corrected"), GRADIENTS, start, device=device)
    np.testing.assert_allclose(corrected, torch_steps(lambda p: torch.optim.Adam(p, lr=1e-3), GRADIENTS, start,
                                                      device=device), rtol=0, atol=1e-15)
    # the large gradients' weights move alike (to 1%); one whose gradient is 5e-8 moves by a fraction of torch's step
    np.testing.assert_allclose(corrected[:2] - 1, theirs[:2] - 1, rtol=1e-2)
    assert abs(theirs[3] - 1) < 0.3 * abs(corrected[3] - 1)


@pytest.mark.parametrize("device", DEVICES)
def test_a_resumed_optimizer_continues_the_schedule(device):
    start = np.ones(GRADIENTS.shape[1])
    whole = torch_steps(lambda p: LasagneAdam(p, lr=1e-3), GRADIENTS, start, device=device)
    resumed = torch_steps(lambda p: LasagneAdam(p, lr=1e-3), GRADIENTS, start, split=3, device=device)
    np.testing.assert_array_equal(resumed, whole)


def test_an_unknown_placement_is_refused():
    with pytest.raises(ValueError, match="adam_epsilon must be one of"):
        adam([torch.nn.Parameter(torch.zeros(1))], 1e-3, epsilon="lasagne")
