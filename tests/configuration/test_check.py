"""params.yaml checked whole before any job starts: every job's settings, thinning that names real axes, and every
key that names a row elsewhere in the config. (`paraphrastic grids`, Snakemake's parse and DVC's first stage.)"""

import pytest

from paraphrastic.cli.main import main
from paraphrastic.configuration.check import check
from paraphrastic.errors import PipelineError
from tests.configuration.test_settings import tiny


def _set(*path_and_value):
    *path, key, value = path_and_value

    def apply(c):
        node = c
        for part in path:
            node = node[part]
        node[key] = value
    return apply


# (what is wrong, how to make it so, what the error must say): each was accepted silently before the check.
BAD = [
    ("thinning a misspelt axis", _set("grid_thinning", "offline", "marginn", [0.4]),
     r"grid_thinning.offline: \['marginn'\] is not a search axis"),
    ("thinning a dict-valued axis by its name", _set("grid_thinning", "offline", "input_dropout", [{"dropout": 0.2}]),
     r"grid_thinning.offline: \['input_dropout'\] is not a search axis"),
    ("thinning a misspelt supervised axis", _set("supervised", "thinning", "offline", "dropoutt", [0.2]),
     r"supervised.thinning.offline: \['dropoutt'\]"),
    ("a missing gate-analysis row", _set("gates", "gran_row", "gran-simpwikii"),
     "gates.gran_row: no experiment or grid row named 'gran-simpwikii'"),
    ("a missing error-analysis row", _set("error_analysis", "rows", "avg", "nope"),
     "error_analysis.rows.avg: no experiment or grid row named 'nope'"),
    ("a missing Table 4 row", _set("report", "table4", "lstmavg", "nope"),
     "report.table4.lstmavg: no experiment or grid row named 'nope'"),
    ("a missing Table 2 row", _set("report", "table2", ["nope"]), "report.table2: no experiment or grid row"),
    ("a missing Table 5 row", _set("supervised", "report", "table5", ["s-avg", "s-avgg"]),
     "supervised.report.table5: no supervised grid row named 's-avgg'"),
    ("a missing Table 8 row", _set("supervised", "report", "table8", [["s-gran", "nope"]]),
     "supervised.report.table8: no supervised grid row named 'nope'"),
    ("a transfer row as a supervised one", _set("supervised", "report", "table6", ["gran-simpwiki"]),
     "supervised.report.table6: no supervised grid row named 'gran-simpwiki'"),
    ("a misspelt grid axis", lambda c: c["grids"][0]["search"].update(marginn=[0.4]),
     "'marginn' was unexpected"),
    ("a negative margin in an experiment", _set("experiments", "avg-ppdb", "margin", -0.4), "margin: -0.4 is less"),
    ("thinning a misspelt axis for the distilled twins",
     _set("word_vectors", "distilled_thinning", {"offline": {"lambda_ww": [0.0]}}),
     r"word_vectors.distilled_thinning.offline: \['lambda_ww'\] is not a search axis"),
    ("a distilled twin of a row that does not exist", _set("word_vectors", "distilled_rows", ["nope"]),
     "word_vectors.distilled_rows: no experiment or grid row named 'nope'"),
    ("a supervised split that leaves no test split",
     _set("supervised", "split", {"train": 0.8, "validation": 0.3, "seed": 1}),
     r"supervised.split: train 0.8 \+ validation 0.3 leave no test split"),
    ("a universal run from a row on the distilled vectors",
     _set("experiments", "gran-simpwiki", "word_vectors", "distilled"),
     "its init row 'gran-simpwiki' trains on the distilled word vectors"),
    ("an unknown source of word vectors", _set("experiments", "avg-ppdb", "word_vectors", "glove"),
     "'glove' is not one of"),
]


@pytest.mark.fault("params.yaml")
@pytest.mark.parametrize("spoil, message", [case[1:] for case in BAD], ids=[case[0] for case in BAD])
def test_every_bad_key_is_named_before_any_job(spoil, message):
    c = tiny()
    spoil(c)
    with pytest.raises(PipelineError, match=message):
        check(c)


def test_the_shipped_configs_pass(tmp_path):
    for profile in ("offline", "paper"):
        assert main(["--profile", profile, "grids"]) == 0
    assert check(tiny()).rows


@pytest.mark.fault("params.yaml")
def test_thinning_a_data_profile_that_does_not_exist_is_a_schema_error(tmp_path, capsys):
    import yaml

    c = tiny()
    c["grid_thinning"]["offlin"] = {"margin": [0.4]}
    (tmp_path / "p.yaml").write_text(yaml.safe_dump(c))
    assert main(["--params", str(tmp_path / "p.yaml"), "grids"]) == 1
    assert "grid_thinning: 'offlin' is not one of ['offline', 'paper']" in capsys.readouterr().err
