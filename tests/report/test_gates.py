"""The gate analysis section: Tables 9-11 beside the paper's lists."""

import re

import pandas as pd

from paraphrastic.provenance import read_result, write_result
from paraphrastic.report.document import Document
from paraphrastic.report.gates import gate_section
from tests.report.conftest import table_after, texts


def test_tables_9_to_11_beside_the_papers(results, tmp_path, paper_tables):
    config, folder = results
    doc = Document()
    gate_section(doc, config, folder, tmp_path)
    tables = [value[0] for kind, value in doc.blocks if kind == "table"]
    table9 = next(t for t in tables if "POS top: paper" in t.columns)
    assert table9["POS top: ours (mean L1)"].tolist()[:3] == ["NNP (30.0)", "NN (25.0)", "DT (10.0)"]
    paper = pd.read_csv(paper_tables / "wieting2017_table9.csv")
    first = paper[(paper["feature_type"] == "POS") & (paper["list"] == "top 10")].sort_values("position")
    assert table9["POS top: paper"].iloc[0] == first["label"].iloc[0]
    assert table9["label bottom: ours (mean L1)"].iloc[0] == "det (9.0)"  # lowest first
    assert len(table9) == 10  # one row per rank, the four lists side by side
    said = texts(doc)
    assert "POS tags: 4/10 of the paper's top 10 and 3/10 of its bottom 10" in said and "ρ" in said
    assert "UPOS 80.0, XPOS 78.0, UAS 60.0, LAS 50.0" in said and "200 sentences" in said
    assert "inputs glove.6B.50d.txt.gz; tagger 4 steps" in said
    curves = table_after(doc, "Tables 9-11")  # the first table of the section: Stanza's learning curves
    assert curves.fillna(-1).to_dict("list") == {
        "models": ["analysis", "analysis", "analysis", "compared", "compared"],
        "model": ["tagger", "tagger", "parser", "tagger", "parser"], "step": [2, 4, 4, 4, 4],
        "minutes": [0.5, 1.5, 2.0, 80 / 60, 100 / 60], "selection score": [60.0, 70.0, 40.0, 50.0, 30.0],
        "UPOS": [65.0, 75.0, -1, -1, -1], "XPOS": [62.0, 72.0, -1, -1, -1]}
    assert (tmp_path / "stanza_learning_curves.png").read_bytes().startswith(b"\x89PNG")
    assert "by file, sampled of qualified: normal 130 of 600, normal.tuning.txt 70 of 300; 128 of the sentences are " \
           "in the training pairs" in said
    # Table 10: the JJ labels, with our norms rescaled to 300-d gates beside the paper's
    tables = [value[0] for kind, value in doc.blocks if kind == "table"]
    table10 = next(t for t in tables if "× 300/50" in t.columns)
    amod = table10[table10["label"] == "amod"].iloc[0]
    assert (amod["count"], amod["mean L1 (ours)"], amod["× 300/50"]) == ("30", "24.0", "144.0")
    copied = (tmp_path / "gate_norms_by_pos.png").read_bytes()
    assert copied == (folder / "gates/analysis/norms_by_pos.png").read_bytes()


def test_agreement_with_its_intervals_and_each_seed(results, tmp_path):
    config, folder = results
    path = folder / "gates/analysis/summary.json"
    summary = read_result(path)
    summary["model"]["seeds"] = [1, 2]
    summary["bootstrap"] = {"draws": 1000, "level": 0.95, "seed": 1}
    summary["agreement"]["pos"]["interval"] = {
        "sentences": {"top_overlap": [3.0, 5.0], "bottom_overlap": [2.0, 4.0], "spearman": [0.4, 0.6]},
        "sentences_and_seeds": {"top_overlap": [2.0, 6.0], "bottom_overlap": [1.0, 4.0], "spearman": [0.1, 0.7]}}
    summary["agreement"]["pos"]["per_seed"] = {"1": {"top_overlap": 4, "bottom_overlap": 3, "spearman": 0.5},
                                               "2": {"top_overlap": 6, "bottom_overlap": 2, "spearman": 0.125}}
    write_result(path, summary, stage=None)
    doc = Document()
    gate_section(doc, config, folder, tmp_path)
    said = texts(doc)
    assert ("POS tags: 4/10 of the paper's top 10 (sentences: [3, 5]; sentences and seeds: [2, 6]; per seed: 4, 6) "
            "and 3/10") in said
    assert "ρ × 100 over the 12 of its 20 labels we observe: 50.0 (sentences: [40.0, 60.0]; sentences and seeds: " \
           "[10.0, 70.0]; per seed: 50.0, 12.5)" in said
    assert "95% percentile intervals from 1,000 bootstrap resamples" in said and "repeated on seed 2" in said
    assert "Dependency labels: 2/10 of the paper's top 10 and" in said  # no intervals there: none shown


def test_a_rank_correlation_that_cannot_be_computed_prints_a_dash_and_why(results, tmp_path):
    config, folder = results
    path = folder / "gates/analysis/summary.json"
    summary = read_result(path)
    summary["agreement"]["label"] |= {"spearman": float("nan"), "shared_labels": 1}
    summary["agreement"]["label"]["interval"] = {
        "sentences": {"top_overlap": [1.0, 2.0], "bottom_overlap": [0.0, 1.0], "spearman": [float("nan")] * 2}}
    write_result(path, summary, stage=None)
    doc = Document()
    gate_section(doc, config, folder, tmp_path)
    said = texts(doc)
    assert not re.search(r"\bnan\b", said, re.IGNORECASE)
    assert "over the 1 of its 20 labels we observe: – (too few of them, or no spread among them, to rank: 1)" in said
    # the parser comparison's table shows the same dash and why, never "nan [nan, nan]"
    table = next(value[0] for kind, value in doc.blocks if kind == "table" and "dev LAS" in value[0].columns)
    assert table["label ρ × 100"].tolist()[0] == "– (too few of them, or no spread among them, to rank)"
    assert not table.apply(lambda column: column.astype(str).str.contains("nan")).any().any()


def test_the_parser_comparison_beside_the_analysis_parser(results, tmp_path):
    config, folder = results
    path = folder / "gates/analysis/summary.json"
    summary = read_result(path)
    summary["agreement"]["pos"]["interval"] = {
        "sentences": {"top_overlap": [3.0, 5.0], "bottom_overlap": [2.0, 4.0], "spearman": [0.4, 0.6]},
        "sentences_and_seeds": {"top_overlap": [2.0, 6.0], "bottom_overlap": [1.0, 4.0], "spearman": [0.1, 0.7]}}
    write_result(path, summary, stage=None)
    doc = Document()
    gate_section(doc, config, folder, tmp_path)
    said = texts(doc)
    assert "the two agree on the Penn tag of 90.0% of the words, on the paper's label of 80.0%, on the head of " \
           "75.0% and on head and relation of 70.0%" in said
    table = next(value[0] for kind, value in doc.blocks if kind == "table" and "dev LAS" in value[0].columns)
    assert table["parser"].tolist() == ["analysis (tables above): trained here, glove.6B.50d.txt.gz, 4 + 4 steps",
                                        "compared: trained here, no word vectors, 4 + 4 steps"]
    assert table["dev XPOS"].tolist() == ["78.0", "68.0"] and table["dev LAS"].tolist() == ["50.0", "40.0"]
    # the widest interval there is (sentences and seeds), where the analysis has one
    assert table["POS ρ × 100"].tolist() == ["50.0 [10.0, 70.0]", "37.5"]
    assert table["POS top/bottom"].tolist() == ["4 [2, 6] / 3 [1, 4]", "3 / 3"]
    assert table["label ρ × 100"].tolist() == ["25.0", "12.5"]


def test_models_with_a_transformer_name_it_beside_their_word_vectors(results, tmp_path):
    config, folder = results
    path = folder / "stanza" / "scores.json"
    write_result(path, read_result(path) | {"transformer": "all-MiniLM-L6-v2"}, stage=None)
    doc = Document()
    gate_section(doc, config, folder, tmp_path)
    assert "inputs glove.6B.50d.txt.gz + all-MiniLM-L6-v2; tagger 4 steps" in texts(doc)
    table = next(value[0] for kind, value in doc.blocks if kind == "table" and "dev LAS" in value[0].columns)
    assert table["parser"][0] == "analysis (tables above): trained here, glove.6B.50d.txt.gz + all-MiniLM-L6-v2, " \
                                 "4 + 4 steps"


def test_pretrained_models_have_no_curves_but_the_figure_is_still_written(results, tmp_path):
    config, folder = results
    path = folder / "stanza" / "scores.json"
    scores = read_result(path)
    kept = {k: v for k, v in scores.items() if k not in ("budget", "curves")}
    write_result(path, kept | {"source": "pretrained"}, stage=None)
    path = folder / "gates" / "compared.json"
    comparison = read_result(path)
    comparison["parser"] = {k: v for k, v in comparison["parser"].items() if k not in ("budget", "curves")}
    write_result(path, comparison | {"source": "pretrained"}, stage=None)
    doc = Document()
    gate_section(doc, config, folder, tmp_path)
    assert "Learning curves" not in texts(doc) and "models pretrained" in texts(doc)
    assert (tmp_path / "stanza_learning_curves.png").is_file()  # the report stage's output, whatever the models


def test_the_default_run_says_how_to_run_the_parser_comparison_it_leaves_out(results, tmp_path):
    config, folder = results
    (folder / "gates" / "compared.json").unlink()  # an earlier extended run's would not be read either
    doc = Document()
    gate_section(doc, dict(config, extended=False), folder, tmp_path)
    said = texts(doc)
    assert "Parser comparison: left out of this run for its cost" in said and "`extended: true` runs it" in said
    assert not any(kind == "table" and "dev LAS" in value[0].columns for kind, value in doc.blocks)
    curves = table_after(doc, "Tables 9-11")
    assert set(curves["models"]) == {"analysis"}
