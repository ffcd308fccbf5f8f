"""The whole report: every section in order, report.md, report.html, metrics.json and runs.csv."""

import json
import re
import shutil

import pytest

from paraphrastic.errors import PipelineError
from paraphrastic.provenance import write_result
from paraphrastic.report.build import build_report


def test_report_files_sections_in_order_and_metrics(results, tmp_path):
    config, folder = results
    out = tmp_path / "report"
    assert build_report(config, data_dir=folder, out_dir=out) == out / "report.md"
    markdown = (out / "report.md").read_text()
    headings = re.findall(r"^## (.+)$", markdown, re.M)
    order = ["Data deviations", "Data", "Table 1", "Table 2", "Table 3", "Table 4", "What a user would pick instead",
             "Beyond the paper: word vectors distilled", "Model selection per row", "Seed variation", "Training runs",
             "Learning curves", "Tables 9-11", "Supervised similarity", "Table 7", "Siamese CBOW", "PWIM", "Findings"]
    positions = [next(i for i, h in enumerate(headings) if h.startswith(name)) for name in order]
    assert positions == sorted(positions)
    # no absolute path of the machine: the fixture's config names its tables by one (as the quick look's does)
    assert config["paper_tables"].startswith("/") and config["paper_tables"] not in markdown
    assert str(tmp_path) not in markdown
    # a capped config's findings are headed so, as its tables are
    assert next(h for h in headings if h.startswith("Findings")).startswith("Findings from this run (tiny config: ")
    assert (out / "report.html").read_text().count("<img") == 4 and (out / "runs.csv").exists()
    metrics = json.loads((out / "metrics.json").read_text())
    assert {"baseline", "baseline_distilled", "baseline_sentence_distilled", "supervised", "reference_encoder",
            "siamese_cbow", "pwim", "t-lstmavg-reg", "lstmavg-simpwiki-distilled"} <= set(metrics)
    # what the means are over: the tiny config's transfer sets (two of the 22) and its one STS 2016 selection set
    assert metrics["evaluated"] == {"transfer_sets": 2, "selection_sets": 1}


@pytest.mark.fault("params.yaml")
def test_a_paper_tables_setting_that_names_no_tables_stops_the_report_and_the_gate_analysis(results, tmp_path,
                                                                                            monkeypatch):
    """A report whose paper columns are all "–" would pass for one with the papers' numbers missing by design."""
    from paraphrastic.analysis.gates import paper_lists

    config, folder = results
    config = {**config, "paper_tables": "../papers/tables"}  # relative: read from the working directory
    monkeypatch.chdir(tmp_path)
    named = (r"wieting2017_table\d+\.csv: no such file: the setting `paper_tables` "
             rf"\(\.\./papers/tables, read from {tmp_path}\)")
    with pytest.raises(PipelineError, match=named):
        build_report(config, data_dir=folder, out_dir=tmp_path / "report")
    assert not (tmp_path / "report" / "report.md").exists()
    with pytest.raises(PipelineError, match=named):
        paper_lists(config)


def leaves(doc, path=""):
    if isinstance(doc, dict):
        return [leaf for key, value in doc.items() for leaf in leaves(value, f"{path}.{key}")]
    return [(path, doc)]


def test_metrics_hold_scores_only_and_timings_their_own_file(results, tmp_path):
    """metrics.json is what `dvc metrics diff` and `dvc exp show` compare: numbers that are the same when an
    experiment is run again, no strings, no times (those are in timings.json)."""
    config, folder = results
    build_report(config, data_dir=folder, out_dir=tmp_path)
    metrics = leaves(json.loads((tmp_path / "metrics.json").read_text()))
    assert metrics and all(isinstance(v, int | float) and not isinstance(v, bool) for _, v in metrics), metrics
    assert not [p for p, _ in metrics if re.search("second|time|speed", p)]
    timings = json.loads((tmp_path / "timings.json").read_text())
    assert timings["reference_encoder_sentences_per_second"]["all-MiniLM-L6-v2"] == 100.0
    assert timings["transfer_training"]["jobs"] > 0 and timings["transfer_training"]["train_seconds"] >= 0


@pytest.mark.fault("misplaced artifacts")
@pytest.mark.parametrize("how, says", [
    ("a score edited by hand", "its values differ from what baseline wrote"),
    ("rewritten without its record", "holds no record of what the pipeline wrote there"),
    ("another result copied over it", "holds what baseline_distilled wrote as data/results/baseline_distilled.json"),
])
def test_the_report_refuses_a_result_whose_record_does_not_match(results, tmp_path, monkeypatch, how, says):
    """A result JSON's record (paraphrastic.provenance.write_result): baseline.json edited to 99.0 used to be
    published as 99.0 in the report and metrics.json."""
    config, folder = results
    path = folder / "results" / "baseline.json"
    if how == "a score edited by hand":
        values = json.loads(path.read_text())
        values["summary"]["transfer_pearson"] = 99.0
        path.write_text(json.dumps(values, indent=2))
    elif how == "rewritten without its record":
        values = json.loads(path.read_text())
        del values["record"]
        path.write_text(json.dumps(values))
    else:
        monkeypatch.chdir(folder.parent)  # roles are read relative to the working directory's data folder
        for name in ("baseline", "baseline_distilled"):  # as a stage run from the checkout writes them
            values = json.loads((folder / "results" / f"{name}.json").read_text())
            del values["record"]
            write_result(f"data/results/{name}.json", values, stage=name)
        shutil.copy(folder / "results" / "baseline_distilled.json", path)
    with pytest.raises(PipelineError, match=f"baseline.json: {says}"):
        build_report(config, data_dir=folder, out_dir=tmp_path / "report")
    assert not (tmp_path / "report" / "metrics.json").exists()


@pytest.mark.fault("misplaced artifacts")
@pytest.mark.parametrize("name", ["history.json", "train.json", "corpus/match_summary.json"])
def test_the_report_refuses_a_run_or_count_edited_by_hand(results, tmp_path, name):
    """A run's history (an epoch's score edited, which would change the selected run) and every JSON result a stage
    writes for the report are checked against their records as the report reads them."""
    config, folder = results
    path = folder / name if "/" in name else next((folder / "models").rglob(name))
    values = json.loads(path.read_text())
    (values[-1] if isinstance(values, list) else values).update(edited=True)
    path.write_text(json.dumps(values))
    with pytest.raises(PipelineError, match=f"{path.name}: (its values )?differ"):
        build_report(config, data_dir=folder, out_dir=tmp_path / "report")
    assert not (tmp_path / "report" / "metrics.json").exists()


@pytest.mark.fault("filesystem")
def test_the_report_never_replaces_a_file_of_the_users_but_replaces_its_own(results, tmp_path):
    """`paraphrastic report --out-dir DIR` into a folder holding the user's own report.md stops before writing
    anything, naming the file (as `export` refuses a folder that is not an earlier export); a report written there
    before, unchanged since, is replaced; one edited by hand since is the user's."""
    from paraphrastic.pipeline.steps import report

    config, folder = results
    out = tmp_path / "mine"
    out.mkdir()
    (out / "report.md").write_text("my notes\n")
    with pytest.raises(PipelineError, match=r"holds report.md, which the report would replace .* \(no record.json "
                                            r"of an earlier report beside them\); nothing was written"):
        report.run(config, data_dir=folder, out_dir=out)
    assert sorted(p.name for p in out.iterdir()) == ["report.md"] and (out / "report.md").read_text() == "my notes\n"
    (out / "report.md").unlink()
    report.run(config, data_dir=folder, out_dir=out)
    report.run(config, data_dir=folder, out_dir=out)  # its own earlier report, as it wrote it: replaced
    with (out / "report.md").open("a") as handle:
        handle.write("my edit\n")
    with pytest.raises(PipelineError, match=r"holds report.md, which .* \(they differ from what .*record.json records"):
        report.run(config, data_dir=folder, out_dir=out)
    assert (out / "report.md").read_text().endswith("my edit\n")
