import numpy as np
import pytest

from paraphrastic import vocab
from paraphrastic.errors import MalformedLine


def test_build_restricts_to_corpus_words_with_zero_unknown_row(tmp_path):
    path = tmp_path / "v.txt"
    path.write_text("the 1 2\ncat 3 4\ndog 5 6\nunused 7 8\n")
    voc, matrix = vocab.build([["the", "cat", "the"], ["zebra"]], path)
    assert voc.words == ["<pad>", "<unk>", "the", "cat"]
    np.testing.assert_array_equal(matrix, [[0, 0], [0, 0], [1, 2], [3, 4]])
    assert voc.ids(["cat", "zebra"]) == [3, vocab.UNK_ID]
    assert voc.ids([]) == [vocab.UNK_ID]
    cov = vocab.coverage(voc, [["the", "cat", "the"], ["zebra"]])
    assert cov["token_coverage"] == 0.75 and cov["type_coverage"] == 2 / 3


def test_malformed_vector_line(tmp_path):
    path = tmp_path / "v.txt"
    path.write_text("the 1 2\ncat 3\n")
    with pytest.raises(MalformedLine, match=r"v.txt:2: expected 2 values"):
        vocab.build([["cat"]], path)


def test_roundtrip(tmp_path):
    voc = vocab.Vocabulary(["<pad>", "<unk>", "a"])
    voc.save(tmp_path / "vocab.txt")
    assert vocab.Vocabulary.load(tmp_path / "vocab.txt").words == voc.words
