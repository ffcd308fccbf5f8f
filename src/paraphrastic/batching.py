"""Padding id lists into (tokens, mask) tensors."""

from __future__ import annotations

import torch

from .vocab import PAD_ID


def pad(sequences: list[list[int]], device: torch.device | str = "cpu") -> tuple[torch.Tensor, torch.Tensor]:
    """Right-pad to the longest sequence: LongTensor ids and a float mask (1 = real token)."""
    longest = max(len(s) for s in sequences)
    tokens = torch.full((len(sequences), longest), PAD_ID, dtype=torch.long)
    for row, seq in enumerate(sequences):
        tokens[row, : len(seq)] = torch.as_tensor(seq, dtype=torch.long)
    mask = (tokens != PAD_ID).float()
    # A genuine <pad> id never occurs inside a sentence (ids() maps to <unk>), so the mask is exact.
    return tokens.to(device), mask.to(device)
