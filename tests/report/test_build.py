"""The whole report: every section in order, report.md, report.html, metrics.json and runs.csv."""

import json
import re

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
    assert (out / "report.html").read_text().count("<img") == 4 and (out / "runs.csv").exists()
    metrics = json.loads((out / "metrics.json").read_text())
    assert {"baseline", "baseline_distilled", "baseline_sentence_distilled", "supervised", "reference_encoder",
            "siamese_cbow", "pwim", "t-lstmavg-reg", "lstmavg-simpwiki-distilled"} <= set(metrics)


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
