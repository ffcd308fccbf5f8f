"""A valid artifact in another's place, or beside another run's other half, stops the reader naming both
(paraphrastic.provenance, and the records of paraphrastic.data.corpus and paraphrastic.data.vocab)."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pandas as pd
import pytest
import torch

from paraphrastic import provenance
from paraphrastic.data import vocab
from paraphrastic.data.corpus import RECORD_KEY, read_table, write_table
from paraphrastic.errors import PipelineError


@pytest.fixture
def in_checkout(tmp_path, monkeypatch):
    """A working directory with a data folder, as every stage runs in."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "data").mkdir()
    return tmp_path


def table(rows: int) -> pd.DataFrame:
    return pd.DataFrame({"tokens1": [["a"]] * rows, "tokens2": [["b"]] * rows})


def test_a_record_names_the_artifacts_place_in_the_data_folder_and_the_config_that_wrote_it(in_checkout,
                                                                                          monkeypatch):
    monkeypatch.setattr(provenance, "_config_digest", [])
    provenance.read_under({"seed": 1})
    path = in_checkout / "data" / "corpus" / "ppdb_matched.parquet"
    write_table(table(2), None, "data/corpus/ppdb_matched.parquet", stage="match")
    import pyarrow.parquet as pq

    record = json.loads(pq.ParquetFile(path).metadata.metadata[RECORD_KEY])
    assert record["role"] == "corpus/ppdb_matched.parquet" and len(record["params"]) == 16
    assert provenance.artifact_role(path) == provenance.artifact_role("data/corpus/ppdb_matched.parquet")
    assert provenance.artifact_role(in_checkout / "elsewhere.parquet") is None
    checkout = in_checkout / "checkout"  # a checkout whose data folder links to a scratch disk's
    checkout.mkdir()
    (checkout / "data").symlink_to(in_checkout / "data")
    monkeypatch.chdir(checkout)
    assert provenance.artifact_role("data/corpus/ppdb_matched.parquet") == "corpus/ppdb_matched.parquet"
    assert len(read_table("data/corpus/ppdb_matched.parquet")) == 2


@pytest.mark.fault("misplaced artifacts")
def test_two_valid_tables_of_one_stage_swapped_stop_the_reader_naming_both(in_checkout):
    corpus = in_checkout / "data" / "corpus"
    write_table(table(3), None, corpus / "ppdb_matched.parquet", stage="match")
    write_table(table(5), None, corpus / "simpwiki_matched.parquet", stage="match")
    assert len(read_table(corpus / "ppdb_matched.parquet")) == 3
    swap = corpus / "swap"
    (corpus / "ppdb_matched.parquet").rename(swap)
    (corpus / "simpwiki_matched.parquet").rename(corpus / "ppdb_matched.parquet")
    swap.rename(corpus / "simpwiki_matched.parquet")
    with pytest.raises(PipelineError, match=r"ppdb_matched.parquet: holds what match wrote as "
                                            r"data/corpus/simpwiki_matched.parquet, not this file"):
        read_table(corpus / "ppdb_matched.parquet")


@pytest.mark.fault("misplaced artifacts")
def test_one_stages_matrix_copied_over_anothers_of_the_same_shape_stops_the_reader(in_checkout):
    data = in_checkout / "data"
    (data / "distilled").mkdir()
    (data / "sentence_distilled").mkdir()
    words = vocab.Vocabulary([*vocab.SPECIAL, "a", "b"])
    vocab.save_vectors(data / "distilled", words, np.ones((6, 2), np.float32), stage="distill")
    vocab.save_vectors(data / "sentence_distilled", words, np.zeros((6, 2), np.float32), stage="distill_sentences")
    shutil.copy(data / "distilled" / "embeddings.npy", data / "sentence_distilled" / "embeddings.npy")
    with pytest.raises(PipelineError, match=r"sentence_distilled/embeddings.npy: holds what distill wrote as "
                                            r"data/distilled/embeddings.npy"):
        vocab.load_vectors(data / "sentence_distilled")


@pytest.mark.fault("misplaced artifacts")
def test_a_word_list_edited_beside_its_matrix_stops_the_reader(in_checkout):
    folder = in_checkout / "data" / "vocab"
    folder.mkdir()
    words = vocab.Vocabulary([*vocab.SPECIAL, "cat", "dog"])
    matrix = np.arange(12, dtype=np.float32).reshape(6, 2)
    vocab.save_vectors(folder, words, matrix, stage="vocab")
    loaded, rows = vocab.load_vectors(folder)
    assert loaded.words == words.words and np.array_equal(rows, matrix)
    lines = (folder / "vocab.txt").read_text().splitlines()
    lines[-2:] = lines[-1], lines[-2]  # two words swapped: every id after them would point at the other's vector
    (folder / "vocab.txt").write_text("\n".join(lines) + "\n")
    with pytest.raises(PipelineError, match=r"vocab.txt: not the vocab.txt that vocab wrote with .*embeddings.npy"):
        vocab.load_vectors(folder)


@pytest.mark.fault("misplaced artifacts")
def test_teacher_embeddings_beside_another_runs_texts_stop_the_reader_naming_the_files(in_checkout):
    data = in_checkout / "data" / "distill_sentences"
    data.mkdir()
    texts, embeddings = data / "targets.parquet", data / "target_embeddings.npy"
    frame = pd.DataFrame({"text": ["a b", "c"], "tokens": [["a", "b"], ["c"]]})
    write_table(frame, None, texts, stage="teacher_targets")
    vocab.save_matrix(embeddings, np.ones((2, 3), np.float32), stage="teacher_targets", rows_of=texts)
    assert vocab.load_matrix(embeddings, rows_of=texts).shape == (2, 3)
    write_table(frame.iloc[:1], None, texts, stage="teacher_targets")  # another run's texts
    with pytest.raises(PipelineError, match=r"targets.parquet: not the targets.parquet that teacher_targets wrote "
                                            r"with .*target_embeddings.npy"):
        vocab.load_matrix(embeddings, rows_of=texts)


def test_a_file_outside_the_data_folder_or_of_an_older_record_is_read_without_a_role(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write_table(table(2), None, tmp_path / "a.parquet", stage="match")
    shutil.copy(tmp_path / "a.parquet", tmp_path / "b.parquet")
    assert len(read_table(tmp_path / "b.parquet")) == 2  # no data folder: nothing to bind it to
    assert provenance.check_role("data/corpus/x.parquet", {"stage": "match"}) is None  # a record before roles


@pytest.mark.fault("misplaced artifacts")
def test_a_runs_history_edited_or_copied_from_another_run_stops_the_reader(in_checkout):
    """history.json (a list, with no room for a record) is bound to its run through the digest train.json holds."""
    runs = in_checkout / "data" / "models" / "r"

    def job(seed: int, score: float):
        history = [{"epoch": 1, "selection_pearson": score}]
        (runs / f"seed{seed}").mkdir(parents=True)
        (runs / f"seed{seed}" / "history.json").write_text(json.dumps(history))
        provenance.write_result(runs / f"seed{seed}" / "train.json", {"seed": seed}, stage="train",
                                beside={"history.json": history})

    job(1, 50.0)
    job(2, 60.0)
    first = runs / "seed1" / "train.json"
    assert provenance.read_with_beside(first, "history.json")[1] == [{"epoch": 1, "selection_pearson": 50.0}]
    shutil.copy(runs / "seed2" / "history.json", runs / "seed1" / "history.json")
    with pytest.raises(PipelineError, match=r"seed1/history.json: differs from what train wrote beside .*seed1/"
                                            r"train.json .*another run's copied in"):
        provenance.read_with_beside(first, "history.json")
    (runs / "seed1" / "history.json").unlink()
    with pytest.raises(PipelineError, match=r"seed1/history.json: missing beside"):
        provenance.read_with_beside(first, "history.json")
    with pytest.raises(PipelineError, match=r"holds no digest of .*log.json"):
        provenance.read_with_beside(first, "log.json")


@pytest.mark.fault("misplaced artifacts")
def test_files_a_result_holds_the_digest_of_are_checked_in_its_folder_and_below(in_checkout):
    """word2vec's results.json holds the sha256 of each architecture's model.pt, one folder down."""
    out = in_checkout / "data" / "siamese" / "word2vec"
    for architecture in ("cbow", "skipgram"):
        (out / architecture).mkdir(parents=True)
        (out / architecture / "model.pt").write_bytes(architecture.encode())
    provenance.write_result(out / "results.json", {"seed": 1}, stage="word2vec",
                            files=("cbow/model.pt", "skipgram/model.pt"))
    provenance.check_result(out / "results.json")
    (out / "skipgram" / "model.pt").write_bytes(b"cbow")
    (out / "cbow" / "model.pt").write_bytes(b"skipgram")
    with pytest.raises(PipelineError, match=r"cbow/model.pt: differs from what word2vec wrote beside .*results.json"
                                            r"(.|\n)*\n.*skipgram/model.pt: differs"):  # every one, not the first
        provenance.check_result(out / "results.json")
    # the record's digests are sealed with its values: one deleted (or rewritten to fit the edit) is an edit too
    written = json.loads((out / "results.json").read_text())
    del written["record"]["files"]["skipgram/model.pt"]
    (out / "results.json").write_text(json.dumps(written))
    with pytest.raises(PipelineError, match="its values or the digests it holds of the files beside it differ"):
        provenance.check_result(out / "results.json")
    # names that are not files in its folder are refused before anything is read
    for files in ({"/etc/hostname": "0"}, {"../results.json": "0"}, ["cbow/model.pt"]):
        with pytest.raises(PipelineError, match="its record of the files beside it is not names in its folder"):
            provenance.check_files(out / "results.json", files, writer="word2vec")


@pytest.mark.fault("misplaced artifacts")
def test_a_model_copied_over_another_runs_stops_the_job_that_loads_it(in_checkout):
    from paraphrastic.models.encoders import build_model
    from paraphrastic.models.files import load_model, save_model

    words = vocab.Vocabulary([*vocab.SPECIAL, "a"])
    models = in_checkout / "data" / "models"
    for run in ("avg-ppdb", "gran-ppdb"):
        (models / run / "seed1").mkdir(parents=True)
        save_model(models / run / "seed1" / "model.pt", build_model("avg", torch.zeros(5, 2)), "avg", {}, words, {})
    assert load_model(models / "gran-ppdb" / "seed1" / "model.pt")[1].words == words.words
    shutil.copy(models / "avg-ppdb" / "seed1" / "model.pt", models / "gran-ppdb" / "seed1" / "model.pt")
    with pytest.raises(PipelineError, match=r"gran-ppdb/seed1/model.pt: holds what its stage wrote as "
                                            r"data/models/avg-ppdb/seed1/model.pt"):
        load_model(models / "gran-ppdb" / "seed1" / "model.pt")
