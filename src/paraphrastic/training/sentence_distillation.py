"""Sentence-level distillation (beyond the paper): the distilled word vectors trained so that a sentence's mean word
vector approaches the teacher's embedding of it, Model2Vec's Tokenlearn on our vocabulary.

As Tokenlearn: each word is a unit direction times a learned weight (both start from the distilled vector: as the
distill stage weights it, or with ``start_weights: none`` its Zipf weight divided out by the caller), a
sentence the mean of its words' weighted directions, mapped linearly to the teacher's embeddings (reduced by PCA with
``target_dims``: the teacher's space and the word vectors' PCA basis differ), and the loss (squared error, or one
minus the cosine) to them minimised with AdamW. The map starts as torch initialises a linear layer (Tokenlearn's), or
with ``map_init: least_squares`` as the least-squares fit of the targets on the untrained vectors' sentence means.

What is kept is a table of static word vectors that avg averages as it does any: weight × direction, with the linear
map either dropped (``map: dropped``, Tokenlearn's choice) or folded into every row (``map: folded``: a sentence's
mean of the rows ``W·v + b`` is the map of its mean, so the kept vectors give exactly the mapped sentence vector the
loss was computed on, in the target space). With ``sif_after``, each row is then scaled by its word's SIF weight
``a / (a + p(w))``, ``p(w)`` the word's add-one smoothed frequency in the training texts (Tokenlearn's last step: a
frequent word counts less in a sentence's mean). ``post_processing`` then fits a last linear step on the training
texts' sentence vectors alone (``whiten``: ZCA whitening, centred; ``output_dims``: PCA to that width), folded into
the rows the same way.

With ``paraphrase_weight``, each batch also adds the paper's margin loss (δ 0.4, hardest in-batch negatives) on a
batch of training paraphrase pairs, computed on the sentence vectors as they are kept (mapped with ``map: folded``):
both objectives at once. Unlike Tokenlearn, the epoch kept is the one whose kept vectors score the best STS 2016 mean
under avg (the paper's model selection); the held-out loss is recorded beside it.
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
import torch
from torch import nn

from paraphrastic.data.batching import pad
from paraphrastic.data.vocab import SPECIAL, UNK_ID
from paraphrastic.evaluation import similarity
from paraphrastic.losses.margin import margin_loss
from paraphrastic.models.encoders import build_model
from paraphrastic.runtime import prepare_job
from paraphrastic.training.epochs import Run, fingerprint, recover_damaged_checkpoints, seed_everything

LOSSES = ("squared_error", "cosine")
MAPS = ("dropped", "folded")
MAP_INITS = ("random", "least_squares")
POST_PROCESSING = ("none", "whiten")
START_WEIGHTS = ("zipf", "none")
PARAPHRASE_PAIRS = ("simpwiki", "ppdb")
PARAPHRASE_MARGIN = 0.4  # the paper's δ
PARAPHRASE_BATCH = 100  # the paper's batch of pairs


@dataclass(frozen=True)
class SentenceDistillationSettings:
    """``word_vectors.sentence_distilled`` in params.yaml."""

    start_weights: str = "zipf"  # the distilled vectors as the distill stage weights them, or "none": unweighted
    target_dims: int | None = 256  # PCA of the teacher's embeddings (None: the teacher's embeddings as they are)
    loss: str = "squared_error"  # or "cosine": one minus the cosine to the target
    map: str = "dropped"  # or "folded" into the kept vectors (their width is then the targets')
    map_init: str = "random"  # torch's Linear init, as Tokenlearn; or "least_squares": fit to the targets first
    post_processing: str = "none"  # or "whiten" (ZCA on the training texts' sentence vectors)
    output_dims: int | None = None  # PCA of the kept vectors to this width, fit as post_processing is (None: none)
    sif_after: float | None = None  # SIF coefficient a of the weights applied after training (None: none)
    epochs: int = 5
    batch_size: int = 256
    learning_rate: float = 1e-3
    weight_decay: float = 0.01  # AdamW's (torch's default, Tokenlearn's optimizer)
    paraphrase_weight: float = 0.0  # the margin loss on paraphrase pairs, added at this weight (0: none)
    paraphrase_pairs: str = "simpwiki"  # whose training pairs (data/corpus/<this>.parquet)
    token_dropout: float = 0.0  # each word of a training text left out of its mean with this probability
    held_out: float = 0.05  # share of the texts whose loss is recorded, never trained on
    seed: int = 1

    def __post_init__(self):
        for key, value, allowed in (("start_weights", self.start_weights, START_WEIGHTS),
                                    ("loss", self.loss, LOSSES), ("map", self.map, MAPS),
                                    ("map_init", self.map_init, MAP_INITS),
                                    ("post_processing", self.post_processing, POST_PROCESSING),
                                    ("paraphrase_pairs", self.paraphrase_pairs, PARAPHRASE_PAIRS)):
            if value not in allowed:
                raise ValueError(f"word_vectors.sentence_distilled.{key}: {value!r} is not one of {', '.join(allowed)}")
        if not 0 <= self.token_dropout < 1:
            raise ValueError(f"word_vectors.sentence_distilled.token_dropout: {self.token_dropout!r} is not in [0, 1)")

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

    def mapped_vectors(self) -> torch.Tensor:
        """Every row through the map: their mean over a sentence is :meth:`forward`'s output for it."""
        with torch.no_grad():
            return self.projection(self.vectors())

    def mean(self, tokens: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        """Each sentence's mean of its words' weight × direction (before the map; an empty one: zeros). Only the
        rows the batch reads are multiplied out, and summed without the padding: a step's cost is then the
        optimizer's, not the padded batch's."""
        present = mask.bool()
        rows, inverse = torch.unique(tokens[present], return_inverse=True)
        read = self.weights[rows].unsqueeze(1) * self.directions[rows]
        counts = present.sum(1)
        offsets = torch.cat([counts.new_zeros(1), counts.cumsum(0)[:-1]])
        return nn.functional.embedding_bag(inverse, read, offsets, mode="mean")

    def forward(self, tokens: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        return self.projection(self.mean(tokens, mask))


def without_zipf_weights(matrix: np.ndarray, *, sif_coefficient: float | None, subwords: bool) -> np.ndarray:
    """The distill stage's matrix (special rows first, :func:`paraphrastic.data.distill.with_special_rows`) with
    its Zipf weights (:func:`paraphrastic.data.distill.reduce_and_weight`) divided out again: the teacher's PCA'd
    outputs as they were (``start_weights: none``), for a trainer that learns each word's weight itself."""
    from model2vec.distill.inference import compute_weights

    special = len(SPECIAL) + (1 if subwords else 0)
    weights = compute_weights(len(matrix) - special, sif_coefficient=sif_coefficient)
    unweighted = np.asarray(matrix, dtype=np.float64).copy()
    unweighted[special:] /= weights[:, None]
    return unweighted.astype(np.float32)


def pca_targets(embeddings: np.ndarray, dims: int | None) -> tuple[np.ndarray, float]:
    """The teacher's embeddings centred and reduced to ``dims`` principal components (the width or more: all of
    them, rotated), and the share of the variance they keep; None: the embeddings as they are (share 1)."""
    if dims is None:
        return np.asarray(embeddings, dtype=np.float32), 1.0
    centred = embeddings - embeddings.mean(0, keepdims=True)
    _, singular, components = np.linalg.svd(centred, full_matrices=False)
    keep = min(dims, len(singular))
    kept = float((singular[:keep] ** 2).sum() / max((singular ** 2).sum(), 1e-30))
    return (centred @ components[:keep].T).astype(np.float32), kept


def fit_map(model: WeightedWordMean, texts: list[list[int]], goal: torch.Tensor) -> None:
    """The map set to the least-squares fit (with its bias) of ``goal`` on the texts' mean vectors: training then
    starts from the best linear reading of the untrained vectors instead of a random one, which the vectors' first
    steps would otherwise bend towards."""
    means = sentence_means(model.vectors(), texts)
    design = torch.cat([means, means.new_ones(len(means), 1)], dim=1)
    solution = torch.linalg.lstsq(design.cpu(), goal.double().cpu()).solution.to(means.device)
    with torch.no_grad():
        model.projection.weight.copy_(solution[:-1].T)
        model.projection.bias.copy_(solution[-1])


def sentence_means(vectors: torch.Tensor, texts: list[list[int]], *, chunk: int = 4096) -> torch.Tensor:
    """Each text's mean word vector (an avg encoder's sentence vector; an empty text: zeros), float64 for the
    statistics fit on them."""
    means = []
    for start in range(0, len(texts), chunk):
        part = texts[start : start + chunk]
        flat = torch.tensor([i for text in part for i in text], dtype=torch.long, device=vectors.device)
        counts = torch.tensor([len(text) for text in part], dtype=torch.long, device=vectors.device)
        offsets = torch.cat([counts.new_zeros(1), counts.cumsum(0)[:-1]])
        means.append(nn.functional.embedding_bag(flat, vectors, offsets, mode="mean").double())
    return torch.cat(means)


def post_process(vectors: torch.Tensor, texts: list[list[int]], *, whiten: bool,
                 output_dims: int | None) -> torch.Tensor:
    """``vectors`` with a linear step fit on ``texts``' sentence vectors folded into every row: centred, then
    rotated onto the principal axes and cut to ``output_dims`` (PCA), and with ``whiten`` scaled to unit variance
    on each axis (ZCA: rotated back when no width is cut). A mean of the rows is the step applied to their mean."""
    sentences = sentence_means(vectors, texts)
    centre = sentences.mean(0)
    covariance = torch.cov((sentences - centre).T)
    eigenvalues, axes = torch.linalg.eigh(covariance)  # ascending
    eigenvalues, axes = eigenvalues.flip(0).clamp(min=0), axes.flip(1)
    keep = len(eigenvalues) if output_dims is None else min(output_dims, len(eigenvalues))
    axes, eigenvalues = axes[:, :keep], eigenvalues[:keep]
    transform = axes
    if whiten:  # a floor keeps a direction the texts never vary along from blowing up
        floor = 1e-6 * float(eigenvalues.max().clamp(min=1e-30))
        transform = axes * eigenvalues.clamp(min=floor).rsqrt()
        if output_dims is None:
            transform = transform @ axes.T  # ZCA: the whitened space in the original axes
    return ((vectors.double() - centre) @ transform).float()


def sif_weights(rows: int, texts: list[list[int]], coefficient: float) -> torch.Tensor:
    """Each of ``rows`` words' SIF weight ``a / (a + p(w))``, ``p(w)`` its count in ``texts`` plus one over the
    total (Tokenlearn's ``apply_weighting``: a word the texts never hold is weighted as if seen once)."""
    counts = torch.ones(rows, dtype=torch.float64)
    counts += torch.bincount(torch.tensor([i for text in texts for i in text], dtype=torch.long), minlength=rows)
    return coefficient / (coefficient + counts / counts.sum())


def kept_vectors(model: WeightedWordMean, settings: SentenceDistillationSettings,
                 fit_texts: list[list[int]]) -> torch.Tensor:
    """The static vectors the run keeps (see the module docstring); ``fit_texts``: the training texts' word ids."""
    vectors = model.mapped_vectors() if settings.map == "folded" else model.vectors()
    if settings.sif_after is not None:
        weights = sif_weights(len(vectors), fit_texts, settings.sif_after)
        vectors = (vectors.double() * weights.to(vectors.device).unsqueeze(1)).float()
    if settings.post_processing != "none" or settings.output_dims is not None:
        vectors = post_process(vectors, fit_texts, whiten=settings.post_processing == "whiten",
                               output_dims=settings.output_dims)
    # A word the tokenizer cannot read adds nothing: model2vec leaves <unk> out of a sentence's mean, and a zero row
    # among the rows a mean averages (sentence-transformers', avg's) shortens it without turning it, so all three
    # give the same cosines.
    vectors = vectors.clone()
    vectors[UNK_ID] = 0
    return vectors


def adamw(parameters: list[nn.Parameter], settings: SentenceDistillationSettings) -> torch.optim.Optimizer:
    """AdamW as one fused kernel where this torch has it (torch >= 2.4, as :func:`paraphrastic.training.epochs.adam`):
    the whole vocabulary is updated every step, and the multi-tensor update took two thirds of a step on a CPU."""
    try:
        return torch.optim.AdamW(parameters, lr=settings.learning_rate, weight_decay=settings.weight_decay, fused=True)
    except (RuntimeError, TypeError, ValueError):  # an older torch, or a device without the fused kernel
        return torch.optim.AdamW(parameters, lr=settings.learning_rate, weight_decay=settings.weight_decay)


@recover_damaged_checkpoints
def train(settings: SentenceDistillationSettings, *, vocab, embeddings: torch.Tensor, texts: list[list[int]],
          targets: np.ndarray, eval_frame, selection: list[str], inputs: list[Path], checkpoint_dir,
          pairs: list[tuple[list[int], list[int]]] | None = None, device: str = "auto", threads: int | None = None,
          progress: bool = True, stop_after: int | None = None) -> dict:
    """Train the vectors; returns {"vectors": the selected epoch's kept vectors (float32 numpy), "history": a row
    per epoch, "selected": that row, "target_variance": the PCA's share, ...}, or {"stopped_after_epoch": N} with
    ``stop_after`` (resume tests). ``texts``: each text's word ids; ``pairs``: the paraphrase pairs' word ids (with
    ``paraphrase_weight``); ``inputs``: the files a resume must share."""
    started = time.time()
    device = prepare_job(device, threads)
    if len(texts) != len(targets):
        raise ValueError(f"{len(texts)} texts but {len(targets)} teacher embeddings")
    if settings.paraphrase_weight and len(pairs or []) < 2:
        raise ValueError("word_vectors.sentence_distilled.paraphrase_weight needs at least 2 paraphrase pairs")
    seed_everything(settings.seed)
    reduced, variance = pca_targets(targets, settings.target_dims)
    order = np.random.default_rng([settings.seed, 0]).permutation(len(texts))
    held = order[: int(round(len(texts) * settings.held_out))]
    trained = order[len(held):]
    fit_texts = [texts[i] for i in trained]  # post-processing is fit on the training texts alone
    goal = torch.from_numpy(reduced).to(device)
    model = WeightedWordMean(embeddings.float(), reduced.shape[1]).to(device)
    if settings.map_init == "least_squares":
        fit_map(model, fit_texts, goal[torch.as_tensor(trained, device=device)])
    optimizer = adamw(list(model.parameters()), settings)
    stamp = fingerprint(asdict(settings), inputs, selection)
    run = Run("sentence_distilled", model, optimizer, Path(checkpoint_dir), stamp, settings.seed, settings.epochs,
              settings.batch_size, select_on="selection_pearson")

    def loss_of(items: np.ndarray, dropout: np.random.Generator | None = None) -> torch.Tensor:
        tokens, mask = pad([texts[i] for i in items], device)
        if dropout is not None and settings.token_dropout:  # the target stays the whole text's
            kept = mask * torch.from_numpy(dropout.random(tuple(mask.shape)) >= settings.token_dropout).to(mask)
            emptied = kept.sum(1) == 0  # a text keeps its words where every one was drawn
            mask = torch.where(emptied.unsqueeze(1), mask, kept)
        predicted, wanted = model(tokens, mask), goal[torch.as_tensor(items, device=device)]
        if settings.loss == "cosine":
            return (1 - nn.functional.cosine_similarity(predicted, wanted, dim=1)).mean()
        return ((predicted - wanted) ** 2).mean()

    def as_kept(tokens: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        return model(tokens, mask) if settings.map == "folded" else model.mean(tokens, mask)

    def batch_loss(batch: np.ndarray, streams) -> torch.Tensor:
        loss = loss_of(trained[batch], streams.scrambler)  # the epoch's stream: a resumed epoch drops the same words
        if settings.paraphrase_weight:
            # drawn from the epoch's negatives stream: a resumed epoch draws the same pairs
            drawn = torch.randperm(len(pairs), generator=streams.negatives)[:PARAPHRASE_BATCH]  # no pair twice
            tokens, mask = pad([pairs[i][0] for i in drawn] + [pairs[i][1] for i in drawn], device)
            embedded = as_kept(tokens, mask)
            loss = loss + settings.paraphrase_weight * margin_loss(embedded[: len(drawn)], embedded[len(drawn):],
                                                                   PARAPHRASE_MARGIN)
        return loss

    scored_sets = similarity.PreparedSets(vocab, eval_frame, device=device)  # an avg encoder: no tags

    def score_epoch() -> dict:
        with torch.no_grad():
            chunks = [held[i : i + 1024] for i in range(0, len(held), 1024)]
            error = sum(float(loss_of(c)) * len(c) for c in chunks) / max(len(held), 1)
            encoder = build_model("avg", kept_vectors(model, settings, fit_texts)).to(device)  # scored on its device
        results = scored_sets.score(encoder)
        summary = similarity.summarize(results, selection)
        return {"selection_pearson": summary["selection_pearson"], "transfer_pearson": summary["transfer_pearson"],
                "held_out_loss": error, "per_dataset": {k: v["pearson"] for k, v in results.items()}}

    def describe(row: dict) -> str:
        return (f"held-out {settings.loss.replace('_', ' ')} {row['held_out_loss']:.5f}, "
                f"STS16 {row['selection_pearson']:.2f}, transfer {row['transfer_pearson']:.2f}")

    history = run.epochs_loop(len(trained), batch_loss, score_epoch, describe, progress=progress,
                              stop_after=stop_after)
    if history is None:
        return {"stopped_after_epoch": run.stopped_after}
    best = run.restore_best(history, "selection_pearson")
    vectors = kept_vectors(model, settings, fit_texts)
    return {"vectors": vectors.cpu().numpy().astype(np.float32), "history": history, "selected": best,
            "target_variance": variance, "texts": len(texts), "held_out_texts": len(held),
            "seconds_this_call": time.time() - started}
