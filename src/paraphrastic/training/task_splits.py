"""A supervised task's table, as the trainers read it: the vocabulary, the initial word vectors and the
train / validation / test rows (shared by the supervised and the PWIM trainers)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import torch

from paraphrastic.data.corpus import read_table
from paraphrastic.data.vocab import Vocabulary, load_vectors
from paraphrastic.errors import PipelineError


def load_task(table_path, vocab_dir) -> tuple[Vocabulary, torch.Tensor, dict[str, pd.DataFrame]]:
    """The vocabulary, initial word vectors and the train / validation / test rows of a task table."""
    vocab_dir = Path(vocab_dir)
    table = read_table(table_path)
    frames = {s: table[table["split"] == s].reset_index(drop=True) for s in ("train", "validation", "test")}
    if len(frames["train"]) < 1 or len(frames["validation"]) < 2 or len(frames["test"]) < 2:
        raise PipelineError(f"{table_path}: the task table needs training pairs and at least 2 validation "
                            "and 2 test pairs")
    vocab, matrix = load_vectors(vocab_dir)
    return vocab, torch.from_numpy(matrix), frames
