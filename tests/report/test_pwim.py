"""The PWIM section: He & Lin's Tables 3, 5, 8 and 9 with ours, and our GRAN beside PWIM."""

from paraphrastic.evaluation.selection import Selection, SupervisedSelection
from paraphrastic.report.document import Document
from paraphrastic.report.pwim import pwim_section
from tests.report.conftest import table_after, texts


def test_tables_on_the_papers_scale(results, paper_tables):
    config, folder = results
    doc = Document()
    metrics = pwim_section(doc, config, folder, Selection(config, folder), SupervisedSelection(config, folder))
    sick = table_after(doc, "Table 3: SICK").set_index("model")
    assert (sick.loc["PWIM (ours)", "r"], sick.loc["PWIM (ours)", "MSE"]) == ("0.6000", "0.4000")
    gran = next(m for m in sick.index if m.startswith("GRAN supervised"))
    assert gran == "GRAN supervised (ours, s-gran)" and sick.loc[gran, "r"] == "0.7210"
    sts2014 = table_after(doc, "Table 5: STS 2014").set_index("set")
    assert sts2014.loc["images", "PWIM (ours)"] == "0.6100"
    assert sts2014.loc["images", "GRAN transfer (ours)"] == "0.4210"  # gran-simpwiki at epoch 2: 43.1 - 1
    ablations = table_after(doc, "Table 8: ablations").set_index("configuration")
    assert ablations.loc["Remove context modeling (Sec. 4)", "ours"] == "-0.1000 (pwim-no-context)"
    assert ablations.loc["Remove entire focus layer (Sec. 6)", "ours"] == "not run"
    assert "Ablation pwim-no-context: -0.1000 Pearson on SICK test." in texts(doc)
    assert metrics == {"sick": {"pearson": 60.0, "spearman": 58.0, "mse": 0.4},
                       "sts2014": {"weighted_mean_pearson": 61.0}, "ablations": {"pwim-no-context": 50.0}}
