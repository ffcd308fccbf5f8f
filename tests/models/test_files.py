"""Model files are read with ``weights_only=True``: a crafted file's pickled code never runs, and a missing,
empty, truncated, foreign or mismatched file is one clear error naming it."""

from __future__ import annotations

import os
import pickle
import re

import numpy as np
import pytest
import torch

import paraphrastic
from paraphrastic.cli import main as cli
from paraphrastic.data.vocab import Vocabulary
from paraphrastic.errors import PipelineError
from paraphrastic.models.encoders import build_model
from paraphrastic.models.files import load_model, load_scorer, read_payload, save_model, save_scorer
from paraphrastic.models.heads import PairScorer, SimilarityHead

pytestmark = pytest.mark.fault("model and checkpoint files")  # the fault table of docs/faults.md


class RunsCode:
    """What a crafted file holds: unpickling it would call os.system, creating ``marker``."""

    def __init__(self, marker):
        self.marker = marker

    def __reduce__(self):
        return os.system, (f"touch '{self.marker}'",)


@pytest.fixture
def files(workspace):
    """A transfer model.pt ("gran") and a supervised one, from the tiny workspace's vocabulary."""
    root = workspace["root"]
    vocab = Vocabulary.load(workspace["vocab_dir"] / "vocab.txt")
    embeddings = torch.from_numpy(np.load(workspace["vocab_dir"] / "embeddings.npy"))
    torch.manual_seed(0)
    encoder = build_model("gran", embeddings, tags="both")
    save_model(root / "encoder.pt", encoder, "gran", {"tags": "both"}, vocab, {"settings": {}, "epoch": 1})
    scorer = PairScorer(build_model("gran", embeddings, tags="both"), SimilarityHead(encoder.output_dim, 4, 1, 5))
    save_scorer(root / "scorer.pt", scorer, "gran", {"tags": "both"}, vocab, {"settings": {"init": None}, "epoch": 1})
    return {"root": root, "load_model": root / "encoder.pt", "load_scorer": root / "scorer.pt",
            "paraphrastic.load": root / "encoder.pt"}


LOADERS = {"paraphrastic.load": lambda path: paraphrastic.load(path, device="cpu"), "load_model": load_model,
           "load_scorer": load_scorer}


def _one_clear_error(load, path, expected: str) -> PipelineError:
    with pytest.raises(PipelineError) as caught:
        load(path)
    message = str(caught.value)
    assert message.startswith(f"{path}: "), message  # names the file first
    assert re.search(expected, message), message
    assert "\n" not in message and "weights_only=False" not in message  # one line, and no advice to run the code
    return caught.value


def _good_payload(files, loader) -> dict:
    return torch.load(files[loader], weights_only=True)


@pytest.mark.parametrize("loader", list(LOADERS))
@pytest.mark.parametrize("crafted", ["whole-file", "inside-a-model-payload", "plain-pickle", "legacy-torch-format"])
def test_a_crafted_model_file_does_not_run_its_code(files, loader, crafted):
    root = files["root"]
    marker = root / "code-ran"
    path = root / "crafted.pt"
    if crafted == "whole-file":
        torch.save(RunsCode(marker), path)
    elif crafted == "inside-a-model-payload":  # a file of ours with one value replaced
        payload = _good_payload(files, loader)
        payload["settings"] = RunsCode(marker)
        torch.save(payload, path)
    elif crafted == "plain-pickle":
        path.write_bytes(pickle.dumps(RunsCode(marker)))
    else:
        torch.save({"state_dict": RunsCode(marker)}, path, _use_new_zipfile_serialization=False)
    # named: the function it would call, or (a plain pickle) the opcode torch.save never writes
    _one_clear_error(LOADERS[loader], path, r"(refused: it holds pickled code or objects .*\(posix\.system\)"
                                            r"|not written by torch\.save \(pickle opcode \d+).*nothing in it was run")
    assert not marker.exists()


def test_the_cli_refuses_a_crafted_model_file(files, capsys):
    marker, path = files["root"] / "code-ran", files["root"] / "crafted.pt"
    torch.save(RunsCode(marker), path)
    (files["root"] / "in.txt").write_text("a man\n")
    assert cli.main(["embed", "--model", str(path), "--input", str(files["root"] / "in.txt"),
                     "--output", str(files["root"] / "out.npy"), "--device", "cpu"]) == 1
    err = capsys.readouterr().err
    assert f"error: {path}: refused" in err and "Traceback" not in err
    assert not marker.exists()


def _bad_file(files, loader: str, case: str):
    """(path, expected message) of one damaged, foreign or mismatched model file."""
    root, good = files["root"], files[loader]
    path = root / f"{case}.pt"
    if case == "missing":
        return path, "no such model file"
    if case == "directory":
        path.mkdir()
        return path, "not a file"
    if case == "empty":
        path.write_bytes(b"")
        return path, r"empty file \(0 bytes\)"
    if case == "truncated":
        path.write_bytes(good.read_bytes()[: good.stat().st_size // 2])
        return path, "not a readable model file: truncated"
    if case == "head-only":
        path.write_bytes(good.read_bytes()[:100])
        return path, "not a readable model file: truncated"
    if case == "garbage":
        path.write_bytes(b"model weights, honestly\n" * 40)
        return path, "not a readable model file"
    if case == "numpy-file":
        np.save(root / "matrix.npy", np.zeros((3, 3)))
        (root / "matrix.npy").rename(path)
        return path, "not a readable model file"
    if case == "foreign-torch-file":
        torch.save({"weights": torch.zeros(3), "epoch": 2}, path)
        return path, "not a paraphrastic model file"
    if case == "bare-state-dict":
        torch.save(_good_payload(files, loader)["state_dict"], path)
        return path, "not a paraphrastic model file"
    payload = _good_payload(files, loader)
    if case == "other-architecture":  # gran weights under another model's name
        payload["model"] = "lstmavg"
    elif case == "other-options":  # the same model, options that give other parameters
        payload["options"] = {**payload["options"], "hidden_dim": 5}
    elif case == "unknown-model":
        payload["model"] = "transformer"
    elif case == "vocabulary-of-another-size":
        payload["vocab"] = payload["vocab"][:-3]
    elif case == "missing-weights":
        payload["state_dict"] = {k: v for k, v in payload["state_dict"].items() if "embedding" not in k}
    torch.save(payload, path)
    return path, "its contents do not fit the model it names"


CASES = ["missing", "directory", "empty", "truncated", "head-only", "garbage", "numpy-file", "foreign-torch-file",
         "bare-state-dict", "other-architecture", "other-options", "unknown-model", "vocabulary-of-another-size",
         "missing-weights"]


@pytest.mark.parametrize("loader", list(LOADERS))
@pytest.mark.parametrize("case", CASES)
def test_a_bad_model_file_is_one_error_naming_it(files, loader, case):
    path, expected = _bad_file(files, loader, case)
    _one_clear_error(LOADERS[loader], path, expected)


def test_loaders_tell_which_kind_of_model_file_they_need(files, workspace):
    _one_clear_error(load_scorer, files["load_model"], "not a supervised model file")
    _one_clear_error(load_model, files["load_scorer"], "a supervised model file .* loads with load_scorer")
    payload = _good_payload(files, "load_model")
    payload["model"] = "pwim"
    torch.save(payload, files["root"] / "pwim.pt")
    _one_clear_error(load_model, files["root"] / "pwim.pt", "a PWIM model")


def test_good_files_still_load_and_read_payload_takes_plain_values(files, tmp_path):
    model, vocab, payload = load_model(files["load_model"])
    assert payload["model"] == "gran" and len(vocab) == model.embedding.num_embeddings
    scorer, _, payload = load_scorer(files["load_scorer"])
    assert payload["head"]["low"] == 1 and isinstance(scorer, PairScorer)
    assert paraphrastic.load(files["load_scorer"], device="cpu").dim == model.output_dim
    plain = {"ints": [1, 2**100], "float": float("nan"), "none": None, "flag": True, "tuple": (1, "a"),
             "tensor": torch.arange(3)}
    torch.save(plain, tmp_path / "plain.pt")
    again = read_payload(tmp_path / "plain.pt")
    assert again["ints"] == [1, 2**100] and again["tuple"] == (1, "a") and torch.equal(again["tensor"], torch.arange(3))


def test_a_file_holds_the_vectors_once_and_one_written_with_the_anchors_still_loads(files):
    """The λ penalties' anchors (initial_embeddings, initial_<parameter>) are rebuilt by a job, not saved; files
    written before that held them too, and still load to the same weights."""
    for loader, path in (("load_model", files["load_model"]), ("load_scorer", files["load_scorer"])):
        payload = _good_payload(files, loader)
        assert not [key for key in payload["state_dict"] if key.rpartition(".")[2].startswith("initial_")]
        vectors = "encoder.embedding.weight" if loader == "load_scorer" else "embedding.weight"
        older = dict(payload, state_dict={**payload["state_dict"],
                                          vectors.replace("embedding.weight", "initial_embeddings"):
                                          torch.zeros_like(payload["state_dict"][vectors]),
                                          vectors.replace("embedding.weight", "initial_gate_x_0_weight"):
                                          torch.zeros(3, 3)})
        torch.save(older, files["root"] / "older.pt")
        new, _, _ = LOADERS[loader](path)
        old, _, _ = LOADERS[loader](files["root"] / "older.pt")
        assert all(torch.equal(a, b) for a, b in zip(new.state_dict().values(), old.state_dict().values(), strict=True))
        assert torch.equal(old.state_dict()[vectors], payload["state_dict"][vectors])


@pytest.mark.parametrize("name, option, value", [("bigran", "gate_per_direction", True),
                                                 ("gran5", "gran5_readout", "last")])
def test_a_file_written_before_an_architecture_option_loads_as_the_architecture_it_was(tmp_path, name, option, value):
    from paraphrastic.data.vocab import SPECIAL

    vocab = Vocabulary([*SPECIAL, "a", "b", "c"])
    weights = torch.randn(len(vocab.words), 4)
    older = build_model(name, weights)  # before the option: no key in the file, the older architecture
    save_model(tmp_path / "older.pt", older, name, {}, vocab, {})
    loaded, _, payload = load_model(tmp_path / "older.pt")
    assert option not in payload["options"] and getattr(loaded, option) != value
    before, after = older.state_dict(), loaded.state_dict()
    assert before.keys() == after.keys() and all(torch.equal(before[k], after[k]) for k in before)
    newer = build_model(name, weights, **{option: value})  # the authors' architecture, as training now chooses
    save_model(tmp_path / "newer.pt", newer, name, {option: value}, vocab, {})
    assert getattr(load_model(tmp_path / "newer.pt")[0], option) == value


@pytest.mark.parametrize("loader", list(LOADERS))
def test_a_jobs_model_changed_in_place_stops_its_reader_naming_the_file_and_the_stage(files, loader, tmp_path):
    """A job's model.pt is held to the sha256 its train.json records: two vocabulary entries swapped and saved with
    torch.save, the record kept, is an error for every reader (the evaluate stage's load_model among them), naming
    the file and the stage that wrote it; the file as written loads."""
    from paraphrastic.pipeline.steps import evaluate
    from paraphrastic.provenance import write_result

    job = tmp_path / "models" / "run" / "seed1"
    job.mkdir(parents=True)
    path = job / "model.pt"
    path.write_bytes(files[loader].read_bytes())
    write_result(job / "train.json", {"name": "run"}, stage="train", files=("model.pt",))
    LOADERS[loader](path)  # as written
    payload = torch.load(path, weights_only=True)
    payload["vocab"][5], payload["vocab"][6] = payload["vocab"][6], payload["vocab"][5]
    torch.save(payload, path)
    error = f"{path}: differs from what train wrote beside {job / 'train.json'} (its sha256 there)"
    with pytest.raises(PipelineError, match=re.escape(error)):
        LOADERS[loader](path)
    if loader == "load_model":
        with pytest.raises(PipelineError, match=re.escape(error)):
            evaluate.run({"device": "cpu", "evaluation": {"batch_size": 8}}, model=path, eval=tmp_path / "eval.parquet",
                         out=tmp_path / "out.json")
