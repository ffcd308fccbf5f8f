"""The word2vec baseline of Siamese CBOW (Kenter et al. 2016, Sec. 3.2): the average of word2vec
vectors (CBOW and skip-gram) trained on the same ordered corpus, scored like every other model.

gensim trains the vectors with the paper's "default settings": minimum frequency 5, window 5,
sample threshold 1e-5, no hierarchical softmax, 5 negative examples. One worker thread and a fixed
hash make a run reproducible (gensim seeds each word's initial vector from a hash of the word,
which Python randomises per process unless told otherwise).
"""

from __future__ import annotations

import time
import zlib
from pathlib import Path

import numpy as np
import torch

from paraphrastic.data.corpus import read_table
from paraphrastic.data.vocab import SPECIAL, Vocabulary
from paraphrastic.evaluation.similarity import scores_of, sts_frame, time_scoring
from paraphrastic.models.encoders import build_model
from paraphrastic.models.files import save_model
from paraphrastic.provenance import write_result
from paraphrastic.runtime import set_threads

ARCHITECTURES = {"cbow": 0, "skipgram": 1}  # gensim's `sg`


def stable_hash(text: str) -> int:
    return zlib.crc32(text.encode("utf-8"))


def train_vectors(sentences: list[list[str]], architecture: str, settings: dict, seed: int):
    from gensim.models import Word2Vec

    if architecture not in ARCHITECTURES:
        raise KeyError(f"unknown word2vec architecture {architecture!r}; known: {sorted(ARCHITECTURES)}")
    return Word2Vec(sentences=sentences, sg=ARCHITECTURES[architecture], vector_size=int(settings["dim"]),
                    window=int(settings["window"]), min_count=int(settings["min_count"]),
                    sample=float(settings["sample"]), negative=int(settings["negative"]), hs=0,
                    epochs=int(settings["epochs"]), seed=seed, workers=1, hashfxn=stable_hash)


def averaging_model(vectors) -> tuple[torch.nn.Module, Vocabulary]:
    """An ``avg`` encoder over gensim's vectors (special rows zero: unknown words are left out)."""
    words = [w for w in vectors.index_to_key if w not in SPECIAL]
    matrix = np.zeros((len(SPECIAL) + len(words), vectors.vector_size), dtype=np.float32)
    if words:
        matrix[len(SPECIAL):] = np.stack([vectors[w] for w in words])
    return build_model("avg", torch.from_numpy(matrix)), Vocabulary(SPECIAL + words)


def train_baselines(settings: dict, *, corpus_dir, eval_path, sets: list[str], out_dir, seed: int,
                    threads: int | None = None, eval_batch_size: int = 512) -> dict:
    """Train both architectures (the paper reports both); each one's model.pt and the scores of all."""
    set_threads(threads)
    corpus = read_table(Path(corpus_dir) / "corpus.parquet")
    sentences = [list(t) for t in corpus["tokens"]]
    frame = sts_frame(eval_path, sets)
    out_dir = Path(out_dir)
    results = {}
    for architecture in ARCHITECTURES:
        started = time.time()
        w2v = train_vectors(sentences, architecture, settings, seed)
        model, vocab = averaging_model(w2v.wv)
        (out_dir / architecture).mkdir(parents=True, exist_ok=True)
        save_model(out_dir / architecture / "model.pt", model, "avg", {}, vocab,
                   {"settings": {**settings, "architecture": architecture, "seed": seed}})
        results[architecture] = {"vocabulary": len(vocab), "train_seconds": time.time() - started,
                                 "final": scores_of(model, vocab, frame, eval_batch_size, "cpu"),
                                 "timing": time_scoring(model, vocab, frame, eval_batch_size, "cpu")}
        mean = results[architecture]["final"]["mean_pearson"]
        print(f"word2vec {architecture}: mean r {mean:.2f} over {frame['dataset'].nunique()} sets")
    summary = {"settings": settings, "seed": seed, "corpus_sentences": len(sentences),
               "corpus_tokens": int(sum(map(len, sentences))), "threads": torch.get_num_threads(),
               "architectures": results}
    write_result(out_dir / "results.json", summary, stage="word2vec",
                 files=tuple(f"{architecture}/model.pt" for architecture in ARCHITECTURES))
    return summary
