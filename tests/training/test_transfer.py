"""Training: loss goes down, checkpoints resume to the identical result (after kill -9 and SIGTERM), NaN stops."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
import torch
import yaml

from paraphrastic.data.corpus import read_table
from paraphrastic.errors import TrainingDiverged, TrainingInterrupted
from paraphrastic.evaluation import similarity
from paraphrastic.models.files import load_model
from paraphrastic.training import transfer as train_module
from paraphrastic.training.transfer import train
from tests.conftest import settings

REPO = Path(__file__).resolve().parents[2]


def run(ws, out: str, **kw):
    s = settings(**{k: v for k, v in kw.items() if k not in {"stop_after"}})
    return train(s, train_path=ws["train"], vocab_dir=ws["vocab_dir"], eval_path=ws["eval"],
                 selection=["sts16.headlines"], out_dir=ws["root"] / out, checkpoint_dir=ws["root"] / f"ck-{out}",
                 progress=False, stop_after=kw.get("stop_after"), threads=1)


@pytest.mark.parametrize("model", ["avg", "lstmavg", "gran"])
def test_training_lowers_the_loss_and_writes_outputs(workspace, model):
    run(workspace, "m", model=model, epochs=4)
    history = json.loads((workspace["root"] / "m" / "history.json").read_text())
    assert history[-1]["loss"] < history[0]["loss"]
    info = json.loads((workspace["root"] / "m" / "train.json").read_text())
    best = max(history, key=lambda h: h["selection_pearson"])
    assert info["selected_epoch"] == best["epoch"]
    # model.pt holds the selected epoch's weights: re-scoring it reproduces that epoch's metrics
    loaded, vocab, _ = load_model(workspace["root"] / "m" / "model.pt")
    results = similarity.score_sets(loaded, vocab, read_table(workspace["eval"]))
    assert results["sts16.headlines"]["pearson"] == pytest.approx(best["per_dataset"]["sts16.headlines"], abs=1e-4)


def test_a_runs_record_names_the_text_it_trained_on(workspace):
    """train.json and the model file name the training table, its sha256 (from the table's own record) and its reading
    (data.reading, which prepare_train writes into that record); a table written without one records none."""
    from paraphrastic.data.corpus import TRAIN_SCHEMA, table_record, write_table
    from paraphrastic.models.files import read_model_file

    table = workspace["root"] / "simpwiki.parquet"
    write_table(read_table(workspace["train"]), TRAIN_SCHEMA, table, stage="prepare_train",
                about={"reading": "authors"})
    train(settings(epochs=1), train_path=table, vocab_dir=workspace["vocab_dir"], eval_path=workspace["eval"],
          selection=["sts16.headlines"], out_dir=workspace["root"] / "m", checkpoint_dir=workspace["root"] / "ck",
          progress=False, threads=1)
    text = {"table": "simpwiki.parquet", "sha256": table_record(table)["sha256"], "reading": "authors"}
    assert json.loads((workspace["root"] / "m" / "train.json").read_text())["training_text"] == text
    assert read_model_file(workspace["root"] / "m" / "model.pt")["training_text"] == text
    run(workspace, "plain", epochs=1)
    assert json.loads((workspace["root"] / "plain" / "train.json").read_text())["training_text"]["reading"] is None


REGULARISED = {"dropout": 0.2, "word_dropout": 0.1, "scramble": 0.5, "sampling": "mix", "tags": "eos",
               "lambda_c": 1e-4}


@pytest.mark.fault("interrupted training")
@pytest.mark.parametrize("model, extra", [("avg", {}), ("lstm", {}), ("lstmavg", REGULARISED),
                                          ("bigran", {**REGULARISED, "combine": "ff", "sampling": "rand"})])
def test_resume_reaches_the_same_result(workspace, model, extra):
    full = run(workspace, "full", model=model, epochs=3, lambda_w=1e-3, **extra)
    partial = run(workspace, "part", model=model, epochs=3, lambda_w=1e-3, stop_after=1, **extra)
    assert partial == {"stopped_after_epoch": 1}
    assert not (workspace["root"] / "part" / "model.pt").exists()
    resumed = run(workspace, "part", model=model, epochs=3, lambda_w=1e-3, **extra)
    assert resumed["selected_epoch"] == full["selected_epoch"]
    a = torch.load(workspace["root"] / "full" / "model.pt", weights_only=True)["state_dict"]
    b = torch.load(workspace["root"] / "part" / "model.pt", weights_only=True)["state_dict"]
    for key in a:
        torch.testing.assert_close(a[key], b[key], rtol=0, atol=0)
    full_hist = json.loads((workspace["root"] / "full" / "history.json").read_text())
    part_hist = json.loads((workspace["root"] / "part" / "history.json").read_text())
    assert [h["loss"] for h in full_hist] == [h["loss"] for h in part_hist]
    assert [h["per_dataset"] for h in full_hist] == [h["per_dataset"] for h in part_hist]


def test_scrambling_shuffles_both_sentences_of_chosen_pairs():
    from paraphrastic.training.augmentation import scramble_pairs

    first = [list(range(10 * i, 10 * i + 8)) for i in range(200)]
    second = [list(range(10 * i + 1, 10 * i + 9)) for i in range(200)]
    a, b = scramble_pairs(first, second, 0.5, np.random.default_rng(0))
    changed = [j for j in range(200) if a[j] != first[j]]
    assert 70 < len(changed) < 130  # about half the pairs
    assert all(b[j] != second[j] for j in changed)  # both sides of a scrambled pair
    assert all(a[j] == first[j] and b[j] == second[j] for j in range(200) if j not in changed)
    assert all(sorted(a[j]) == first[j] and sorted(b[j]) == second[j] for j in range(200))
    assert scramble_pairs(first, second, 0.0, np.random.default_rng(0)) == (first, second)


def test_an_epoch_is_evaluated_at_its_quarters_as_the_authors_round_them():
    from paraphrastic.training.epochs import inner_points, point_label

    # 269 batches (the offline SimpWiki slice): Python 2's round takes 134.5 to 135, where Python 3's gives 134
    assert inner_points(269, 4) == {67: 0.25, 135: 0.5, 202: 0.75}
    assert inner_points(4, 4) == {1: 0.25, 2: 0.5, 3: 0.75} and inner_points(269, 1) == {}
    assert inner_points(2, 4) == {1: 0.5} and inner_points(1, 4) == {}  # two quarters after batch 1; none inside
    assert point_label(3, 0.25) == 2.25 and point_label(3) == 3 and isinstance(point_label(3), int)


QUARTERS = {"model": "lstmavg", "epochs": 3, "evaluate_every": "quarter", **REGULARISED}


def test_a_run_selects_among_its_quarters_and_keeps_only_the_selected_points_weights(workspace):
    info = run(workspace, "q", **QUARTERS)
    history = json.loads((workspace["root"] / "q" / "history.json").read_text())
    assert [h["epoch"] for h in history] == [0.25, 0.5, 0.75, 1, 1.25, 1.5, 1.75, 2, 2.25, 2.5, 2.75, 3]
    best = max(history, key=lambda h: h["selection_pearson"])
    assert info["selected_epoch"] == best["epoch"]
    assert [p.name for p in (workspace["root"] / "ck-q").glob("epoch-*.pt")] == [f"epoch-{best['epoch']}.pt"]
    loaded, vocab, payload = load_model(workspace["root"] / "q" / "model.pt")
    assert payload["epoch"] == best["epoch"]
    results = similarity.score_sets(loaded, vocab, read_table(workspace["eval"]))
    assert results["sts16.headlines"]["pearson"] == pytest.approx(best["per_dataset"]["sts16.headlines"], abs=1e-4)
    # an epoch's training seconds are its end row's (a quarter's row holds the epoch's seconds so far)
    assert info["train_seconds_total"] == pytest.approx(sum(h["train_seconds"] for h in history[3::4]))
    assert history[1]["train_seconds"] < history[3]["train_seconds"]


@pytest.mark.fault("interrupted training")
def test_a_run_evaluated_at_quarters_resumes_exactly_after_an_epoch_or_a_sigterm_between_quarters(workspace,
                                                                                                  monkeypatch):
    run(workspace, "full", **QUARTERS)
    assert run(workspace, "part", stop_after=1, **QUARTERS) == {"stopped_after_epoch": 1}
    run(workspace, "part", **QUARTERS)
    _same_result(workspace, "full", "part")
    calls = {"n": 0}
    real_loss = train_module.margin_loss_deterministic_negatives

    def loss_then_sigterm(*args, **kwargs):
        calls["n"] += 1
        if calls["n"] == 7:  # in epoch 2's third batch: the job stops after it, its quarter scored
            os.kill(os.getpid(), signal.SIGTERM)
        return real_loss(*args, **kwargs)

    monkeypatch.setattr(train_module, "margin_loss_deterministic_negatives", loss_then_sigterm)
    with pytest.raises(TrainingInterrupted, match="in epoch 2 at pair 48"):
        run(workspace, "term", **QUARTERS)
    kept = torch.load(workspace["root"] / "ck-term" / "last.pt", weights_only=True)["history"]
    assert [h["epoch"] for h in kept] == [0.25, 0.5, 0.75, 1, 1.25, 1.5, 1.75]
    monkeypatch.setattr(train_module, "margin_loss_deterministic_negatives", real_loss)
    run(workspace, "term", **QUARTERS)
    _same_result(workspace, "full", "term")


@pytest.mark.parametrize("halve, applied", [(True, (5e-5, 5e-4)), (False, (1e-4, 1e-3))])
def test_the_penalties_are_applied_as_half_of_lambda_as_the_authors_code_does(workspace, monkeypatch, halve, applied):
    seen = set()
    real = train_module.regularization
    monkeypatch.setattr(train_module, "regularization",
                        lambda model, lambda_c, lambda_w: seen.add((lambda_c, lambda_w)) or real(model, lambda_c,
                                                                                                 lambda_w))
    run(workspace, "p", epochs=1, lambda_c=1e-4, lambda_w=1e-3, halve_penalties=halve)
    assert seen == {applied}


@pytest.mark.fault("undefined scores")
def test_an_evaluation_table_without_a_selection_set_is_an_error_naming_it(workspace):
    from paraphrastic.data.corpus import EVAL_SCHEMA, write_table
    from paraphrastic.errors import PipelineError

    table = read_table(workspace["eval"])
    write_table(table[table["dataset"] != "sts16.headlines"], EVAL_SCHEMA, workspace["eval"])
    with pytest.raises(PipelineError, match=r"eval.parquet: no pairs of the selection set\(s\) \['sts16.headlines'\]"):
        run(workspace, "x", epochs=1)


@pytest.mark.fault("undefined scores")
def test_a_nan_score_never_selects_a_point():
    from paraphrastic.training.epochs import best_of

    nan = float("nan")
    history = [{"epoch": 1, "s": nan}, {"epoch": 2, "s": 40.0}, {"epoch": 3, "s": nan}, {"epoch": 4, "s": 40.0}]
    assert best_of(history, "s") is history[1]  # the first of equals; NaN never wins
    assert best_of([{"epoch": 1, "s": nan}], "s") is None


def _gran(dropout: float) -> torch.nn.Module:
    from paraphrastic.models.encoders import build_model

    torch.manual_seed(0)
    return build_model("gran", torch.randn(30, 6), dropout=dropout).train()


def _batch(size: int = 8) -> tuple[torch.Tensor, torch.Tensor]:
    from paraphrastic.data.batching import pad

    rng = np.random.default_rng(1)
    return pad([list(rng.integers(2, 30, rng.integers(2, 7))) for _ in range(2 * size)], torch.device("cpu"))


def test_negatives_are_chosen_without_dropout_and_embedded_in_a_pass_of_their_own(monkeypatch):
    from paraphrastic.losses import margin

    model, (tokens, mask) = _gran(dropout=0.5), _batch()
    chosen = {}
    real = train_module.choose_negatives
    monkeypatch.setattr(train_module, "choose_negatives",
                        lambda g1, g2, **kw: chosen.setdefault("pairs", real(g1, g2, **kw)))
    torch.manual_seed(5)
    loss = train_module.margin_loss_deterministic_negatives(model, tokens, mask, 0.4)
    assert model.training
    with torch.no_grad():
        clean = model.eval()(tokens, mask)
    model.train()
    n1, n2 = margin.hardest_negatives(clean[:8], clean[8:])
    assert torch.equal(chosen["pairs"][0], n1) and torch.equal(chosen["pairs"][1], n2)
    # the same draws again: the pairs' pass, then the negatives' own (fresh dropout masks)
    torch.manual_seed(5)
    embedded = model(tokens, mask)
    picked = torch.cat([n1, n2])
    negatives = model(tokens[picked], mask[picked])
    assert not torch.equal(negatives, torch.cat([embedded, embedded])[torch.cat([n1, n2])])
    assert torch.equal(loss, margin.hinge(embedded[:8], embedded[8:], negatives[:8], negatives[8:], 0.4))


def test_without_dropout_the_negatives_own_pass_changes_no_loss_or_gradient():
    # what lets the trainer skip the extra passes of negative_pass: deterministic when nothing drops out
    from paraphrastic.losses.margin import margin_loss

    (tokens, mask) = _batch()
    apart, shared = _gran(dropout=0.0), _gran(dropout=0.0)
    a = train_module.margin_loss_deterministic_negatives(apart, tokens, mask, 0.4)
    embedded = shared(tokens, mask)
    b = margin_loss(embedded[:8], embedded[8:], 0.4)
    a.backward(), b.backward()
    torch.testing.assert_close(a, b)
    for (name, x), y in zip(apart.named_parameters(), shared.parameters(), strict=True):
        torch.testing.assert_close(x.grad, y.grad, msg=name)


def test_the_negative_pass_setting_chooses_the_loss(workspace, monkeypatch):
    called = []
    real = train_module.margin_loss_deterministic_negatives
    monkeypatch.setattr(train_module, "margin_loss_deterministic_negatives",
                        lambda *a, **kw: called.append(1) or real(*a, **kw))
    run(workspace, "none", epochs=1)  # no dropout: the shared pass
    run(workspace, "training", epochs=1, dropout=0.2, negative_pass="training")
    assert called == []
    run(workspace, "deterministic", epochs=1, dropout=0.2)  # the default
    assert len(called) == 4  # 64 pairs, batches of 16


@pytest.mark.fault("interrupted training")
def test_stale_checkpoint_from_other_settings_is_not_resumed(workspace):
    run(workspace, "x", epochs=2, stop_after=1)
    info = run(workspace, "x", epochs=2, margin=0.8)  # other settings: starts over, still finishes
    assert info["selected_epoch"] in (1, 2)
    history = json.loads((workspace["root"] / "x" / "history.json").read_text())
    assert [h["epoch"] for h in history] == [1, 2]


@pytest.mark.fault("interrupted training")
def test_changed_inputs_make_the_checkpoint_stale(workspace):
    run(workspace, "y", epochs=2)
    frame = read_table(workspace["train"]).iloc[:40]
    from paraphrastic.data.corpus import TRAIN_SCHEMA, write_table

    write_table(frame, TRAIN_SCHEMA, workspace["train"])
    info = run(workspace, "y", epochs=2)
    assert info["train_pairs"] == 40
    history = json.loads((workspace["root"] / "y" / "history.json").read_text())
    assert [h["epoch"] for h in history] == [1, 2]


def test_lowering_epochs_selects_among_the_configured_ones(workspace):
    run(workspace, "z", epochs=3)
    info = run(workspace, "z", epochs=1)
    assert info["selected_epoch"] == 1
    assert len(json.loads((workspace["root"] / "z" / "history.json").read_text())) == 1


@pytest.mark.fault("interrupted training")
def test_unreadable_checkpoint_starts_over(workspace):
    run(workspace, "u", epochs=2, stop_after=1)
    last = workspace["root"] / "ck-u" / "last.pt"
    last.write_bytes(last.read_bytes()[:100])  # as if a crash had truncated it
    info = run(workspace, "u", epochs=2)
    assert info["selected_epoch"] in (1, 2)


def _same_result(ws, a: str, b: str):
    x = torch.load(ws["root"] / a / "model.pt", weights_only=True)["state_dict"]
    y = torch.load(ws["root"] / b / "model.pt", weights_only=True)["state_dict"]
    for key in x:
        torch.testing.assert_close(x[key], y[key], rtol=0, atol=0)
    hx = json.loads((ws["root"] / a / "history.json").read_text())
    hy = json.loads((ws["root"] / b / "history.json").read_text())
    assert [h["loss"] for h in hx] == [h["loss"] for h in hy]
    assert [h["per_dataset"] for h in hx] == [h["per_dataset"] for h in hy]


@pytest.mark.fault("interrupted training")
def test_sigterm_mid_epoch_saves_there_and_the_rerun_resumes_exactly(workspace, monkeypatch):
    # batched by length too: the rearranged order must be the same again when the epoch is resumed
    extra = dict(model="lstmavg", epochs=2, batch_size=8, length_buckets=3, **REGULARISED)
    run(workspace, "full", **extra)
    calls = {"n": 0}
    real_loss = train_module.margin_loss_deterministic_negatives  # the loss of a run with dropout

    def loss_then_sigterm(*args, **kwargs):
        calls["n"] += 1
        if calls["n"] == 5:  # SLURM's SIGTERM arrives while the 5th batch of epoch 1 is being computed
            os.kill(os.getpid(), signal.SIGTERM)
        return real_loss(*args, **kwargs)

    monkeypatch.setattr(train_module, "margin_loss_deterministic_negatives", loss_then_sigterm)
    with pytest.raises(TrainingInterrupted, match="stopped by signal 15 in epoch 1 at pair 40"):
        run(workspace, "term", **extra)
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL  # handler restored
    state = torch.load(workspace["root"] / "ck-term" / "last.pt", weights_only=True)
    assert state["epoch"] == 0 and state["partial"]["epoch"] == 1 and state["partial"]["next"] == 40
    assert not (workspace["root"] / "term" / "model.pt").exists()
    monkeypatch.setattr(train_module, "margin_loss_deterministic_negatives", real_loss)
    run(workspace, "term", **extra)
    _same_result(workspace, "full", "term")


@pytest.mark.fault("interrupted training")
@pytest.mark.parametrize("how", ["sigterm", "crash"])
def test_interrupted_during_evaluation_resumes_without_retraining_the_epoch(workspace, monkeypatch, how):
    extra = dict(model="lstmavg", epochs=2, batch_size=8, **REGULARISED)
    run(workspace, "full", **extra)
    real_score = train_module.similarity.PreparedSets.score

    def score_then_interrupt(*args, **kwargs):
        if how == "crash":  # the job dies while scoring epoch 1 (SIGKILL, node failure)
            raise KeyboardInterrupt
        os.kill(os.getpid(), signal.SIGTERM)  # SIGTERM arrives while scoring epoch 1
        return real_score(*args, **kwargs)

    monkeypatch.setattr(train_module.similarity.PreparedSets, "score", score_then_interrupt)
    expected = KeyboardInterrupt if how == "crash" else TrainingInterrupted
    with pytest.raises(expected):
        run(workspace, "eval", **extra)
    state = torch.load(workspace["root"] / "ck-eval" / "last.pt", weights_only=True)
    if how == "crash":  # epoch 1 trained, not scored: the rerun only scores it
        assert state["epoch"] == 0 and state["partial"]["next"] == 64
    else:  # the signal was honoured right after epoch 1's checkpoint
        assert state["epoch"] == 1 and "partial" not in state
    monkeypatch.setattr(train_module.similarity.PreparedSets, "score", real_score)
    run(workspace, "eval", **extra)
    _same_result(workspace, "full", "eval")


@pytest.mark.fault("interrupted training")
def test_nan_loss_stops_with_a_clear_error(workspace):
    from paraphrastic.data.vocab import load_matrix, save_matrix

    matrix = load_matrix(workspace["vocab_dir"] / "embeddings.npy")
    matrix[2:] = np.nan
    save_matrix(workspace["vocab_dir"] / "embeddings.npy", matrix)
    with pytest.raises(TrainingDiverged, match=r"\[toy\] loss is nan at epoch 1, batch 1"):
        run(workspace, "nan")


def _cli_params(ws, tmp: Path) -> Path:
    config = yaml.safe_load((REPO / "params.test.yaml").read_text())
    # 20 epochs: after the first one's checkpoint, which the interrupting tests wait for, 19 are left to train, so a
    # signal sent then reaches a running job; with 3 the toy could finish first (it did once, in CI, under SIGTERM)
    config["experiments"] = {"toy": {"model": "lstmavg", "train_set": "simpwiki", "epochs": 20,
                                     "learning_rate": 0.01, "batch_size": 16}}
    config["evaluation"].update({"sets": ["sts12.MSRvid"], "selection": ["sts16.headlines"]})
    config["word_vectors"]["distilled_rows"] = []  # they name the experiments replaced above
    config["word_vectors"]["extended_distilled_rows"] = []
    config["word_vectors"]["sentence_distilled_rows"] = []
    path = tmp / "params.yaml"
    path.write_text(yaml.safe_dump(config))
    (tmp / "data" / "corpus").mkdir(parents=True)
    os.symlink(ws["train"], tmp / "data" / "corpus" / "simpwiki.parquet")
    return path


def _train_cli(ws, tmp: Path, params: Path, out: str) -> subprocess.Popen:
    # the library first, then whatever the caller's PYTHONPATH holds (a site folder of packages, say)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(REPO / "src"), os.environ.get("PYTHONPATH")])))
    cmd = [sys.executable, "-m", "paraphrastic", "--params", str(params), "--schema",
           str(REPO / "workflow/schemas/params.schema.yaml"), "train", "--run", "toy",
           "--out-dir", f"data/models/{out}", "--checkpoints", f"data/checkpoints/{out}",
           "--vocab-dir", str(ws["vocab_dir"]), "--eval", str(ws["eval"]), "--threads", "1", "--no-progress"]
    return subprocess.Popen(cmd, cwd=tmp, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def _reference_and_victim(ws, tmp_path, out: str, checkpoint: str):
    """An uninterrupted CLI run ("ref"), then a second run (``out``) once ``checkpoint`` exists."""
    work = tmp_path / "cli"
    work.mkdir()
    params = _cli_params(ws, work)
    reference = _train_cli(ws, work, params, "ref")
    assert reference.wait(timeout=300) == 0, reference.stdout.read()
    victim = _train_cli(ws, work, params, out)
    first = work / f"data/checkpoints/{out}/{checkpoint}"
    deadline = time.time() + 300
    while not first.exists() and victim.poll() is None and time.time() < deadline:
        time.sleep(0.01)
    return work, params, victim


def _rerun_resumes_to_the_reference(ws, work, params, out: str) -> None:
    rerun = _train_cli(ws, work, params, out)
    output = rerun.communicate(timeout=300)[0]
    assert rerun.returncode == 0, output
    assert "resuming from" in output
    ref = json.loads((work / "data/models/ref/history.json").read_text())
    got = json.loads((work / f"data/models/{out}/history.json").read_text())
    assert [h["per_dataset"] for h in got] == [h["per_dataset"] for h in ref]
    assert [h["loss"] for h in got] == [h["loss"] for h in ref]


@pytest.mark.fault("interrupted training")
def test_kill_9_then_rerun_resumes_to_the_uninterrupted_result(workspace, tmp_path):
    # last.pt is written after epoch-1.pt, atomically
    work, params, victim = _reference_and_victim(workspace, tmp_path, "killed", "last.pt")
    victim.send_signal(signal.SIGKILL)
    victim.wait()
    assert victim.returncode == -signal.SIGKILL, "training finished before it could be killed"
    assert not (work / "data/models/killed/model.pt").exists()
    _rerun_resumes_to_the_reference(workspace, work, params, "killed")


@pytest.mark.fault("interrupted training")
def test_sigterm_then_rerun_resumes_to_the_uninterrupted_result(workspace, tmp_path):
    # what `scancel` or a preemption does to a job: SIGTERM (then SIGKILL after SLURM's KillWait)
    work, params, victim = _reference_and_victim(workspace, tmp_path, "term", "epoch-1.pt")
    victim.send_signal(signal.SIGTERM)
    output = victim.communicate(timeout=120)[0]
    assert victim.returncode == 143, output
    assert "stopped by signal 15" in output and "rerun the same command" in output
    _rerun_resumes_to_the_reference(workspace, work, params, "term")


@pytest.mark.parametrize("model, extra", [(m, {}) for m in ("proj", "rnn", "irnn", "gran2", "gran3", "gran4", "gran5")]
                         + [("dan", {"layers": 2, "activation": "relu"}), ("bilstmavg", {"combine": "ff"}),
                            ("lstmavg", {"output_gate": False, "tags": "both"})])
def test_every_model_trains_and_reloads_with_its_options(workspace, model, extra):
    info = run(workspace, model, model=model, epochs=1, **extra)
    loaded, vocab, payload = load_model(workspace["root"] / model / "model.pt")
    assert payload["model"] == model and all(payload["options"][k] == v for k, v in extra.items())
    history = json.loads((workspace["root"] / model / "history.json").read_text())
    results = similarity.score_sets(loaded, vocab, read_table(workspace["eval"]))
    assert results["sts16.headlines"]["pearson"] == pytest.approx(history[0]["per_dataset"]["sts16.headlines"],
                                                                  abs=1e-4)
    assert info["selected_epoch"] == 1


@pytest.mark.fault("interrupted training")
@pytest.mark.parametrize("lambda_w, says", [(1e38, "swamps the objective"), (float("inf"), "overflows")])
def test_a_penalty_that_swamps_or_overflows_the_loss_stops_naming_the_batch(workspace, lambda_w, says):
    """λ_w = 1e38 trains to a loss near 1e36 that no longer depends on the pairs: it stops at the first batch
    whose penalty is that large, as a NaN loss does."""
    with pytest.raises(TrainingDiverged, match=rf"\[toy\] at epoch 1, batch \d+: the λ penalty \(\S+\) {says}"):
        run(workspace, "huge", lambda_w=lambda_w)
