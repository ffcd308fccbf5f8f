"""Supervised similarity (Sec. 4.3): a sentence encoder under the Tai et al. (2015) head and KL loss.

For a pair with embeddings h_L, h_R (Eq. 6-7 and the equations before them):
h× = h_L ⊙ h_R, h+ = |h_L − h_R|, h_s = σ(W× h× + W+ h+ + b_h), p̂ = softmax(W_p h_s + b_p), and the
predicted score is ŷ = rᵀp̂ with r = [low .. high]. A gold score y becomes the sparse distribution p
with mass on ⌊y⌋ and ⌊y⌋ + 1 such that rᵀp = y; the loss is the mean KL(p ‖ p̂) over the batch.

"Universal" training (Table 8) starts from a transfer-trained encoder and regularises its word
embeddings (λ_w) and compositional parameters (λ_c) back to those initial values instead of to the
initial word vectors and to zero.
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import pandas as pd
import torch
import torch.nn.functional as F
from torch import nn

from paraphrastic.atomic import atomic_path, write_json, write_text
from paraphrastic.data.batching import pad
from paraphrastic.data.corpus import read_table
from paraphrastic.data.supervised_tasks import SCORE_RANGE
from paraphrastic.data.vocab import Vocabulary, add_tags
from paraphrastic.errors import PipelineError
from paraphrastic.evaluation.similarity import correlations, pair_embeddings
from paraphrastic.losses.margin import regularization
from paraphrastic.models.encoders import MODEL_OPTIONS, SentenceEncoder, build_model
from paraphrastic.training.epochs import Run, Streams, adam, fingerprint, resolve_device, seed_everything
from paraphrastic.training.transfer import load_model, scramble_pairs


def target_distribution(scores: torch.Tensor, low: int, high: int) -> torch.Tensor:
    """Tai et al.'s sparse target p (Eq. 6) over the classes low..high, one row per score.

    p puts y − ⌊y⌋ on ⌊y⌋ + 1 and ⌊y⌋ − y + 1 on ⌊y⌋, so that Σ_i i·p_i = y (an integer score is one-hot).
    """
    scores = scores.to(torch.float64)
    if bool(((scores < low) | (scores > high)).any()):
        raise ValueError(f"scores must lie in [{low}, {high}]")
    floor = torch.floor(scores)
    upper = scores - floor
    classes = high - low + 1
    p = torch.zeros(len(scores), classes + 1, dtype=torch.float64)  # one spare column for y = high
    index = (floor - low).long().unsqueeze(1)
    p.scatter_(1, index, (1 - upper).unsqueeze(1))
    p.scatter_(1, index + 1, upper.unsqueeze(1))
    return p[:, :classes]


def kl_loss(log_predicted: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    """Eq. 7: mean over pairs of KL(p ‖ p̂) = Σ_i p_i (log p_i − log p̂_i), with 0 · log 0 = 0."""
    return (torch.xlogy(target, target) - target * log_predicted).sum(dim=1).mean()


class SimilarityHead(nn.Module):
    """h_L, h_R -> log p̂ over the score classes (the layers above the two sentence embeddings)."""

    def __init__(self, dim: int, hidden: int, low: int, high: int):
        super().__init__()
        self.low, self.high = low, high
        self.product = nn.Linear(dim, hidden, bias=False)  # W×
        self.difference = nn.Linear(dim, hidden)  # W+ and b_h
        self.output = nn.Linear(hidden, high - low + 1)  # W_p, b_p
        for layer in (self.product, self.difference, self.output):
            nn.init.xavier_uniform_(layer.weight)
        nn.init.zeros_(self.difference.bias)
        nn.init.zeros_(self.output.bias)
        self.register_buffer("classes", torch.arange(low, high + 1, dtype=torch.float32))

    def forward(self, left: torch.Tensor, right: torch.Tensor) -> torch.Tensor:
        hidden = torch.sigmoid(self.product(left * right) + self.difference((left - right).abs()))
        return F.log_softmax(self.output(hidden), dim=-1)

    def score(self, log_predicted: torch.Tensor) -> torch.Tensor:
        """ŷ = rᵀp̂."""
        return log_predicted.exp() @ self.classes


class PairScorer(nn.Module):
    """A sentence encoder with the similarity head on top: what one supervised job trains."""

    def __init__(self, encoder: SentenceEncoder, head: SimilarityHead):
        super().__init__()
        self.encoder, self.head = encoder, head

    def forward(self, tokens: torch.Tensor, mask: torch.Tensor, pairs: int) -> torch.Tensor:
        """Rows 0..pairs-1 of ``tokens`` are the left sentences, the next ``pairs`` the right ones."""
        embedded = self.encoder(tokens, mask)
        return self.head(embedded[:pairs], embedded[pairs:])


def head_regularization(head: SimilarityHead, lambda_s: float) -> torch.Tensor:
    """λ_s ‖W_s‖² over the head's weight matrices (Wieting et al. 2016, Sec. 4.4.1)."""
    if not lambda_s:
        return head.classes.new_zeros(())
    return lambda_s * sum(layer.weight.pow(2).sum() for layer in (head.product, head.difference, head.output))


@torch.no_grad()
def predict(model: PairScorer, vocab: Vocabulary, frame: pd.DataFrame, *, batch_size: int = 512,
            device="cpu") -> np.ndarray:
    """ŷ for every row of ``frame`` (each distinct sentence is encoded once)."""
    was_training = model.training
    model.eval()
    left, right = pair_embeddings(model.encoder, vocab, frame, batch_size=batch_size, device=device)
    scores = []
    for start in range(0, len(left), batch_size):
        a, b = left[start:start + batch_size].to(device), right[start:start + batch_size].to(device)
        scores.append(model.head.score(model.head(a, b)).cpu())
    model.train(was_training)
    return torch.cat(scores).numpy() if scores else np.zeros(0)


def split_scores(predicted: np.ndarray, gold: np.ndarray) -> dict:
    """Pearson and Spearman × 100 (NaN for a constant prediction) and the mean squared error of one split."""
    mse = float(np.mean((predicted - gold) ** 2))
    if len(gold) < 2:
        return {"pearson": float("nan"), "spearman": float("nan"), "mse": mse}
    scores = correlations(predicted, gold)
    return {"pearson": scores["pearson"], "spearman": scores["spearman"], "mse": mse}


def universal_encoder(init_path: Path, settings: dict, vocab: Vocabulary) -> tuple[SentenceEncoder, dict]:
    """The transfer-trained encoder of ``init_path``, with this run's input regularisers, anchored at
    its own parameters: λ_w pulls the word embeddings and λ_c the compositional parameters back to them."""
    encoder, transfer_vocab, payload = load_model(init_path)
    if payload["model"] != settings["model"]:
        raise PipelineError(f"{settings['name']}: model {settings['model']!r} cannot start from {init_path}, "
                            f"a {payload['model']!r}")
    if transfer_vocab.words != vocab.words:  # word ids would silently point at other words' vectors
        raise PipelineError(f"{settings['name']}: {init_path} was trained with another vocabulary than the "
                            "supervised data's (rebuilt data/vocab?); retrain it or rebuild the supervised jobs")
    options = dict(payload["options"])
    for key in ("dropout", "word_dropout"):  # the supervised run's own input regularisers
        options.pop(key, None)
        if settings.get(key):
            options[key] = settings[key]
    encoder_state = encoder.state_dict()
    encoder = build_model(payload["model"], encoder.embedding.weight.detach().clone(), **options)
    encoder.load_state_dict(encoder_state)
    encoder.initial_embeddings.copy_(encoder.embedding.weight.detach())
    encoder.remember_initial_compositional()
    encoder.regularize_to_initial = True
    return encoder, options


def save_scorer(path, model: PairScorer, model_name: str, options: dict, vocab: Vocabulary, extra: dict) -> None:
    payload = {"model": model_name, "options": options, "vocab": vocab.words,
               "state_dict": {k: v.cpu() for k, v in model.state_dict().items()},
               "head": {"dim": model.head.product.in_features, "hidden": model.head.product.out_features,
                        "low": model.head.low, "high": model.head.high}, **extra}
    with atomic_path(path) as tmp:
        torch.save(payload, tmp)


def scorer_from_payload(payload: dict) -> PairScorer:
    """The encoder and head a loaded supervised model.pt describes."""
    shape = payload["state_dict"]["encoder.embedding.weight"].shape
    encoder = build_model(payload["model"], torch.zeros(shape), **payload["options"])
    if payload["settings"].get("init"):
        encoder.remember_initial_compositional()  # a universal run's anchors are part of its state
    model = PairScorer(encoder, SimilarityHead(**payload["head"]))
    model.load_state_dict(payload["state_dict"])
    return model


def load_scorer(path, device="cpu") -> tuple[PairScorer, Vocabulary, dict]:
    payload = torch.load(path, map_location="cpu", weights_only=False)
    return scorer_from_payload(payload).to(device), Vocabulary(payload["vocab"]), payload


def load_task(table_path, vocab_dir) -> tuple[Vocabulary, torch.Tensor, dict[str, pd.DataFrame]]:
    """The vocabulary, initial word vectors and the train / validation / test rows of a task table."""
    vocab_dir = Path(vocab_dir)
    table = read_table(table_path)
    frames = {s: table[table["split"] == s].reset_index(drop=True) for s in ("train", "validation", "test")}
    if len(frames["train"]) < 1 or len(frames["validation"]) < 2 or len(frames["test"]) < 2:
        raise PipelineError(f"{table_path}: the task table needs training pairs and at least 2 validation "
                            "and 2 test pairs")
    return (Vocabulary.load(vocab_dir / "vocab.txt"), torch.from_numpy(np.load(vocab_dir / "embeddings.npy")),
            frames)


def train_supervised(settings: dict, *, table_path, vocab_dir, out_dir, checkpoint_dir, init_path=None,
                     device: str = "auto", threads: int | None = None, progress: bool = True,
                     stop_after: int | None = None, eval_batch_size: int = 512) -> dict:
    """Train one supervised job on its task's train split; every epoch is scored on validation and test.

    model.pt holds the epoch with the best validation Pearson (the paper's model selection); the
    selection among a row's runs happens in the report, on the same validation scores.
    """
    started = time.time()
    if threads:
        torch.set_num_threads(threads)
    device = resolve_device(device)
    task = settings["task"]
    low, high = SCORE_RANGE[task]
    vocab_dir = Path(vocab_dir)
    vocab, embeddings, frames = load_task(table_path, vocab_dir)
    train_rows = frames.pop("train")
    scored = frames
    left = [vocab.ids(t) for t in train_rows["tokens1"]]
    right = [vocab.ids(t) for t in train_rows["tokens2"]]
    targets = target_distribution(torch.tensor(train_rows["score"].to_numpy()), low, high).float()

    seed = int(settings["seed"])
    seed_everything(seed)
    if settings.get("init"):
        if init_path is None:
            raise PipelineError(f"{settings['name']}: a universal run needs the transfer model (--init)")
        encoder, options = universal_encoder(Path(init_path), settings, vocab)
    else:
        options = {k: settings[k] for k in MODEL_OPTIONS if settings.get(k) is not None}
        encoder = build_model(settings["model"], embeddings, **options)
    model = PairScorer(encoder, SimilarityHead(encoder.output_dim, int(settings["head_dim"]), low, high))
    model.to(device)
    optimizer = adam(model.parameters(), settings["learning_rate"])
    inputs = [Path(table_path), vocab_dir / "vocab.txt", vocab_dir / "embeddings.npy"]
    if settings.get("init"):
        inputs.append(Path(init_path))
    run = Run(f"{task}/{settings['name']}", model, optimizer, Path(checkpoint_dir),
              fingerprint(settings, inputs, []), seed, int(settings["epochs"]), int(settings["batch_size"]))

    tags = options.get("tags") or "none"
    scramble = float(settings.get("scramble") or 0.0)
    targets = targets.to(device)

    def batch_loss(batch: np.ndarray, streams: Streams) -> torch.Tensor:
        first, second = [left[i] for i in batch], [right[i] for i in batch]
        if scramble:
            first, second = scramble_pairs(first, second, scramble, streams.scrambler)
        tokens, mask = pad([add_tags(s, tags) for s in first + second], device)
        loss = kl_loss(model(tokens, mask, len(batch)), targets[torch.as_tensor(batch, device=device)])
        return (loss + regularization(model.encoder, settings["lambda_c"], settings["lambda_w"])
                + head_regularization(model.head, settings.get("lambda_s") or 0.0))

    def score_epoch() -> dict:
        row = {}
        for split, frame in scored.items():
            predicted = predict(model, vocab, frame, batch_size=eval_batch_size, device=device)
            for key, value in split_scores(predicted, frame["score"].to_numpy()).items():
                row[f"{split}_{key}"] = value
        return row

    def describe(row: dict) -> str:
        return f"validation r {row['validation_pearson']:.2f}, test r {row['test_pearson']:.2f}"

    history = run.epochs_loop(len(left), batch_loss, score_epoch, describe, progress=progress, stop_after=stop_after)
    if history is None:
        return {"stopped_after_epoch": run.stopped_after}
    best = run.restore_best(history, "validation_pearson")
    info = {"experiment": settings["name"], "task": task, "settings": settings, "selected_epoch": best["epoch"],
            **{k: best[k] for k in best if k.startswith(("validation_", "test_"))},
            "train_pairs": len(left), "device": str(device), "threads": torch.get_num_threads(),
            "init": str(init_path) if settings.get("init") else None,
            "wall_seconds_this_call": time.time() - started,
            "train_seconds_total": float(sum(h["train_seconds"] for h in history))}
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    save_scorer(out_dir / "model.pt", model, settings["model"], options, vocab,
                {"settings": settings, "epoch": best["epoch"]})
    write_text(out_dir / "history.csv", pd.DataFrame(history).to_csv(index=False))
    write_json(out_dir / "history.json", history)
    write_json(out_dir / "train.json", info)
    return info


def init_model_path(config: dict, data_dir: Path, row: str, seed: int) -> Path:
    """model.pt of the transfer row ``row``'s STS-2016-selected run ("test" selection, as Tables 2-3
    report it), of the same seed when that run has it, else of its first seed."""
    from paraphrastic.report.build import Selection, model_dir

    try:
        sel = Selection(config, Path(data_dir), rows=[row])
    except PipelineError as exc:
        raise PipelineError(f"universal init row {row!r}: {exc}") from exc
    run, epochs = sel.chosen[row]["test"]
    return model_dir(Path(data_dir), run, seed if seed in epochs else min(epochs)) / "model.pt"
