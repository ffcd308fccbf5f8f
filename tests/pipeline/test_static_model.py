"""static_model: the sentence-distilled vectors as a static export with a model card written from the run's files,
loaded by model2vec and sentence-transformers with no code of ours, readable as the umask allows."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import torch

from paraphrastic.configuration import params as config
from paraphrastic.data.corpus import EVAL_SCHEMA, write_table
from paraphrastic.data.static_tokenizer import TOKENIZERS, save_tokenizer
from paraphrastic.data.vocab import SPECIAL, WORDPIECES, Vocabulary, save_matrix
from paraphrastic.evaluation import compare_encoders
from paraphrastic.evaluation.mteb_sts import MTEB_TASKS
from paraphrastic.export import STATIC_FILES
from paraphrastic.pipeline.graph import PUBLISHED_MTEB_STS, STATIC_MODEL_FILES
from paraphrastic.pipeline.steps import static_model
from paraphrastic.provenance import read_result, write_result

REPO = Path(__file__).resolve().parents[2]


def scores(r: float, mteb: bool) -> dict:
    """An encoder's entry as raw_text_entry gives it: a whole config's (22 transfer sets, MTEB's tasks), or a
    smaller's."""
    summary = {"transfer_pearson": r, "selection_pearson": r + 3, "transfer_sets": 22 if mteb else 2}
    return {"summary": summary, "sentences_per_second": 200 * r,
            "mteb": {task: {"spearman": r + i, "pearson": r} for i, task in enumerate(MTEB_TASKS)} if mteb else {}}


def run_files(root: Path, *, mteb: bool, monkeypatch) -> dict:
    """The distillation's files, and the export's scores as loaded (canned: loaded_scores is tested on its own)."""
    vectors, distilled = root / "sentence_distilled", root / "distilled"
    vocab = Vocabulary([*SPECIAL, WORDPIECES, "a", "man", "is", "playing", "guitar", ".", "##s"])
    vocab.save(vectors / "vocab.txt")
    save_matrix(vectors / "embeddings.npy", np.random.default_rng(0).normal(size=(len(vocab), 6)).astype(np.float32))
    write_result(vectors / "targets.json", {"texts": 700, "sources": {
        "simpwiki": {"texts": 500}, "ppdb": {"texts": 200}, "treebank": {"texts": 0}}}, stage="teacher_targets")
    settings = {"target_dims": None, "loss": "cosine", "map": "dropped", "post_processing": "whiten", "epochs": 8,
                "batch_size": 256, "learning_rate": 1e-3, "weight_decay": 0.0, "paraphrase_weight": 0.0}
    write_result(vectors / "training.json", {"settings": settings, "selected_epoch": 6, "selection_pearson": 77.1},
                 stage="distill_sentences")
    save_tokenizer(vectors, "treebank_like", vocab.index)
    distilled.mkdir()
    write_result(distilled / "coverage.json", {"words": len(vocab), "pieces": 1, "subwords": True,
                                               "tokenizer": "treebank_like"}, stage="distill")
    write_table(pd.DataFrame([{"dataset": "sts12.MSRvid", "group": "STS 2012", "line": 1, "s1": "a man", "s2": "a man",
                               "score": 5.0, "tokens1": ["a", "man"], "tokens2": ["a", "man"]}]),
                EVAL_SCHEMA, root / "eval.parquet")
    scored = []

    def loaded(folder, frame, selection, threads, batch_size):
        scored.append(sorted(p.name for p in Path(folder).iterdir()))
        return {"model2vec": scores(70.0, mteb), "sentence_transformers": scores(69.0, mteb),
                "speed": {"sentences": 1024, "threads": threads,
                          "sentences_per_second": {"model2vec": 14000.0, "teacher": 100.0}}}
    monkeypatch.setattr(compare_encoders, "loaded_scores", loaded)
    return {"vectors": vectors, "distilled": distilled, "eval": root / "eval.parquet",
            "published_scores": REPO / PUBLISHED_MTEB_STS, "scores": root / "results" / "static_model.json"}, scored


@pytest.mark.parametrize("mteb", [True, False])
def test_the_static_model_loads_in_both_libraries_and_its_card_gives_the_runs_numbers(tmp_path, mteb, monkeypatch):
    from model2vec import StaticModel
    from sentence_transformers import SentenceTransformer

    files, scored = run_files(tmp_path, mteb=mteb, monkeypatch=monkeypatch)
    out = tmp_path / "static_model"
    before = os.umask(0o022)
    try:
        static_model.run(config.load(REPO / "params.yaml"), **{k: str(v) for k, v in files.items()}, out_dir=str(out))
    finally:
        os.umask(before)
    assert {p.name for p in out.iterdir()} == set(STATIC_MODEL_FILES) == STATIC_FILES
    assert scored == [sorted(STATIC_FILES)]  # the export itself was scored, as a user loads it
    assert read_result(files["scores"])["model2vec"]["summary"]["transfer_pearson"] == 70.0
    assert stat.S_IMODE(out.stat().st_mode) == 0o755
    assert {stat.S_IMODE(p.stat().st_mode) for p in out.iterdir()} == {0o644}
    sentences = ["A man is playing guitars.", "a man ."]
    st, m2v = SentenceTransformer(str(out), device="cpu"), StaticModel.from_pretrained(str(out))
    assert st.encode(sentences).shape == m2v.encode(sentences).shape == (2, 6)
    card = (out / "README.md").read_text()
    assert card.startswith("---\nlibrary_name: model2vec") and "license: cc-by-sa-4.0" in card
    assert ("| this model, as model2vec loads it | " + ("72.0" if mteb else "–") + " | 70.0 | 14,000 | "
            "measured in this run |") in card
    assert "| this model, as sentence-transformers loads it | " + ("71.0" if mteb else "–") + " | 69.0 | – |" in card
    assert ("| sentence-transformers/all-MiniLM-L6-v2 (the teacher) | 78.6 | – | 100 | published; speed measured in "
            "this run |") in card
    assert "(140× its speed there)" in card
    assert "| minishlab/potion-base-8M | 73.5 | – | – | published |" in card  # the published rows, from the CSV
    assert "6 words and 1 of the teacher's WordPiece pieces, each a\n6-dimensional vector" in card
    made = card.split("## How it was made")[1].split("3.")[0]
    assert "   - 500 texts: SimpWiki" in card and "treebank" not in made  # a source with no text is not listed
    assert "potion-base-32M" not in card  # not all five tasks published
    assert "\n# paraphrastic-static-minilm\n" in card

    assert "cosine loss to the teacher's embeddings as they are; the linear map dropped; whitened" in card
    assert ("MTEB's pooled tasks were not scored" in card) is not mteb
    sets = 22 if mteb else 2  # the column says over how many sets its mean is, as the sentence above it
    assert f"| encoder | MTEB STS12–16 (ρ) | {sets} sets (r) |" in card
    assert ("(Pearson's r × 100 per source, the mean over the 22 SemEval transfer sets)" if mteb else
            "the mean over the 2 of its 22 SemEval transfer sets this run evaluated, a smaller config") in card
    assert "nan" not in card


def test_the_card_calls_minilm_the_teacher_only_where_the_config_makes_it_one(tmp_path, monkeypatch):
    files, _ = run_files(tmp_path, mteb=False, monkeypatch=monkeypatch)
    settings = config.load(REPO / "params.yaml")
    settings["word_vectors"]["distilled"]["teacher"] = "/models/another-teacher"  # a local folder
    static_model.run(settings, **{k: str(v) for k, v in files.items()}, out_dir=str(tmp_path / "out"))
    card = (tmp_path / "out" / "README.md").read_text()
    assert "base_model:" not in card and "(the teacher)" not in card and "Apache-2.0" not in card
    assert "distilled from the teacher, /models/another-teacher" in card
    assert "| sentence-transformers/all-MiniLM-L6-v2 | 78.6 | – | 100 |" in card  # still timed beside it


def test_an_export_is_scored_as_model2vec_and_sentence_transformers_load_it(workspace, monkeypatch):
    """loaded_scores reads the folder with each library and scores its raw text: the numbers a user gets."""
    from model2vec import StaticModel
    from scipy.stats import pearsonr

    from paraphrastic.data.corpus import read_table
    from paraphrastic.data.vocab import load_vectors
    from paraphrastic.export import export
    from paraphrastic.models.encoders import build_model
    from paraphrastic.models.files import save_model

    vocab, matrix = load_vectors(workspace["vocab_dir"])
    model_path = workspace["root"] / "model.pt"
    save_model(model_path, build_model("avg", torch.from_numpy(matrix)), "avg", {"tags": "none"}, vocab, {})
    folder = export(model_path, workspace["root"] / "export", static=True)
    monkeypatch.setattr(compare_encoders, "SPEED_SECONDS", 0.0)
    frame = read_table(workspace["eval"])
    measured = compare_encoders.loaded_scores(folder, frame, ["sts16.headlines"], threads=1)
    loaded = StaticModel.from_pretrained(str(folder))
    rows = frame[frame["dataset"] == "sts12.MSRvid"]
    left, right = loaded.encode(list(rows["s1"])), loaded.encode(list(rows["s2"]))
    cosines = (left * right).sum(1) / np.linalg.norm(left, axis=1) / np.linalg.norm(right, axis=1)
    expected = 100 * pearsonr(cosines, rows["score"]).statistic
    assert measured["model2vec"]["per_dataset"]["sts12.MSRvid"]["pearson"] == pytest.approx(expected, abs=1e-3)
    assert measured["model2vec"]["summary"]["transfer_sets"] == 1 and measured["model2vec"]["mteb"] == {}
    assert set(measured["sentence_transformers"]["per_dataset"]) == {"sts12.MSRvid", "sts16.headlines"}
    speed = measured["speed"]
    assert speed["sentences"] == len(set(frame["s1"]) | set(frame["s2"])) and speed["threads"] == 1
    assert speed["sentences_per_second"]["model2vec"] > 0 and speed["sentences_per_second"]["teacher"] > 0


@pytest.mark.parametrize("kind", TOKENIZERS)
def test_the_pipeline_scores_the_static_vectors_as_model2vec_and_sentence_transformers_load_them(tmp_path, kind,
                                                                                                   monkeypatch):
    """The sentence-distilled folder's baseline score (the project's own reading of the sets' text, through the
    folder's tokenizer.json) is the score of its export as model2vec and sentence-transformers load it, set by set:
    contractions, possessives, hashtags, PTB quotes, pieces of unknown words and words with no piece at all."""
    from paraphrastic.pipeline.steps import baseline

    rng = np.random.default_rng(0)
    words = ["the", "a", "man", "woman", "dog", "is", "does", "do", "n't", "'s", "'", "n", "t", "s", "don", "play",
             "guitar", "fan", "nba", "#", ".", "!", ",", "(", ")", '"', "##s", "##ing", "##ar"]
    vectors, distilled = tmp_path / "sentence_distilled", tmp_path / "distilled"
    vocab = Vocabulary([*SPECIAL, WORDPIECES, *words])
    matrix = rng.normal(size=(len(vocab), 8)).astype(np.float32)
    matrix[: len(SPECIAL) + 1] = 0  # <unk> at zero, as the trainer keeps it
    vocab.save(vectors / "vocab.txt")
    save_matrix(vectors / "embeddings.npy", matrix)
    save_tokenizer(vectors, kind, vocab.index)
    fragments = ["The man doesn't play guitar.", "a woman's dog", "#nba fans (guitars)!", "\"playing\" the guitar",
                 "the dog's", "don't", "a guitarist", "zzz", "A Man Is Playing", "the fan, the dog"]
    rows = []
    for dataset, group in (("sts12.MSRvid", "STS 2012"), ("sts16.headlines", "STS 2016")):
        for line in range(1, 31):
            s1, s2 = (" ".join(rng.choice(fragments, size=rng.integers(1, 4))) for _ in range(2))
            rows.append({"dataset": dataset, "group": group, "line": line, "s1": s1, "s2": s2,
                         "score": float(rng.uniform(0, 5)), "tokens1": ["unused"], "tokens2": ["unused"]})
    write_table(pd.DataFrame(rows), EVAL_SCHEMA, tmp_path / "eval.parquet")
    write_result(vectors / "targets.json", {"texts": 700, "sources": {"simpwiki": {"texts": 700}}},
                 stage="teacher_targets")
    write_result(vectors / "training.json", {"settings": {"loss": "cosine", "epochs": 8, "batch_size": 256,
                                                          "learning_rate": 1e-3}, "selected_epoch": 6,
                                             "selection_pearson": 77.1}, stage="distill_sentences")
    write_result(distilled / "coverage.json", {"words": len(vocab), "pieces": 3, "subwords": True, "tokenizer": kind},
                 stage="distill")
    monkeypatch.setattr(compare_encoders, "SPEED_SECONDS", 0.0)
    settings = config.load(REPO / "params.yaml")
    settings["evaluation"]["selection"] = ["sts16.headlines"]
    baseline.run(settings, vocab_dir=vectors, eval=tmp_path / "eval.parquet", out=tmp_path / "baseline.json",
                 device="cpu", threads=1)
    static_model.run(settings, vectors=vectors, distilled=distilled, eval=tmp_path / "eval.parquet",
                     published_scores=REPO / PUBLISHED_MTEB_STS, out_dir=tmp_path / "static_model",
                     scores=tmp_path / "static_model.json", threads=1)
    ours, loaded = read_result(tmp_path / "baseline.json"), read_result(tmp_path / "static_model.json")
    assert ours["tokenizer"] == "tokenizer.json"
    for library in ("model2vec", "sentence_transformers"):
        for dataset in ("sts12.MSRvid", "sts16.headlines"):
            assert loaded[library]["per_dataset"][dataset]["pearson"] == pytest.approx(
                ours["datasets"][dataset]["pearson"], abs=0.01), (library, dataset)


def test_a_static_model_of_a_capped_config_is_named_for_it():
    """The tiny config's static model is not the model the README describes: its card's name says so."""
    assert static_model.model_name(config.load(REPO / "params.yaml")) == "paraphrastic-static-minilm"
    assert static_model.model_name(config.load(REPO / "params.test.yaml")) == "paraphrastic-static-minilm-tiny-config"
