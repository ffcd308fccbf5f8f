"""`embed` and `similarity` against the user's filesystem: nothing of theirs is deleted, standard input works,
and every failure is one line naming the path."""

from __future__ import annotations

import io
import os

import numpy as np
import pytest

import paraphrastic
from paraphrastic.cli import main as cli
from tests.test_atomic import full_disk
from tests.test_encoder import SENTENCES, model_file  # noqa: F401  (a fixture)


@pytest.fixture
def model(model_file):  # noqa: F811
    return str(model_file[0])


@pytest.mark.fault("filesystem")
@pytest.mark.parametrize("where", ["folder", "cwd"])
def test_embed_never_deletes_an_existing_folder_given_as_output(model, tmp_path, monkeypatch, capsys, where):
    (tmp_path / "sentences.txt").write_text("\n".join(SENTENCES) + "\n")
    folder = tmp_path / "mine"
    folder.mkdir()
    (folder / "notes.txt").write_text("keep me")
    monkeypatch.chdir(folder)
    output = "." if where == "cwd" else str(folder)
    assert cli.main(["embed", "--model", model, "--input", str(tmp_path / "sentences.txt"), "--output", output,
                     "--device", "cpu"]) == 1
    assert "is a directory" in capsys.readouterr().err
    assert (folder / "notes.txt").read_text() == "keep me" and sorted(os.listdir(folder)) == ["notes.txt"]


@pytest.mark.fault("data files")
def test_similarity_reads_pairs_from_standard_input(model, monkeypatch, capsys):
    pairs = "".join(f"{a}\t{b}\n" for a, b in zip(SENTENCES, SENTENCES[::-1], strict=True))
    monkeypatch.setattr("sys.stdin", io.StringIO(pairs))
    assert cli.main(["similarity", "--model", model, "--input", "-", "--device", "cpu"]) == 0
    printed = [float(v) for v in capsys.readouterr().out.split()]
    expected = paraphrastic.load(model, device="cpu").similarity_pairwise(SENTENCES, SENTENCES[::-1])
    assert len(printed) == 3 and np.allclose(printed, expected, atol=1e-5)


@pytest.mark.fault("data files")
def test_embed_reads_standard_input(model, tmp_path, monkeypatch):
    monkeypatch.setattr("sys.stdin", io.StringIO("\n".join(SENTENCES) + "\n"))
    assert cli.main(["embed", "--model", model, "--input", "-", "--output", str(tmp_path / "v.npy"),
                     "--device", "cpu"]) == 0
    assert np.load(tmp_path / "v.npy").shape[0] == 3


@pytest.mark.fault("filesystem")
def test_a_missing_input_is_one_line_naming_it(model, tmp_path, capsys):
    for command in (["embed", "--output", str(tmp_path / "v.npy")], ["similarity"]):
        assert cli.main([*command, "--model", model, "--input", str(tmp_path / "nope.txt"), "--device", "cpu"]) == 1
        assert capsys.readouterr().err.strip() == f"error: {tmp_path / 'nope.txt'}: No such file or directory"
    assert not (tmp_path / "v.npy").exists()


@pytest.mark.fault("filesystem")
def test_a_full_disk_keeps_the_previous_output(model, tmp_path, monkeypatch, capsys):
    (tmp_path / "sentences.txt").write_text("\n".join(SENTENCES) + "\n")
    previous = tmp_path / "v.npy"
    np.save(previous, np.zeros((1, 1)))
    full_disk(monkeypatch)
    assert cli.main(["embed", "--model", model, "--input", str(tmp_path / "sentences.txt"), "--output",
                     str(previous), "--device", "cpu"]) == 1
    assert f"{previous}: could not write it (No space left on device)" in capsys.readouterr().err
    assert np.load(previous).shape == (1, 1)
    assert not [p.name for p in tmp_path.iterdir() if p.name.endswith(".partial")]
