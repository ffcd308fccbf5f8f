"""Tokenised tables (parquet, fixed schema) for training corpora and evaluation sets, and the
token-matched PPDB/SimpWiki sample of Sec. 4.1.2."""

from __future__ import annotations

import hashlib
import json
from functools import partial
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from paraphrastic.atomic import atomic_path
from paraphrastic.data import readers
from paraphrastic.data.datasets import EvalSet
from paraphrastic.data.tokens import READINGS, authors_tokens
from paraphrastic.errors import PipelineError
from paraphrastic.provenance import check_role, identity

# The training sets a run may name (`train_set`), each one table: <name>.parquet. The *_matched pair is
# token-matched (Sec. 4.1.2).
TRAIN_SETS = ("simpwiki", "ppdb", "simpwiki_matched", "ppdb_matched")
TOKENS = pa.list_(pa.string())
TRAIN_SCHEMA = pa.schema([
    ("source", pa.string()),  # file:line the pair came from
    ("s1", pa.string()),
    ("s2", pa.string()),
    ("tokens1", TOKENS),
    ("tokens2", TOKENS),
    ("n_tokens", pa.int32()),  # len(tokens1) + len(tokens2)
])
EVAL_SCHEMA = pa.schema([
    ("dataset", pa.string()),
    ("group", pa.string()),
    ("line", pa.int32()),
    ("s1", pa.string()),
    ("s2", pa.string()),
    ("score", pa.float64()),
    ("tokens1", TOKENS),
    ("tokens2", TOKENS),
])


# A table's record of what it holds, in its parquet footer: the stage that wrote it, its rows (per set or split where
# it has them) and the sha256 of every byte before the footer, which read_table checks.
RECORD_KEY = b"paraphrastic"
COUNTED_BY = ("dataset", "split")  # the column whose values a table's rows are counted by, the first it has


class _Hashing:
    """A binary file that hashes and counts the bytes written through it (the parquet writer's sink)."""

    def __init__(self, handle):
        self.handle, self.digest, self.size, self.closed = handle, hashlib.sha256(), 0, False

    def write(self, data) -> int:
        self.digest.update(data)
        self.size += len(data)
        return self.handle.write(data)

    def flush(self) -> None:
        self.handle.flush()

    def close(self) -> None:  # the writer closes its sink; the file is closed by its own `with`
        self.closed = True


def _counts(frame: pd.DataFrame) -> tuple[str | None, dict[str, int]]:
    column = next((c for c in COUNTED_BY if c in frame.columns), None)
    return column, ({} if column is None else {str(k): int(v) for k, v in frame[column].value_counts().items()})


def write_table(frame: pd.DataFrame, schema: pa.Schema | None, path, *, stage: str | None = None,
                about: dict | None = None) -> None:
    """``frame`` as a parquet table of ``schema`` (None: the frame's own columns and types) at ``path``, written
    atomically, its footer holding a record of what it holds (:data:`RECORD_KEY`): ``stage`` (the stage that writes
    it), its rows (per set or split), the sha256 of its bytes before the footer, what it is (its role and the
    config's digest, :mod:`paraphrastic.provenance`) and ``about`` (under that key: how its stage made it, e.g. the
    training text's reading), which :func:`table_record` gives a reader of the table."""
    table = (pa.Table.from_pandas(frame, preserve_index=False) if schema is None
             else pa.Table.from_pandas(frame[schema.names], schema=schema, preserve_index=False))
    column, counts = _counts(frame)
    with atomic_path(path) as tmp, open(tmp, "wb") as handle:
        sink = _Hashing(handle)
        writer = pq.ParquetWriter(sink, table.schema)
        writer.write_table(table)
        record = {"stage": stage, "rows": len(frame), "counted_by": column, "counts": counts,
                  "bytes": sink.size, "sha256": sink.digest.hexdigest(), **identity(path),
                  **({"about": about} if about else {})}
        writer.add_key_value_metadata({RECORD_KEY.decode(): json.dumps(record, sort_keys=True)})
        writer.close()


def read_table(path) -> pd.DataFrame:
    """A parquet table a stage wrote, checked against its record (:func:`write_table`). A missing, empty, damaged,
    truncated or edited one is an error naming it and what differs, never a pyarrow traceback or a silent result:
    it is an earlier stage's output, so the remedy is to run (or rerun) that stage."""
    try:
        data = Path(path).read_bytes()
    except FileNotFoundError:
        raise PipelineError(f"{path}: no such table (an earlier stage writes it: run the pipeline up to it)") from None
    try:
        parquet = pq.ParquetFile(pa.BufferReader(data))
        frame = parquet.read().to_pandas()
    except (pa.ArrowException, OSError) as exc:
        raise PipelineError(f"{path}: not a readable parquet table ({exc}); rerun the stage that writes it") from None
    kept = (parquet.metadata.metadata or {}).get(RECORD_KEY)
    if kept is None:
        raise PipelineError(f"{path}: holds no record of what the pipeline wrote there (written by another program, "
                            "edited, or by a version before records): rerun the stage that writes it")
    record = json.loads(kept)
    check_role(path, record)
    rerun = f"rerun {record['stage']}" if record.get("stage") else "rerun the stage that writes it"
    body = len(data) - 8 - parquet.metadata.serialized_size
    column, counts = _counts(frame)
    if (len(frame), counts) != (record["rows"], record["counts"]):
        differ = sorted(k for k in set(counts) | set(record["counts"]) if counts.get(k) != record["counts"].get(k))
        raise PipelineError(f"{path}: {len(frame)} rows where {record.get('stage') or 'its stage'} wrote "
                            f"{record['rows']}" + (f" ({column} {differ[:5]} differ)" if differ else "")
                            + f": damaged or edited; {rerun}")
    if body != record["bytes"] or hashlib.sha256(memoryview(data)[:body]).hexdigest() != record["sha256"]:
        raise PipelineError(f"{path}: its content differs from what {record.get('stage') or 'its stage'} wrote (the "
                            f"sha256 of its data): damaged or edited; {rerun}")
    return frame


def table_record(path) -> dict:
    """The record a table's footer holds (:func:`write_table`), read without the table: a job's own record of the
    data it read (its sha256, and ``about``: how its stage made it). A table without one is an error naming it, as
    :func:`read_table` would give."""
    try:
        kept = (pq.read_metadata(path).metadata or {}).get(RECORD_KEY)
    except (pa.ArrowException, OSError) as exc:
        raise PipelineError(f"{path}: not a readable parquet table ({exc}); rerun the stage that writes it") from None
    if kept is None:
        raise PipelineError(f"{path}: holds no record of what the pipeline wrote there: rerun the stage that writes it")
    return json.loads(kept)


def token_lists(frame: pd.DataFrame) -> list:
    """Every sentence of a pair table as its tokens: the first sides, then the second."""
    return list(frame["tokens1"]) + list(frame["tokens2"])


def _splitter(reading: str, *, pretokenized: bool, key: str = "data.reading"):
    # imported here: NLTK (with the scikit-learn it imports) costs a second at start-up, which every training and
    # scoring job, reading tables tokenised long before, would pay for nothing
    from paraphrastic.data.tokenize import tokenize

    if reading not in READINGS:
        raise PipelineError(f"{key}: {reading!r} is not one of {', '.join(READINGS)}")
    return authors_tokens if reading == "authors" else partial(tokenize, pretokenized=pretokenized)


def _tokenised(records, *, pretokenized: bool, reading: str = "ours") -> pd.DataFrame:
    split = _splitter(reading, pretokenized=pretokenized)
    frame = pd.DataFrame(records)
    frame["tokens1"] = [split(s) for s in frame["s1"]]
    frame["tokens2"] = [split(s) for s in frame["s2"]]
    return frame


def read_as(frame: pd.DataFrame, reading: str, *, key: str = "word_vectors.reading") -> pd.DataFrame:
    """A training table with its tokens read again from its text as ``reading`` says, whichever reading
    (``data.reading``) wrote it: for the stages whose words must be those of another reading (the static encoder's,
    ``word_vectors.reading``; the gate sentences', read our way). The token boundaries are the same either way.
    ``key`` is the setting ``reading`` came from, which an error names."""
    split = _splitter(reading, pretokenized=True, key=key)
    return frame.assign(tokens1=[split(s) for s in frame["s1"]], tokens2=[split(s) for s in frame["s2"]])


def build_eval_table(sets: list[EvalSet], raw_root) -> pd.DataFrame:
    raw_root = Path(raw_root)
    frames = []
    for spec in sets:
        paths = [raw_root / f for f in spec.files]
        if spec.format == "sts":
            pairs = readers.read_sts(*paths, fields=2)
        elif spec.format == "sts2016":
            pairs = readers.read_sts(*paths, fields=4)
        elif spec.format == "sick":
            pairs = readers.read_sick(*paths)
        elif spec.format == "twitter":
            pairs = readers.read_twitter(*paths)
        else:  # pragma: no cover - EvalSet formats are a closed set
            raise PipelineError(f"unknown evaluation format {spec.format!r}")
        frame = _tokenised([{"s1": p.s1, "s2": p.s2, "score": p.score, "line": p.line} for p in pairs],
                           pretokenized=False)
        frame["dataset"], frame["group"] = spec.id, spec.group
        frames.append(frame)
    return pd.concat(frames, ignore_index=True)


def build_train_table(pairs: list[readers.TextPair], *, max_pairs: int | None, seed: int,
                      reading: str = "ours") -> pd.DataFrame:
    """Whitespace-tokenise (SimpWiki and PPDB ship PTB-tokenised) and lower-case once, as ``reading`` says
    (:data:`paraphrastic.data.tokens.READINGS`)."""
    frame = _tokenised([{"s1": p.s1, "s2": p.s2, "source": p.source} for p in pairs], pretokenized=True,
                       reading=reading)
    if max_pairs is not None and len(frame) > max_pairs:
        keep = np.sort(np.random.default_rng(seed).permutation(len(frame))[:max_pairs])
        frame = frame.iloc[keep].reset_index(drop=True)
    frame["n_tokens"] = frame["tokens1"].map(len) + frame["tokens2"].map(len)
    return frame


def sample_to_tokens(frame: pd.DataFrame, target_tokens: int, seed: int) -> pd.DataFrame:
    """Shuffle with ``seed`` and take pairs until their token count reaches ``target_tokens``."""
    order = np.random.default_rng(seed).permutation(len(frame))
    cumulative = np.cumsum(frame["n_tokens"].to_numpy()[order])
    take = int(np.searchsorted(cumulative, target_tokens) + 1)
    return frame.iloc[order[: min(take, len(frame))]].reset_index(drop=True)


def token_match(simpwiki: pd.DataFrame, ppdb: pd.DataFrame, seed: int) -> tuple[pd.DataFrame, pd.DataFrame, dict]:
    """Paper Sec. 4.1.2: a PPDB sample with as many tokens as the SimpWiki training set.

    When PPDB is the smaller corpus (as in the offline mirror, which holds only the 26,456
    human-scored pairs), the match runs the other way: SimpWiki is sampled down to PPDB's count.
    """
    sw_tokens, pp_tokens = int(simpwiki["n_tokens"].sum()), int(ppdb["n_tokens"].sum())
    if pp_tokens >= sw_tokens:
        direction = "ppdb_sampled_to_simpwiki"
        simpwiki_m, ppdb_m = simpwiki, sample_to_tokens(ppdb, sw_tokens, seed)
    else:
        direction = "simpwiki_sampled_to_ppdb"
        simpwiki_m, ppdb_m = sample_to_tokens(simpwiki, pp_tokens, seed), ppdb
    summary = {
        "direction": direction,
        "seed": seed,
        "full": {"simpwiki": {"pairs": len(simpwiki), "tokens": sw_tokens},
                 "ppdb": {"pairs": len(ppdb), "tokens": pp_tokens}},
        "matched": {"simpwiki": {"pairs": len(simpwiki_m), "tokens": int(simpwiki_m["n_tokens"].sum())},
                    "ppdb": {"pairs": len(ppdb_m), "tokens": int(ppdb_m["n_tokens"].sum())}},
    }
    return simpwiki_m, ppdb_m, summary


def token_stats(frame: pd.DataFrame) -> dict:
    lengths = np.concatenate([frame["tokens1"].map(len).to_numpy(), frame["tokens2"].map(len).to_numpy()])
    return {"pairs": len(frame), "tokens": int(lengths.sum()), "mean_sentence_tokens": float(lengths.mean()),
            "max_sentence_tokens": int(lengths.max())}
