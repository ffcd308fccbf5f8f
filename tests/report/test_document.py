"""The document framework: blocks rendered as markdown and as self-contained HTML, and the shared helpers."""

import math

import pandas as pd

from paraphrastic.report.document import Document, format_r, format_unit, paper_rows, per_dataset_table


def test_blocks_render_as_markdown_and_escaped_html(tmp_path):
    image = tmp_path / "plot.png"
    image.write_bytes(b"\x89PNG fake")
    doc = Document()
    doc.heading("Results & more", 2)
    doc.para("a <b> c")
    doc.bullets(["one", "two"])
    doc.table(pd.DataFrame({"x": [1.25, None]}, dtype=object))
    doc.table(pd.DataFrame({"z": [float("nan"), 2.0]}))  # a NaN float: a dash too, never "nan"
    doc.table(pd.DataFrame({"y": ["0.1234"]}), formatted=True)
    doc.image(image, "the plot")
    md = doc.markdown(tmp_path)
    assert md.startswith("## Results & more\n\na <b> c\n\n- one\n- two\n\n")
    assert "1.2" in md and "–" in md  # one decimal; a missing value as a dash
    assert "nan" not in md and "| –   |" in md and "2.0" in md
    assert "0.1234" in md  # a formatted table is printed as it is
    assert "![the plot](plot.png)" in md
    page = doc.html("T")
    assert "<h2 id='results--more'>Results &amp; more</h2>" in page and "<p>a &lt;b&gt; c</p>" in page
    assert "<li>one</li>" in page and "data:image/png;base64," in page


def test_number_formats():
    assert format_r(51.25) == "51.2" and format_r(None) == "–" and format_r(math.nan) == "–"
    assert format_unit(0.86) == "0.8600" and format_unit(math.nan) == "–"


def test_paper_rows_match_every_column():
    frame = pd.DataFrame({"model": ["avg", "avg", "gran"], "regularization": ["none", "dropout", "none"],
                          "oracle": [1.0, 2.0, 3.0]})
    assert paper_rows(frame, model="avg", regularization="dropout")["oracle"] == 2.0
    assert paper_rows(frame, model="lstm") is None and paper_rows(None, model="avg") is None


def test_per_dataset_table_adds_year_averages_and_the_mean():
    results = {"a": {"datasets": {"sts12.MSRpar": {"pearson": 10.0}, "sts12.MSRvid": {"pearson": 20.0},
                                  "sick.test": {"pearson": 60.0}}}}
    paper = pd.DataFrame({"year_group": ["STS 2012", "STS 2012", "STS 2012"],
                          "dataset": ["MSRpar", "MSRvid", "STS 2012 Average"], "a": [1.0, 2.0, 1.4]})
    table = per_dataset_table(results, {"ours": "a"}, paper, {"paper": "a"})
    assert table["set"].tolist() == ["sts12.MSRpar", "sts12.MSRvid", "STS 2012 Average", "sick.test",
                                     "mean of the 3 sets"]
    assert table["ours"].tolist() == [10.0, 20.0, 15.0, 60.0, 30.0]
    assert table["paper"].tolist()[:3] == [1.0, 2.0, 1.4]  # the paper's printed average, not ours recomputed
    assert math.isnan(table["paper"].iloc[3])
