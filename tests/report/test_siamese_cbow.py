"""The Siamese CBOW section: per-set scores of every run, its starting vectors and word2vec; the timing."""

from paraphrastic.report.document import Document
from paraphrastic.report.siamese_cbow import siamese_section
from tests.report.conftest import table_after, texts


def test_per_set_scores_training_timing_and_findings(results, paper_tables):
    config, folder = results
    doc = Document()
    metrics = siamese_section(doc, config, folder)
    per_set = table_after(doc, "Per-set Pearson").set_index("set")
    assert per_set.loc["2012 MSRvid", "GloVe (starting vectors)"] == "31.0 (30.5)"
    assert per_set.loc["2012 MSRvid", "Siamese CBOW, GloVe init (scbow-pretrained)"] == "41.0 (40.5)"
    assert per_set.loc["2012 MSRvid", "Siamese CBOW, random init (scbow-random)"] == "42.0 (41.5)"
    assert per_set.loc["mean of 2", "word2vec CBOW"] == "30.0 (29.5)"
    training = table_after(doc, "Training").set_index("run")
    assert training.loc["scbow-pretrained", "r, best epoch"] == "40.0"
    assert training.loc["scbow-random", "best epoch"] == 2
    timing = table_after(doc, "Time to embed")
    assert any(m.endswith("(paper)") for m in timing["method"]) and "Siamese CBOW, scbow-random (ours)" in \
        timing["method"].tolist()
    said = texts(doc)
    assert "scbow-pretrained (pretrained init) raises the mean Pearson from 30.0 to 40.0 (+10.0)." in said
    assert "scbow-pretrained, scbow-random score(s) above it" in said
    assert metrics["runs"]["scbow-random"] == {"initial": 30.0, "final": 41.0, "final_spearman": 40.5}
    assert metrics["word2vec"]["cbow"] == {"final": 35.0, "final_spearman": 34.5}
