"""Cosine-similarity scoring on the STS-style sets: Pearson and Spearman ×100, group and overall means."""

from __future__ import annotations

import math
import time

import numpy as np
import pandas as pd
import torch
import torch.nn.functional as F

from paraphrastic.data import datasets
from paraphrastic.data.batching import pad
from paraphrastic.data.corpus import read_table
from paraphrastic.data.vocab import Vocabulary
from paraphrastic.errors import PipelineError
from paraphrastic.provenance import write_result


def length_batches(ids: list[list[int]], batch_size: int, device) -> list[tuple[list[int], torch.Tensor, torch.Tensor]]:
    """``ids`` in padded batches of ``batch_size``, sorted by length so they carry little padding: (the rows of
    ``ids`` in the batch, tokens, mask)."""
    order = sorted(range(len(ids)), key=lambda i: len(ids[i]))
    return [(chunk, *pad([ids[i] for i in chunk], device))
            for chunk in (order[start : start + batch_size] for start in range(0, len(order), batch_size))]


@torch.no_grad()
def embed_batches(model, batches: list[tuple[list[int], torch.Tensor, torch.Tensor]], count: int) -> torch.Tensor:
    """The model's embedding of every row of :func:`length_batches`' ``count`` rows, in eval mode."""
    was_training = model.training
    model.eval()
    out = torch.empty(count, model.output_dim)
    for chunk, tokens, mask in batches:
        out[chunk] = model(tokens, mask).float().cpu()
    model.train(was_training)
    return out


def encode(model, vocab: Vocabulary, sentences: list[list[str]], *, batch_size: int = 512,
           device: torch.device | str = "cpu") -> torch.Tensor:
    """Embed tokenised sentences; sorted by length so batches carry little padding."""
    return embed_ids(model, [vocab.ids(s, getattr(model, "tags", "none")) for s in sentences], batch_size=batch_size,
                     device=device)


def embed_ids(model, ids: list[list[int]], *, batch_size: int = 512,
              device: torch.device | str = "cpu") -> torch.Tensor:
    """:func:`encode` of sentences already mapped to the model's ids (its SOS/EOS tags included)."""
    return embed_batches(model, length_batches(ids, batch_size, device), len(ids))


class PreparedSets:
    """The evaluation table made ready to score models of one vocabulary and tag scheme again and again: each
    distinct sentence's ids, in padded length-sorted batches, and each row's two sentences. A training run scores
    its model at every evaluation point; preparing once leaves each point its forward passes (for a d=50 average
    the preparation was most of a point's time). The scores are those of :func:`score_sets`, bit for bit."""

    def __init__(self, vocab: Vocabulary, frame: pd.DataFrame, *, tags: str = "none", batch_size: int = 512,
                 device: torch.device | str = "cpu"):
        self.frame = frame.reset_index(drop=True)
        keys: dict[tuple, int] = {}
        for tokens in list(self.frame["tokens1"]) + list(self.frame["tokens2"]):
            keys.setdefault(tuple(tokens), len(keys))
        self.tags, self.count = tags, len(keys)
        self.batches = length_batches([vocab.ids(list(k), tags) for k in keys], batch_size, device)
        self.left = [keys[tuple(t)] for t in self.frame["tokens1"]]
        self.right = [keys[tuple(t)] for t in self.frame["tokens2"]]

    @classmethod
    def for_model(cls, model, vocab: Vocabulary, frame: pd.DataFrame, **kw) -> PreparedSets:
        """The sets prepared with the tag scheme ``model`` reads."""
        return cls(vocab, frame, tags=getattr(model, "tags", "none"), **kw)

    def token_ids(self) -> torch.Tensor:
        """The distinct vocabulary ids the prepared sentences read, padding included."""
        ids = [tokens.reshape(-1) for _, tokens, _ in self.batches]
        return torch.cat(ids).unique().cpu() if ids else torch.zeros(0, dtype=torch.long)

    def pair_embeddings(self, model) -> tuple[torch.Tensor, torch.Tensor]:
        """(g(s1), g(s2)) for every row."""
        if getattr(model, "tags", "none") != self.tags:  # its ids would be another scheme's
            raise ValueError(f"sets prepared with tags {self.tags!r}, model takes {getattr(model, 'tags', 'none')!r}")
        embedded = embed_batches(model, self.batches, self.count)
        return embedded[self.left], embedded[self.right]

    def cosine_scores(self, model) -> np.ndarray:
        """cos(g(s1), g(s2)) for every row."""
        return F.cosine_similarity(*self.pair_embeddings(model)).numpy()

    def score(self, model) -> dict[str, dict]:
        """Per-dataset correlations, as :func:`score_sets` gives them."""
        return per_set_correlations(self.frame, self.cosine_scores(model))


def correlations(predicted: np.ndarray, gold: np.ndarray) -> dict:
    if np.ptp(predicted) == 0:  # a constant predictor has no defined correlation
        return {"pearson": math.nan, "spearman": math.nan, "pairs": len(gold)}
    # pandas' own Pearson and Spearman (average ranks), as scipy.stats gives them to within 1e-15: scipy.stats alone
    # took a second to import in every training and scoring job
    frame = pd.DataFrame({"predicted": predicted, "gold": gold}, dtype="float64")
    return {
        "pearson": 100 * float(frame.corr("pearson").iloc[0, 1]),
        "spearman": 100 * float(frame.corr("spearman").iloc[0, 1]),
        "pairs": len(gold),
    }


def cosine_scores(model, vocab: Vocabulary, frame: pd.DataFrame, **kw) -> np.ndarray:
    """cos(g(s1), g(s2)) for every row."""
    return PreparedSets.for_model(model, vocab, frame, **kw).cosine_scores(model)


def per_set_correlations(frame: pd.DataFrame, predicted: np.ndarray) -> dict[str, dict]:
    """Correlations of ``predicted`` (one score per row of ``frame``, positional) with gold, per dataset.

    A set whose correlation no model could have (fewer than two pairs, or gold scores all equal) is an error naming
    it: its NaN would otherwise enter every mean and selection built on it."""
    gold = frame["score"].to_numpy()
    sets = frame.groupby("dataset", sort=False).indices
    for name, rows in sets.items():
        if len(rows) < 2 or np.ptp(gold[rows]) == 0:
            reason = f"{len(rows)} pair" if len(rows) < 2 else f"all {len(rows)} gold scores are {gold[rows][0]:g}"
            raise PipelineError(f"evaluation set {name!r}: {reason}, so no correlation is defined; rebuild the "
                                "evaluation table (prepare_eval) or leave the set out of evaluation.sets")
    return {name: correlations(predicted[rows], gold[rows]) for name, rows in sets.items()}


def score_sets(model, vocab: Vocabulary, frame: pd.DataFrame, **kw) -> dict[str, dict]:
    """Per-dataset correlations for every dataset in ``frame`` (the eval parquet table); a model scored more than
    once on the same table: :class:`PreparedSets`."""
    return PreparedSets.for_model(model, vocab, frame, **kw).score(model)


def summarize(results: dict[str, dict], selection: list[str]) -> dict:
    """Group means, the transfer mean over the sets present (22 in a full run) and the selection mean."""
    def mean(ids, key="pearson"):
        values = [results[i][key] for i in ids if i in results]
        return float(np.mean(values)) if values else math.nan

    present = [s for s in datasets.EVAL_SETS if s.id in results]
    groups = {}
    for spec in present:
        groups.setdefault(spec.group, []).append(spec.id)
    transfer = [s.id for s in present if s.transfer]
    return {
        "transfer_sets": len(transfer),
        "transfer_pearson": mean(transfer),
        "transfer_spearman": mean(transfer, "spearman"),
        "selection_sets": len([i for i in selection if i in results]),
        "selection_pearson": mean(selection),
        "groups": {g: {"pearson": mean(ids), "spearman": mean(ids, "spearman"), "sets": len(ids)}
                   for g, ids in groups.items()},
    }


def split_scores(predicted: np.ndarray, gold: np.ndarray) -> dict:
    """Pearson and Spearman × 100 (NaN for a constant prediction) and the mean squared error of one split."""
    mse = float(np.mean((predicted - gold) ** 2))
    if len(gold) < 2:
        return {"pearson": float("nan"), "spearman": float("nan"), "mse": mse}
    scores = correlations(predicted, gold)
    return {"pearson": scores["pearson"], "spearman": scores["spearman"], "mse": mse}


def sts_frame(eval_path, sets: list[str]) -> pd.DataFrame:
    """The rows of ``sets`` in the evaluation table (those of them that ``evaluation.sets`` includes): the
    seed systems of Kenter et al. are scored on the 20 STS 2012-2015 sets."""
    frame = read_table(eval_path)
    frame = frame[frame["dataset"].isin(sets)].reset_index(drop=True)
    if frame.empty:
        raise PipelineError(f"{eval_path}: none of the sets {sets} is evaluated (see evaluation.sets)")
    return frame


def scores_of(model, vocab: Vocabulary, frame: pd.DataFrame, batch_size: int, device) -> dict:
    """Per-set Pearson and Spearman (the pipeline's scorer) and their means over the sets of ``frame``."""
    results = score_sets(model, vocab, frame, batch_size=batch_size, device=device)
    return {"per_dataset": results,
            "mean_pearson": float(np.mean([r["pearson"] for r in results.values()])),
            "mean_spearman": float(np.mean([r["spearman"] for r in results.values()]))}


def time_scoring(model, vocab: Vocabulary, frame: pd.DataFrame, batch_size: int, device) -> dict:
    """Seconds to embed and compare every pair of ``frame`` (the paper's Table 3 measures this on its
    20 sets), with the pipeline's scorer; the best of three runs."""
    seconds = []
    for _ in range(3):
        start = time.perf_counter()
        cosine_scores(model, vocab, frame, batch_size=batch_size, device=device)
        seconds.append(time.perf_counter() - start)
    return {"pairs": len(frame), "seconds": min(seconds), "seconds_per_pair": min(seconds) / max(len(frame), 1)}


def write_scores(model, vocab: Vocabulary, *, eval_path, out, name: str, meta: dict, selection: list[str],
                 batch_size: int, device, stage: str, tokenizer=None) -> dict:
    """Score ``model`` on every set of the evaluation table and write the results file (per set, summary,
    and how long scoring took, with its record: :func:`paraphrastic.provenance.write_result`); returns the
    summary. With ``tokenizer`` (a static model's, :mod:`paraphrastic.data.static_tokenizer`) the sets' text is read
    by it instead of the table's tokens."""
    from paraphrastic.data.static_tokenizer import read_with

    started = time.time()
    frame = read_table(eval_path)
    if tokenizer is not None:
        frame = read_with(frame, tokenizer)
    results = score_sets(model, vocab, frame, batch_size=batch_size, device=device)
    summary = summarize(results, selection)
    write_result(out, {"run": name, **meta, "seconds": time.time() - started, "summary": summary,
                       "datasets": results}, stage=stage)
    return summary
