"""The comparison with all-MiniLM-L6-v2: accuracy and speed beside Table 4's models."""

from paraphrastic.report.document import Document
from paraphrastic.report.reference import reference_section
from tests.report.conftest import table_after, texts


def test_minilm_beside_our_models(results):
    config, folder = results
    doc = Document()
    metrics = reference_section(doc, folder)
    table = table_after(doc, "What a user would pick instead").set_index("model")
    assert table.loc["all-MiniLM-L6-v2", "22-set r"] == 75.0 and table.loc["all-MiniLM-L6-v2", "speed vs MiniLM"] == 1
    assert table.loc["gran (ours, gran-simpwiki)", "speed vs MiniLM"] == 50.0
    assert "is 25.0 points below MiniLM" in texts(doc) and "50.0× to 50.0×" in texts(doc)
    assert metrics["all-MiniLM-L6-v2"] == {"transfer_pearson": 75.0, "sentences_per_second": 100.0}
    assert set(metrics) == {"all-MiniLM-L6-v2", "lstmavg", "avg", "gran"}
    per_set = table_after(doc, "Per set").set_index("set")
    assert per_set.loc["sts12.MSRvid", "all-MiniLM-L6-v2"] == 76.0


def test_without_the_comparison_the_section_says_which_stage_to_run(results):
    _, folder = results
    (folder / "results/encoders.json").unlink()
    doc = Document()
    assert reference_section(doc, folder) == {}
    assert "run the `compare_encoders` stage" in texts(doc)
