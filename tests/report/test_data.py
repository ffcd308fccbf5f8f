"""The data sections: deviations from the paper's data, the corpora and the vocabulary."""

from paraphrastic.evaluation.selection import Selection
from paraphrastic.report import data
from paraphrastic.report.document import Document
from tests.report.conftest import table_after, texts


def test_deviations_name_the_offline_data_the_matching_direction_and_the_thinning(results):
    config, folder = results
    doc = Document()
    sel = Selection(config, folder)
    data.deviations_section(doc, config, folder, sel)
    said = texts(doc)
    assert "SimpWiki: 2,000 pairs (50,000 tokens)" in said and "1% of the paper's 167,689 pairs" in said
    assert "PPDB: the 2,000 human-scored pairs" in said and "1,341,188 phrase pairs" in said
    assert "Token matching ran the other way" in said and "320-pair SimpWiki sample" in said
    assert "thinned for this profile to 7 of the 9 runs the config's grids hold unthinned, keeping only: margin [0.4]" \
        in said
    assert "GRAN models are trained for 1 epoch, as many as the LSTMs (1)." in said  # the tiny config's epochs
    assert "data.reading: authors" in said and "mapped back" not in said  # the default reading
    doc = Document()
    data.deviations_section(doc, config | {"data": config["data"] | {"reading": "ours"}}, folder, sel)
    assert "PTB escapes such as -LRB- are mapped back" in texts(doc)
    doc = Document()  # upstream data: no offline deviations, and the paper profile's grid is not thinned
    data.deviations_section(doc, dict(config, data_profile="paper"), folder, sel)
    assert "SimpWiki: 2,000 pairs" not in texts(doc) and "thinned" not in texts(doc)


def test_data_table_and_coverage(results):
    config, folder = results
    doc = Document()
    data.data_section(doc, folder)
    table = table_after(doc, "Data")
    assert table["corpus"].tolist() == ["simpwiki", "ppdb", "simpwiki (token-matched)", "ppdb (token-matched)"]
    assert table["mean tokens/sentence"].tolist()[2] == 8010 / 640
    assert "Vocabulary: 1,234 words" in texts(doc) and "simpwiki 95.0% of tokens, 80.0% of types" in texts(doc)
    assert ("simpwiki none; ppdb 3 lines: 1 blank (ppdb.txt:7), 2 with 3 fields, not 2 (ppdb.txt:2, ppdb.txt:9); "
            "the word vectors (embeddings/glove.6B.50d.txt.gz) none.") in texts(doc)


def test_gran_epochs_are_said_as_the_config_trains_them():
    runs = {"g": {"model": "gran", "epochs": 3}, "b": {"model": "bigran", "epochs": 3}, "l": {"model": "lstm",
                                                                                          "epochs": 3}}
    assert data._gran_epochs(runs) == ["GRAN epochs are not given in the paper; GRAN models are trained for 3 epochs, "
                                       "as many as the LSTMs (3)."]
    assert data._gran_epochs(runs | {"g": {"model": "gran2", "epochs": 5}})[0].endswith("3 or 5 epochs (the LSTMs: 3).")
    assert data._gran_epochs({"a": {"model": "avg", "epochs": 7}}) == []
