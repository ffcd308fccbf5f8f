from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from paraphrastic.data.corpus import (
    EVAL_SCHEMA,
    TRAIN_SCHEMA,
    build_train_table,
    read_as,
    read_table,
    sample_to_tokens,
    token_match,
    write_table,
)
from paraphrastic.data.readers import TextPair
from paraphrastic.errors import PipelineError


def corpus(n: int, length: int) -> pd.DataFrame:
    words = " ".join(["w"] * length)
    return build_train_table([TextPair(words, words, f"f:{i}") for i in range(n)], max_pairs=None, seed=0)


def test_sample_reaches_target_token_count():
    frame = corpus(100, 5)  # 10 tokens per pair
    sample = sample_to_tokens(frame, 95, seed=1)
    assert len(sample) == 10 and sample["n_tokens"].sum() == 100
    assert list(sample_to_tokens(frame, 95, seed=1)["source"]) == list(sample["source"])  # seeded


def test_token_match_samples_the_larger_corpus():
    simpwiki, ppdb = corpus(10, 20), corpus(500, 2)  # 400 vs 2000 tokens: PPDB is larger (paper case)
    sw, pp, summary = token_match(simpwiki, ppdb, seed=0)
    assert summary["direction"] == "ppdb_sampled_to_simpwiki"
    assert len(sw) == 10 and pp["n_tokens"].sum() == 400
    sw, pp, summary = token_match(corpus(500, 20), ppdb, seed=0)  # PPDB smaller (offline case)
    assert summary["direction"] == "simpwiki_sampled_to_ppdb"
    assert len(pp) == 500 and sw["n_tokens"].sum() == 2000


def test_max_pairs_cap_and_stable_schema(tmp_path):
    frame = build_train_table([TextPair("A b", "c D", f"f:{i}") for i in range(50)], max_pairs=7, seed=3)
    assert len(frame) == 7 and list(frame["tokens1"][0]) == ["a", "b"]
    write_table(frame, TRAIN_SCHEMA, tmp_path / "t.parquet")
    assert pq.read_schema(tmp_path / "t.parquet").remove_metadata() == TRAIN_SCHEMA


def test_the_authors_reading_keeps_what_their_code_keeps():
    """data.reading: the authors' code splits Python 2 byte strings on ASCII whitespace and lower-cases ASCII letters
    only; ours undoes the PTB escapes, composes and lower-cases every letter, and drops a hashtag's #."""
    text = "The -LRB- 1\\/4 -RRB- \u00c3\u017dLE\u00a0X #Tag\tend"
    pairs = [TextPair(text, "B", "f:1")]
    authors = build_train_table(pairs, max_pairs=None, seed=0, reading="authors")
    assert list(authors["tokens1"][0]) == ["the", "-lrb-", "1\\/4", "-rrb-", "\u00c3\u017dle\u00a0x", "#tag", "end"]
    ours = build_train_table(pairs, max_pairs=None, seed=0)
    assert list(ours["tokens1"][0]) == ["the", "(", "1/4", ")", "\u00e3\u017ele", "x", "tag", "end"]
    assert list(authors["n_tokens"]) == [8] and list(ours["n_tokens"]) == [9]
    # a table read again another way (the static encoder's stages, the gate sentences): that reading's tokens
    assert read_as(authors, "ours")["tokens1"].tolist() == ours["tokens1"].tolist()
    assert read_as(ours, "authors")["tokens2"].tolist() == authors["tokens2"].tolist()
    with pytest.raises(PipelineError, match="data.reading: 'theirs' is not one of ours, authors"):
        build_train_table(pairs, max_pairs=None, seed=0, reading="theirs")
    with pytest.raises(PipelineError, match="word_vectors.reading: 'theirs' is not one of ours, authors"):
        read_as(ours, "theirs")


@pytest.mark.fault("pipeline artifacts")
@pytest.mark.parametrize("content", [None, b"", b"PAR1 not really", b"garbage" * 100, "truncated"])
def test_a_missing_or_damaged_artifact_is_an_error_naming_it(tmp_path, content):
    """Tables and matrices that stages pass on: a missing, empty, foreign or truncated one names the file."""
    import numpy as np

    from paraphrastic.data.vocab import load_matrix, save_matrix

    table, matrix = tmp_path / "t.parquet", tmp_path / "m.npy"
    if content == "truncated":
        write_table(pd.DataFrame({"s1": [f"sentence {i}" for i in range(500)]}), None, table)
        save_matrix(matrix, np.ones((50, 4), dtype=np.float32))
        for path in (table, matrix):
            path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])
    elif content is not None:
        table.write_bytes(content)
        matrix.write_bytes(content)
    expected = "no such" if content is None else "not a readable"
    with pytest.raises(PipelineError, match=f"{table}: {expected}"):
        read_table(table)
    with pytest.raises(PipelineError, match=f"{matrix}: {expected}"):
        load_matrix(matrix)


def _eval_table(path) -> pd.DataFrame:
    frame = pd.DataFrame({"dataset": ["sts12.MSRvid"] * 30 + ["sts16.headlines"] * 20, "group": "g",
                          "line": list(range(1, 31)) + list(range(1, 21)), "s1": "a b", "s2": "c d",
                          "score": [float(i % 5) for i in range(50)], "tokens1": [["a", "b"]] * 50,
                          "tokens2": [["c", "d"]] * 50})
    write_table(frame, EVAL_SCHEMA, path, stage="prepare_eval")
    return frame


def test_a_table_carries_a_record_of_what_it_holds():
    import json
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "eval.parquet"
        frame = _eval_table(path)
        record = json.loads(pq.ParquetFile(path).metadata.metadata[b"paraphrastic"])
        assert (record["stage"], record["rows"], record["counted_by"]) == ("prepare_eval", 50, "dataset")
        assert record["counts"] == {"sts12.MSRvid": 30, "sts16.headlines": 20}
        assert read_table(path).equals(pq.read_table(path).to_pandas()) and len(frame) == 50


@pytest.mark.fault("pipeline artifacts")
@pytest.mark.parametrize("how, says", [
    ("a byte flipped in its data", "(not a readable parquet table|its content differs from what prepare_eval wrote)"),
    ("rewritten by pandas without a set's rows", "holds no record of what the pipeline wrote there"),
    ("rewritten with its record but without a set's rows", r"30 rows where prepare_eval wrote 50 \(dataset "
                                                             r"\['sts16.headlines'\] differ\)"),
    ("a value edited, its record kept", "its content differs from what prepare_eval wrote"),
])
def test_a_damaged_or_edited_table_is_named_with_what_differs(tmp_path, how, says):
    path = tmp_path / "eval.parquet"
    frame = _eval_table(path)
    record = pq.ParquetFile(path).metadata.metadata[b"paraphrastic"]
    if how == "a byte flipped in its data":
        data = bytearray(path.read_bytes())
        body = len(data) - 8 - pq.ParquetFile(path).metadata.serialized_size  # the data pages, before the footer
        data[body // 2] ^= 0xFF
        path.write_bytes(bytes(data))
    elif how.startswith("rewritten by pandas"):
        frame[frame["dataset"] == "sts12.MSRvid"].to_parquet(path)
    else:
        edited = frame[frame["dataset"] == "sts12.MSRvid"] if "rows" in how else frame.assign(score=frame["score"] + 1)
        table = pa.Table.from_pandas(edited, schema=EVAL_SCHEMA, preserve_index=False)
        with pq.ParquetWriter(path, table.schema) as writer:
            writer.write_table(table)
            writer.add_key_value_metadata({"paraphrastic": record.decode()})
    with pytest.raises(PipelineError, match=f"{path}: {says}"):
        read_table(path)
