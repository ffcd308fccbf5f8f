"""The error analysis section (Table 7)."""

from paraphrastic.report.document import Document
from paraphrastic.report.error_analysis import error_section
from tests.report.conftest import table_after, texts


def test_categories_accuracy_and_examples(results, paper_tables):
    config, folder = results
    doc = Document()
    error_section(doc, config, folder)
    categories = table_after(doc, "Table 7")
    assert categories["pairs"].tolist() == [10, 20] and categories["share %"].tolist() == [10.0, 20.0]
    assert categories["length ratio %"].isna().all()  # an empty measure is left blank, not zero
    said = texts(doc)
    assert "30 pairs of the 2 STS 2012-2015 sets" in said and "avg Pearson 50.0" in said
    assert "the two models correlate at 90.0" in said
    tables = [value[0] for kind, value in doc.blocks if kind == "table"]
    examples = tables[1]
    assert examples.columns.tolist() == ["category", "s1", "s2", "lstmavg", "avg", "gold"]
    assert examples["gold"].tolist() == ["4.50", "0.50"]
    assert len(tables) == 3  # and the paper's own Table 7
