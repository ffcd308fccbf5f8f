import numpy as np
import pytest

from paraphrastic.data import vocab
from paraphrastic.data.readers import SkippedLines
from paraphrastic.errors import MalformedLine, PipelineError


def test_build_restricts_to_corpus_words_with_zero_unknown_row(tmp_path):
    path = tmp_path / "v.txt"
    path.write_text("the 1 2\ncat 3 4\ndog 5 6\nunused 7 8\n")
    voc, matrix = vocab.build([["the", "cat", "the"], ["zebra"]], path)
    assert voc.words == ["<pad>", "<unk>", "<s>", "</s>", "the", "cat"]
    np.testing.assert_array_equal(matrix, [[0, 0], [0, 0], [0, 0], [0, 0], [1, 2], [3, 4]])
    assert voc.ids(["cat", "zebra"]) == [5, vocab.UNK_ID]
    assert voc.ids(["cat"], "both") == [vocab.SOS_ID, 5, vocab.EOS_ID]
    assert voc.ids(["cat"], "eos") == [5, vocab.EOS_ID]
    assert voc.ids([]) == [vocab.UNK_ID]
    cov = vocab.coverage(voc, [["the", "cat", "the"], ["zebra"]])
    assert cov["token_coverage"] == 0.75 and cov["type_coverage"] == 2 / 3


def test_the_unknown_row_starts_at_the_files_own_unknown_word_vector_where_it_has_one(tmp_path):
    # PARAGRAM-SL999's UUUNKKK: the authors' code maps every unknown word to it (utils.py:12-15)
    path = tmp_path / "v.txt"
    path.write_text("the 1 2\nUUUNKKK 9 8\ncat 3 4\n")
    voc, matrix = vocab.build([["the", "cat", "the"], ["zebra"]], path)
    assert voc.words == ["<pad>", "<unk>", "<s>", "</s>", "the", "cat"]  # UUUNKKK is no word of ours
    np.testing.assert_array_equal(matrix[vocab.UNK_ID], [9, 8])


def test_malformed_vector_line(tmp_path):
    path = tmp_path / "v.txt"
    path.write_text("the 1 2\ncat 3\n")
    with pytest.raises(MalformedLine, match=r"v.txt:2: expected 2 values"):
        vocab.build([["cat"]], path)


def test_paragram_style_file_latin1_trailing_spaces_blank_lines_and_repeats(tmp_path):
    """PARAGRAM-SL999 as it ships: no header, trailing spaces, bytes that are not UTF-8; upstream's loader
    splits on whitespace and keeps a repeated word's last vector."""
    path = tmp_path / "paragram.txt"
    path.write_bytes(b"the 1 2 \n"
                     b"caf\xe9 3 4\n"          # latin-1 e-acute: decodes to the corpus's word
                     b"\n"
                     b"r\xff\xfeb 9 9 \n"      # a stray byte in a word nobody uses
                     b"nbsp\xc2\xa0word 5 6\n"  # a UTF-8 non-breaking space stays inside its word
                     b"the  7\t8\n")
    skipped = SkippedLines()
    voc, matrix = vocab.build([["the", "café", "nbsp\xa0word"]], path, skipped)
    assert voc.words[4:] == ["café", "nbsp\xa0word", "the"]  # equal counts: alphabetical
    np.testing.assert_array_equal(matrix[4:], [[3, 4], [5, 6], [7, 8]])
    assert skipped.as_dict() == {
        "lines": 4,
        "by_kind": {"blank": 1, "repeating a word (its last vector kept)": 1,
                    "with a word not in UTF-8 (read as latin-1)": 2},
        "first": {"blank": ["paragram.txt:3"], "repeating a word (its last vector kept)": ["paragram.txt:6"],
                  "with a word not in UTF-8 (read as latin-1)": ["paragram.txt:2", "paragram.txt:4"]}}
    path.write_bytes(b"the 1 2\nunused 3 4 5\n")
    with pytest.raises(MalformedLine, match=r"paragram.txt:2: expected 2 values .*got 3"):
        vocab.build([["the"]], path)


def test_word2vec_header_and_truncated_gzip(tmp_path):
    path = tmp_path / "w2v.txt"
    path.write_text("2 2\nthe 1 2\n")
    with pytest.raises(MalformedLine, match=r"w2v.txt:1: looks like a word2vec header"):
        vocab.build([["the"]], path)
    import gzip

    data = gzip.compress(("".join(f"w{i} 1 2\n" for i in range(5000))).encode())
    (tmp_path / "v.txt.gz").write_bytes(data[: len(data) // 2])
    with pytest.raises(MalformedLine, match=r"v.txt.gz:\d+: corrupt or truncated gzip"):
        vocab.build([["w1"]], tmp_path / "v.txt.gz")


def test_roundtrip(tmp_path):
    voc = vocab.Vocabulary(vocab.SPECIAL + ["a"])
    voc.save(tmp_path / "vocab.txt")
    assert vocab.Vocabulary.load(tmp_path / "vocab.txt").words == voc.words


@pytest.mark.fault("pipeline artifacts")
@pytest.mark.parametrize("how, says", [
    ("written by numpy alone", "holds no record of what the pipeline wrote there"),
    ("a value flipped", "its values differ from what vocab wrote"),
    ("rows cut, its record kept", r"a float32 matrix of shape \[3, 2\] where vocab wrote float32 \[4, 2\]"),
])
def test_a_matrix_carries_a_record_and_a_damaged_or_edited_one_is_named(tmp_path, how, says):
    import io
    import json

    path = tmp_path / "embeddings.npy"
    matrix = np.arange(8, dtype=np.float32).reshape(4, 2)
    vocab.save_matrix(path, matrix, stage="vocab")
    assert np.array_equal(vocab.load_matrix(path), matrix) and np.array_equal(np.load(path), matrix)
    data = path.read_bytes()
    cut = data.rfind(vocab.MATRIX_RECORD)
    assert json.loads(data[cut + len(vocab.MATRIX_RECORD):])["shape"] == [4, 2]
    if how == "written by numpy alone":
        np.save(path, matrix)
    elif how == "a value flipped":
        array = bytearray(data)
        array[cut - 1] ^= 0x01  # the last value's last byte
        path.write_bytes(bytes(array))
    else:
        buffer = io.BytesIO()
        np.save(buffer, matrix[:3])
        path.write_bytes(buffer.getvalue() + data[cut:])
    with pytest.raises(PipelineError, match=f"{path}: {says}"):
        vocab.load_matrix(path)


PIECED = vocab.Vocabulary([*vocab.SPECIAL, vocab.WORDPIECES, "the", "play", "un", "##ing", "##s", "##play", "##able",
                           "p", "##l"])


def test_a_word_without_a_vector_is_read_as_its_longest_first_wordpieces():
    ids = PIECED.index
    assert PIECED.has_wordpieces
    assert PIECED.ids(["the", "playing"]) == [ids["the"], ids["play"], ids["##ing"]]
    # longest prefix first, then the longest continuation of the rest (BERT's greedy split)
    assert PIECED.ids(["unplayable"]) == [ids["un"], ids["##play"], ids["##able"]]
    assert PIECED.ids(["plays", "pl"]) == [ids["play"], ids["##s"], ids["p"], ids["##l"]]
    # a remainder with no piece makes the whole word unknown; so does a word past BERT's 100 characters
    assert PIECED.ids(["playx", "xplay"]) == [vocab.UNK_ID, vocab.UNK_ID]
    assert PIECED.ids(["un" + "s" * 99]) == [vocab.UNK_ID]
    assert PIECED.ids(["un" + "s" * 98]) == [ids["un"]] + [ids["##s"]] * 98
    # punctuation cuts a word first, as BERT's pre-tokenizer cuts text; each part is read on its own
    assert PIECED.ids(["the-playing"]) == [ids["the"], vocab.UNK_ID, ids["play"], ids["##ing"]]
    assert PIECED.ids(["playx.the"]) == [vocab.UNK_ID, vocab.UNK_ID, ids["the"]]
    # a vocabulary without the marker never splits
    assert vocab.Vocabulary(vocab.SPECIAL + ["play", "##ing"]).ids(["playing"]) == [vocab.UNK_ID]
    assert not vocab.Vocabulary(vocab.SPECIAL + ["play"]).has_wordpieces


def test_a_word_is_split_as_the_tokenizers_librarys_bert_pre_tokenizer_and_wordpiece_model_split_it():
    """What a static export's tokenizer does with the same vocabulary, on words with and without punctuation."""
    from tokenizers import Tokenizer, models, pre_tokenizers

    pieced = vocab.Vocabulary([*PIECED.words, "-", ".", "'", "s", "##t", "t", "##p", "##y"])
    exported = Tokenizer(models.WordPiece(vocab=dict(pieced.index), unk_token=vocab.UNK, continuing_subword_prefix="##",
                                          max_input_chars_per_word=vocab.MAX_WORDPIECE_CHARS))
    exported.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    rng = np.random.default_rng(0)
    letters = list("playunthesgi-.'$é")
    words = ["".join(rng.choice(letters, size=rng.integers(1, 12))) for _ in range(3000)] + ["t" * 101, "s.t" * 40]
    for word in words:
        if word not in pieced.index:
            assert pieced.pieces(word) == exported.encode(word).ids, word


def test_coverage_counts_words_read_through_pieces_apart_from_words_with_vectors():
    report = vocab.coverage(PIECED, [["the", "playing", "qq"], ["the"]])
    assert report["token_coverage"] == 0.5 and report["type_coverage"] == pytest.approx(1 / 3)
    assert report["token_coverage_with_pieces"] == 0.75 and report["type_coverage_with_pieces"] == pytest.approx(2 / 3)
    assert "token_coverage_with_pieces" not in vocab.coverage(vocab.Vocabulary(vocab.SPECIAL + ["the"]), [["the"]])
