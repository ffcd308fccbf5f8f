"""The static model's tokenizer (data/static_tokenizer.py): what each kind cuts text into, that the project reads text
into exactly the ids the shipped tokenizer gives, and the errors of a tokenizer file or record that does not fit."""

from __future__ import annotations

import pandas as pd
import pytest

from paraphrastic.data.static_tokenizer import (
    TOKENIZER_FILE,
    TOKENIZERS,
    WordSplitter,
    build_tokenizer,
    load_tokenizer,
    read_with,
    recorded_tokenizer,
    save_tokenizer,
    shipped_tokens,
)
from paraphrastic.data.tokenize import tokenize
from paraphrastic.data.vocab import SPECIAL, UNK, WORDPIECES, Vocabulary
from paraphrastic.errors import PipelineError

# Text where Treebank's splits matter, and what treebank_like cuts it into (Treebank's own tokens but for its quotes)
CASES = {
    "Elves don't exist.": ["elves", "do", "n't", "exist", "."],
    "I can't go, won't go -- John's car's \"red\"!": ["i", "ca", "n't", "go", ",", "wo", "n't", "go", "--", "john",
                                                      "'s", "car", "'s", '"', "red", '"', "!"],
    "The U.S. is 3.5% well-known and/or o'neill's #nba (ok).": ["the", "u.s.", "is", "3.5", "%", "well-known",
                                                                "and/or", "o'neill", "'s", "nba", "(", "ok", ")",
                                                                "."],
    "students' books ... e.g. this": ["students", "'", "books", "...", "e.g.", "this"],
    "it's 5:30pm, $3,000": ["it", "'s", "5:30pm", ",", "$", "3,000"],
    "-LRB- he -RRB- said `` hi '' 1\\/2": ["(", "he", ")", "said", '"', "hi", '"', "1/2"],  # PTB's escapes, undone
    "Café": ["café"],  # composed (NFC), whichever way the accent came
    "Cafe\u0301": ["café"],
}


@pytest.mark.parametrize("text", CASES)
def test_treebank_like_cuts_text_as_treebank_does_but_for_its_quotes(text):
    assert WordSplitter("treebank_like")(text) == CASES[text]
    if "``" not in text and '"' not in text and "\\/" not in text and "-LRB-" not in text:
        assert WordSplitter("treebank_like")(text) == tokenize(text)


def test_bert_cuts_every_punctuation_character_apart():
    assert WordSplitter("bert")("Elves don't exist, #1!") == ["elves", "don", "'", "t", "exist", ",", "#", "1", "!"]


@pytest.mark.parametrize("kind", TOKENIZERS)
def test_the_project_reads_text_into_the_ids_the_shipped_tokenizer_gives(kind, tmp_path):
    """shipped_tokens' entries looked up in the vocabulary are the tokenizer's own ids, pieces and <unk> included;
    read_with reads a pair table's text that way; the saved tokenizer.json reads the same."""
    vocab = Vocabulary([*SPECIAL, WORDPIECES, "the", "do", "n't", "don", "'", "t", "play", "##ing", "##s", "guitar",
                        ".", "!"])
    tokenizer = build_tokenizer(kind, vocab.index)
    texts = ["The guitars don't play!", "playing the guitarist", "zzz", "", "Ünïcödé ☃"]
    tokens = shipped_tokens(tokenizer, texts)
    assert [vocab.ids(t) for t in tokens[:3]] == [e.ids for e in tokenizer.encode_batch(texts[:3],
                                                                                        add_special_tokens=False)]
    assert UNK in tokens[2] and tokens[3] == [] and vocab.ids(tokens[3]) == vocab.ids([UNK])
    assert "##ing" in tokens[1] and "##s" in tokens[0]
    frame = read_with(pd.DataFrame({"s1": texts[:2], "s2": texts[2:4], "tokens1": [["x"]] * 2,
                                    "tokens2": [["x"]] * 2}), tokenizer)
    assert frame["tokens1"].tolist() == tokens[:2] and frame["tokens2"].tolist() == tokens[2:4]
    save_tokenizer(tmp_path, kind, vocab.index)
    assert shipped_tokens(load_tokenizer(tmp_path), texts) == tokens


def test_a_tokenizer_file_or_record_that_does_not_fit_is_an_error_naming_it(tmp_path):
    assert load_tokenizer(tmp_path) is None  # a folder of the paper's vectors: the Treebank tokenizer reads it
    (tmp_path / TOKENIZER_FILE).write_text("{not json")
    with pytest.raises(PipelineError, match=f"{TOKENIZER_FILE}: not a tokenizer the `tokenizers` library reads"):
        load_tokenizer(tmp_path)
    vocab = Vocabulary([*SPECIAL, "a", "b"])
    other = build_tokenizer("bert", Vocabulary([*SPECIAL, "a"]).index).to_str()
    assert recorded_tokenizer("m.pt", {}, vocab) is None
    with pytest.raises(PipelineError, match="m.pt: its tokenizer's vocabulary is not the model's"):
        recorded_tokenizer("m.pt", {"tokenizer": other}, vocab)
    with pytest.raises(PipelineError, match="m.pt: its tokenizer is not one"):
        recorded_tokenizer("m.pt", {"tokenizer": 3}, vocab)
    with pytest.raises(ValueError, match="word_vectors.tokenizer: 'spacy' is not one of"):
        WordSplitter("spacy")


@pytest.mark.parametrize("kind, reached, unreached", [
    ("treebank_like", ["zebra", "'s", "n't", "##s", "!", "#", "##,", "##.", "##'", "##-", "##/", "##:"],
     ["km²", "##²", "##!", "'m'", "£1"]),
    ("bert", ["zebra", "km²", "##s", "##²", "!"], ["'s", "n't", "##!", "##,", "##."]),
])
def test_a_teacher_piece_is_reached_where_the_tokenizer_can_read_it(kind, reached, unreached):
    """A whole-word piece is reached where the tokenizer cuts it as a word or the start of one, or after one (a
    clitic); a ``##`` piece where its rest can follow a word character inside a word: at its end or before a letter
    or digit (treebank_like keeps ``,`` in ``1,500``, ``.`` in ``u.s.a``, ``'`` in ``o'brien``: without those
    pieces, such a word the vocabulary lacks would be read as the unknown word)."""
    split = WordSplitter(kind)
    assert [piece for piece in reached + unreached if split.reaches(piece)] == reached


def test_a_tokenizer_json_its_folder_was_not_written_with_is_an_error_naming_both(tmp_path):
    """tokenizer.json is the tokenizers library's own JSON, with no room for a record: the folder's record
    (coverage.json, training.json) holds its sha256, and a file edited or copied from another folder stops the
    reader."""
    import json

    from paraphrastic.atomic import sha256_file

    vocab = Vocabulary([*SPECIAL, "a", "b"])
    save_tokenizer(tmp_path, "treebank_like", vocab.index)
    (tmp_path / "coverage.json").write_text(json.dumps({"tokenizer_sha256": sha256_file(tmp_path / TOKENIZER_FILE)}))
    assert load_tokenizer(tmp_path) is not None
    save_tokenizer(tmp_path, "bert", vocab.index)  # another tokenizer over the same words
    with pytest.raises(PipelineError, match=r"tokenizer.json: not the tokenizer .*coverage.json was written with"):
        load_tokenizer(tmp_path)
