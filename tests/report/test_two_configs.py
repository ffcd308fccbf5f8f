"""The report's prose says what the config did: rendered on two configs that differ in every setting the prose
states (epochs of every family, seeds, the grids' thinning, the reading, the supervised split and thinning, Siamese
CBOW's and PWIM's settings, the matching seed), no sentence that speaks of such a setting reads the same in both
unless its numbers come from the run's own records (the made-up results are the same for both) or are constants,
and neither report prints `nan`."""

from __future__ import annotations

import copy
import re
from pathlib import Path

from paraphrastic.configuration.jobs import JobTables
from paraphrastic.report.build import build_report
from tests.report import conftest as made_up

# Words of a sentence that speaks of a setting the second config changes
SETTING = re.compile(r"\bepochs?\b|\bseeds?\b|thinned|tokeni[sz]|\bsplit\b|seen fewer than|\bruns?\b", re.I)

# The sentences that speak of a setting and still read the same under both configs, each with why that is true for
# both: their numbers are the run's records (the same made-up files for both), the paper's, or names
ALIKE = {
    "- [Table 9: parameters and SICK epoch time]": "a heading's link",
    "Our numbers are computed by this run": "the STS 2016 sets selected on: both configs select on the same one",
    "PPDB has fewer tokens": "match_summary.json's sizes and seed",
    "Pearson's r × 100, as the paper prints it. runs, seeds:": "a caption naming columns",
    "MiniLM was trained on over a billion": "MiniLM's model card",
    "The rows below are trained again from them": "the vectors' records",
    "Then trained at the sentence level": "targets.json and training.json",
    "*Mean Pearson's r × 100 over the transfer sets": "a caption: the vectors' records",
    "How training follows the authors' code": "the train defaults, the same in both",
    "*2-set mean Pearson's r × 100 per seed": "a caption: both configs score the same two transfer sets",
    "200 sentences from SimpWiki": "gates/sentences.json",
    "Model: run gran-simpwiki (seed 1)": "the gate analysis's summary.json",
    "Labels seen fewer than 3 times": "the gate analysis's summary.json",
    "In brackets, 95% bootstrap intervals": "a caption",
    "A row's model is the run and epoch": "no number of the config",
    "30 pairs of the 2 STS 2012-2015 sets": "the error analysis's records",
    "The paper's rate 1e-4 for one epoch": "the paper's rate, and the steps the run's records count",
    "- STS 2014 training: 40 STS 2012-2013 pairs": "PWIM's data records",
    "Ours is the mean training time of an epoch": "PWIM's records",
    "- A SICK epoch takes": "PWIM's records and the paper's time",
}


def the_other_config(config: dict) -> dict:
    """``config`` with every setting the report's prose states changed."""
    other = copy.deepcopy(config)
    for experiment in other["experiments"].values():
        experiment["epochs"] += 1
    other["seeds"] += 1
    other["grids"][0]["epochs"] += 1
    other["grids"][0]["seeds"] += 1
    other["grid_thinning"]["offline"] = {"margin": [0.8]}
    other["data"]["reading"] = "authors"
    other["data"]["match_seed"] += 1
    other["supervised"]["train"]["epochs"] += 1
    other["supervised"]["split"] = {"train": 0.5, "validation": 0.2, "seed": 2}
    other["supervised"]["thinning"]["offline"] = {"lambda_w": [1.0e-5, 1.0e-3], "dropout": [0.4]}
    other["siamese_cbow"]["train"]["epochs"] += 1
    other["siamese_cbow"]["train"]["min_count"] += 1
    other["pwim"]["train"]["epochs"] += 1
    other["pwim"]["split_seed"] += 1
    return other


def rendered(config: dict, folder: Path) -> str:
    data = folder / "data"
    tables = JobTables.of(config)
    made_up.transfer_files(data, tables)
    made_up.data_files(data)
    made_up.reference_files(data, config)
    made_up.gate_files(data, config)
    made_up.supervised_files(data, tables)
    made_up.error_files(data, config)
    made_up.siamese_files(data, config)
    made_up.pwim_files(data, tables)
    return build_report(config, data_dir=data, out_dir=folder / "report").read_text()


def sentences(markdown: str) -> list[str]:
    """The prose's sentences (tables, headings and images left out)."""
    found = []
    for line in markdown.splitlines():
        if line.strip() and not line.startswith(("|", "#", "!", "<")):
            found += [s.strip() for s in re.split(r"(?<=[.;:])\s+(?=[A-Z(*-])", line) if s.strip()]
    return found


def test_no_sentence_states_a_setting_the_same_way_for_two_configs_that_differ_in_it(results, tmp_path):
    config, _ = results
    one = rendered(config, tmp_path / "one")
    two = rendered(the_other_config(config), tmp_path / "two")
    assert one != two
    for report in (one, two):
        assert not re.search(r"\bnan\b", report, re.I), [s for s in sentences(report) if "nan" in s.lower()]
    theirs = set(sentences(two))
    alike = [s for s in dict.fromkeys(sentences(one)) if s in theirs and re.search(r"\d", s) and SETTING.search(s)]
    unexplained = [s for s in alike if not s.startswith(tuple(ALIKE))]
    assert not unexplained, unexplained
    # what the first config states, the second states its own way
    assert "1 epoch" in one and "2 epochs" in two
