"""Training PWIM (He & Lin 2016, Sec. 8) on one task: KL loss against Tai et al.'s sparse target
(Eq. 11, the same target and loss as the supervised GRAN runs), RMSProp with a learning rate fixed to
1e-4, frozen word vectors. Each epoch is scored on validation; model.pt holds the epoch with the best
validation Pearson, and train.json its test Pearson, Spearman and MSE, scored once (per set and the
pair-weighted mean for STS 2014, as the paper's Table 5) and the seconds each epoch took (Table 9).
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import pandas as pd
import torch

from paraphrastic.configuration.settings import PwimSettings
from paraphrastic.data.batching import pad
from paraphrastic.data.pwim_splits import SCORE_RANGE
from paraphrastic.evaluation.similarity import per_set_correlations, split_scores
from paraphrastic.losses.kl import kl_loss, target_distribution
from paraphrastic.models.files import save_pwim
from paraphrastic.models.pwim import PairwiseWordInteraction
from paraphrastic.runtime import prepare_job
from paraphrastic.training.epochs import (
    Run,
    Streams,
    fingerprint,
    recover_damaged_checkpoints,
    seed_everything,
    write_run,
)
from paraphrastic.training.task_splits import load_task


def padded(sequences: list[list[int]], limit: int, device) -> tuple[torch.Tensor, torch.Tensor]:
    """(tokens, lengths) of sentences cut to their first ``limit`` words (Sec. 7) and right-padded."""
    tokens, mask = pad([s[:limit] for s in sequences], device)
    return tokens, mask.sum(dim=1).long()


def build(settings: PwimSettings, embeddings: torch.Tensor) -> PairwiseWordInteraction:
    low, high = SCORE_RANGE[settings.task]
    return PairwiseWordInteraction(embeddings, high - low + 1, **settings.model_options())


@torch.no_grad()
def predict(model: PairwiseWordInteraction, left: list[list[int]], right: list[list[int]], low: int, *,
            batch_size: int, device) -> np.ndarray:
    """ŷ = rᵀp̂ for every pair, r = [low .. high]."""
    was_training = model.training
    model.eval()
    out = []
    for start in range(0, len(left), batch_size):
        a, la = padded(left[start:start + batch_size], model.padding, device)
        b, lb = padded(right[start:start + batch_size], model.padding, device)
        probabilities = model(a, la, b, lb).exp()
        classes = torch.arange(low, low + probabilities.shape[1], dtype=probabilities.dtype, device=device)
        out.append((probabilities @ classes).cpu())
    model.train(was_training)
    return torch.cat(out).numpy() if out else np.zeros(0)


def scores_with_sets(frame: pd.DataFrame, predicted: np.ndarray) -> dict:
    """Pearson, Spearman (×100) and MSE of the test split, with per-set Pearson and its pair-weighted
    mean where the split pools several sets (STS 2014: Table 5's "Wt. Mean")."""
    scores = split_scores(predicted, frame["score"].to_numpy())
    per_set = per_set_correlations(frame.reset_index(drop=True), predicted)
    if len(per_set) > 1:
        scores["per_set"] = per_set
        pairs = np.array([r["pairs"] for r in per_set.values()])
        scores["weighted_mean_pearson"] = float(np.average([r["pearson"] for r in per_set.values()], weights=pairs))
    return scores


@recover_damaged_checkpoints
def train_pwim(settings: PwimSettings, *, table_path, vocab_dir, out_dir, checkpoint_dir, device: str = "auto",
               threads: int | None = None, progress: bool = True, stop_after: int | None = None,
               eval_batch_size: int = 100) -> dict:
    started = time.time()
    device = prepare_job(device, threads)
    task = settings.task
    low, high = SCORE_RANGE[task]
    vocab_dir = Path(vocab_dir)
    vocab, embeddings, frames = load_task(table_path, vocab_dir)
    ids = {s: ([vocab.ids(t) for t in f["tokens1"]], [vocab.ids(t) for t in f["tokens2"]]) for s, f in frames.items()}
    left, right = ids["train"]
    targets = target_distribution(torch.tensor(frames["train"]["score"].to_numpy()), low, high).float().to(device)

    seed = settings.seed
    seed_everything(seed)
    model = build(settings, embeddings).to(device)
    trainable = [p for p in model.parameters() if p.requires_grad]
    # Sec. 8: "RMSProp ... with a learning rate fixed to 10^-4"
    optimizer = torch.optim.RMSprop(trainable, lr=settings.learning_rate)
    inputs = [Path(table_path), vocab_dir / "vocab.txt", vocab_dir / "embeddings.npy"]
    run = Run(f"pwim/{task}/{settings.name}", model, optimizer, Path(checkpoint_dir),
              fingerprint(settings.as_dict(), inputs, []), seed, settings.epochs, settings.batch_size)

    def batch_loss(batch: np.ndarray, streams: Streams) -> torch.Tensor:
        a, la = padded([left[i] for i in batch], model.padding, device)
        b, lb = padded([right[i] for i in batch], model.padding, device)
        return kl_loss(model(a, la, b, lb), targets[torch.as_tensor(batch, device=device)])

    def score_epoch() -> dict:
        # Validation only: it chooses the epoch, and scoring the test split every epoch would cost as much
        # as a SICK epoch's training; the chosen epoch is scored on test once, at the end.
        predicted = predict(model, *ids["validation"], low, batch_size=eval_batch_size, device=device)
        scores = split_scores(predicted, frames["validation"]["score"].to_numpy())
        return {f"validation_{k}": v for k, v in scores.items()}

    def describe(row: dict) -> str:
        return f"validation r {row['validation_pearson']:.2f}"

    history = run.epochs_loop(len(left), batch_loss, score_epoch, describe, progress=progress, stop_after=stop_after)
    if history is None:
        return {"stopped_after_epoch": run.stopped_after}
    best = run.restore_best(history, "validation_pearson")
    predicted = predict(model, *ids["test"], low, batch_size=eval_batch_size, device=device)
    epoch_seconds = [h["train_seconds"] for h in history]
    info = {"run": settings.name, "task": task, "settings": settings.as_dict(), "selected_epoch": best["epoch"],
            "validation": {k.removeprefix("validation_"): best[k] for k in best if k.startswith("validation_")},
            "test": scores_with_sets(frames["test"], predicted),
            "pairs": {s: len(f) for s, f in frames.items()}, "parameters": model.parameter_count(),
            "epoch_seconds": epoch_seconds, "mean_epoch_seconds": float(np.mean(epoch_seconds)),
            "device": str(device), "threads": torch.get_num_threads(),
            "wall_seconds_this_call": time.time() - started}
    return write_run(out_dir, history, info, stage="train_pwim", save=lambda path: save_pwim(
        path, model, settings.model_options(), task, vocab, {"settings": settings.as_dict(), "epoch": best["epoch"]}))
