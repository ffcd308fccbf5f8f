"""The teacher's sentence embeddings of unlabelled text: the targets of sentence-level distillation (beyond the paper).

Model2Vec's Tokenlearn trains static vectors so that a sentence's mean word vector approaches the teacher's embedding
of that sentence; here the text is all the unlabelled text the mirror holds (the training pairs' sentences of
SimpWiki and PPDB, SimpWiki's extra pairs, the treebank's sentences), never an evaluation set's. Each distinct text
is kept once, with the first source that has it.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa

from paraphrastic.data.distill import INSTALL_HINT
from paraphrastic.data.transformer_folders import quiet_loading
from paraphrastic.errors import PipelineError

TARGETS_SCHEMA = pa.schema([("text", pa.string()), ("tokens", pa.list_(pa.string())), ("source", pa.string())])


def unlabelled_texts(sources: dict[str, Iterable[tuple[str, list[str]]]], *, excluded: set[tuple[str, ...]],
                     max_per_source: int | None = None) -> tuple[pd.DataFrame, dict]:
    """One row per distinct text (columns text, tokens, source), in the sources' order; a text whose tokens are
    an evaluation sentence's (``excluded``: lower-cased token tuples) or empty is left out. ``max_per_source`` keeps
    each source's first N texts (tests). Returns the table and, per source, how many texts it gave, how many
    repeated an earlier one and how many were evaluation sentences."""
    seen: set[str] = set()
    rows, counts = [], {}
    for source, items in sources.items():
        kept = repeated = held_out = 0
        for text, tokens in items:
            if max_per_source is not None and kept == max_per_source:
                break
            tokens = list(tokens)
            if not tokens or text in seen:
                repeated += bool(tokens)
                continue
            seen.add(text)
            if tuple(tokens) in excluded:
                held_out += 1
                continue
            rows.append({"text": text, "tokens": tokens, "source": source})
            kept += 1
        counts[source] = {"texts": kept, "repeated": repeated, "evaluation_sentences_excluded": held_out}
    frame = pd.DataFrame(rows, columns=["text", "tokens", "source"])
    if frame.empty:
        raise PipelineError("sentence-level distillation: no unlabelled text (are the corpora empty?)")
    return frame, counts


def sentence_set(frame: pd.DataFrame) -> set[tuple[str, ...]]:
    """Every distinct sentence of a pair table (both sides) as a tuple of its tokens: what "is this an evaluation
    sentence" looks up."""
    return {tuple(tokens) for side in ("tokens1", "tokens2") for tokens in frame[side]}


def training_pairs(frame: pd.DataFrame, *, excluded: set[tuple[str, ...]]) -> tuple[list[tuple[list[str], list[str]]],
                                                                                int]:
    """A pair table's pairs (tokens1, tokens2) whose sides are no evaluation sentence (``excluded``: their token
    tuples), as the unlabelled texts are kept: the static model trains on no test sentence, whichever objective
    reads it. Returns the pairs and how many were left out."""
    pairs = [(list(a), list(b)) for a, b in zip(frame["tokens1"], frame["tokens2"], strict=True)]
    kept = [(a, b) for a, b in pairs if tuple(a) not in excluded and tuple(b) not in excluded]
    return kept, len(pairs) - len(kept)


# Texts the teacher embeds per call, and per saved chunk of a job (about two minutes of one CPU thread): a stopped job
# resumes from its last chunk. Each call sorts its texts by length into batches, so an uninterrupted job makes the same
# calls as a resumed one and both give the same bytes.
CHUNK_TEXTS = 8192


def _load_teacher(teacher: Path, device: str):
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    try:
        from sentence_transformers import SentenceTransformer
    except ImportError as exc:
        raise PipelineError(f"sentence-level distillation needs {INSTALL_HINT}: {exc}") from exc
    with quiet_loading():
        return SentenceTransformer(str(teacher), device=device)


def teacher_embeddings(texts: list[str], teacher: Path, *, device: str = "cpu", batch_size: int = 64,
                       checkpoints: Path | None = None, chunk: int = CHUNK_TEXTS) -> np.ndarray:
    """The teacher's sentence embedding of each text (its own pooling and normalisation), float32, one row each,
    embedded ``chunk`` texts at a time. With ``checkpoints`` (a folder of the job's own) each chunk is saved there as
    it is done, and a job stopped at any point resumes from the chunks of the same texts, teacher, batch size and
    device (a folder of other ones is started over); :func:`remove_checkpoints` removes it once the caller has
    written what it made."""
    import hashlib
    import json
    import shutil

    from paraphrastic.atomic import atomic_path, write_json

    model = None
    parts = []
    identity = hashlib.sha256(json.dumps({"texts": texts, "teacher": Path(teacher).name, "batch_size": batch_size,
                                          "chunk": chunk, "device": str(device).split(":")[0]}).encode()).hexdigest()
    stamp = None if checkpoints is None else Path(checkpoints) / "texts.json"
    if stamp is not None:
        if not stamp.is_file() or json.loads(stamp.read_text(encoding="utf-8")).get("identity") != identity:
            shutil.rmtree(checkpoints, ignore_errors=True)  # the job's own scratch, never a user's file
            write_json(stamp, {"identity": identity, "texts": len(texts), "chunk": chunk})
    done = 0
    for start in range(0, len(texts), chunk):
        saved = None if checkpoints is None else Path(checkpoints) / f"chunk-{start // chunk:05d}.npy"
        if saved is not None and saved.is_file():
            try:
                part = np.load(saved)
            except (OSError, ValueError):  # a chunk cut short by the stop: embedded again
                part = None
            if part is not None and part.shape[0] == len(texts[start:start + chunk]):
                parts.append(part)
                done += 1
                continue
        if model is None:
            if done:
                print(f"resuming after {done} chunk(s) of {chunk} texts saved in {checkpoints}")
            model = _load_teacher(teacher, device)
        part = np.asarray(model.encode(texts[start:start + chunk], batch_size=batch_size, convert_to_numpy=True,
                                       show_progress_bar=False), dtype=np.float32)
        if saved is not None:
            with atomic_path(saved) as tmp, open(tmp, "wb") as handle:
                np.save(handle, part)
        parts.append(part)
    if not parts:
        return np.zeros((0, 0), dtype=np.float32)
    return np.concatenate(parts)


def remove_checkpoints(checkpoints: Path | None) -> None:
    """The chunks of :func:`teacher_embeddings`, once what they made is written."""
    import shutil

    if checkpoints is not None:
        shutil.rmtree(checkpoints, ignore_errors=True)
