"""Stanza's training entry points, one after another in one process:
``python -m paraphrastic.training.stanza_trainers PLAN.json``.

Each of Stanza's trainers (``stanza.models.tagger``, ``.lemmatizer``, ``.parser``) is a command of its own, and
each command imports Stanza, torch and transformers first: about 7 s on a CPU, more than a small model's
training. Run here in one process, the trainers share that import. Each trainer's ``main`` seeds its own random
generators from its arguments, so a trainer run after another trains the model it trains alone.

PLAN.json is a list of ``{"module": ..., "args": [...]}``, a step with ``"resume": FOLDER`` trained so that a
stopped process resumes (:func:`train_tagger`, :func:`train_parser`): Stanza's trainers keep no state a rerun could
continue from exactly (the tagger none at all; the parser's checkpoint neither its data order nor the random
generators), so here each checkpoint, written with every dev evaluation, holds that too, and a resumed trainer ends
with the model an uninterrupted one ends with, byte for byte. Before each trainer a line ``BEGIN<module>`` goes to
stdout, so that the caller (:func:`paraphrastic.training.stanza.run_stanza`) can give each trainer's output a log of
its own.
"""

from __future__ import annotations

import importlib
import io
import json
import os
import random
import sys
from pathlib import Path

import numpy as np
import torch

from paraphrastic.allocator import keep_freed_memory
from paraphrastic.atomic import atomic_path

BEGIN = "@@paraphrastic.stanza_trainers: "
CHECKPOINT = "checkpoint.pt"  # in a resumable trainer's folder


def rng_states() -> dict:
    """The states of every random generator Stanza's training draws from, as tensors and plain values."""
    kind, keys, position, has_gauss, cached = np.random.get_state()
    return {"python": random.getstate(), "torch": torch.get_rng_state(),
            "numpy": [kind, torch.from_numpy(keys.astype(np.int64)), position, has_gauss, cached]}


def set_rng_states(states: dict) -> None:
    random.setstate(tuple(states["python"][:1]) + (tuple(states["python"][1]),) + tuple(states["python"][2:]))
    torch.set_rng_state(states["torch"])
    kind, keys, position, has_gauss, cached = states["numpy"]
    np.random.set_state((kind, keys.numpy().astype(np.uint32), position, has_gauss, cached))


def save_atomically(obj, path: Path) -> None:
    """torch.save through :func:`~paraphrastic.atomic.atomic_path`: a stop mid-write leaves the last whole file."""
    with atomic_path(path) as tmp:
        torch.save(obj, tmp)


def _saved_atomically(save):
    """A trainer's ``save(filename, ...)`` that writes ``filename`` whole or not at all (through ``atomic_path``)."""
    def save_whole(self, filename, *args, **kwargs):
        with atomic_path(filename) as tmp:
            save(self, str(tmp), *args, **kwargs)
    return save_whole


def _read_checkpoint(path: Path) -> dict | None:
    """A resumable trainer's checkpoint, or None where there is none or it cannot be read (started over)."""
    if not path.is_file():
        return None
    try:
        return torch.load(path, map_location="cpu", weights_only=True)
    except Exception as exc:  # noqa: BLE001 (torch raises assorted errors for a damaged file)
        print(f"{path}: unreadable ({exc}); training from the start", flush=True)
        return None


class _Pass:
    """The tagger's batches (Stanza's ShuffledDataset), one pass at a time, knowing the random generators' states at
    the pass's start and how many batches it has given: what a resumed trainer replays to stand where it stopped.
    Replaying draws the same batches, because only the data draws from Python's generator and the model draws from
    torch's only after a pass's batches are begun."""

    def __init__(self, batches):
        self.batches, self.started, self.taken = batches, None, 0

    def __iter__(self):
        self.started, self.taken = rng_states(), 0
        for batch in self.batches:
            self.taken += 1
            yield batch

    def resumed(self, started: dict, taken: int, now: dict):
        """The pass a checkpoint stopped in, after its ``taken`` batches; the generators then as at the checkpoint."""
        set_rng_states(started)
        iterator = iter(self)
        for _ in range(taken):
            next(iterator)
        set_rng_states(now)
        return iterator


def train_tagger(argv: list[str], folder: Path) -> None:
    """Stanza's tagger trained as ``python -m stanza.models.tagger`` trains it (its loop for the options this
    pipeline gives: the best dev checkpoint kept, evaluations every ``eval_interval`` steps), checkpointed with each
    evaluation in ``folder`` and resumed from there."""
    from stanza.models import tagger
    from stanza.models.common import utils

    args = tagger.parse_args(args=argv)
    used = [name for name in ("save_each", "wandb", "log_norms", "adapt_eval_interval", "charlm") if args.get(name)]
    if args.get("second_optim") and args["max_steps"] > args["max_steps_before_stop"]:
        used.append("a switch to second_optim (max_steps above max_steps_before_stop)")
    if used:
        raise SystemExit(f"the resumable tagger does not take {', '.join(used)}")
    utils.set_random_seed(args["seed"])
    model_file = tagger.model_file_name(args)
    utils.ensure_dir(os.path.split(model_file)[0])
    pretrain = tagger.load_pretrain(args)
    args["word_cutoff"] = utils.update_word_cutoff(pretrain, args["word_cutoff"])
    vocab, train_data, train_batches = tagger.load_training_data(args, pretrain)
    dev_doc = tagger.CoNLL.conll2doc(input_file=args["eval_file"])
    dev_data = tagger.Dataset(dev_doc, args, pretrain, vocab=vocab, evaluation=True, sort_during_eval=True)
    dev_batch = dev_data.to_loader(batch_size=args["batch_size"])
    eval_type = tagger.get_eval_type(dev_data)
    if sum(len(td) for td in train_data) == 0 or len(dev_data) == 0:
        raise SystemExit("no training or dev data for the tagger")
    trainer = tagger.Trainer(args=args, vocab=vocab, pretrain=pretrain, device=args["device"],
                             foundation_cache=tagger.FoundationCache())
    passes = _Pass(train_batches)
    state = {"global_step": 0, "dev_score_history": [], "last_best_step": 0, "train_loss": 0.0}
    checkpoint, iterator = folder / CHECKPOINT, None
    saved = _read_checkpoint(checkpoint)
    if saved is not None:
        trainer.model.load_state_dict(saved["model"])
        for name, optimizer in trainer.optimizers.items():
            optimizer.load_state_dict(saved["optimizers"][name])
        for name, scheduler in trainer.schedulers.items():
            scheduler.load_state_dict(saved["schedulers"][name])
        state = saved["state"]
        iterator = passes.resumed(saved["pass_started"], saved["pass_taken"], saved["rng"])
        print(f"resuming the tagger after step {state['global_step']} ({checkpoint})", flush=True)
    save_best = _saved_atomically(type(trainer).save)
    line = "Finished STEP {}/{}, loss = {:.6f}"

    def finished() -> bool:  # Stanza's ends: the step budget, or no better dev score for max_steps_before_stop
        # (where there is a second optimiser, Stanza switches to it instead: refused above, within the budget)
        return (state["global_step"] >= args["max_steps"]
                or state["global_step"] - state["last_best_step"] >= args["max_steps_before_stop"])

    while not finished():
        for batch in iterator if iterator is not None else iter(passes):
            state["global_step"] += 1
            loss = trainer.update(batch, eval=False)
            state["train_loss"] += loss
            step = state["global_step"]
            if step % args["log_step"] == 0:
                print(line.format(step, args["max_steps"], loss), flush=True)
            if step % args["eval_interval"] == 0:
                dev_preds, dev_extra, indices = [], [], []
                for dev in dev_batch:
                    preds, extra = trainer.predict(dev, extra_columns=True)
                    dev_preds += preds
                    dev_extra += extra
                    indices.extend(dev.idx)
                dev_preds = utils.unsort(dev_preds, indices)
                dev_extra = utils.unsort(dev_extra, indices)
                tagger.set_predictions(dev_data.doc, trainer, dev_preds,
                                       dev_extra if args.get("write_extra_tag_columns") else None)
                _, _, dev_score = tagger.scorer.score(io.StringIO(f"{dev_data.doc:C}\n\n"),
                                                      args["eval_file"], eval_type=eval_type)
                train_loss = state["train_loss"] / args["eval_interval"]
                print(f"step {step}: train_loss = {train_loss:.6f}, dev_score = {dev_score:.4f}", flush=True)
                state["train_loss"] = 0.0
                if not state["dev_score_history"] or dev_score > max(state["dev_score_history"]):
                    state["last_best_step"] = step
                    save_best(trainer, model_file)
                    print("new best model saved.", flush=True)
                state["dev_score_history"].append(dev_score)
                save_atomically({"model": trainer.model.state_dict(),
                                 "optimizers": {n: o.state_dict() for n, o in trainer.optimizers.items()},
                                 "schedulers": {n: s.state_dict() for n, s in trainer.schedulers.items()},
                                 "state": state, "pass_started": passes.started, "pass_taken": passes.taken,
                                 "rng": rng_states()}, checkpoint)
            if finished():
                break
        iterator = None
    print(f"Training ended with {state['global_step']} steps.", flush=True)
    if not state["dev_score_history"]:
        save_best(trainer, model_file)


class _ResumableBatches:
    """Stanza's parser draws its batches from an ``InfiniteBatch``; this one also records, with each checkpoint, the
    order of the current pass and how far into it the trainer is, and a resumed trainer continues from there with the
    random generators as they were (Stanza's own checkpoint holds the model, the optimiser and the step)."""

    resume: dict | None = None  # the side state the next one built resumes from

    def __init__(self, infinite):
        self.infinite, self.position = infinite, 0
        self.pending, type(self).resume = type(self).resume, None

    def next_batch(self):
        loader = self.infinite.batches[0]
        if self.pending is not None:  # where the checkpoint stopped: that pass, that many batches in
            loader.sampler.batches = [list(b) for b in self.pending["batches"]]
            self.infinite.iterators[0] = (loader[i] for i in range(self.pending["position"], len(loader)))
            self.position = self.pending["position"]
            set_rng_states(self.pending["rng"])
            self.pending = None
        iterator = self.infinite.iterators[0]
        batch = self.infinite.next_batch()
        self.position = 1 if self.infinite.iterators[0] is not iterator else self.position + 1
        return batch

    def state(self) -> dict:
        return {"batches": self.infinite.batches[0].sampler.batches, "position": self.position, "rng": rng_states()}

    def __getattr__(self, name):  # the rest of InfiniteBatch's interface (only reached for what is not set here)
        if name == "infinite":
            raise AttributeError(name)
        return getattr(self.infinite, name)


def train_parser(argv: list[str], folder: Path) -> None:
    """Stanza's parser trained by ``python -m stanza.models.parser`` with its checkpoint (written with each dev
    evaluation), beside which each checkpoint also writes the pass's order, the position in it and the random
    generators' states (``batches-<step>.pt``): a stopped trainer resumes to the same model."""
    from stanza.models import parser
    from stanza.models.depparse import trainer as trainers

    checkpoint = folder / CHECKPOINT
    saved = _read_checkpoint(checkpoint)
    if saved is not None and not (folder / f"batches-{saved.get('global_step')}.pt").is_file():
        saved = None
    if saved is None:  # none, a damaged one or one without its batches: from the start
        checkpoint.unlink(missing_ok=True)
    else:
        _ResumableBatches.resume = torch.load(folder / f"batches-{saved['global_step']}.pt", weights_only=True)
        print(f"resuming the parser after step {saved['global_step']} ({checkpoint})", flush=True)
    built, infinite_batch = [], parser.InfiniteBatch

    def infinite(*batches, **kwargs):
        built.append(_ResumableBatches(infinite_batch(*batches, **kwargs)))
        return built[-1]

    save = trainers.Trainer.save

    def save_checkpointed(self, filename, *args, save_optimizer=False, **kwargs):
        if save_optimizer:  # the checkpoint: its batches first, so that a checkpoint never lacks them
            side = folder / f"batches-{self.global_step}.pt"
            save_atomically(built[-1].state(), side)
            _saved_atomically(save)(self, filename, *args, save_optimizer=True, **kwargs)
            for old in folder.glob("batches-*.pt"):
                if old != side:
                    old.unlink()
        else:
            _saved_atomically(save)(self, filename, *args, **kwargs)

    parser.InfiniteBatch = infinite
    trainers.Trainer.save = save_checkpointed
    try:
        parser.main([*argv, "--checkpoint_save_name", str(checkpoint)])
    finally:
        trainers.Trainer.save, parser.InfiniteBatch = save, infinite_batch


RESUMABLE = {"stanza.models.tagger": train_tagger, "stanza.models.parser": train_parser}


def main(argv: list[str] | None = None) -> None:
    keep_freed_memory()  # the trainers' own process (see the function): bit-identical models, ~10% faster
    (plan,) = sys.argv[1:] if argv is None else argv
    for step in json.loads(Path(plan).read_text(encoding="utf-8")):
        print(f"{BEGIN}{step['module']}", flush=True)
        if step.get("resume"):
            folder = Path(step["resume"])
            folder.mkdir(parents=True, exist_ok=True)
            RESUMABLE[step["module"]](step["args"], folder)
        else:
            importlib.import_module(step["module"]).main(step["args"])
        sys.stdout.flush()
        sys.stderr.flush()


if __name__ == "__main__":
    main()
