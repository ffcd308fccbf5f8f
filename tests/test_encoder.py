"""The user-facing encoder: paraphrastic.load(path).encode(...), and the embed / similarity subcommands."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import torch

import paraphrastic
from paraphrastic.cli import main as cli
from paraphrastic.data.tokenize import tokenize
from paraphrastic.data.vocab import Vocabulary
from paraphrastic.encoder import Encoder
from paraphrastic.errors import PipelineError
from paraphrastic.evaluation import similarity
from paraphrastic.models.encoders import build_model
from paraphrastic.models.files import save_model, save_scorer
from paraphrastic.models.heads import PairScorer, SimilarityHead


@pytest.fixture
def model_file(workspace):
    vocab = Vocabulary.load(workspace["vocab_dir"] / "vocab.txt")
    embeddings = torch.from_numpy(np.load(workspace["vocab_dir"] / "embeddings.npy"))
    torch.manual_seed(0)
    model = build_model("gran", embeddings, tags="both")
    with torch.no_grad():
        model.embedding.weight[1].normal_()  # a trained <unk> row
    path = workspace["root"] / "model.pt"
    save_model(path, model, "gran", {"tags": "both"}, vocab, {})
    return path, model, vocab


SENTENCES = ["A man is playing the guitar.", "The woman runs quickly!", "a dog is sleeping on the bed"]


def test_encode_matches_the_pipelines_scoring(model_file):
    path, model, vocab = model_file
    encoder = paraphrastic.load(path, device="cpu")
    vectors = encoder.encode(SENTENCES)
    assert vectors.shape == (3, encoder.dim) and vectors.dtype == np.float32
    expected = similarity.encode(model, vocab, [tokenize(s) for s in SENTENCES]).numpy()
    assert np.allclose(vectors, expected, atol=1e-6)
    frame = pd.DataFrame({"tokens1": [tokenize(s) for s in SENTENCES],
                          "tokens2": [tokenize(s) for s in SENTENCES[::-1]]})
    assert np.allclose(encoder.similarity_pairwise(SENTENCES, SENTENCES[::-1]),
                       similarity.cosine_scores(model, vocab, frame), atol=1e-6)
    assert encoder.encode([]).shape == (0, encoder.dim)


def test_unknown_words_empty_strings_and_very_long_inputs(model_file):
    encoder = paraphrastic.load(model_file[0], device="cpu")
    unknown, empty, blank = encoder.encode(["zyxxy qwertzuiop", "", "   \n "])
    assert np.isfinite(unknown).all() and np.abs(unknown).sum() > 0
    unk = similarity.encode(model_file[1], model_file[2], [["<unk>"]]).numpy()[0]
    assert np.allclose(empty, unk) and np.allclose(blank, unk)  # no tokens: embedded as one <unk>
    long = " ".join(["the man is playing"] * 5000)  # 20,000 tokens
    vectors = encoder.encode([long, "a dog"])
    assert vectors.shape == (2, encoder.dim) and np.isfinite(vectors).all()
    assert np.allclose(vectors[1], encoder.encode(["a dog"])[0], atol=1e-6)  # batching with it changes nothing


def test_encode_noting_unknown_gives_encodes_rows_and_where_no_word_is_known(model_file):
    """The embed and similarity subcommands' one pass: encode's rows (with the model's SOS/EOS tags) and the
    positions of the sentences whose every word is unknown, an empty one among them."""
    encoder = paraphrastic.load(model_file[0], device="cpu")
    sentences = [SENTENCES[0], "zyxxy qwertzuiop", "", SENTENCES[1]]
    vectors, unknown = encoder.encode_noting_unknown(sentences)
    assert np.allclose(vectors, encoder.encode(sentences), atol=1e-6) and unknown == [1, 2]
    vectors, unknown = encoder.encode_noting_unknown([])
    assert vectors.shape == (0, encoder.dim) and unknown == []


def test_bad_inputs_are_clear_errors(model_file, workspace):
    encoder = paraphrastic.load(model_file[0], device="cpu")
    with pytest.raises(TypeError, match="must be str, got NoneType"):
        encoder.encode(["fine", None])
    with pytest.raises(TypeError, match="must be str, got bytes"):
        encoder.encode(b"bytes are not text")
    with pytest.raises(TypeError, match="a str or a sequence of str, got int"):
        encoder.encode(3)
    with pytest.raises(TypeError, match=r"unexpected keyword argument\(s\) \['colour'\]"):
        encoder.encode(["a"], colour="red")
    with pytest.raises(ValueError, match="no named prompts"):
        encoder.encode(["a"], prompt_name="query")
    for bad in ({"batch_size": 0}, {"precision": "int8"}, {"output_value": "token_embeddings"}):
        with pytest.raises(ValueError):
            encoder.encode(["a"], **bad)
    with pytest.raises(ValueError, match="as many"):
        encoder.similarity_pairwise(["a"], ["b", "c"])
    with pytest.raises(PipelineError, match="no such model file"):
        paraphrastic.load(workspace["root"] / "missing.pt")
    torch.save({"weights": 1}, workspace["root"] / "other.pt")
    with pytest.raises(PipelineError, match="not a paraphrastic model"):
        paraphrastic.load(workspace["root"] / "other.pt")


def test_encode_takes_sentence_transformers_arguments(model_file, capsys):
    """SentenceTransformer.encode's inputs, arguments and return types, so code written for it runs unchanged."""
    encoder = paraphrastic.load(model_file[0], device="cpu")
    rows = encoder.encode(SENTENCES)
    single = encoder.encode(SENTENCES[0])
    assert single.shape == (encoder.dim,) and np.allclose(single, rows[0], atol=1e-6)
    for sequence in (tuple(SENTENCES), np.array(SENTENCES), pd.Series(SENTENCES), pd.Series(SENTENCES, index=[7, 8, 9]),
                     np.array(SENTENCES, dtype=object), iter(SENTENCES)):
        assert np.allclose(encoder.encode(sequence), rows, atol=1e-6)
    tensor = encoder.encode(SENTENCES, convert_to_tensor=True)
    assert isinstance(tensor, torch.Tensor) and tensor.shape == rows.shape and np.allclose(tensor.numpy(), rows)
    listed = encoder.encode(SENTENCES, convert_to_numpy=False)
    assert isinstance(listed, list) and len(listed) == 3 and all(isinstance(v, torch.Tensor) for v in listed)
    for batch_size in (1, 2):
        assert np.allclose(encoder.encode(SENTENCES, batch_size=batch_size, device="cpu"), rows, atol=1e-6)
    assert np.allclose(encoder.encode(SENTENCES, show_progress_bar=True, batch_size=2), rows, atol=1e-6)
    assert "Batches" in capsys.readouterr().err  # tqdm's bar
    unit = encoder.encode(SENTENCES, normalize_embeddings=True)
    assert np.allclose(np.linalg.norm(unit, axis=1), 1, atol=1e-6)
    assert encoder.encode(SENTENCES, truncate_dim=3).shape == (3, 3)
    assert np.allclose(encoder.encode(["a dog"], prompt="the "), encoder.encode(["the a dog"]))
    # What MTEB passes besides is accepted and changes nothing.
    assert np.allclose(encoder.encode(SENTENCES, task_name="STSBenchmark", prompt_type=None), rows)
    assert encoder.encode(np.array([], dtype=str)).shape == (0, encoder.dim)
    assert encoder.encode([], convert_to_tensor=True).shape == (0, encoder.dim)


def test_a_zero_vector_normalizes_to_zero_and_has_zero_similarity(workspace):
    vocab = Vocabulary.load(workspace["vocab_dir"] / "vocab.txt")
    embeddings = torch.from_numpy(np.load(workspace["vocab_dir"] / "embeddings.npy"))
    embeddings[1] = 0  # an untrained <unk>: an unknown word is the zero vector, which has no direction
    encoder = Encoder(build_model("avg", embeddings), vocab)
    assert not encoder.encode("zyxxy").any()
    unit = encoder.encode(["zyxxy", "a dog"], normalize_embeddings=True)
    assert np.isfinite(unit).all() and not unit[0].any() and np.isclose(np.linalg.norm(unit[1]), 1)
    assert torch.equal(encoder.similarity(["zyxxy"], ["a dog", "zyxxy"]), torch.zeros(1, 2))
    assert torch.equal(encoder.similarity_pairwise(["zyxxy"], ["a dog"]), torch.zeros(1))


def test_similarity_is_sentence_transformers_matrix_of_cosines(model_file):
    encoder = paraphrastic.load(model_file[0], device="cpu")
    rows = encoder.encode(SENTENCES)
    unit = rows / np.linalg.norm(rows, axis=1, keepdims=True)
    expected = unit @ unit[::-1].T
    matrix = encoder.similarity(rows, rows[::-1])
    assert isinstance(matrix, torch.Tensor) and matrix.shape == (3, 3)
    assert np.allclose(matrix.numpy(), expected, atol=1e-6)
    assert np.allclose(encoder.similarity(torch.from_numpy(rows), SENTENCES[::-1]).numpy(), expected, atol=1e-6)
    assert np.allclose(encoder.similarity(rows[0], rows).numpy(), expected[:1, ::-1], atol=1e-6)  # a 1-D row
    assert np.allclose(encoder.similarity(list(encoder.encode(SENTENCES, convert_to_numpy=False)), rows).numpy(),
                       unit @ unit.T, atol=1e-6)
    pairwise = encoder.similarity_pairwise(rows, rows[::-1])
    assert pairwise.shape == (3,) and np.allclose(pairwise.numpy(), np.diag(expected), atol=1e-6)
    assert np.allclose(encoder.similarity_pairwise(SENTENCES, SENTENCES[::-1]).numpy(), np.diag(expected), atol=1e-6)


def test_a_supervised_model_loads_as_its_sentence_encoder(model_file, workspace):
    _, model, vocab = model_file
    path = workspace["root"] / "supervised.pt"
    save_scorer(path, PairScorer(model, SimilarityHead(model.output_dim, 4, 1, 5)), "gran", {"tags": "both"}, vocab,
                {"settings": {"init": None}, "epoch": 1})
    encoder = paraphrastic.load(path, device="cpu")
    assert np.allclose(encoder.encode(SENTENCES), paraphrastic.load(model_file[0], device="cpu").encode(SENTENCES),
                       atol=1e-6)


def test_embed_and_similarity_subcommands(model_file, workspace, capsys):
    root = workspace["root"]
    (root / "sentences.txt").write_text("\n".join(SENTENCES) + "\n")
    (root / "pairs.tsv").write_text("".join(f"{a}\t{b}\n" for a, b in zip(SENTENCES, SENTENCES[::-1], strict=True)))
    assert cli.main(["embed", "--model", str(model_file[0]), "--input", str(root / "sentences.txt"),
                     "--output", str(root / "out.npy"), "--device", "cpu"]) == 0
    encoder = paraphrastic.load(model_file[0], device="cpu")
    assert np.allclose(np.load(root / "out.npy"), encoder.encode(SENTENCES), atol=1e-6)
    assert cli.main(["embed", "--model", str(model_file[0]), "--input", str(root / "pairs.tsv"), "--column", "2",
                     "--output", str(root / "col.npy"), "--device", "cpu"]) == 0
    assert np.allclose(np.load(root / "col.npy"), encoder.encode(SENTENCES[::-1]), atol=1e-6)
    capsys.readouterr()
    assert cli.main(["similarity", "--model", str(model_file[0]), "--input", str(root / "pairs.tsv"),
                     "--device", "cpu"]) == 0
    printed = [float(v) for v in capsys.readouterr().out.split()]
    assert np.allclose(printed, encoder.similarity_pairwise(SENTENCES, SENTENCES[::-1]), atol=1e-5)
    (root / "bad.tsv").write_text("one\ttwo\nonly one\n")
    assert cli.main(["similarity", "--model", str(model_file[0]), "--input", str(root / "bad.tsv")]) == 1
    assert "bad.tsv:2: has 1 tab-separated field; similarity reads two" in capsys.readouterr().err
    assert cli.main(["similarity", "--model", str(model_file[0]), "--input", str(root / "bad.tsv"), "--columns", "1",
                     "2"]) == 1  # a column named that a line lacks: read_sentences' error
    assert "bad.tsv:2: has 1 tab-separated fields, no column 2" in capsys.readouterr().err


@pytest.mark.fault("command inputs")
@pytest.mark.parametrize("column", ["0", "-1"])
def test_a_column_is_numbered_from_1(model_file, workspace, capsys, column):
    (workspace["root"] / "pairs.tsv").write_text("a b\tc d\n")
    assert cli.main(["embed", "--model", str(model_file[0]), "--input", str(workspace["root"] / "pairs.tsv"),
                     "--column", column, "--output", str(workspace["root"] / "v.npy")]) == 1
    assert f"column {column}: columns are numbered from 1" in capsys.readouterr().err
    assert not (workspace["root"] / "v.npy").exists()


@pytest.mark.fault("command inputs")
@pytest.mark.parametrize("which", ["input", "input through a link", "model"])
def test_an_output_that_is_one_of_the_commands_inputs_is_refused(model_file, workspace, capsys, which):
    root = workspace["root"]
    (root / "in.txt").write_text("a b\n")
    target = {"input": root / "in.txt", "model": model_file[0]}.get(which)
    if target is None:
        (root / "link.txt").symlink_to(root / "in.txt")
        target = root / "link.txt"
    before = Path(target).read_bytes()
    assert cli.main(["embed", "--model", str(model_file[0]), "--input", str(root / "in.txt"),
                     "--output", str(target)]) == 1
    option = "model" if which == "model" else "input"
    assert f"--output {target} is the --{option} file: refusing to write over it" in capsys.readouterr().err
    assert Path(target).read_bytes() == before


@pytest.mark.fault("command inputs")
def test_an_input_that_is_a_folder_is_named_as_the_input(model_file, workspace, capsys, monkeypatch):
    """Also `--input .`, the folder the output is written in (it was blamed on the output file)."""
    folder = workspace["root"] / "sentences"
    folder.mkdir()
    monkeypatch.chdir(workspace["root"])
    for given in (str(folder), "."):
        assert cli.main(["embed", "--model", str(model_file[0]), "--input", given, "--output", "v.npy"]) == 1
        assert capsys.readouterr().err.strip() == (f"error: {given}: is a directory; give a text file, one "
                                                   "sentence per line ('-' = standard input)")
        assert not (workspace["root"] / "v.npy").exists()


@pytest.mark.fault("command inputs")
def test_text_in_nfc_and_nfd_gets_the_same_tokens_and_vectors(tmp_path):
    import unicodedata

    from paraphrastic.data import vocab as vocab_mod

    nfc, nfd = "Un café naïve.", unicodedata.normalize("NFD", "Un café naïve.")
    assert nfc != nfd and tokenize(nfc) == tokenize(nfd) == ["un", "café", "naïve", "."]
    assert tokenize(nfd, pretokenized=True) == tokenize(nfc, pretokenized=True)
    # a vectors file that spells its words decomposed is looked up by the composed tokens
    (tmp_path / "v.txt").write_text(f"{unicodedata.normalize('NFD', 'café')} 1 2\nun 3 4\nnaïve 5 6\n. 7 8\n")
    vocab, matrix = vocab_mod.build([tokenize(nfc)], tmp_path / "v.txt")
    assert "café" in vocab.index and np.count_nonzero(matrix[vocab.index["café"]]) == 2
    save_model(tmp_path / "m.pt", build_model("avg", torch.from_numpy(matrix)), "avg", {}, vocab, {})
    encoder = paraphrastic.load(tmp_path / "m.pt", device="cpu")
    assert np.array_equal(encoder.encode([nfc]), encoder.encode([nfd]))
