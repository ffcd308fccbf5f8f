"""Siamese CBOW (Kenter, Borisov & de Rijke, ACL 2016): word embeddings trained for being averaged.

A sentence's embedding is the mean of its word embeddings. For a sentence s_i, the softmax over the
cosine similarities to its neighbours S+ (the previous and the next sentence of the same document)
and to n random sentences S− (Eq. 1) is trained with categorical cross-entropy against the target
1/|S+| on every neighbour and 0 on every random sentence (Sec. 2.1). The word embeddings are the only
parameters, trained with plain SGD whose learning rate falls linearly with the batches (Sec. 2.3).

The trained model is an ``avg`` encoder of the model registry, so the pipeline's scorer, the encoder
API and ``paraphrastic.load`` use it as they use every other model. Words of a sentence that are not
in the vocabulary map to ``<unk>``, whose row is zero and never trained: a zero row leaves the
direction of a mean unchanged, so cosine scores equal the paper's, which omits unknown words.

The ordered corpus is :mod:`paraphrastic.data.siamese_corpus`'s, the loss :mod:`paraphrastic.losses.siamese`.
"""

from __future__ import annotations

import math
import time
from pathlib import Path

import numpy as np
import pandas as pd
import torch
import torch.nn.functional as F

from paraphrastic.configuration.settings import SiameseSettings
from paraphrastic.data.corpus import read_table
from paraphrastic.data.siamese_corpus import neighbours
from paraphrastic.data.vocab import SPECIAL, UNK_ID, Vocabulary, load_matrix
from paraphrastic.errors import PipelineError
from paraphrastic.evaluation.similarity import scores_of, sts_frame, time_scoring
from paraphrastic.losses.siamese import siamese_loss
from paraphrastic.models.encoders import build_model
from paraphrastic.models.files import save_model
from paraphrastic.runtime import prepare_job
from paraphrastic.training.epochs import (
    Run,
    Streams,
    fingerprint,
    recover_damaged_checkpoints,
    seed_everything,
    write_run,
)

INITS = ("pretrained", "random")


# ---- the model's starting point and its batches --------------------------------------------------------

def initial_embeddings(words: pd.DataFrame, pretrained: np.ndarray, init: str, min_count: int, std: float,
                       generator: torch.Generator, dim: int | None = None) -> tuple[Vocabulary, torch.Tensor]:
    """The vocabulary and starting matrix of one run.

    ``random``: the corpus words seen ``min_count`` times or more (Sec. 3.1), N(0, std²) (Sec. 3.3).
    ``pretrained``: those words and every word with a pretrained vector, which it starts from; a corpus
    word without one starts from N(0, std²). The special rows are zero. ``dim`` (random only; default
    the pretrained vectors' dimension) is the embedding size.
    """
    if init not in INITS:
        raise PipelineError(f"siamese_cbow init {init!r}; known: {INITS}")
    dim = dim or pretrained.shape[1]
    if init == "pretrained" and dim != pretrained.shape[1]:
        raise PipelineError(f"siamese_cbow: dim {dim} differs from the pretrained vectors' {pretrained.shape[1]}")
    frequent = words["count"].to_numpy() >= min_count
    has_vector = words["pretrained"].to_numpy()
    keep = frequent | has_vector if init == "pretrained" else frequent
    rows = np.flatnonzero(keep)
    matrix = torch.randn(len(SPECIAL) + len(rows), dim, generator=generator) * std
    matrix[: len(SPECIAL)] = 0
    if init == "pretrained":
        use = has_vector[rows]
        matrix[len(SPECIAL) + np.flatnonzero(use)] = torch.from_numpy(pretrained[len(SPECIAL) + rows[use]])
    return Vocabulary(SPECIAL + words["word"].to_numpy()[rows].tolist()), matrix


def corpus_ids(vocab: Vocabulary, corpus: pd.DataFrame) -> list[list[int]]:
    """Each sentence's word ids; words outside the vocabulary (rarer than ``min_count``) are dropped,
    as the paper considers only words seen 5 times or more."""
    index = vocab.index
    return [[index[t] for t in tokens if t in index] for tokens in corpus["tokens"]]


def sentence_means(weight: torch.Tensor, sentences: list[list[int]], device) -> torch.Tensor:
    """The mean word embedding of each sentence (a sentence without known words: <unk>, a zero row)."""
    flat = [ids or [UNK_ID] for ids in sentences]
    offsets = torch.tensor([0, *np.cumsum([len(s) for s in flat[:-1]])], dtype=torch.long, device=device)
    ids = torch.tensor([i for s in flat for i in s], dtype=torch.long, device=device)
    # sparse: one SGD step touches only the rows of the batch's words
    return F.embedding_bag(ids, weight, offsets, mode="mean", sparse=True)


def sample_negatives(centers: np.ndarray, pairs: np.ndarray, count: int, pool: np.ndarray,
                     generator: torch.Generator) -> np.ndarray:
    """(B, count) random sentences of ``pool``, none of them the centre sentence or one of its neighbours."""
    drawn = pool[torch.randint(len(pool), (len(centers), count), generator=generator).numpy()]
    for _ in range(100):
        bad = (drawn == centers[:, None]) | (drawn == pairs[:, :1]) | (drawn == pairs[:, 1:])
        if not bad.any():
            return drawn
        drawn[bad] = pool[torch.randint(len(pool), (int(bad.sum()),), generator=generator).numpy()]
    raise PipelineError(f"cannot draw {count} negatives from a corpus of {len(pool)} sentences")


def linear_decay(optimizer: torch.optim.Optimizer, initial: float, total_batches: int, batches_per_epoch: int,
                 batch_size: int):
    """The schedule of Sec. 2.3: the rate falls linearly from ``initial`` to 0 over all batches."""
    def schedule(epoch: int, start: int) -> None:
        step = (epoch - 1) * batches_per_epoch + start // batch_size
        for group in optimizer.param_groups:
            group["lr"] = initial * max(0.0, 1.0 - step / total_batches)
    return schedule


# ---- training ---------------------------------------------------------------------------------------


@recover_damaged_checkpoints
def train_siamese(settings: SiameseSettings, *, corpus_dir, eval_path, sets: list[str], out_dir, checkpoint_dir,
                  device: str = "auto", threads: int | None = None, progress: bool = True,
                  stop_after: int | None = None, eval_batch_size: int = 512) -> dict:
    """Train one Siamese CBOW run; write model.pt (an ``avg`` encoder), history and train.json.

    Every epoch (and the starting vectors, as epoch 0) is scored on ``sets`` for the learning curve;
    the model is the last epoch's, as the paper trains a fixed number of epochs with no selection.
    """
    started = time.time()
    device = prepare_job(device, threads)
    corpus_dir = Path(corpus_dir)
    corpus = read_table(corpus_dir / "corpus.parquet")
    words = read_table(corpus_dir / "words.parquet")
    pretrained = load_matrix(corpus_dir / "embeddings.npy", rows_of=corpus_dir / "words.parquet")
    frame = sts_frame(eval_path, sets)
    seed = settings.seed
    seed_everything(seed)
    vocab, matrix = initial_embeddings(words, pretrained, settings.init, settings.min_count, settings.init_std,
                                       torch.Generator().manual_seed(seed), settings.dim)
    model = build_model("avg", matrix).to(device)
    weight = model.embedding.weight
    sentences = corpus_ids(vocab, corpus)
    # A sentence none of whose words is in the vocabulary has no embedding (the cosine's gradient at a
    # zero vector is unbounded): it takes no part, as neither centre, neighbour nor negative.
    usable = np.array([len(s) > 0 for s in sentences], dtype=bool)
    pairs = neighbours(corpus)
    pairs = np.where((pairs >= 0) & usable[np.maximum(pairs, 0)], pairs, -1)
    pool = np.flatnonzero(usable)
    # a sentence with no neighbour in its document has no S+ and so no target
    centers = np.flatnonzero(usable & (pairs >= 0).any(axis=1))
    if len(centers) < 2:
        raise PipelineError(f"{corpus_dir / 'corpus.parquet'}: fewer than 2 sentences have a neighbour")
    negatives, batch_size = settings.negatives, settings.batch_size
    epochs, lr = settings.epochs, settings.learning_rate
    optimizer = torch.optim.SGD([weight], lr=lr)
    batches_per_epoch = math.ceil(len(centers) / batch_size)
    inputs = [corpus_dir / name for name in ("corpus.parquet", "words.parquet", "embeddings.npy")] + [Path(eval_path)]
    run = Run(f"siamese/{settings.name}", model, optimizer, Path(checkpoint_dir),
              fingerprint(settings.as_dict(), inputs, sets), seed, epochs, batch_size,
              schedule=linear_decay(optimizer, lr, epochs * batches_per_epoch, batches_per_epoch, batch_size))

    def batch_loss(batch: np.ndarray, streams: Streams) -> torch.Tensor:
        middle = centers[batch]
        around = pairs[middle]
        drawn = sample_negatives(middle, around, negatives, pool, streams.negatives)
        candidates = np.concatenate([np.where(around >= 0, around, middle[:, None]), drawn], axis=1)
        embedded = sentence_means(weight, [sentences[i] for i in middle] + [sentences[i] for i in candidates.ravel()],
                                  device)
        center, others = embedded[: len(middle)], embedded[len(middle):].view(len(middle), -1, weight.shape[1])
        present = torch.from_numpy(np.concatenate([around >= 0, np.ones_like(drawn, dtype=bool)], axis=1)).to(device)
        positive = torch.zeros_like(present)
        positive[:, : around.shape[1]] = True
        return siamese_loss(center, others, positive, present)

    def score_epoch() -> dict:
        scores = scores_of(model, vocab, frame, eval_batch_size, device)
        return {"mean_pearson": scores["mean_pearson"], "mean_spearman": scores["mean_spearman"],
                "per_dataset": {k: v["pearson"] for k, v in scores["per_dataset"].items()}}

    def describe(row: dict) -> str:
        return f"{frame['dataset'].nunique()}-set r {row['mean_pearson']:.2f}"

    initial = scores_of(model, vocab, frame, eval_batch_size, device)
    history = run.epochs_loop(len(centers), batch_loss, score_epoch, describe, progress=progress,
                              stop_after=stop_after)
    if history is None:
        return {"stopped_after_epoch": run.stopped_after}
    final = scores_of(model, vocab, frame, eval_batch_size, device)
    timing = time_scoring(model, vocab, frame, eval_batch_size, device)
    info = {"run": settings.name, "settings": settings.as_dict(), "epochs": epochs, "vocabulary": len(vocab),
            "centre_sentences": int(len(centers)), "corpus_sentences": len(corpus),
            "sentences_without_known_words": int((~usable).sum()),
            "corpus_tokens": int(sum(len(s) for s in sentences)), "device": str(device),
            "threads": torch.get_num_threads(), "initial": initial, "final": final, "timing": timing,
            "train_seconds_total": float(sum(h["train_seconds"] for h in history)),
            "wall_seconds_this_call": time.time() - started}
    # the CSV starts from the untrained vectors' scores (epoch 0)
    rows = [{"epoch": 0, "mean_pearson": initial["mean_pearson"], "mean_spearman": initial["mean_spearman"]}]
    rows += [{k: v for k, v in h.items() if k != "per_dataset"} for h in history]
    return write_run(out_dir, history, info, stage="train_siamese", save=lambda path: save_model(
        path, model, "avg", {}, vocab, {"settings": settings.as_dict(), "epoch": epochs}), csv_rows=rows)


