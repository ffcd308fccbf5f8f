"""Checkpoints: read with ``weights_only=True`` (a crafted one never runs code), and every damaged one (an
epoch's weights or last.pt: unreadable, refused, or not fitting the model) is named in the output and recovered
from by training again, to the result an undamaged run gives."""

from __future__ import annotations

import json
import os
import re

import numpy as np
import pytest
import torch

from paraphrastic.errors import DamagedCheckpoint
from paraphrastic.training.epochs import Run, Streams, _place, recover_damaged_checkpoints
from tests.models.test_files import RunsCode
from tests.training.test_transfer import run

pytestmark = pytest.mark.fault("model and checkpoint files")  # the fault table of docs/faults.md


def _result(ws, out: str) -> tuple[dict, list[dict], dict]:
    weights = torch.load(ws["root"] / out / "model.pt", weights_only=True)["state_dict"]
    history = json.loads((ws["root"] / out / "history.json").read_text())
    info = json.loads((ws["root"] / out / "train.json").read_text())
    return weights, history, info


def _assert_same(a, b) -> None:
    (wa, ha, ia), (wb, hb, ib) = a, b
    assert wa.keys() == wb.keys() and all(torch.equal(wa[k], wb[k]) for k in wa)
    assert [h["loss"] for h in ha] == [h["loss"] for h in hb]
    assert [h["per_dataset"] for h in ha] == [h["per_dataset"] for h in hb]
    assert ia["selected_epoch"] == ib["selected_epoch"] and ia["selection_pearson"] == ib["selection_pearson"]


def _damage(path, how: str, marker) -> None:
    data = path.read_bytes()
    if how == "truncated":
        path.write_bytes(data[: len(data) // 2])
    elif how == "empty":
        path.write_bytes(b"")
    elif how == "garbage":
        path.write_bytes(os.urandom(len(data)))
    elif how == "missing":
        path.unlink()
    elif how == "crafted":
        torch.save({"embedding.weight": RunsCode(marker)}, path)
    elif how == "other-shape":  # readable, but the weights of another model
        torch.save({"embedding.weight": torch.zeros(3, 3)}, path)


DAMAGE = ["truncated", "empty", "garbage", "missing", "crafted", "other-shape"]


@pytest.mark.parametrize("how", DAMAGE)
def test_a_damaged_checkpoint_of_the_selected_epoch_is_recomputed(workspace, capsys, how):
    # Before: restore_best's bare torch.load died on it, naming no file, and so did every rerun.
    info = run(workspace, "d", model="lstmavg", epochs=2)
    reference = _result(workspace, "d")
    (workspace["root"] / "d" / "model.pt").unlink()
    damaged = workspace["root"] / "ck-d" / f"epoch-{info['selected_epoch']}.pt"
    marker = workspace["root"] / "code-ran"
    _damage(damaged, how, marker)
    capsys.readouterr()
    run(workspace, "d", model="lstmavg", epochs=2)
    out = capsys.readouterr().out
    assert f"{damaged}: damaged checkpoint" in out and "training again from the start" in out
    _assert_same(_result(workspace, "d"), reference)
    assert not marker.exists()
    # the retrained run's checkpoints are whole again: a further rerun resumes from them without retraining
    run(workspace, "d", model="lstmavg", epochs=2)
    out = capsys.readouterr().out
    assert "resuming from" in out and "damaged checkpoint" not in out
    assert re.search(r"resuming from \S+last\.pt after epoch 2\n", out), out  # not "at after epoch"
    _assert_same(_result(workspace, "d"), reference)


def _rewrite_last(path, change) -> None:
    state = torch.load(path, weights_only=True)
    change(state)
    torch.save(state, path)


NOT_FITTING = {
    "model-weights": lambda s: s["model"].update({"embedding.weight": torch.zeros(3, 3)}),
    "missing-model-weights": lambda s: s["model"].clear(),
    "optimizer": lambda s: s["optimizer"].update(param_groups=[]),
    "rng": lambda s: s["rng"].update(torch=torch.zeros(3, dtype=torch.uint8)),
    "history": lambda s: s.pop("history"),
}


@pytest.mark.parametrize("how", list(NOT_FITTING))
def test_a_last_checkpoint_that_does_not_fit_is_recomputed(workspace, capsys, how):
    # Before: load_state_dict's error, naming no file, on this and every rerun.
    run(workspace, "ref", model="lstmavg", epochs=2)
    run(workspace, "f", model="lstmavg", epochs=2, stop_after=1)
    last = workspace["root"] / "ck-f" / "last.pt"
    _rewrite_last(last, NOT_FITTING[how])
    capsys.readouterr()
    run(workspace, "f", model="lstmavg", epochs=2)
    out = capsys.readouterr().out
    assert re.search(rf"{re.escape(str(last))}: damaged checkpoint: it does not fit this run's model", out), out
    assert "training again from the start" in out
    _assert_same(_result(workspace, "f"), _result(workspace, "ref"))


@pytest.mark.parametrize("how", ["crafted", "crafted-inside", "old-format-with-numpy-arrays"])
def test_a_last_checkpoint_holding_pickled_objects_is_refused_and_the_run_starts_over(workspace, capsys, how):
    run(workspace, "ref", model="lstmavg", epochs=2)
    run(workspace, "c", model="lstmavg", epochs=2, stop_after=1)
    last = workspace["root"] / "ck-c" / "last.pt"
    marker = workspace["root"] / "code-ran"
    if how == "crafted":
        torch.save(RunsCode(marker), last)
    elif how == "crafted-inside":  # our checkpoint with one value replaced
        _rewrite_last(last, lambda s: s.update(history=RunsCode(marker)))
    else:  # as the code before weights_only wrote it: numpy's RNG state holds a numpy array
        _rewrite_last(last, lambda s: s["rng"].update(numpy=np.random.get_state()))
    capsys.readouterr()
    run(workspace, "c", model="lstmavg", epochs=2)
    out = capsys.readouterr().out
    assert re.search(rf"{re.escape(str(last))}: damaged checkpoint: refused: it holds pickled code or objects "
                     r".*\((posix\.system|numpy[\w.]+)\).*nothing in it was run.*; starting over", out), out
    assert not marker.exists()
    _assert_same(_result(workspace, "c"), _result(workspace, "ref"))


def test_checkpoints_hold_only_tensors_and_plain_values_and_restore_every_rng(tmp_path):
    model = torch.nn.Linear(3, 2)
    optimizer = torch.optim.Adam(model.parameters(), lr=0.1)
    model(torch.ones(1, 3)).sum().backward()
    optimizer.step()
    first = Run("t", model, optimizer, tmp_path, "stamp", seed=1, epochs=3, batch_size=2)
    streams = Streams.of_epoch(1, 2, 10)
    streams.scrambler.random(5)  # mid-stream: the PCG64 state is big integers
    np.random.seed(7)
    torch.manual_seed(7)
    first.save_resume_state(1, [{"epoch": 1, "loss": float("nan")}], _place(2, 4, [0.5], 1.0, streams))
    state = torch.load(tmp_path / "last.pt", weights_only=True)  # would fail on a numpy array or any object
    assert state["partial"]["scrambler"] == streams.scrambler.bit_generator.state
    expected = (np.random.random(3), torch.rand(3))
    np.random.seed(0)
    torch.manual_seed(0)
    second = Run("t", model, torch.optim.Adam(model.parameters(), lr=0.1), tmp_path, "stamp", seed=1, epochs=3,
                 batch_size=2)
    history, first_epoch, partial = second.resume(print)
    assert first_epoch == 2 and partial["next"] == 4 and np.isnan(history[0]["loss"])
    assert np.array_equal(np.random.random(3), expected[0]) and torch.equal(torch.rand(3), expected[1])


def test_recovery_trains_again_once_only(capsys):
    calls = []

    @recover_damaged_checkpoints
    def always_damaged(**kwargs):
        calls.append(kwargs)
        raise DamagedCheckpoint("ck/epoch-1.pt", "empty file")

    with pytest.raises(DamagedCheckpoint, match="ck/epoch-1.pt: damaged checkpoint: empty file"):
        always_damaged(checkpoint_dir="ck")
    assert len(calls) == 2 and "ck/epoch-1.pt: damaged checkpoint" in capsys.readouterr().out
