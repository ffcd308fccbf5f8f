"""The comparison with all-MiniLM-L6-v2: accuracy and speed beside Table 4's models."""

import json

import pandas as pd
import pytest

from paraphrastic.evaluation.mteb_sts import published
from paraphrastic.pipeline.graph import PUBLISHED_MTEB_STS
from paraphrastic.provenance import read_result, write_result
from paraphrastic.report.build import build_report
from paraphrastic.report.compare_encoders import _mteb_section, accuracy_speed_plot, reference_section
from paraphrastic.report.document import Document
from tests.report.conftest import DISTILLED_BASELINE, REPO, table_after, texts


def test_minilm_beside_our_models_and_the_untrained_vectors_with_the_accuracy_speed_plot(results, tmp_path):
    config, folder = results
    doc = Document()
    metrics = reference_section(doc, folder, tmp_path)
    table = table_after(doc, "What a user would pick instead").set_index("model")
    # the tiny config's two transfer sets: the columns say so (a whole config's say 22)
    assert table.loc["all-MiniLM-L6-v2", "2-set r"] == 75.0 and table.loc["all-MiniLM-L6-v2", "speed vs MiniLM"] == 1
    assert table.loc["gran (ours, gran-simpwiki)", "speed vs MiniLM"] == 50.0
    untrained = table.loc["initial vectors, averaged (distilled)"]
    assert (untrained["2-set r"], untrained["sentences/s"], untrained["sentences/s from tokens"]) == \
        (DISTILLED_BASELINE, 15000.0, 60000.0)
    # the untrained vectors are no trained model: the bullets compare the trained ones only
    assert "is 25.0 points below MiniLM on the 2-set mean" in texts(doc) and "50.0× to 50.0×" in texts(doc)
    assert "ours the fastest of 5 passes" in texts(doc)  # how the speeds were timed, as the comparison records it
    assert metrics["all-MiniLM-L6-v2"] == {"transfer_pearson": 75.0, "sentences_per_second": 100.0}
    assert set(metrics) == {"all-MiniLM-L6-v2", "lstmavg", "avg", "gran", "initial vectors (pretrained)",
                            "initial vectors (distilled)"}
    assert (tmp_path / "accuracy_speed.png").stat().st_size > 1000
    assert any(kind == "img" for kind, _ in doc.blocks)
    per_set = table_after(doc, "Per set").set_index("set")
    assert per_set.loc["sts12.MSRvid", "all-MiniLM-L6-v2"] == 76.0


def test_the_accuracy_speed_plot_has_a_log_speed_axis_labels_and_a_legend(tmp_path):
    frame = pd.DataFrame({"model": ["all-MiniLM-L6-v2", "avg (ours, r)", "avg, distilled (ours, r-distilled)"],
                          "22-set r": [75.0, 45.0, 68.0], "sentences/s": [100.0, 8000.0, 7000.0]})
    fig = accuracy_speed_plot(frame, tmp_path / "plot.png", threads=1)
    ax = fig.axes[0]
    assert ax.get_xscale() == "log" and "raw text" in ax.get_xlabel() and "× 100" in ax.get_ylabel()
    assert sorted(t.get_text() for t in ax.get_legend().get_texts()) == [
        "all-MiniLM-L6-v2 (sentence-transformers)", "distilled vectors", "pretrained vectors"]


def test_without_the_comparison_the_section_says_which_stage_to_run(results):
    _, folder = results
    (folder / "results/encoders.json").unlink()
    doc = Document()
    assert reference_section(doc, folder) == {}
    assert "run the `compare_encoders` stage" in texts(doc)


def test_mteb_scores_stand_beside_the_published_ones_in_a_table_and_a_second_panel(results, tmp_path):
    """Where the profile evaluates on whole years, every encoder has MTEB's STS scores: a table beside the published
    models', a column of the summary, metrics.json, and the plot's second panel with the published means as lines."""
    config, folder = results
    path = folder / "results/encoders.json"
    found = read_result(path)
    tasks = ["STS12", "STS13", "STS14", "STS15", "STS16"]
    found["reference"]["mteb"] = {task: {"spearman": 80.0, "pearson": 81.0} for task in tasks}
    found["ours"]["avg"]["mteb"] = {task: {"spearman": 60.0 + i, "pearson": 61.0} for i, task in enumerate(tasks)}
    cited = published(REPO / PUBLISHED_MTEB_STS)
    found["published"] = cited
    write_result(path, found, stage="compare_encoders")
    doc = Document()
    metrics = reference_section(doc, folder, tmp_path)
    summary = table_after(doc, "What a user would pick instead").set_index("model")
    assert summary.loc["avg (ours, avg-simpwiki_matched)", "MTEB STS ρ"] == 62.0
    assert pd.isna(summary.loc["gran (ours, gran-simpwiki)", "MTEB STS ρ"])
    mteb = table_after(doc, "On MTEB's STS protocol").set_index("encoder")
    assert mteb.loc["avg (ours, avg-simpwiki_matched)", "STS16"] == 64.0
    assert mteb.loc["minishlab/potion-base-8M", "how"] == "published"
    assert mteb.loc["minishlab/potion-base-8M", "mean"] == pytest.approx(
        sum(s["spearman"] for s in cited["minishlab/potion-base-8M"].values()) / 5, abs=0.01)
    assert pd.isna(mteb.loc["minishlab/potion-base-32M", "STS16"])  # none published
    assert metrics["avg"]["mteb_sts_spearman"] == 62.0 and "mteb_sts_spearman" not in metrics["gran"]
    build_report(config, data_dir=folder, out_dir=tmp_path / "report")  # a score, so metrics.json keeps it
    kept = json.loads((tmp_path / "report" / "metrics.json").read_text())["reference_encoder"]
    assert kept["avg"] == {"transfer_pearson": metrics["avg"]["transfer_pearson"], "mteb_sts_spearman": 62.0}
    # the lines of the plot: every published five-task mean but MiniLM's, which is measured here
    lines = _mteb_section(Document(), {"all-MiniLM-L6-v2": found["reference"]}, cited)
    assert set(lines) == {"minishlab/potion-base-8M", "sentence-transformers/static-similarity-mrl-multilingual-v1",
                          "sentence-transformers/static-retrieval-mrl-en-v1"}
    # the panel: our encoders with all five tasks as points, each published five-task mean as a labelled line
    # (MiniLM's is measured here, so not a line; potion-base-32M has no STS16, so no five-task mean)
    fig = accuracy_speed_plot(summary.reset_index(), tmp_path / "plot.png", threads=1,
                              published={"minishlab/potion-base-8M": 73.5})
    assert len(fig.axes) == 2 and "MTEB" in fig.axes[1].get_ylabel()
    assert [t.get_text() for t in fig.axes[1].texts if "published" in t.get_text()] == [
        "potion-base-8M: 73.5 (published; no speed given)"]
    # every point's label, each apart from the others once adjustText has moved them
    for ax in fig.axes:
        boxes = [t.get_window_extent() for t in ax.texts if "published" not in t.get_text()]
        assert boxes and not [(a, b) for i, a in enumerate(boxes) for b in boxes[i + 1:] if a.overlaps(b)]
    assert "MTEB" in [block for kind, block in doc.blocks if kind == "img"][0][1]
