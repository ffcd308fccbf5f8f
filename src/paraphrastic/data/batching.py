"""Padding id lists into (tokens, mask) tensors, and batching by length so that padding stays low."""

from __future__ import annotations

import numpy as np
import torch

from paraphrastic.data.vocab import PAD_ID


def pad(sequences: list[list[int]], device: torch.device | str = "cpu") -> tuple[torch.Tensor, torch.Tensor]:
    """Right-pad to the longest sequence: LongTensor ids and a float mask (1 = real token)."""
    longest = max(len(s) for s in sequences)
    tokens = torch.full((len(sequences), longest), PAD_ID, dtype=torch.long)
    for row, seq in enumerate(sequences):
        tokens[row, : len(seq)] = torch.as_tensor(seq, dtype=torch.long)
    mask = (tokens != PAD_ID).float()
    # A genuine <pad> id never occurs inside a sentence (ids() maps to <unk>), so the mask is exact.
    return tokens.to(device), mask.to(device)


def length_bucketed(order: np.ndarray, lengths: np.ndarray, batch_size: int, window: int,
                    rng: np.random.Generator) -> np.ndarray:
    """Rearrange an epoch's shuffled ``order`` so that each run of ``batch_size`` items has similar lengths.

    The order is cut into windows of ``window`` batches; each window is sorted by length, cut into
    batches, and its batches are put in a random order. Batches stay random samples of nearby items
    in the epoch, so the epoch still sees every item once, but a batch pads to a length close to
    all of its members'. It changes which sentences share a batch, and so the in-batch negatives
    (they become sentences of similar length): that is why training keeps it off unless asked.
    """
    span = batch_size * window
    arranged = []
    for start in range(0, len(order), span):
        chunk = order[start : start + span]
        chunk = chunk[np.argsort(lengths[chunk], kind="stable")]
        batches = [chunk[i : i + batch_size] for i in range(0, len(chunk), batch_size)]
        # A short final batch stays last, so only the epoch's very end may be short (as without buckets).
        full = [b for b in batches if len(b) == batch_size]
        rest = [b for b in batches if len(b) < batch_size]
        arranged.extend(full[i] for i in rng.permutation(len(full)))
        arranged.extend(rest)
    return np.concatenate(arranged) if arranged else order


def padding_ratio(batches: list[list[int]]) -> float:
    """Share of a padded batch's cells that are padding, over the given batches (lists of lengths)."""
    cells = sum(len(b) * max(b) for b in batches)
    return 1 - sum(sum(b) for b in batches) / cells if cells else 0.0
