"""Training with the margin objective: Adam, per-epoch evaluation on the similarity sets, checkpoints
and exact resume (the loop itself is :mod:`paraphrastic.training.epochs`)."""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import torch

from paraphrastic.configuration.settings import TransferSettings
from paraphrastic.data.batching import length_bucketed, pad
from paraphrastic.data.corpus import read_table, table_record
from paraphrastic.data.vocab import add_tags, load_vectors
from paraphrastic.errors import PipelineError
from paraphrastic.evaluation import similarity
from paraphrastic.losses.margin import choose_negatives, hinge, margin_loss
from paraphrastic.losses.regularization import regularization, with_penalty
from paraphrastic.models.encoders import build_model
from paraphrastic.models.files import save_model
from paraphrastic.phases import phase
from paraphrastic.runtime import prepare_job
from paraphrastic.training.augmentation import scramble_pairs
from paraphrastic.training.epochs import (
    Run,
    Streams,
    adam,
    epoch_ends,
    fingerprint,
    recover_damaged_checkpoints,
    seed_everything,
    write_run,
)
from paraphrastic.training.reached_rows import narrow_embedding, reached_ids, widen_embedding

POINTS_PER_EPOCH = {"quarter": 4, "epoch": 1}  # settings.evaluate_every


def margin_loss_deterministic_negatives(model: torch.nn.Module, tokens: torch.Tensor, mask: torch.Tensor,
                                       margin: float, *, sampling: str = "max",
                                       generator: torch.Generator | None = None) -> torch.Tensor:
    """The margin loss of a batch as the authors' code computes it (models.py, utils.get_pairs_fast): each pair's
    negatives are chosen on the sentences embedded without dropout, and the loss embeds the pairs and, in a training
    pass of their own (with their own dropout masks), the chosen negatives. ``tokens``: the batch's first sentences,
    then their paraphrases. Consumes the ``generator`` as :func:`margin_loss` does."""
    size = tokens.shape[0] // 2
    with torch.no_grad():
        model.eval()
        clean = model(tokens, mask)
        model.train()
    n1, n2 = choose_negatives(clean[:size], clean[size:], sampling=sampling, generator=generator)
    embedded = model(tokens, mask)
    picked = torch.cat([n1, n2])
    negatives = model(tokens[picked], mask[picked])
    return hinge(embedded[:size], embedded[size:], negatives[:size], negatives[size:], margin)


@recover_damaged_checkpoints
def train(settings: TransferSettings, *, train_path, vocab_dir, eval_path, selection: list[str], out_dir,
          checkpoint_dir, device: str = "auto", threads: int | None = None, progress: bool = True,
          stop_after: int | None = None, eval_batch_size: int = 512) -> dict:
    """Train one experiment; write model.pt (STS-2016-selected epoch), history.csv and train.json.

    ``stop_after`` ends the run after that many epochs in this call (for resume tests) without
    writing the final outputs, exactly as if the job had been killed after its checkpoint.
    """
    started = time.time()
    device = prepare_job(device, threads)
    out_dir, checkpoint_dir = Path(out_dir), Path(checkpoint_dir)
    checkpoint_dir.mkdir(parents=True, exist_ok=True)

    with phase("loading"):
        vocab, matrix = load_vectors(vocab_dir)
        embeddings = torch.from_numpy(matrix)
        corpus = read_table(train_path)
        if settings.max_pairs:
            corpus = corpus.iloc[: settings.max_pairs]
        left = [vocab.ids(t) for t in corpus["tokens1"]]  # tags are added per batch, after scrambling
        right = [vocab.ids(t) for t in corpus["tokens2"]]
        eval_frame = read_table(eval_path)
        missing = sorted(set(selection) - set(eval_frame["dataset"]))
        if missing:  # a mean over fewer sets would select silently on other data
            raise PipelineError(f"{eval_path}: no pairs of the selection set(s) {missing}: the evaluation table is "
                                "incomplete; rebuild it (prepare_eval)")

        seed = settings.seed
        seed_everything(seed)
        options = settings.model_options()
        model = build_model(settings.model, embeddings, **options)
        scored_sets = similarity.PreparedSets.for_model(model, vocab, eval_frame, batch_size=eval_batch_size,
                                                        device=device)
        rows = reached_ids(left, right, scored_sets.token_ids())
        narrow_embedding(model, rows)
        model.to(device)
        optimizer = adam(model.parameters(), settings.learning_rate, epsilon=settings.adam_epsilon)
        vocab_dir = Path(vocab_dir)
        # checkpoints hold the reached rows only, so one written with another set of rows is stale
        stamp = fingerprint({**settings.as_dict(), "embedding_rows": len(rows)},
                            [Path(train_path), vocab_dir / "vocab.txt", vocab_dir / "embeddings.npy",
                             Path(eval_path)], selection)
    batch_size = settings.batch_size
    arrange = None
    if settings.length_buckets:
        # a batch pads to its longest sentence, of either side of a pair
        lengths = np.maximum([len(s) for s in left], [len(s) for s in right])

        def arrange(order: np.ndarray, epoch: int) -> np.ndarray:
            return length_bucketed(order, lengths, batch_size, settings.length_buckets,
                                   np.random.default_rng([seed, epoch, 3]))

    run = Run(settings.name, model, optimizer, checkpoint_dir, stamp, seed, settings.epochs,
              batch_size, min_batch=2, arrange=arrange,  # a lone pair has no in-batch negative
              points_per_epoch=POINTS_PER_EPOCH[settings.evaluate_every], select_on="selection_pearson")
    # Without dropout the deterministic pass is the training pass, and a negative's own pass repeats its
    # embedding: the shared pass gives the same loss and gradients at less than half the cost.
    dropped = settings.dropout > 0 or settings.word_dropout > 0
    separate_negative_pass = settings.negative_pass == "deterministic" and dropped

    def batch_loss(batch: np.ndarray, streams: Streams) -> torch.Tensor:
        first, second = [left[i] for i in batch], [right[i] for i in batch]
        if settings.scramble:
            first, second = scramble_pairs(first, second, settings.scramble, streams.scrambler)
        tokens, mask = pad([add_tags(s, settings.tags) for s in first + second], device)
        if not separate_negative_pass:
            embedded = model(tokens, mask)
            loss = margin_loss(embedded[: len(batch)], embedded[len(batch):], settings.margin,
                               sampling=settings.sampling, generator=streams.negatives)
        else:
            loss = margin_loss_deterministic_negatives(model, tokens, mask, settings.margin,
                                                       sampling=settings.sampling, generator=streams.negatives)
        return with_penalty(loss, regularization(model, settings.penalty(settings.lambda_c),
                                                 settings.penalty(settings.lambda_w)))

    def score_epoch() -> dict:
        results = scored_sets.score(model)
        summary = similarity.summarize(results, selection)
        return {"selection_pearson": summary["selection_pearson"], "transfer_pearson": summary["transfer_pearson"],
                "per_dataset": {k: v["pearson"] for k, v in results.items()},
                "per_dataset_spearman": {k: v["spearman"] for k, v in results.items()}}

    def describe(row: dict) -> str:
        return f"STS16 {row['selection_pearson']:.2f}, transfer {row['transfer_pearson']:.2f}"

    history = run.epochs_loop(len(left), batch_loss, score_epoch, describe, progress=progress,
                              stop_after=stop_after)
    if history is None:
        return {"stopped_after_epoch": run.stopped_after}
    # "test" model selection (Sec. 4.1.2): the point with the best mean Pearson on STS 2016.
    best = run.restore_best(history, "selection_pearson")
    widen_embedding(model)
    # the text it trained on: the table, its digest and reading (data.reading), from the table's own record
    record = table_record(train_path)
    text = {"table": Path(train_path).name, "sha256": record["sha256"],
            "reading": record.get("about", {}).get("reading")}
    info = {"run": settings.name, "settings": settings.as_dict(), "training_text": text,
            "selected_epoch": best["epoch"],
            "selection_pearson": best["selection_pearson"], "transfer_pearson": best["transfer_pearson"],
            "train_pairs": len(left), "device": str(device), "threads": torch.get_num_threads(),
            "wall_seconds_this_call": time.time() - started,
            "train_seconds_total": float(sum(h["train_seconds"] for h in epoch_ends(history)))}
    return write_run(out_dir, history, info, stage="train", save=lambda path: save_model(
        path, model, settings.model, options, vocab, {"settings": settings.as_dict(), "epoch": best["epoch"],
                                                      "training_text": text}))
