"""Batching by length: the epoch stays a permutation, batches get homogeneous, padding drops."""

from __future__ import annotations

import numpy as np
import pytest

from paraphrastic.data.batching import length_bucketed, padding_ratio


def _lengths(n=1000, seed=0):
    return np.random.default_rng(seed).integers(3, 60, n)


@pytest.mark.parametrize("n, batch, window", [(1000, 100, 5), (1037, 100, 4), (57, 10, 20)])
def test_every_item_once_and_only_the_last_batch_short(n, batch, window):
    lengths = _lengths(n)
    order = np.random.default_rng(1).permutation(n)
    arranged = length_bucketed(order, lengths, batch, window, np.random.default_rng(2))
    assert sorted(arranged) == list(range(n))
    # each window keeps its own items: a batch never mixes items from far apart in the shuffled order
    span = batch * window
    for start in range(0, n, span):
        assert set(arranged[start : start + span]) == set(order[start : start + span])


def test_batches_are_homogeneous_and_padding_drops():
    lengths = _lengths()
    order = np.random.default_rng(1).permutation(len(lengths))
    arranged = length_bucketed(order, lengths, 100, 10, np.random.default_rng(2))

    def batches(o):
        return [list(lengths[o[i : i + 100]]) for i in range(0, len(o), 100)]

    random_ratio, bucketed_ratio = padding_ratio(batches(order)), padding_ratio(batches(arranged))
    assert random_ratio > 0.4  # uniform lengths 3..59: a random batch pads to ~59
    assert bucketed_ratio < 0.1
    # and the batches come in a shuffled order, not sorted by length across the window
    maxima = [max(b) for b in batches(arranged)]
    assert maxima != sorted(maxima)


def test_same_generator_same_arrangement():
    lengths = _lengths()
    order = np.arange(len(lengths))
    a = length_bucketed(order, lengths, 50, 4, np.random.default_rng(7))
    b = length_bucketed(order, lengths, 50, 4, np.random.default_rng(7))
    assert (a == b).all()


def test_padding_ratio():
    assert padding_ratio([[2, 4], [3, 3]]) == pytest.approx(1 - 12 / 14)
    assert padding_ratio([]) == 0.0
