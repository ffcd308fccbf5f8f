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

The paper trains on the Toronto Book Corpus, which is not reachable. The ordered text used here is
the UD English Web Treebank (:func:`read_documents`): its ``# newdoc id`` comments keep the document
boundaries, and its ``# text`` comments the sentences in document order.
"""

from __future__ import annotations

import math
import time
from collections import Counter
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import torch
import torch.nn.functional as F

from paraphrastic.atomic import write_json, write_text
from paraphrastic.data.corpus import read_table
from paraphrastic.data.readers import iter_lines
from paraphrastic.data.tokenize import tokenize
from paraphrastic.data.vocab import SPECIAL, UNK_ID, Vocabulary
from paraphrastic.errors import MalformedLine, PipelineError
from paraphrastic.evaluation import similarity as evaluate
from paraphrastic.models.encoders import build_model
from paraphrastic.training.epochs import Run, Streams, fingerprint, resolve_device, seed_everything
from paraphrastic.training.transfer import save_model

CORPUS_SCHEMA = pa.schema([
    ("document", pa.string()),  # the treebank's newdoc id
    ("position", pa.int32()),  # the sentence's place in its document
    ("source", pa.string()),  # file:line of its `# text` comment
    ("text", pa.string()),
    ("tokens", pa.list_(pa.string())),
])
WORDS_SCHEMA = pa.schema([("word", pa.string()), ("count", pa.int64()), ("pretrained", pa.bool_())])
INITS = ("pretrained", "random")


# ---- corpus -----------------------------------------------------------------------------------------

def read_documents(path) -> list[tuple[str, list[tuple[int, str]]]]:
    """(document id, [(line, sentence text), ...]) in file order from a CoNLL-U file.

    A sentence block must carry a ``# text`` comment (it is the untokenised sentence); a block
    before the first ``# newdoc id`` is an error, since its document is unknown.
    """
    documents: list[tuple[str, list[tuple[int, str]]]] = []
    text_line, in_block, block_start = None, False, 0
    for number, line in iter_lines(path):
        if line.startswith("# newdoc id ="):
            documents.append((line.split("=", 1)[1].strip(), []))
        elif not line.strip():
            if in_block and text_line is None:
                raise MalformedLine(path, block_start, "sentence block without a `# text =` comment")
            text_line, in_block = None, False
        else:
            if not in_block:
                in_block, block_start = True, number
            if line.startswith("# text ="):
                if not documents:
                    raise MalformedLine(path, number, "sentence before the first `# newdoc id` comment", line)
                text_line = number
                documents[-1][1].append((number, line.split("=", 1)[1].strip()))
    if in_block and text_line is None:
        raise MalformedLine(path, block_start, "sentence block without a `# text =` comment")
    return documents


def build_corpus(paths: list[Path], max_sentences: int | None = None) -> pd.DataFrame:
    """The ordered, tokenised sentences of every document of ``paths`` (first ``max_sentences``)."""
    rows = []
    for path in paths:
        for document, sentences in read_documents(path):
            for position, (line, text) in enumerate(sentences):
                rows.append({"document": document, "position": position, "source": f"{Path(path).name}:{line}",
                             "text": text, "tokens": tokenize(text)})
    frame = pd.DataFrame(rows, columns=CORPUS_SCHEMA.names)
    if max_sentences:
        frame = frame.iloc[:max_sentences].reset_index(drop=True)
    if frame.empty:
        raise PipelineError(f"no sentences in {[str(p) for p in paths]}")
    return frame


def word_table(corpus: pd.DataFrame, eval_tokens: list[list[str]], pretrained: set[str]) -> pd.DataFrame:
    """Every corpus word (count, most frequent first), then the evaluation words that only the
    pretrained vectors know; ``pretrained`` says whether a word has a pretrained vector."""
    counts = Counter(t for tokens in corpus["tokens"] for t in tokens)
    words = sorted((w for w in counts if w not in SPECIAL), key=lambda w: (-counts[w], w))
    seen = set(words)
    extra = sorted({t for tokens in eval_tokens for t in tokens if t in pretrained and t not in seen} - set(SPECIAL))
    return pd.DataFrame({"word": words + extra, "count": [counts[w] for w in words] + [0] * len(extra),
                         "pretrained": [w in pretrained for w in words + extra]})


def neighbours(corpus: pd.DataFrame) -> np.ndarray:
    """(N, 2) indices of each sentence's previous and next sentence in its document, -1 where none."""
    document = corpus["document"].to_numpy()
    same_prev = np.r_[False, document[1:] == document[:-1]]
    same_next = np.r_[document[:-1] == document[1:], False]
    index = np.arange(len(corpus))
    return np.stack([np.where(same_prev, index - 1, -1), np.where(same_next, index + 1, -1)], axis=1)


def prepare(paths: list[Path], vectors_path, eval_frame: pd.DataFrame, out_dir, *,
            max_sentences: int | None = None) -> dict:
    """corpus.parquet (ordered sentences), words.parquet and embeddings.npy (the pretrained vector of
    each word, zero where there is none; rows follow SPECIAL + words) and stats.json."""
    from paraphrastic.data.corpus import write_table
    from paraphrastic.data.vocab import read_vectors, save_matrix

    corpus = build_corpus(paths, max_sentences)
    eval_tokens = list(eval_frame["tokens1"]) + list(eval_frame["tokens2"])
    wanted = {t for tokens in corpus["tokens"] for t in tokens} | {t for tokens in eval_tokens for t in tokens}
    vectors, dim = read_vectors(vectors_path, wanted)
    words = word_table(corpus, eval_tokens, set(vectors))
    matrix = np.zeros((len(SPECIAL) + len(words), dim), dtype=np.float32)
    for i, word in enumerate(words["word"], start=len(SPECIAL)):
        if word in vectors:
            matrix[i] = vectors[word]
    out_dir = Path(out_dir)
    write_table(corpus, CORPUS_SCHEMA, out_dir / "corpus.parquet")
    write_table(words, WORDS_SCHEMA, out_dir / "words.parquet")
    save_matrix(out_dir / "embeddings.npy", matrix)
    pairs = neighbours(corpus)
    stats = {"files": [str(p) for p in paths], "documents": int(corpus["document"].nunique()),
             "sentences": len(corpus), "tokens": int(corpus["tokens"].map(len).sum()),
             "sentences_with_a_neighbour": int((pairs >= 0).any(axis=1).sum()),
             "sentences_with_both_neighbours": int((pairs >= 0).all(axis=1).sum()),
             "corpus_words": int((words["count"] > 0).sum()), "pretrained_dim": dim,
             "corpus_words_with_vectors": int(((words["count"] > 0) & words["pretrained"]).sum()),
             "evaluation_only_words": int((words["count"] == 0).sum())}
    write_json(out_dir / "stats.json", stats)
    return stats


# ---- model and loss ---------------------------------------------------------------------------------

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


def siamese_loss(center: torch.Tensor, candidates: torch.Tensor, positive: torch.Tensor,
                 present: torch.Tensor) -> torch.Tensor:
    """Categorical cross-entropy of Eq. 1's softmax against the target of Sec. 2.1, mean over sentences.

    center (B, d); candidates (B, K, d): the positives first, then the negatives; positive (B, K) bool;
    present (B, K) bool: False for a missing neighbour (a document's first or last sentence), which
    is left out of the softmax as it is not in S+ ∪ S−.
    """
    logits = F.cosine_similarity(center.unsqueeze(1), candidates, dim=-1, eps=1e-8)
    logits = logits.masked_fill(~present, -math.inf)
    target = (positive & present).float()
    target = target / target.sum(dim=1, keepdim=True)
    log_p = F.log_softmax(logits, dim=1).masked_fill(~present, 0.0)
    return -(target * log_p).sum(dim=1).mean()


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

def sts_frame(eval_path, sets: list[str]) -> pd.DataFrame:
    """The rows of ``sets`` in the evaluation table (those of them that ``evaluation.sets`` includes)."""
    frame = read_table(eval_path)
    frame = frame[frame["dataset"].isin(sets)].reset_index(drop=True)
    if frame.empty:
        raise PipelineError(f"{eval_path}: none of the sets {sets} is evaluated (see evaluation.sets)")
    return frame


def scores_of(model, vocab: Vocabulary, frame: pd.DataFrame, batch_size: int, device) -> dict:
    """Per-set Pearson and Spearman (the pipeline's scorer) and their means."""
    results = evaluate.score_sets(model, vocab, frame, batch_size=batch_size, device=device)
    return {"per_dataset": results,
            "mean_pearson": float(np.mean([r["pearson"] for r in results.values()])),
            "mean_spearman": float(np.mean([r["spearman"] for r in results.values()]))}


def train_siamese(settings: dict, *, corpus_dir, eval_path, sets: list[str], out_dir, checkpoint_dir,
                  device: str = "auto", threads: int | None = None, progress: bool = True,
                  stop_after: int | None = None, eval_batch_size: int = 512) -> dict:
    """Train one Siamese CBOW run; write model.pt (an ``avg`` encoder), history and train.json.

    Every epoch (and the starting vectors, as epoch 0) is scored on ``sets`` for the learning curve;
    the model is the last epoch's, as the paper trains a fixed number of epochs with no selection.
    """
    started = time.time()
    if threads:
        torch.set_num_threads(threads)
    device = resolve_device(device)
    corpus_dir = Path(corpus_dir)
    corpus = read_table(corpus_dir / "corpus.parquet")
    words = read_table(corpus_dir / "words.parquet")
    pretrained = np.load(corpus_dir / "embeddings.npy")
    frame = sts_frame(eval_path, sets)
    seed = int(settings["seed"])
    seed_everything(seed)
    std = float(settings["init_std"])
    vocab, matrix = initial_embeddings(words, pretrained, settings["init"], int(settings["min_count"]),
                                       std, torch.Generator().manual_seed(seed), settings.get("dim"))
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
    negatives, batch_size = int(settings["negatives"]), int(settings["batch_size"])
    epochs, lr = int(settings["epochs"]), float(settings["learning_rate"])
    optimizer = torch.optim.SGD([weight], lr=lr)
    batches_per_epoch = math.ceil(len(centers) / batch_size)
    inputs = [corpus_dir / name for name in ("corpus.parquet", "words.parquet", "embeddings.npy")] + [Path(eval_path)]
    run = Run(f"siamese/{settings['name']}", model, optimizer, Path(checkpoint_dir),
              fingerprint(settings, inputs, sets), seed, epochs, batch_size,
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
    info = {"run": settings["name"], "settings": settings, "epochs": epochs, "vocabulary": len(vocab),
            "centre_sentences": int(len(centers)), "corpus_sentences": len(corpus),
            "sentences_without_known_words": int((~usable).sum()),
            "corpus_tokens": int(sum(len(s) for s in sentences)), "device": str(device),
            "threads": torch.get_num_threads(), "initial": initial, "final": final, "timing": timing,
            "train_seconds_total": float(sum(h["train_seconds"] for h in history)),
            "wall_seconds_this_call": time.time() - started}
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    save_model(out_dir / "model.pt", model, "avg", {}, vocab, {"settings": settings, "epoch": epochs})
    rows = [{"epoch": 0, "mean_pearson": initial["mean_pearson"], "mean_spearman": initial["mean_spearman"]}]
    rows += [{k: v for k, v in h.items() if k != "per_dataset"} for h in history]
    write_text(out_dir / "history.csv", pd.DataFrame(rows).to_csv(index=False))
    write_json(out_dir / "history.json", history)
    write_json(out_dir / "train.json", info)
    return info


def time_scoring(model, vocab: Vocabulary, frame: pd.DataFrame, batch_size: int, device) -> dict:
    """Seconds to embed and compare every pair of ``frame`` (the paper's Table 3 measures this on its
    20 sets), with the pipeline's scorer; the best of three runs."""
    seconds = []
    for _ in range(3):
        start = time.perf_counter()
        evaluate.cosine_scores(model, vocab, frame, batch_size=batch_size, device=device)
        seconds.append(time.perf_counter() - start)
    return {"pairs": len(frame), "seconds": min(seconds), "seconds_per_pair": min(seconds) / max(len(frame), 1)}
