"""Sentence-level distillation (beyond the paper): the distilled word vectors trained so that a sentence's mean word
vector approaches the teacher's embedding of it, Model2Vec's Tokenlearn on our vocabulary.

As Tokenlearn: each word is a unit direction times a learned weight (both start from the distilled vector), a
sentence the mean of its words' weighted directions, mapped linearly to the teacher's embeddings reduced by PCA
(the teacher's space and the word vectors' PCA basis differ), and the squared error to them minimised with AdamW.
The linear map is used only in training: the vectors kept are weight × direction, which avg averages as it does any
word vectors. Unlike Tokenlearn, the epoch kept is the one with the best STS 2016 mean of those vectors under avg
(the paper's model selection); the held-out squared error is recorded beside it.
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
import torch
from torch import nn

from paraphrastic.data.batching import pad
from paraphrastic.evaluation import similarity
from paraphrastic.models.encoders import build_model
from paraphrastic.runtime import prepare_job
from paraphrastic.training.epochs import Run, fingerprint, recover_damaged_checkpoints, seed_everything


@dataclass(frozen=True)
class SentenceDistillationSettings:
    """``word_vectors.sentence_distilled`` in params.yaml."""

    target_dims: int | None = 256  # PCA of the teacher's embeddings (None: the teacher's width)
    epochs: int = 5
    batch_size: int = 256
    learning_rate: float = 1e-3
    held_out: float = 0.05  # share of the texts whose squared error is recorded, never trained on
    seed: int = 1

    @classmethod
    def of(cls, config: dict) -> SentenceDistillationSettings:
        keys = cls.__dataclass_fields__
        return cls(**{k: v for k, v in config["word_vectors"]["sentence_distilled"].items() if k in keys})


class WeightedWordMean(nn.Module):
    """A sentence as the mean of its words' weight × unit direction, mapped linearly to ``out_dim``."""

    def __init__(self, vectors: torch.Tensor, out_dim: int):
        super().__init__()
        norms = vectors.norm(dim=1)
        # a zero row (<pad>, and <unk>, <s>, </s> as distilled) keeps a zero direction until a gradient moves it
        self.directions = nn.Parameter(vectors / norms.clamp(min=1e-12).unsqueeze(1))
        self.weights = nn.Parameter(norms.clone())
        self.projection = nn.Linear(vectors.shape[1], out_dim)

    def vectors(self) -> torch.Tensor:
        return (self.weights.unsqueeze(1) * self.directions).detach()

    def forward(self, tokens: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        weighted = (self.weights[tokens] * mask).unsqueeze(-1) * self.directions[tokens]
        return self.projection(weighted.sum(1) / mask.sum(1, keepdim=True).clamp(min=1))


def pca_targets(embeddings: np.ndarray, dims: int | None) -> tuple[np.ndarray, float]:
    """The teacher's embeddings centred and reduced to ``dims`` principal components (None or the width or more: all),
    and the share of the variance they keep."""
    centred = embeddings - embeddings.mean(0, keepdims=True)
    _, singular, components = np.linalg.svd(centred, full_matrices=False)
    keep = len(singular) if dims is None else min(dims, len(singular))
    kept = float((singular[:keep] ** 2).sum() / max((singular ** 2).sum(), 1e-30))
    return (centred @ components[:keep].T).astype(np.float32), kept


@recover_damaged_checkpoints
def train(settings: SentenceDistillationSettings, *, vocab, embeddings: torch.Tensor, texts: list[list[int]],
          targets: np.ndarray, eval_frame, selection: list[str], inputs: list[Path], checkpoint_dir,
          device: str = "auto", threads: int | None = None, progress: bool = True,
          stop_after: int | None = None) -> dict:
    """Train the vectors; returns {"vectors": the selected epoch's (float32 numpy), "history": a row per epoch,
    "selected": that row, "target_variance": the PCA's share, ...}, or {"stopped_after_epoch": N} with
    ``stop_after`` (resume tests). ``texts``: each text's word ids; ``inputs``: the files a resume must share."""
    started = time.time()
    device = prepare_job(device, threads)
    if len(texts) != len(targets):
        raise ValueError(f"{len(texts)} texts but {len(targets)} teacher embeddings")
    seed_everything(settings.seed)
    reduced, variance = pca_targets(targets, settings.target_dims)
    order = np.random.default_rng([settings.seed, 0]).permutation(len(texts))
    held = order[: int(round(len(texts) * settings.held_out))]
    trained = order[len(held):]
    goal = torch.from_numpy(reduced).to(device)
    model = WeightedWordMean(embeddings.float(), reduced.shape[1]).to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=settings.learning_rate)
    stamp = fingerprint(asdict(settings), inputs, selection)
    run = Run("sentence_distilled", model, optimizer, Path(checkpoint_dir), stamp, settings.seed, settings.epochs,
              settings.batch_size, select_on="selection_pearson")

    def squared_error(items: np.ndarray) -> torch.Tensor:
        tokens, mask = pad([texts[i] for i in items], device)
        return ((model(tokens, mask) - goal[torch.as_tensor(items, device=device)]) ** 2).mean()

    def batch_loss(batch: np.ndarray, streams) -> torch.Tensor:
        return squared_error(trained[batch])

    scored_sets = similarity.PreparedSets(vocab, eval_frame, device=device)  # an avg encoder: no tags

    def score_epoch() -> dict:
        with torch.no_grad():
            chunks = [held[i : i + 1024] for i in range(0, len(held), 1024)]
            error = sum(float(squared_error(c)) * len(c) for c in chunks) / max(len(held), 1)
        encoder = build_model("avg", model.vectors()).to(device)  # scored where its batches go
        results = scored_sets.score(encoder)
        summary = similarity.summarize(results, selection)
        return {"selection_pearson": summary["selection_pearson"], "transfer_pearson": summary["transfer_pearson"],
                "held_out_squared_error": error, "per_dataset": {k: v["pearson"] for k, v in results.items()}}

    def describe(row: dict) -> str:
        return (f"held-out error {row['held_out_squared_error']:.5f}, STS16 {row['selection_pearson']:.2f}, "
                f"transfer {row['transfer_pearson']:.2f}")

    history = run.epochs_loop(len(trained), batch_loss, score_epoch, describe, progress=progress,
                              stop_after=stop_after)
    if history is None:
        return {"stopped_after_epoch": run.stopped_after}
    best = run.restore_best(history, "selection_pearson")
    return {"vectors": model.vectors().cpu().numpy().astype(np.float32), "history": history, "selected": best,
            "target_variance": variance, "texts": len(texts), "held_out_texts": len(held),
            "seconds_this_call": time.time() - started}
