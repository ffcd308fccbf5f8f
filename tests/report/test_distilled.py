"""The section beyond the paper: the rows trained again on distilled word vectors, beside the same rows on the
pretrained vectors and the paper's numbers."""


import pandas as pd

from paraphrastic.evaluation.selection import Selection
from paraphrastic.provenance import read_result, write_result
from paraphrastic.report import distilled
from paraphrastic.report.document import Document
from tests.report.conftest import BASELINE, DISTILLED_BASELINE, SENTENCE_DISTILLED_BASELINE, table_after, texts


def section(config, folder):
    doc = Document()
    baselines = {"pretrained": read_result(folder / "results/baseline.json"),
                 "distilled": read_result(folder / "results/baseline_distilled.json"),
                 "sentence_distilled": read_result(folder / "results/baseline_sentence_distilled.json")}
    metrics = distilled.distilled_section(doc, config, folder, Selection(config, folder), baselines)
    return doc, metrics


def test_each_distilled_row_stands_beside_its_pretrained_twin_and_the_papers_number(results, paper_tables):
    config, folder = results
    doc, metrics = section(config, folder)
    table = table_after(doc, distilled.HEADING).set_index("row")
    assert list(table.index) == ["initial vectors, averaged (untrained)", "avg (avg-simpwiki_matched)",
                                 "lstmavg (lstmavg-simpwiki)"]
    assert table.loc["initial vectors, averaged (untrained)", "sentence-distilled (ours)"] == \
        SENTENCE_DISTILLED_BASELINE
    # avg's sentence-distilled twin comes after the distilled ones (10th); lstmavg has none
    initial = table.loc["initial vectors, averaged (untrained)"]
    assert (initial["pretrained (ours)"], initial["distilled (ours)"]) == (BASELINE, DISTILLED_BASELINE)
    # epoch 2 (better STS 2016) of each run: 39.0 + 2 * its place + 0.1; the distilled twins come last (7th, 8th)
    avg = table.loc["avg (avg-simpwiki_matched)"]
    assert (avg["table"], avg["pretrained (ours)"], avg["distilled (ours)"]) == ("1", 41.1, 53.1)
    assert avg["sentence-distilled (ours)"] == 57.1 and pd.isna(table.loc["lstmavg (lstmavg-simpwiki)",
                                                                           "sentence-distilled (ours)"])
    paper1 = pd.read_csv(paper_tables / "wieting2017_table1.csv").set_index("training_data")
    assert avg["paper"] == paper1.loc["SimpWiki", "avg"]
    lstmavg = table.loc["lstmavg (lstmavg-simpwiki)"]  # only in Table 4: the paper's 22-set mean
    paper4 = pd.read_csv(paper_tables / "wieting2017_table4.csv")
    assert lstmavg["table"] == "4" and lstmavg["distilled (ours)"] == 55.1
    assert abs(lstmavg["paper"] - paper4[~paper4["dataset"].str.endswith("Average")]["lstmavg"].mean()) < 1e-9
    assert metrics == ({"test": DISTILLED_BASELINE, "oracle": DISTILLED_BASELINE},
                       {"test": SENTENCE_DISTILLED_BASELINE, "oracle": SENTENCE_DISTILLED_BASELINE})
    assert "2,000 words" in texts(doc) and "all-MiniLM-L6-v2" in texts(doc)
    assert "none taken from the evaluation sets; 80.0% of the evaluation sets' tokens have a vector" in texts(doc)
    assert "700 distinct unlabelled texts" in texts(doc) and "simpwiki 300, ppdb 250, treebank 150" in texts(doc)


def test_table_4s_rows_per_set_on_both_vectors(results):
    config, folder = results
    doc, _ = section(config, folder)
    table = table_after(doc, "Table 4's rows on both vectors").set_index("set")
    assert table.loc["sts12.MSRvid", "initial (distilled)"] == DISTILLED_BASELINE + 1
    msrvid = table.loc["sts12.MSRvid"]
    assert (msrvid["avg (pretrained)"], msrvid["avg (distilled)"]) == (42.1, 54.1)
    assert table.loc["mean of the 2 sets", "lstmavg (distilled)"] == 55.1


def test_no_distilled_rows_leaves_the_untrained_comparison(results):
    config, folder = results
    config = dict(config, word_vectors=dict(config["word_vectors"], distilled_rows=[], extended_distilled_rows=[]))
    doc, _ = section(config, folder)
    assert len(table_after(doc, distilled.HEADING)) == 2  # the untrained vectors, and avg's sentence-distilled twin
    assert not any(kind.startswith("h") and value.startswith("Table 4's rows") for kind, value in doc.blocks)


def test_the_twins_own_thinning_is_stated_beside_their_settings(results):
    config, folder = results
    assert "except that" not in texts(section(config, folder)[0])  # the tiny config thins the twins as their rows
    config = dict(config, word_vectors=dict(config["word_vectors"],
                                            distilled_thinning={config["data_profile"]: {"lambda_w": [1e-5, 0.0]}}))
    assert "except that their search keeps lambda_w ∈ {1e-05, 0}" in texts(section(config, folder)[0])


def test_with_the_teachers_pieces_the_section_says_how_evaluation_tokens_are_read(results):
    config, folder = results
    path = folder / "distilled/coverage.json"
    original = path.read_text()
    info = read_result(path)
    info.update(words=2004 + 1 + 500, pieces=500, subwords=True)
    info["coverage"]["eval"]["token_coverage_with_pieces"] = 0.995
    try:
        write_result(path, info, stage=None)
        text = texts(section(config, folder)[0])
    finally:
        path.write_text(original)
    assert "(2,000 words and 500 of the teacher's pieces)" in text
    assert ("80.0% of the evaluation sets' tokens have a vector of their own, 19.5% more are read as pieces and "
            "0.50% are `<unk>`") in text
