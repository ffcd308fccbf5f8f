"""The PWIM section: He & Lin's Tables 3, 5, 8 and 9 with ours, and our GRAN beside PWIM."""

from paraphrastic.evaluation.selection import Selection, SupervisedSelection
from paraphrastic.report.document import Document
from paraphrastic.report.pwim import pwim_section
from tests.report.conftest import table_after, texts


def test_tables_times_100_like_the_rest_of_the_report(results, paper_tables):
    config, folder = results
    doc = Document()
    metrics = pwim_section(doc, config, folder, Selection(config, folder), SupervisedSelection(config, folder))
    sick = table_after(doc, "Table 3: SICK").set_index("model")
    assert (sick.loc["PWIM (ours)", "r"], sick.loc["PWIM (ours)", "MSE"]) == ("60.00", "0.4000")  # MSE: gold scale
    gran = next(m for m in sick.index if m.startswith("GRAN supervised"))
    assert gran == "GRAN supervised (ours, s-gran)" and sick.loc[gran, "r"] == "72.10"
    sts2014 = table_after(doc, "Table 5: STS 2014").set_index("set")
    assert sts2014.loc["images", "PWIM (ours)"] == "61.00"
    assert sts2014.loc["images", "GRAN transfer (ours)"] == "42.10"  # gran-simpwiki at epoch 2: 43.1 - 1
    ablations = table_after(doc, "Table 8: ablations").set_index("configuration")
    assert ablations.loc["Remove context modeling (Sec. 4)", "ours"] == "-10.00 (pwim-no-context)"
    assert ablations.loc["Remove entire focus layer (Sec. 6)", "ours"] == "not run"
    # the paper's 0-1 values, × 100 with all their digits
    paper = table_after(doc, "Table 3: SICK").set_index("model")
    assert all(v == "–" or (len(v.split(".")[1]) == 2 and 1 < abs(float(v)) <= 100) for v in paper["r"])
    assert "Ablation pwim-no-context: -10.00 Pearson's r × 100 on SICK test." in texts(doc)
    assert metrics == {"sick": {"pearson": 60.0, "spearman": 58.0, "mse": 0.4},
                       "sts2014": {"weighted_mean_pearson": 61.0}, "ablations": {"pwim-no-context": 50.0}}
