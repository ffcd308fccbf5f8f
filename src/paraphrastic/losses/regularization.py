"""Parameter penalties: Eq. 4's λ_c and λ_w (towards zero and the initial word vectors, or for universal
training back to a transfer model's values) and the supervised head's λ_s."""

from __future__ import annotations

import torch

from paraphrastic.errors import TrainingDiverged
from paraphrastic.models.encoders import SentenceEncoder
from paraphrastic.models.heads import SimilarityHead


def regularization(model: SentenceEncoder, lambda_c: float, lambda_w: float) -> torch.Tensor:
    """λ_c‖W_c‖² + λ_w‖W_w,initial − W_w‖² (Eq. 4; the original Theano code scaled both by ½).

    The identity-RNN regularises W_c towards its initial (identity) values instead (2016, Sec. 3).
    """
    total = model.embedding.weight.new_zeros(())
    if lambda_c:
        params = model.compositional_parameters()
        if model.regularize_to_initial:
            total = total + lambda_c * sum((p - p0).pow(2).sum()
                                           for p, p0 in zip(params, model.initial_compositional(), strict=True))
        else:
            total = total + lambda_c * sum(p.pow(2).sum() for p in params)
    if lambda_w:
        total = total + SquaredDistance.apply(model.embedding.weight, model.initial_embeddings, lambda_w)
    return total


class SquaredDistance(torch.autograd.Function):
    """``scale``·‖W − W0‖² and its gradient 2·scale·(W − W0), with one temporary the size of W.

    W is the whole vocabulary's embeddings (62,126 × 256 for the distilled vectors), and autograd's
    ``(W - W0).pow(2).sum()`` allocates three more tensors that size at every step. The gradient is the same
    product autograd computes (scale · 2(W − W0)), so training is unchanged; the loss's value may differ in its
    last bits (another order of summation). The temporary becomes the gradient, so the graph can be
    back-propagated once (as training does), not twice."""

    @staticmethod
    def forward(ctx, weight: torch.Tensor, initial: torch.Tensor, scale: float) -> torch.Tensor:
        difference = weight.detach() - initial
        ctx.difference, ctx.scale = difference, scale
        flat = difference.reshape(-1)
        return scale * torch.dot(flat, flat)

    @staticmethod
    def backward(ctx, grad_output: torch.Tensor):
        difference, ctx.difference = ctx.difference, None
        if difference is None:
            raise RuntimeError("SquaredDistance: the graph was back-propagated a second time (retain_graph); "
                               "its temporary is already the first gradient")
        return difference.mul_(2 * ctx.scale * grad_output), None, None


def with_penalty(loss: torch.Tensor, penalty: torch.Tensor) -> torch.Tensor:
    """The objective plus its penalties, or TrainingDiverged when the penalty is not finite or so large that an
    objective of order one would vanish in the sum (below the penalty's rounding step, about 8e6 in float32): the
    loss no longer depends on the training pairs. λ_w = 1e38 trained that way, on a loss near 1e36, without a word.
    No value of the papers' grids comes near (their penalties stay below 1). One check, one device sync a step."""
    scale = torch.clamp(loss.detach().abs(), min=1.0)
    if (~torch.isfinite(penalty) | (penalty.detach() * torch.finfo(penalty.dtype).eps > scale)).item():
        kind = "overflows" if not torch.isfinite(penalty) else (f"swamps the objective ({loss.item():.4g}) beyond "
                                                                f"{penalty.dtype}'s precision")
        raise TrainingDiverged(f"the λ penalty ({penalty.item():.3g}) {kind}: the loss no longer depends on the "
                               "training pairs; lower lambda_w or lambda_c (or lambda_s)")
    return loss + penalty


def head_regularization(head: SimilarityHead, lambda_s: float) -> torch.Tensor:
    """λ_s ‖W_s‖² over the head's weight matrices (Wieting et al. 2016, Sec. 4.4.1)."""
    if not lambda_s:
        return head.classes.new_zeros(())
    return lambda_s * sum(layer.weight.pow(2).sum() for layer in (head.product, head.difference, head.output))
