"""Training-time augmentation both pair trainers (transfer and supervised) apply to a mini-batch."""

from __future__ import annotations

import numpy as np


def scramble_pairs(first: list[list[int]], second: list[list[int]], rate: float,
                   rng: np.random.Generator) -> tuple[list[list[int]], list[list[int]]]:
    """Sec. 4.2: with probability ``rate`` per pair, shuffle the words of both its sentences.

    Done before negatives are chosen, so the negatives are scrambled sentences too.
    """
    first, second = list(first), list(second)
    for j in np.flatnonzero(rng.random(len(first)) < rate):
        first[j] = [int(t) for t in rng.permutation(first[j])]
        second[j] = [int(t) for t in rng.permutation(second[j])]
    return first, second
