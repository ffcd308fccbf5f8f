"""static_model: the sentence-distilled vectors as a static export with a model card written from the run's files,
loaded by model2vec and sentence-transformers with no code of ours, readable as the umask allows."""

from __future__ import annotations

import os
import shutil
import stat
from pathlib import Path

import numpy as np
import pytest

from paraphrastic.configuration import params as config
from paraphrastic.data.vocab import SPECIAL, WORDPIECES, Vocabulary, save_matrix
from paraphrastic.evaluation.mteb_sts import MTEB_TASKS
from paraphrastic.export import STATIC_FILES
from paraphrastic.pipeline.graph import PUBLISHED_MTEB_STS, STATIC_MODEL_FILES
from paraphrastic.pipeline.steps import static_model
from paraphrastic.provenance import write_result

REPO = Path(__file__).resolve().parents[2]


def scores(r: float, mteb: bool) -> dict:
    """compare_encoders' entry of one encoder: a whole config's (22 transfer sets, MTEB's tasks), or a smaller's."""
    summary = {"transfer_pearson": r, "selection_pearson": r + 3, "transfer_sets": 22 if mteb else 2}
    return {"summary": summary, "sentences_per_second": 200 * r,
            "mteb": {task: {"spearman": r + i, "pearson": r} for i, task in enumerate(MTEB_TASKS)} if mteb else {}}


def run_files(root: Path, *, mteb: bool) -> dict:
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
    distilled.mkdir()
    write_result(distilled / "coverage.json", {"words": len(vocab), "pieces": 1, "subwords": True}, stage="distill")
    encoders = root / "encoders.json"
    write_result(encoders, {"threads": 1, "reference": scores(75.0, mteb),
                            "untrained": {"sentence_distilled": scores(70.0, mteb)}}, stage="compare_encoders")
    return {"vectors": vectors, "distilled": distilled, "encoders": encoders,
            "published_scores": REPO / PUBLISHED_MTEB_STS}


@pytest.mark.parametrize("mteb", [True, False])
def test_the_static_model_loads_in_both_libraries_and_its_card_gives_the_runs_numbers(tmp_path, mteb):
    from model2vec import StaticModel
    from sentence_transformers import SentenceTransformer

    files = run_files(tmp_path, mteb=mteb)
    out = tmp_path / "static_model"
    before = os.umask(0o022)
    try:
        static_model.run(config.load(REPO / "params.yaml"), **{k: str(v) for k, v in files.items()}, out_dir=str(out))
    finally:
        os.umask(before)
    assert {p.name for p in out.iterdir()} == set(STATIC_MODEL_FILES) == STATIC_FILES
    assert stat.S_IMODE(out.stat().st_mode) == 0o755
    assert {stat.S_IMODE(p.stat().st_mode) for p in out.iterdir()} == {0o644}
    sentences = ["A man is playing guitars.", "a man ."]
    st, m2v = SentenceTransformer(str(out), device="cpu"), StaticModel.from_pretrained(str(out))
    assert st.encode(sentences).shape == m2v.encode(sentences).shape == (2, 6)
    card = (out / "README.md").read_text()
    assert card.startswith("---\nlibrary_name: model2vec") and "license: cc-by-sa-4.0" in card
    assert "| this model | " + ("72.0" if mteb else "–") + " | 70.0 | 14,000 | measured in this run |" in card
    assert "| minishlab/potion-base-8M | 73.5 | – | – | published |" in card  # the published rows, from the CSV
    assert "6 words and 1 of the teacher's WordPiece pieces, each a\n6-dimensional vector" in card
    made = card.split("## How it was made")[1].split("3.")[0]
    assert "   - 500 texts: SimpWiki" in card and "treebank" not in made  # a source with no text is not listed
    assert "potion-base-32M" not in card  # not all five tasks published
    assert "cosine loss to the teacher's embeddings as they are; the linear map dropped; whitened" in card
    assert ("MTEB's pooled tasks were not scored" in card) is not mteb
    sets = 22 if mteb else 2  # the column says over how many sets its mean is, as the sentence above it
    assert f"| encoder | MTEB STS12–16 (ρ) | {sets} sets (r) |" in card
    assert ("(Pearson's r × 100 per source,\nthe mean over the 22 SemEval transfer sets)" if mteb else
            "the mean over the 2 of its 22 SemEval transfer sets this run evaluated, a smaller config") in card
    assert "nan" not in card


def test_a_missing_comparison_names_its_file(tmp_path):
    files = run_files(tmp_path, mteb=False)
    shutil.copy(files["encoders"], tmp_path / "kept.json")
    files["encoders"].write_text("{")
    with pytest.raises(Exception, match="encoders.json: not readable JSON"):
        static_model.run(config.load(REPO / "params.yaml"), **{k: str(v) for k, v in files.items()},
                         out_dir=str(tmp_path / "out"))


def test_the_card_calls_minilm_the_teacher_only_where_the_config_makes_it_one(tmp_path):
    files = run_files(tmp_path, mteb=False)
    settings = config.load(REPO / "params.yaml")
    settings["word_vectors"]["distilled"]["teacher"] = "/models/another-teacher"  # a local folder
    static_model.run(settings, **{k: str(v) for k, v in files.items()}, out_dir=str(tmp_path / "out"))
    card = (tmp_path / "out" / "README.md").read_text()
    assert "base_model:" not in card and "(the teacher)" not in card and "Apache-2.0" not in card
    assert "distilled from the teacher, /models/another-teacher" in card
    assert "| sentence-transformers/all-MiniLM-L6-v2 | – | 75.0 |" in card  # still the comparison's reference
