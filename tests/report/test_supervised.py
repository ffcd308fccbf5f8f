"""The supervised section: Tables 5, 6 and 8, and the selection on validation behind them."""

import math

from paraphrastic.evaluation.selection import SupervisedSelection
from paraphrastic.report.document import Document
from paraphrastic.report.supervised import supervised_section
from tests.report.conftest import table_after, texts


def test_tables_report_the_validation_selected_epochs_test_scores(results):
    config, folder = results
    doc = Document()
    metrics = supervised_section(doc, config, folder, SupervisedSelection(config, folder))
    # runs by name: s-avg, s-gran-universal, s-gran, s-lstmavg; epoch 2 validates best and tests at 70 - 2
    table5 = table_after(doc, "Table 5").set_index("model")
    assert table5.loc["avg", "STS (ours)"] == "68.1" and table5.loc["avg", "SICK (ours)"] == "68.1"
    assert table5.loc["LSTMavg", "STS (ours)"] == "74.1" and table5.loc["LSTMavg", "SICK (ours)"] == "–"
    assert table5.loc["avg", "Avg. (ours)"] == 68.1 and math.isnan(table5.loc["LSTMavg", "Avg. (ours)"])
    table8 = table_after(doc, "Table 8")
    assert table8["SICK (ours)"].tolist() == ["72.1", "70.1"]
    assert "universal initialisation and regularisation does not help here (72.1 -> 70.1, -2.0)" in texts(doc)
    assert metrics["s-avg.sts"] == {"test": 68.1, "validation": 62.1} and "s-lstmavg.sick" not in metrics
    data = table_after(doc, "Supervised similarity")
    assert data["pairs (paper)"].tolist()[:3] == ["4,481", "1,207", "6,060"]
    assert "7 supervised jobs" in texts(doc)
