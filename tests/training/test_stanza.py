"""Stanza models trained offline: the training rule on a tiny treebank slice, loading, parsing, errors."""

from __future__ import annotations

import gzip
import json
import os
import shutil

import pytest
import torch

from paraphrastic.errors import PipelineError
from paraphrastic.provenance import check_result, read_result
from paraphrastic.training import stanza as stanza_models

TINY = {"pretrained": None, "download": False, "train_sentences": 40, "dev_sentences": 12, "tagger_steps": 2,
        "parser_steps": 2, "eval_interval": 2, "tagger_batch_size": 50, "parser_batch_size": 500, "threads": 2}


def test_conllu_blocks_from_plain_and_gzip_files(tmp_path):
    text = "# sent_id = 1\n1\tHi\thi\tINTJ\tUH\t_\t0\troot\t_\t_\n\n1\tOk\tok\tINTJ\tUH\t_\t0\troot\t_\t_\n"
    (tmp_path / "a.conllu").write_text(text)
    with gzip.open(tmp_path / "a.conllu.gz", "wt") as handle:
        handle.write(text)
    for name in ("a.conllu", "a.conllu.gz"):
        blocks = stanza_models.conllu_sentences(tmp_path / name)
        assert len(blocks) == 2 and blocks[0].startswith("# sent_id = 1")
    assert len(stanza_models.conllu_sentences(tmp_path / "a.conllu", 1)) == 1
    (tmp_path / "empty.conllu").write_text("\n\n")
    with pytest.raises(PipelineError, match="empty.conllu: no sentences"):
        stanza_models.conllu_sentences(tmp_path / "empty.conllu")


def test_a_folder_that_is_not_stanza_resources_is_refused(tmp_path, mirror):
    settings = dict(TINY, pretrained=str(tmp_path / "nothing-here"))
    with pytest.raises(PipelineError, match="not a stanza_resources folder"):
        stanza_models.build(settings, train_file=mirror / "ud-english-ewt/en_ewt-ud-train.conllu.gz",
                            dev_file=mirror / "ud-english-ewt/en_ewt-ud-dev.conllu", out_dir=tmp_path / "out")


def test_the_learning_curve_takes_each_evaluation_with_the_scorer_table_before_it():
    lines = ["2026-11-24 21:00:00 INFO: Training tagger...",
             "2026-11-24 21:03:00 INFO: Evaluating on dev set...",
             "2026-11-24 21:03:10 INFO: UPOS\tXPOS\tUFeats\tAllTags",
             "2026-11-24 21:03:10 INFO: 90.12\t88.50\t91.00\t84.25",
             "2026-11-24 21:03:10 INFO: step 100: train_loss = 1.234567, dev_score = 0.8425",
             "2026-11-24 21:06:00 INFO: step 200: train_loss = nan, dev_score = 0.8500",  # no table this time
             "2026-11-24 21:09:00 INFO: LAS\tMLAS\tBLEX",
             "2026-11-24 21:09:00 INFO: 70.00\t60.00",  # a row that does not fit the names is not taken
             "2026-11-24 21:09:00 INFO: step 300: train_loss = 0.5, dev_score = 0.7000"]
    curve = stanza_models.LearningCurve()
    for seconds, line in enumerate(lines):
        curve.feed(line + "\n", 10.0 * seconds)
    assert curve.points == [
        {"step": 100, "seconds": 40.0, "dev_score": 84.25, "upos": 90.12, "xpos": 88.5, "ufeats": 91.0,
         "alltags": 84.25},
        {"step": 200, "seconds": 50.0, "dev_score": 85.0},
        {"step": 300, "seconds": 80.0, "dev_score": 70.0}]


@pytest.mark.integration
def test_training_rule_on_a_tiny_treebank_slice_gives_a_loadable_pipeline(tmp_path, mirror):
    summary = stanza_models.build(TINY, train_file=mirror / "ud-english-ewt/en_ewt-ud-train.conllu.gz",
                                  dev_file=mirror / "ud-english-ewt/en_ewt-ud-dev.conllu", out_dir=tmp_path / "stanza",
                                  threads=2)
    resources = tmp_path / "stanza" / "resources"
    assert json.loads((resources / "resources.json").read_text())["en"]["default_processors"]["depparse"] == \
        stanza_models.PACKAGE
    assert {p.parent.name for p in resources.glob("en/*/*.pt")} == {"pos", "lemma", "depparse"}
    assert (resources / "training-logs" / "parser.log").is_file()
    scores = read_result(tmp_path / "stanza" / "scores.json")
    assert scores == summary and scores["train_sentences"] == 40 and scores["budget"]["parser_steps"] == 2
    assert scores["dev"]["sentences"] == 12 and 0 <= scores["dev"]["las"] <= scores["dev"]["uas"] <= 100
    # the learning curves: Stanza's dev score at each evaluation (every 2 steps), with the time it was reached
    for model in ("tagger", "parser"):
        (point,) = scores["curves"][model]
        assert point["step"] == 2 and 0 <= point["dev_score"] <= 100 and point["seconds"] > 0
    assert {"upos", "xpos", "alltags"} <= set(scores["curves"]["tagger"][0])  # the scorer's table, too
    assert scores["curves"]["tagger"][0]["alltags"] == pytest.approx(scores["curves"]["tagger"][0]["dev_score"], 0.01)
    assert "las" in scores["curves"]["parser"][0]
    assert scores["word_vectors"] is None and not (resources / "en" / "pretrain").exists()
    assert not (tmp_path / "stanza" / "work").exists()
    # the assembled folder loads offline and parses pre-tokenized input, one row per given word
    pipeline = stanza_models.load_pipeline(resources)
    frame = stanza_models.parse(pipeline, [["The", "dog", "barked", "."], ["New", "York", "is", "big", "."]],
                                batch_size=1, progress=False)
    assert list(frame["sentence"]) == [0] * 4 + [1] * 5
    assert list(frame["word"]) == ["The", "dog", "barked", ".", "New", "York", "is", "big", "."]
    assert frame["head"].between(0, 5).all() and (frame["deprel"] != "").all()
    # Stanza's files carry no record: the scores' record holds the sha256 of each (loading them changed none)
    recorded = json.loads((tmp_path / "stanza" / "scores.json").read_text())["record"]["files"]
    assert set(recorded) == {p.relative_to(tmp_path / "stanza").as_posix() for p in resources.rglob("*") if p.is_file()}
    check_result(tmp_path / "stanza" / "scores.json")
    tagger = next(resources.glob("en/pos/*.pt"))
    tagger.write_bytes(tagger.read_bytes()[:-1])
    with pytest.raises(PipelineError, match=r"pos/.*\.pt: differs from what stanza_models wrote beside"):
        check_result(tmp_path / "stanza" / "scores.json")


def test_the_first_word_vectors_of_a_file_keep_its_header(tmp_path):
    source = tmp_path / "vectors.txt"
    source.write_text("4 2\nthe 0.1 0.2\nof 0.3 0.4\nand 0.5 0.6\nto 0.7 0.8\n")
    assert stanza_models.first_word_vectors(source, 2, tmp_path / "a.txt").read_text() == \
        "4 2\nthe 0.1 0.2\nof 0.3 0.4\n"
    source.write_text("the 0.1 0.2\nof 0.3 0.4\n")  # GloVe's files have no header
    assert stanza_models.first_word_vectors(source, 1, tmp_path / "b.txt").read_text() == "the 0.1 0.2\n"
    assert stanza_models.first_word_vectors(source, 5, tmp_path / "c.txt").read_text() == source.read_text()


def test_a_failing_stanza_command_names_its_log_and_the_next_ones_do_not_run(tmp_path):
    """The trainers of a group share one process: a failure names the trainer that failed, with the last lines of its
    log, and the group's next ones do not run."""
    commands = [stanza_models.Trainer(
                    "stanza.models.lemmatizer", ["--mode", "train", "--dict_only", "--train_file",
                                                 str(tmp_path / "none"), "--eval_file", str(tmp_path / "none"),
                                                 "--shorthand", "en_ewt"], tmp_path / "lemmatizer.log",
                    done=tmp_path / "lemmatizer.json"),
                stanza_models.Trainer("stanza.models.parser", ["--help"], tmp_path / "parser.log")]
    with pytest.raises(PipelineError, match=r"python -m stanza.models.lemmatizer failed .*lemmatizer.log"):
        stanza_models.run_stanza([commands], threads=1)
    assert not (tmp_path / "lemmatizer.json").exists()  # not done: a rerun trains it
    assert (tmp_path / "lemmatizer.log").read_text().startswith("$ python -m stanza.models.lemmatizer --mode train")
    assert not (tmp_path / "parser.log").exists()


def test_trainers_that_fail_before_the_first_starts_say_so(tmp_path, monkeypatch):
    monkeypatch.setattr(stanza_models.sys, "executable", "/bin/false")  # exits 1 before any trainer
    with pytest.raises(PipelineError, match=r"failed before the first one started \(exit 1\)"):
        stanza_models.run_stanza([[stanza_models.Trainer("stanza.models.parser", ["--help"], tmp_path / "parser.log")]],
                                 threads=1)


@pytest.mark.integration
def test_models_trained_with_a_transformer_and_word_vectors_carry_both_and_load_without_the_originals(tmp_path, mirror,
                                                                                             monkeypatch):
    from paraphrastic.data.transformer_folders import MINILM, minilm_folder

    # a copy of MiniLM under a path with 'bart' in it: Stanza reads a name with 'bart' as a BART model, so only
    # the folder's own name may reach it; the copy is deleted before loading, as on another machine
    original = tmp_path / "home" / "bartholomew" / "minilm"
    shutil.copytree(minilm_folder(), original)
    (original / "onnx").mkdir()  # another framework's weights: not copied
    # and from word vectors: the first 3,000 GloVe words (the format, not the coverage, is tested), of which the
    # models keep 2,000 (`pretrain_max_vocab`)
    vectors = tmp_path / "vectors.txt.gz"
    with gzip.open(mirror / "embeddings/glove.6B.50d.txt.gz", "rt", encoding="utf-8") as source, \
            gzip.open(vectors, "wt", encoding="utf-8") as out:
        for _, line in zip(range(3000), source, strict=False):
            out.write(line)
    summary = stanza_models.build({**TINY, "transformer": MINILM, "pretrain_max_vocab": 2000},
                                  train_file=mirror / "ud-english-ewt/en_ewt-ud-train.conllu.gz",
                                  dev_file=mirror / "ud-english-ewt/en_ewt-ud-dev.conllu", out_dir=tmp_path / "stanza",
                                  threads=2, transformer=original, word_vectors=vectors)
    assert summary["transformer"] == MINILM and summary["word_vectors"] == "vectors.txt.gz"
    assert summary["budget"]["pretrain_max_vocab"] == 2000
    resources = tmp_path / "stanza" / "resources"
    pretrain = resources / "en/pretrain" / f"{stanza_models.PACKAGE}.pt"
    assert torch.load(pretrain, weights_only=True)["emb"].shape == (2000, 50)  # Stanza's 4 special words among them
    assert "--wordvec_file" in (resources / "training-logs" / "parser.log").read_text()
    for log in ("tagger.log", "parser.log"):
        assert "--bert_model minilm " in (resources / "training-logs" / log).read_text()
    for model in ("pos", "depparse"):  # the name the models carry
        assert torch.load(resources / "en" / model / f"{stanza_models.PACKAGE}.pt",
                          weights_only=False)["config"]["bert_model"] == "minilm"
    record = json.loads((resources / stanza_models.TRANSFORMER).read_text())
    assert record == {"name": "minilm", "folder": "en/transformer/minilm"}
    assert (resources / record["folder"] / "model.safetensors").is_file()
    assert not (resources / record["folder"] / "onnx").exists()
    shutil.rmtree(tmp_path / "home")
    vectors.unlink()
    moved = tmp_path / "moved"
    resources.rename(moved)
    monkeypatch.chdir(tmp_path)
    pipeline = stanza_models.load_pipeline(moved)
    frame = stanza_models.parse(pipeline, [["The", "dog", "barked", "."]], progress=False)
    assert list(frame["word"]) == ["The", "dog", "barked", "."] and (frame["deprel"] != "").all()
    shutil.rmtree(moved / record["folder"])  # a partial copy of the folder: said so
    with pytest.raises(PipelineError, match="transformer copy .* is missing or incomplete"):
        stanza_models.load_pipeline(moved)
    (moved / stanza_models.TRANSFORMER).unlink()  # without the record Stanza looks for "minilm" on disk
    with pytest.raises(PipelineError, match="cannot load Stanza models"):
        stanza_models.load_pipeline(moved)


def _stopped_at(monkeypatch, cls, step: int):
    """``cls.update`` raises KeyboardInterrupt (Ctrl-C; SIGTERM's default is no kinder) when asked for ``step``."""
    update, calls = cls.update, []

    def counted(self, *args, **kwargs):
        calls.append(1)
        if len(calls) == step:
            raise KeyboardInterrupt
        return update(self, *args, **kwargs)
    monkeypatch.setattr(cls, "update", counted)
    return calls


@pytest.fixture
def stanza_work(tmp_path, mirror):
    """The tiny treebank slice, and the trainers as train_models runs them (7 steps, a dev evaluation and so a
    checkpoint every 2), in a folder of the test's."""
    def trainers(name: str):
        work = tmp_path / name
        (work / "logs").mkdir(parents=True)
        train = stanza_models.write_conllu(stanza_models.conllu_sentences(
            mirror / "ud-english-ewt/en_ewt-ud-train.conllu.gz", 40), work / "train.conllu")
        dev = stanza_models.write_conllu(stanza_models.conllu_sentences(
            mirror / "ud-english-ewt/en_ewt-ud-dev.conllu", 12), work / "dev.conllu")
        budget = {**TINY, "tagger_steps": 7, "parser_steps": 7, "tagger_batch_size": 10, "parser_batch_size": 150}
        return stanza_models.stanza_trainers(train, dev, work, budget, ["--no_pretrain"])
    return trainers


def _weights(path) -> dict:
    return torch.load(path, map_location="cpu", weights_only=True)["model"]


@pytest.mark.parametrize("which", ["tagger", "parser"])
def test_a_stanza_trainer_stopped_mid_way_resumes_to_the_uninterrupted_model(stanza_work, monkeypatch, which):
    """Stopped at step 5, the trainer resumes from its checkpoint of step 4 (the data's order within the pass, the
    random generators, the optimiser) and ends with the model, and the last checkpoint, of a run never stopped."""
    from stanza.models.depparse.trainer import GraphTrainer
    from stanza.models.pos.trainer import Trainer as TaggerTrainer

    from paraphrastic.training import stanza_trainers

    index = {"tagger": 0, "parser": 2}[which]
    train = {"tagger": stanza_trainers.train_tagger, "parser": stanza_trainers.train_parser}[which]
    whole = stanza_work("whole")[index]
    train(whole.args, whole.resume)
    stopped = stanza_work("stopped")[index]
    with monkeypatch.context() as patched:
        _stopped_at(patched, TaggerTrainer if which == "tagger" else GraphTrainer, 5)
        with pytest.raises(KeyboardInterrupt):
            train(stopped.args, stopped.resume)
    kept = torch.load(stopped.resume / stanza_trainers.CHECKPOINT, map_location="cpu", weights_only=True)
    assert (kept["state"]["global_step"] if which == "tagger" else kept["global_step"]) == 4
    calls = _stopped_at(monkeypatch, TaggerTrainer if which == "tagger" else GraphTrainer, 99)
    train(stopped.args, stopped.resume)
    assert len(calls) == 3  # steps 5 to 7 only
    for name in ("model.pt", stanza_trainers.CHECKPOINT):
        ours, theirs = _weights(stopped.resume / name), _weights(whole.resume / name)
        assert ours.keys() == theirs.keys() and all(torch.equal(ours[k], theirs[k]) for k in ours), name


def test_the_learning_curve_keeps_the_points_before_a_stop_and_replaces_those_evaluated_again():
    curve = stanza_models.LearningCurve()
    curve.points = [{"step": 2, "seconds": 10.0, "dev_score": 50.0}, {"step": 4, "seconds": 20.0, "dev_score": 60.0}]
    assert curve.feed("step 4: train_loss = 1.0, dev_score = 0.6100", 25.0)  # after the checkpoint of step 2
    assert curve.points == [{"step": 2, "seconds": 10.0, "dev_score": 50.0},
                            {"step": 4, "seconds": 25.0, "dev_score": 61.0}]


def test_groups_run_side_by_side_a_failure_stops_the_others_and_done_trainers_are_not_run_again(tmp_path,
                                                                                                 monkeypatch):
    """The tagger's group beside the parser's: one failing stops the other (which resumes later); a trainer with its
    `done` record is skipped, its curve read from the record."""
    import time

    (tmp_path / "slow_trainer.py").write_text("import time\n\ndef main(args):\n    print('step 1', flush=True)\n"
                                              "    time.sleep(120)\n")
    monkeypatch.setenv("PYTHONPATH", f"{tmp_path}:{os.environ.get('PYTHONPATH', '')}")
    slow = stanza_models.Trainer("slow_trainer", [], tmp_path / "slow.log")
    failing = stanza_models.Trainer("stanza.models.parser", ["--no-such-option"], tmp_path / "parser.log")
    started = time.time()
    with pytest.raises(PipelineError, match=r"python -m stanza.models.parser failed .*parser.log"):
        stanza_models.run_stanza([[slow], [failing]], threads=2)
    assert time.time() - started < 60 and "step 1" in (tmp_path / "slow.log").read_text()
    done = tmp_path / "done.json"
    done.write_text(json.dumps({"curve": [{"step": 2, "seconds": 1.0, "dev_score": 50.0}]}))
    skipped = stanza_models.Trainer("stanza.models.parser", ["--no-such-option"], tmp_path / "skipped.log", done=done)
    assert stanza_models.run_stanza([[skipped]], threads=2) == {
        "stanza.models.parser": [{"step": 2, "seconds": 1.0, "dev_score": 50.0}]}
    assert not (tmp_path / "skipped.log").exists()
