"""Word vectors distilled from a sentence transformer: a tiny teacher (a 1-layer BERT over a 40-piece vocabulary,
made here) stands in for all-MiniLM-L6-v2, so the library's own forward pass, PCA and weighting run in CI."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
import torch

from paraphrastic.data import vocab as vocabulary
from paraphrastic.data.corpus import EVAL_SCHEMA, TRAIN_SCHEMA, build_train_table, write_table
from paraphrastic.data.distill import distill_vectors, distillation_vocabulary, teacher_pieces
from paraphrastic.data.readers import TextPair
from paraphrastic.errors import PipelineError
from paraphrastic.pipeline.steps import distill as distill_step
from paraphrastic.training.sentence_distillation import without_zipf_weights
from tests.conftest import tiny_bert

transformers = pytest.importorskip("transformers")
pytest.importorskip("model2vec")

PIECES = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", *"abcdefghijklmnopqrstuvwxyz'.",
          "the", "dog", "cat", "##s", "run", "##ning", "play", "man", "##'", "##²"]
WORDS = ["the", "dog", "dogs", "cat", "running", "man", "play", "n't", "zebra", "cats"]


@pytest.fixture(scope="module")
def teacher(tmp_path_factory):
    folder = tiny_bert(tmp_path_factory.mktemp("teacher"), PIECES, hidden=24, intermediate=32, positions=32)
    tokenizer = transformers.AutoTokenizer.from_pretrained(str(folder))
    assert tokenizer.tokenize("dogs running") == ["dog", "##s", "run", "##ning"]
    return folder


def mean_pooled(teacher, word: str) -> np.ndarray:
    """The teacher's output for the word alone, averaged over [CLS] pieces [SEP] (a ``##`` piece: [CLS] piece
    [SEP]): computed here without model2vec."""
    tokenizer = transformers.AutoTokenizer.from_pretrained(str(teacher))
    model = transformers.AutoModel.from_pretrained(str(teacher)).eval()
    ids = ([tokenizer.cls_token_id, tokenizer.convert_tokens_to_ids(word), tokenizer.sep_token_id]
           if word.startswith("##") else tokenizer(word)["input_ids"])
    with torch.no_grad():
        hidden = model(input_ids=torch.tensor([ids])).last_hidden_state[0]
    return hidden.mean(0).numpy()


def test_without_pca_or_weighting_a_words_vector_is_the_teachers_mean_pooled_output(teacher):
    entries, vectors = distill_vectors(WORDS, teacher, dims=None, sif_coefficient=None)
    assert entries == WORDS and vectors.shape == (len(WORDS), 24) and vectors.dtype == np.float32
    for i, word in enumerate(WORDS):
        np.testing.assert_allclose(vectors[i], mean_pooled(teacher, word), rtol=1e-4, atol=1e-5)


def test_subwords_add_the_teachers_pieces_our_words_lack_each_distilled_alone(teacher):
    tokenizer = transformers.AutoTokenizer.from_pretrained(str(teacher))
    pieces, ids = teacher_pieces(tokenizer, WORDS)
    # in the teacher's order, without its special tokens or the pieces that are our words ("the", "dog", ...)
    assert pieces == [*"abcdefghijklmnopqrstuvwxyz'.", "##s", "run", "##ning", "##'", "##²"]
    assert ids == tokenizer.convert_tokens_to_ids(pieces)
    entries, vectors = distill_vectors(WORDS, teacher, dims=None, sif_coefficient=None, subwords=True)
    assert entries == WORDS + pieces and vectors.shape == (len(entries), 24)
    for i, entry in enumerate(entries):
        np.testing.assert_allclose(vectors[i], mean_pooled(teacher, entry), rtol=1e-4, atol=1e-5)
    # so a word our vocabulary lacks is read as the teacher's own pieces of it
    vocab = vocabulary.Vocabulary([*vocabulary.SPECIAL, vocabulary.WORDPIECES, *entries])
    assert [vocab.words[i] for i in vocab.ids(["runs", "plays"])] == tokenizer.tokenize("runs plays")


def test_subwords_need_a_wordpiece_teacher(teacher):
    tokenizer = transformers.AutoTokenizer.from_pretrained(str(teacher))
    tokenizer.backend_tokenizer.model = __import__("tokenizers").models.WordLevel({"[UNK]": 0}, unk_token="[UNK]")
    with pytest.raises(PipelineError, match=r"subwords: the teacher's tokenizer is WordLevel, not WordPiece"):
        teacher_pieces(tokenizer, WORDS)


def test_pca_centres_and_reduces_and_zipf_weights_grow_with_rank(teacher):
    _, plain = distill_vectors(WORDS, teacher, dims=4, sif_coefficient=None)
    _, weighted = distill_vectors(WORDS, teacher, dims=4, sif_coefficient=1e-1)
    assert plain.shape == (len(WORDS), 4)
    np.testing.assert_allclose(plain.mean(0), 0, atol=1e-5)  # PCA removes the outputs' common direction
    ratio = np.linalg.norm(weighted, axis=1) / np.linalg.norm(plain, axis=1)
    assert np.all(np.diff(ratio) > 0)  # the most frequent word (first) is scaled down most
    np.testing.assert_array_equal(distill_vectors(WORDS, teacher, dims=4, sif_coefficient=1e-1)[1], weighted)


@pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA device")
def test_the_teacher_on_cuda_gives_the_cpus_vectors(teacher):
    # the distill stage runs the teacher where config's device says (a GPU node on a cluster)
    kwargs = {"dims": None, "sif_coefficient": 1e-1, "subwords": True}
    entries, on_cpu = distill_vectors(WORDS, teacher, device="cpu", **kwargs)
    on_gpu = distill_vectors(WORDS, teacher, device="cuda", **kwargs)
    assert on_gpu[0] == entries
    np.testing.assert_allclose(on_gpu[1], on_cpu, rtol=1e-4, atol=1e-5)


def test_the_vocabulary_is_ordered_by_training_frequency_then_evaluation_words_alphabetically():
    training = [["the", "dog"], ["the", "cat"], ["a", "dog", "the"]]
    evaluation = [["zebra", "the"], ["aardvark"]]
    assert distillation_vocabulary(training, evaluation) == ["the", "dog", "a", "cat", "aardvark", "zebra"]
    assert distillation_vocabulary(training, evaluation, max_words=2) == ["the", "dog"]
    assert distillation_vocabulary(training) == ["the", "dog", "a", "cat"]  # evaluation_words: false


def test_more_dimensions_than_words_is_an_error(teacher):
    with pytest.raises(PipelineError, match=r"word_vectors\.distilled\.dims: 16 dimensions from 10 words"):
        distill_vectors(WORDS, teacher, dims=16, sif_coefficient=None)


def stage_config(distilled: dict, tokenizer: str = "treebank_like") -> dict:
    """The config keys the distill stage reads."""
    return {"device": "cpu", "word_vectors": {"tokenizer": tokenizer, "distilled": distilled}}


def test_the_stage_writes_a_vocabulary_folder_like_vocabs(teacher, tmp_path):
    corpus = tmp_path / "corpus"
    train = pd.DataFrame({"source": ["s:1", "s:2"], "s1": ["the dog", "the cat"], "s2": ["a dog", "cats"],
                          "tokens1": [["the", "dog"], ["the", "cat"]], "tokens2": [["a", "dog"], ["cats"]]})
    train["n_tokens"] = 4
    for name in ("simpwiki", "ppdb"):
        write_table(train, TRAIN_SCHEMA, corpus / f"{name}.parquet")
    evaluation = pd.DataFrame([{"dataset": "sts12.MSRvid", "group": "STS 2012", "line": 1, "s1": "a man",
                                "s2": "a zebra", "score": 1.0, "tokens1": ["a", "man"], "tokens2": ["a", "zebra"]}])
    write_table(evaluation, EVAL_SCHEMA, corpus / "eval.parquet")
    settings = {"teacher": str(teacher), "dims": 3, "sif_coefficient": 1e-4, "max_words": None,
                "evaluation_words": True, "subwords": False}
    distill_step.run(stage_config(settings), corpus=corpus,
                     out_dir=tmp_path / "out", threads=1)
    vocab = vocabulary.Vocabulary.load(tmp_path / "out" / "vocab.txt")
    # "dog" and "the" tie (4 each) and go alphabetically; the evaluation-only words come last
    assert vocab.words == [*vocabulary.SPECIAL, "dog", "the", "a", "cat", "cats", "man", "zebra"]
    matrix = vocabulary.load_matrix(tmp_path / "out" / "embeddings.npy")
    assert matrix.shape == (len(vocab), 3) and not matrix[: len(vocabulary.SPECIAL)].any()
    report = json.loads((tmp_path / "out" / "coverage.json").read_text())
    assert report["words"] == len(vocab) and report["dim"] == 3
    assert report["coverage"]["eval"]["token_coverage"] == 1.0
    # the default: no word taken from the evaluation sets ("man" and "zebra" are then <unk> there)
    distill_step.run(stage_config(dict(settings, evaluation_words=False)),
                     corpus=corpus, out_dir=tmp_path / "fair", threads=1)
    assert vocabulary.Vocabulary.load(tmp_path / "fair" / "vocab.txt").words == vocab.words[:-2]
    fair = json.loads((tmp_path / "fair" / "coverage.json").read_text())
    assert fair["evaluation_words"] is False and fair["coverage"]["eval"]["token_coverage"] == 0.5
    # with the teacher's pieces: "man" is one of them, "zebra" has no split (no "##e..." piece) and stays <unk>
    distill_step.run(stage_config(dict(settings, evaluation_words=False, subwords=True)),
                     corpus=corpus, out_dir=tmp_path / "pieces", threads=1)
    pieced = vocabulary.Vocabulary.load(tmp_path / "pieces" / "vocab.txt")
    assert pieced.has_wordpieces
    assert pieced.words[: len(vocab.words) - 1] == [*vocabulary.SPECIAL, vocabulary.WORDPIECES, "dog", "the", "a",
                                                    "cat", "cats"]
    assert not vocabulary.load_matrix(tmp_path / "pieces" / "embeddings.npy")[: len(vocabulary.SPECIAL) + 1].any()
    report = json.loads((tmp_path / "pieces" / "coverage.json").read_text())
    assert report["subwords"] is True and report["pieces"] == len(pieced) - 10
    evaluation = report["coverage"]["eval"]
    assert evaluation["token_coverage"] == evaluation["token_coverage_with_pieces"] == 0.75


def test_a_piece_the_static_tokenizer_never_reads_is_no_row(teacher):
    """The static model's vocabulary holds no row its tokenizer cannot reach: treebank_like cuts ``²`` apart wherever
    it stands, so ``##²`` is left out; ``##'`` stays (``o'brien`` keeps its apostrophe inside), as ``##s`` does."""
    from paraphrastic.data.static_tokenizer import WordSplitter

    tokenizer = transformers.AutoTokenizer.from_pretrained(str(teacher))
    every, _ = teacher_pieces(tokenizer, WORDS)
    reached, _ = teacher_pieces(tokenizer, WORDS, WordSplitter("treebank_like").reaches)
    assert "##²" in every and "##²" not in reached and {"##'", "##s"} <= set(reached)
    assert set(every) - set(reached) == {"##²"}


def test_the_stages_words_are_the_text_as_the_shipped_tokenizer_cuts_it(teacher, tmp_path):
    """Whatever tokens the training tables hold, the distilled words are their text cut by word_vectors.tokenizer
    (PTB's escapes undone either way), and the folder's tokenizer.json reads text into exactly those rows."""
    from paraphrastic.data.static_tokenizer import load_tokenizer, shipped_tokens

    corpus = tmp_path / "corpus"
    pairs = [TextPair("The -LRB- dog -RRB- does n't bark", "a dog's bone", "s:1")]
    for name in ("simpwiki", "ppdb"):
        write_table(build_train_table(pairs, max_pairs=None, seed=0, reading="authors"), TRAIN_SCHEMA,
                    corpus / f"{name}.parquet")
    evaluation = pd.DataFrame([{"dataset": "sts12.MSRvid", "group": "STS 2012", "line": 1, "s1": "a man",
                                "s2": "a zebra", "score": 1.0, "tokens1": ["a", "man"], "tokens2": ["a", "zebra"]}])
    write_table(evaluation, EVAL_SCHEMA, corpus / "eval.parquet")
    settings = {"teacher": str(teacher), "dims": None, "sif_coefficient": None, "max_words": None,
                "evaluation_words": False, "subwords": False}
    for tokenizer, words, absent in (("treebank_like", {"(", ")", "n't", "'s"}, {"-lrb-", "'", "t"}),
                                     ("bert", {"(", ")", "n", "'", "t", "s"}, {"-lrb-", "n't", "'s"})):
        distill_step.run(stage_config(settings, tokenizer), corpus=corpus, out_dir=tmp_path / tokenizer, threads=1)
        vocab = vocabulary.Vocabulary.load(tmp_path / tokenizer / "vocab.txt")
        assert words <= set(vocab.words) and not absent & set(vocab.words), tokenizer
        shipped = load_tokenizer(tmp_path / tokenizer)
        assert shipped.get_vocab() == vocab.index
        assert shipped_tokens(shipped, ["A dog's bone"]) == [["a", "dog", "'s", "bone"] if tokenizer == "treebank_like"
                                                            else ["a", "dog", "'", "s", "bone"]]


@pytest.mark.parametrize("subwords", [False, True])
def test_the_zipf_weights_divide_out_of_the_stages_matrix_by_its_own_record(teacher, tmp_path, subwords):
    """What distill-sentences' ``start_weights: none`` does: the stage's weighted matrix, divided by the weights its
    coverage.json records, is the unweighted one (the special rows stay zero)."""
    corpus = tmp_path / "corpus"
    train = pd.DataFrame({"source": ["s:1"], "s1": ["the dog"], "s2": ["a cat"], "tokens1": [["the", "dog"]],
                          "tokens2": [["a", "cat"]], "n_tokens": [4]})
    for name in ("simpwiki", "ppdb"):
        write_table(train, TRAIN_SCHEMA, corpus / f"{name}.parquet")
    evaluation = pd.DataFrame([{"dataset": "sts12.MSRvid", "group": "STS 2012", "line": 1, "s1": "a man",
                                "s2": "a dog", "score": 1.0, "tokens1": ["a", "man"], "tokens2": ["a", "dog"]}])
    write_table(evaluation, EVAL_SCHEMA, corpus / "eval.parquet")
    matrices = {}
    for coefficient in (1e-1, None):
        settings = {"teacher": str(teacher), "dims": 3, "sif_coefficient": coefficient, "max_words": None,
                    "evaluation_words": False, "subwords": subwords}
        out = tmp_path / str(coefficient)
        distill_step.run(stage_config(settings), corpus=corpus, out_dir=out,
                         threads=1)
        made = json.loads((out / "coverage.json").read_text())
        matrices[coefficient] = without_zipf_weights(vocabulary.load_matrix(out / "embeddings.npy"),
                                                     sif_coefficient=made["sif_coefficient"],
                                                     subwords=made["subwords"])
    np.testing.assert_allclose(matrices[1e-1], matrices[None], rtol=1e-5, atol=1e-6)
    assert not matrices[1e-1][: len(vocabulary.SPECIAL)].any()
