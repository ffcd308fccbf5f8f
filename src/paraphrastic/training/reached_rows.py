"""Train only the word-embedding rows a job's sentences reach; the others keep their values, exactly.

Adam updates every row of W_w at every step, as the authors' code does. A row that no sentence of the job reads
(training, validation or scoring) has a zero gradient at every step (λ_w's too: it starts at its anchor), so its
moments stay zero, its update is zero, and it ends where it began. Holding only the reached rows as the parameter
gives the same weights, bit for bit (tests/training/test_reached_rows.py: on a CPU, and on CUDA with the
deterministic kernels a job asks for there, as run on an H200), and spares each step the dense passes over the
rest: the gradient's zero-fill, Adam's update and the λ_w penalty, which at the paper profile's sizes are most of
a supervised step (a task's sentences reach a small part of the vocabulary).

The encoder reads vocabulary ids as before (the rows' module maps them); before the model is saved,
:func:`widen_embedding` puts the rows back into the whole vocabulary's matrix, so a model file is what it was.
Checkpoints hold the reached rows only: :func:`narrow_embedding` must run before the optimizer is built and before
a job resumes.
"""

from __future__ import annotations

import itertools
import math

import torch
from torch import nn

from paraphrastic.data.vocab import SPECIAL
from paraphrastic.models.encoders import SentenceEncoder


class ReachedRows(nn.Embedding):
    """The rows ``rows`` (sorted vocabulary ids, the padding row 0 first) of a vocabulary's embeddings, read by
    vocabulary id; the whole matrix and the penalty's anchors are kept (not saved) to be put back."""

    def __init__(self, whole: torch.Tensor, whole_initial: torch.Tensor, rows: torch.Tensor):
        super().__init__(len(rows), whole.shape[1], padding_idx=0, _weight=whole[rows].clone())
        # ids of unreached rows point past the table: reading one is an index error, never another word's vector
        local = torch.full((whole.shape[0],), len(rows), dtype=torch.long)
        local[rows] = torch.arange(len(rows))
        self.register_buffer("local", local, persistent=False)
        self.register_buffer("rows", rows, persistent=False)
        self.register_buffer("whole", whole, persistent=False)
        self.register_buffer("whole_initial", whole_initial, persistent=False)

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        return super().forward(self.local[ids])


def reached_ids(*id_lists) -> torch.Tensor:
    """The sorted distinct ids of any number of id sequences (lists of lists of ids, or tensors), with the special
    rows (padding, unknown, the two tags) always among them."""
    found = set(range(len(SPECIAL)))
    for ids in id_lists:
        found.update(ids.unique().tolist() if isinstance(ids, torch.Tensor) else itertools.chain.from_iterable(ids))
    return torch.tensor(sorted(found), dtype=torch.long)


# Elementwise kernels over the flat parameter (Adam's step) run a vectorised loop and then a scalar one over its last
# numel mod W elements, and the two can round differently (the scalar loop's multiply-adds may be fused). So that
# every element takes the path it takes in the whole matrix, the rows kept end with the vocabulary's last rows and
# number as many as the whole's modulo ALIGNMENT / gcd(d, ALIGNMENT): the flat tails then hold the same elements.
ALIGNMENT = 64  # elements: a multiple of every CPU vector width's floats (AVX-512: 16)


def aligned_rows(ids: torch.Tensor, vocabulary_size: int, dim: int) -> torch.Tensor:
    """``ids`` with the vocabulary's last rows and as many more unread rows (the highest) as make their count
    congruent to the vocabulary's (see ALIGNMENT); an unread row never moves, so keeping one changes nothing."""
    kept = set(ids.tolist()) | set(range(max(0, vocabulary_size - math.ceil(ALIGNMENT / dim)), vocabulary_size))
    missing = (vocabulary_size - len(kept)) % (ALIGNMENT // math.gcd(dim, ALIGNMENT))
    unread = (i for i in range(vocabulary_size - 1, -1, -1) if i not in kept)
    kept.update(itertools.islice(unread, missing))
    return torch.tensor(sorted(kept), dtype=torch.long)


def narrow_embedding(encoder: SentenceEncoder, ids: torch.Tensor) -> None:
    """Make the rows ``ids`` (:func:`reached_ids`) the encoder's only trainable word embeddings, and its λ_w anchors
    theirs. Before the optimizer is built (it must hold the rows' parameter) and before the model moves to a
    device."""
    embedding = encoder.embedding
    if isinstance(embedding, ReachedRows):
        raise ValueError("the encoder's embedding is already narrowed to its reached rows")
    rows = aligned_rows(ids, embedding.num_embeddings, embedding.embedding_dim).to(embedding.weight.device)
    encoder.embedding = ReachedRows(embedding.weight.detach(), encoder.initial_embeddings, rows)
    encoder.initial_embeddings = encoder.initial_embeddings[rows]


def widen_embedding(encoder: SentenceEncoder) -> None:
    """The whole vocabulary's embeddings again, the trained rows written into the matrix they came from (the other
    rows are their values before training); no-op for an encoder that was not narrowed."""
    embedding = encoder.embedding
    if not isinstance(embedding, ReachedRows):
        return
    whole = embedding.whole.clone()
    whole[embedding.rows] = embedding.weight.detach()
    encoder.embedding = nn.Embedding.from_pretrained(whole, freeze=False, padding_idx=0)
    encoder.initial_embeddings = embedding.whole_initial
