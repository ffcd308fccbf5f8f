"""The unlabelled text of sentence-level distillation: each distinct text once, no evaluation sentence."""

from __future__ import annotations

import pandas as pd
import pytest

from paraphrastic.data.sentence_targets import training_pairs, unlabelled_texts
from paraphrastic.errors import PipelineError


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
