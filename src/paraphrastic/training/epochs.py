"""The resumable epoch loop every trainer shares: seeded order, per-epoch checkpoints, exact resume.

A killed job restarts from ``last.pt`` in its checkpoint directory. Shuffling is seeded by
(seed, epoch) and all RNG states are checkpointed, so a resumed run ends with the same parameters
and metrics as an uninterrupted one. ``last.pt`` is written after every epoch and, when the job
gets SIGTERM (what SLURM sends on preemption, ``scancel`` or a time limit, before SIGKILL), at the
next batch boundary: the resubmitted job then resumes mid-epoch instead of redoing the epoch.
Checkpoints hold tensors and plain values only and are read with ``weights_only=True``
(:func:`paraphrastic.models.files.read_payload`). A damaged one (unreadable, or not fitting the model) is
named and recovered from: an unreadable ``last.pt`` starts the run over; any other is a
:class:`DamagedCheckpoint`, on which :func:`recover_damaged_checkpoints` trains again from the start.
The transfer trainer (margin objective, :mod:`paraphrastic.training.transfer`) and the supervised one
(:mod:`paraphrastic.training.supervised`) differ only in the loss of a batch and the scores of an epoch.
"""

from __future__ import annotations

import functools
import hashlib
import json
import math
import random
import signal
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
import torch
from tqdm import tqdm

from paraphrastic.atomic import atomic_path, sha256_file, write_json, write_text
from paraphrastic.errors import DamagedCheckpoint, TrainingDiverged, TrainingInterrupted
from paraphrastic.models.encoders import load_weights
from paraphrastic.models.files import JOB_RECORD, brief_error, read_payload
from paraphrastic.phases import phase
from paraphrastic.provenance import write_result

# Settings that do not change the trained result. Every other setting does: a checkpoint made under
# different values is stale. `epochs` is here on purpose: raising it continues a finished run,
# lowering it selects among fewer epochs (a transfer job keeps only its best point's weights: where that point
# lies past the new end, the job finds its weights missing and trains again, to the same result).
NEUTRAL_KEYS = ("name", "epochs")


def fingerprint(settings: dict, inputs: list[Path], selection: list[str]) -> str:
    """Settings, the contents of every input file and the selection sets: what a resume must share."""
    relevant = {k: v for k, v in settings.items() if k not in NEUTRAL_KEYS}
    relevant["inputs"] = [sha256_file(p) for p in inputs]
    relevant["selection"] = list(selection)
    return hashlib.sha256(json.dumps(relevant, sort_keys=True).encode()).hexdigest()[:16]


ADAM_EPSILONS = ("uncorrected", "corrected")  # the `adam_epsilon` setting
EPSILON = 1e-8  # Adam's ε in torch and in Lasagne alike


class LasagneAdam(torch.optim.Adam):
    """Adam as Lasagne's ``adam`` steps (lasagne/updates.py:613,624), which the authors' code trains with:
    α·sqrt(1 − β2^t)/(1 − β1^t) · m_t / (sqrt(v_t) + ε), the ε added to the root of the uncorrected second moment.
    torch's Adam adds it after the bias correction, m̂_t / (sqrt(v̂_t) + ε) (Kingma & Ba's Algorithm 1); Lasagne's
    step is that step with ε / sqrt(1 − β2^t) in ε's place, so each step sets that and takes torch's (fused) step.

    Where the two part: that ε is 3.2e-7 at the first step and falls to torch's over a few thousand, and early in
    training a weight whose gradient is that small moves by the full learning rate under torch's placement and by a
    fraction of it under Lasagne's, so the two sides' weights differ from the first step on (fidelity/
    steps.py); on the offline runs' results the difference is within their seeds' spread (docs/fidelity.md). The
    step count travels in the optimizer's state, so a resumed job continues the schedule.
    """

    def __init__(self, parameters, lr: float, **kwargs):
        super().__init__(parameters, lr=lr, eps=EPSILON, **kwargs)
        for group in self.param_groups:
            group["steps_taken"] = 0

    @torch.no_grad()
    def step(self, closure=None):
        for group in self.param_groups:
            group["steps_taken"] += 1
            group["eps"] = EPSILON / math.sqrt(1.0 - group["betas"][1] ** group["steps_taken"])
        return super().step(closure)


def adam(parameters, lr: float, *, epsilon: str) -> torch.optim.Optimizer:
    """Adam with its ε where ``epsilon`` puts it (``uncorrected``: :class:`LasagneAdam`, the authors' code;
    ``corrected``: torch's Adam), as one fused kernel over all parameters where this torch has it (CPU and CUDA,
    torch >= 2.4).

    Why fused: the word embeddings are updated densely every batch (as in the original code), and with
    the multi-tensor implementation that update alone took half of a d=50 training step on a CPU.
    The algorithm is the same; results differ only by floating-point rounding.
    """
    if epsilon not in ADAM_EPSILONS:
        raise ValueError(f"adam_epsilon must be one of {ADAM_EPSILONS}, not {epsilon!r}")
    kind = LasagneAdam if epsilon == "uncorrected" else torch.optim.Adam
    parameters = list(parameters)
    try:
        return kind(parameters, lr=lr, fused=True)
    except (RuntimeError, TypeError, ValueError):  # an older torch, or a device without the fused kernel
        return kind(parameters, lr=lr)


def seed_everything(seed: int) -> None:
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)


def _rng_state() -> dict:
    # numpy's MT19937 key as a tensor: a checkpoint holds tensors and plain values only (weights_only loads)
    kind, key, position, has_gauss, gauss = np.random.get_state()
    state = {"python": random.getstate(), "numpy": (kind, torch.from_numpy(key.astype(np.int64)), position,
                                                     has_gauss, gauss), "torch": torch.get_rng_state()}
    if torch.cuda.is_available():
        state["cuda"] = torch.cuda.get_rng_state_all()
    return state


def _set_rng_state(state: dict) -> None:
    random.setstate(state["python"])
    kind, key, position, has_gauss, gauss = state["numpy"]
    np.random.set_state((kind, key.numpy().astype(np.uint32), position, has_gauss, gauss))
    torch.set_rng_state(state["torch"])
    if "cuda" in state and torch.cuda.is_available():
        torch.cuda.set_rng_state_all(state["cuda"])


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


@dataclass
class Streams:
    """One epoch's random streams. Separate per epoch, so a resumed run draws exactly what an
    uninterrupted one does: the order of the training items, scrambling draws and negative sampling."""

    order: np.ndarray
    scrambler: np.random.Generator
    negatives: torch.Generator

    @classmethod
    def of_epoch(cls, seed: int, epoch: int, items: int) -> Streams:
        negatives = torch.Generator().manual_seed(int(np.random.default_rng([seed, epoch, 2]).integers(2**62)))
        return cls(np.random.default_rng([seed, epoch]).permutation(items), np.random.default_rng([seed, epoch, 1]),
                   negatives)


def _place(epoch: int, next_item: int, losses: list[float], seconds: float, streams: Streams) -> dict:
    """Where an epoch stands: the next item of its order, its losses so far and its generators' states."""
    return {"epoch": epoch, "next": next_item, "losses": list(losses), "train_seconds": seconds,
            "scrambler": streams.scrambler.bit_generator.state, "negatives": streams.negatives.get_state()}


def inner_points(batches: int, points: int) -> dict[int, float]:
    """{batch number (from 1) after which an epoch of ``batches`` batches is evaluated: the fraction of the epoch}
    for ``points`` points an epoch, its end left out. The batch is rounded as the authors' check_quarter rounds
    (Python 2's round: halves away from zero); a point that falls on the epoch's start or end is none, and of two
    that fall after the same batch (an epoch of few batches) the later names it."""
    found: dict[int, float] = {}
    for k in range(1, points):
        after = math.floor(batches * k / points + 0.5)
        if 0 < after < batches:
            found[after] = k / points
    return found


def point_label(epoch: int, fraction: float = 1.0) -> int | float:
    """An evaluation point's ``epoch`` in the history: the epochs trained, an integer at an epoch's end (2.25: a
    quarter into the third epoch). Its checkpoint is ``epoch-<label>.pt``."""
    label = epoch - 1 + fraction
    return int(label) if float(label).is_integer() else label


@dataclass
class Run:
    """One training job's loop: what it trains, where it checkpoints, and how long."""

    name: str
    model: torch.nn.Module
    optimizer: torch.optim.Optimizer
    checkpoint_dir: Path
    stamp: str  # fingerprint(): a checkpoint with another stamp is stale
    seed: int
    epochs: int
    batch_size: int
    min_batch: int = 1  # smaller final batches are skipped (in-batch negatives need 2 pairs)
    # (order, epoch) -> the epoch's order rearranged (e.g. batching by length); deterministic, so resume is exact
    arrange: Callable[[np.ndarray, int], np.ndarray] | None = None
    # (epoch, first item of the batch) before each batch: a learning-rate schedule (a resumed run calls it
    # with the same arguments an uninterrupted one does, so the schedule resumes too)
    schedule: Callable[[int, int], None] | None = None
    stopped_after: int | None = None  # the last epoch done when ``stop_after`` ended the loop
    # evaluation points an epoch, its end included: 4 = each quarter, as the authors' code (check_quarter); 1 = the end
    points_per_epoch: int = 1
    # the history key the job selects on: when set, only the best point's weights are kept (epoch-<point>.pt), so
    # more points an epoch do not mean more files; None keeps every point's
    select_on: str | None = None

    @property
    def last(self) -> Path:
        return self.checkpoint_dir / "last.pt"

    def _discard(self) -> None:
        """Remove the job's checkpoints (its own scratch): what they held is computed again."""
        for checkpoint in self.checkpoint_dir.glob("*.pt"):
            checkpoint.unlink(missing_ok=True)

    def _damaged(self, path: Path, reason: str) -> DamagedCheckpoint:
        """The error of a damaged checkpoint, its directory's checkpoints discarded (a rerun starts over)."""
        self._discard()
        return DamagedCheckpoint(path, f"{reason}; discarded the checkpoints in {self.checkpoint_dir}", self.name)

    def save_resume_state(self, epochs_done: int, history: list[dict], partial: dict | None = None) -> None:
        """last.pt: everything a rerun needs to go on, after ``epochs_done`` epochs and, with ``partial``
        (see :func:`_place`), from a batch boundary inside the next one."""
        state = {"epoch": epochs_done, "fingerprint": self.stamp, "model": self.model.state_dict(),
                 "optimizer": self.optimizer.state_dict(), "rng": _rng_state(), "history": history}
        if partial is not None:
            state["partial"] = partial
        with phase("writing"), atomic_path(self.last) as tmp:
            torch.save(state, tmp)

    def resume(self, print_fn) -> tuple[list[dict], int, dict | None]:
        """(history, first epoch to run, place inside it) from last.pt, or a fresh start."""
        self.checkpoint_dir.mkdir(parents=True, exist_ok=True)
        if not self.last.exists():
            return [], 1, None
        try:
            # To CPU (read_payload's map_location): RNG states must stay CPU tensors; load_state_dict moves the rest.
            state = read_payload(self.last, "checkpoint", error=self._damaged)
            if not isinstance(state, dict) or "fingerprint" not in state:
                raise self._damaged(self.last, "a torch file, but not a checkpoint of this pipeline")
        except DamagedCheckpoint as exc:  # e.g. truncated by a crash: start over rather than fail forever
            print_fn(f"[{self.name}] {exc}; starting over")
            return [], 1, None
        if state["fingerprint"] != self.stamp:
            print_fn(f"[{self.name}] ignoring stale checkpoint {self.last} (other settings or inputs)")
            self._discard()
            return [], 1, None
        try:  # a checkpoint that does not fit: the model may be half-loaded, so the trainer must start again
            load_weights(self.model, state["model"])
            self.optimizer.load_state_dict(state["optimizer"])
            _set_rng_state(state["rng"])
            partial = state.get("partial")
            first = state["epoch"] + 1
            history = list(state["history"])
            if partial is not None:  # what epochs_loop will restore, tried now
                missing = {"epoch", "next", "losses", "train_seconds"} - set(partial)
                if missing:
                    raise KeyError(f"partial epoch without {sorted(missing)}")
                np.random.PCG64().state = partial["scrambler"]
                torch.Generator().set_state(partial["negatives"])
        except Exception as exc:
            raise self._damaged(self.last, f"it does not fit this run's model ({brief_error(exc)})") from exc
        where = f"at epoch {first}, pair {partial['next']}" if partial else f"after epoch {state['epoch']}"
        print_fn(f"[{self.name}] resuming from {self.last} {where}")
        return history, first, partial

    def epochs_loop(self, items: int, batch_loss: Callable[[np.ndarray, Streams], torch.Tensor],
                    score_epoch: Callable[[], dict], describe: Callable[[dict], str], *, progress: bool = True,
                    stop_after: int | None = None) -> list[dict] | None:
        """Train (or resume) up to ``epochs``; the history, a row per evaluation point (each epoch's end and, with
        ``points_per_epoch``, the points inside it), or None when ``stop_after``
        epochs ran in this call (for resume tests: as if the job had been killed after its checkpoint;
        ``stopped_after`` says after which epoch).

        ``batch_loss(indices, streams)`` is the loss of the items ``indices`` of one mini-batch;
        ``score_epoch()`` the scores recorded after each epoch; ``describe(row)`` its log line.
        """
        print_fn = tqdm.write if progress else print
        with phase("loading"):
            history, first_epoch, partial = self.resume(print_fn)
        with StopOnSignal() as stop:
            for epoch in range(first_epoch, self.epochs + 1):
                if stop_after is not None and epoch >= first_epoch + stop_after:
                    self.stopped_after = epoch - 1
                    return None
                self.model.train()
                epoch_start = time.time()
                streams = Streams.of_epoch(self.seed, epoch, items)
                if self.arrange is not None:
                    streams.order = self.arrange(streams.order, epoch)
                losses, first_item, seconds_before = [], 0, 0.0
                if partial is not None and partial["epoch"] == epoch:
                    # continue the interrupted epoch exactly where it stopped
                    first_item, losses, seconds_before = partial["next"], partial["losses"], partial["train_seconds"]
                    streams.scrambler.bit_generator.state = partial["scrambler"]
                    streams.negatives.set_state(partial["negatives"])
                partial = None
                points = inner_points(math.ceil(items / self.batch_size), self.points_per_epoch)
                bar = tqdm(total=items, initial=first_item, unit="pair",
                           desc=f"{self.name} epoch {epoch}/{self.epochs}", disable=not progress, leave=False,
                           # In a batch log (SLURM, CI) a redraw per batch floods the file: update rarely.
                           mininterval=0.5 if sys.stderr.isatty() else 30.0)
                with phase("training"):
                    for start in range(first_item, items, self.batch_size):
                        if stop.received:
                            seconds = seconds_before + time.time() - epoch_start
                            self.save_resume_state(epoch - 1, history, _place(epoch, start, losses, seconds, streams))
                            raise TrainingInterrupted(
                                f"[{self.name}] stopped by signal {stop.received} in epoch {epoch} at pair {start}; "
                                f"saved {self.last}: rerun the same command to resume there")
                        batch = streams.order[start : start + self.batch_size]
                        if len(batch) < self.min_batch:
                            continue
                        if self.schedule is not None:
                            self.schedule(epoch, start)
                        try:
                            loss = batch_loss(batch, streams)
                        except TrainingDiverged as exc:  # the penalties' guard (losses.regularization.with_penalty)
                            raise TrainingDiverged(f"[{self.name}] at epoch {epoch}, batch "
                                                   f"{start // self.batch_size + 1}: {exc}") from None
                        if not torch.isfinite(loss):
                            raise TrainingDiverged(
                                f"[{self.name}] loss is {loss.item()} at epoch {epoch}, "
                                f"batch {start // self.batch_size + 1}: training diverged "
                                "(try a lower learning_rate or check the embeddings for NaN)"
                            )
                        self.optimizer.zero_grad(set_to_none=True)
                        loss.backward()
                        self.optimizer.step()
                        losses.append(loss.item())
                        bar.update(len(batch))
                        bar.set_postfix(loss=f"{np.mean(losses[-50:]):.4f}", refresh=False)  # redraws: mininterval
                        after = start // self.batch_size + 1
                        if after in points:
                            # No last.pt here: a job killed later goes back to the last one written and trains to
                            # this point again (deterministic); SIGTERM's save at the next batch keeps this row.
                            began = time.time()
                            seconds = seconds_before + began - epoch_start
                            self._evaluate(point_label(epoch, points[after]), history, losses, seconds,
                                           after * self.batch_size, score_epoch, describe, print_fn)
                            self.model.train()
                            epoch_start += time.time() - began  # scoring is not training time
                    bar.close()
                if first_item < items:
                    # The epoch's training is done: keep it even if the job dies during evaluation (SLURM's
                    # KillWait may be shorter than scoring 27 sets); a rerun then only re-scores.
                    seconds = seconds_before + time.time() - epoch_start
                    self.save_resume_state(epoch - 1, history, _place(epoch, items, losses, seconds, streams))
                train_seconds = seconds_before + time.time() - epoch_start
                self._evaluate(epoch, history, losses, train_seconds, items, score_epoch, describe, print_fn)
                self.save_resume_state(epoch, history)
                if stop.received:  # arrived during evaluation: stop now rather than at the next batch
                    raise TrainingInterrupted(
                        f"[{self.name}] stopped by signal {stop.received} after epoch {epoch}; "
                        f"saved {self.last}: rerun the same command to resume there")
        # A finished run whose `epochs` was lowered afterwards: select among the configured epochs only.
        return [h for h in history if h["epoch"] <= self.epochs]

    def _evaluate(self, label: int | float, history: list[dict], losses: list[float], seconds: float, done: int,
                  score_epoch: Callable[[], dict], describe: Callable[[dict], str], print_fn) -> None:
        """Score the model at an evaluation point (``label``: :func:`point_label`) after ``done`` items of its
        epoch, add the history's row and keep the point's weights (:meth:`_keep_weights`)."""
        with phase("evaluation"):
            scores = score_epoch()
        row = {"epoch": label, "loss": float(np.mean(losses)) if losses else math.nan, "train_seconds": seconds,
               "pairs_per_second": done / max(seconds, 1e-9), **scores}
        history.append(row)
        print_fn(f"[{self.name}] epoch {label}: loss {row['loss']:.4f}, {describe(row)}, "
                 f"{row['pairs_per_second']:.0f} pairs/s")
        self._keep_weights(row, history)

    def _keep_weights(self, row: dict, history: list[dict]) -> None:
        """epoch-<point>.pt: every point's weights, or (``select_on``) the best point's only, the others removed."""
        best = best_of(history, self.select_on) if self.select_on is not None else row
        if best is not None and best is not row:  # None: nothing scored yet, so the latest is what the job keeps
            return
        path = self.checkpoint_dir / f"epoch-{row['epoch']}.pt"
        with phase("writing"), atomic_path(path) as tmp:
            torch.save({k: v.cpu() for k, v in self.model.state_dict().items()}, tmp)
        if self.select_on is not None:
            for other in self.checkpoint_dir.glob("epoch-*.pt"):
                if other != path:
                    other.unlink(missing_ok=True)

    def restore_best(self, history: list[dict], key: str) -> dict:
        """Load the weights of the point with the highest ``key``. A NaN never wins; a job none of whose points
        scored (a model whose scores were constant) keeps its last point, which a row's selection never picks
        (:func:`paraphrastic.evaluation.selection.select`: a run with an unscored seed is not eligible).

        A missing or damaged epoch checkpoint is a :class:`DamagedCheckpoint` naming it (the checkpoints are
        discarded: :func:`recover_damaged_checkpoints` trains again)."""
        best = best_of(history, key)
        if best is None:
            best = history[-1]
            tqdm.write(f"[{self.name}] no evaluation point has a {key} (the model's scores were constant): keeping "
                       "the last; a row's selection will not pick this run")
        path = self.checkpoint_dir / f"epoch-{best['epoch']}.pt"
        with phase("loading"):
            weights = read_payload(path, "checkpoint", error=self._damaged)
        try:
            load_weights(self.model, weights)
        except Exception as exc:
            raise self._damaged(path, f"its weights do not fit the model ({brief_error(exc)})") from exc
        return best


def epoch_ends(history: list[dict]) -> list[dict]:
    """The rows of ``history`` at an epoch's end (each epoch's training seconds are in its end's row)."""
    return [h for h in history if float(h["epoch"]).is_integer()]


def best_of(history: list[dict], key: str) -> dict | None:
    """The row of ``history`` with the highest ``key`` (the first of equals) among those scored, None if none is: how
    a job selects its epoch. A NaN (a model whose scores are constant) never wins."""
    scores = [h[key] for h in history]
    return None if all(map(math.isnan, scores)) else history[int(np.nanargmax(scores))]


def recover_damaged_checkpoints(trainer: Callable[..., dict]) -> Callable[..., dict]:
    """A trainer that, when it meets a damaged checkpoint (:class:`DamagedCheckpoint`: its checkpoints are
    discarded by then), says so naming the file and trains once more from the start. Training is
    deterministic, so the result is the one the checkpoints would have given; a second damaged checkpoint
    in the same call is an error."""

    @functools.wraps(trainer)
    def recovering(*args, **kwargs) -> dict:
        try:
            return trainer(*args, **kwargs)
        except DamagedCheckpoint as exc:
            tqdm.write(f"[{exc.job or trainer.__name__}] {exc}; training again from the start (same settings and "
                       "seed: the same result)")
        return trainer(*args, **kwargs)

    return recovering


def write_run(out_dir, history: list[dict], info: dict, save: Callable[[Path], None], *, stage: str,
              csv_rows: list[dict] | None = None) -> dict:
    """The files every trainer leaves in its run's folder, in the job's `writing` phase: ``model.pt``
    (``save(path)``), ``history.csv`` (an epoch a row, the per-set scores left to the JSON; ``csv_rows`` instead
    where given), ``history.json`` and ``train.json`` (``info``, with the record of ``stage``'s result, which
    holds history.json's digest too, :func:`paraphrastic.provenance.read_with_beside`, and those of model.pt and
    history.csv, which ``paraphrastic verify`` checks), each written atomically.
    Returns ``info``."""
    with phase("writing"):
        out_dir = Path(out_dir)
        out_dir.mkdir(parents=True, exist_ok=True)
        save(out_dir / "model.pt")
        if csv_rows is None:
            csv_rows = [{k: v for k, v in h.items() if not k.startswith("per_dataset")} for h in history]
        write_text(out_dir / "history.csv", pd.DataFrame(csv_rows).to_csv(index=False))
        write_json(out_dir / "history.json", history)
        write_result(out_dir / JOB_RECORD, info, stage=stage, beside={"history.json": history},
                     files=("model.pt", "history.csv"))
    return info
