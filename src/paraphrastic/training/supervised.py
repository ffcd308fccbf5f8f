"""Supervised similarity (Sec. 4.3): a sentence encoder under the Tai et al. (2015) head and KL loss.

The head is :mod:`paraphrastic.models.heads`, the loss :mod:`paraphrastic.losses.kl` (the mean KL(p ‖ p̂)
over the batch against the sparse target of the gold scores).

"Universal" training (Table 8) starts from a transfer-trained encoder and regularises its word
embeddings (λ_w) and compositional parameters (λ_c) back to those initial values instead of to the
initial word vectors and to zero.
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import torch

from paraphrastic.configuration.settings import SupervisedSettings
from paraphrastic.data.batching import pad
from paraphrastic.data.supervised_splits import SCORE_RANGE
from paraphrastic.data.vocab import Vocabulary, add_tags
from paraphrastic.errors import PipelineError
from paraphrastic.evaluation.similarity import PreparedSets, split_scores
from paraphrastic.losses.kl import kl_loss, target_distribution
from paraphrastic.losses.regularization import head_regularization, regularization, with_penalty
from paraphrastic.models.encoders import SentenceEncoder, build_model
from paraphrastic.models.files import load_model, save_scorer
from paraphrastic.models.heads import PairScorer, SimilarityHead
from paraphrastic.phases import phase
from paraphrastic.runtime import prepare_job
from paraphrastic.training.augmentation import scramble_pairs
from paraphrastic.training.epochs import (
    Run,
    Streams,
    adam,
    fingerprint,
    recover_damaged_checkpoints,
    seed_everything,
    write_run,
)
from paraphrastic.training.reached_rows import narrow_embedding, reached_ids, widen_embedding
from paraphrastic.training.task_splits import load_task


@torch.no_grad()
def predict(model: PairScorer, pairs: PreparedSets, *, batch_size: int = 512, device="cpu") -> np.ndarray:
    """ŷ for every row of the table ``pairs`` was prepared from (each distinct sentence is encoded once)."""
    was_training = model.training
    model.eval()
    left, right = pairs.pair_embeddings(model.encoder)
    scores = []
    for start in range(0, len(left), batch_size):
        a, b = left[start:start + batch_size].to(device), right[start:start + batch_size].to(device)
        scores.append(model.head.score(model.head(a, b)).cpu())
    model.train(was_training)
    return torch.cat(scores).numpy() if scores else np.zeros(0)


def universal_encoder(init_path: Path, settings: SupervisedSettings, vocab: Vocabulary) -> tuple[SentenceEncoder, dict]:
    """The transfer-trained encoder of ``init_path``, with this run's input regularisers, anchored at
    its own parameters: λ_w pulls the word embeddings and λ_c the compositional parameters back to them."""
    encoder, transfer_vocab, payload = load_model(init_path)
    if payload["model"] != settings.model:
        raise PipelineError(f"{settings.name}: model {settings.model!r} cannot start from {init_path}, "
                            f"a {payload['model']!r}")
    if transfer_vocab.words != vocab.words:  # word ids would silently point at other words' vectors
        raise PipelineError(f"{settings.name}: {init_path} was trained with another vocabulary than the "
                            "supervised data's (rebuilt data/vocab?); retrain it or rebuild the supervised jobs")
    options = dict(payload["options"])
    for key in ("dropout", "word_dropout"):  # the supervised run's own input regularisers
        options.pop(key, None)
        if getattr(settings, key):
            options[key] = getattr(settings, key)
    encoder_state = encoder.state_dict()
    encoder = build_model(payload["model"], encoder.embedding.weight.detach().clone(), **options)
    encoder.load_state_dict(encoder_state)
    encoder.initial_embeddings.copy_(encoder.embedding.weight.detach())
    encoder.remember_initial_compositional()
    encoder.regularize_to_initial = True
    return encoder, options


@recover_damaged_checkpoints
def train_supervised(settings: SupervisedSettings, *, table_path, vocab_dir, out_dir, checkpoint_dir, init_path=None,
                     device: str = "auto", threads: int | None = None, progress: bool = True,
                     stop_after: int | None = None, eval_batch_size: int = 512) -> dict:
    """Train one supervised job on its task's train split; every epoch is scored on validation and test.

    model.pt holds the epoch with the best validation Pearson (the paper's model selection); the
    selection among a row's runs (evaluation.selection.SupervisedSelection) uses the same validation scores.
    """
    started = time.time()
    device = prepare_job(device, threads)
    task = settings.task
    low, high = SCORE_RANGE[task]
    vocab_dir = Path(vocab_dir)
    with phase("loading"):
        vocab, embeddings, frames = load_task(table_path, vocab_dir)
        train_rows = frames.pop("train")
        scored = frames
        left = [vocab.ids(t) for t in train_rows["tokens1"]]
        right = [vocab.ids(t) for t in train_rows["tokens2"]]
        targets = target_distribution(torch.tensor(train_rows["score"].to_numpy()), low, high).float()

        seed = settings.seed
        seed_everything(seed)
        if settings.init:
            if init_path is None:
                raise PipelineError(f"{settings.name}: a universal run needs the transfer model (--init)")
            encoder, options = universal_encoder(Path(init_path), settings, vocab)
        else:
            options = settings.model_options()
            encoder = build_model(settings.model, embeddings, **options)
        prepared = {split: PreparedSets.for_model(encoder, vocab, frame, batch_size=eval_batch_size, device=device)
                    for split, frame in scored.items()}
        rows = reached_ids(left, right, *(sets.token_ids() for sets in prepared.values()))
        narrow_embedding(encoder, rows)
        model = PairScorer(encoder, SimilarityHead(encoder.output_dim, settings.head_dim, low, high))
        model.to(device)
        optimizer = adam(model.parameters(), settings.learning_rate, epsilon=settings.adam_epsilon)
        inputs = [Path(table_path), vocab_dir / "vocab.txt", vocab_dir / "embeddings.npy"]
        if settings.init:
            inputs.append(Path(init_path))
        # checkpoints hold the reached rows only, so one written with another set of rows is stale
        stamp = fingerprint({**settings.as_dict(), "embedding_rows": len(rows)}, inputs, [])
        run = Run(f"{task}/{settings.name}", model, optimizer, Path(checkpoint_dir), stamp, seed, settings.epochs,
                  settings.batch_size)

    tags = options.get("tags") or "none"  # a universal run keeps its transfer model's tags
    targets = targets.to(device)

    def batch_loss(batch: np.ndarray, streams: Streams) -> torch.Tensor:
        first, second = [left[i] for i in batch], [right[i] for i in batch]
        if settings.scramble:
            first, second = scramble_pairs(first, second, settings.scramble, streams.scrambler)
        tokens, mask = pad([add_tags(s, tags) for s in first + second], device)
        loss = kl_loss(model(tokens, mask, len(batch)), targets[torch.as_tensor(batch, device=device)])
        penalty = settings.penalty
        return with_penalty(loss, regularization(model.encoder, penalty(settings.lambda_c), penalty(settings.lambda_w))
                            + head_regularization(model.head, penalty(settings.lambda_s)))

    def score_epoch() -> dict:
        row = {}
        for split, frame in scored.items():
            predicted = predict(model, prepared[split], batch_size=eval_batch_size, device=device)
            for key, value in split_scores(predicted, frame["score"].to_numpy()).items():
                row[f"{split}_{key}"] = value
        return row

    def describe(row: dict) -> str:
        return f"validation r {row['validation_pearson']:.2f}, test r {row['test_pearson']:.2f}"

    history = run.epochs_loop(len(left), batch_loss, score_epoch, describe, progress=progress, stop_after=stop_after)
    if history is None:
        return {"stopped_after_epoch": run.stopped_after}
    best = run.restore_best(history, "validation_pearson")
    widen_embedding(model.encoder)
    info = {"run": settings.name, "task": task, "settings": settings.as_dict(), "selected_epoch": best["epoch"],
            **{k: best[k] for k in best if k.startswith(("validation_", "test_"))},
            "train_pairs": len(left), "device": str(device), "threads": torch.get_num_threads(),
            "init": str(init_path) if settings.init else None,
            "wall_seconds_this_call": time.time() - started,
            "train_seconds_total": float(sum(h["train_seconds"] for h in history))}
    stage = "train_supervised" if init_path is None else "train_universal"
    return write_run(out_dir, history, info, stage=stage, save=lambda path: save_scorer(
        path, model, settings.model, options, vocab, {"settings": settings.as_dict(), "epoch": best["epoch"]}))


