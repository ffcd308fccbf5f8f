"""Training throughput (sentence pairs/s) on batches with SimpWiki's length distribution."""

from __future__ import annotations

import time

import numpy as np
import torch
from cells import gemm_shapes, time_gemms, with_core

from paraphrastic.configuration.settings import TransferSettings
from paraphrastic.data.batching import length_bucketed, pad, padding_ratio
from paraphrastic.losses.margin import margin_loss
from paraphrastic.models.encoders import build_model
from paraphrastic.training.epochs import adam


def sample_batches(lengths: np.ndarray, pairs: int, count: int, rng: np.random.Generator,
                   bucket_window: int | None = None) -> list[np.ndarray]:
    """``count`` batches of an epoch (random, or batched by length), each a (pairs x 2) array of lengths."""
    order = rng.permutation(len(lengths))
    if bucket_window:
        order = length_bucketed(order, lengths.max(1), pairs, bucket_window, rng)
    batches = [order[i : i + pairs] for i in range(0, len(order) - pairs + 1, pairs)]
    return [lengths[batches[i]] for i in rng.choice(len(batches), size=min(count, len(batches)), replace=False)]


def batch_padding(batches: list[np.ndarray]) -> float:
    return padding_ratio([list(b[:, 0]) + list(b[:, 1]) for b in batches])


def token_batches(batches, vocab_size: int, rng: np.random.Generator):
    out = []
    for b in batches:
        sentences = [list(rng.integers(2, vocab_size, n)) for n in list(b[:, 0]) + list(b[:, 1])]
        out.append(pad(sentences))
    return out


def train_seconds(model, batches, *, warmup: int = 1) -> float:
    """Seconds for the timed batches: forward, MAX margin loss, backward and Adam, as training/transfer.py does."""
    optimizer = adam(model.parameters(), 1e-3, epsilon=TransferSettings.adam_epsilon)  # the pipeline's default
    model.train()

    def step(tokens, mask):
        embedded = model(tokens, mask)
        half = tokens.shape[0] // 2
        loss = margin_loss(embedded[:half], embedded[half:], 0.4)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()

    for tokens, mask in batches[:warmup]:
        step(tokens, mask)
    start = time.perf_counter()
    for tokens, mask in batches:
        step(tokens, mask)
    return time.perf_counter() - start


def measure(model_name: str, dim: int, vocab_size: int, batches: list[np.ndarray], cores: list[str],
            seed: int = 0, with_ceiling: bool = True) -> dict:
    """Pairs/s of each core on the same batches, and the GEMM-only ceiling."""
    rng = np.random.default_rng(seed)
    tokens = token_batches(batches, vocab_size, rng)
    pairs = sum(len(b) for b in batches)
    row = {"model": model_name, "dim": dim, "pairs": pairs}
    embeddings = torch.randn(vocab_size, dim) * 0.1
    recurrent = model_name != "avg"
    for core in (cores if recurrent else ["fused"]):
        torch.manual_seed(seed)
        model = with_core(build_model(model_name, embeddings), core)
        row[core] = pairs / train_seconds(model, tokens)
    if recurrent and with_ceiling:  # avg has no recurrence: its only product is the similarity matrix
        shapes = [s for (t, _), b in zip(tokens, batches, strict=True)
                  for s in gemm_shapes(model_name, list(b[:, 0]) + list(b[:, 1]), t.shape[1], dim, dim)]
        row["gemm"] = pairs / time_gemms(shapes)
    return row
