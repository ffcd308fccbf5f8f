"""The unlabelled text of sentence-level distillation: each distinct text once, no evaluation sentence."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from paraphrastic.data.sentence_targets import training_pairs, unlabelled_texts
from paraphrastic.errors import PipelineError
from tests.conftest import tiny_bert


def test_each_distinct_text_once_with_its_first_source_and_no_evaluation_sentence():
    sources = {"simpwiki": [("A cat .", ["a", "cat", "."]), ("A dog .", ["a", "dog", "."]), ("", [])],
               "ppdb": [("A cat .", ["a", "cat", "."]), ("the test one", ["the", "test", "one"]),
                        ("big house", ["big", "house"])]}
    frame, counts = unlabelled_texts(sources, excluded={("the", "test", "one")})
    assert list(frame["text"]) == ["A cat .", "A dog .", "big house"]
    assert list(frame["source"]) == ["simpwiki", "simpwiki", "ppdb"]
    assert [list(t) for t in frame["tokens"]] == [["a", "cat", "."], ["a", "dog", "."], ["big", "house"]]
    assert counts == {"simpwiki": {"texts": 2, "repeated": 0, "evaluation_sentences_excluded": 0},
                      "ppdb": {"texts": 1, "repeated": 1, "evaluation_sentences_excluded": 1}}


def test_a_cap_keeps_each_sources_first_texts():
    sources = {name: [(f"{name} {i}", [name, str(i)]) for i in range(5)] for name in ("simpwiki", "treebank")}
    frame, counts = unlabelled_texts(sources, excluded=set(), max_per_source=2)
    assert list(frame["text"]) == ["simpwiki 0", "simpwiki 1", "treebank 0", "treebank 1"]
    assert counts["treebank"]["texts"] == 2


def test_no_text_is_an_error():
    with pytest.raises(PipelineError, match="no unlabelled text"):
        unlabelled_texts({"simpwiki": [("", [])]}, excluded=set())


def test_a_paraphrase_pair_with_an_evaluation_sentence_on_either_side_is_left_out():
    """The paraphrase loss beside the teacher's trains on the pairs as the unlabelled texts are kept: no test
    sentence."""
    frame = pd.DataFrame({"tokens1": [["a", "cat"], ["the", "test", "one"], ["big", "house"]],
                          "tokens2": [["one", "cat"], ["a", "test"], ["the", "test", "one"]]})
    pairs, left_out = training_pairs(frame, excluded={("the", "test", "one")})
    assert pairs == [(["a", "cat"], ["one", "cat"])] and left_out == 2


@pytest.fixture(scope="module")
def tiny_teacher(tmp_path_factory):
    """all-MiniLM-L6-v2's stand-in, over a few pieces."""
    pieces = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", *"abcdefghijklmnopqrstuvwxyz.", "the", "dog", "cat"]
    return tiny_bert(tmp_path_factory.mktemp("teacher"), pieces, hidden=16, intermediate=16, positions=64)


def test_a_stopped_teacher_job_resumes_from_its_last_chunk_to_the_same_bytes(tiny_teacher, tmp_path, monkeypatch):
    from paraphrastic.data import sentence_targets

    texts = [f"the {'dog' if i % 3 else 'cat'} {'a' * (i % 7)} {i}." for i in range(40)]
    whole = sentence_targets.teacher_embeddings(texts, tiny_teacher, chunk=16)  # no checkpoints: nothing kept
    assert whole.shape[0] == 40 and whole.dtype == np.float32
    calls = []
    load = sentence_targets._load_teacher

    def stopping_after(n):
        def loaded(teacher, device):
            model = load(teacher, device)
            encode = model.encode

            def counted(chunk, **kwargs):
                if len(calls) == n:
                    raise KeyboardInterrupt  # Ctrl-C, or SIGTERM's handler, inside the third chunk
                calls.append(len(chunk))
                return encode(chunk, **kwargs)
            model.encode = counted
            return model
        return loaded

    checkpoints = tmp_path / "checkpoints"
    monkeypatch.setattr(sentence_targets, "_load_teacher", stopping_after(2))
    with pytest.raises(KeyboardInterrupt):
        sentence_targets.teacher_embeddings(texts, tiny_teacher, chunk=16, checkpoints=checkpoints)
    assert calls == [16, 16] and sorted(p.name for p in checkpoints.glob("chunk-*")) == ["chunk-00000.npy",
                                                                                            "chunk-00001.npy"]
    monkeypatch.setattr(sentence_targets, "_load_teacher", stopping_after(99))
    resumed = sentence_targets.teacher_embeddings(texts, tiny_teacher, chunk=16, checkpoints=checkpoints)
    assert calls == [16, 16, 8]  # only the third chunk was embedded again
    assert resumed.tobytes() == whole.tobytes()
    # chunks of other texts are not this job's: started over
    calls.clear()
    other = sentence_targets.teacher_embeddings(texts[:20], tiny_teacher, chunk=16, checkpoints=checkpoints)
    assert calls == [16, 4] and other.tobytes() == whole[:20].tobytes()
    sentence_targets.remove_checkpoints(checkpoints)
    assert not checkpoints.exists()
