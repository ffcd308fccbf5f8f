"""The user-facing encoder: paraphrastic.load(path).encode(...), and the embed / similarity subcommands."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import torch

import paraphrastic
from paraphrastic.cli import main as cli
from paraphrastic.data.tokenize import tokenize
from paraphrastic.data.vocab import Vocabulary
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
    assert np.allclose(encoder.similarity(SENTENCES, SENTENCES[::-1]), similarity.cosine_scores(model, vocab, frame),
                       atol=1e-6)
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


def test_bad_inputs_are_clear_errors(model_file, workspace):
    encoder = paraphrastic.load(model_file[0], device="cpu")
    with pytest.raises(TypeError, match="list of sentences"):
        encoder.encode("a single string")
    with pytest.raises(TypeError, match="must be str"):
        encoder.encode(["fine", None])
    with pytest.raises(ValueError, match="as many"):
        encoder.similarity(["a"], ["b", "c"])
    with pytest.raises(PipelineError, match="no such model file"):
        paraphrastic.load(workspace["root"] / "missing.pt")
    torch.save({"weights": 1}, workspace["root"] / "other.pt")
    with pytest.raises(PipelineError, match="not a paraphrastic model"):
        paraphrastic.load(workspace["root"] / "other.pt")


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
    assert cli.main(["embed", "--model", str(model_file[0]), "--input", str(root / "pairs.tsv"), "--column", "1",
                     "--output", str(root / "col.npy"), "--device", "cpu"]) == 0
    assert np.allclose(np.load(root / "col.npy"), encoder.encode(SENTENCES[::-1]), atol=1e-6)
    capsys.readouterr()
    assert cli.main(["similarity", "--model", str(model_file[0]), "--input", str(root / "pairs.tsv"),
                     "--device", "cpu"]) == 0
    printed = [float(v) for v in capsys.readouterr().out.split()]
    assert np.allclose(printed, encoder.similarity(SENTENCES, SENTENCES[::-1]), atol=1e-5)
    (root / "bad.tsv").write_text("one\ttwo\nonly one\n")
    assert cli.main(["similarity", "--model", str(model_file[0]), "--input", str(root / "bad.tsv")]) == 1
    assert "bad.tsv:2: has 1 tab-separated fields, no column 1" in capsys.readouterr().err
