"""The differential harness (fidelity/) without the authors' code: what their code reads from the
files convert.py writes, read here as their Python 2 readers read them (train.get_lines, utils.get_wordmap and
lookupIDX, evaluate.get_correlation), is our data: the same pairs, tokens, vectors and scores; our settings become
their flags (or a named error); their evaluation points are selected as ours are; a finished run is kept; a detail's
measured effect compares the same jobs trained without and with it, and nothing else; the step-by-step comparison
names our weights as their Lasagne layers name theirs, and finds where our negatives differ from theirs."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from paraphrastic.configuration import params as cfg
from paraphrastic.configuration.settings import TransferSettings
from paraphrastic.data.corpus import TRAIN_SCHEMA, write_table
from paraphrastic.data.vocab import SPECIAL, UNK, WORDPIECES, Vocabulary

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))  # the fidelity package
sys.path.insert(0, str(REPO / "benchmarks"))  # measured.py

from fidelity import (  # noqa: E402
    convert,
    curves,
    effects,
    end_to_end,
    grid_cells,
    reading,
    run,
    same_start,
    steps,
    steps_summary,
    untrained_starts,
)


def their_lines(path: Path) -> list[str]:
    """train.get_lines: the last tab-separated field of each line, stripped and lowercased."""
    return [line.split("\t")[-1].strip().lower() for line in path.read_text(encoding="utf-8").splitlines(True)]


def their_wordmap(path: Path) -> tuple[dict[str, int], np.ndarray]:
    """utils.get_wordmap: word -> row, and the rows as floats."""
    words, rows = {}, []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(True)):
        fields = line.split()
        words[fields[0]] = n
        rows.append([float(v) for v in fields[1:]])
    return words, np.array(rows)


def their_lookup(words: dict[str, int], word: str) -> int:
    """utils.lookupIDX."""
    word = word.lower()
    if len(word) > 1 and word[0] == "#":
        word = word.replace("#", "")
    return words.get(word, words["UUUNKKK"])


@pytest.fixture
def data(workspace, tmp_path) -> Path:
    """The workspace's tables and vocabulary where the project's layout puts them."""
    folder = tmp_path / "data"
    (folder / "corpus").mkdir(parents=True)
    shutil.copy(workspace["train"], folder / "corpus/simpwiki.parquet")
    shutil.copy(workspace["eval"], folder / "corpus/eval.parquet")
    shutil.copytree(workspace["vocab_dir"], folder / "vocab")
    return folder


def test_their_readers_get_our_pairs_vectors_and_scores(data, workspace, tmp_path):
    record = convert.convert(tmp_path / "theirs", data=data)
    out = tmp_path / "theirs/data"
    train = pd.read_parquet(workspace["train"])
    assert their_lines(out / "simple.aligned") == [" ".join(t) for t in train["tokens1"]]
    assert their_lines(out / "normal.aligned") == [" ".join(t) for t in train["tokens2"]]
    vocab = Vocabulary.load(workspace["vocab_dir"] / "vocab.txt")
    vectors = np.load(workspace["vocab_dir"] / "embeddings.npy")
    words, rows = their_wordmap(out / "vectors.txt")
    assert rows.shape == vectors.shape and np.array_equal(rows.astype(np.float32), vectors)  # exact, as float32
    # every token maps to the row of our vectors it maps to in our vocabulary, unknown words to our unknown row
    for tokens in (*train["tokens1"], *train["tokens2"], ["unseen", "never-seen-word"]):
        for token in tokens:
            assert np.array_equal(rows[their_lookup(words, token)].astype(np.float32), vectors[vocab.ids([token])[0]])
    assert their_lookup(words, "never-seen-word") == vocab.words.index(UNK)
    evaluation = pd.read_parquet(workspace["eval"])
    assert [e["dataset"] for e in record["eval_sets"]] == sorted(evaluation["dataset"].unique())
    for dataset, rows_ in evaluation.groupby("dataset"):
        lines = [line.split("\t") for line in (out / dataset).read_text(encoding="utf-8").splitlines()]
        assert [(a, b) for a, b, _ in lines] == [(" ".join(x), " ".join(y))
                                                  for x, y in zip(rows_["tokens1"], rows_["tokens2"], strict=True)]
        assert [float(score) for *_, score in lines] == list(rows_["score"])
    written = json.loads((out / "conversion.json").read_text())
    assert written["training_pairs"][0]["lines"] == len(train) and written["vectors"]["words"] == len(vocab)
    assert written["read_differently"] == {}


def test_tokens_their_lookup_reads_otherwise_are_counted_and_unwritable_ones_named(data, tmp_path):
    table = pd.read_parquet(data / "corpus/simpwiki.parquet")
    table.at[0, "tokens1"] = ["#hashtag", "man", "#hashtag"]
    write_table(table, TRAIN_SCHEMA, data / "corpus/simpwiki.parquet")
    record = convert.convert(tmp_path / "theirs", data=data)
    assert record["read_differently"] == {"#hashtag": 2}
    table.at[1, "tokens2"] = ["a\tb"]
    write_table(table, TRAIN_SCHEMA, data / "corpus/simpwiki.parquet")
    source = table.at[1, "source"]
    with pytest.raises(SystemExit, match=rf"simpwiki.parquet: {source}: token 'a\\tb' cannot be written"):
        convert.convert(tmp_path / "again", data=data)
    shutil.rmtree(data / "vocab")
    with pytest.raises(SystemExit, match=r"vocab/vocab.txt is missing"):
        convert.convert(tmp_path / "again", data=data)


def test_our_settings_become_their_flags_and_what_they_cannot_express_is_named():

    base = {"name": "r", "seed": 1, "model": "gran3", "train_set": "simpwiki", "epochs": 3, "batch_size": 100,
            "learning_rate": 0.001, "margin": 0.4, "lambda_w": 1e-05, "lambda_c": 0.0, "scramble": 0.5,
            "dropout": 0.2}
    flags = run.their_flags(TransferSettings(**base), dim=50)
    pairs = dict(zip(flags[::2], flags[1::2], strict=True))
    assert pairs == {"-model": "gran", "-gran_type": "3", "-wordfile": "../data/vectors.txt", "-dim": "50",
                     "-epochs": "3", "-batchsize": "100", "-eta": "0.001", "-margin": "0.4", "-LW": "1e-05",
                     "-LC": "0.0", "-samplingtype": "MAX", "-scramble": "0.5", "-dropout": "0.2",
                     "-word_dropout": "0.0"}
    assert run.their_flags(TransferSettings(**base | {"model": "avg"}), dim=50)[:2] == ["-model", "wordaverage"]
    with pytest.raises(SystemExit, match="no equivalent of tags"):
        run.their_flags(TransferSettings(**base | {"tags": "both"}), dim=50)
    with pytest.raises(SystemExit, match="SimpWiki pairs only"):
        run.their_flags(TransferSettings(**base | {"train_set": "ppdb_matched"}), dim=50)
    for key, value in (("negative_pass", "training"), ("word_dropout_rescale", False), ("gate_init", "uniform"),
                       ("gran5_readout", "mean"), ("gate_per_direction", False), ("halve_penalties", False),
                       ("adam_epsilon", "corrected")):
        with pytest.raises(SystemExit, match=f"no equivalent of {key}"):
            run.their_flags(TransferSettings(**base | {key: value}), dim=50)


def test_their_evaluation_points_are_summarised_and_selected_as_ours_are():

    selection = ["sts16.headlines"]
    log = "\n".join(["Num examples: 3"] + [
        run.MARK + json.dumps({"point": n, "pearson": {"sts12.MSRvid": a, "sts16.headlines": b},
                               **({"loss": [None, 0.7, 0.6, 0.5][n]} if n < 4 else {})})
        for n, (a, b) in enumerate([(0.5, 0.7), (0.7, 0.6), (0.9, 0.5), (0.5, 0.3), (0.5, 0.4)])])
    history = run.points(log, selection)
    # the training cost shim.py adds (the mean since the last point), kept where the line has it (older logs do not)
    assert [p.get("loss", "none") for p in history] == [None, 0.7, 0.6, 0.5, "none"]
    assert [round(p["selection_pearson"], 6) for p in history] == [70.0, 60.0, 50.0, 30.0, 40.0]
    assert [round(p["transfer_pearson"], 6) for p in history] == [50.0, 70.0, 90.0, 50.0, 50.0]  # the sets present
    # the start (point 0, before training) is never selected; point 4 is the first epoch's end
    assert run.selected(history)["point"] == 1 and run.selected(history, "epoch")["point"] == 4


def test_a_run_the_harness_finished_is_not_trained_again_unless_its_flags_changed(tmp_path, monkeypatch):

    settings = TransferSettings(name="r", seed=1, model="avg", train_set="simpwiki", epochs=1, batch_size=100,
                                learning_rate=0.001, margin=0.4, lambda_w=0.0, lambda_c=0.0)
    kept = [{"point": 0, "selection_pearson": 1.0}]
    (tmp_path / "points").mkdir()
    (tmp_path / "points/r.seed1.json").write_text(json.dumps(
        {"flags": run.their_flags(settings, 50), "sets": ["a"], "points": kept}))
    assert run.train_theirs(tmp_path, settings, 1, 50, ["a"], ["a"]) == kept

    def no_python(*_args, **_kwargs):
        raise AssertionError("trained again")

    monkeypatch.setattr(run.subprocess, "run", no_python)
    monkeypatch.setattr(run, "python2", lambda: "python2.7")
    with pytest.raises(AssertionError, match="trained again"):  # another margin: the kept points are not its
        run.train_theirs(tmp_path, TransferSettings(**{**settings.as_dict(), "margin": 0.6}), 1, 50, ["a"], ["a"])
    with pytest.raises(AssertionError, match="trained again"):  # other training files (--raw): not its either
        run.train_theirs(tmp_path, settings, 1, 50, ["a"], ["a"], data="another digest")


def test_more_seeds_for_one_run_come_after_its_rows_seeds():
    grid = {"t2-avg-none": ["avg__a"], "t3-gran": ["gran__b", "gran__c"]}
    jobs = run.harness_jobs(["t2-avg-none", "t3-gran"], [1, 2], [["gran__b", "2", "3", "4"]], grid)
    assert jobs == [("t2-avg-none", "avg__a", 1), ("t2-avg-none", "avg__a", 2), ("t3-gran", "gran__b", 1),
                    ("t3-gran", "gran__b", 2), ("t3-gran", "gran__b", 3), ("t3-gran", "gran__b", 4),
                    ("t3-gran", "gran__c", 1), ("t3-gran", "gran__c", 2)]
    with pytest.raises(SystemExit, match="--also gran__z 4: a run of the rows"):
        run.harness_jobs(["t3-gran"], [1], [["gran__z", "4"]], grid)
    with pytest.raises(SystemExit, match="--also gran__b x: a run of the rows"):
        run.harness_jobs(["t3-gran"], [1], [["gran__b", "x"]], grid)


def _jobs(models: Path, scores: list[float], **settings) -> None:
    for seed, score in enumerate(scores, 1):
        folder = models / "t3-gran__x" / f"seed{seed}"
        folder.mkdir(parents=True)
        (folder / "train.json").write_text(json.dumps({
            "settings": {"model": "gran", "dropout": 0.2, "seed": seed, **settings}, "selected_epoch": 3,
            "selection_pearson": score + 5, "transfer_pearson": score}))


def test_a_details_effect_is_the_difference_of_the_seeds_means_with_its_spread(tmp_path):
    _jobs(tmp_path / "before", [57.0, 58.0, 59.0])  # written before the setting existed
    _jobs(tmp_path / "after", [58.0, 58.5, 59.5], negative_pass="deterministic")
    out = tmp_path / "effects"
    common = ["--before", str(tmp_path / "before"), "--after", str(tmp_path / "after"), "--runs", "t3-gran__x",
              "--out", str(out)]
    assert effects.main(["negative_pass", *common, "--before-commit", "aaa", "--after-commit", "bbb"]) == 0
    entry = json.loads(out.with_suffix(".json").read_text())["negative_pass"]
    assert entry["rows"][0]["difference"] == pytest.approx(2 / 3)
    line = next(x for x in out.with_suffix(".md").read_text().splitlines() if x.startswith("| negative_pass"))
    assert "(trained before the setting) | deterministic | 3 |" in line
    assert "58.00 ± 1.00 | 58.67 ± 0.76 | +0.67 |" in line
    assert "t3-gran__x (negative_pass): without at aaa, with at bbb" in out.with_suffix(".md").read_text()
    _jobs(tmp_path / "other", [58.0, 58.5, 59.5], negative_pass="deterministic", dropout=0.1)
    with pytest.raises(SystemExit, match=r"differ in \['dropout'\] too"):
        effects.main(["negative_pass", *common[:2], "--after", str(tmp_path / "other"), *common[4:]])


def test_each_run_is_compared_with_its_seeds_spread():
    def row(run, seed, theirs, ours):
        return {"row": "r", "run": run, "seed": seed, "points": 13, "theirs": {"selection_pearson": 60.0,
                "transfer_pearson": theirs}, "ours": {"selection_pearson": 60.0, "transfer_pearson": ours}}

    rows = [row("a", 1, 57.0, 57.5), row("a", 2, 58.0, 57.9), row("b", 1, 50.0, 53.0), row("b", 2, 50.2, 53.1),
            row("c", 1, 50.0, 50.0)]  # c: one seed, no spread to compare with
    summary = {c["run"]: c for c in run.compared_runs(rows)}
    assert set(summary) == {"a", "b"}
    assert summary["a"]["difference"] == pytest.approx(0.2) and summary["a"]["within"]
    assert summary["b"]["difference"] == pytest.approx(2.95) and not summary["b"]["within"]
    table = run.markdown(rows, {"python": "2.7", "theano": "1.0.5", "lasagne": "0.2"})
    assert "| a | 2 | 57.50 ± 0.71 | 57.70 ± 0.28 | +0.20 | yes | +0.4 |" in table  # 0.2 / √(0.5/2 + 0.08/2)
    # the sentence the page states, from the rows: never a claim the table does not hold
    assert ("Runs with two seeds or more a side: 1 of 2 within the seeds' spread; outside it: b (+2.95, t +26.4)."
            in table)


def test_the_table_says_what_each_side_read_and_the_default_rows_are_table_4s(tmp_path):
    from paraphrastic.configuration import params

    versions = {"python": "2.7", "theano": "1.0.5", "lasagne": "0.2"}
    job = {"row": "r", "run": "a", "seed": 1, "points": 13, "theirs": {"selection_pearson": 60.0,
           "transfer_pearson": 57.0}, "ours": None}
    assert "reading the profile's raw SimpWiki files" not in run.markdown([job], versions, "ours")
    opening = run.markdown([job | {"raw": True}], versions, "ours").splitlines()[0]
    assert "reading the profile's raw SimpWiki files" in opening and "`data.reading: ours`" in opening
    (tmp_path / "corpus").mkdir()
    (tmp_path / "corpus" / "train_stats.json").write_text(json.dumps({"simpwiki": {"reading": "authors"}}))
    assert run.our_reading(tmp_path, "simpwiki") == "authors" and run.our_reading(tmp_path / "x", "simpwiki") is None
    config = params.load(REPO / "params.yaml")
    rows = run.table4_rows(config)
    assert sorted(rows) == sorted(set(config["report"]["table4"].values())) and len(rows) == 3


def test_vectors_with_wordpieces_are_refused_as_their_code_cannot_read_pieces(tmp_path):
    folder = tmp_path / "distilled"
    folder.mkdir()
    Vocabulary([*SPECIAL, WORDPIECES, "man", "##s"]).save(folder / "vocab.txt")
    np.save(folder / "embeddings.npy", np.zeros((7, 2), np.float32))
    with pytest.raises(SystemExit, match=r"distilled/vocab.txt holds WordPiece pieces"):
        convert.write_vectors(folder, tmp_path)


def test_our_weights_take_their_lasagne_layers_names_and_shapes():
    import torch

    from paraphrastic.models.encoders import build_model

    gran = build_model("gran", torch.randn(30, 8))
    named = steps.lasagne_names(gran)
    gates = ("ingate", "forgetgate", "cell", "outgate")
    assert set(named) == {"W", "W_avg1", "W_avg2", "b_avg", *(f"{w}_{g}" for g in gates for w in
                                                              ("W_in_to", "W_hid_to", "b")),
                          "W_cell_to_ingate", "W_cell_to_forgetgate", "W_cell_to_outgate"}
    assert named["W_in_to_cell"].shape == (8, 8) and named["b_outgate"].shape == (8,)
    # the gates' columns in Lasagne's order: our stacked i, f, c, o
    np.testing.assert_array_equal(named["W_hid_to_forgetgate"], gran.lstm.weight_h.detach().numpy()[:, 8:16])
    np.testing.assert_array_equal(named["W_avg1"], gran.gate_x[0].weight.detach().numpy().T)
    assert set(steps.lasagne_names(build_model("avg", torch.randn(30, 8)))) == {"W"}


def test_their_weights_by_lasagne_name_set_ours_exactly_and_a_weight_they_do_not_name_is_refused():
    """steps.load_lasagne_names, lasagne_names' inverse: ours set from their names gives the same names back
    (same_start.py starts ours from their initial weights so); a name missing, or a weight of ours that no name of
    theirs reaches, stops."""
    import torch

    from paraphrastic.models.encoders import build_model

    for model in ("gran", "lstmavg", "lstm"):
        torch.manual_seed(0)
        theirs = steps.lasagne_names(build_model(model, torch.randn(30, 8)))
        torch.manual_seed(1)
        ours = build_model(model, torch.randn(30, 8))
        embeddings = ours.embedding.weight.detach().clone()
        steps.load_lasagne_names(ours, theirs)
        named = steps.lasagne_names(ours)
        assert all(np.array_equal(named[k], v) for k, v in theirs.items() if k != "W")
        assert torch.equal(ours.embedding.weight, embeddings)  # the word vectors are not theirs to set
    gran = build_model("gran", torch.randn(30, 8))
    theirs = steps.lasagne_names(build_model("gran", torch.randn(30, 8)))
    with pytest.raises(SystemExit, match=r"only ours \['b_avg'\]"):
        steps.load_lasagne_names(gran, {k: v for k, v in theirs.items() if k != "b_avg"})
    with pytest.raises(SystemExit, match=r"do not reach our weights \['gate_x.1.weight'"):
        steps.load_lasagne_names(build_model("gran3", torch.randn(30, 8)), theirs)


def same_start_work(work: Path, run_: str, values: dict[int, tuple]) -> None:
    """A work folder of same_start.py: per seed (theirs, ours from their start, ours from our own), their run's
    points (its untrained point scoring 40.0; none where theirs is None) and our two jobs' train.json."""
    (work / "points").mkdir()
    for seed, (theirs, started, own) in values.items():
        if theirs is not None:
            history = [{"point": 0, "selection_pearson": 35.0, "transfer_pearson": 40.0},
                       {"point": 1, "selection_pearson": 60.0, "transfer_pearson": theirs}]
            (work / "points" / f"{run_}.seed{seed}.json").write_text(json.dumps({"points": history}))
        for folder, value in ((work / "same_start/ours", started), (work / "ours", own)):
            job = folder / "models" / run_ / f"seed{seed}"
            job.mkdir(parents=True)
            (job / "train.json").write_text(json.dumps({"transfer_pearson": value}))


def test_ours_from_their_start_is_paired_with_their_run_of_the_seed_and_a_wrong_start_stops(tmp_path):
    """same_start.py: per seed theirs (WORK/points), ours from their start (WORK/same_start/ours) and ours from our
    own (WORK/ours); the paired difference over the seeds; ours from their weights must score their untrained point."""
    run_ = "cells-lstmavg__x"
    values = {1: (57.0, 57.1, 56.5), 2: (57.4, 57.3, 56.9), 3: (56.8, 57.0, 56.4)}  # theirs, from theirs' start, own
    same_start_work(tmp_path, run_, values)
    row, = same_start.table([run_], tmp_path, {run_: "quarter"})
    assert row["seeds"]["2"] == {"theirs": 57.4, "ours_from_their_start": 57.3, "ours": 56.9}
    assert round(row["difference"], 6) == round((0.1 - 0.1 + 0.2) / 3, 6) and -1 < row["t"] < 2
    assert round(row["ours_own"]["difference"], 2) == -0.47
    text = same_start.markdown({"commit": "abc", "reading": "authors", "rows": [row]})
    assert f"| {run_} | 2 | 57.40 | 57.30 | -0.10 | 56.90 |" in text
    assert f"- {run_}: ours from their start − theirs over 3 seeds: +0.07 ± 0.15 (paired t +0.8, p 0.53); ours " \
           "from our own start (its 3 seeds) − these of theirs: -0.47" in text
    assert "Every seed" not in text  # one run: its own line says it
    both = same_start.markdown({"commit": "abc", "reading": "authors", "rows": [row, {**row, "run": "other"}]})
    assert "- Every seed of the 2 runs: ours from their start − theirs over 6 seeds: +0.07 ± 0.14 (paired t +1.2" \
        in both
    same_start.check_start(run_, 1, {"transfer_pearson": 40.004, "selection_pearson": 35.0},
                           tmp_path / "points" / f"{run_}.seed1.json")
    with pytest.raises(SystemExit, match="not the weights it started from"):
        same_start.check_start(run_, 1, {"transfer_pearson": 41.2, "selection_pearson": 35.0},
                               tmp_path / "points" / f"{run_}.seed1.json")
    # WORK lost: the tables written before hold the same seeds (ours from their start in same_start's own;
    # theirs and ours from our own start in grid_cells.py's), and a job WORK holds replaces its seed's value
    written = tmp_path / "same_start.json"
    written.write_text(json.dumps({"rows": [row]}))
    cells_table = tmp_path / "cells.json"
    cells_table.write_text(json.dumps({"rows": [{"run": run_, **{f"{side}_seeds": {
        str(seed): {"transfer_pearson": v[column], "commit": "c"} for seed, v in values.items()}
        for side, column in (("theirs", 0), ("ours", 2))}}]}))
    before, cells_before = same_start.tabled(written, {run_}), grid_cells.tabled(cells_table, {run_})
    fresh = tmp_path / "fresh"
    assert same_start.table([run_], fresh, {run_: "quarter"}, before, cells_before) == [row]
    job = fresh / "same_start/ours/models" / run_ / "seed2"
    job.mkdir(parents=True)
    (job / "train.json").write_text(json.dumps({"transfer_pearson": 57.9}))
    again, = same_start.table([run_], fresh, {run_: "quarter"}, before, cells_before)
    assert again["seeds"]["2"]["ours_from_their_start"] == 57.9 and again["seeds"]["1"] == row["seeds"]["1"]
    assert same_start.tabled(tmp_path / "none.json", {run_}) == {}
    with pytest.raises(SystemExit, match=r"cells.json \(OUT.json or --tabled\): not a table of ours from their start"):
        same_start.tabled(cells_table, {run_})


def test_negatives_that_differ_from_theirs_are_counted_with_their_cosine_gap():
    import torch

    tokens = torch.tensor([[5, 6, 0], [7, 8, 9], [5, 6, 0], [7, 9, 8]])  # pairs (5 6, 5 6) and (7 8 9, 7 9 8)
    clean = torch.tensor([[1.0, 0.0], [0.0, 1.0], [1.0, 0.0], [0.0, 1.0]])
    ours = torch.tensor([1, 2, 3, 0])  # the candidates (into cat[g1, g2]) ours chose for each sentence
    theirs = np.array([[7, 8, 9], [5, 6, 0], [7, 8, 9], [5, 6, 0]])  # the sentences theirs chose, padded
    differ, gap = steps.negative_differences(tokens, [(clean, ours)], theirs[:2], theirs[2:])
    assert differ == 1 and gap == 0.0  # the third sentence: ours 7 9 8, theirs 7 8 9, at the same cosine
    # --their-negatives: theirs' choice as indices into our batch, returned and recorded in place of our own
    forced = steps.their_indices(steps.sentences(tokens), theirs[:2], theirs[2:])
    assert [t.tolist() for t in forced] == [[1, 0], [1, 0]]
    chosen = []
    assert steps.recording(chosen, forced)(clean[:2], clean[2:]) is forced
    assert steps.negative_differences(tokens, chosen, theirs[:2], theirs[2:]) == (0, 0.0)


def test_the_readings_cost_is_the_difference_of_the_seeds_means_with_each_readings_missing_vectors(tmp_path):
    """reading.py's table: per run, each reading's seeds, their mean ± sd and the difference (authors − ours); a job
    the table needs but nobody trained is named, never trained by --table."""
    result = {"commit": "abc", "readings": ["ours", "authors"],
              "prepared": {"ours": {"simpwiki_tokens_without_a_vector": 0.0175},
                           "authors": {"simpwiki_tokens_without_a_vector": 0.0407}},
              "runs": {"t2-avg-none__x": {"ours": {"1": 44.0, "2": 45.0}, "authors": {"1": 45.0, "2": 45.5}}}}
    table = reading.markdown(result)
    assert "ours 1.75%, authors 4.07%" in table
    assert "| t2-avg-none__x | 2 | 44.00, 45.00 | 45.00, 45.50 | 44.50 ± 0.71 | 45.25 ± 0.35 | +0.75 |" in table
    # the page's sentence about it, from the rows
    assert "What their reading does to each run, from the rows (authors − ours): t2-avg-none__x +0.75 (beyond its " \
        "seeds' spread)." in table
    with pytest.raises(SystemExit, match="seed1/train.json: no finished job"):
        reading.finished("t2-avg-none__x", 1, tmp_path / "authors")
    for reading_name, seeds in (("ours", (1, 4, 5)), ("authors", (1, 4))):  # seed 5 is not finished under both
        for seed in seeds:
            job = tmp_path / reading_name / "models" / "t2-avg-none__x" / f"seed{seed}"
            job.mkdir(parents=True)
            (job / "train.json").write_text("{}")
    assert reading.finished_seeds("t2-avg-none__x", [1, 2], tmp_path) == [1, 2, 4]
    # the code that trained each job: its stamp, else the earlier table's commit, else said to be unrecorded
    (tmp_path / "ours" / "models" / "t2-avg-none__x" / "seed4" / reading.TRAINED_AT).write_text("def\n")
    assert [reading.trained_at("t2-avg-none__x", seed, tmp_path / "ours", result) for seed in (4, 1, 5)] == [
        "def", "abc", "unrecorded"]
    result["trained_at"] = {"t2-avg-none__x": {"ours": {"1": "abc"}, "authors": {"1": "def"}}}
    assert "Trained at abc, def, tabled at abc by" in reading.markdown(result)
    # a job WORK no longer holds keeps the value the table written before holds (seed 2: under both readings)
    assert reading.tabled_seeds("t2-avg-none__x", result) == {1, 2}
    assert reading.transfer_pearson("t2-avg-none__x", 2, tmp_path / "authors", result) == 45.5
    (tmp_path / "authors" / "models" / "t2-avg-none__x" / "seed4" / "train.json").write_text(
        json.dumps({"transfer_pearson": 46.0}))
    assert reading.transfer_pearson("t2-avg-none__x", 4, tmp_path / "authors", result) == 46.0
    with pytest.raises(SystemExit, match="seed3/train.json: no finished job"):
        reading.transfer_pearson("t2-avg-none__x", 3, tmp_path / "authors", result)


def test_the_raw_files_their_code_reads_itself_give_our_authors_reading(data, tmp_path):
    """convert.py --raw: the profile's SimpWiki files byte for byte and its whole vector file with UUUNKKK. Read as
    their Python 2 code reads them (bytes: get_lines, then example's lower().split()), the pairs are the tokens our
    data.reading: authors gives the same files."""
    import gzip

    from paraphrastic.data.corpus import build_train_table
    from paraphrastic.data.readers import read_aligned_pairs

    config = cfg.load(REPO / "params.yaml")
    first, second = cfg.simpwiki_files(config)[0]
    raw = data / "raw"
    texts = {first: [b"The -LRB- 1\\/4 -RRB- \xc3\x83\xc5\xbdLE\xc2\xa0X #Tag", b"Second  line ."],
             second: [b"Simple -LSB- x -RSB-", b"second ."]}
    for name, lines in texts.items():
        (raw / name).parent.mkdir(parents=True, exist_ok=True)
        (raw / name).write_bytes(b"\n".join(lines) + b"\n")
    vectors = raw / cfg.profile(config)["embeddings"]
    vectors.parent.mkdir(parents=True, exist_ok=True)
    with gzip.open(vectors, "wb") as handle:
        handle.write(b"the 0.1 0.2 0.3\nsecond 0.4 0.5 0.6\n")
    record = convert.convert(tmp_path / "theirs", data=data, raw=True, config=config)
    assert record["raw"] and record["vectors"]["dim"] == 3 and record["vectors"]["words"] == 3

    ours = build_train_table(read_aligned_pairs(raw / first, raw / second), max_pairs=None, seed=0,
                             reading="authors")
    for name, column in (("simple.aligned", "tokens1"), ("normal.aligned", "tokens2")):
        lines = (tmp_path / "theirs" / "data" / name).read_bytes().split(b"\n")[:-1]
        theirs = [[t.decode("utf-8") for t in line.split(b"\t")[-1].strip().lower().split()] for line in lines]
        assert theirs == [list(tokens) for tokens in ours[column]]
    words, rows = their_wordmap(tmp_path / "theirs" / "data" / "vectors.txt")
    assert list(words) == ["the", "second", "UUUNKKK"] and not rows[words["UUUNKKK"]].any()



def test_a_seeds_luck_shared_by_the_cells_it_trains_is_fitted_out_of_the_models_difference_and_spread():
    """grid_cells.seed_effects: a side's seed k is one block in every cell (theirs: one with a dropout layer, one
    without), so each 22-set mean is its cell's mean plus its seed's effect; the difference is the two sides' mean
    seed effects, its t over the seeds; the spreads are compared in the seeds' effects and in what is left."""
    ours_luck = {"1": -0.6, "2": -0.5, "3": -0.4}
    theirs_luck = {False: {"1": 0.1, "2": -0.1, "3": 0.0}, True: {"1": 0.2, "2": -0.2, "3": 0.0}}
    rows = [{"run": f"cells-lstmavg__{dropout}", "model": "lstmavg", "input_dropout": dropout,
             "ours_seeds": {k: {"transfer_pearson": mean + v} for k, v in ours_luck.items()},
             "theirs_seeds": {k: {"transfer_pearson": mean + v}
                              for k, v in theirs_luck[dropout != "none"].items()}}
            for dropout, mean in (("none", 57.0), ("dropout", 56.0), ("word_dropout", 55.0))]
    fit = grid_cells.seed_effects(rows)["lstmavg"]
    assert fit["cells"] == 3 and fit["seeds"] == {"theirs": 6, "ours": 3}
    assert round(fit["difference"], 6) == -0.5 and fit["t"] < -5
    assert round(fit["seed_sd"]["ours"], 6) == 0.1 and fit["seed_spread"]["df"] == (2, 5)
    assert fit["seed_spread"]["F"] == pytest.approx(0.1 ** 2 / fit["seed_sd"]["theirs"] ** 2)
    # the luck is all the seeds': nothing is left within a seed's cells. Each side is fitted with theirs' blocks: the
    # two cells with a dropout layer make a 2 × 3 layout (2 degrees of freedom left); the cell without, alone in its
    # blocks, is fitted exactly
    assert fit["left_sd"] == {"theirs": pytest.approx(0), "ours": pytest.approx(0)}
    assert fit["left_spread"]["df"] == (2, 2)

    # one seed's luck in one cell alone: a bump d in a 2 × 3 layout leaves the variance d² (1 - 1/2)(1 - 1/3) / 2,
    # d² / 6: ours 0.3, theirs 0.1, so F 9 on (2, 2) degrees of freedom, where P(F > x) is 1 / (1 + x)
    rows[1]["ours_seeds"]["1"]["transfer_pearson"] += 0.3
    rows[1]["theirs_seeds"]["1"]["transfer_pearson"] += 0.1
    fit = grid_cells.seed_effects(rows)["lstmavg"]
    assert fit["left_sd"]["ours"] == pytest.approx(0.3 / 6 ** 0.5)
    assert fit["left_sd"]["theirs"] == pytest.approx(0.1 / 6 ** 0.5)
    assert fit["left_spread"]["F"] == pytest.approx(9.0) and fit["left_spread"]["p"] == pytest.approx(2 / 10)


def test_a_lean_of_one_input_dropout_is_fitted_apart_from_its_models_other_cells():
    """grid_cells.by_input_dropout: each model's cells of one input dropout are fitted as seed_effects fits a model's
    (a seed's luck shared by its cells fitted out), so the word-dropout cells' lean shows apart from the others', with
    its p adjusted for the groups fitted; a kind with one cell is no group."""
    def row(name, dropout, ours, theirs):
        return {"run": name, "model": "lstm", "input_dropout": dropout, "lambda_c": 0.0, "scramble": 0.0,
                "ours_seeds": {str(k): {"transfer_pearson": v} for k, v in enumerate(ours, 1)},
                "theirs_seeds": {str(k): {"transfer_pearson": v} for k, v in enumerate(theirs, 1)}}

    luck = [0.3, -0.2, 0.1, -0.3, 0.2, -0.1]
    rows = [row(f"w{i}", "word_dropout 0.2", [54 + i + e - 0.6 for e in luck], [54 + i + e * 0.5 for e in luck[::-1]])
            for i in range(2)]
    rows += [row(f"n{i}", "none", [53 + i + e for e in luck], [53 + i + e for e in luck[::-1]]) for i in range(2)]
    rows.append(row("d0", "dropout 0.2", [52.0, 52.5], [52.2, 52.1]))
    found = grid_cells.by_input_dropout(rows)
    assert [(g["input_dropout"], g["cells"]) for g in found] == [("word_dropout 0.2", 2), ("none", 2)]
    word, none = found
    assert word["difference"] == pytest.approx(-0.6) and word["t"] < -3
    assert none["difference"] == pytest.approx(0.0, abs=1e-9)
    assert word["adjusted_p"] == pytest.approx(min(1.0, 2 * word["p"]))
    assert "lstm with word dropout 0.2, -0.60 over 2 cells" in grid_cells.by_input_dropout_text(rows)
    assert grid_cells.by_input_dropout_text(rows[-1:]) == ""


def test_a_cell_and_its_twin_in_lambda_c_are_compared_seed_by_seed():
    """grid_cells.lambda_c_twins: the same model, dropout and scrambling at the other λ_c is a cell's twin; the sd
    of the per-seed differences (about their mean) is set beside the sd of the seeds within the cells."""
    def row(lambda_c, scramble, ours, theirs):
        return {"model": "gran", "input_dropout": "none", "scramble": scramble, "lambda_c": lambda_c,
                "ours_seeds": {str(k): {"transfer_pearson": v} for k, v in enumerate(ours, 1)},
                "theirs_seeds": {str(k): {"transfer_pearson": v} for k, v in enumerate(theirs, 1)}}

    rows = [row(0.0, 0.0, [1.0, 2.0, 3.0], [5.0]), row(1e-5, 0.0, [1.1, 2.2, 3.3], [5.5, 6.0]),
            row(1e-5, 0.5, [9.0, 1.0, 4.0], [0.0, 9.0])]  # no twin: another scrambling; theirs: one seed in common
    twins = grid_cells.lambda_c_twins(rows)["gran"]
    assert twins["pairs"] == 1 and twins["apart_sd"] == pytest.approx(0.1)  # differences 0.1, 0.2, 0.3
    assert twins["within_sd"] == pytest.approx(((1.0 + 1.21) / 2) ** 0.5)
    assert grid_cells.lambda_c_twins(rows[1:]) == {}


def test_a_small_p_never_reads_as_zero():
    assert [grid_cells.p_text(p) for p in (0.456, 0.0123, 0.0046, 0.0004, float("nan"))] == [
        "0.46", "0.01", "0.005", "< 0.001", "undefined"]


def test_their_code_finds_its_libraries_from_a_work_folder_named_relatively(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    env = run.environment(Path("work"), AUTHORS_SEED="1")
    assert env["PYTHONPATH"] == str(tmp_path / "work" / "py2-site") and env["AUTHORS_SEED"] == "1"
    assert f"base_compiledir={tmp_path / 'work' / 'theano'}" in env["THEANO_FLAGS"]


def test_their_code_end_to_end_is_compared_with_ours_on_each_reading(tmp_path):
    """end_to_end.py: per run, their seeds beside ours end to end (their raw-file reading, ours params.yaml's) and
    on each reading on both sides (their code on our tokens for ours)."""
    def rows(raw, values):
        return [{"run": "r", "seed": seed, "raw": raw, "theirs": {"transfer_pearson": v}}
                for seed, v in enumerate(values, 1)]

    raw, tokens = {"commit": "aaa", "rows": rows(True, [45.0, 45.2, 45.1])}, {"commit": "ccc",
                                                                           "rows": rows(False, [44.7, 44.8])}
    ours = {"commit": "bbb", "runs": {"r": {"ours": {"1": 44.6, "2": 44.7, "3": 44.8},
                                            "authors": {"1": 45.1, "2": 45.2, "3": 45.0}}}}
    for name, result in (("raw", raw), ("tokens", tokens), ("ours", ours)):
        (tmp_path / f"{name}.json").write_text(json.dumps(result))
    out = tmp_path / "e2e"
    assert end_to_end.main(["--theirs", str(tmp_path / "raw.json"), str(tmp_path / "tokens.json"), "--ours",
                            str(tmp_path / "ours.json"), "--out", str(out)]) == 0
    table = out.with_suffix(".md").read_text()
    assert cfg.load(REPO / "params.yaml")["data"]["reading"] == "authors"  # end to end is then the same text
    assert ("| r | end to end, the same text | authors | authors | 3 / 3 | 45.10 ± 0.10 | 45.10 ± 0.10 | +0.00 | yes |"
            in table)
    assert ("| r | end to end, the other reading | authors | ours | 3 / 3 | 45.10 ± 0.10 | 44.70 ± 0.10 | -0.40 | no |"
            in table)
    # every seed each side trained, not only those both did: the seeds are not paired
    assert "| r | the same text | ours | ours | 2 / 3 | 44.75 ± 0.07 | 44.70 ± 0.10 | -0.05 | yes |" in table
    assert table.count("\n| r |") == 3 and "Theirs measured at aaa, ccc, ours at bbb" in table
    # what the page states about agreement is written from the rows, per comparison
    assert "Compared end to end, the other reading: 0 of 1 within the seeds' spread; outside it: r (-0.40, t " in table
    assert "Compared the same text: 1 of 1 within the seeds' spread." in table
    assert [c["comparison"] for c in end_to_end.compared([raw, tokens], ours, "ours")] == [
        "end to end", "the same text", "the same text"]


def test_add_keeps_an_earlier_tables_other_jobs_from_the_same_code_and_kind(tmp_path):
    versions = {"python": "2.7.18", "theano": "1.0.5", "lasagne": "0.2.dev1", "lasagne_source": "/a"}
    earlier = tmp_path / "authors_code.json"
    earlier.write_text(json.dumps({"versions": versions, "commit": "old", "rows": [
        {"run": "a", "seed": 1}, {"run": "a", "seed": 2, "commit": "older"}, {"run": "b", "seed": 1}]}))
    now = [{"run": "b", "seed": 1, "raw": False}]
    # a kept row keeps the commit it was measured at: its own, or (written before rows kept theirs) its table's
    assert run.kept_rows(earlier, now, versions | {"lasagne_source": "/b"}, raw=False) == [
        {"run": "a", "seed": 1, "commit": "old"}, {"run": "a", "seed": 2, "commit": "older"}]
    assert end_to_end.measured_at([json.loads(earlier.read_text()), {"commit": "new", "rows": now}]) == [
        "new", "old", "older"]
    assert run.kept_rows(tmp_path / "none.json", now, versions, raw=False) == []
    with pytest.raises(SystemExit, match="holds runs without --raw"):
        run.kept_rows(earlier, now, versions, raw=True)
    with pytest.raises(SystemExit, match="other versions of their code"):
        run.kept_rows(earlier, now, versions | {"theano": "1.0.4"}, raw=False)


def test_the_steps_summary_gives_each_comparisons_largest_differences_under_lasagnes_epsilon():
    """steps_summary.py: per steps.py result, the uncorrected ε's largest loss difference, the steps with another
    negative, the first gradients and the last weights beside their largest move (a result from before the reading
    was recorded read ours)."""
    def step(k, loss, differ):
        return {"step": k, "loss": loss, "theirs_loss": 0.5, "negatives_differ": differ, "cosine_gap": 0.0,
                **({"gradient_difference": 3e-7} if k == 0 else {})}

    result = {"run": "t3-gran__x", "seed": 1, "commit": "abc", "their_largest_move": {"1": 1e-3, "2": 4e-3},
              "compared": {"uncorrected": {"steps": [step(0, 0.5, 0), step(1, 0.5002, 2)],
                                           "weights": {"1": 1e-7, "2": 2e-6}},
                           "corrected": {"steps": [step(0, 0.9, 5), step(1, 0.9, 5)], "weights": {"1": 1, "2": 1}}}}
    row = steps_summary.row(result)
    assert row["reading"] == "ours" and row["steps"] == 2 and row["steps_with_other_negatives"] == 1
    assert row["largest_loss_difference"] == pytest.approx(2e-4) and row["weights_difference"] == 2e-6
    assert "| t3-gran__x | ours | 2 | 2.0e-04 | 1 | 3.0e-07 | 2.0e-06 | — | 4.0e-03 |" in steps_summary.markdown([row])
    # steps.py --their-negatives: ours' weights after the last step when it takes the negatives theirs chose
    result["compared"][steps.THEIR_NEGATIVES] = {"steps": [step(0, 0.5, 0), step(1, 0.5, 0)],
                                                 "weights": {"1": 1e-7, "2": 3e-7}}
    assert "| 2.0e-06 | 3.0e-07 | 4.0e-03 |" in steps_summary.markdown([steps_summary.row(result)])


def test_the_cells_are_each_thinned_axis_off_and_at_its_kept_value_and_a_grid_run_keeps_its_name():
    """grid_cells.py: every model's cells (λ_c, input dropout, scrambling; avg only the input dropout), with margin and
    λ_w as the profile keeps them; a cell the thinned grids train is that run, the others are named as runs are."""
    config = cfg.load(REPO / "params.yaml")
    runs, models = grid_cells.cells(config, ["lstmavg", "avg"])
    assert list(models.values()) == ["lstmavg"] * 12 + ["avg"] * 3
    kept = config["grid_thinning"]["offline"]
    axes = {tuple(grid_cells.describe(grid_cells.experiment(config, run, runs)).values()) for run in models}
    assert len(axes) == 15  # no two cells train the same thing
    assert ("lstmavg", kept["lambda_c"][0], f"dropout {kept['dropout'][0]:g}", kept["scramble"][0]) in axes
    assert ("avg", 0.0, f"word_dropout {kept['word_dropout'][0]:g}", 0.0) in axes
    settings = [grid_cells.experiment(config, run, runs) for run in models]
    assert {(s.margin, s.lambda_w) for s in settings} == {(kept["margin"][0], kept["lambda_w"][0])}
    assert {s.epochs for s in settings if s.model == "avg"} == {7} and {s.epochs for s in settings
                                                                     if s.model == "lstmavg"} == {3}
    # Table 4's selected LSTMavg runs and the rows of Table 2 are cells under their own names
    table4 = set(grid_cells.grids.expand(config)[1][config["report"]["table4"]["lstmavg"]])
    assert table4 <= set(models) and {"t2-avg-dropout", "t2-avg-word-dropout", "t2-lstmavg-none"} <= {
        run.split("__")[0] for run in models}
    assert sum(run.startswith("cells-lstmavg__") for run in models) == 12 - 3
    with pytest.raises(SystemExit, match="keeps no single value"):
        grid_cells.cell_settings({**config, "grid_thinning": {"offline": {**kept, "scramble": [0.25, 0.5]}}}, "gran")


def test_a_job_of_theirs_held_by_one_process_is_skipped_by_others_and_free_once_it_ends(tmp_path):
    """grid_cells.claim: several `--sides theirs` processes share the cells; a job another process holds is skipped,
    and one whose process has ended, killed or not, is free at once (the lock is the kernel's)."""
    first = grid_cells.claim(tmp_path, "cells-gran__x", 1)
    assert first is not None
    assert grid_cells.claim(tmp_path, "cells-gran__x", 1) is None  # held (another open file, as another process)
    assert grid_cells.claim(tmp_path, "cells-gran__x", 2) is not None  # another job
    first.close()
    again = grid_cells.claim(tmp_path, "cells-gran__x", 1)
    assert again is not None
    again.close()
    path = tmp_path / "claims" / "cells-gran__x.seed1.lock"
    holder = subprocess.Popen([sys.executable, "-c", "import fcntl, sys, time; f = open(sys.argv[1], 'a'); "
                               "fcntl.flock(f, fcntl.LOCK_EX); print('held', flush=True); time.sleep(60)", str(path)],
                              stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline() == "held\n"
        assert grid_cells.claim(tmp_path, "cells-gran__x", 1) is None  # another process holds it
    finally:
        holder.kill()
        holder.wait()
    assert grid_cells.claim(tmp_path, "cells-gran__x", 1) is not None  # killed: free at once


def test_the_cells_table_compares_each_cell_with_two_seeds_a_side_and_says_which_lie_outside(tmp_path):
    """grid_cells.py --table: each side's seeds from WORK (theirs' points, ours' train.json) and run.py --raw's earlier
    rows; the summary sentence names the cells outside the spread, tests whether a model's cells lean one way and counts
    those that wait."""
    config = cfg.load(REPO / "params.yaml")
    runs, models = grid_cells.cells(config, ["avg"])
    none, dropout, word = models
    points = tmp_path / "points"
    points.mkdir()
    for seed, value in ((1, 45.0), (2, 45.2)):
        history = [{"point": 0, "selection_pearson": 90.0, "transfer_pearson": 0.0},
                   {"point": 1, "selection_pearson": 50.0, "transfer_pearson": value}]
        (points / f"{dropout}.seed{seed}.json").write_text(json.dumps({"points": history, "commit": "aaa"}))
    for run_, values in ((none, [44.0, 44.1]), (dropout, [46.0, 46.1, 46.2])):
        for seed, value in enumerate(values, 1):
            folder = tmp_path / "ours/models" / run_ / f"seed{seed}"
            folder.mkdir(parents=True)
            (folder / "train.json").write_text(json.dumps({"transfer_pearson": value}))
            (folder / "trained_at.txt").write_text("bbb\n")
    earlier = tmp_path / "raw.json"
    earlier.write_text(json.dumps({"commit": "ccc", "rows": [
        {"run": none, "seed": seed, "raw": True, "theirs": {"transfer_pearson": v}} for seed, v in
        ((1, 44.0), (2, 44.2))] + [{"run": none, "seed": 3, "raw": False, "theirs": {"transfer_pearson": 1.0}}]}))
    out = tmp_path / "cells"
    assert grid_cells.main(["--table", "--work", str(tmp_path), "--models", "avg", "--theirs", str(earlier),
                       "--out", str(out)]) == 0
    result = json.loads(out.with_suffix(".json").read_text())
    rows = {row["run"]: row for row in result["rows"]}
    assert list(rows[none]["theirs_seeds"]) == ["1", "2"]  # only --raw's rows: their code on our tokens is another text
    assert rows[none]["within"] and not rows[dropout]["within"] and "difference" not in rows[word]
    assert round(rows[dropout]["difference"], 2) == 1.0
    table = out.with_suffix(".md").read_text()
    assert f"| {dropout} | avg | 0 | dropout 0.2 | 0 | 2 / 3 | 45.10 ± 0.14 | 46.10 ± 0.10 | +1.00 | no |" in table
    every = len(grid_cells.cells(config, list(grid_cells.base_rows(config)))[1])  # --models trains; all are tabled
    assert every > len(models) and len(rows) == every
    assert (f"Of the {every} cells, those run on both sides with two seeds or more a side: 1 of 2 within the seeds' "
            "spread; "
            f"outside it: {dropout} (avg, λ_c 0, dropout 0.2, scrambling 0) (+1.00, t +8.7). The smallest of the 2 "
            f"cells' Welch p is 0.022 ({dropout}); adjusted (Holm) for the 2 cells compared, 0.04. A side's seed "
            "starts every cell it trains from the same weights") in table
    # Holm: the smallest p times the number of tests, each next one times one fewer, never below the one before
    assert [round(v, 6) for v in grid_cells.holm([0.01, 0.04, 0.03, 0.5])] == [0.04, 0.09, 0.09, 0.5]
    # with theirs' blocks each cell (one with a dropout layer, one without) is alone in its blocks: nothing is left
    assert ("of what is left): avg +0.50 over 2 cells (t +1.7 on 3.2 degrees of freedom, p 0.19; seeds' "
            f"effects ours ± 0.10 over 3, theirs ± 0.59 over 4, F 0.03, p 0.06). {every - 2} cells wait for their "
            "runs.") in table
    assert "Theirs measured at aaa, ccc; ours trained at bbb" in table


def test_a_tabled_seed_counts_though_work_lost_its_job_and_a_job_work_holds_supersedes_it(tmp_path):
    """grid_cells.py: the table written before (OUT.json) is the record of what was measured, so a fresh or lost
    WORK keeps every tabled seed; a job WORK holds replaces its seed's tabled value; a cell the settings no longer
    give (another run name) is dropped; --tabled adds another table's seeds; a file that is no table is named."""
    config = cfg.load(REPO / "params.yaml")
    runs, models = grid_cells.cells(config, ["avg"])
    none, dropout, _ = models
    gran = next(iter(grid_cells.cells(config, ["gran"])[1]))
    out = tmp_path / "cells"
    earlier = {"commit": "old", "rows": [
        {"run": none, "theirs_seeds": {"1": {"transfer_pearson": 44.0, "commit": "t1"},
                                       "2": {"transfer_pearson": 44.2, "commit": "t1"}},
         "ours_seeds": {"1": {"transfer_pearson": 40.0, "commit": "o1"},
                        "2": {"transfer_pearson": 44.3, "commit": "o1"}}},
        {"run": "cells-avg__gone", "theirs_seeds": {"1": {"transfer_pearson": 1.0}}, "ours_seeds": {}},
        {"run": gran, "theirs_seeds": {"1": {"transfer_pearson": 55.0, "commit": "t2"}}, "ours_seeds": {}}]}
    out.with_suffix(".json").write_text(json.dumps(earlier))
    folder = tmp_path / "work/ours/models" / none / "seed1"
    folder.mkdir(parents=True)
    (folder / "train.json").write_text(json.dumps({"transfer_pearson": 44.1}))
    (folder / "trained_at.txt").write_text("new\n")
    argv = ["--table", "--work", str(tmp_path / "work"), "--models", "avg", "--theirs", str(tmp_path / "none.json"),
            "--out", str(out)]
    assert grid_cells.main(argv) == 0
    rows = {row["run"]: row for row in json.loads(out.with_suffix(".json").read_text())["rows"]}
    assert set(models) < set(rows) and "cells-avg__gone" not in rows
    # --models chooses what trains: the table keeps every model's cells, and another model's tabled seeds with them
    assert rows[gran]["theirs_seeds"] == earlier["rows"][2]["theirs_seeds"]
    assert rows[none]["theirs_seeds"] == earlier["rows"][0]["theirs_seeds"]
    assert rows[none]["ours_seeds"] == {"1": {"transfer_pearson": 44.1, "commit": "new"},
                                        "2": {"transfer_pearson": 44.3, "commit": "o1"}}
    assert rows[none]["within"] and not rows[dropout]["theirs_seeds"]
    assert grid_cells.main(argv) == 0  # a second pass reads its own table: the same rows
    assert {row["run"]: row for row in json.loads(out.with_suffix(".json").read_text())["rows"]} == rows
    # --tabled adds another table's seeds where OUT.json has none, and never drops OUT.json's (a file that is none
    # adds nothing)
    other = tmp_path / "other.json"
    other.write_text(json.dumps({"rows": [{"run": none, "theirs_seeds": {"1": {"transfer_pearson": 1.0},
                                                                         "3": {"transfer_pearson": 44.4}},
                                           "ours_seeds": {}}]}))
    assert grid_cells.main([*argv, "--tabled", str(tmp_path / "missing.json")]) == 0
    assert {row["run"]: row for row in json.loads(out.with_suffix(".json").read_text())["rows"]} == rows
    assert grid_cells.main([*argv, "--tabled", str(other)]) == 0
    theirs = {row["run"]: row for row in json.loads(out.with_suffix(".json").read_text())["rows"]}[none]["theirs_seeds"]
    assert theirs == {**earlier["rows"][0]["theirs_seeds"], "3": {"transfer_pearson": 44.4, "commit": None}}
    broken = tmp_path / "broken.json"
    broken.write_text(json.dumps({"rows": [{"run": none}]}))
    with pytest.raises(SystemExit, match=r"broken.json \(OUT.json or --tabled\): not a table of the cells"):
        grid_cells.main([*argv, "--tabled", str(broken)])


def test_the_untrained_starts_are_compared_side_by_side_and_a_run_measured_before_is_kept(tmp_path):
    """untrained_starts.py: per run, each side's untrained scores over the seeds (mean ± sd), Welch's t and the F
    test of the spreads, on the 22-set and STS 2016 means; --table keeps the runs the table measured before beside
    those named now, drops one whose settings no cell has any more, and names a file that is no table of them."""
    config = cfg.load(REPO / "params.yaml")
    runs, models = grid_cells.cells(config, ["lstmavg", "gran"])
    lstmavg, gran = (next(run for run, model in models.items() if model == wanted) for wanted in ("lstmavg", "gran"))
    scores = {"1": ((40.0, 35.0), (41.0, 36.0)), "2": ((42.0, 37.0), (42.0, 38.0)), "3": ((41.0, 33.0), (43.0, 37.0))}
    seeds = {seed: {**{side: {"transfer_pearson": v[0], "selection_pearson": v[1]}
                       for side, v in zip(("theirs", "ours"), pair, strict=True)}, "commit": "abc"}
             for seed, pair in scores.items()}
    row, = untrained_starts.table({lstmavg: seeds}, [lstmavg])
    c = row["compared"]["transfer_pearson"]
    assert (c["theirs"], c["ours"], c["difference"]) == (41.0, 42.0, 1.0)
    assert round(c["f"], 6) == 1.0 and c["f_p"] == 1.0 and round(c["t"], 2) == 1.22
    assert row["compared"]["selection_pearson"]["f"] == 0.25  # variances: ours 1, theirs 4
    out = tmp_path / "starts"
    out.with_suffix(".json").write_text(json.dumps(
        {"rows": [row, {"run": "cells-gran__gone", "seeds": {"1": seeds["1"]}}]}))
    assert untrained_starts.main(["--table", "--runs", gran, "--out", str(out)]) == 0
    written = json.loads(out.with_suffix(".json").read_text())["rows"]
    assert [r["run"] for r in written] == [lstmavg, gran] and written[0] == row and written[1]["seeds"] == {}
    text = out.with_suffix(".md").read_text()
    assert f"| {lstmavg} | lstmavg | 3 | 22-set mean | 41.00 ± 1.00 | 42.00 ± 1.00 | +1.00 | +1.2 | 0.29 | 1.00 | " \
           "1.00 |" in text
    assert f"| {gran} | gran | 0 | – |" in text and "Measured at abc; tabled at" in text
    broken = tmp_path / "broken.json"
    broken.write_text(json.dumps({"rows": [{"run": lstmavg, "seeds": {"1": {"ours": {}}}}]}))
    with pytest.raises(SystemExit, match=r"broken.json \(OUT.json or --tabled\): not a table of the untrained starts"):
        untrained_starts.main(["--table", "--runs", gran, "--out", str(out), "--tabled", str(broken)])


def test_the_starts_weights_are_compared_block_by_block_and_a_block_the_runs_share_is_one_row(tmp_path):
    """untrained_starts.py: each composition block's mean, sd and (square) spectral radius per seed, the word vectors
    left out; per run each side's mean over the seeds with Welch's t (none where neither side varies); a block two
    runs share with the same values is one row of the table."""
    found = untrained_starts.weight_statistics({"W": np.ones((3, 2)), "W_hid_to_cell": np.diag([2.0, -3.0]),
                                                "b_cell": np.zeros(2)})
    assert set(found) == {"W_hid_to_cell", "b_cell"}
    assert found["W_hid_to_cell"] == pytest.approx({"mean": -0.25, "sd": float(np.std([2, 0, 0, -3])), "radius": 3.0})
    assert found["b_cell"] == {"mean": 0.0, "sd": 0.0}  # not square: no radius

    def seed(theirs_radius, ours_radius):
        weights = {side: {"W_hid_to_cell": {"mean": 0.0, "sd": 0.1, "radius": radius}, "b_cell": {"mean": 0.0,
                                                                                                 "sd": 0.0}}
                   for side, radius in (("theirs", theirs_radius), ("ours", ours_radius))}
        return {side: {"transfer_pearson": 40.0 + radius, "selection_pearson": 35.0 - radius}
                for side, radius in (("theirs", theirs_radius), ("ours", ours_radius))} | {
            "commit": "abc", "weights": weights, "weights_commit": "def"}

    seeds = {"1": seed(0.74, 0.75), "2": seed(0.76, 0.77)}
    rows = untrained_starts.table({"run-a": seeds, "run-b": seeds, "run-c": {"1": seed(0.7, 0.7)}},
                                  ["run-a", "run-b", "run-c"])
    radius = rows[0]["compared_weights"]["W_hid_to_cell"]["radius"]
    assert (radius["theirs"], radius["ours"], radius["seeds"]) == (0.75, 0.76, 2)
    assert round(radius["t"], 2) == 0.71
    assert rows[0]["compared_weights"]["b_cell"]["sd"]["t"] is None  # constant on both sides: no t
    assert "compared_weights" not in rows[2]  # one seed: nothing to compare
    text = untrained_starts.markdown({"commit": "xyz", "reading": "authors", "rows": rows},
                                     {"run-a": "lstm", "run-b": "lstm", "run-c": "lstm"})
    assert "| run-a, run-b | 2 | W_hid_to_cell | 0.0000 | 0.0000 | – | 0.1000 | 0.1000 | – | 0.7500 | 0.7600 | " \
           "+0.7 |" in text
    assert "| run-a, run-b | 2 | b_cell | 0.0000 | 0.0000 | – | 0.0000 | 0.0000 | – | – | – | – |" in text
    assert "Measured at abc (the weights at def); tabled at xyz" in text
    out = tmp_path / "starts.json"
    out.write_text(json.dumps({"rows": rows}))
    assert untrained_starts.tabled(out)["run-a"]["2"]["weights"] == seeds["2"]["weights"]


def test_what_their_python_runs_is_ascii():
    """shim.py and steps_theirs.py run under their Python 2.7, which refuses a file with a non-ASCII character and no
    encoding line (a λ in a docstring stops every run of theirs)."""
    for name in ("shim.py", "steps_theirs.py"):
        lines = (REPO / "fidelity" / name).read_bytes().splitlines()
        assert not [n for n, line in enumerate(lines, 1) if not line.isascii()], f"fidelity/{name}: not ASCII"


def test_a_cells_curves_set_each_point_of_both_sides_side_by_side(tmp_path):
    """curves.py: their point k (after the start) beside our history's row k, per measure each side's mean over its
    seeds, the difference and Welch's t; a loss theirs did not record (jobs before shim.py kept it) is left out and
    counted; a side with no job is named."""
    run_ = "cells-avg__x"
    (tmp_path / "points").mkdir()
    for seed, (values, losses) in {1: ((44.0, 45.0), (None, 0.70, 0.60)), 2: ((44.2, 45.4), (None, 0.72, 0.62)),
                                   3: ((44.1, 45.2), None)}.items():
        points = [{"point": k, "transfer_pearson": 40.0 + k, "selection_pearson": 41.0, "loss": losses[k]}
                  if losses else {"point": k, "transfer_pearson": 40.0 + k, "selection_pearson": 41.0}
                  for k in range(3)]
        for k, value in enumerate(values, 1):
            points[k]["transfer_pearson"] = value
        (tmp_path / "points" / f"{run_}.seed{seed}.json").write_text(json.dumps({"points": points}))
    with pytest.raises(SystemExit, match="no finished job of cells-avg__x on our side"):
        curves.main(["--run", run_, "--work", str(tmp_path), "--out", str(tmp_path / "curves")])
    for seed, rows in {1: ((44.5, 0.69), (45.5, 0.58)), 2: ((44.7, 0.71), (45.9, 0.60))}.items():
        folder = tmp_path / "ours/models" / run_ / f"seed{seed}"
        folder.mkdir(parents=True)
        (folder / "history.json").write_text(json.dumps([
            {"epoch": (k + 1) / 4, "transfer_pearson": v, "selection_pearson": 41.0, "loss": loss}
            for k, (v, loss) in enumerate(rows)]))
        (folder / "train.json").write_text(json.dumps({"transfer_pearson": rows[-1][0]}))  # a finished job
    assert curves.main(["--run", run_, "--work", str(tmp_path), "--out", str(tmp_path / "curves")]) == 0
    result = json.loads((tmp_path / "curves.json").read_text())
    first = result["rows"][0]
    assert (first["epoch"], round(first["transfer_pearson"]["theirs"], 6), first["transfer_pearson"]["ours"]) == (
        0.25, 44.1, 44.6)
    assert round(first["transfer_pearson"]["difference"], 6) == 0.5 and first["loss"]["theirs_seeds"] == 2
    assert round(first["loss"]["difference"], 6) == -0.01 and first["selection_pearson"]["t"] is None
    text = (tmp_path / "curves.md").read_text()
    assert "(theirs 1, 2, 3; ours 1, 2)" in text
    assert "| 0.5 | 45.20 | 45.70 | +0.50 | +2.2 | 41.00 | 41.00 | +0.00 | – | 0.6100 | 0.5900 | -0.0200 | -1.4 | 2 |" \
        in text


def test_a_seed_their_code_has_not_run_counts_in_the_starts_effect_only(tmp_path):
    """same_start.py --without-their-runs: a seed with ours from their start and ours from our own but no run of
    theirs is tabled with – for theirs; it leaves ours − theirs as it was and counts in the start's effect (ours from
    their start − ours from our own, paired by seed), which the run's line gives once it has seeds theirs has not."""
    run_ = "cells-lstm__x"
    same_start_work(tmp_path, run_, {1: (54.0, 54.2, 53.6), 2: (54.4, 54.1, 53.9), 3: (None, 53.9, 53.2)})
    row, = same_start.table([run_], tmp_path, {run_: "quarter"})
    assert row["seeds"]["3"] == {"theirs": None, "ours_from_their_start": 53.9, "ours": 53.2}
    assert round(row["difference"], 6) == round((0.2 - 0.3) / 2, 6)  # seeds 1 and 2 only
    assert row["start_seeds"] == 3 and round(row["start_difference"], 6) == round((0.6 + 0.2 + 0.7) / 3, 6)
    text = same_start.markdown({"commit": "abc", "reading": "authors", "rows": [row]})
    assert f"| {run_} | 3 | – | 53.90 | – | 53.20 |" in text
    assert f"- {run_}: ours from their start − theirs over 2 seeds: -0.05" in text
    assert "their start − our own, both trained by ours, over 3 seeds: +0.50 ± 0.26" in text
    assert "over 3 seeds: +0.07" not in text  # the seed without theirs is not paired with theirs
    run_seeds = {seed: v for seed, v in row["seeds"].items() if v["theirs"] is not None}
    only_run = {"run": run_, "seeds": run_seeds, **same_start.comparisons(run_seeds, [53.6, 53.9])}
    assert only_run["start_seeds"] == 2  # no seed beyond theirs: the run's line says nothing more
    assert "both trained by ours" not in same_start.markdown({"commit": "abc", "reading": "authors",
                                                              "rows": [only_run]})


def test_same_start_keeps_the_runs_it_tabled_beside_those_named_now(tmp_path):
    """same_start.py --table --runs B, with A tabled before: the table holds A (its seeds from the tables, in their
    order) and B; a --tabled file that is none drops nothing."""
    config = cfg.load(REPO / "params.yaml")
    first, second = list(grid_cells.cells(config, ["lstmavg"])[1])[:2]
    seeds = {"1": {"theirs": 57.0, "ours_from_their_start": 57.2, "ours": 56.8},
             "2": {"theirs": 57.4, "ours_from_their_start": 57.1, "ours": 56.9}}
    out = tmp_path / "same_start"
    out.with_suffix(".json").write_text(json.dumps({"rows": [{"run": first, "seeds": seeds}]}))
    cells_table = tmp_path / "cells.json"
    sides = {f"{side}_seeds": {seed: {"transfer_pearson": v[side], "commit": "c"} for seed, v in seeds.items()}
             for side in ("theirs", "ours")}
    cells_table.write_text(json.dumps({"rows": [{"run": run_, **sides} for run_ in (first, second)]}))
    argv = ["--table", "--runs", second, "--work", str(tmp_path / "work"), "--out", str(out), "--cells-table",
            str(cells_table), "--tabled", str(tmp_path / "none.json")]
    assert same_start.main(argv) == 0
    rows = json.loads(out.with_suffix(".json").read_text())["rows"]
    assert [row["run"] for row in rows] == [first, second]
    assert rows[0]["seeds"] == seeds and rows[1]["seeds"] == {}
