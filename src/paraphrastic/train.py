"""Training with the margin objective: Adam, per-epoch evaluation, checkpoints and exact resume.

A killed job restarts from ``last.pt`` in its checkpoint directory. Shuffling is seeded by
(seed, epoch) and all RNG states are checkpointed, so a resumed run ends with the same parameters
and metrics as an uninterrupted one. ``last.pt`` is written after every epoch and, when the job
gets SIGTERM (what SLURM sends on preemption, ``scancel`` or a time limit, before SIGKILL), at the
next batch boundary: the resubmitted job then resumes mid-epoch instead of redoing the epoch.
"""

from __future__ import annotations

import hashlib
import json
import math
import random
import signal
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pandas as pd
import torch
from tqdm import tqdm

from . import evaluate
from .atomic import atomic_path, sha256_file, write_json, write_text
from .batching import pad
from .corpus import read_table
from .errors import TrainingDiverged, TrainingInterrupted
from .models import MODEL_OPTIONS, SentenceEncoder, build_model
from .objective import margin_loss, regularization
from .vocab import Vocabulary, add_tags

# Settings that do not change the trained result. Every other setting does: a checkpoint made under
# different values is stale. `epochs` is here on purpose: raising it continues a finished run,
# lowering it selects among fewer epochs.
NEUTRAL_KEYS = ("name", "epochs")


def fingerprint(settings: dict, inputs: list[Path], selection: list[str]) -> str:
    """Settings, the contents of every input file and the selection sets: what a resume must share."""
    relevant = {k: v for k, v in settings.items() if k not in NEUTRAL_KEYS}
    relevant["inputs"] = [sha256_file(p) for p in inputs]
    relevant["selection"] = list(selection)
    return hashlib.sha256(json.dumps(relevant, sort_keys=True).encode()).hexdigest()[:16]


def resolve_device(name: str = "auto") -> torch.device:
    if name == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    return torch.device(name)


def save_model(path, model: SentenceEncoder, model_name: str, options: dict, vocab: Vocabulary,
               extra: dict) -> None:
    """A self-contained model file: architecture name and options, vocabulary and weights."""
    payload = {"model": model_name, "options": options, "vocab": vocab.words,
               "state_dict": {k: v.cpu() for k, v in model.state_dict().items()},
               **extra}
    with atomic_path(path) as tmp:
        torch.save(payload, tmp)


def load_model(path, device: torch.device | str = "cpu") -> tuple[SentenceEncoder, Vocabulary, dict]:
    payload = torch.load(path, map_location="cpu", weights_only=False)
    shape = payload["state_dict"]["embedding.weight"].shape
    model = build_model(payload["model"], torch.zeros(shape), **payload["options"])
    model.load_state_dict(payload["state_dict"])
    return model.to(device), Vocabulary(payload["vocab"]), payload


def _rng_state() -> dict:
    state = {"python": random.getstate(), "numpy": np.random.get_state(), "torch": torch.get_rng_state()}
    if torch.cuda.is_available():
        state["cuda"] = torch.cuda.get_rng_state_all()
    return state


def _set_rng_state(state: dict) -> None:
    random.setstate(state["python"])
    np.random.set_state(state["numpy"])
    torch.set_rng_state(state["torch"])
    if "cuda" in state and torch.cuda.is_available():
        torch.cuda.set_rng_state_all(state["cuda"])


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


class StopOnSignal:
    """Turns SIGTERM into a request to stop at the next batch boundary (main thread only)."""

    def __init__(self, signals=(signal.SIGTERM,)):
        self.signals, self.received, self._previous = signals, None, {}

    def _handle(self, signum, frame):
        self.received = signum

    def __enter__(self):
        if threading.current_thread() is threading.main_thread():
            for sig in self.signals:
                self._previous[sig] = signal.signal(sig, self._handle)
        return self

    def __exit__(self, *exc):
        for sig, handler in self._previous.items():
            signal.signal(sig, handler)


def _place(epoch: int, next_pair: int, losses: list[float], seconds: float, scrambler, negatives) -> dict:
    """Where an epoch stands: the next pair of its order, its losses so far and its generators' states."""
    return {"epoch": epoch, "next": next_pair, "losses": list(losses), "train_seconds": seconds,
            "scrambler": scrambler.bit_generator.state, "negatives": negatives.get_state()}


def _save_resume_state(path: Path, epochs_done: int, stamp: str, model, optimizer, history: list[dict],
                       partial: dict | None = None) -> None:
    """last.pt: everything a rerun needs to go on, after ``epochs_done`` epochs and, with ``partial``
    (see :func:`_place`), from a batch boundary inside the next one."""
    state = {"epoch": epochs_done, "fingerprint": stamp, "model": model.state_dict(),
             "optimizer": optimizer.state_dict(), "rng": _rng_state(), "history": history}
    if partial is not None:
        state["partial"] = partial
    with atomic_path(path) as tmp:
        torch.save(state, tmp)


def train(settings: dict, *, train_path, vocab_dir, eval_path, selection: list[str], out_dir, checkpoint_dir,
          device: str = "auto", threads: int | None = None, progress: bool = True, stop_after: int | None = None,
          eval_batch_size: int = 512) -> dict:
    """Train one experiment; write model.pt (STS-2016-selected epoch), history.csv and train.json.

    ``stop_after`` ends the run after that many epochs in this call (for resume tests) without
    writing the final outputs, exactly as if the job had been killed after its checkpoint.
    """
    started = time.time()
    if threads:
        torch.set_num_threads(threads)
    device = resolve_device(device)
    out_dir, checkpoint_dir = Path(out_dir), Path(checkpoint_dir)
    checkpoint_dir.mkdir(parents=True, exist_ok=True)

    vocab = Vocabulary.load(Path(vocab_dir) / "vocab.txt")
    embeddings = torch.from_numpy(np.load(Path(vocab_dir) / "embeddings.npy"))
    corpus = read_table(train_path)
    if settings.get("max_pairs"):
        corpus = corpus.iloc[: settings["max_pairs"]]
    left = [vocab.ids(t) for t in corpus["tokens1"]]  # tags are added per batch, after scrambling
    right = [vocab.ids(t) for t in corpus["tokens2"]]
    eval_frame = read_table(eval_path)

    seed = int(settings["seed"])
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    options = {k: settings[k] for k in MODEL_OPTIONS if settings.get(k) is not None}
    model = build_model(settings["model"], embeddings, **options)
    model.to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=settings["learning_rate"])

    history: list[dict] = []
    first_epoch = 1
    partial = None  # where an interrupted epoch stopped
    last = checkpoint_dir / "last.pt"
    print_fn = tqdm.write if progress else print
    vocab_dir = Path(vocab_dir)
    stamp = fingerprint(settings, [Path(train_path), vocab_dir / "vocab.txt", vocab_dir / "embeddings.npy",
                                   Path(eval_path)], selection)
    if last.exists():
        try:
            # To CPU first: RNG states must stay CPU tensors; load_state_dict moves the rest.
            state = torch.load(last, map_location="cpu", weights_only=False)
        except Exception as exc:  # a checkpoint truncated by a crash: start over rather than fail forever
            print_fn(f"[{settings['name']}] unreadable checkpoint {last} ({exc}); starting over")
            state = {"fingerprint": None}
        if state["fingerprint"] == stamp:
            model.load_state_dict(state["model"])
            optimizer.load_state_dict(state["optimizer"])
            _set_rng_state(state["rng"])
            history = state["history"]
            first_epoch = state["epoch"] + 1
            partial = state.get("partial")
            where = f"epoch {first_epoch}, pair {partial['next']}" if partial else f"after epoch {state['epoch']}"
            print_fn(f"[{settings['name']}] resuming from {last} at {where}")
        else:
            print_fn(f"[{settings['name']}] ignoring stale checkpoint {last} (other settings or inputs)")
            for stale in checkpoint_dir.glob("*.pt"):
                stale.unlink()

    batch_size = int(settings["batch_size"])
    epochs = int(settings["epochs"])
    tags = settings.get("tags") or "none"
    scramble = float(settings.get("scramble") or 0.0)
    sampling = settings.get("sampling") or "max"
    with StopOnSignal() as stop:
        for epoch in range(first_epoch, epochs + 1):
            if stop_after is not None and epoch >= first_epoch + stop_after:
                return {"stopped_after_epoch": epoch - 1}
            model.train()
            epoch_start = time.time()
            order = np.random.default_rng([seed, epoch]).permutation(len(left))
            # Separate streams per epoch, so a resumed run draws exactly what an uninterrupted one does.
            scrambler = np.random.default_rng([seed, epoch, 1])
            negatives = torch.Generator().manual_seed(int(np.random.default_rng([seed, epoch, 2]).integers(2**62)))
            losses, first_pair, seconds_before = [], 0, 0.0
            if partial is not None and partial["epoch"] == epoch:
                # continue the interrupted epoch exactly where it stopped
                first_pair, losses, seconds_before = partial["next"], partial["losses"], partial["train_seconds"]
                scrambler.bit_generator.state = partial["scrambler"]
                negatives.set_state(partial["negatives"])
            partial = None
            bar = tqdm(total=len(order), initial=first_pair, unit="pair",
                       desc=f"{settings['name']} epoch {epoch}/{epochs}", disable=not progress, leave=False,
                       # In a batch log (SLURM, CI) a redraw per batch floods the file: update rarely.
                       mininterval=0.5 if sys.stderr.isatty() else 30.0)
            for start in range(first_pair, len(order), batch_size):
                if stop.received:
                    where = _place(epoch, start, losses, seconds_before + time.time() - epoch_start, scrambler,
                                   negatives)
                    _save_resume_state(last, epoch - 1, stamp, model, optimizer, history, where)
                    raise TrainingInterrupted(
                        f"[{settings['name']}] stopped by signal {stop.received} in epoch {epoch} at pair {start}; "
                        f"saved {last}: rerun the same command to resume there")
                batch = order[start : start + batch_size]
                if len(batch) < 2:  # a lone pair has no in-batch negative
                    continue
                first, second = [left[i] for i in batch], [right[i] for i in batch]
                if scramble:
                    first, second = scramble_pairs(first, second, scramble, scrambler)
                tokens, mask = pad([add_tags(s, tags) for s in first + second], device)
                embedded = model(tokens, mask)
                loss = margin_loss(embedded[: len(batch)], embedded[len(batch):], settings["margin"],
                                   sampling=sampling, generator=negatives)
                loss = loss + regularization(model, settings["lambda_c"], settings["lambda_w"])
                if not torch.isfinite(loss):
                    raise TrainingDiverged(
                        f"[{settings['name']}] loss is {loss.item()} at epoch {epoch}, "
                        f"batch {start // batch_size + 1}: training diverged "
                        "(try a lower learning_rate or check the embeddings for NaN)"
                    )
                optimizer.zero_grad(set_to_none=True)
                loss.backward()
                optimizer.step()
                losses.append(loss.item())
                bar.update(len(batch))
                bar.set_postfix(loss=f"{np.mean(losses[-50:]):.4f}")
            bar.close()
            if first_pair < len(order):
                # The epoch's training is done: keep it even if the job dies during evaluation (SLURM's
                # KillWait may be shorter than scoring 27 sets); a rerun then only re-scores.
                where = _place(epoch, len(order), losses, seconds_before + time.time() - epoch_start, scrambler,
                               negatives)
                _save_resume_state(last, epoch - 1, stamp, model, optimizer, history, where)
            train_seconds = seconds_before + time.time() - epoch_start
            results = evaluate.score_sets(model, vocab, eval_frame, batch_size=eval_batch_size, device=device)
            summary = evaluate.summarize(results, selection)
            row = {"epoch": epoch, "loss": float(np.mean(losses)) if losses else math.nan,
                   "train_seconds": train_seconds, "pairs_per_second": len(order) / max(train_seconds, 1e-9),
                   "selection_pearson": summary["selection_pearson"], "transfer_pearson": summary["transfer_pearson"],
                   "per_dataset": {k: v["pearson"] for k, v in results.items()},
                   "per_dataset_spearman": {k: v["spearman"] for k, v in results.items()}}
            history.append(row)
            print_fn(f"[{settings['name']}] epoch {epoch}: loss {row['loss']:.4f}, "
                     f"STS16 {row['selection_pearson']:.2f}, transfer {row['transfer_pearson']:.2f}, "
                     f"{row['pairs_per_second']:.0f} pairs/s")
            with atomic_path(checkpoint_dir / f"epoch-{epoch}.pt") as tmp:
                torch.save({k: v.cpu() for k, v in model.state_dict().items()}, tmp)
            _save_resume_state(last, epoch, stamp, model, optimizer, history)
            if stop.received:  # arrived during evaluation: stop now rather than at the next batch
                raise TrainingInterrupted(
                    f"[{settings['name']}] stopped by signal {stop.received} after epoch {epoch}; "
                    f"saved {last}: rerun the same command to resume there")

    # A finished run whose `epochs` was lowered afterwards: select among the configured epochs only.
    history = [h for h in history if h["epoch"] <= epochs]
    # "test" model selection (Sec. 4.1.2): the epoch with the best mean Pearson on STS 2016.
    scores = [h["selection_pearson"] for h in history]
    best = history[int(np.nanargmax(scores))] if not all(map(math.isnan, scores)) else history[-1]
    model.load_state_dict(torch.load(checkpoint_dir / f"epoch-{best['epoch']}.pt", map_location="cpu"))
    info = {"experiment": settings["name"], "settings": settings, "selected_epoch": best["epoch"],
            "selection_pearson": best["selection_pearson"], "transfer_pearson": best["transfer_pearson"],
            "train_pairs": len(left), "device": str(device), "threads": torch.get_num_threads(),
            "wall_seconds_this_call": time.time() - started,
            "train_seconds_total": float(sum(h["train_seconds"] for h in history))}
    out_dir.mkdir(parents=True, exist_ok=True)
    save_model(out_dir / "model.pt", model, settings["model"], options, vocab,
               {"settings": settings, "epoch": best["epoch"]})
    flat = pd.DataFrame([{k: v for k, v in h.items() if not k.startswith("per_dataset")} for h in history])
    write_text(out_dir / "history.csv", flat.to_csv(index=False))
    write_json(out_dir / "history.json", history)
    write_json(out_dir / "train.json", info)
    return info
