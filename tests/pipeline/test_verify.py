"""`paraphrastic verify`: every raw file, table, matrix and result of a data folder checked by hash, whatever the
times say."""

from __future__ import annotations

import json
import os

import numpy as np
import pandas as pd
import pytest

from paraphrastic.atomic import sha256_file
from paraphrastic.cli import main as cli
from paraphrastic.data import vocab
from paraphrastic.data.corpus import write_table
from paraphrastic.pipeline.verify import verify
from paraphrastic.training.epochs import write_run


@pytest.fixture
def data(tmp_path, monkeypatch):
    """A small data folder as the pipeline leaves it: a fetched raw file, a table, a vocabulary folder, a training
    job's folder as every trainer writes it (a stand-in model.pt, history.csv, history.json, train.json)."""
    monkeypatch.chdir(tmp_path)
    root = tmp_path / "data"
    raw = root / "raw" / "sts"
    raw.mkdir(parents=True)
    (raw / "gold.txt").write_text("5.000\n4.750\n")
    record = {"file": "sts/gold.txt", "bytes": 12, "sha256": sha256_file(raw / "gold.txt"),
              "mtime_ns": (raw / "gold.txt").stat().st_mtime_ns}
    (root / "raw" / "FETCHED.json").write_text(json.dumps([record]))
    write_table(pd.DataFrame({"tokens1": [["a"]], "tokens2": [["b"]]}), None, root / "corpus" / "eval.parquet",
                stage="prepare_eval")
    for name in ("simpwiki", "ppdb"):  # what the vocabulary was built from
        write_table(pd.DataFrame({"tokens1": [["a"]], "tokens2": [["b"]]}), None, root / "corpus" / f"{name}.parquet",
                    stage="prepare_train")
    vocab.save_vectors(root / "vocab", vocab.Vocabulary([*vocab.SPECIAL, "a"]), np.ones((5, 2), np.float32),
                       stage="vocab")
    write_run(root / "models" / "r" / "seed1", [{"epoch": 1, "selection_pearson": 50.0}], {"run": "r"},
              lambda path: path.write_bytes(b"the weights of r, seed 1"), stage="train")
    (root / "models" / "r" / "checkpoints").mkdir(parents=True)
    np.save(root / "models" / "r" / "checkpoints" / "state.npy", np.ones(2))  # a job's restart state: not checked
    return root


@pytest.mark.fault("pipeline artifacts")
def test_verify_finds_an_edit_that_kept_the_size_and_set_the_time_back(data, capsys):
    # the run's model.pt, history.csv and history.json, against the digests its train.json holds
    assert verify(data).checked == {"raw files": 1, "tables": 3, "matrices": 1, "results": 1,
                                    "files beside a record": 3}
    assert not verify(data).problems
    assert cli.main(["verify"]) == 0
    assert "data: every file is what its record says (1 raw file, 3 tables, 1 matrix, 1 result, 3 files beside a " \
           "record checked by hash)" in capsys.readouterr().out
    gold = data / "raw" / "sts" / "gold.txt"
    before = gold.stat()
    gold.write_text("4.000\n4.750\n")  # the same size
    os.utime(gold, ns=(before.st_atime_ns, before.st_mtime_ns))  # and the time set back: a stage's quick check passes
    from paraphrastic.data.fetch import verify_raw

    verify_raw(data / "raw")
    assert cli.main(["verify"]) == 1
    out, err = capsys.readouterr()
    assert "data/raw/sts/gold.txt: its sha256 differs from the one fetch verified" in out
    assert "error: 1 problem(s) in data" in err


@pytest.mark.fault("misplaced artifacts")
def test_verify_names_every_table_or_matrix_in_another_place_or_edited(data, tmp_path, capsys):
    (data / "corpus" / "eval.parquet").rename(data / "corpus" / "simpwiki.parquet")
    lines = (data / "vocab" / "vocab.txt").read_text().splitlines()
    (data / "vocab" / "vocab.txt").write_text("\n".join([*lines[:-1], "b"]) + "\n")
    problems = verify(data).problems
    assert len(problems) == 4
    assert "simpwiki.parquet: holds what prepare_eval wrote as data/corpus/eval.parquet" in problems[0]
    assert "vocab.txt: not the vocab.txt that vocab wrote with" in problems[1]
    # and the table moved away is missing where what was built from it is
    assert all(p.startswith("data/corpus/eval.parquet: missing, though ") for p in problems[2:])
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    os.chdir(elsewhere)  # a data folder read from elsewhere: the roles are relative to it all the same
    assert cli.main(["verify", "--data", str(data)]) == 1
    assert "holds what prepare_eval wrote as data/corpus/eval.parquet" in capsys.readouterr().out


@pytest.mark.fault("pipeline artifacts")
def test_verify_names_an_unreadable_fetch_record_rather_than_stopping_with_a_traceback(data, capsys):
    (data / "raw" / "FETCHED.json").write_text("[{")
    assert cli.main(["verify"]) == 1
    out, err = capsys.readouterr()
    assert "data/raw/FETCHED.json: not readable (" in out and "rerun fetch" in out
    assert "error: 1 problem(s) in data (3 tables, 1 matrix, 1 result, 3 files beside a record checked by hash)" in err


@pytest.mark.fault("pipeline artifacts")
def test_verify_names_an_edited_result_and_a_history_that_is_not_the_one_its_run_wrote(data):
    job = data / "models" / "r" / "seed1"
    (job / "history.json").write_text(json.dumps([{"epoch": 1, "selection_pearson": 99.0}]))
    problems = verify(data).problems
    assert len(problems) == 1 and "history.json: differs from what train wrote beside" in problems[0]
    values = json.loads((job / "train.json").read_text())
    (job / "train.json").write_text(json.dumps({**values, "run": "another"}))
    problems = verify(data).problems
    assert len(problems) == 1 and "train.json: its values or the digests it holds of the files beside it differ " \
        "from what train wrote" in problems[0]


@pytest.mark.fault("pipeline artifacts")
@pytest.mark.parametrize("damage", ["record stripped", "truncated"])
def test_verify_names_a_result_where_a_stage_writes_one_that_has_no_record_or_is_not_json(data, damage):
    """A score edited and its record deleted with it (or a result cut short) is not passed over as some other
    program's JSON file: the stage graph says a recorded result belongs there."""
    info = data / "models" / "r" / "seed1" / "train.json"
    values = json.loads(info.read_text())
    del values["record"]
    info.write_text(json.dumps({**values, "run": "another"}) if damage == "record stripped" else "{\"run\": ")
    result = verify(data)
    assert result.checked["results"] == 1 and len(result.problems) == 1
    expected = "holds no record of what the pipeline wrote there" if damage == "record stripped" \
        else "not readable JSON"
    assert "train.json: " + expected in result.problems[0]
    (data / "models" / "r" / "seed1" / "notes.json").write_text("{}")  # a file of the user's, where no stage writes
    assert len(verify(data).problems) == 1


@pytest.mark.fault("misplaced artifacts")
@pytest.mark.parametrize("change", ["model edited", "another run's model", "model missing", "history.csv edited"])
def test_verify_names_a_runs_model_or_curve_that_is_not_the_one_it_trained(data, change):
    """A run's model.pt and history.csv are held to the sha256 its train.json records: weights edited, another
    run's model copied in (its role would stop the job that loads it, but nothing loads it after the report), a
    model deleted, or a learning curve edited for the plots."""
    job = data / "models" / "r" / "seed1"
    if change == "model edited":
        (job / "model.pt").write_bytes(b"the weights of r, seed 2")
    elif change == "another run's model":
        write_run(data / "models" / "r" / "seed2", [{"epoch": 1, "selection_pearson": 49.0}], {"run": "r"},
                  lambda path: path.write_bytes(b"the weights of r, seed 2"), stage="train")
        (job / "model.pt").write_bytes((data / "models" / "r" / "seed2" / "model.pt").read_bytes())
    elif change == "model missing":
        (job / "model.pt").unlink()
    else:
        (job / "history.csv").write_text((job / "history.csv").read_text().replace("50.0", "59.0"))
    problems = verify(data).problems
    name = "history.csv" if change == "history.csv edited" else "model.pt"
    said = "missing beside" if change == "model missing" else "differs from what train wrote beside"
    assert len(problems) == 1 and f"seed1/{name}: {said}" in problems[0] and "train.json" in problems[0]


@pytest.mark.fault("pipeline artifacts")
def test_verify_names_every_missing_file_a_result_there_was_built_from(data):
    """Snakemake plans nothing for a missing intermediate whose readers are done: with the evaluation table and a
    baseline's scores deleted, verify names both, each with what was built from it and the stage that writes it
    (the report's inputs are those its record lists), beside the other problems it finds."""
    from paraphrastic.provenance import write_result

    (data / "corpus" / "eval.parquet").unlink()
    (data / "report").mkdir()
    write_result(data / "report" / "record.json", {"files": [], "built_from": ["results/baseline.json",
                                                                               "models/r/seed1/train.json"]},
                 stage="report")
    found = verify(data).problems
    assert ("data/corpus/eval.parquet: missing, though data/models/r/seed1/model.pt (train's output, built from it) "
            "is there; rerun prepare_eval (snakemake --forcerun prepare_eval, or dvc repro --force prepare_eval)"
            in found), found
    assert ("data/results/baseline.json: missing, though the report (data/report/record.json) was built from it; "
            "rerun baseline (snakemake --forcerun baseline, or dvc repro --force baseline)") in found, found
    assert not [p for p in found if "train.json: missing" in p]  # what is there is not named
